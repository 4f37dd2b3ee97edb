"""hub.tables.arbitration, pure: judging arithmetic, caps, false starts, ties, settling. No server, no clock."""
from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.tables.arbitration import (
    Arbiter,
    Judgement,
    KernelRtt,
    Params,
    ReactionStats,
    RoundTrips,
    Stamp,
    judge,
    kernel_bound,
    lottery,
)

P = Params()
SECRET = bytes(range(16))


def trips_with(samples: list[float], params: Params = P) -> RoundTrips:
    rt = RoundTrips(params)
    at = 0.0
    for i, s in enumerate(samples):
        rt.sent(i, at)
        assert rt.received(i, at + s) == pytest.approx(s)
        at += 5000
    return rt


def ok(r: float) -> Judgement:
    return Judgement(reaction_ms=r)


# --- round trips --------------------------------------------------------------------------------

def test_round_trips_ignore_unknown_duplicate_and_odd_ids() -> None:
    rt = RoundTrips(P)
    rt.sent(1, 100.0)
    assert rt.received(2, 150.0) is None
    assert rt.received(True, 150.0) is None
    assert rt.received("1", 150.0) is None
    assert rt.received(1, 160.0) == 60.0
    assert rt.received(1, 170.0) is None  # duplicate
    rt.sent(3, 200.0)
    assert rt.received(3, 199.0) is None  # before it was sent: not a sample
    assert rt.samples == (60.0,)


def test_unanswered_pings_and_history_are_bounded() -> None:
    rt = RoundTrips(P)
    for i in range(P.pending_pings + 3):
        rt.sent(i, float(i))
    assert rt.received(0, 50.0) is None  # forgotten, the oldest
    assert rt.received(P.pending_pings + 2, 60.0) is not None
    many = trips_with([float(i) for i in range(40)])
    assert len(many.samples) == P.history and many.samples[0] == 40 - P.history


def test_cap_is_a_robust_high_quantile_plus_margin_bounded_by_c_max() -> None:
    assert RoundTrips(P).cap() == P.cold_cap_ms
    steady = [50.0 + i for i in range(15)] + [900.0]  # one spike among sixteen
    assert trips_with(steady).cap() == 64.0 + P.margin_ms  # the spike is ignored
    assert trips_with([80.0]).cap() == 95.0
    assert trips_with([600.0] * 16).cap() == P.c_max_ms
    assert trips_with([70.0, 30.0, 50.0]).floor() == 30.0
    assert RoundTrips(P).floor() == 0.0


# --- judging ------------------------------------------------------------------------------------

def test_judged_reaction_is_the_grab_minus_the_frame_minus_the_seen_delay() -> None:
    rt = trips_with([80.0] * 8)  # cap 95
    j = judge(Stamp(t0=1000.0, seen=1080.0, grab=1330.0), rt, P)
    assert (j.reaction_ms, j.comp_ms, j.false_start, j.late) == (250.0, 80.0, False, False)
    capped = judge(Stamp(t0=1000.0, seen=1150.0, grab=1400.0), rt, P)
    assert capped.comp_ms == 95.0 and capped.reaction_ms == 305.0
    noted = judge(Stamp(t0=1000.0, seen=1150.0, grab=1400.0, cap=60.0), rt, P)
    assert noted.comp_ms == 60.0  # the cap noted when the frame was written wins
    assert judge(Stamp(t0=0.0, seen=500.0, grab=900.0), trips_with([600.0] * 16), P).comp_ms == P.c_max_ms


def test_no_seen_before_the_grab_earns_only_the_lowest_round_trip() -> None:
    rt = trips_with([90.0, 60.0, 75.0])
    assert judge(Stamp(t0=0.0, grab=400.0), rt, P).comp_ms == 60.0
    assert judge(Stamp(t0=0.0, seen=500.0, grab=400.0), rt, P).comp_ms == 60.0  # seen after grab
    assert judge(Stamp(t0=100.0, seen=50.0, grab=400.0), rt, P).comp_ms == 60.0  # seen before frame
    assert judge(Stamp(t0=0.0, grab=400.0), RoundTrips(P), P).comp_ms == 0.0


