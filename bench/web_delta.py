"""The browser client's cost of one delta on the Waterfall Park table (the largest view), in Chromium.

    python -m bench.web_delta [--rev REV ...] [--deltas 300] [--bot-delay-ms 60]

Each REV is a client to measure: "." (the default) is the working tree; any other is taken from git
(its hub, rules and web alike, with its web/ packages installed by npm into a scratch directory),
which is how the figure before a change of the client is measured after it. Several revisions run
in turn, round after round, so that the machine's noise falls on all of them alike.

A hub on core 0 serves a five-seat Waterfall Park room: four bots at `--bot-delay-ms`, and seat 0 in
a headless Chromium (on core 1, with this process). The page plays seat 0 by itself through its
own connection (a random legal action when that seat is to act, never "unready"), so the game goes
on at the bots' pace while the table is drawn as a player sees it: the hand, the offers, the
composer, the legal targets. An init script wraps the socket's message handler: every message that
moves the page's view on (a delta) is timed from the message event until a forced style and layout
has finished, that is decoding, patching, drawing the whole table and laying it out: the main
thread's work before the browser can paint the frame (painting itself is not included). The page
renders in the handler, synchronously, in every revision measured so far; a client that deferred
its drawing would have to be measured differently, and this script says so when nothing draws.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

from bench.common import LOAD_CORE, ROOT, Row, bench_line, http, hub, percentile, pin, print_table
from tests.conftest import CHROMIUM, CHROMIUM_ARGS  # the browser the tests use, with the same flags

#: Wraps WebSocket's onmessage setter: times each handler call that moved the view on.
TIMER = """(() => {
  const desc = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage");
  window.__deltas = [];
  Object.defineProperty(WebSocket.prototype, "onmessage", {
    configurable: true,
    get() { return desc.get.call(this); },
    set(fn) {
      desc.set.call(this, typeof fn !== "function" ? fn : (ev) => {
        const d = window.hubDebug;
        const conn = d && d.connection;
        const before = conn ? conn.seq : null;
        const t0 = performance.now();
        fn.call(this, ev);
        const t1 = performance.now();
        const after = window.hubDebug && window.hubDebug.connection;
        if (after && after === conn && before !== null && after.seq !== before) {
          const board = document.querySelector("[data-testid=board]");
          void document.documentElement.offsetHeight;  // style and layout, now
          const t2 = performance.now();
          window.__deltas.push({ seq: after.seq, script: t1 - t0, total: t2 - t0,
            bytes: ev.data && ev.data.byteLength || 0,
            drawn: !!board && board.dataset.seq === String(after.seq) });
        }
      });
    },
  });
})();"""

#: Plays seat 0 through the page's own connection: a random legal action, never "unready".
AUTOPLAY = """() => {
  if (window.__autoplay) return;
  let busy = false;
  window.__autoplay = setInterval(() => {
    const conn = window.hubDebug && window.hubDebug.connection;
    const v = conn && conn.view;
    if (busy || !v || v.result || !Array.isArray(v.active) || !v.active.includes(conn.seat)) return;
    const legal = (v.legal || []).filter((a) => a.type !== "unready");
    if (!legal.length) return;
    busy = true;
    conn.act(legal[Math.floor(Math.random() * legal.length)]).catch(() => {}).finally(() => { busy = false; });
  }, 120);
}"""


def tree_of(rev: str, scratch: Path) -> Path:
    """The directory whose hub serves that revision's client: the working tree, or one made from git."""
    if rev == ".":
        return ROOT
    out = scratch / rev.replace("/", "_")
    if out.exists():
        return out
    raw = subprocess.run(["git", "archive", "--format=tar", rev, "hub", "rules", "web"], cwd=ROOT,
                         check=True, capture_output=True).stdout
    out.mkdir(parents=True)
    with tarfile.open(fileobj=BytesIO(raw)) as tar:
        tar.extractall(out, filter="data")
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=out / "web", check=True)
    return out


