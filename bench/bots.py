"""Bots' strength: tournaments between levels, per game, with rotated seats.

    python -m bench.bots [--games 200] [--think-ms 300] [--jobs 2] [--game G] [--pairing strong:normal]

For each game at its usual table size, one seat of a level plays against the others all of another
level (or random legal play), `--games` games per pairing, the seat that plays the level under test
rotating from game to game. A level the lobby does not offer for a game (strong Frenetic Village) is
measured only when `--game` and `--pairing` name it. A strong bot searches for `--think-ms` of wall
time a decision (and a grab), as the hub's default budget lets it; games run `--jobs` at a time, one
process each (one a core, so that a search's budget buys what it buys in the hub's pool of workers).
Every bot sees only its own seat's view (rules/levels.py); contests are settled as equal hands would
be: at random among the seats that try. A shared victory counts its share. Printed: the win share
with a 95 % interval (normal approximation), the fair share (one in the number of seats) and their
ratio; and each level's decision time, p50 and p99.
"""
from __future__ import annotations

import argparse
import copy
import math
import multiprocessing
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.common import Row, bench_line, percentile, print_table
from rules import levels
from rules.engine import HUB, IllegalAction
from rules.registry import GAMES

#: The table size each game is measured at: the one friends most often sit down to (Symbiose's duel,
#: the others at four).
USUAL = {"symbiose": 2, "frenzy_falls": 4, "waterfall_park": 4, "frenetic_village": 4}
#: (the level under test, the level of every other seat); "random" plays any legal move.
PAIRINGS = [("strong", "normal"), ("normal", "easy"), ("strong", "random"), ("normal", "random"),
            ("easy", "random")]
#: Goal of the issue: the level under test wins at least this many times its fair share; at a table
#: of two, where 1.5 times a half cannot be, at least TWO_SEAT_GOAL of the games.
GOAL = {("normal", "easy"): 1.5, ("strong", "normal"): 1.5}
TWO_SEAT_GOAL = 0.6
#: A strong bot's budget a decision, in seconds (`--think-ms`).
THINK_S = 0.3
MAX_STEPS = 20_000


