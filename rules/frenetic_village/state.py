"""A Frenetic Village table: hands, the draw pile, every discard pile and the contest under way."""
from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

from rules.engine import LogKinds, Result, json_copy, log_entry

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

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        """A copy for a search's worlds, made by hand: the generic deep copy of the lists of ints
        cost a playout a sixth of its time. Log entries are never changed once written, so the
        copy's log shares them."""
        new = copy.copy(self)
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())  # a tenth of what copying it generically costs
        new.hands = [list(h) for h in self.hands]
        new.draw = list(self.draw)
        new.piles = [list(p) for p in self.piles]
        new.queue = list(self.queue)
        new.wins = list(self.wins)
        new.scores = list(self.scores)
        new.last_battle = json_copy(self.last_battle)
        new.log = list(self.log)
        new.result = json_copy(self.result)
        return new

    def say(self, kind: str, *args: Any) -> None:
        self.log_from += log_entry(self.log, LOG_KINDS, kind, args)
