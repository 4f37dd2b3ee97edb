"""Which games the hub serves, by protocol id. A game is a package of `rules/` whose `GAME` is
listed here; no game imports this module, so adding one is a line below and nothing else."""
from __future__ import annotations

from rules import frenetic_village, frenzy_falls, symbiose, waterfall_park
from rules.engine import Game

GAMES: dict[str, Game] = {
    game.id: game for game in (frenzy_falls.GAME, waterfall_park.GAME, frenetic_village.GAME, symbiose.GAME)
}


def get(game_id: str) -> Game | None:
    return GAMES.get(game_id)
