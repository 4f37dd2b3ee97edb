"""Judging the fastest fair hand: round trips, reaction times, and who grabbed the card first.

Pure code: no asyncio, no clock, no randomness of its own. Every time is passed in, as float
milliseconds of one monotonic clock (that of the process holding the socket), and the tie-break
secret is passed in too, so the hub and the simulation in bench/fairness.py run this very code.

The measurement
    For one connection and one contest the hub notes three moments on its own clock: T0, when it
    wrote the contest frame; A, when the client's `seen` arrived; G, when the grab arrived. The
    frame goes down once, and both `seen` and the grab answer that one arrival, so

        A - T0 = down + up(seen)            G - T0 = down + reaction + up(grab)

    and G - A = reaction + (up(grab) - up(seen)). The downward delay cancels, and with it any
    asymmetry between the directions; what is left is the jitter between two packets of the same
    connection going up. The judged reaction is R = G - T0 - comp with
    comp = min(A - T0, cap, c_max), which is G - A whenever the `seen` is honest and within the cap.
    Client timestamps are never used.

The cap
    A client could hold back its `seen` to claim a longer path. `cap` is a robust high quantile of
    the connection's recent ping round trips (nearest rank 0.9 of the last 16, so one spike in the
    history is ignored) plus `margin_ms`, never above `c_max_ms`. A client that delays only its
    `seen` by X gains at most cap - (A - T0), about its own jitter plus the margin. One that also
    delays every pong by X raises its cap by X: it gains at most X, and never more than c_max. No
    clock the hub can read tells such a client from one on a slower network; `ReactionStats`
    catches the large delays (below). With no `seen` before the grab, comp is the lowest recent
    round trip (never more than an honest `seen` would give, so skipping `seen` never pays); with
    no ping answered yet the cap is `cold_cap_ms`.

The kernel bound
    Pongs and `seen` are frames the client sends, so it can hold them back; its kernel's TCP
    acknowledgements it cannot, and the kernel of the process holding the socket times those
    (TCP_INFO, hub/edge/tcpinfo.py). Where the hub has that measurement, a `seen` may claim at most
    `kernel_bound` = the lowest kernel round trip plus a margin for honest jitter; one that claims
    more, or no `seen`, is credited the kernel's lowest round trip and no more, and the try is
    marked `bounded` (so are tries whose pongs claim more than the kernel measured). A connection
    whose claims average more than `seeking_share` of the margin is seeking the bound, not meeting
    jitter, and is given only that share. Holding back then buys at most that share, and past it
    nothing at all. Without the measurement (a proxy in front) the rules above stand alone.

False starts
    R < floor_ms (100 ms) is refused as a false start and counted: nobody reacts to a card they
    have not yet been shown faster than that, so such a grab was sent before the card arrived.

Settling (`Arbiter`, one per contest, on the room's owner)
    The arbiter settles as early as it is safe: once no silent eligible seat could still beat or
    tie the best judged time. A silent seat s can still produce R' <= best + bucket only if its grab
    reaches its edge by T0_s + best + bucket + cap_s, so the arbiter waits until that moment plus
    `margin_ms` and `relay_ms` (the owner-to-edge-to-owner delay, 0 in one process) for every
    silent seat, with cap_s = c_max unless the hub tells it the seat's own cap, and T0_s = the
    opening time unless told when that seat's frame was written. Whatever happens, it closes
    `window_ms` after opening. Every eligible seat having tried settles at once.

Ties and the lottery
    Judged times within `bucket_ms` of the best tie. The winner among tied seats (sorted) is the
    one at index int(sha256(secret + cid)) mod their number. The contest frame carries
    commit = sha256(secret) before anyone acts and the result reveals the secret, so every client
    can check that the lottery was fixed in advance and not steered.

Flagging (`ReactionStats`, one per player)
    A player whose judged times stay below human norms (at least `flag_min_tries` tries and a median
    under `human_fast_ms`, or more than `flag_fast_share` of them under it) is flagged for good and
    judged with comp = 0 from then on: raw elapsed time on the hub's clock, which no client can
    shorten. Its false starts are still judged with the whole allowance taken out, so a grab sent on
    receipt of the frame (one round trip after T0) never passes the floor by being flagged.
    Honest reactions (hundreds of ms) never come near; a client that fakes a long path by
    more than the margin of human speed does.
"""
from __future__ import annotations

