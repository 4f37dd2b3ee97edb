"""Delta size: bytes of each delta against the full view it patches, per game, over random games.

    python -m bench.delta_size [--games 40]

In process, with the engines and the hub's own diff (hub/tables/audience.py): after every action of a
random legal game, every audience's view (each seat and the spectators) is diffed against its
previous one, and the delta frame's msgpack bytes are set against the msgpack bytes of the view
it turns into. Deltas that carry nothing are not sent, so they are not counted. Tables of every
size the game allows are played in turn.
"""
from __future__ import annotations

import argparse
import random
import statistics
from typing import Any

import msgpack

from bench.common import Row, bench_line, percentile, print_table
from hub.tables.audience import diff
from rules.registry import GAMES
from tests.rules.kit import step_once


def sizes(game_id: str, games: int) -> dict[str, Any]:
    game = GAMES[game_id]
    fractions: list[float] = []
    delta_bytes: list[int] = []
    view_bytes: list[int] = []
    counts = list(range(game.min_players, game.max_players + 1))
    for g in range(games):
        seats = counts[g % len(counts)]
        state = game.setup(seats, g, game.check_options(seats, {}))
        rng = random.Random(g)
        audiences: list[int | None] = [None, *range(seats)]
        views = {a: game.view(state, a) for a in audiences}
        seq = 0
        for _ in range(1500):
            if game.result(state) is not None or step_once(game, state, rng) is None:
                break
            seq += 1
            for a in audiences:
                new = msgpack.unpackb(msgpack.packb(game.view(state, a)), raw=False)
                ops = diff(views[a], new)
                views[a] = new
                if not ops:
                    continue
                d = len(msgpack.packb({"t": "delta", "seq": seq, "ops": ops}))
                v = len(msgpack.packb(new))
                delta_bytes.append(d)
                view_bytes.append(v)
                fractions.append(d / v)
    return {"deltas": len(fractions), "median": statistics.median(fractions), "p99": percentile(fractions, 99),
            "median_bytes": statistics.median(delta_bytes), "view_bytes": statistics.median(view_bytes)}


def run(games: int = 40) -> tuple[list[Row], dict[str, Any]]:
    rows: list[Row] = []
    per_game: dict[str, Any] = {}
    for gid in sorted(GAMES):
        r = sizes(gid, games)
        per_game[gid] = r
        rows.append((f"delta size {gid}: median of view", f"{r['median']:.1%}", "<= 15%",
                     f"p99 {r['p99']:.1%}; median {r['median_bytes']:.0f} B of a {r['view_bytes']:.0f} B view;"
                     f" {r['deltas']} deltas"))
    figures = {"delta_median_fraction": max(r["median"] for r in per_game.values()),
               "delta_p99_fraction": max(r["p99"] for r in per_game.values()),
               "delta_by_game": {g: round(r["median"], 4) for g, r in per_game.items()}}
    return rows, figures


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.delta_size")
    ap.add_argument("--games", type=int, default=40)
    args = ap.parse_args()
    rows, figures = run(args.games)
    print_table("Delta size", rows)
    print(bench_line(figures))


if __name__ == "__main__":
    main()
