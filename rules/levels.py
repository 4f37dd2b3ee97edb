"""How well a bot plays: its level, chosen per bot seat.

A bot sees only its own seat's view, as every bot does, whatever its level; a level only changes
what it makes of that view. Pure: the choice depends on the view and the random stream alone.

- ``normal``: the game's own heuristic (`Game.bot_action`, `Game.bot_wants`).
- ``strong``: a search over what the seat may know (rules/search.py), offered for the games in
  `SEARCHED`: those with a sampler of their hidden cards (`rules.registry.SAMPLERS`) where the
  search, within the hub's budget, measured stronger than the normal bot (bench/bots.py); the
  search itself runs for every game with a sampler, so that the bench can measure it where it is
  not offered. Its grabs are searched too (`search.wants`). Where the game has offers, the hub may
  forbid it new ones (`propose`): a table's strong bots make at most one a minute
  (hub/tables/bots.py).
- ``easy``: a beginner. On each decision it plays the normal move only `EASY_CARE` of the time and
  otherwise any legal move at random (a card thrown away, an offer not made, a Pool chosen
  blindly), and it goes for a grab only that often too. It always plays legally.

`levels_for(game)` lists what a room of that game may ask for.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from rules import search
from rules.engine import Action, Game, View
from rules.registry import SAMPLERS

EASY = "easy"
NORMAL = "normal"
STRONG = "strong"
#: The levels a bot seat may have, weakest first.
LEVELS: tuple[str, ...] = (EASY, NORMAL, STRONG)
DEFAULT = NORMAL
#: How often an easy bot plays (or grabs) as the normal one would: measured by bench/bots.py so that
#: a normal bot wins clearly more than its share against easy ones, and an easy bot still beats
#: random play.
EASY_CARE = 0.5


#: The games whose bots may be strong: those where the search, within the hub's budget, measured
#: stronger than the normal bot. Waterfall Park's search plays to the round's end and compares its
#: moves in the same worlds (its sampler's `horizon` and `paired`). Frenetic Village's search runs
#: (bench/bots.py measures it) but only matched the normal bot, 1.00 x its fair share over 200
#: games, so it is not offered (docs/frenetic_village.md).
SEARCHED = frozenset({"symbiose", "frenzy_falls", "waterfall_park"}) & frozenset(SAMPLERS)


def levels_for(game_id: str) -> tuple[str, ...]:
    """The levels a bot of this game may have."""
    return LEVELS if game_id in SEARCHED else tuple(lv for lv in LEVELS if lv != STRONG)


def check(level: Any, game_id: str) -> str:
    """The level named, or ValueError: the rooms' API says which it knows."""
    known = levels_for(game_id)
    if level not in known:
        raise ValueError(f"a bot's level is one of {', '.join(known)}")
    return str(level)


def bot_action(game: Game, view: View, rng: random.Random, level: str = DEFAULT,
               stop: Callable[[], bool] | None = None, iterations: int = search.ITERATIONS,
               propose: bool = True) -> Action | None:
    """The move of a bot of `level` seeing `view` (None when it has none to make). A strong bot's
    search ends after `iterations`, or sooner once `stop()` says its time is up; without `propose`
    it makes no offer (counter-offers included): the hub paces a table's strong bots' offers."""
    if level == EASY and rng.random() >= EASY_CARE:
        legal = view.get("legal") or []
        if legal:
            return dict(rng.choice(legal))
    if level == STRONG and game.id in SAMPLERS:
        return search.search(game, SAMPLERS[game.id], view, rng, iterations=iterations, stop=stop,
                             allow=None if propose else _no_offer)
    return game.bot_action(view, rng)


def _no_offer(action: Action) -> bool:
    return action.get("type") != "offer"


def bot_wants(game: Game, view: View, info: Mapping[str, Any], rng: random.Random, level: str = DEFAULT,
              stop: Callable[[], bool] | None = None, iterations: int = search.ITERATIONS) -> bool:
    """Whether a bot of `level` tries for a contest (a grab): an easy one is slow to see it, a strong
    one searches whether the card is worth more in its hand than in another's (`search.wants`),
    until `stop()` says its reaction is due."""
    if level == EASY and rng.random() >= EASY_CARE:
        return False
    if level == STRONG and game.id in SAMPLERS:
        return search.wants(game, SAMPLERS[game.id], view, info, rng, iterations=iterations, stop=stop)
    return game.bot_wants(view, info)
