"""Contests: the settle delay after the winning grab, with simulated round trips.

    python -m bench.contests [--contests 5000]

The judging core (hub/arbitration.py) is pure: every time is passed in. So this runs it on
simulated time, as the hub would call it: each player has a round trip (10 to 300 ms, split
unevenly between the two directions, with jitter) sampled by pings before the contest, and a
reaction time (lognormal around 230 ms). The hub writes the contest frame at 0; `seen` arrives
after the round trip, the grab after the reaction plus the round trip. The settle delay is the
time from the winning grab's arrival to the first millisecond at which the arbiter says the
contest is due (it waits for everyone still silent who could yet beat the best judged time).

Without hub/arbitration.py the figure is n/a, with the reason.
"""
from __future__ import annotations

import argparse
import random
import statistics
from typing import Any

from bench.common import Row, bench_line, percentile, print_table


def simulate(contests: int, seed: int = 1) -> dict[str, Any]:
    from hub import arbitration as arb  # ImportError: not on this branch yet

    rng = random.Random(seed)
    params = arb.Params()
    delays: list[float] = []
    for c in range(contests):
        players = rng.randint(2, 6)
        rtts = [rng.uniform(10, 300) for _ in range(players)]
        ups = [r * rng.uniform(0.3, 0.7) for r in rtts]
        trips = []
        for seat, rtt in enumerate(rtts):
            t = arb.RoundTrips(params) if _takes_params(arb.RoundTrips) else arb.RoundTrips()
            at = -100_000.0
            for pid in range(16):
                t.sent(pid, at)
                t.received(pid, at + rtt + rng.expovariate(1 / 5))
                at += 3000
            trips.append(t)
            del seat
        secret = rng.randbytes(16)
        arbiter = arb.Arbiter(f"c{c}", tuple(range(players)), secret, 0.0, params)
        grabs: list[tuple[float, int]] = []
        for seat in range(players):
            down = rtts[seat] - ups[seat] + rng.expovariate(1 / 3)
            seen_at = down + ups[seat] + rng.expovariate(1 / 3)
            grab_at = down + rng.lognormvariate(5.44, 0.25) + ups[seat] + rng.expovariate(1 / 3)
            grabs.append((grab_at, seat))
            judgement = arb.judge(0.0, seen_at, grab_at, trips[seat], params)
            arbiter.submit(seat, judgement, grab_at)
        result = arbiter.result()
        winner = result["winner"] if isinstance(result, dict) else result.winner
        if winner is None:
            continue
        win_at = next(at for at, seat in grabs if seat == winner)
        t = win_at
        while not arbiter.due(t):
            t += 1.0
        delays.append(t - win_at)
    return {"median": statistics.median(delays), "p99": percentile(delays, 99), "contests": len(delays)}


def _takes_params(cls: Any) -> bool:
    import inspect

    try:
        return len(inspect.signature(cls).parameters) > 0
    except (TypeError, ValueError):
        return False


def run(contests: int = 5000) -> tuple[list[Row], dict[str, Any]]:
    try:
        r = simulate(contests)
    except ImportError:
        why = "hub/arbitration.py is not on this branch yet"
        return ([("contest settle p99 ms", None, "", why)],
                {"contest_settle_p50_ms": None, "contest_settle_p99_ms": None, "contest_na": why})
    except (AttributeError, TypeError, KeyError) as e:
        why = f"hub/arbitration.py has not the face this bench expects: {type(e).__name__}: {e}"[:200]
        return ([("contest settle p99 ms", None, "", why)],
                {"contest_settle_p50_ms": None, "contest_settle_p99_ms": None, "contest_na": why})
    rows: list[Row] = [("contest settle median ms", r["median"], "", f"{r['contests']} contests, 2-6 players"),
                       ("contest settle p99 ms", r["p99"], "", "after the winning grab arrived")]
    return rows, {"contest_settle_p50_ms": r["median"], "contest_settle_p99_ms": r["p99"]}


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.contests")
    ap.add_argument("--contests", type=int, default=5000)
    args = ap.parse_args()
    rows, figures = run(args.contests)
    print_table("Contests", rows)
    print(bench_line(figures))


if __name__ == "__main__":
    main()