def test_stamp_keeps_the_first_seen_between_frame_and_grab() -> None:
    s = Stamp(t0=10.0)
    assert not s.on_seen(5.0) and s.on_seen(40.0) and not s.on_seen(50.0) and s.seen == 40.0
    late = Stamp(t0=10.0, grab=30.0)
    assert not late.on_seen(40.0)
    with pytest.raises(ValueError):
        judge(Stamp(), RoundTrips(P), P)


def test_false_starts_and_late_grabs() -> None:
    rt = trips_with([40.0] * 4)
    fast = judge(Stamp(t0=0.0, seen=40.0, grab=130.0), rt, P)
    assert fast.reaction_ms == 90.0 and fast.false_start
    assert not judge(Stamp(t0=0.0, seen=40.0, grab=140.0), rt, P).false_start  # exactly the floor
    assert judge(Stamp(t0=0.0, seen=40.0, grab=P.window_ms + 1), rt, P).late


def test_flagged_players_lose_all_compensation() -> None:
    stats = ReactionStats(P)
    stats.flagged = True
    j = judge(Stamp(t0=0.0, seen=80.0, grab=330.0), trips_with([80.0] * 4), P, stats)
    assert j.comp_ms == 0.0 and j.reaction_ms == 330.0


@settings(max_examples=300, deadline=None)
@given(rtt=st.floats(5, 350), jitter=st.floats(0, 30), reaction=st.floats(150, 600),
       delay=st.floats(0, 2000), pongs_too=st.booleans())
def test_a_client_that_delays_seen_by_x_gains_at_most_min_x_and_c_max(
        rtt: float, jitter: float, reaction: float, delay: float, pongs_too: bool) -> None:
    honest_rt = trips_with([rtt + jitter * (i % 3) for i in range(16)])
    cheat_rt = trips_with([rtt + jitter * (i % 3) + (delay if pongs_too else 0.0) for i in range(16)])
    t0, seen, grab = 1000.0, 1000.0 + rtt, 1000.0 + rtt + reaction
    honest = judge(Stamp(t0=t0, seen=seen, grab=grab), honest_rt, P)
    cheat = judge(Stamp(t0=t0, seen=seen + delay, grab=max(grab, seen + delay)), cheat_rt, P)
    if seen + delay <= grab:  # the grab itself is never delayed by the cheat
        gain = honest.reaction_ms - cheat.reaction_ms
        assert gain <= min(delay, P.c_max_ms) + 1e-9
        if not pongs_too:
            assert gain <= honest_rt.cap() - rtt + 1e-9


# --- the kernel bound -----------------------------------------------------------------------------

def test_kernel_bound_is_the_lowest_round_trip_plus_a_margin_that_grows_with_it() -> None:
    assert kernel_bound(None, P) is None
    assert kernel_bound(KernelRtt(130.0, 8.0, 0.0), P) is None  # nothing measured yet
    assert kernel_bound(KernelRtt(130.0, 8.0, 100.0), P) == pytest.approx(
        100.0 * (1 + P.kernel_margin_share) + P.kernel_margin_ms)


def test_an_honest_seen_within_the_kernel_bound_is_credited_as_before() -> None:
    rt = trips_with([80.0] * 8)
    kernel = KernelRtt(85.0, 3.0, 78.0)
    j = judge(Stamp(t0=1000.0, seen=1082.0, grab=1332.0), rt, P, kernel=kernel)
    assert (j.reaction_ms, j.comp_ms, j.bounded, j.kernel) == (250.0, 82.0, False, True)
    unbounded = judge(Stamp(t0=1000.0, seen=1082.0, grab=1332.0), rt, P)
    assert unbounded.reaction_ms == 250.0 and not unbounded.kernel


@settings(max_examples=300, deadline=None)
@given(rtt=st.floats(5, 350), reaction=st.floats(150, 600), hold=st.floats(0, 2000),
       hold_seen=st.floats(0, 1), pongs_too=st.booleans())
