"""A bounded soak run: many concurrent tables of every game, bots and scripted clients, random
disconnects and resumes, malformed frames mixed in, for a few minutes against one hub process.

    python -m bench.soak --minutes 3                  # the figures in docs/security.md
    python -m bench.soak --seconds 30 --tables 8      # what the marked test runs

It reports, and fails (exit 1) on: an error in the hub's log, a room stuck (no change for
`--stuck-s` while unfinished), a game that did not finish, a client that saw a gap or a patch
that did not apply, a malformed frame without its error answer, and memory that kept growing
(the hub's RSS, sampled every second, in the last fifth of the run against the fourth fifth).
The load generator shares the machine with the hub: on two cores its figures are a floor.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.registry import GAMES
from tests.conftest import HubProcess
from tests.hub.wsclient import Client, http, join, new_room, settle

GARBAGE: list[Any] = [
    b"\xc1\xc1", b"", {"t": 5}, {"t": "act", "id": "x", "action": {}}, {"t": "act", "id": 1, "action": []},
    {"t": "act", "id": 2, "action": {"type": "nonsense"}}, {"t": "nope", "id": 3}, [1, 2, 3], "text",
    {"t": "act", "id": 4, "action": {"type": "grab", "contest": "forged"}}, {"t": "hello", "room": "x"},
    b"\x91" * 2000 + b"\xc0", {"t": "act", "id": 5, "action": {"type": "contest_result", "key": "k", "winner": 0}},
]


@dataclass
class Figures:
    tables: Counter[str] = field(default_factory=Counter)
    finished: Counter[str] = field(default_factory=Counter)
    unfinished: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    actions: int = 0
    refused: int = 0
    reconnects: int = 0
    resumed: int = 0
    malformed: int = 0
    malformed_answered: int = 0
    frames: int = 0
    rss_kb: list[tuple[float, int]] = field(default_factory=list)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def off(fn: Any, *args: Any) -> Any:
    return await asyncio.to_thread(fn, *args)


class Table:
    def __init__(self, base: str, game: str, seats: int, rng: random.Random, figures: Figures,
                 stuck_s: float, max_humans: int) -> None:
        self.base, self.game, self.seats, self.rng, self.fig, self.stuck_s = base, game, seats, rng, figures, stuck_s
        self.max_humans = max_humans
        self.name = f"{game}x{seats}"

    async def run(self) -> None:
        rng, fig = self.rng, self.fig
        bots = sorted(rng.sample(range(self.seats), rng.randint(max(0, self.seats - self.max_humans), self.seats - 1)))
        options = {"bot_delay_ms": rng.choice([0, 20, 60]), "decision_seconds": 2}
        room = await off(new_room, self.base, self.game, self.seats, options, bots)
        humans = [s for s in range(self.seats) if s not in bots]
        tokens = {s: (await off(join, self.base, room, f"p{s}", s))[1] for s in humans}
        players = {s: await Client(self.base, room, tokens[s], codec=rng.choice(["msgpack", "json"])).open()
                   for s in humans}
        specs = [await Client(self.base, room).open(), await Client(self.base, room, codec="json").open()]
        fig.tables[self.game] += 1
        last_seq, last_change = specs[0].seq, time.monotonic()
        grabbed: set[tuple[int, Any]] = set()
        while specs[0].view["result"] is None:
            await settle([*players.values(), *specs], gap=0.02, limit=1)
            if specs[0].seq != last_seq:
                last_seq, last_change = specs[0].seq, time.monotonic()
            elif time.monotonic() - last_change > self.stuck_s:
                fig.stuck.append(f"{self.name} {room} in phase {specs[0].view['phase']!r}")
                break
            for s, c in players.items():
                for f in c.contests[-2:]:
                    if (s, f["id"]) not in grabbed and rng.random() < 0.7:
                        grabbed.add((s, f["id"]))
                        await c.send({"t": "act", "id": 900000 + len(grabbed), "action": {"type": "grab",
                                                                                          "contest": f["id"]}})
            roll = rng.random()
            if roll < 0.03 and players:  # a player drops, and comes back a moment later with resume
                s = rng.choice(sorted(players))
                gone = players.pop(s)
                await gone.close()
                await asyncio.sleep(rng.uniform(0.05, 0.8))
                back = Client(self.base, room, tokens[s], codec=gone.codec)
                resume = gone.seq if rng.random() < 0.8 else None
                if resume is not None:
                    back.view, back.seq = gone.view, gone.seq
                    fig.resumed += 1
                await back.open(resume=resume)
                fig.reconnects += 1
                players[s] = back
                continue
            if roll < 0.08:  # something malformed, from anyone; the answer is an error frame
                c = rng.choice([*players.values(), *specs])
                junk = rng.choice(GARBAGE)
                before = len(c.errors)
                if isinstance(junk, bytes):
                    await c.send_raw(junk if c.codec == "msgpack" else junk.decode("latin-1"))
                else:
                    await c.send(junk)
                fig.malformed += 1
                for _ in range(300):
                    if len(c.errors) > before or c.closed.is_set():
                        break
                    await asyncio.sleep(0.01)
                if len(c.errors) > before and not c.closed.is_set():
                    fig.malformed_answered += 1
                else:
                    fig.problems.append(f"{self.name}: no error answered {junk!r:.60} (closed {c.close_code})")
                continue
            movers = [c for c in players.values() if c.legal]
            if not movers:
                await asyncio.sleep(0.03)
                continue
            c = rng.choice(movers)
            # chosen from the view it had, as a player would: mostly as the game's bot would, so that
            # games end in a sensible time, sometimes at random
            action = GAMES[self.game].bot_action(c.view, rng) if rng.random() < 0.7 else None
            action, seq = action or rng.choice(c.legal), c.seq
            await asyncio.sleep(rng.uniform(0, 0.05))
            try:
                answer = await c.act(action, seq=seq, timeout=10)
            except (TimeoutError, ConnectionError) as e:
                fig.problems.append(f"{self.name}: act failed: {e!r}")
                continue
            if answer["t"] == "ack":
                fig.actions += 1
            else:
                fig.refused += 1
        await settle([*players.values(), *specs], gap=0.05, limit=3)
        if specs[0].view["result"] is not None:
            fig.finished[self.game] += 1
        elif not any(self.name in s for s in fig.stuck):
            fig.unfinished.append(f"{self.name} {room}")
        snap = await Client(self.base, room).open()
        if snap.seq == specs[0].seq and snap.view != specs[0].view:
            fig.problems.append(f"{self.name}: the spectator's patched view differs from a snapshot")
        for c in [*players.values(), *specs, snap]:
            fig.problems += [f"{self.name}: {p}" for p in c.problems]
            fig.frames += len(c.frames)
            await c.close()


CONFIGS = [("symbiose", 2), ("symbiose", 4), ("frenzy_falls", 3), ("frenzy_falls", 5), ("waterfall_park", 3),
           ("waterfall_park", 5), ("frenetic_village", 3), ("frenetic_village", 6)]


async def soak(base: str, pid: int, seconds: float, tables: int, seed: int, stuck_s: float,
               max_humans: int) -> Figures:
    fig = Figures()
    rng = random.Random(seed)
    configs = [c for c in CONFIGS if c[0] in GAMES]
    end = time.monotonic() + seconds
    started = time.monotonic()

    async def slot(i: int) -> None:
        n = i
        while time.monotonic() < end:
            game, seats = configs[n % len(configs)]
            n += tables
            try:
                table = Table(base, game, seats, random.Random(rng.random()), fig, stuck_s, max_humans)
                await asyncio.wait_for(table.run(), seconds + 120)
            except Exception as e:  # noqa: BLE001 - recorded; one table must not end the run
                fig.problems.append(f"{game}x{seats}: {e!r}")

    async def sample() -> None:
        while True:
            fig.rss_kb.append((time.monotonic() - started, rss_kb(pid)))
            await asyncio.sleep(1)

    sampler = asyncio.create_task(sample())
    await asyncio.gather(*(slot(i) for i in range(tables)))
    sampler.cancel()
    fig.rss_kb.append((time.monotonic() - started, rss_kb(pid)))
    return fig


def memory_growth(samples: list[tuple[float, int]]) -> tuple[int, int, float]:
    """(median RSS of the fourth fifth of the run, of the last fifth, growth ratio): whether memory
    still grows at the end. The first fifths are warm-up: tables of every size fill the process
    up to the working set of the mix, and CPython's allocator keeps what it once held."""
    kb = [k for _, k in samples]
    n = len(kb)
    if n < 10:
        return kb[0] if kb else 0, kb[-1] if kb else 0, 0.0
    early = statistics.median(kb[3 * n // 5: 4 * n // 5])
    late = statistics.median(kb[4 * n // 5:])
    return int(early), int(late), (late - early) / early


def report(fig: Figures, seconds: float, log: str, growth_limit: float = 0.10) -> tuple[str, bool]:
    errors = [line for line in log.splitlines()
              if '"level": "error"' in line or '"level": "critical"' in line or "Traceback" in line]
    early, late, growth = memory_growth(fig.rss_kb)
    peak = max((k for _, k in fig.rss_kb), default=0)
    ok = (not errors and not fig.stuck and not fig.unfinished and not fig.problems and growth < growth_limit
          and fig.malformed_answered == fig.malformed and sum(fig.finished.values()) > 0)
    lines = [
        f"soak: {seconds:.0f} s, {sum(fig.tables.values())} tables started, {sum(fig.finished.values())} finished",
        "  per game: " + ", ".join(f"{g} {fig.finished[g]}/{fig.tables[g]}" for g in sorted(fig.tables)),
        f"  actions applied {fig.actions}, refused (stale or late) {fig.refused}, frames received {fig.frames}",
        f"  reconnects {fig.reconnects} ({fig.resumed} with resume), malformed frames {fig.malformed} "
        f"({fig.malformed_answered} answered with an error)",
        f"  hub RSS: start {fig.rss_kb[0][1] // 1024 if fig.rss_kb else 0} MiB, peak {peak // 1024} MiB, "
        f"fourth fifth {early // 1024} MiB, last fifth {late // 1024} MiB ({growth:+.1%})",
        "  RSS over time (s: MiB): " + ", ".join(f"{t:.0f}: {k // 1024}" for t, k in
                                                  fig.rss_kb[:: max(1, len(fig.rss_kb) // 12)] + fig.rss_kb[-1:]),
        f"  log errors {len(errors)}, stuck rooms {len(fig.stuck)}, unfinished {len(fig.unfinished)}, "
        f"client problems {len(fig.problems)}",
    ]
    for what in (errors[:5], fig.stuck[:5], fig.unfinished[:5], fig.problems[:10]):
        lines += [f"    {w[:300]}" for w in what]
    lines.append("OK" if ok else "FAILED")
    return "\n".join(lines), ok


def run(seconds: float, tables: int, seed: int = 1, stuck_s: float = 20.0, max_humans: int = 8,
        growth_limit: float = 0.10) -> tuple[str, bool, Figures]:
    hub = HubProcess("--bot-delay-ms", "20", "--grace-s", "0.5", "--finished-ttl-s", "3", "--verify-deltas",
                     "--rooms-per-ip-per-min", "100000").start()
    try:
        assert hub.proc is not None
        fig = asyncio.run(soak(hub.url, hub.proc.pid, seconds, tables, seed, stuck_s, max_humans))
        health = http(hub.url, "GET", "/healthz")
        if health[0] != 200:
            fig.problems.append(f"healthz answered {health}")
        for _ in range(100):  # finished rooms are dropped after --finished-ttl-s; nothing may linger
            health = http(hub.url, "GET", "/healthz")
            if health[1]["rooms"] == 0 and health[1]["connections"] == 0:
                break
            time.sleep(0.1)
        else:
            fig.problems.append(f"rooms or connections linger after the run: {health[1]}")
        fig.rss_kb.append((fig.rss_kb[-1][0] + 10 if fig.rss_kb else 0, rss_kb(hub.proc.pid)))
    finally:
        hub.stop()
    text, ok = report(fig, seconds, hub.log(), growth_limit)
    return text, ok, fig


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=0)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--tables", type=int, default=16, help="concurrent tables")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stuck-s", type=float, default=20.0, help="an unfinished room unchanged this long is stuck")
    ap.add_argument("--max-humans", type=int, default=8, help="scripted clients per table at most; bots fill the rest")
    ap.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = ap.parse_args(argv)
    seconds = args.seconds or (args.minutes or 3) * 60
    text, ok, fig = run(seconds, args.tables, args.seed, args.stuck_s, args.max_humans)
    print(text)
    if args.json:
        print(json.dumps({"finished": dict(fig.finished), "tables": dict(fig.tables), "actions": fig.actions,
                          "reconnects": fig.reconnects, "malformed": fig.malformed, "rss_kb": fig.rss_kb}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