import hashlib
import math
import statistics
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Params:
    c_max_ms: float = 400.0  # the most network delay that is ever taken out of a grab
    margin_ms: float = 15.0  # added to the round-trip quantile, and to every settling bound
    floor_ms: float = 100.0  # judged faster than this: a false start
    bucket_ms: float = 20.0  # judged times this close to the best tie
    window_ms: float = 1500.0  # hard close after opening, grabs or not
    history: int = 16  # round-trip samples kept per connection
    quantile: float = 0.9  # of those samples, for the cap
    cold_cap_ms: float = 250.0  # the cap before any pong has come back
    relay_ms: float = 0.0  # owner -> edge -> owner delay when they are different processes
    pending_pings: int = 8  # unanswered pings remembered per connection
    human_fast_ms: float = 120.0  # judged reactions under this are not human
    flag_min_tries: int = 8
    flag_fast_share: float = 0.5
    stats_window: int = 32  # recent judged reactions kept per player
    kernel_margin_ms: float = 15.0  # the kernel bound: lowest kernel round trip plus this ...
    kernel_margin_share: float = 0.2  # ... plus this share of it (jitter grows with the path)
    seeking_share: float = 0.5  # a connection whose mean claim over the kernel uses more of the margin
    seeking_min: int = 8  # than this share (over at least this many claims) is given only this share


@dataclass(frozen=True)
class KernelRtt:
    """What the kernel holding a connection's socket measured of its round trip (TCP_INFO), in ms:
    from TCP acknowledgements, which no application can hold back."""

    rtt_ms: float  # smoothed (tcpi_rtt)
    rttvar_ms: float  # its mean deviation (tcpi_rttvar)
    min_rtt_ms: float  # lowest in the kernel's window of minutes (tcpi_min_rtt)


def kernel_bound(kernel: KernelRtt | None, params: Params) -> float | None:
    """The most network delay a connection's `seen` can claim, by its kernel's measurement: the
    lowest round trip plus `kernel_margin_ms` plus `kernel_margin_share` of it (an honest `seen`
    meets the path's jitter, which grows with the path). The smoothed round trip is not used: a
    receiver's delayed acknowledgements (40 ms and more on Linux) inflate it, and a client that
    leaves frames unanswered gets them. None with no measurement (the hub does not hold the
    client's TCP connection)."""
    if kernel is None or kernel.min_rtt_ms <= 0:
        return None
    return kernel.min_rtt_ms * (1 + params.kernel_margin_share) + params.kernel_margin_ms


# --- round trips --------------------------------------------------------------------------------

