"""The edge half of timed contests when the room's owner is another process (hub.tables.contests).

Timing is taken where the socket is, on this process's clock: the moment each contest frame was
written (T0), its `seen` (A), the grab (G), and this connection's round trips. From them this
process judges the grab (hub.tables.arbitration.judge) and sends the owner only the judged reaction time,
so no two clocks ever need to agree. The owner compares judged times, settles, and announces the
result as an event that every process relays.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from hub.tables import arbitration as arb
from hub.tables.contests import (
    Closed,
    Offer,
    allowance,
    judge_grab,
    late_by_judged,
    now_ms,
    offer_to,
    refused_grab,
    stamp_written,
    too_late,
)

if TYPE_CHECKING:
    from hub.tables.peer import Peer


class Commands(Protocol):
    def send_command(self, rid: str, msg: dict[str, Any]) -> None: ...


class Relay(Protocol):
    """The relay of the room on this process (hub/stores/redis/replica.py), as its contests see it."""

    rid: str
    holders: dict[int, Peer]

    @property
    def store(self) -> Commands: ...

    def forward(self, conn: Peer | None, act_id: int | None, msg: dict[str, Any]) -> None: ...


class EdgeContests:
    def __init__(self, replica: Relay) -> None:
        self.replica = replica
        self.open: dict[str, Any] | None = None
        self.offers: dict[str, Offer] = {}
        self.tried: set[int] = set()
        self.flagged: set[int] = set()  # seats the owner's statistics flag as faster than human
        self.closed = Closed()

    def remote(self, msg: dict[str, Any]) -> None:
        """The owner opened or closed a contest."""
        if msg.get("op") == "open":
            self.open, self.offers, self.tried = msg, {}, set()
            for seat in msg.get("eligible") or []:
                conn = self.replica.holders.get(seat)
                if conn is not None:
                    self._offer(conn, seat)
        elif self.open is not None and msg.get("cid") == self.open.get("cid"):
            self._close()

    def event(self, frame: dict[str, Any], shown: float | None = None) -> None:
        """A contest's result went by (handed to this process's connections at `shown`, its ms
        clock): fresh round trips for whoever was offered it."""
        if frame.get("kind") != "contest_result":
            return
        for seat, st in (frame.get("stats") or {}).items():
            if isinstance(st, dict) and st.get("flagged"):
                self.flagged.add(int(seat))
        if self.open is not None and frame.get("contest") == self.open.get("cid"):
            for offer in self.offers.values():
                offer.conn.ping()
            self._close(shown)

    def _close(self, at: float | None = None) -> None:
        """A grab after this is answered with how late it came, from `at` (now if not given): the
        moment the result left for the connections, which no page can have seen before."""
        self.closed.closed(self.offers.values(), now_ms() if at is None else at)
        self.open, self.offers, self.tried = None, {}, set()

    def attached(self, conn: Peer, seat: int | None) -> None:
        op = self.open
        if op is not None and seat is not None and seat in (op.get("eligible") or []) and seat not in self.tried:
            self._offer(conn, seat)

    def _offer(self, conn: Peer, seat: int) -> None:
        op = self.open
        assert op is not None
        offer, frame = offer_to(conn, seat, op["cid"], op["kind"], op["commit"], op.get("info") or {})
        self.offers[offer.nonce] = offer

        def written(at: float) -> None:
            if stamp_written(offer, at):
                assert offer.stamp.cap is not None
                # the owner's settling bound for this seat: written no later than this notice arrives
                cap = allowance(offer.stamp.cap, conn, arb.Params())
                self.replica.store.send_command(self.replica.rid, {"k": "written", "cid": op["cid"], "s": seat,
                                                                    "cap": cap})

        conn.send_timed(frame, written)

    def seen(self, conn: Peer, nonce: Any) -> None:
        offer = self.offers.get(nonce) if isinstance(nonce, str) else None
        if offer is not None and offer.conn is conn:
            offer.stamp.on_seen(now_ms())

    def grab(self, conn: Peer, act_id: int, action: dict[str, Any]) -> None:
        at = now_ms()
        op, nonce = self.open, action.get("contest")
        offer = self.offers.get(nonce) if op is not None and isinstance(nonce, str) else None
        if refused_grab(offer, conn, offer is not None and offer.seat in self.tried, self.closed, nonce, at, act_id):
            return
        assert op is not None and offer is not None  # an offer exists only while its contest is open
        self.tried.add(offer.seat)
        params = arb.Params(window_ms=float(op.get("window_ms") or arb.Params().window_ms))
        j = judge_grab(offer, conn, at, params, arb.ReactionStats(params, flagged=offer.seat in self.flagged))
        late = late_by_judged(j, params)
        if late is not None:  # the owner still counts it (refused late); this socket hears how late now
            too_late(conn, act_id, late)
        answered = late is not None
        msg = {"k": "grab", "cid": op["cid"], "s": offer.seat, "r": j.reaction_ms, "c": j.comp_ms,
               "fs": j.false_start, "late": j.late, "b": j.bounded, "kb": j.kernel}
        self.replica.forward(None if answered else conn, None if answered else act_id, msg)
