"""Contests: the settle delay after the winning grab, with simulated round trips.

    python -m bench.contests [--contests 4000]

The judging core (hub/tables/arbitration.py) is pure: every time is passed in. So this runs it on
simulated time through the very simulation of bench/fairness.py (links of 10 to 300 ms, split
unevenly between the two directions, with jitter and spikes; pings every few seconds and after
each contest; reactions lognormal around 230 ms), for tables of 2 to 6 players of whom each tries
half the time, so that the arbiter often has silent seats to wait for. The settle delay is the
time from the winning grab's arrival to the moment the arbiter may settle: as soon as no silent
seat could still beat the best judged time. Two bounds: each silent seat's wait bounded by
C_max (the arbiter knows nothing of the seat), and by the seat's own round-trip cap (the arbiter
was told each seat's cap when its frame was written).

Without hub/tables/arbitration.py the figure is n/a, with the reason.
"""
from __future__ import annotations

import argparse
import random
import statistics
from typing import Any

from bench.common import Row, bench_line, percentile, print_table


def simulate(contests: int) -> dict[str, Any]:
    from bench import fairness  # needs hub.tables.arbitration

    bounded: list[float] = []
    told: list[float] = []
    for n in range(2, 7):
        rng = random.Random(7000 + n)
        players = [fairness.Player(link, keen=0.5) for link in fairness.links(rng, n)]
        t = fairness.run(players, contests // 5, seed=70 + n)
        bounded += t.settle_c_max
        told += t.settle_caps
    return {"median": statistics.median(bounded), "p99": percentile(bounded, 99),
            "told_median": statistics.median(told), "told_p99": percentile(told, 99), "contests": len(bounded)}


def run(contests: int = 4000) -> tuple[list[Row], dict[str, Any]]:
    try:
        r = simulate(contests)
    except ImportError as e:
        why = f"no hub/tables/arbitration.py on this branch ({e})"
        return ([("contest settle p99 ms", None, "", why)],
                {"contest_settle_p50_ms": None, "contest_settle_p99_ms": None, "contest_na": why})
    rows: list[Row] = [
        ("contest settle median ms", r["median"], "", f"{r['contests']:,} won contests, 2-6 players"),
        ("contest settle p99 ms", r["p99"], "", "silent seats bounded by C_max"),
        ("contest settle p99 ms, caps known", r["told_p99"], "", f"median {r['told_median']:.0f} ms"),
    ]
    return rows, {"contest_settle_p50_ms": r["median"], "contest_settle_p99_ms": r["p99"],
                  "contest_settle_caps_known_p99_ms": r["told_p99"]}


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.contests")
    ap.add_argument("--contests", type=int, default=4000)
    args = ap.parse_args()
    rows, figures = run(args.contests)
    print_table("Contests", rows)
    print(bench_line(figures))


if __name__ == "__main__":
    main()
