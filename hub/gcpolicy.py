"""How the hub lets Python's cycle collector run: in short pauses, not in pauses of most of a second.

A full collection walks every tracked object, about a microsecond each here, and a hub's heap is
mostly long-lived (rooms, their views, each connection's tasks): at 500 tables and 2,000 connections a
full collection stopped the loop for half a second every few seconds, which was the whole of the
move-to-delta p99 (bench/latency.py). So after each full collection its survivors are frozen
(`gc.freeze`): later collections walk only what came since. Frozen objects are still freed by their
reference counts; only a cycle among them that became garbage would wait, so every `full_every_s` the
freeze is lifted and the next full collection walks (and reclaims) everything once.

Since a full collection now walks only what is new, it runs after every middle-generation one
(FULL_AFTER) rather than every tenth: many short walks instead of a few long ones.

Measured (bench/latency.py, 500 tables, 240 moves/s): the longest full collection went from 830 ms
to 150 ms with the freeze, and to 84 ms with FULL_AFTER = 1 (p99 140 -> 110 ms). A young generation
of 20,000 instead of 700 was tried and dropped: each of its collections took up to 85 ms.
"""
from __future__ import annotations

import gc
import time
from typing import Any

#: Middle-generation collections between two full ones (Python's default is 10).
FULL_AFTER = 1


class GcPolicy:
    def __init__(self, full_every_s: float) -> None:
        self.full_every_s = full_every_s
        self.last_full = time.monotonic()
        self.frozen_runs = 0

    def install(self) -> None:
        if self.full_every_s <= 0:
            return
        t0, t1, _ = gc.get_threshold()
        gc.set_threshold(t0, t1, FULL_AFTER)
        gc.collect()
        gc.freeze()  # what startup built lives as long as the process
        gc.callbacks.append(self._on_gc)

    def uninstall(self) -> None:
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
            gc.unfreeze()
            t0, t1, _ = gc.get_threshold()
            gc.set_threshold(t0, t1, 10)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info.get("generation") != 2:
            return
        now = time.monotonic()
        if now - self.last_full >= self.full_every_s:
            self.last_full = now
            gc.unfreeze()  # the next full collection walks everything once
        else:
            self.frozen_runs += 1
            gc.freeze()
