"""The strong level: a search over what a seat may know.

Determinized Monte Carlo search with UCB1 at the root (single-observer information-set MCTS cut to
one level of tree, which measured as strong as deeper trees at the budgets a table can afford, since
a sampled world's later moves are played by the normal policy anyway). Each iteration

1. samples a whole state consistent with the seat's own view: the game's `Sampler` deals the cards
   that seat cannot see at random among the places it cannot see, every card counted once;
2. chooses one of the seat's candidate moves by UCB1 over what the earlier iterations found;
3. plays the sampled world out with every seat on the normal policy (as `bench/bots.py` plays it,
   contests settled at random among the seats that try), and scores the end for the seat.

A game may change three things through its sampler: a `Horizon` where a whole game is too long to
play out in the budget (the playout stops there and scores a forecast, softly); a cheaper playout
`policy`; and `paired`, where its moves differ by little against the luck of the cards to come: then
every candidate is tried in the same worlds with the same random stream instead of by UCB1.

A contest (Frenetic Village's grab) is weighed the same way by `wants`: the same worlds with the card
taken and with it left to the others. There the normal policy keeps its answer unless the worlds
say otherwise by the sampler's `grab_confidence` standard errors (`_confident`).

The search never reads a true state: it receives a view, as every bot does, and the same view and
the same random stream give the same move (tests/rules/test_search.py). Pure like all of `rules/`:
time reaches it only as `stop`, a callable the hub passes to end a search at its budget.
"""
from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from rules.engine import HUB, Action, Game, IllegalAction, View


class Sampler(Protocol):
    """A game's knowledge of its own hidden parts: which seat a view is of, and a state consistent
    with it (`game.view(sample(view, rng), seat_of(view))` is `view`, its `legal` included).

    A sampler may also define `horizon(view) -> Horizon` where a whole game is too long to play out
    within a decision's budget, and `policy(view, rng) -> Action | None`, the normal policy made
    cheap for playouts (the normal bot's own, less what costs most and matters least there), with
    `playout_view(state, seat) -> View`, the seat's view less what that policy never reads; and
    `grab_confidence`, how sure `wants` must be to overrule the normal policy's grab."""

    def seat_of(self, view: View) -> int: ...
    def sample(self, view: View, rng: random.Random) -> Any: ...
    def candidates(self, view: View, rng: random.Random, width: int) -> list[Action]: ...


class Horizon(Protocol):
    """Where a playout is cut short, the final scores it foresees from there, and how far off such
    a forecast may be (in points: the softness of `foreseen`)."""

    def reached(self, state: Any) -> bool: ...
    def scores(self, state: Any) -> list[float]: ...
    def spread(self, state: Any) -> float: ...


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
    values: list[float] = field(default_factory=list)  # each world's, in order, where lines are paired

    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


def search(game: Game, sampler: Sampler, view: View, rng: random.Random, iterations: int = ITERATIONS,
           stop: Callable[[], bool] | None = None, width: int = WIDTH,
           allow: Callable[[Action], bool] | None = None) -> Action | None:
    """The move of a strong bot seeing `view` (None when it has none to make), among the moves
    `allow` lets it make (the hub's pace for a table's offers), if any is a candidate."""
    legal: list[Action] = view.get("legal") or []
    if not legal:
        return None
    seat = sampler.seat_of(view)
    found = sampler.candidates(view, rng, width)  # more than `legal` where it cannot list offers
    lines = [Line(dict(a)) for a in found if allow is None or allow(a)] or [Line(dict(found[0]))]
    if len(lines) == 1:
        return lines[0].action
    foresee = getattr(sampler, "horizon", None)
    horizon: Horizon | None = foresee(view) if foresee is not None else None
    policy = getattr(sampler, "policy", None)
    see = getattr(sampler, "playout_view", None)
    if getattr(sampler, "paired", False):
        return _paired(game, sampler, view, rng, lines, iterations, stop, horizon, policy, see)
    for done in range(iterations):
        if stop is not None and done >= len(lines) and stop():
            break
        line = _choose(lines, done)
        state = sampler.sample(view, rng)
        game.apply(state, seat, copy.deepcopy(line.action))
        line.visits += 1
        line.total += playout(game, state, seat, rng, horizon, policy, see)
    # the line tried most; among lines tried as often (a search cut short), the candidate ranked
    # first, which is the normal policy's own preference, never the luckiest single playout
    most = max(ln.visits for ln in lines)
    return dict(next(ln for ln in lines if ln.visits == most).action)


def _paired(game: Game, sampler: Sampler, view: View, rng: random.Random, lines: list[Line], iterations: int,
            stop: Callable[[], bool] | None, horizon: Horizon | None, policy: Policy | None,
            see: Callable[[Any, int], View] | None) -> Action:
    """Every line tried in the same sampled worlds, each world played out from every line with the
    same random stream (common random numbers): where the lines differ by a little against a world's
    large luck, as a trade of one location does, the comparison sees the difference and not the
    luck. The best mean wins; ties go to the candidate ranked first."""
    seat = sampler.seat_of(view)

    def begin(state: Any, line: Line, stream: random.Random) -> None:
        game.apply(state, seat, copy.deepcopy(line.action))
    _tried_paired(game, sampler, view, rng, lines, begin, iterations, stop, horizon, policy, see)
    return dict(_confident(lines, 0.0).action)


