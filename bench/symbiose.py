"""Figures behind the Symbiose deck chosen in rules/symbiose/components.py (quoted in docs/symbiose.md).

    python -m bench.symbiose [games]

For each table size and mode, under random legal play and with the greedy bot in every seat:
the mean and spread of final scores, the mean points a card of each kind scores where it ends,
how often the winner's board got more from fixed cards than from conditional ones, how often a
game is shared; then the greedy bot against random players, and the time of a random playout.
"""
from __future__ import annotations

import random
import statistics
import sys
import time

from rules.symbiose import GAME
from rules.symbiose.components import DECK
from rules.symbiose.state import State
from tests.rules.kit import random_playout

CONFIGS = [(2, "standard"), (3, "standard"), (4, "standard"), (2, "duel"), (4, "team")]


def play(seats: int, mode: str, seed: int, bots: frozenset[int]) -> State:
    state: State = GAME.setup(seats, seed, GAME.check_options(seats, {"mode": mode}))
    rng = random.Random(seed)
    while state.phase != "over":
        seat = GAME.active(state)[0]
        action = GAME.bot_action(GAME.view(state, seat), rng) if seat in bots else rng.choice(GAME.legal(state, seat))
        assert action is not None
        GAME.apply(state, seat, action)
    return state


def figures(seats: int, mode: str, games: int, bots: bool) -> str:
    scores: list[int] = []
    by_kind: dict[str, list[int]] = {"fixed": [], "per_animal": [], "per_colour": []}
    mostly_fixed = shared = 0
    for seed in range(games):
        state = play(seats, mode, seed, frozenset(range(seats)) if bots else frozenset())
        assert state.scores is not None and state.slot_points is not None
        scores += state.scores
        for pond, points in zip(state.ponds, state.slot_points, strict=True):
            for card, p in zip(pond, points, strict=True):
                by_kind[DECK[card].kind].append(p)
        result = GAME.result(state)
        assert result is not None
        winner = result["winners"][0]
        fixed = sum(p for c, p in zip(state.ponds[winner], state.slot_points[winner], strict=True)
                    if DECK[c].kind == "fixed")
        mostly_fixed += fixed > state.scores[winner] - fixed
        shared += len(result["winners"]) > (2 if mode == "team" else 1)
    kinds = "  ".join(f"{k} {statistics.mean(v):4.2f}" for k, v in by_kind.items())
    return (f"{seats}p {mode:8} {'bots  ' if bots else 'random'} score {statistics.mean(scores):5.1f}"
            f" sd {statistics.pstdev(scores):4.1f} [{min(scores)}..{max(scores)}]  per card: {kinds}"
            f"  winner mostly fixed {mostly_fixed / games:4.0%}  shared {shared / games:4.1%}")


def bot_against_random(seats: int, mode: str, games: int) -> float:
    wins = 0
    for seed in range(games):
        bot = seed % seats
        state = play(seats, mode, seed, frozenset({bot}))
        result = GAME.result(state)
        assert result is not None
        wins += bot in result["winners"]
    return wins / games


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    for bots in (False, True):
        for seats, mode in CONFIGS:
            print(figures(seats, mode, games, bots))
    for seats, mode in CONFIGS:
        rate = bot_against_random(seats, mode, games)
        print(f"one greedy bot among random players, {seats}p {mode}: wins {rate:.0%}")
    for seats in (2, 4):
        start = time.perf_counter()
        for seed in range(games):
            random_playout(GAME, seats, seed)
        print(f"random playout, {seats} players: {(time.perf_counter() - start) / games * 1000:.2f} ms")


if __name__ == "__main__":
    main()