def test_with_a_kernel_bound_holding_back_pongs_and_seen_gains_at_most_the_margin(
        rtt: float, reaction: float, hold: float, hold_seen: float, pongs_too: bool) -> None:
    kernel = KernelRtt(rtt, rtt / 20, rtt)
    honest_rt = trips_with([rtt] * 16)
    cheat_rt = trips_with([rtt + (hold if pongs_too else 0.0)] * 16)
    t0, seen, grab = 1000.0, 1000.0 + rtt, 1000.0 + rtt + reaction
    held = hold * hold_seen
    honest = judge(Stamp(t0=t0, seen=seen, grab=grab), honest_rt, P, kernel=kernel)
    cheat = judge(Stamp(t0=t0, seen=seen + held, grab=max(grab, seen + held)), cheat_rt, P, kernel=kernel)
    bound = kernel_bound(kernel, P)
    assert bound is not None
    gain = honest.reaction_ms - cheat.reaction_ms
    assert gain <= bound - rtt + 1e-9  # the margin at most, whatever the hold
    if held > bound - rtt:  # a seen held past the bound is credited the kernel's lowest round trip
        assert gain <= 1e-9 and cheat.bounded
    if pongs_too and cheat_rt.cap() - P.margin_ms > bound:
        assert cheat.bounded  # its pongs claim more than the kernel measured: the result says so


def test_a_connection_whose_claims_use_most_of_the_margin_gets_only_part_of_it() -> None:
    rtt = 120.0
    kernel = KernelRtt(rtt, 4.0, rtt)
    bound = kernel_bound(kernel, P)
    assert bound is not None
    margin = bound - rtt
    # honest: claims near the kernel's round trip, one in eight a large spike; never cut
    honest = trips_with([rtt] * 16)
    for i in range(40):
        claim = rtt + (300.0 if i % 8 == 7 else 2.0)
        j = judge(Stamp(t0=0.0, seen=claim, grab=claim + 250.0), honest, P, kernel=kernel)
        honest.claimed(j.excess)
        if i % 8 != 7:
            assert j.comp_ms == claim and not j.bounded
    # a liar holding each seen to just under the bound: credited until its mean claim shows it
    liar = trips_with([rtt + 60.0] * 16)  # its pongs held too, so the ping cap does not stop it first
    comps = []
    for _ in range(40):
        claim = bound - 1.0
        j = judge(Stamp(t0=0.0, seen=claim, grab=claim + 250.0), liar, P, kernel=kernel)
        liar.claimed(j.excess)
        comps.append(j.comp_ms)
    assert comps[0] == bound - 1.0
    assert all(c == rtt for c in comps[P.seeking_min:])  # past the cut part: the kernel's round trip
    # holding to just under the part instead is credited that part and no more
    part = rtt + margin * P.seeking_share
    j = judge(Stamp(t0=0.0, seen=part - 1.0, grab=part + 249.0), trips_with([rtt + 60.0] * 16), P, kernel=kernel)
    assert j.comp_ms == part - 1.0


def test_a_grab_on_receipt_is_a_false_start_flagged_or_not() -> None:
    rtt = 120.0
    kernel = KernelRtt(rtt, 4.0, rtt)
    for pong_hold in (0.0, 300.0):
        rt = trips_with([rtt + pong_hold] * 16)
        for flagged in (False, True):
            stats = ReactionStats(P)
            stats.flagged = flagged
            for seen in (1000.0 + rtt, None):  # a seen sent with the grab, or none
                j = judge(Stamp(t0=1000.0, seen=seen, grab=1000.0 + rtt + 2.0), rt, P, stats, kernel)
                assert j.false_start, (pong_hold, flagged, seen)
            # without a kernel bound (a proxy in front) too: the allowance is then the ping cap
            assert judge(Stamp(t0=1000.0, seen=1000.0 + rtt, grab=1000.0 + rtt + 2.0), rt, P, stats).false_start
    # a flagged player who really reacts is still judged on its raw elapsed time
    stats = ReactionStats(P)
    stats.flagged = True
    j = judge(Stamp(t0=0.0, seen=rtt, grab=rtt + 250.0), trips_with([rtt] * 16), P, stats, kernel)
    assert not j.false_start and j.reaction_ms == rtt + 250.0


def test_the_result_lists_the_seats_held_to_the_bound() -> None:
    a = Arbiter("room-9", [0, 1], 0.0, P, SECRET)
    a.submit(0, Judgement(reaction_ms=250.0, bounded=True, kernel=True), 300.0)
    a.submit(1, Judgement(reaction_ms=260.0, kernel=True), 310.0)
    event = a.result().event()
    assert event["bounded"] == [0] and a.result().bounded == (0,)


# --- the arbiter --------------------------------------------------------------------------------

