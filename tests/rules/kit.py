"""Shared checks for every engine: random legal play, refusals that change nothing, determinism."""
from __future__ import annotations

import copy
import json
import pickle
import random
from dataclasses import dataclass, field
from typing import Any

from rules.engine import HUB, Game, IllegalAction


@dataclass
class Playout:
    state: Any
    steps: int = 0
    actions: list[tuple[int | None, dict[str, Any]]] = field(default_factory=list)
    finished: bool = False


def step_once(game: Game, state: Any, rng: random.Random,
              prefer: frozenset[str] = frozenset()) -> tuple[int | None, dict[str, Any]] | None:
    """One random legal step: a contest result when a contest is open, else an action of an active
    seat (one of the `prefer` types when the chosen seat has one)."""
    contest = game.contest(state)
    if contest is not None:
        winner = rng.choice([*contest.eligible, None])
        action = {"type": "contest_result", "key": contest.key, "winner": winner}
        game.apply(state, HUB, action)
        return HUB, action
    movers = [s for s in game.active(state) if game.legal(state, s)]
    if not movers:
        return None
    seat = rng.choice(movers)
    legal = game.legal(state, seat)
    preferred = [a for a in legal if a.get("type") in prefer] if prefer else []
    action = rng.choice(preferred or legal)
    game.apply(state, seat, copy.deepcopy(action))
    return seat, action


def bot_step(game: Game, state: Any, rng: random.Random) -> bool:
    """One step as the hub's bots play (offers and trades included, which random legal play never
    makes: offers are not listed in `legal`); a contest or a refused bot move goes at random."""
    movers = [s for s in game.active(state) if game.legal(state, s)]
    if game.contest(state) is not None or not movers:
        return step_once(game, state, rng) is not None
    seat = rng.choice(movers)
    action = game.bot_action(game.view(state, seat), rng)
    try:
        game.apply(state, seat, copy.deepcopy(action))
    except IllegalAction:
        return step_once(game, state, rng) is not None
    return True


def random_playout(game: Game, seats: int, seed: int, options: dict[str, Any] | None = None,
                   max_steps: int = 20000, rng_seed: int | None = None,
                   prefer: frozenset[str] = frozenset()) -> Playout:
    opts = game.check_options(seats, options or {})
    state = game.setup(seats, seed, opts)
    rng = random.Random(seed if rng_seed is None else rng_seed)
    out = Playout(state)
    for _ in range(max_steps):
        if game.result(state) is not None:
            out.finished = True
            break
        step = step_once(game, state, rng, prefer)
        if step is None:
            break
        out.actions.append(step)
        out.steps += 1
    out.finished = game.result(state) is not None
    return out


def all_views(game: Game, state: Any, seats: int) -> list[dict[str, Any]]:
    return [game.view(state, s) for s in [None, *range(seats)]]


def assert_views_are_json(game: Game, state: Any, seats: int) -> None:
    for v in all_views(game, state, seats):
        assert json.loads(json.dumps(v)) == v, "a view must be JSON-compatible"
        for key in ("game", "phase", "players", "active", "legal", "deadline", "result"):
            assert key in v, f"view lacks {key}"


def assert_refusal_changes_nothing(game: Game, state: Any, seat: int | None, action: Any) -> str:
    """Apply an action that must be refused; return its code, and prove the state did not move."""
    before = pickle.dumps(state)
    try:
        game.apply(state, seat, action)
    except IllegalAction as e:
        assert pickle.dumps(state) == before, "a refused action changed the state"
        return e.code
    raise AssertionError(f"{action!r} was accepted")


def replay(game: Game, seats: int, seed: int, options: dict[str, Any] | None,
           actions: list[tuple[int | None, dict[str, Any]]]) -> Any:
    state = game.setup(seats, seed, game.check_options(seats, options or {}))
    for seat, action in actions:
        game.apply(state, seat, copy.deepcopy(action))
    return state
