"""`python -m hub serve --workers N`: N processes behind one port, one game played across them."""
from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from tests.conftest import ROOT, HubProcess, drop_prefix, new_prefix
from tests.hub.test_scale import HUB_ARGS, Table
from tests.hub.wsclient import Client

pytestmark = pytest.mark.redis


def health(url: str) -> dict[str, int]:
    """One new connection's answer (a new connection may land on either worker)."""
    req = urllib.request.Request(url + "/healthz", headers={"Connection": "close"})
    with urllib.request.urlopen(req, timeout=2) as r:
        return dict(json.loads(r.read()))


def workers_seen(url: str, tries: int = 200) -> dict[int, dict[str, int]]:
    seen: dict[int, dict[str, int]] = {}
    for _ in range(tries):
        h = health(url)
        seen[h["pid"]] = h
        if len(seen) == 2:
            break
    return seen


@pytest.fixture
def pair(redis_url: str) -> Iterator[HubProcess]:
    prefix = new_prefix()
    hub = HubProcess(*HUB_ARGS, "--redis", redis_url, "--redis-prefix", prefix, "--workers", "2").start()
    # the port answers once one worker listens; on a loaded machine the other may start seconds later
    deadline = time.monotonic() + 30
    while len(workers_seen(hub.url, tries=20)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    yield hub
    hub.stop()
    drop_prefix(redis_url, prefix)


async def test_two_workers_share_the_port_and_play_a_game_across_them(pair: HubProcess) -> None:
    seen = workers_seen(pair.url)
    assert len(seen) == 2, f"one port, two processes answering: {seen}"
    assert pair.proc is not None and pair.proc.pid not in seen, "the supervisor serves nothing itself"
    t = await Table([pair.url], "symbiose", 4, seed=7).open()
    extra: list[Client] = []
    try:
        # the kernel spreads connections by their addresses' hash: watch until both workers hold some
        for _ in range(20):
            counts = {pid: h["connections"] for pid, h in workers_seen(pair.url).items()}
            if len(counts) == 2 and all(counts.values()):
                break
            extra.append(await Client(pair.url, t.room).open())
        assert len(counts) == 2 and all(counts.values()), f"connections by worker: {counts}"
        await t.play(2000)
        assert t.finished(), "the game did not finish"
        await t.check()
        views = [w.view for w in [*t.watchers, *extra]]
        assert all(v == views[0] for v in views), "spectators on different workers disagree"
    finally:
        for c in extra:
            await c.close()
        await t.close()


def test_a_worker_that_dies_comes_back(pair: HubProcess) -> None:
    import os
    import signal

    victim = next(iter(workers_seen(pair.url)))
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 15
    resets = 0
    seen: dict[int, dict[str, int]] = {}
    while time.monotonic() < deadline:
        try:
            seen = workers_seen(pair.url, tries=40)
        except (ConnectionResetError, urllib.error.URLError):
            # a connection the kernel had queued at the dead worker's socket is reset (unless
            # net.ipv4.tcp_migrate_req moves it); a client connects again, as this one does
            resets += 1
            assert resets < 20, "connections keep being reset after the worker died"
            continue
        if len(seen) == 2 and victim not in seen:
            break
        time.sleep(0.2)
    assert len(seen) == 2 and victim not in seen, f"a new worker took the dead one's place: {seen}"


@pytest.mark.parametrize("store", [("--store", "memory"), ("--store", "sqlite")])
def test_workers_need_redis(store: tuple[str, str]) -> None:
    out = subprocess.run([sys.executable, "-m", "hub", "serve", "--workers", "2", *store, "--port", "0"],
                         cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "--workers above 1 needs --redis" in out.stderr