class RoundTrips:
    """One connection's ping round trips on the hub's clock, and the compensation cap they allow."""

    def __init__(self, params: Params | None = None) -> None:
        self.params = params or Params()
        self._pending: dict[int, float] = {}
        self._samples: deque[float] = deque(maxlen=self.params.history)
        self._cap: float | None = None
        self._excess: deque[float] = deque(maxlen=self.params.history)

    def sent(self, ping_id: int, at: float) -> None:
        if ping_id in self._pending:
            return
        self._pending[ping_id] = at
        while len(self._pending) > self.params.pending_pings:
            self._pending.pop(next(iter(self._pending)))

    def received(self, ping_id: object, at: float) -> float | None:
        """The round trip of an answered ping; None for an unknown, duplicate or odd id."""
        if not isinstance(ping_id, int) or isinstance(ping_id, bool):
            return None
        sent = self._pending.pop(ping_id, None)
        if sent is None or at < sent:
            return None
        sample = at - sent
        self._samples.append(sample)
        self._cap = None
        return sample

    @property
    def samples(self) -> tuple[float, ...]:
        return tuple(self._samples)

    def cap(self) -> float:
        """Robust high quantile of recent round trips plus the margin, bounded by c_max."""
        p = self.params
        if self._cap is None:
            if not self._samples:
                self._cap = min(p.cold_cap_ms, p.c_max_ms)
            else:
                ordered = sorted(self._samples)
                rank = max(0, math.ceil(p.quantile * len(ordered)) - 1)
                self._cap = min(p.c_max_ms, ordered[rank] + p.margin_ms)
        return self._cap

    def floor(self) -> float:
        """The lowest recent round trip (0 with none): what a grab without `seen` is credited."""
        return min(self._samples) if self._samples else 0.0

    def claimed(self, excess: float | None) -> None:
        """Note what a `seen` claimed over the kernel's lowest round trip (`Judgement.excess`)."""
        if excess is not None:
            self._excess.append(excess)

    def typical_excess(self) -> float | None:
        """The mean of the recent claims over the kernel's lowest round trip (each at most the margin,
        so one spike moves it little); None with too few. A mean, not a median: a client could put
        half its claims at the whole margin and keep a median low."""
        if len(self._excess) < self.params.seeking_min:
            return None
        return statistics.fmean(self._excess)


# --- one connection's stamps and its judged reaction --------------------------------------------

@dataclass
class Stamp:
    """T0, A and G of one connection in one contest, on the clock of the process holding it."""

    t0: float | None = None  # the contest frame was written
    seen: float | None = None  # its `seen` arrived
    grab: float | None = None  # its grab arrived
    cap: float | None = None  # the connection's cap when the frame was written, if noted then

    def on_seen(self, at: float) -> bool:
        """Keep the first `seen` that follows the frame and precedes the grab."""
        if self.seen is not None or self.t0 is None or at < self.t0 or self.grab is not None:
            return False
        self.seen = at
        return True


@dataclass(frozen=True)
class Judgement:
    reaction_ms: float  # R, the judged reaction
    comp_ms: float = 0.0  # the network delay taken out
    false_start: bool = False
    late: bool = False  # arrived after the window
    bounded: bool = False  # the seat claimed more delay than its kernel measured, and was held to that
    kernel: bool = False  # judged with a kernel bound (False: the hub cannot see the client's TCP)
    excess: float | None = None  # what its `seen` claimed over the kernel's lowest round trip (for RoundTrips.claimed)


def judge(stamp: Stamp, trips: RoundTrips, params: Params | None = None,
          stats: ReactionStats | None = None, kernel: KernelRtt | None = None) -> Judgement:
    """R = G - T0 - comp, comp = min(A - T0, cap, kernel bound); see the module's docstring for why."""
    p = params or trips.params
    if stamp.t0 is None or stamp.grab is None:
        raise ValueError("a judgement needs the moment the frame was written and the grab arrived")
    cap = min(stamp.cap if stamp.cap is not None else trips.cap(), p.c_max_ms)
    bound = kernel_bound(kernel, p)
    seen = stamp.seen
    has_seen = seen is not None and stamp.t0 <= seen <= stamp.grab
    claimed = max(0.0, seen - stamp.t0 if seen is not None and has_seen else trips.floor())
    elapsed = stamp.grab - stamp.t0
    # its pongs (the cap without its margin) claim a longer path than the kernel measured
    pongs = bound is not None and trips.samples and cap - p.margin_ms > bound
    excess = None
    if kernel is not None and bound is not None and has_seen:
        excess = min(max(0.0, claimed - kernel.min_rtt_ms), bound - kernel.min_rtt_ms)
    seeking = False
    if kernel is not None and bound is not None:
        # a connection whose `seen` typically claims most of the margin is seeking the bound, not
        # meeting jitter (honest claims sit near the kernel's lowest round trip, their mean well
        # inside the margin): it is given only part of the margin
        typical = trips.typical_excess()
        part = (bound - kernel.min_rtt_ms) * p.seeking_share
        if typical is not None and typical > part:
            bound, seeking = kernel.min_rtt_ms + part, True
    allowance = cap if bound is None else min(cap, bound)
    if kernel is not None and bound is not None and (claimed > bound or not has_seen):
        # a `seen` that claims more than the bound, or none: credited the kernel's own lowest round
        # trip and no more, so holding it back past the bound buys nothing at all
        claim = min(claimed, kernel.min_rtt_ms)
        bounded = bool(pongs) or claimed > bound
    else:
        claim, bounded = claimed, bool(pongs) or seeking
    if stats is not None and stats.flagged:
        # no allowance at all; and a false start is judged as if the whole allowance were given, so
        # a grab sent on receipt of the frame stays one however long it has been flagged
        comp = 0.0
        false_start = elapsed - allowance < p.floor_ms
    else:
        comp = min(claim, allowance)
        false_start = elapsed - comp < p.floor_ms
    reaction = elapsed - comp
    return Judgement(reaction, comp, false_start, elapsed > p.window_ms, bounded, bound is not None, excess)


