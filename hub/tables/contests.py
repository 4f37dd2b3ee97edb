"""Timed contests in a room: the edge part stamps each socket, the owner part judges and settles.

The edge part lives where the socket is: it writes each eligible connection its own `contest`
frame, notes the moment the frame was written (T0), and the arrival of `seen` (A) and of the grab
(G), all on this process's monotonic clock, and hands the owner a judged reaction time. The owner
part holds the `Arbiter` of hub.tables.arbitration, which decides when it is safe to settle and who won;
the result is announced as an `event`, then applied to the engine as the hub's own action.
"""
from __future__ import annotations

import dataclasses
import logging
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hub.logs import log
from hub.tables import arbitration as arb
from rules import levels
from rules.engine import HUB, Contest

if TYPE_CHECKING:
    from hub.tables.peer import Peer
    from hub.tables.table import Table

logger = logging.getLogger("hub.tables.contests")

#: A bot's reaction: lognormal, median about 420 ms, so people can beat it and it still takes some cards.
BOT_REACTION_MU, BOT_REACTION_SIGMA = math.log(420), 0.25


def now_ms() -> float:
    return time.monotonic() * 1000


@dataclass
class Offer:
    """One connection's part in one contest."""

    conn: Peer
    seat: int
    nonce: str
    stamp: arb.Stamp = field(default_factory=arb.Stamp)
    tried: bool = False


def offer_to(conn: Peer, seat: int, cid: str, kind: str, commit: str,
             info: Mapping[str, Any]) -> tuple[Offer, dict[str, Any]]:
    """A seat's own offer of a contest, under a nonce of its own, and the `contest` frame that tells
    the seat of it (PROTOCOL.md): one builder for the process that runs the contest and for a relay's."""
    nonce = secrets.token_urlsafe(12)
    frame = {"t": "contest", "id": nonce, "contest": cid, "kind": kind, "commit": commit, **dict(info)}
    return Offer(conn, seat, nonce), frame


def stamp_written(offer: Offer, at: float) -> bool:
    """The moment the offer's frame was written to the seat's socket, and the round trip then
    measured; True only the first time (a frame is written once)."""
    if offer.stamp.t0 is not None:
        return False
    offer.stamp.t0 = at
    offer.stamp.cap = offer.conn.round_trips.cap()
    return True


def grab_refusal(offer: Offer | None, conn: Peer, tried: bool) -> str | None:
    """Why a grab cannot be judged, the same where the room is owned and on an edge; None if it can."""
    if offer is None or offer.conn is not conn:
        return "that is not this connection's open contest"
    if offer.stamp.t0 is None:
        return "the card has not been shown yet"
    if tried:
        return "one try per contest"
    return None


#: How many offers of contests that closed are remembered, to tell a late grab how late it is.
CLOSED_KEPT = 64


class Closed:
    """The offers of contests that closed lately, and when each closed (this process's clock): a
    grab naming one is answered `too_late` with by how much, not a bare `illegal` that reads as a
    bug. A few contests' worth at most: a grab later than that is as good as unknown."""

    def __init__(self) -> None:
        self._at: OrderedDict[str, tuple[Peer, float]] = OrderedDict()

    def closed(self, offers: Iterable[Offer], at: float) -> None:
        for offer in offers:
            if not offer.tried:
                self._at[offer.nonce] = (offer.conn, at)
        while len(self._at) > CLOSED_KEPT:
            self._at.popitem(last=False)

    def late_by(self, conn: Peer, nonce: Any, at: float) -> float | None:
        """How long before `at` the contest of this connection's nonce closed; None if it names none."""
        got = self._at.get(nonce) if isinstance(nonce, str) else None
        if got is None or got[0] is not conn:
            return None
        return max(0.0, at - got[1])


def refused_grab(offer: Offer | None, conn: Peer, tried: bool, closed: Closed, nonce: Any, at: float,
                 act_id: int) -> bool:
    """Answer a grab that cannot count, saying how late it came where it came after the close, and
    whether it was refused: one answer for the process that runs the contest and for a relay's."""
    refusal = grab_refusal(offer, conn, tried)
    if refusal is None:
        return False
    late = closed.late_by(conn, nonce, at) if offer is None else None
    if late is not None:
        too_late(conn, act_id, late)
    else:
        conn.error(act_id, "illegal", refusal)
    return True


def judge_grab(offer: Offer, conn: Peer, at: float, params: arb.Params, stats: arb.ReactionStats) -> arb.Judgement:
    """A grab that counts, judged on its connection's round trips: the offer is tried from now on."""
    offer.tried = True
    offer.stamp.grab = at
    judgement = arb.judge(offer.stamp, conn.round_trips, params, stats, conn.kernel_rtt())
    conn.round_trips.claimed(judgement.excess)
    return judgement


