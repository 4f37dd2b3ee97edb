"""Which games the hub serves, by protocol id. Registering a game here is all the hub needs."""
from __future__ import annotations

from rules.engine import Game

GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    GAMES[game.id] = game
    return game


def get(game_id: str) -> Game | None:
    return GAMES.get(game_id)


# Each game module calls register() on import; the imports follow as games land.

import rules.frenetic_village  # noqa: E402,F401
import rules.frenzy_falls  # noqa: E402,F401
import rules.symbiose  # noqa: E402,F401
import rules.waterfall_park  # noqa: E402,F401