# --- one contest, on the room's owner -----------------------------------------------------------

def lottery(secret: bytes, cid: str, n: int) -> int:
    """The index among n tied seats (sorted) that the secret picks: sha256(secret + cid) mod n."""
    return int.from_bytes(hashlib.sha256(secret + cid.encode()).digest(), "big") % n


def commitment(secret: bytes) -> str:
    return hashlib.sha256(secret).hexdigest()


@dataclass(frozen=True)
class Outcome:
    cid: str
    winner: int | None
    judged: dict[int, float]  # each seat's first try, judged (refused ones included)
    refused: dict[int, str]  # false_start, late, not_eligible, duplicate
    tied: tuple[int, ...]
    secret: str  # hex
    commit: str
    bounded: tuple[int, ...] = ()  # seats whose network allowance was held to their kernel's bound

    def event(self) -> dict[str, Any]:
        """The protocol's contest_result event (times in whole ms), plus the tied seats."""
        return {"t": "event", "kind": "contest_result", "contest": self.cid, "winner": self.winner,
                "judged": {str(s): round(ms) for s, ms in self.judged.items()},
                "refused": {str(s): why for s, why in self.refused.items()},
                "tied": list(self.tied), "bounded": list(self.bounded), "secret": self.secret}


class Arbiter:
    """One open contest: collects judged tries, knows when it is safe to settle, picks the winner."""

    def __init__(self, cid: str, eligible: Iterable[int], opened: float, params: Params | None,
                 secret: bytes, caps: Mapping[int, float] | None = None) -> None:
        if not isinstance(secret, bytes) or len(secret) < 16:
            raise ValueError("the tie-break secret must be at least 16 random bytes")
        self.cid = cid
        self.eligible = tuple(sorted(set(eligible)))
        self.opened = opened
        self.params = params or Params()
        self._secret = secret
        self.commit = commitment(secret)
        self._caps = {s: min(c, self.params.c_max_ms) for s, c in (caps or {}).items()}
        self._t0: dict[int, float] = {}
        self.tries: dict[int, float] = {}
        self.accepted: dict[int, float] = {}
        self.refused: dict[int, str] = {}
        self.bounded: set[int] = set()
        self._last = opened
        self._outcome: Outcome | None = None

    @property
    def closes_at(self) -> float:
        """The hard close: `window_ms` after the last eligible seat's frame was written (no later than
        `c_max_ms` after opening), so a seat whose frame left late (a busy loop, a hop through Redis to
        its edge) still has the whole window that its own lateness check (`judge`) allows it."""
        p = self.params
        shown = max(self._t0.values(), default=self.opened)
        return min(max(shown, self.opened), self.opened + p.c_max_ms) + p.window_ms + p.relay_ms

    @property
    def latest_close(self) -> float:
        """No frame written later can push the hard close past this."""
        p = self.params
        return self.opened + p.c_max_ms + p.window_ms + p.relay_ms

    def written(self, seat: int, at: float, cap: float | None = None) -> None:
        """Optional: when a seat's frame was written (and its cap), for a tighter settling bound."""
        if seat in self.eligible:
            self._t0[seat] = max(at, self._t0.get(seat, at))
            if cap is not None:
                self._caps[seat] = min(cap, self.params.c_max_ms)

    def submit(self, seat: int, judgement: Judgement, now: float) -> str | None:
        """Record a try; None when it counts, else why it was refused."""
        if self._outcome is not None or now > self.closes_at:
            return "late"  # the result may already be out: nothing changes any more
        if seat not in self.eligible:
            self.refused.setdefault(seat, "not_eligible")
            return "not_eligible"
        if seat in self.tries:
            self.refused.setdefault(seat, "duplicate")
            return "duplicate"
        self.tries[seat] = judgement.reaction_ms
        if judgement.bounded:
            self.bounded.add(seat)
        self._last = max(self._last, now)
        reason = "false_start" if judgement.false_start else "late" if judgement.late else None
        if reason is not None:
            self.refused[seat] = reason
        else:
            self.accepted[seat] = judgement.reaction_ms
        return reason

    def settle_at(self) -> float:
        """The moment `due` turns true if no further try arrives."""
        p = self.params
        silent = [s for s in self.eligible if s not in self.tries]
        if not silent:
            return self._last
        if not self.accepted:
            return self.closes_at
        best = min(self.accepted.values())
        bound = max(self._t0.get(s, self.opened) + best + p.bucket_ms + self._caps.get(s, p.c_max_ms)
                    for s in silent) + p.margin_ms + p.relay_ms
        return min(bound, self.closes_at)

    def due(self, now: float) -> bool:
        return self._outcome is not None or now >= self.settle_at()

    def result(self) -> Outcome:
        """Fix the outcome (once; later tries are late): fastest judged time, ties by lottery."""
        if self._outcome is None:
            tied: tuple[int, ...] = ()
            winner = None
            if self.accepted:
                best = min(self.accepted.values())
                tied = tuple(sorted(s for s, r in self.accepted.items() if r - best <= self.params.bucket_ms))
                winner = tied[lottery(self._secret, self.cid, len(tied))]
            self._outcome = Outcome(self.cid, winner, dict(sorted(self.tries.items())),
                                    dict(sorted(self.refused.items())), tied, self._secret.hex(), self.commit,
                                    tuple(sorted(self.bounded)))
        return self._outcome


# --- per player ---------------------------------------------------------------------------------

@dataclass
class ReactionStats:
    """A player's recent judged reactions, and whether they stay below human norms (sticky)."""

    params: Params = field(default_factory=Params)
    tries: int = 0
    flagged: bool = False
    _recent: deque[float] = field(default_factory=deque)

    def add(self, reaction_ms: float) -> None:
        p = self.params
        self.tries += 1
        self._recent.append(reaction_ms)
        while len(self._recent) > p.stats_window:
            self._recent.popleft()
        if not self.flagged and self.tries >= p.flag_min_tries and (
                self.median < p.human_fast_ms or self.fast_share > p.flag_fast_share):
            self.flagged = True

    @property
    def median(self) -> float:
        return statistics.median(self._recent) if self._recent else math.inf

    @property
    def fast_share(self) -> float:
        if not self._recent:
            return 0.0
        return sum(1 for r in self._recent if r < self.params.human_fast_ms) / len(self._recent)

    def summary(self) -> dict[str, Any]:
        return {"tries": self.tries, "median_ms": None if not self._recent else round(self.median, 1),
                "fast_share": round(self.fast_share, 3), "flagged": self.flagged}
