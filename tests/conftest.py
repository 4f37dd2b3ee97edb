"""Fixtures shared by the whole suite: real hub processes on ephemeral ports, Redis, Chromium.

Under CI=true a test that needs Redis or the browser fails instead of skipping, so a green run
always means those tests ran.
"""
from __future__ import annotations

import os
import secrets
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DB_DIR = Path(tempfile.mkdtemp(prefix="hubtest-db-"))
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def need(ok: bool, why: str) -> None:
    """Skip locally, fail under CI, when something a test needs is missing."""
    if ok:
        return
    if IN_CI:
        pytest.fail(f"required under CI: {why}")
    pytest.skip(why)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


LIFTED = {"HUB_JOINS_PER_IP_PER_MIN": "0", "HUB_SEATS_PER_IP": "0", "HUB_PENDING_WS_PER_IP": "0"}


def stop_process(proc: subprocess.Popen[bytes] | None, wait_s: float = 10) -> None:
    """SIGTERM, then SIGKILL if it is still there after `wait_s` (as `docker stop` does)."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


class HubProcess:
    """One `python -m hub serve` subprocess, stopped at the end of its fixture."""

    def __init__(self, *args: str, env: dict[str, str] | None = None, port: int | None = None,
                 host: str = "127.0.0.1") -> None:
        self.port = port or free_port()
        self.host = host
        self.url = f"{'https' if '--tls-cert' in args else 'http'}://{host}:{self.port}"
        self.args = args
        self.env = {k: v for k, v in os.environ.items() if k != "HUB_REDIS_URL"}  # the backend is the test's
        # Tests join seats and open WebSockets from one address far faster than people do: the
        # per-address seat limits have tests of their own (test_squatting.py), which set them by flag
        # (a flag wins over its variable).
        self.env.update(LIFTED)
        self.env.update(env or {})
        self.log_path = ROOT / "artifacts" / "logs" / f"hub-{self.port}-{int(time.time() * 1000)}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.preexec: Callable[[], None] | None = None  # run in the child before the hub (resource limits)
        self.backend = "memory" if "memory" in args else "redis" if "--redis" in args else "sqlite"
        if self.backend == "sqlite" and "--db" not in args:
            # a file of its own: two hubs on one file refuse each other (tests/hub/test_sqlite.py)
            self.args = (*args, "--db", str(DB_DIR / f"hub-{self.port}-{secrets.token_hex(4)}.sqlite3"))

    def start(self, timeout: float = 20) -> HubProcess:
        self.launch()
        return self.wait_ready(timeout)

    def launch(self) -> HubProcess:
        """Start the process without waiting for it (start several, then wait for each)."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed by the process's end
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hub", "serve", "--host", self.host, "--port", str(self.port),
             *self.args],
            cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=self.preexec,
        )
        return self

    def wait_ready(self, timeout: float = 20) -> HubProcess:
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"hub exited with {self.proc.returncode}; see {self.log_path}")
            try:
                tls = ssl._create_unverified_context() if self.url.startswith("https") else None
                with urllib.request.urlopen(self.url + "/healthz", timeout=1, context=tls) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"hub did not come up; see {self.log_path}")

    def stop(self) -> None:
        stop_process(self.proc)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


#: The hub's test suite runs on both kinds of store: the embedded default (SQLite), and Redis (one
#: process here; the tests in test_scale.py run several). The memory store is the SQLite store
#: without its journal; the tests that want it pass `--store memory`.
BACKENDS = ["sqlite", pytest.param("redis", marks=pytest.mark.redis)]

