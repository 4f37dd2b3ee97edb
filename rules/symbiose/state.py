"""A Symbiose table: every card's place, face-down ones included (`view` shows a face-down slot as
`{"up": false}` and nothing else, to everyone, its owner included: nobody has looked at it)."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from rules.engine import Result

LOG_KEEP = 40


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
    log: list[str] = field(default_factory=list)
    scores: list[int] | None = None
    slot_points: list[list[int]] | None = None


    def say(self, line: str) -> None:
        self.log.append(line)
        del self.log[:-LOG_KEEP]
