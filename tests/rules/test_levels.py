"""Bot levels (rules/levels.py): a room may ask only for the levels there are; an easy bot plays
legally, from its own view alone, deterministically from the random stream, and worse than the
normal one (bench/bots.py measures how much)."""
from __future__ import annotations

import copy
import random

import pytest

from bench.bots import USUAL, play
from rules import levels
from rules.engine import IllegalAction
from rules.registry import GAMES, SAMPLERS


def test_only_the_levels_there_are_may_be_asked_for() -> None:
    assert levels.LEVELS == ("easy", "normal", "strong")
    for gid in GAMES:
        for level in levels.levels_for(gid):
            assert levels.check(level, gid) == level
        for bad in ("mighty", "", None, 1, "EASY"):
            with pytest.raises(ValueError):
                levels.check(bad, gid)
        if gid not in levels.SEARCHED:
            with pytest.raises(ValueError):
                levels.check("strong", gid)
    assert set(SAMPLERS) >= levels.SEARCHED and "symbiose" in levels.SEARCHED


@pytest.mark.parametrize("gid", sorted(GAMES))
def test_an_easy_bot_plays_legally_and_the_same_way_from_the_same_seed(gid: str) -> None:
    game = GAMES[gid]
    seats = USUAL[gid]

    def moves(seed: int) -> list[object]:
        state = game.setup(seats, seed, game.check_options(seats, {}))
        rng = random.Random(seed)
        chosen: list[object] = []
        for _ in range(60):
            if game.result(state) is not None or game.contest(state) is not None:
                break
            movers = [s for s in game.active(state) if game.legal(state, s)]
            if not movers:
                break
            seat = movers[0]
            view = game.view(state, seat)
            action = levels.bot_action(game, view, rng, levels.EASY)
            assert action is not None
            chosen.append(action)
            if action.get("type") == "offer":  # an offer is never an item of legal; the engine judges it
                try:
                    game.apply(state, seat, copy.deepcopy(action))
                except IllegalAction:
                    game.apply(state, seat, copy.deepcopy(view["legal"][0]))
                continue
            assert action in view["legal"], f"{action} is not legal for seat {seat}"
            game.apply(state, seat, copy.deepcopy(action))
        return chosen

    first = moves(3)
    assert first and moves(3) == first


def test_an_easy_bot_sometimes_plays_otherwise_than_the_normal_one() -> None:
    game = GAMES["symbiose"]
    state = game.setup(2, 5, game.check_options(2, {}))
    rng = random.Random(5)
    while game.view(state, None)["phase"] != "swap":  # past the first flips, where any flip is as good
        seat = game.active(state)[0]
        game.apply(state, seat, levels.bot_action(game, game.view(state, seat), rng))
    view = game.view(state, game.active(state)[0])
    normal = {str(levels.bot_action(game, view, random.Random(i), levels.NORMAL)) for i in range(40)}
    easy = {str(levels.bot_action(game, view, random.Random(i), levels.EASY)) for i in range(40)}
    assert easy - normal, "an easy bot's random half shows"


@pytest.mark.parametrize("gid", sorted(GAMES))
def test_the_tournament_plays_each_game_to_its_end(gid: str) -> None:
    """bench/bots.py's table: every level and random play together finish a game."""
    roles = (["normal", "easy", "random", "easy"] * 2)[:USUAL[gid]]
    times: dict[str, list[float]] = {}
    winners = play(gid, USUAL[gid], 1, roles, times)
    assert winners is not None and winners
    assert {t.removesuffix(" grab") for t in times} <= {"normal", "easy", "random"}
