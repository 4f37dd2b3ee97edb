"""The strong level: a search over what a seat may know.

Determinized Monte Carlo search with UCB1 at the root (single-observer information-set MCTS cut to
one level of tree, which measured as strong as deeper trees at the budgets a table can afford, since
a sampled world's later moves are played by the normal policy anyway). Each iteration

1. samples a whole state consistent with the seat's own view: the game's `Sampler` deals the cards
   that seat cannot see at random among the places it cannot see, every card counted once;
2. chooses one of the seat's candidate moves by UCB1 over what the earlier iterations found;
3. plays the sampled world out with every seat on the normal policy (as `bench/bots.py` plays it,
   contests settled at random among the seats that try), and scores the end for the seat.

The search never reads a true state: it receives a view, as every bot does, and the same view and
the same random stream give the same move (tests/rules/test_search.py). Pure like all of `rules/`:
time reaches it only as `stop`, a callable the hub passes to end a search at its budget.
"""
from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rules.engine import HUB, Action, Game, IllegalAction, View


class Sampler(Protocol):
    """A game's knowledge of its own hidden parts: which seat a view is of, and a state consistent
    with it (`game.view(sample(view, rng), seat_of(view))` is `view`, its `legal` included)."""

    def seat_of(self, view: View) -> int: ...
    def sample(self, view: View, rng: random.Random) -> Any: ...
    def candidates(self, view: View, rng: random.Random, width: int) -> list[Action]: ...


#: Iterations a search makes when no `stop` ends it sooner: the hub's budget in time stops most
#: searches first; tests and benches count iterations, so that a seed gives one answer.
ITERATIONS = 400
#: Moves considered at the root: the normal policy's ranking cut to this many (`candidates`).
WIDTH = 8
#: UCB1's exploration constant, for rewards in [0, 1].
EXPLORE = 0.7
#: A playout that has not ended within this many steps counts as a draw for everyone.
PLAYOUT_STEPS = 4_000


@dataclass
class Line:
    """What the iterations found of one candidate move."""

    action: Action
    visits: int = 0
    total: float = 0.0

    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


def search(game: Game, sampler: Sampler, view: View, rng: random.Random, iterations: int = ITERATIONS,
           stop: Callable[[], bool] | None = None, width: int = WIDTH) -> Action | None:
    """The move of a strong bot seeing `view` (None when it has none to make)."""
    legal: list[Action] = view.get("legal") or []
    if not legal:
        return None
    if len(legal) == 1:
        return dict(legal[0])
    seat = sampler.seat_of(view)
    lines = [Line(dict(a)) for a in sampler.candidates(view, rng, width)]
    if len(lines) == 1:
        return lines[0].action
    for done in range(iterations):
        if stop is not None and done >= len(lines) and stop():
            break
        line = _choose(lines, done)
        state = sampler.sample(view, rng)
        game.apply(state, seat, copy.deepcopy(line.action))
        line.visits += 1
        line.total += playout(game, state, seat, rng)
    # the line tried most; among lines tried as often (a search cut short), the candidate ranked
    # first, which is the normal policy's own preference, never the luckiest single playout
    most = max(ln.visits for ln in lines)
    return dict(next(ln for ln in lines if ln.visits == most).action)


def normal_first(legal: Sequence[Action], pick: Action | None, rng: random.Random, width: int) -> list[Action]:
    """Candidates where a game has no ranking of its moves: the normal policy's `pick` first, then
    up to `width - 1` other legal moves at random."""
    rest = [dict(a) for a in legal if a != pick]
    rng.shuffle(rest)
    return ([dict(pick)] if pick is not None else []) + rest[:width - 1]


def _choose(lines: Sequence[Line], done: int) -> Line:
    for line in lines:
        if not line.visits:
            return line
    log_n = math.log(done)
    return max(lines, key=lambda ln: ln.mean() + EXPLORE * math.sqrt(log_n / ln.visits))


def playout(game: Game, state: Any, seat: int, rng: random.Random) -> float:
    """Play a world to its end with every seat on the normal policy; the seat's reward in [0, 1]."""
    for _ in range(PLAYOUT_STEPS):
        result = game.result(state)
        if result is not None:
            return reward(result, seat)
        contest = game.contest(state)
        if contest is not None:
            tried = [s for s in contest.eligible if game.bot_wants(game.view(state, s), contest.info)]
            game.apply(state, HUB, {"type": "contest_result", "key": contest.key,
                                    "winner": rng.choice(tried) if tried else None})
            continue
        movers = [s for s in game.active(state) if game.legal(state, s)]
        if not movers:
            break
        mover = rng.choice(movers)
        view = game.view(state, mover)
        action = game.bot_action(view, rng) or rng.choice(view["legal"])
        try:
            game.apply(state, mover, copy.deepcopy(action))
        except IllegalAction:  # an offer the sampled world made stale: any legal move instead
            game.apply(state, mover, dict(rng.choice(game.legal(state, mover))))
    return 0.5


def reward(result: Any, seat: int) -> float:
    """A share of the victory (ties share it), nudged by the score margin so that among lost worlds
    a closer loss still counts for a little: 0.9 x share + 0.1 x margin, margin in [0, 1]."""
    winners = list(result.get("winners") or [])
    share = 1.0 / len(winners) if seat in winners else 0.0
    scores = result.get("scores")
    margin = 0.5
    if isinstance(scores, list) and len(scores) > seat and all(isinstance(x, int | float) for x in scores):
        rivals = [x for s, x in enumerate(scores) if s != seat]
        if rivals:
            gap = scores[seat] - max(rivals)
            margin = 0.5 + max(-0.5, min(0.5, gap / 40))
    return 0.9 * share + 0.1 * margin
