"""How the hub lets Python's cycle collector run: in pauses of a millisecond or two, on a clock.

Python starts a collection of its young generation when allocations outrun deallocations by 700
objects, and a middle or full one after so many young ones. A hub frees an old view for every new
one it makes, so the young generation's count hardly moves while what is young piles up, and the
collections that do come walk tens of thousands of objects: at 500 tables and 2,000 connections the
middle ones stopped the loop for 10 to 48 ms and the full ones for 25 to 88 ms, about one a second
each, which was the move-to-delta p99 (bench/latency.py; docs/performance.md, section 5).

So the policy is this. Young collections stay Python's (they are short). The older generations are
never collected by Python's thresholds; instead, every `WALK_EVERY_S` the loop collects everything
not yet frozen, which is only what survived since the last walk, and then freezes (`gc.freeze`) what
survived: every object is walked by this policy once, in a pause proportional to what the hub kept
in the last 50 ms. Frozen objects are still freed by their reference counts; only a cycle among them
that became garbage would wait, so every `full_every_s` the freeze is lifted and that walk covers the
whole heap once (its length is in `hub_gc_pause_seconds{kind="whole"}`).
"""
from __future__ import annotations

import asyncio
import gc
import time

from prometheus_client import Histogram

#: How often the loop walks what survived since the last walk.
WALK_EVERY_S = 0.05
#: A threshold Python's collector never reaches: the older generations are this policy's to walk.
NEVER = 1 << 30


class GcPolicy:
    def __init__(self, full_every_s: float, pauses: Histogram | None = None) -> None:
        self.full_every_s = full_every_s
        self.pauses = pauses
        self.last_full = time.monotonic()
        self.walks = 0
        self.longest_s = 0.0
        self._thresholds = gc.get_threshold()
        self._timer: asyncio.TimerHandle | None = None

    @property
    def active(self) -> bool:
        return self.full_every_s > 0

    def install(self) -> None:
        """Take over the older generations; called on the running loop (the app's lifespan)."""
        if not self.active:
            return
        gc.collect()
        gc.freeze()  # what startup built lives as long as the process
        gc.set_threshold(self._thresholds[0], NEVER, NEVER)
        self._timer = asyncio.get_running_loop().call_later(WALK_EVERY_S, self._tick)

    def uninstall(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.active:
            gc.unfreeze()
            gc.set_threshold(*self._thresholds)

    def _tick(self) -> None:
        self.walk()
        self._timer = asyncio.get_running_loop().call_later(WALK_EVERY_S, self._tick)

    def walk(self) -> float:
        """Collect what is not frozen, freeze what survived; return the pause in seconds."""
        t0 = time.monotonic()
        whole = t0 - self.last_full >= self.full_every_s
        if whole:
            self.last_full = t0
            gc.unfreeze()  # this walk covers everything once
        # between walks the oldest generation is empty (each walk ends with a freeze), so the
        # middle one holds all that is not frozen; a whole walk takes the oldest too
        gc.collect(2 if whole else 1)
        gc.freeze()
        pause = time.monotonic() - t0
        self.walks += 1
        self.longest_s = max(self.longest_s, pause)
        if self.pauses is not None:
            self.pauses.labels(kind="whole" if whole else "new").observe(pause)
        return pause
