"""Which rendering library draws the Waterfall Park table best: size, and time per delta, in Chromium.

    python -m bench.web_libs [--passes 5] [--steps 400]

The candidates for the client's keyed DOM updates, each served as the browser gets it (no build
step): Preact with `h()`, Preact with htm, lit-html (with its `repeat` directive) and uhtml, and as
the baseline the whole table built anew with `document.createElement` on every delta, as the client
drew before. They are installed with npm into artifacts/bench/web-libs/ (their newest versions, but
uhtml's 4.x line: see bench/web_libs/draw_uhtml.js; the versions are printed), not into web/.

The game: a five-seat Waterfall Park game played by the engine's own bots, seen by seat 0 (its
hand, its legal targets, every offer), recorded as the first view and one RFC 6902 patch per move.
Each library draws the same table from the same figures (bench/web_libs/model.js works them out,
once per step, for all alike): the park by blocks with its 78 locations, the players and their
tiles, the offers, the income table and the last 40 lines of the log, with the client's own
stylesheets. A step is timed from applying the patch to the end of a forced style and layout.

Printed per library: the bytes the browser fetched for it (and gzipped), the first draw, the median
and 99th percentile of a step, and how many board buttons stayed the same element through a step
(a click whose press and release straddle a delta lands only on the same element).
"""
from __future__ import annotations

import argparse
import copy
import gzip
import json
import random
import statistics
import subprocess
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonpatch

from bench.common import LOAD_CORE, ROOT, Row, bench_line, percentile, pin, print_table
from bench.web_delta import CHROMIUM, CHROMIUM_ARGS

HERE = Path(__file__).resolve().parent / "web_libs"
MODULES = ROOT / "artifacts" / "bench" / "web-libs"
#: npm's names for the candidates: the newest of each, but uhtml's 4.x line (see draw_uhtml.js).
PACKAGES = {"preact": "preact", "htm": "htm", "lit-html": "lit-html", "uhtml": "uhtml@4",
            "fast-json-patch": "fast-json-patch"}
#: Each candidate and the packages whose files it loads.
LIBRARIES = {"dom": [], "preact": ["preact"], "htm": ["preact", "htm"], "lit": ["lit-html"], "uhtml": ["uhtml"]}


def record(steps: int, seed: int = 3) -> dict[str, Any]:
    """A five-seat game of the engine's bots as seat 0 sees it: the first view and a patch per move."""
    from rules.registry import GAMES

    game = GAMES["waterfall_park"]
    state = game.setup(5, seed, game.check_options(5, {}))
    rng = random.Random(seed)
    names = ["Ada", "Bo", "Cy", "Di", "Ed"]

    def seen() -> dict[str, Any]:
        view = copy.deepcopy(game.view(state, 0))
        for p in view["players"]:
            p["name"] = names[p["seat"]]
        return json.loads(json.dumps(view))

    first = seen()
    last = first
    patches: list[list[dict[str, Any]]] = []
    while len(patches) < steps and game.result(state) is None:
        seat = rng.choice(game.active(state))
        action = game.bot_action(game.view(state, seat), rng) or game.timeout_action(state, seat)
        game.apply(state, seat, action)
        now = seen()
        ops = jsonpatch.make_patch(last, now).patch
        if ops:
            patches.append(ops)
        last = now
    return {"view": first, "steps": patches}


def install() -> dict[str, str]:
    """The candidates, installed into artifacts/bench/web-libs/ (quick once they are there)."""
    MODULES.mkdir(parents=True, exist_ok=True)
    if not (MODULES / "package.json").exists():
        (MODULES / "package.json").write_text(json.dumps({"name": "web-libs-bench", "private": True}))
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", *PACKAGES.values()],
                   cwd=MODULES, check=True)
    return {p: json.loads((MODULES / "node_modules" / p / "package.json").read_text())["version"] for p in PACKAGES}


