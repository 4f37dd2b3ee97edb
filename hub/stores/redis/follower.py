"""An audience a relay feeds with deltas from the log rather than views from an engine."""
from __future__ import annotations

from typing import Any

import jsonpatch

from hub.tables.audience import Audience
from hub.tables.frames import Encoded


class Follower(Audience):
    """An audience fed with deltas rather than views: its view is brought up to date only when a
    welcome needs it, so relaying a delta costs no JSON Patch work."""

    __slots__ = ("base_seq",)

    def __init__(self, seat: int | None, history: int, seq: int, view: dict[str, Any] | None,
                 recent: list[Encoded] | None = None) -> None:
        super().__init__(seat, history)
        self.seq = seq
        self.view = view
        self.base_seq = seq                # the seq `view` is at; deltas after it wait in history
        for d in recent or []:
            self.history.append(d)

    def push(self, seq: int, delta: Encoded) -> bool:
        """Relay one delta; False if it does not follow the last one (the caller resyncs)."""
        if seq <= self.seq:
            return True
        if seq != self.seq + 1:
            return False
        if self.history.maxlen is not None and len(self.history) == self.history.maxlen:
            self._bring_up(self.seq - len(self.history) + 1)  # the oldest is about to be forgotten
        self.history.append(delta)
        self.seq = seq
        self._welcome = None
        for conn in list(self.conns):
            conn.send(delta)
        return True

    def _bring_up(self, upto: int) -> None:
        first = self.seq - len(self.history) + 1
        for i, d in enumerate(self.history):
            s = first + i
            if s > upto:
                break
            if s > self.base_seq:
                self.view = jsonpatch.apply_patch(self.view, d.frame["ops"])
                self.base_seq = s

    def welcome(self, room: str, game: str, resume: int | None) -> list[Encoded]:
        if resume is not None and 0 <= resume <= self.seq and self.seq - resume <= len(self.history):
            head = Encoded({"t": "welcome", "room": room, "game": game, "seat": self.seat,
                            "seq": resume, "view": None})
            need = self.seq - resume
            return [head, *list(self.history)[len(self.history) - need:]] if need else [head]
        self._bring_up(self.seq)
        if self._welcome is None:
            self._welcome = Encoded({"t": "welcome", "room": room, "game": game, "seat": self.seat,
                                     "seq": self.seq, "view": self.view})
        return [self._welcome]