def test_commit_is_the_hash_of_the_secret_revealed_in_the_result() -> None:
    a = Arbiter("room-1", [0, 1], 0.0, P, SECRET)
    assert a.commit == hashlib.sha256(SECRET).hexdigest()
    out = a.result()
    assert out.secret == SECRET.hex() and hashlib.sha256(bytes.fromhex(out.secret)).hexdigest() == a.commit
    with pytest.raises(ValueError):
        Arbiter("x", [0], 0.0, P, b"short")


def test_the_fastest_judged_time_wins() -> None:
    a = Arbiter("c", [0, 1, 2], 0.0, P, SECRET)
    assert a.submit(0, ok(300.0), 350.0) is None
    assert a.submit(2, ok(240.0), 400.0) is None
    assert a.submit(1, ok(400.0), 480.0) is None
    out = a.result()
    assert out.winner == 2 and out.judged == {0: 300.0, 1: 400.0, 2: 240.0} and out.tied == (2,)
    assert out.refused == {}


def test_ties_within_a_bucket_go_to_a_lottery_fixed_by_the_secret() -> None:
    winners = set()
    for k in range(24):
        secret = hashlib.sha256(bytes([k])).digest()[:16]
        a = Arbiter("cid-7", [3, 1, 5], 0.0, P, secret)
        a.submit(5, ok(250.0), 300.0)
        a.submit(1, ok(250.0 + P.bucket_ms), 320.0)  # the edge of the bucket still ties
        a.submit(3, ok(250.0 + P.bucket_ms + 0.5), 330.0)  # just outside
        out = a.result()
        assert out.tied == (1, 5)
        assert out.winner == (1, 5)[lottery(secret, "cid-7", 2)]
        expect = int.from_bytes(hashlib.sha256(secret + b"cid-7").digest(), "big") % 2
        assert out.winner == (1, 5)[expect]
        again = Arbiter("cid-7", [1, 3, 5], 0.0, P, secret)
        again.submit(1, ok(260.0), 1.0)
        again.submit(5, ok(255.0), 2.0)
        again.submit(3, ok(900.0), 3.0)
        assert again.result().winner == out.winner  # the order tries came in does not matter
        winners.add(out.winner)
    assert winners == {1, 5}


def test_refusals_are_counted_and_never_win() -> None:
    a = Arbiter("c", [0, 1, 2], 0.0, P, SECRET)
    assert a.submit(0, Judgement(80.0, false_start=True), 100.0) == "false_start"
    assert a.submit(0, ok(250.0), 300.0) == "duplicate"  # one try per contest
    assert a.submit(9, ok(200.0), 250.0) == "not_eligible"
    assert a.submit(1, Judgement(300.0, late=True), 1400.0) == "late"
    assert a.submit(2, ok(350.0), 400.0) is None
    assert a.submit(2, ok(150.0), 410.0) == "duplicate"
    out = a.result()
    assert out.winner == 2
    assert out.refused == {0: "false_start", 1: "late", 2: "duplicate", 9: "not_eligible"}
    assert out.judged == {0: 80.0, 1: 300.0, 2: 350.0}
    assert a.submit(1, ok(120.0), 420.0) == "late" and a.result() is out  # fixed once given
    event = out.event()
    assert json.loads(json.dumps(event)) == event
    assert event["judged"] == {"0": 80, "1": 300, "2": 350} and event["winner"] == 2


def test_settles_as_soon_as_no_silent_seat_could_still_beat_the_best() -> None:
    a = Arbiter("c", [0, 1, 2], 0.0, P, SECRET)
    assert not a.due(0.0) and a.settle_at() == P.window_ms
    a.submit(0, ok(250.0), 500.0)
    bound = 250.0 + P.bucket_ms + P.c_max_ms + P.margin_ms
    assert a.settle_at() == bound
    assert not a.due(bound - 0.01) and a.due(bound)
    a.submit(1, ok(200.0), 600.0)  # a better try lowers the bound
    assert a.settle_at() == 200.0 + P.bucket_ms + P.c_max_ms + P.margin_ms
    a.submit(2, ok(500.0), 700.0)
    assert a.settle_at() == 700.0 and a.due(700.0)  # everyone tried: settle at once
    assert a.result().winner == 1


