"""A Symbiose table: every card's place, face-down ones included (`view` shows a face-down slot as
`null` and nothing else, to everyone, its owner included: nobody has looked at it)."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rules.engine import LogKinds, Result, log_entry

#: Every kind of log entry, with its arguments (docs/protocol.md). A card is its index in the deck
#: table (the catalogue's `cards`); `*_up` says whether it was face up before the move.
LOG_KINDS: LogKinds = {
    "start": ("mode", "seats"),
    "flip": ("seat", "slot", "card"),
    "swap": ("seat", "river", "taken", "river_up", "slot", "given", "slot_up"),
    "scores": ("scores", "winners"),
}


class SymbioseResult(Result, total=False):
    teams: list[int]  # team mode: the totals of seats 0+2 and of seats 1+3


@dataclass
class State:
    seats: int
    mode: str
    rng: random.Random
    deck: list[int]  # the undealt rest, face down; never drawn from after the deal
    ponds: list[list[int]]  # card index per slot
    up: list[list[bool]]
    river: list[int]
    river_up: list[bool]
    turn: int = 0  # turns completed; seat = turn % seats, round = turn // seats + 1
    phase: str = "flip"
    log: list[Any] = field(default_factory=list)
    scores: list[int] | None = None
    slot_points: list[list[int]] | None = None
    log_from: int = 0  # entries dropped from the front of `log`

    def say(self, kind: str, *args: Any) -> None:
        self.log_from += log_entry(self.log, LOG_KINDS, kind, args)
