"""Which games the hub serves, by protocol id. A game is a package of `rules/` whose `GAME` is
listed here; no game imports this module, so adding one is a line below and nothing else."""
from __future__ import annotations

from rules import frenetic_village, frenzy_falls, symbiose, waterfall_park
from rules.engine import Game
from rules.frenetic_village import sample as frenetic_village_sample
from rules.frenzy_falls import sample as frenzy_falls_sample
from rules.search import Sampler
from rules.symbiose import sample as symbiose_sample
from rules.waterfall_park import sample as waterfall_park_sample

GAMES: dict[str, Game] = {
    game.id: game for game in (frenzy_falls.GAME, waterfall_park.GAME, frenetic_village.GAME, symbiose.GAME)
}

#: The games whose hidden cards the strong level can sample (rules/search.py), by protocol id.
SAMPLERS: dict[str, Sampler] = {
    symbiose.GAME.id: symbiose_sample,
    frenzy_falls.GAME.id: frenzy_falls_sample,
    frenetic_village.GAME.id: frenetic_village_sample,
    waterfall_park.GAME.id: waterfall_park_sample,
}


def get(game_id: str) -> Game | None:
    return GAMES.get(game_id)
