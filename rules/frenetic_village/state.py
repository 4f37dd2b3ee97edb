"""A Frenetic Village table: hands, the draw pile, every discard pile and the contest under way."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rules.engine import Result

LOG_KEEP = 40  # the log grows to this many entries, then drops the oldest half at once,
LOG_TRIM = 20  # so that most moves only append to it (small JSON Patch diffs)


@dataclass
class OpenContest:
    key: str
    pile: int
    placer: int
    eligible: tuple[int, ...]


@dataclass
class State:
    seats: int
    variant: str
    battles: int
    rng: random.Random
    hands: list[list[int]] = field(default_factory=list)
    draw: list[int] = field(default_factory=list)  # the top is the end of the list
    piles: list[list[int]] = field(default_factory=list)  # the top is the end of each list
    phase: str = "draw"  # draw | play | discard | grab | refill | over
    turn: int = 0
    exclude_slot: int | None = None  # the card just grabbed, which cannot be put away at once
    actions_allowed: bool = True  # False while an attacker discards after "One card"
    queue: list[tuple[int, int]] = field(default_factory=list)  # (pile, placer) waiting a contest
    contest: OpenContest | None = None
    contest_seq: int = 0
    battle: int = 1
    wins: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    last_battle: dict[str, Any] | None = None
    face_down: int | None = None  # the seat whose pile top is the face-down declaring card
    log: list[str] = field(default_factory=list)
    log_from: int = 0
    result: Result | None = None

    def say(self, text: str) -> None:
        self.log.append(text)
        if len(self.log) > LOG_KEEP:
            del self.log[:LOG_TRIM]
            self.log_from += LOG_TRIM