def test_known_caps_frame_times_and_relay_tighten_or_widen_the_bound() -> None:
    p = Params(relay_ms=5.0)
    a = Arbiter("c", [0, 1, 2], 100.0, p, SECRET, caps={1: 60.0, 2: 900.0})
    a.written(1, 103.0)
    a.written(2, 101.0)
    a.submit(0, ok(240.0), 400.0)
    assert a.settle_at() == max(103.0 + 240 + p.bucket_ms + 60.0, 101.0 + 240 + p.bucket_ms + p.c_max_ms) \
        + p.margin_ms + p.relay_ms
    b = Arbiter("c", [0, 1], 100.0, p, SECRET, caps={1: 60.0})
    b.written(1, 103.0)
    b.submit(0, ok(240.0), 400.0)
    assert b.settle_at() == 103.0 + 240 + p.bucket_ms + 60.0 + p.margin_ms + p.relay_ms


def test_hard_close_after_the_window() -> None:
    a = Arbiter("c", [0, 1], 10.0, P, SECRET)
    a.submit(0, Judgement(50.0, false_start=True), 80.0)
    assert not a.due(10.0 + P.window_ms - 1) and a.due(10.0 + P.window_ms)
    assert a.submit(1, ok(300.0), 10.0 + P.window_ms + 1) == "late"
    assert a.result().winner is None
    assert Arbiter("e", [], 0.0, P, SECRET).due(0.0)  # nobody eligible: nothing to wait for


def test_the_hard_close_counts_from_the_last_frame_written_within_the_allowance() -> None:
    """A frame that left late (a busy loop, a hop to the seat's edge) keeps its seat's whole window."""
    a = Arbiter("c", [0, 1], 10.0, P, SECRET)
    a.written(0, 12.0)
    a.written(1, 130.0)
    assert a.closes_at == 130.0 + P.window_ms and a.settle_at() == a.closes_at
    assert not a.due(10.0 + P.window_ms + 50)
    assert a.submit(1, ok(300.0), 10.0 + P.window_ms + 100) is None  # inside seat 1's own window
    b = Arbiter("c", [0, 1], 10.0, P, SECRET)
    b.written(1, 10.0 + 5 * P.c_max_ms)  # a frame written very late cannot hold the contest open
    assert b.closes_at == b.latest_close == 10.0 + P.c_max_ms + P.window_ms
    assert b.submit(0, ok(300.0), b.latest_close + 1) == "late"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.floats(100, 900), st.floats(0, 400)), min_size=2, max_size=6),
       st.floats(0, 10))
def test_a_try_that_arrives_after_the_settling_moment_could_not_have_won(
        players: list[tuple[float, float]], spread: float) -> None:
    """Early settling is safe: with comp <= the seat's cap, any try arriving later loses."""
    caps = {s: cap for s, (_, cap) in enumerate(players)}
    t0s = {s: 1000.0 + spread * s for s in caps}
    a = Arbiter("c", list(caps), 1000.0, P, SECRET, caps=caps)
    for s, at in t0s.items():
        a.written(s, at)
    arrivals = sorted((t0s[s] + r + min(cap, P.c_max_ms), s, r) for s, (r, cap) in enumerate(players))
    for i, (at, s, r) in enumerate(arrivals):
        if a.due(at):
            best = min(a.accepted.values())
            assert all(later > best + P.bucket_ms for _, _, later in arrivals[i:])
            break
        a.submit(s, ok(r), at)


# --- reaction statistics ------------------------------------------------------------------------

def test_players_below_human_norms_are_flagged_for_good() -> None:
    s = ReactionStats(P)
    for _ in range(P.flag_min_tries - 1):
        s.add(90.0)
    assert not s.flagged  # too few tries to say
    s.add(90.0)
    assert s.flagged and s.median == 90.0 and s.fast_share == 1.0
    for _ in range(100):
        s.add(400.0)
    assert s.flagged
    assert json.loads(json.dumps(s.summary())) == s.summary()


def test_honest_spread_is_not_flagged_but_mostly_inhuman_times_are() -> None:
    honest = ReactionStats(P)
    for r in [180, 210, 230, 250, 260, 300, 115, 240, 270, 220] * 3:
        honest.add(float(r))
    assert not honest.flagged and honest.fast_share == 0.1
    share = ReactionStats(P)
    for r in [110, 119, 300, 105, 100, 118, 400, 500, 111, 90]:
        share.add(float(r))
    assert share.flagged  # median 114.5, 7 in 10 under 120 ms
    assert ReactionStats(P).summary()["median_ms"] is None
