"""Rules: random legal games played to the end per second, per game, on one core.

    python -m bench.playouts [--seconds 2]

Each game is played by `tests/rules/kit.py`'s random playout (contests settled at random, as the
hub would settle them), at its largest table, for a fixed time; the figure counts whole games.
This process is pinned to one core.

A Frenetic Village player declares a combination whenever it holds one (`PREFER`): under the chosen
deck (values 1-5, docs/frenetic_village.md) a player who may as well discard its combination away
rarely ends a battle, and most purely random games ran past 20,000 actions unfinished, so the
figure counted no game at all.
"""
from __future__ import annotations

import argparse
import time
from typing import Any

from bench.common import HUB_CORE, Row, bench_line, pin, print_table
from rules.registry import GAMES
from tests.rules.kit import random_playout

#: Action types a playout takes whenever they are legal, per game (what any player would do).
PREFER: dict[str, frozenset[str]] = {"frenetic_village": frozenset({"declare"})}


def rate(game_id: str, seconds: float) -> tuple[float, float]:
    game = GAMES[game_id]
    seats = game.max_players
    games = steps = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        p = random_playout(game, seats, games, prefer=PREFER.get(game_id, frozenset()))
        games += p.finished
        steps += p.steps
    elapsed = time.perf_counter() - started
    return games / elapsed, steps / elapsed


def run(seconds: float = 2.0) -> tuple[list[Row], dict[str, Any]]:
    pin(HUB_CORE)
    rows: list[Row] = []
    per_s: dict[str, float] = {}
    for gid in sorted(GAMES):
        games, steps = rate(gid, seconds)
        per_s[gid] = games
        rows.append((f"playouts {gid} ({GAMES[gid].max_players} seats) per s", games, "",
                     f"{steps:,.0f} actions/s"))
    return rows, {"playouts_per_s": per_s}


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.playouts")
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    rows, figures = run(args.seconds)
    print_table("Rules", rows)
    print(bench_line(figures))


if __name__ == "__main__":
    main()
