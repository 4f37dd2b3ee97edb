"""Where strong bots think: a pool of worker processes, so that a search never holds the event loop.

A strong bot's search (rules/search.py) is pure CPU for up to its budget; on the loop it would
stall every room of the process for that long, and in a thread it would hold the interpreter's
lock as surely. Worker processes take the view and a seed, and give back a move; a room whose bot
is thinking answers every human at once, and the move is dropped if the table moved on meanwhile.
The pool is made on the first strong move, one worker per core, and shut down with the hub. Its
workers run only on time nobody else wants (Linux's SCHED_IDLE; elsewhere the lowest priority):
when every core is searching, the kernel still gives the event loop its core the moment it asks,
so a human's move is answered as fast as beside normal bots (bench/bot_load.py). A search starved
that way still ends at its budget in wall time, having tried fewer worlds.
"""
from __future__ import annotations

import multiprocessing
import os
import random
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from rules import levels
from rules.registry import GAMES

_pool: ProcessPoolExecutor | None = None
#: The workers' priority where SCHED_IDLE is not to be had (a nice(2) increment: the lowest).
NICE = 19


def workers() -> int:
    """One per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def pool() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        # forkserver: a worker starts from a clean interpreter, never from a copy of a process that
        # holds sockets, threads and an event loop
        _pool = ProcessPoolExecutor(workers(), mp_context=multiprocessing.get_context("forkserver"),
                                    initializer=_lower_priority)
    return _pool


def _lower_priority() -> None:
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        os.nice(NICE)


def shutdown() -> None:
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)
        _pool = None


def think(game_id: str, view: dict[str, Any], seed: int, budget_s: float,
          propose: bool = True) -> dict[str, Any] | None:
    """In a worker: a strong bot's move for `view`, the search cut at `budget_s` of wall time."""
    deadline = time.monotonic() + budget_s
    return levels.bot_action(GAMES[game_id], view, random.Random(seed), levels.STRONG,
                             stop=lambda: time.monotonic() >= deadline, propose=propose)


def submit(game_id: str, view: dict[str, Any], seed: int, budget_s: float,
           propose: bool = True) -> Future[dict[str, Any] | None]:
    """The search, handed to the pool; a pool broken by a worker's death is made again once."""
    try:
        return pool().submit(think, game_id, view, seed, budget_s, propose)
    except BrokenProcessPool:
        shutdown()
        return pool().submit(think, game_id, view, seed, budget_s, propose)
