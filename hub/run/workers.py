"""`--workers N`: N hub processes on one port, so that one command uses every core of a machine.

A Python process runs its event loop on one core; the hub scales out by processes that share rooms
through Redis, and this supervisor starts them side by side on one port. Each worker binds its own
listening socket with SO_REUSEPORT, so the kernel spreads new connections over the workers by the
hash of their addresses, and a worker that dies takes only its own connections with it: the kernel
sends new ones to the others, the worker comes back a second later, and its clients resume (the
rooms it owned are taken over through their leases, as after any process's death).

Only the Redis store may run in several processes: a SQLite file takes one process (its lock refuses
a second), and the memory store would split the rooms between processes that cannot see each other.
"""
from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import fields, replace
from types import FrameType

from hub.settings import Settings, env_name

log = logging.getLogger("hub.workers")
RESTART_AFTER_S = 1.0   # a worker that died is started again after this pause (never in a tight loop)
STOP_WAIT_S = 5.0       # then a worker that does not stop on SIGTERM is killed


def worker_env(settings: Settings, index: int) -> dict[str, str]:
    """Every setting passed as its environment variable, so a worker reads exactly the supervisor's."""
    one = replace(settings, workers=1, reuse_port=True,
                  instance=f"{settings.instance or 'w'}{index}")
    env = dict(os.environ)
    for f in fields(Settings):
        value = getattr(one, f.name)
        env[env_name(f.name, f.metadata)] = str(value)
    return env


def refusal(settings: Settings) -> str | None:
    if settings.workers < 1:
        return "--workers must be at least 1"
    if settings.workers > 1 and not settings.redis:
        return ("--workers above 1 needs --redis: the processes share rooms through Redis "
                "(a SQLite file serves one process, and memory keeps rooms in one)")
    return None


class Supervisor:
    """Starts the workers, starts again one that dies, and stops them all on SIGTERM or SIGINT."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.stopping = False

    def spawn(self, index: int) -> None:
        self.procs[index] = subprocess.Popen([sys.executable, "-m", "hub", "serve"],
                                             env=worker_env(self.settings, index))
        log.info("worker started", extra={"fields": {"worker": index, "pid": self.procs[index].pid}})

    def stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    def reload(self, signum: int, frame: FrameType | None) -> None:
        """SIGHUP (a renewed certificate, hub/edge/tls.py) is every worker's to act on."""
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGHUP)

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)
        signal.signal(signal.SIGHUP, self.reload)
        for i in range(self.settings.workers):
            self.spawn(i)
        died: dict[int, float] = {}
        while not self.stopping:
            time.sleep(0.2)
            now = time.monotonic()
            for i, p in list(self.procs.items()):
                if i not in died and p.poll() is not None:
                    log.warning("worker died", extra={"fields": {"worker": i, "pid": p.pid, "code": p.returncode}})
                    died[i] = now
            for i, when in list(died.items()):
                if now - when >= RESTART_AFTER_S and not self.stopping:
                    del died[i]
                    self.spawn(i)
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT_S
        for p in self.procs.values():
            try:
                p.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        log.info("workers stopped", extra={"fields": {"workers": len(self.procs)}})
        return 0