#: On Redis the longest soaks run in part, to keep the Redis set within minutes on two cores: one
#: table per game of test_full_game, the conformance checker on Symbiose (the others' rules are the
#: same code on both backends), and the statistical fairness soak (its edge/owner split is covered
#: by the other contest tests). HUB_TEST_FULL_REDIS=1 runs every one of them on Redis too.
FULL_REDIS = os.environ.get("HUB_TEST_FULL_REDIS", "").lower() in ("1", "true", "yes")
REDIS_IN_PART = {"test_far_and_near_players_win_alike": None, "test_conformance": ("symbiose",),
                 # the words of a table do not depend on the store
                 "test_a_table_switched_to_french_mid_game_has_no_english_left": None,
                 # whole games in the browser: the frames a browser gets from a hub on Redis are the
                 # contract's, tested on Redis by the hub's own tests; the browser keeps its Redis runs
                 # where the store shows (the lobby, a reload, a replay, presence, play again)
                 "test_one_end_screen_one_log_and_names": None,
                 "test_every_registered_game_opens_its_table": None,
                 "test_whole_game_against_bots_with_a_spectator": None,
                 "test_a_whole_game_against_bots_with_a_trade": None,
                 "test_one_battle_against_a_bot_with_a_spectator": None,
                 "test_every_game_that_finishes_replays_to_its_final_view": None,
                 # the pace of strong bots' offers is the table's (hub/tables/bots.py), not the store's
                 "test_a_tables_strong_bots_make_at_most_one_offer_a_minute": None}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out (deselect, not skip) the Redis repeats of the longest soaks, unless FULL_REDIS."""
    if FULL_REDIS:
        return
    first_table: set[str] = set()
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        name = getattr(item, "originalname", item.name)
        repeat = False
        if "redis" in (params.get("hub"), params.get("hub_factory")):
            if name == "test_full_game":
                repeat = params["game"] in first_table
                first_table.add(params["game"])
            elif name in REDIS_IN_PART:
                keep = REDIS_IN_PART[name]
                repeat = keep is None or params.get("game") not in keep
        (dropped if repeat else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def backend_args(request: pytest.FixtureRequest, backend: str, prefix: str) -> list[str]:
    if backend != "redis":
        return []
    url = request.getfixturevalue("redis_url")
    return ["--redis", url, "--redis-prefix", prefix]


def new_prefix() -> str:
    """Each test's hubs get keys of their own, so no test sees (or takes over) another's rooms."""
    return f"hubtest-{secrets.token_hex(4)}"


def drop_prefix(url: str, prefix: str) -> None:
    import redis

    r = redis.Redis.from_url(url)
    try:
        batch = list(r.scan_iter(match=f"{prefix}:*", count=1000))
        for i in range(0, len(batch), 500):
            r.delete(*batch[i:i + 500])
    except Exception:  # noqa: BLE001 - cleanup is best effort (the keys expire anyway)
        pass
    finally:
        r.close()


@pytest.fixture(scope="session", params=BACKENDS)
def hub(request: pytest.FixtureRequest) -> Iterator[HubProcess]:
    """One hub for the whole session, on each backend in turn."""
    prefix = new_prefix()
    extra = backend_args(request, request.param, prefix)
    # Every test of the session creates its rooms from one address, faster than a person would: the
    # per-address room limit has tests of its own (test_limits.py) and is lifted here.
    h = HubProcess("--bot-delay-ms", "0", "--verify-deltas", "--finished-ttl-s", "30",
                   "--rooms-per-ip-per-min", "0", *extra).start()
    h.backend = request.param
    yield h
    h.stop()
    if extra:
        drop_prefix(extra[1], prefix)


@pytest.fixture(params=BACKENDS)
def hub_factory(request: pytest.FixtureRequest) -> Iterator[type[HubProcess]]:
    """Hubs with settings of a test's own, on each backend; on Redis, one test's hubs share keys."""
    started: list[HubProcess] = []
    prefix = new_prefix()
    extra = backend_args(request, request.param, prefix)

    class Factory(HubProcess):
        backend_name = request.param

        def __init__(self, *args: str, env: dict[str, str] | None = None, port: int | None = None) -> None:
            super().__init__(*args, *extra, env=env, port=port)
            self.backend = request.param

        def start(self, timeout: float = 20) -> HubProcess:
            started.append(self)
            return super().start(timeout)

    yield Factory
    for h in started:
        h.stop()
    if extra:
        drop_prefix(extra[1], prefix)


def redis_available(url: str = "redis://127.0.0.1:6379/0") -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except Exception:  # noqa: BLE001 - any failure means "not here"
        return False


@pytest.fixture(scope="session")
def redis_url() -> str:
    url = os.environ.get("HUB_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    need(redis_available(url), f"a Redis server at {url}")
    return url


CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    need(Path(CHROMIUM).exists() or shutil.which("chromium") is not None, f"Chromium at {CHROMIUM}")
    return CHROMIUM if Path(CHROMIUM).exists() else str(shutil.which("chromium"))
