"""Every engine's views are fresh JSON: no map or list shared with the state or another view.

The hub keeps each audience's last view as it came from the engine and diffs the next one against
it (hub/tables/views.py, `compose`): a list the state still owned would change under it, and the next
diff would miss the change. Played over random legal games at every table size, every audience.
"""
from __future__ import annotations

import random
from typing import Any

import msgpack
import pytest

from rules.registry import GAMES
from tests.rules.kit import step_once

STEPS = 300


def containers(value: Any, path: str, into: dict[int, str]) -> None:
    if isinstance(value, dict):
        into[id(value)] = path
        for k, v in value.items():
            assert isinstance(k, str), f"{path}: a key that is not a string: {k!r}"
            containers(v, f"{path}/{k}", into)
    elif isinstance(value, list):
        into[id(value)] = path
        for i, v in enumerate(value):
            containers(v, f"{path}/{i}", into)
    else:
        assert value is None or isinstance(value, str | int | float | bool), f"{path}: {type(value).__name__}"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_two_views_of_one_state_share_no_map_or_list(game_id: str) -> None:
    game = GAMES[game_id]
    sizes = list(range(game.min_players, game.max_players + 1))
    for g, seats in enumerate(sizes):
        state = game.setup(seats, g, game.check_options(seats, {}))
        rng = random.Random(g)
        for _ in range(STEPS):
            for audience in [None, *range(seats)]:
                first: dict[int, str] = {}
                second: dict[int, str] = {}
                a, b = game.view(state, audience), game.view(state, audience)
                containers(a, "", first)
                containers(b, "", second)
                shared = sorted(first[i] for i in first.keys() & second.keys())
                assert not shared, f"{game_id}, {seats} seats, audience {audience}: shared {shared[:5]}"
            if game.result(state) is not None or step_once(game, state, rng) is None:
                break


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_all_audiences_views_at_once_are_their_views_and_fresh_per_call(game_id: str) -> None:
    """`views` may build what every audience sees alike once; each view must still be exactly the
    audience's own `view` (so nothing hidden is shared), and two calls share no map or list."""
    game = GAMES[game_id]
    sizes = list(range(game.min_players, game.max_players + 1))
    for g, seats in enumerate(sizes):
        state = game.setup(seats, g, game.check_options(seats, {}))
        rng = random.Random(g)
        audiences: list[int | None] = [None, *range(seats)]
        for _ in range(STEPS):
            first, second = game.views(state, audiences), game.views(state, audiences)
            assert len(first) == len(audiences)
            for audience, v in zip(audiences, first, strict=True):
                assert msgpack.packb(v) == msgpack.packb(game.view(state, audience)), (game_id, seats, audience)
            a: dict[int, str] = {}
            b: dict[int, str] = {}
            for i, v in enumerate(first):
                containers(v, f"[{i}]", a)
            for i, v in enumerate(second):
                containers(v, f"[{i}]", b)
            shared = sorted(a[i] for i in a.keys() & b.keys())
            assert not shared, f"{game_id}, {seats} seats: two calls share {shared[:5]}"
            if game.result(state) is not None or step_once(game, state, rng) is None:
                break
