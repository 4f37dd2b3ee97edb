"""An audience: everyone who sees one view (one seat, or all spectators together).

The view of an audience is computed, diffed and encoded once per change, however many connections
watch it; each delta is kept for a while so that a dropped connection can resume without a gap.
"""
from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import jsonpatch

from hub.tables.delta import Packs, Shared, diff_view, json_equal, make_patch, packs_of
from hub.tables.frames import Encoded

if TYPE_CHECKING:
    from hub.tables.peer import Peer

log = logging.getLogger("hub.tables.audience")


def audience_key(seat: int | None) -> str:
    return "spec" if seat is None else f"s{seat}"


def diff(old: Any, new: Any, verify: bool = False) -> list[dict[str, Any]]:
    """RFC 6902 operations from old to new (hub/tables/delta.py); a whole-document replace if they ever
    failed to reproduce the new view, which `verify` checks strictly (a bool is no number there)."""
    return checked(old, new, make_patch(old, new), verify)


def checked(old: Any, new: Any, ops: list[dict[str, Any]], verify: bool) -> list[dict[str, Any]]:
    if verify:
        try:
            ok = json_equal(jsonpatch.apply_patch(old, ops), new)
        except jsonpatch.JsonPatchException:
            ok = False
        if not ok:
            log.error("diff did not reproduce the new view; sending a full replace")
            return [{"op": "replace", "path": "", "value": new}]
    return ops


class Audience:
    __slots__ = ("key", "seat", "seq", "view", "history", "legal_at", "conns", "stale", "_welcome", "_packs",
                 "_packed")

    def __init__(self, seat: int | None, history: int) -> None:
        self.key = audience_key(seat)
        self.seat = seat
        self.seq = 0
        self.view: dict[str, Any] | None = None
        self.history: deque[Encoded] = deque(maxlen=history)
        # seq -> the legal list of that view, to tell `stale` from `illegal`
        self.legal_at: deque[tuple[int, list[Any]]] = deque(maxlen=64)
        self.conns: set[Peer] = set()
        # a room rebuilt without its views (hub.tables.persist) knows this audience's seq but not what
        # it was shown: its next view goes out whole, as the next seq, so the log stays gapless
        self.stale = False
        self._welcome: Encoded | None = None
        self._packs: Packs = {}
        self._packed: dict[str, Any] | None = None  # the view `_packs` encodes (`view` may be set directly)

    def update(self, view: dict[str, Any], verify: bool = False, shared: Shared | None = None) -> Encoded | None:
        """Take the new view; return the encoded delta, or None when nothing this audience sees moved.
        `shared` carries what the room's other audiences worked out in the same change."""
        if self.view is None:
            if not self.stale:
                self.view = view
                self.legal_at.append((self.seq, view.get("legal") or []))
                return None
            self.stale = False
            return self._sent([{"op": "replace", "path": "", "value": view}], view)
        if self._packed is not self.view:
            self._packs, self._packed = packs_of(self.view), self.view
        ops, packs = diff_view(self.view, view, self._packs, Shared() if shared is None else shared)
        ops = checked(self.view, view, ops, verify)
        if not ops:
            return None
        return self._sent(ops, view, packs)

    def _sent(self, ops: list[dict[str, Any]], view: dict[str, Any], packs: Packs | None = None) -> Encoded:
        self.seq += 1
        self.view = view
        if packs is None:
            self._packs, self._packed = {}, None
        else:
            self._packs, self._packed = packs, view
        self._welcome = None
        if self.seat is not None:
            self.legal_at.append((self.seq, view.get("legal") or []))
        delta = Encoded({"t": "delta", "seq": self.seq, "ops": ops})
        if self.history:
            self.history[-1].compact()  # broadcast by now (its queued sends take the bytes)
        self.history.append(delta)
        return delta

    def was_legal(self, seq: int, action: Any) -> bool:
        return any(s == seq and action in legal for s, legal in self.legal_at)

    def welcome(self, room: str, game: str, resume: int | None) -> list[Encoded]:
        """The frames that bring a connection to this audience's current view, nothing missed or doubled."""
        if resume is not None and 0 <= resume <= self.seq:
            need = self.seq - resume  # the history ends at self.seq, one delta per seq
            if need <= len(self.history):
                have = list(self.history)[len(self.history) - need:] if need else []
                head = Encoded({"t": "welcome", "room": room, "game": game, "seat": self.seat,
                                "seq": resume, "view": None})
                return [head, *have]
        if self._welcome is None:
            self._welcome = Encoded({"t": "welcome", "room": room, "game": game, "seat": self.seat,
                                     "seq": self.seq, "view": self.view})
        return [self._welcome]

    def release(self) -> None:
        """Let go of the view and the deltas once the room is closed. A room sits in reference cycles
        (its clock, its contests), which only the collector's whole walk reclaims (hub/run/gcpolicy.py);
        without this its views and history, most of its memory, would wait with it."""
        self.view = None
        self._welcome = None
        self._packs, self._packed = {}, None
        self.history.clear()
        self.legal_at.clear()
        self.conns.clear()

    def broadcast(self, frames: Iterable[Encoded]) -> None:
        for frame in frames:
            for conn in tuple(self.conns):
                conn.send(frame)