class Site(SimpleHTTPRequestHandler):
    """bench/web_libs/ at /, the client's web/ at /web/, the candidates at /node_modules/."""

    def __init__(self, *args: Any, views: bytes, **kwargs: Any) -> None:
        self.views = views
        super().__init__(*args, directory=str(HERE), **kwargs)

    def translate_path(self, path: str) -> str:
        clean = path.split("?", 1)[0]
        if clean.startswith("/web/"):
            return str(ROOT / "web" / clean[len("/web/"):])
        if clean.startswith("/node_modules/"):
            return str(MODULES / clean.lstrip("/"))
        return super().translate_path(path)

    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        if self.path.split("?", 1)[0] == "/views.json":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(self.views)))
            self.end_headers()
            self.wfile.write(self.views)
            return
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the standard library's name
        pass


def measure(passes: int, steps: int) -> tuple[dict[str, str], dict[str, dict[str, Any]], int]:
    from playwright.sync_api import sync_playwright

    versions = install()
    data = record(steps)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Site, views=json.dumps(data).encode()))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    out: dict[str, dict[str, Any]] = {}
    pin(LOAD_CORE)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for lib, packages in LIBRARIES.items():
                page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
                fetched: list[str] = []
                page.on("response", lambda r, f=fetched: f.append(r.url))
                errors: list[str] = []
                page.on("pageerror", lambda e, errs=errors: errs.append(str(e)))
                page.goto(f"{base}/page.html?lib={lib}")
                page.wait_for_function("() => window.ready === true || false", timeout=20_000)
                got = page.evaluate(f"() => window.bench({passes})")
                if errors:
                    raise RuntimeError(f"{lib}: {errors}")
                files = sorted({u.split(base, 1)[1].split("?")[0] for u in fetched
                                if any(f"/node_modules/{p}/" in u for p in packages)})
                raw = [(MODULES / f.lstrip("/")).read_bytes() for f in files]
                got["bytes"] = sum(len(b) for b in raw)
                got["gzip"] = sum(len(gzip.compress(b, 9)) for b in raw)
                got["files"] = files
                out[lib] = got
                page.context.close()
            browser.close()
    finally:
        server.shutdown()
    return versions, out, len(data["steps"])


def run(passes: int = 5, steps: int = 400) -> tuple[list[Row], dict[str, Any]]:
    versions, results, n = measure(passes, steps)
    rows: list[Row] = []
    figures: dict[str, Any] = {"versions": versions, "steps": n, "passes": passes}
    for lib, got in results.items():
        s = got["steps"]
        f = {"bytes": got["bytes"], "gzip": got["gzip"], "first_ms": statistics.median(got["first"]),
             "median_ms": statistics.median(s), "p99_ms": percentile(s, 99), "kept": got["kept"],
             "replaced": got["replaced"], "elements": got["elements"]}
        figures[lib] = f
        kept = f"{got['kept']} of {got['kept'] + got['replaced']} buttons kept through a delta"
        rows.append((f"{lib}: step median ms", f["median_ms"], "",
                     f"p99 {f['p99_ms']:.2f} ms; first draw {f['first_ms']:.1f} ms; {kept}"))
        rows.append((f"{lib}: bytes fetched", got["bytes"], "", f"{got['gzip']} gzipped; {len(got['files'])} files"))
    return rows, figures


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.web_libs")
    ap.add_argument("--passes", type=int, default=5, help="times the recorded game is drawn per library")
    ap.add_argument("--steps", type=int, default=400, help="moves of the recorded game at most")
    args = ap.parse_args()
    rows, figures = run(args.passes, args.steps)
    versions = ", ".join(f"{k} {v}" for k, v in figures["versions"].items())
    print_table(f"Waterfall Park table, {figures['steps']} deltas x {args.passes} passes ({versions})", rows)
    print(bench_line({"web_libs": figures}))


if __name__ == "__main__":
    main()