def _random_action(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    legal = view.get("legal") or []
    return dict(rng.choice(legal)) if legal else None


def _stop_at(until: float) -> Callable[[], bool]:
    return lambda: time.perf_counter() >= until


def _tries(game: Any, state: Any, seat: int, info: Any, role: str, rng: random.Random,
           times: dict[str, list[float]]) -> bool:
    """Whether the bot at `seat` tries for a contest: a strong one searches for as long as a move's
    budget (in the hub, its reaction time less a margin, about as long)."""
    if role == "random":
        return rng.random() < 0.5
    started = time.perf_counter()
    tries = levels.bot_wants(game, game.view(state, seat), info, rng, role, stop=_stop_at(started + THINK_S))
    times.setdefault(f"{role} grab", []).append(time.perf_counter() - started)
    return tries


def play(gid: str, seats: int, seed: int, roles: list[str], times: dict[str, list[float]]) -> list[int] | None:
    """One game with `roles[s]` at seat s; its winners, or None if it did not end within MAX_STEPS."""
    game = GAMES[gid]
    state = game.setup(seats, seed, game.check_options(seats, {}))
    rng = random.Random(seed * 7919 + 1)
    offered: set[Any] = set()  # the rounds in which a strong bot made an offer
    for _ in range(MAX_STEPS):
        result = game.result(state)
        if result is not None:
            return list(result.get("winners") or [])
        contest = game.contest(state)
        if contest is not None:
            tried = [s for s in contest.eligible if _tries(game, state, s, contest.info, roles[s], rng, times)]
            game.apply(state, HUB, {"type": "contest_result", "key": contest.key,
                                    "winner": rng.choice(tried) if tried else None})
            continue
        movers = [s for s in game.active(state) if game.legal(state, s)]
        if not movers:
            return None
        seat = rng.choice(movers)
        view = game.view(state, seat)
        started = time.perf_counter()
        if roles[seat] == "random":
            action = _random_action(view, rng)
        elif roles[seat] == levels.STRONG:
            # the hub lets a table's strong bots make one offer a minute; a bench has no minutes,
            # so it lets them make one a round (about what a minute is at a table of people)
            rnd = view.get("round")
            action = levels.bot_action(game, view, rng, levels.STRONG, stop=_stop_at(started + THINK_S),
                                       propose=rnd not in offered)
            if action is not None and action.get("type") == "offer":
                offered.add(rnd)
        else:
            action = levels.bot_action(game, view, rng, roles[seat])
        times.setdefault(roles[seat], []).append(time.perf_counter() - started)
        if action is None:
            action = _random_action(view, rng)
        try:
            game.apply(state, seat, copy.deepcopy(action))
        except IllegalAction:  # an offer the others' moves made stale: any legal move instead
            game.apply(state, seat, _random_action(view, rng))
    return None


def _one(job: tuple[str, str, str, int]) -> tuple[float | None, dict[str, list[float]]]:
    """Game `g` of a tournament: the tested seat's credit (None if it did not end), and the times."""
    gid, subject, others, g = job
    seats = USUAL[gid]
    me = g % seats
    roles = [subject if s == me else others for s in range(seats)]
    times: dict[str, list[float]] = {}
    winners = play(gid, seats, g, roles, times)
    return (None if winners is None else 1 / len(winners) if me in winners else 0.0), times


def tournament(gid: str, subject: str, others: str, games: int,
               times: dict[str, list[float]], jobs: int = 1) -> dict[str, float]:
    seats = USUAL[gid]
    credits: list[float] = []
    unfinished = 0
    work = [(gid, subject, others, g) for g in range(games)]
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            done = pool.map(_one, work, chunksize=1)
    else:
        done = [_one(w) for w in work]
    for credit, spent in done:
        for level, ts in spent.items():
            times.setdefault(level, []).extend(ts)
        if credit is None:
            unfinished += 1
        else:
            credits.append(credit)
    n = len(credits)
    share = statistics.fmean(credits) if credits else 0.0
    half = 1.96 * statistics.pstdev(credits) / math.sqrt(n) if n > 1 else 0.0
    return {"share": share, "low": max(0.0, share - half), "high": min(1.0, share + half), "fair": 1 / seats,
            "ratio": share * seats, "games": n, "unfinished": unfinished}


def run(games: int = 200, jobs: int = 1, only: str | None = None,
        pairing: tuple[str, str] | None = None) -> tuple[list[Row], dict[str, Any]]:
    rows: list[Row] = []
    figures: dict[str, Any] = {}
    for gid in sorted(USUAL):
        if only and gid != only:
            continue
        times: dict[str, list[float]] = {}
        seats = USUAL[gid]
        for subject, others in PAIRINGS:
            if pairing and (subject, others) != pairing:
                continue
            # a level the lobby does not offer is measured only when asked for by name
            unoffered = levels.STRONG in (subject, others) and levels.STRONG not in levels.levels_for(gid)
            if unoffered and not (pairing and only):
                continue
            t = tournament(gid, subject, others, games, times, jobs)
            goal = GOAL.get((subject, others))
            target = "" if not goal else f">= {TWO_SEAT_GOAL:.0%} of games" if seats == 2 else f">= {goal:.1f} x fair"
            unfinished = f", {t['unfinished']:.0f} unfinished" if t["unfinished"] else ""
            rows.append((f"bots {gid} ({seats} seats): {subject} among {others}, win share"
                         + (" (not offered)" if unoffered else ""), f"{t['share']:.3f}",
                         target,
                         f"95% {t['low']:.3f}-{t['high']:.3f}; fair {t['fair']:.3f}; {t['ratio']:.2f} x fair; "
                         f"{t['games']:.0f} games{unfinished}"))
            figures.setdefault("bots", {}).setdefault(gid, {})[f"{subject}_vs_{others}"] = round(t["ratio"], 3)
        for level in [*levels.LEVELS, *(f"{lv} grab" for lv in levels.LEVELS)]:
            ms = [x * 1000 for x in times.get(level, [])]
            if ms:
                rows.append((f"bots {gid}: {level} decision p50 / p99 ms",
                             f"{statistics.median(ms):.2f} / {percentile(ms, 99):.2f}", "", f"{len(ms)} decisions"))
    return rows, figures


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.bots")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--think-ms", type=int, default=300, help="a strong bot's budget a decision")
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)), help="games played at once")
    ap.add_argument("--game", default=None, help="only this game")
    ap.add_argument("--pairing", default=None, help="only this pairing, as level:others (strong:normal)")
    args = ap.parse_args()
    global THINK_S
    THINK_S = args.think_ms / 1000
    pairing = tuple(args.pairing.split(":", 1)) if args.pairing else None
    if pairing and pairing not in PAIRINGS:
        ap.error(f"--pairing is one of {', '.join(':'.join(p) for p in PAIRINGS)}")
    rows, figures = run(args.games, args.jobs, args.game, pairing)
    print_table("Bots", rows)
    print(bench_line(figures))


if __name__ == "__main__":
    main()