def play(pw: Any, base: str, deltas: int, bot_delay_ms: int, timeout_s: float) -> list[dict[str, Any]]:
    """Games until `deltas` deltas were timed (or the time is up); the timings of the last game's page."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    got: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout_s
    try:
        while len(got) < deltas and time.monotonic() < deadline:
            room = http(base, "POST", "/api/rooms", {"game": "waterfall_park", "seats": 5, "bots": [1, 2, 3, 4],
                                                     "options": {"bot_delay_ms": bot_delay_ms}})["room"]
            seat = http(base, "POST", f"/api/rooms/{room}/join", {"name": "Bench", "seat": 0})
            ctx = browser.new_context(viewport={"width": 1100, "height": 900})
            held = json.dumps(json.dumps({"seat": seat["seat"], "token": seat["token"]}))
            ctx.add_init_script(f"sessionStorage.setItem('hub.seat.{room}', {held})")
            ctx.add_init_script(TIMER)
            page = ctx.new_page()
            page.goto(f"{base}/#/room/{room}")
            page.wait_for_function("() => !!(window.hubDebug && window.hubDebug.connection || {}).view")
            page.evaluate(AUTOPLAY)
            while time.monotonic() < deadline:
                page.wait_for_timeout(500)
                done = page.evaluate("() => !!(window.hubDebug.connection.view || {}).result")
                if done or len(got) + page.evaluate("() => window.__deltas.length") >= deltas:
                    break
            got += page.evaluate("() => window.__deltas")
            ctx.close()
    finally:
        browser.close()
    return got[:deltas]


def summary(samples: list[dict[str, Any]]) -> dict[str, Any]:
    drawn = [s for s in samples if s["drawn"]]
    total = [s["total"] for s in drawn]
    return {
        "deltas": len(drawn),
        "undrawn": len(samples) - len(drawn),
        "median_ms": statistics.median(total) if total else float("nan"),
        "p90_ms": percentile(total, 90),
        "p99_ms": percentile(total, 99),
        "max_ms": max(total) if total else float("nan"),
        "script_median_ms": statistics.median([s["script"] for s in drawn]) if drawn else float("nan"),
        "within_16ms": sum(1 for t in total if t <= 16) / len(total) if total else float("nan"),
    }


def run(revs: list[str], deltas: int, bot_delay_ms: int, rounds: int) -> tuple[list[Row], dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    scratch = Path(tempfile.mkdtemp(prefix="web-delta-"))
    trees = {rev: tree_of(rev, scratch) for rev in revs}
    samples: dict[str, list[dict[str, Any]]] = {rev: [] for rev in revs}
    pin(LOAD_CORE)  # this process and the Chromium it starts; the hub runs on the other core
    try:
        with sync_playwright() as pw:
            for _ in range(rounds):
                for rev in revs:
                    with hub("--bot-delay-ms", str(bot_delay_ms), name="hub-web-delta", cwd=trees[rev]).start() as h:
                        samples[rev] += play(pw, h.url, deltas // rounds, bot_delay_ms, timeout_s=600)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rows: list[Row] = []
    figures: dict[str, Any] = {}
    for rev in revs:
        s = summary(samples[rev])
        figures[rev] = s
        note = f"{s['deltas']} deltas; script alone {s['script_median_ms']:.2f} ms; p99 {s['p99_ms']:.2f}, " \
               f"max {s['max_ms']:.2f}; {100 * s['within_16ms']:.0f} % within 16 ms"
        if s["undrawn"]:
            note += f"; {s['undrawn']} handled without drawing"
        rows.append((f"delta applied and drawn, median ms ({rev})", s["median_ms"], "<= 16", note))
        rows.append((f"delta applied and drawn, p90 ms ({rev})", s["p90_ms"], "<= 16", ""))
    return rows, figures


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.web_delta")
    ap.add_argument("--rev", action="append", help='a git revision to measure; "." is the working tree (default)')
    ap.add_argument("--deltas", type=int, default=300, help="deltas timed per revision")
    ap.add_argument("--rounds", type=int, default=2, help="turns taken by the revisions, each a share of the deltas")
    ap.add_argument("--bot-delay-ms", type=int, default=60)
    args = ap.parse_args()
    revs = args.rev or ["."]
    rows, figures = run(revs, args.deltas, args.bot_delay_ms, args.rounds)
    chromium = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip()
    print_table(f"Waterfall Park, five seats, seat 0's table at 1100 x 900 ({chromium})", rows)
    print(bench_line({"web_delta": figures}))


if __name__ == "__main__":
    main()
