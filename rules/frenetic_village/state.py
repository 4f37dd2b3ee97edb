"""A Frenetic Village table: hands, the draw pile, every discard pile and the contest under way."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rules.engine import LogKinds, Result, log_entry

#: Every kind of log entry, with its arguments (docs/protocol.md). A card is its kind's id in the
#: catalogue (components.kind_id), never a physical card's.
LOG_KINDS: LogKinds = {
    "battle": ("battle", "starter"),
    "reshuffled": (),
    "short": (),
    "draws": ("seat", "cards"),
    "discards": ("seat", "card"),
    "plays": ("seat", "card", "target"),
    "no_grab": ("card",),
    "grabs": ("seat", "card", "pile"),
    "declares": ("seat", "combination", "hand", "battle"),
    "over": ("winners",),
}


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
    log: list[Any] = field(default_factory=list)
    log_from: int = 0
    result: Result | None = None

    def say(self, kind: str, *args: Any) -> None:
        self.log_from += log_entry(self.log, LOG_KINDS, kind, args)