def too_late(conn: Peer, act_id: Any, late_by_ms: float) -> None:
    """The answer to a grab after the window: its own code and how late, for the page to say so."""
    ms = max(1, round(late_by_ms))
    conn.send_frame({"t": "error", "id": act_id, "code": "too_late", "late_by_ms": ms,
                     "message": f"the contest closed {ms} ms before this grab arrived"})


def late_by_judged(judgement: arb.Judgement, params: arb.Params) -> float | None:
    """By how much a judged grab came after its own window (None when within it)."""
    if not judgement.late:
        return None
    return judgement.reaction_ms + judgement.comp_ms - params.window_ms


def allowance(cap: float, conn: Peer, params: arb.Params) -> float:
    """The most network delay a seat can be credited, as its frame is written: its cap, held to its
    kernel's bound where there is one (for the arbiter's settling bound)."""
    bound = arb.kernel_bound(conn.kernel_rtt(), params)
    return cap if bound is None else min(cap, bound)


@dataclass
class Open:
    contest: Contest
    cid: str
    arbiter: arb.Arbiter
    offers: dict[str, Offer] = field(default_factory=dict)
    settle_handle: Any = None
    close_handle: Any = None


class ContestRunner:
    def __init__(self, room: Table) -> None:
        self.room = room
        self.params = arb.Params()
        if room.hub_options.get("grab_window_ms"):
            self.params = dataclasses.replace(self.params, window_ms=float(room.hub_options["grab_window_ms"]))
        self.open: Open | None = None
        self.stats: dict[int, arb.ReactionStats] = {}
        self.closed = Closed()
        self.late_ms = 0.0  # by how much the last try the owner refused as late came after the close
        self._count = 0

    # ---- opening --------------------------------------------------------------------------------

    def check(self) -> None:
        """Called after every change of the room: open the contest the engine declares, if new."""
        contest = self.room.game.contest(self.room.state)
        if contest is None:
            if self.open is not None:
                self._discard()
            return
        if self.open is not None and self.open.contest.key == contest.key:
            return
        if self.open is not None:
            self._discard()
        self._count += 1
        cid = f"{self.room.rid}-{self._count}"
        opened = now_ms()
        arbiter = arb.Arbiter(cid, contest.eligible, opened, self.params, secrets.token_bytes(16))
        self.open = Open(contest, cid, arbiter)
        for seat in contest.eligible:
            s = self.room.seats[seat]
            if s.conn is not None and not s.stand_in:
                self._offer(s.conn, seat)
            elif s.bot or s.stand_in:
                self._bot_try(seat)
        # settle_at() holds the hard close, which moves as frames are written; this is the backstop
        self.open.close_handle = self.room.rooms.loop_call_later((arbiter.latest_close - opened) / 1000, self._settle)
        self._schedule_settle()

    def attached(self, conn: Peer, seat: int | None) -> None:
        """A seat that (re)connects while a contest is open gets its own offer, timed from then."""
        op = self.open
        if op is None or seat is None or seat not in op.contest.eligible:
            return
        if any(o.seat == seat and o.tried for o in op.offers.values()):
            return
        self._offer(conn, seat)

    def _offer(self, conn: Peer, seat: int) -> None:
        op = self.open
        assert op is not None
        offer, frame = offer_to(conn, seat, op.cid, op.contest.kind, op.arbiter.commit, op.contest.info)
        op.offers[offer.nonce] = offer
        conn.send_timed(frame, lambda at: self._written(offer, at))

    def _written(self, offer: Offer, at: float) -> None:
        op = self.open
        if op is not None and offer.nonce in op.offers and stamp_written(offer, at):
            assert offer.stamp.cap is not None
            op.arbiter.written(offer.seat, at, allowance(offer.stamp.cap, offer.conn, self.params))
            self._schedule_settle()

    def _bot_try(self, seat: int) -> None:
        """Bots grab what their own view says they want, after a human-like reaction."""
        op = self.open
        assert op is not None
        room = self.room
        view = room.audiences[f"s{seat}"].view or {}
        if not levels.bot_wants(room.game, view, op.contest.info, room.rng, room.seats[seat].level):
            return
        # never under the floor a human hand is held to: a bot is never judged a false start
        reaction = max(self.params.floor_ms, room.rng.lognormvariate(BOT_REACTION_MU, BOT_REACTION_SIGMA))
        if reaction >= self.params.window_ms:
            return
        key = op.contest.key

        def grab() -> None:
            # the bot tried at opening + reaction: a loop that runs this timer late is the hub's delay
            op = self.open
            if op is not None and op.contest.key == key:
                at = min(now_ms(), op.arbiter.opened + reaction)
                op.arbiter.submit(seat, arb.Judgement(reaction_ms=reaction), at)
                self._schedule_settle()

        room.rooms.loop_call_later(reaction / 1000, grab)

    # ---- what the sockets say ---------------------------------------------------------------------

    def seen(self, conn: Peer, nonce: Any) -> None:
        op = self.open
        offer = op.offers.get(nonce) if op is not None and isinstance(nonce, str) else None
        if offer is not None and offer.conn is conn:
            offer.stamp.on_seen(now_ms())

    def grab(self, conn: Peer, act_id: int, action: dict[str, Any]) -> None:
        at = now_ms()
        op = self.open
        nonce = action.get("contest")
        offer = op.offers.get(nonce) if op is not None and isinstance(nonce, str) else None
        tried = op is not None and offer is not None and any(o.seat == offer.seat and o.tried
                                                             for o in op.offers.values())
        if refused_grab(offer, conn, tried, self.closed, nonce, at, act_id):
            return
        assert op is not None and offer is not None  # an offer exists only while its contest is open
        stats = self.stats.setdefault(offer.seat, arb.ReactionStats(self.params))
        judgement = judge_grab(offer, conn, at, self.params, stats)
        self.room.metrics.contest_tries.labels("kernel" if judgement.kernel else "none").inc()
        if judgement.false_start:
            self.room.metrics.false_starts.inc()
            log(logger, logging.INFO, "false start", room=self.room.rid, seat=offer.seat,
                judged_ms=round(judgement.reaction_ms, 1))
        refused = op.arbiter.submit(offer.seat, judgement, at)
        if refused == "late":
            too_late(conn, act_id, max(0.0, at - op.arbiter.closes_at))
            return
        late = late_by_judged(judgement, self.params)
        if late is not None:  # counted (the result lists it as refused late), answered as what it is
            too_late(conn, act_id, late)
        else:
            conn.send_frame({"t": "ack", "id": act_id})
        self._schedule_settle()

    def written_remote(self, cid: str, seat: int, cap: float | None) -> None:
        """Another process wrote this seat's contest frame: now, on this clock, is no earlier than
        that write, so taking it as T0 can only make the settling bound later (safe) and tighter
        than assuming nothing."""
        op = self.open
        if op is not None and op.cid == cid:
            op.arbiter.written(seat, now_ms(), cap)
            self._schedule_settle()

    def submit_judged(self, cid: str, seat: int, judgement: arb.Judgement) -> str | None:
        """The owner's half when the socket is on another process: that edge stamped and judged the
        grab on its own clock and sends the judged time; None when it counts, else why not."""
        op = self.open
        if op is None or op.cid != cid:
            self.late_ms = 0.0  # settled already: the edge's own book knows when it closed there
            return "late"
        self.late_ms = max(0.0, now_ms() - op.arbiter.closes_at)
        self.room.metrics.contest_tries.labels("kernel" if judgement.kernel else "none").inc()
        if judgement.false_start:
            self.room.metrics.false_starts.inc()
        refused = op.arbiter.submit(seat, judgement, now_ms())
        self._schedule_settle()
        return refused

    # ---- settling ---------------------------------------------------------------------------------

    def _schedule_settle(self) -> None:
        op = self.open
        if op is None:
            return
        now = now_ms()
        if op.arbiter.due(now):
            self._settle()
            return
        when = op.arbiter.settle_at()
        if when is not None:
            if op.settle_handle is not None:
                op.settle_handle.cancel()
            op.settle_handle = self.room.rooms.loop_call_later(max(0.0, when - now) / 1000, self._maybe_settle)

    def _maybe_settle(self) -> None:
        op = self.open
        if op is not None and op.arbiter.due(now_ms()):
            self._settle()
        else:
            self._schedule_settle()

    def _settle(self) -> None:
        op = self.open
        if op is None:
            return
        self._cancel(op)
        self.open = None
        result = op.arbiter.result()
        for seat, judged in result.judged.items():
            self.stats.setdefault(seat, arb.ReactionStats(self.params)).add(judged)
        outcome = "won" if result.winner is not None else "nobody"
        self.room.metrics.contests.labels(outcome).inc()
        event = result.event()
        event["stats"] = {str(s): self.stats[s].summary() for s in sorted(self.stats)}
        self.room.send_event(event)
        log(logger, logging.INFO, "contest settled", room=self.room.rid, contest=op.cid, winner=result.winner,
            judged=event["judged"], refused=event["refused"], stats=event["stats"])
        # fresh round trips right after each contest
        for offer in op.offers.values():
            offer.conn.ping()
        self.room.submit(HUB, {"type": "contest_result", "key": op.contest.key, "winner": result.winner}, by="hub")

    def _discard(self) -> None:
        if self.open is not None:
            self._cancel(self.open)
            self.open = None

    def _cancel(self, op: Open) -> None:
        self.closed.closed(op.offers.values(), now_ms())
        for h in (op.settle_handle, op.close_handle):
            if h is not None:
                h.cancel()

    def close(self) -> None:
        self._discard()

    def player_stats(self) -> dict[str, Any]:
        return {str(seat): st.summary() for seat, st in self.stats.items()}
