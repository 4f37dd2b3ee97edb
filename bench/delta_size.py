"""Delta size: the bytes of each delta frame and of the view it patches, per game and per audience,
now and at an earlier revision, in one run.

    python -m bench.delta_size [--games 40] [--before REV]

In process, with the engines and the hub's own diff (hub/tables/audience.py): after every step of a
game (random legal play for half the games, the hub's bots for the other half, so offers, trades
and grabs are in it), every audience's view is diffed against its previous one, and the delta
frame's msgpack bytes (`{"t": "delta", "seq", "ops"}`) and those of the view it turns into are
counted, the spectators' apart from the seats'. Deltas that carry nothing are not sent, so they are
not counted. Tables of every size the game allows are played in turn.

`--before REV` measures the engines of that git revision the same way (its `rules/` alone, read with
`git archive` into a temporary folder, under this run's diff and players): the figures before and
after a change of the views, side by side. The default is the last revision before log entries
became data. The hub adds a few keys of its own to every view (names, presence, deadline), the same
before and after, which these engine-level figures leave out.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgpack

from bench.common import Row, bench_line, percentile, print_table

ROOT = Path(__file__).resolve().parents[1]
#: The last revision whose engines wrote their logs as sentences.
BASELINE = "60493d2"
AUDIENCES = ("spectator", "seat")


def _step(game: Any, state: Any, rng: random.Random, bots: bool) -> bool:
    from tests.rules.kit import bot_step, step_once

    return bot_step(game, state, rng) if bots else step_once(game, state, rng) is not None


def measure(games: int) -> dict[str, dict[str, dict[str, float]]]:
    """Per game and audience: median frame bytes, median view bytes, median and p99 of their ratio."""
    from hub.tables.audience import diff
    from rules.registry import GAMES

    out: dict[str, dict[str, dict[str, float]]] = {}
    for gid in sorted(GAMES):
        game = GAMES[gid]
        frames: dict[str, list[int]] = {a: [] for a in AUDIENCES}
        views: dict[str, list[int]] = {a: [] for a in AUDIENCES}
        counts = list(range(game.min_players, game.max_players + 1))
        for g in range(games):
            seats = counts[g % len(counts)]
            state = game.setup(seats, g, game.check_options(seats, {}))
            rng = random.Random(g)
            audiences: list[int | None] = [None, *range(seats)]
            last = {a: game.view(state, a) for a in audiences}
            for seq in range(1, 1501):
                if game.result(state) is not None or not _step(game, state, rng, bots=g % 2 == 1):
                    break
                for a in audiences:
                    new = msgpack.unpackb(msgpack.packb(game.view(state, a)), raw=False)
                    ops = diff(last[a], new)
                    last[a] = new
                    if ops:
                        kind = "spectator" if a is None else "seat"
                        frames[kind].append(len(msgpack.packb({"t": "delta", "seq": seq, "ops": ops})))
                        views[kind].append(len(msgpack.packb(new)))
        out[gid] = {}
        for a in AUDIENCES:
            ratios = [f / v for f, v in zip(frames[a], views[a], strict=True)]
            out[gid][a] = {"frame": statistics.median(frames[a]), "view": statistics.median(views[a]),
                           "fraction": statistics.median(ratios), "p99": percentile(ratios, 99),
                           "deltas": len(ratios)}
    return out


def measure_at(rev: str, games: int) -> dict[str, Any] | None:
    """`measure` with the engines of revision `rev`; None where git cannot give them."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "rules"], capture_output=True)
        if archive.returncode != 0:
            return None
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        code = ("import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]); "
                "from bench.delta_size import measure; print(json.dumps(measure(int(sys.argv[3]))))")
        run = subprocess.run([sys.executable, "-c", code, tmp, str(ROOT), str(games)], cwd=tmp,
                             capture_output=True, text=True, timeout=3600)
        if run.returncode != 0:
            print(run.stderr[-2000:], file=sys.stderr)
            return None
        found: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
        return found


def run(games: int = 40, before: str | None = BASELINE) -> tuple[list[Row], dict[str, Any]]:
    now = measure(games)
    then = measure_at(before, games) if before else None
    rows: list[Row] = []
    for gid in sorted(now):
        for a in AUDIENCES:
            r = now[gid][a]
            old = (then or {}).get(gid, {}).get(a)
            was = f"; before ({before}): {old['frame']:.0f} B frame, {old['view']:.0f} B view, " \
                  f"{r['frame'] / old['frame']:.0%} of it now" if old else ""
            rows.append((f"delta size {gid} {a}: median frame B", f"{r['frame']:.0f}",
                         f"<= {old['frame'] / 3:.0f}" if old else "",
                         f"view {r['view']:.0f} B, {r['fraction']:.1%} of it (p99 {r['p99']:.1%}); "
                         f"{r['deltas']} deltas{was}"))
    figures: dict[str, Any] = {
        "delta_median_fraction": max(r[a]["fraction"] for r in now.values() for a in AUDIENCES),
        "delta_p99_fraction": max(r[a]["p99"] for r in now.values() for a in AUDIENCES),
        "delta_by_game": {g: {a: round(r[a]["frame"]) for a in AUDIENCES} for g, r in now.items()},
        "view_by_game": {g: {a: round(r[a]["view"]) for a in AUDIENCES} for g, r in now.items()},
    }
    if then:
        figures["delta_before"] = {"revision": before, **{g: {a: round(r[a]["frame"]) for a in AUDIENCES}
                                                          for g, r in then.items()}}
    return rows, figures


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.delta_size")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--before", default=BASELINE, help="a git revision to measure too ('' for none)")
    args = ap.parse_args()
    rows, figures = run(args.games, args.before or None)
    print_table("Delta size", rows)
    print(bench_line(figures))


if __name__ == "__main__":
    main()