def _tried_paired(game: Game, sampler: Sampler, view: View, rng: random.Random, lines: list[Line],
                  begin: Callable[[Any, Line, random.Random], None], iterations: int,
                  stop: Callable[[], bool] | None, horizon: Horizon | None, policy: Policy | None,
                  see: Callable[[Any, int], View] | None) -> None:
    """Each line's visits and total over the same worlds: `begin` makes a line's first step in a
    copy of the world, with the stream its playout goes on with."""
    seat = sampler.seat_of(view)
    for done in range(0, iterations, len(lines)):
        got: list[float] = []
        for line in lines:
            if stop is not None and done and stop():
                break  # a world not tried from every line is left out: the lines stay paired
            if not got:
                world = sampler.sample(view, rng)
                seed = rng.getrandbits(64)
            state = copy.deepcopy(world)
            stream = random.Random(seed)
            begin(state, line, stream)
            got.append(playout(game, state, seat, stream, horizon, policy, see))
        if len(got) < len(lines):
            break
        for line, value in zip(lines, got, strict=True):
            line.visits += 1
            line.total += value
            line.values.append(value)


def _confident(lines: Sequence[Line], z: float) -> Line:
    """The best line by its mean if it beats the first (the normal policy's choice) by `z` standard
    errors of their paired differences, else the first: where a sample may misjudge what matters
    most (the others' hands), the normal policy keeps its answer unless the worlds say otherwise
    clearly. With `z` 0, the best mean (ties to the first)."""
    first = lines[0]
    best = max(lines, key=lambda ln: ln.mean())
    if best is first or best.mean() == first.mean():
        return first
    if not z:
        return best
    diffs = [b - a for a, b in zip(first.values, best.values, strict=True)]
    if len(diffs) < 2:
        return first
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    return best if mean > z * math.sqrt(var / len(diffs)) else first


def wants(game: Game, sampler: Sampler, view: View, info: Mapping[str, Any], rng: random.Random,
          iterations: int = ITERATIONS, stop: Callable[[], bool] | None = None) -> bool:
    """Whether a seat should try for the contest its view shows (a grab): the worlds where it takes
    the card, against the same worlds where it lets the others have it (those of them whose normal
    policy tries, one at random, as equal hands would; or nobody). The normal policy's answer
    stands unless the other is better by the sampler's `grab_confidence` (`_confident`); a search
    that saw no world answers as the normal policy does."""
    seat = sampler.seat_of(view)
    normal = game.bot_wants(view, info)
    lines = [Line({"take": normal}), Line({"take": not normal})]
    see = getattr(sampler, "playout_view", None)
    look = see or game.view

    def begin(state: Any, line: Line, stream: random.Random) -> None:
        contest = game.contest(state)
        assert contest is not None, "a sample of a view with a contest has that contest"
        if line.action["take"]:
            winner: int | None = seat
        else:
            tried = [s for s in contest.eligible if s != seat and game.bot_wants(look(state, s), contest.info)]
            winner = stream.choice(tried) if tried else None
        game.apply(state, HUB, {"type": "contest_result", "key": contest.key, "winner": winner})
    foresee = getattr(sampler, "horizon", None)
    _tried_paired(game, sampler, view, rng, lines, begin, iterations, stop,
                  foresee(view) if foresee is not None else None, getattr(sampler, "policy", None), see)
    if not lines[0].visits:
        return normal
    return bool(_confident(lines, getattr(sampler, "grab_confidence", 0.0)).action["take"])


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


Policy = Callable[[View, random.Random], "Action | None"]


def playout(game: Game, state: Any, seat: int, rng: random.Random, horizon: Horizon | None = None,
            policy: Policy | None = None, see: Callable[[Any, int], View] | None = None) -> float:
    """Play a world to its end (or to the horizon, and what it foresees from there) with every seat
    on the normal policy; the seat's reward in [0, 1]."""
    decide = policy or game.bot_action
    look = see or game.view
    for _ in range(PLAYOUT_STEPS):
        result = game.result(state)
        if result is not None:
            return reward(result, seat)
        if horizon is not None and horizon.reached(state):
            return foreseen(horizon.scores(state), seat, horizon.spread(state))
        contest = game.contest(state)
        if contest is not None:
            tried = [s for s in contest.eligible if game.bot_wants(look(state, s), contest.info)]
            game.apply(state, HUB, {"type": "contest_result", "key": contest.key,
                                    "winner": rng.choice(tried) if tried else None})
            continue
        movers = [s for s in game.active(state) if game.legal(state, s)]
        if not movers:
            break
        mover = rng.choice(movers)
        view = look(state, mover)
        action = decide(view, rng) or rng.choice(view["legal"])
        try:
            game.apply(state, mover, copy.deepcopy(action))
        except IllegalAction:  # an offer the sampled world made stale: any legal move instead
            game.apply(state, mover, dict(rng.choice(game.legal(state, mover))))
    return 0.5


def foreseen(scores: Sequence[float], seat: int, spread: float) -> float:
    """The reward of an end foreseen from a horizon: the victory shared in proportion to
    exp(score / spread), so that a forecast's leader is not sure to win and a gain that does not
    change the leader still counts (as a hard win would not); the same margin nudge as `reward`."""
    top = max(scores)
    weights = [math.exp((x - top) / max(spread, 1e-9)) for x in scores]
    share = weights[seat] / sum(weights)
    rivals = [x for s, x in enumerate(scores) if s != seat]
    margin = 0.5 + max(-0.5, min(0.5, (scores[seat] - max(rivals)) / 40)) if rivals else 0.5
    return 0.9 * share + 0.1 * margin


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
