"""Is the fastest-hand arbitration fair? A seeded simulation of grab contests over uneven networks.

Run `python -m bench.fairness` (about a minute on one core). It drives the very objects the hub
uses, hub.tables.arbitration's RoundTrips, Stamp, judge, Arbiter and ReactionStats, on simulated time:

- players react after a lognormal time (median 230 ms unless said otherwise) from the moment the
  contest frame reaches them;
- each connection has a base round trip from 10 to 300 ms, split unevenly between the directions,
  and every packet adds exponential jitter plus, now and then, a heavy-tailed (Pareto) spike;
  packets of one connection stay in order, so a grab never overtakes that connection's `seen`;
- the hub pings every connection every 5 s and right after each contest; a round-trip sample is
  the pong's arrival minus the ping's send on the hub's clock, exactly as the hub measures it.

It prints, side by side, who wins by first arrival (naive) and by this module, against the fair
share; then a truly faster player's share; what a client gains by holding back its `seen` and
pongs, and how often it is flagged; and how long settling waits after the winning grab. The last
line is `FAIRNESS {json}`. Nothing here asserts on timing.
"""
from __future__ import annotations

import heapq
import json
import math
import random
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from hub.tables.arbitration import (
    Arbiter,
    KernelRtt,
    Params,
    ReactionStats,
    RoundTrips,
    Stamp,
    judge,
    kernel_bound,
)

P = Params()
REACTION_MEDIAN_MS = 230.0
REACTION_SIGMA = 0.25
PING_INTERVAL_MS = 5000.0
CONTEST_GAP_MS = (1500.0, 4000.0)  # a minimum plus an exponential mean between contests
JITTER_BASE_MS = 2.0  # exponential jitter per packet: this plus a share of the one-way delay
JITTER_SHARE = 0.06
SPIKE_P = 0.02  # chance that a packet hits a spike
SPIKE_SCALE_MS = 15.0  # Pareto(alpha) spike, times this scale
SPIKE_ALPHA = 1.5
SPIKE_CAP_MS = 3000.0
SECRET_RNG_SEED = 99


@dataclass
class Link:
    """One connection's path, and the hub's view of it (RoundTrips), in simulated time."""

    rng: random.Random
    rtt: float
    up_share: float
    hold_seen: float = 0.0  # a cheat: delay every `seen` by this much
    hold_pong: float = 0.0  # ... and every pong by this much
    seen_rule: str = "fixed"  # or "before_grab": seen held by min(hold_seen, reaction - 140 ms);
    #                           or "to_bound": held to just under the kernel bound (knowing its path)
    kmin: float = math.inf  # the kernel's lowest round trip, from the acknowledgements of every packet
    trips: RoundTrips = field(default_factory=lambda: RoundTrips(P))
    twin: RoundTrips = field(default_factory=lambda: RoundTrips(P))  # the same link, honest
    stats: ReactionStats = field(default_factory=lambda: ReactionStats(P))
    next_ping: float = 0.0
    ping_id: int = 0
    inflight: list[tuple[float, int, int]] = field(default_factory=list)  # (arrival, twin?, id)

    def __post_init__(self) -> None:
        self.next_ping = self.rng.uniform(0, PING_INTERVAL_MS)
        self.acked(1)  # the TCP handshake: the kernel has a round trip before the first frame

    def one_way(self, base: float) -> float:
        d = base + self.rng.expovariate(1.0 / (JITTER_BASE_MS + JITTER_SHARE * base))
        if self.rng.random() < SPIKE_P:
            d += min(SPIKE_CAP_MS, SPIKE_SCALE_MS * self.rng.paretovariate(SPIKE_ALPHA))
        return d

    def down(self) -> float:
        return self.one_way(self.rtt * (1 - self.up_share))

    def up(self) -> float:
        return self.one_way(self.rtt * self.up_share)

    def kernel(self) -> KernelRtt | None:
        """What TCP_INFO would say: acknowledgements are never held back, so the lowest round trip
        of the packets so far (the smoothed figures are not used by the judge)."""
        return None if math.isinf(self.kmin) else KernelRtt(self.kmin, 0.0, self.kmin)

    def acked(self, n: int = 3) -> None:
        """n packets' acknowledgements (the frames between contests): samples for the kernel."""
        for _ in range(n):
            self.kmin = min(self.kmin, self.down() + self.up())

    def ping(self, at: float) -> None:
        self.acked()
        self.ping_id += 1
        self.trips.sent(self.ping_id, at)
        self.twin.sent(self.ping_id, at)
        honest = at + self.down() + self.up()
        heapq.heappush(self.inflight, (honest + self.hold_pong, 0, self.ping_id))
        heapq.heappush(self.inflight, (honest, 1, self.ping_id))

    def advance(self, now: float) -> None:
        """Send the periodic pings and deliver the pongs due by `now`, in time order."""
        while True:
            pong = self.inflight[0][0] if self.inflight else math.inf
            if min(pong, self.next_ping) > now:
                return
            if self.next_ping <= pong:
                self.ping(self.next_ping)
                self.next_ping += PING_INTERVAL_MS
            else:
                at, is_twin, pid = heapq.heappop(self.inflight)
                (self.twin if is_twin else self.trips).received(pid, at)


@dataclass
class Player:
    link: Link
    median_ms: float = REACTION_MEDIAN_MS
    keen: float = 1.0  # chance of trying in a contest

    def reaction(self) -> float:
        return self.link.rng.lognormvariate(math.log(self.median_ms), REACTION_SIGMA)


@dataclass
class Tally:
    contests: int = 0
    naive: list[int] = field(default_factory=list)
    judged: list[int] = field(default_factory=list)
    ideal: list[int] = field(default_factory=list)  # winner of the bare reaction race
    nobody: int = 0
    false_starts: int = 0
    settle_c_max: list[float] = field(default_factory=list)
    settle_caps: list[float] = field(default_factory=list)
    gains: list[float] = field(default_factory=list)  # seat 0's edge over its honest twin
    flagged_at: int | None = None
    bounded: int = 0  # seat 0's tries held to the kernel bound
    tries0: int = 0  # seat 0's tries


def run(players: list[Player], contests: int, seed: int, tally: Tally | None = None,
        kernel: bool = True) -> Tally:
    """`kernel`: the hub holds each client's TCP connection and bounds by its kernel's round trip
    (False: a proxy in front, judged by pings and `seen` alone)."""
    n = len(players)
    rng = random.Random(seed)
    secrets = random.Random(SECRET_RNG_SEED + seed)
    out = tally or Tally(naive=[0] * n, judged=[0] * n, ideal=[0] * n)
    now = 0.0
    for k in range(contests):
        now += CONTEST_GAP_MS[0] + rng.expovariate(1.0 / CONTEST_GAP_MS[1])
        for p in players:
            p.link.advance(now)
        caps = {s: p.link.trips.cap() for s, p in enumerate(players)}
        allowed = dict(caps)  # what the arbiter is told: with the kernel bound, held to it
        if kernel:
            for s, p in enumerate(players):
                bound = kernel_bound(p.link.kernel(), P)
                allowed[s] = caps[s] if bound is None else min(caps[s], bound)
        tries: list[tuple[float, int, float, Any]] = []  # (arrival of the grab, seat, reaction, judgement)
        for s, p in enumerate(players):
            link = p.link
            t0 = now + 0.02 * s  # frames are written one after another
            down = link.down()
            honest_seen = t0 + down + link.up()
            r = p.reaction()
            kern = link.kernel() if kernel else None
            hold = link.hold_seen
            if link.seen_rule == "before_grab":
                hold = max(0.0, min(hold, r - 140.0))
            elif link.seen_rule == "to_bound":
                # as much as it can be given: the part of the margin a seat whose claims typically use
                # more is cut to (hub.tables.arbitration: seeking the bound)
                bound = kernel_bound(kern, P)
                if bound is not None and kern is not None:
                    part = kern.min_rtt_ms + (bound - kern.min_rtt_ms) * P.seeking_share
                    hold = max(0.0, part - 0.5 - (honest_seen - t0))
            seen = honest_seen + hold
            grab_up = link.up()
            link.acked(1)
            if rng.random() >= p.keen:
                continue
            grab = max(t0 + down + r + grab_up, seen)  # in order on one connection
            j = judge(Stamp(t0=t0, seen=seen, grab=grab, cap=caps[s]), link.trips, P, link.stats, kern)
            link.trips.claimed(j.excess)
            if s == 0 and (link.hold_seen or link.hold_pong) and grab >= seen:
                twin = judge(Stamp(t0=t0, seen=honest_seen, grab=grab, cap=link.twin.cap()), link.twin, P,
                             kernel=kern)
                out.gains.append(twin.reaction_ms - j.reaction_ms)
            if s == 0:
                out.tries0 += 1
                out.bounded += j.bounded
            out.false_starts += j.false_start
            tries.append((grab, s, r, j))
        if not tries:
            continue
        out.contests += 1
        tries.sort(key=lambda x: (x[0], x[1]))
        secret = secrets.getrandbits(128).to_bytes(16, "big")
        bounded = Arbiter(f"c{k}", range(n), now, P, secret)
        told = Arbiter(f"c{k}", range(n), now, P, secret, caps=allowed)
        for s in range(n):
            told.written(s, now + 0.02 * s)
        settled: dict[int, float] = {}
        for grab, s, _, j in tries:
            for i, arb in enumerate((bounded, told)):
                if i not in settled and arb.due(grab):
                    settled[i] = arb.settle_at()
                if i not in settled:
                    arb.submit(s, j, grab)
        for i, arb in enumerate((bounded, told)):
            settled.setdefault(i, arb.settle_at())
        result = bounded.result()
        assert told.result().winner == result.winner, "knowing the caps changes when, never who"
        out.naive[tries[0][1]] += 1
        out.ideal[min(tries, key=lambda x: x[2])[1]] += 1
        if result.winner is None:
            out.nobody += 1
        else:
            out.judged[result.winner] += 1
            won_at = next(g for g, s, _, _ in tries if s == result.winner)
            out.settle_c_max.append(settled[0] - won_at)
            out.settle_caps.append(settled[1] - won_at)
        for s, ms in result.judged.items():
            players[s].link.stats.add(ms)
        if out.flagged_at is None and players[0].link.stats.flagged:
            out.flagged_at = k + 1
        end = max(settled.values())
        for p in players:
            p.link.advance(end)
            p.link.ping(end)  # right after each contest
    return out


def links(rng: random.Random, n: int, lo: float = 10.0, hi: float = 300.0) -> list[Link]:
    """n links from lo to hi ms, each split unevenly between the directions."""
    out = []
    for i in range(n):
        rtt = lo + (hi - lo) * i / max(1, n - 1)
        up_share = (0.2, 0.8, 0.3, 0.7, 0.25, 0.75)[i % 6]
        out.append(Link(random.Random(rng.random()), rtt, up_share))
    return out


def shares(counts: list[int]) -> list[float]:
    total = sum(counts) or 1
    return [c / total for c in counts]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else math.nan


def equal_players(contests: int) -> dict[str, Any]:
    print(f"Equal players (reaction lognormal, median {REACTION_MEDIAN_MS:.0f} ms), round trips 10..300 ms, "
          f"{contests:,} contests each")
    out: dict[str, Any] = {}
    worst = 0.0
    flagged = 0
    settle_all: list[float] = []
    for n in range(2, 7):
        rng = random.Random(1000 + n)
        players = [Player(link) for link in links(rng, n)]
        t = run(players, contests, seed=n)
        naive, judged = shares(t.naive), shares(t.judged)
        fair = 1 / n
        dev = max(abs(j - fair) for j in judged) * 100
        naive_dev = max(abs(x - fair) for x in naive) * 100
        worst = max(worst, dev)
        flagged += sum(p.link.stats.flagged for p in players)
        settle_all += t.settle_c_max
        print(f"  {n} players   rtt ms  up/down   naive    judged   fair")
        for s, p in enumerate(players):
            print(f"     seat {s}   {p.link.rtt:5.0f}   {p.link.up_share:.2f}   {naive[s]:6.1%}   "
                  f"{judged[s]:6.1%}   {fair:6.1%}")
        print(f"     largest gap to fair: naive {naive_dev:.1f} pp, judged {dev:.2f} pp; "
              f"false starts {t.false_starts}, no winner {t.nobody}")
        out[str(n)] = {"rtt_ms": [p.link.rtt for p in players],
                       "up_share": [p.link.up_share for p in players],
                       "naive": [round(x, 4) for x in naive], "judged": [round(x, 4) for x in judged],
                       "fair": round(fair, 4), "max_dev_pp": round(dev, 2),
                       "naive_max_dev_pp": round(naive_dev, 2), "false_starts": t.false_starts}
    print(f"  => every player within {worst:.2f} percentage points of fair (target 2); "
          f"honest players flagged: {flagged}")
    return {"by_players": out, "max_dev_pp": round(worst, 2), "honest_flagged": flagged,
            "settle_everyone_tries_ms": {"median": round(statistics.median(settle_all), 1),
                                         "p99": round(pct(settle_all, 0.99), 1)}}


def faster_player(contests: int) -> dict[str, Any]:
    print(f"A truly faster player (median 200 ms against {REACTION_MEDIAN_MS:.0f}), 4 players, {contests:,} "
          "contests per placement")
    out = {}
    always = True
    for place in range(4):
        rng = random.Random(2000 + place)
        players = [Player(link) for link in links(rng, 4)]
        players[place].median_ms = 200.0
        t = run(players, contests, seed=50 + place)
        judged, naive, ideal = shares(t.judged)[place], shares(t.naive)[place], shares(t.ideal)[place]
        always &= judged > 0.25
        print(f"  on the {players[place].link.rtt:3.0f} ms link: judged {judged:6.1%}  naive {naive:6.1%}  "
              f"bare reaction race {ideal:6.1%}  (equal share 25.0%)")
        out[f"{players[place].link.rtt:.0f}"] = {"judged": round(judged, 4), "naive": round(naive, 4),
                                                  "ideal": round(ideal, 4)}
    print(f"  => the faster player wins more than an equal share wherever it sits: {always}")
    return {"by_rtt": out, "always_more": always}


def holding_back(contests: int, runs: int, kernel: bool = False) -> dict[str, Any]:
    print(f"A client that holds back its seen and pongs by X (against one honest player, both on 80 ms "
          f"links; {runs} runs x {contests} contests), "
          f"{'with the kernel bound' if kernel else 'WITHOUT a kernel bound (a proxy in front)'}")
    out = {}
    for x in (0.0, 10.0, 25.0, 50.0, 80.0, 100.0, 150.0, 250.0, 400.0, 800.0):
        gains: list[float] = []
        wins = total = flagged = 0
        flag_times: list[int] = []
        for r in range(runs):
            rng = random.Random(3000 + r)
            cheat = Player(Link(random.Random(rng.random()), 80.0, 0.5, hold_seen=x, hold_pong=x))
            honest = Player(Link(random.Random(rng.random()), 80.0, 0.5))
            t = run([cheat, honest], contests, seed=4000 + r, kernel=kernel)
            gains += t.gains
            wins += t.judged[0]
            total += t.judged[0] + t.judged[1]
            if t.flagged_at is not None:
                flagged += 1
                flag_times.append(t.flagged_at)
        top = max(gains) if gains else 0.0
        mean = statistics.mean(gains) if gains else 0.0
        bound = min(x, P.c_max_ms)
        if kernel:  # the most a seen within the kernel bound can claim over an honest one, at most
            bound = min(bound, 80.0 * P.kernel_margin_share + P.kernel_margin_ms)
        share = wins / max(1, total)
        when = f", after {statistics.median(flag_times):.0f} contests (median)" if flag_times else ""
        over = f" (+{top - bound:.1f} history lag or jitter)" if top > bound + 1e-6 else ""
        print(f"  X={x:5.0f} ms: gain mean {mean:6.1f} ms, max {top:6.1f} ms{over} (bound {bound:.0f}); "
              f"wins {share:6.1%}; flagged in {flagged}/{runs} runs{when}")
        out[f"{x:.0f}"] = {"mean_gain_ms": round(mean, 2), "max_gain_ms": round(top, 2), "bound_ms": bound,
                           "win_share": round(share, 4), "flagged_runs": flagged, "runs": runs,
                           "median_contests_to_flag": statistics.median(flag_times) if flag_times else None,
                           "within_bound": top <= bound + 1e-6,
                           "over_bound_ms": round(max(0.0, top - bound), 2)}
    print("  (gain = the judged time its honest twin, same packets, would have got, minus its own.")
    if kernel:
        print("   With the kernel bound a seen held past it is credited the kernel's lowest round trip: a")
        print("   single try can still gain when its twin's seen met a spike the cheat's did not need.)")
    else:
        print("   A held-back pong lands X later, so at a contest the cheat's history can miss the newest")
        print("   sample its twin already has: the cap is then a quantile of a slightly different window,")
        print("   worth a few ms of jitter either way; with equal windows the gain is exactly min(X, cap).)")
    return out


def lying_clients(contests: int, runs: int) -> dict[str, Any]:
    """The liars of the end-to-end test (tests/hub/test_kernel_bound.py), judged with the kernel bound:
    pongs held back by X, with the `seen` honest or held by min(X, reaction - 140 ms); and the worst
    a liar can do, holding its `seen` to just under the bound (which needs to know its own path)."""
    print(f"Lying clients against two honest players, all three on 120 ms links, with the kernel bound "
          f"({runs} runs x {contests} contests; a fair share is 33.3 %)")
    out: dict[str, Any] = {}
    cases = [(x, rule) for x in (50.0, 100.0, 200.0, 300.0) for rule in ("honest", "before_grab")]
    cases += [(x, "to_bound") for x in (50.0, 300.0)]
    for x, rule in cases:
        gains: list[float] = []
        wins = total = bounded = tries = 0
        for r in range(runs):
            rng = random.Random(7000 + r)
            cheat = Player(Link(random.Random(rng.random()), 120.0, 0.5, hold_seen=0.0 if rule == "honest" else x,
                                hold_pong=x, seen_rule="fixed" if rule == "honest" else rule))
            others = [Player(Link(random.Random(rng.random()), 120.0, 0.5)) for _ in range(2)]
            t = run([cheat, *others], contests, seed=7500 + r)
            gains += t.gains
            wins += t.judged[0]
            total += sum(t.judged)
            bounded += t.bounded
            tries += t.tries0
        share = wins / max(1, total)
        held = bounded / max(1, tries)
        label = {"honest": "seen honest", "before_grab": "seen held", "to_bound": "seen held to the bound"}[rule]
        mean = statistics.mean(gains) if gains else 0.0
        print(f"  pongs held {x:3.0f} ms, {label:23s}: wins {share:6.1%}, held to the bound in {held:6.1%} of "
              f"its tries, gain mean {mean:5.1f} ms, max {max(gains, default=0.0):5.1f} ms")
        out[f"{x:.0f}-{rule}"] = {"win_share": round(share, 4), "held_to_bound": round(held, 4),
                                  "mean_gain_ms": round(mean, 2), "max_gain_ms": round(max(gains, default=0.0), 2)}
    return out


def seen_only(contests: int, runs: int) -> dict[str, Any]:
    """Holding back only the `seen` (pongs honest): the cap stops the gain near the link's jitter."""
    gains: list[float] = []
    for r in range(runs):
        rng = random.Random(5000 + r)
        cheat = Player(Link(random.Random(rng.random()), 80.0, 0.5, hold_seen=200.0))
        honest = Player(Link(random.Random(rng.random()), 80.0, 0.5))
        gains += run([cheat, honest], contests, seed=5500 + r, kernel=False).gains
    top = max(gains)
    print(f"Without a kernel bound, holding back only the seen by 200 ms (pongs honest): gain mean "
          f"{statistics.mean(gains):.1f} ms, max {top:.1f} ms: the cap (round-trip quantile + "
          f"{P.margin_ms:.0f} ms) stops it")
    return {"hold_seen_ms": 200.0, "mean_gain_ms": round(statistics.mean(gains), 2),
            "max_gain_ms": round(top, 2)}


def settle_delays(contests: int) -> dict[str, Any]:
    rng = random.Random(6000)
    players = [Player(link, keen=0.5) for link in links(rng, 4)]
    t = run(players, contests, seed=61)
    out = {"c_max_bound": {"median": round(statistics.median(t.settle_c_max), 1),
                           "p99": round(pct(t.settle_c_max, 0.99), 1)},
           "known_caps": {"median": round(statistics.median(t.settle_caps), 1),
                          "p99": round(pct(t.settle_caps, 0.99), 1)}}
    print(f"Settle delay after the winning grab (4 players, each tries half the time, {contests:,} "
          "contests):")
    for key, what in (("c_max_bound", "silent seats bounded by c_max"),
                      ("known_caps", "the arbiter told each seat's cap")):
        print(f"  {what}: median {out[key]['median']} ms, p99 {out[key]['p99']} ms")
    return out


def main() -> None:
    start = time.perf_counter()
    quick = "--quick" in sys.argv
    scale = 10 if quick else 1
    figures: dict[str, Any] = {"params": asdict(P), "reaction": {"median_ms": REACTION_MEDIAN_MS,
                                                                   "sigma": REACTION_SIGMA}}
    figures["equal"] = equal_players(20_000 // scale)
    figures["faster"] = faster_player(10_000 // scale)
    figures["hold_back"] = holding_back(300 // scale, 30 // (3 if quick else 1), kernel=True)
    figures["hold_back_no_kernel"] = holding_back(300 // scale, 30 // (3 if quick else 1), kernel=False)
    figures["lying"] = lying_clients(300 // scale, 10)
    figures["seen_only"] = seen_only(300 // scale, 10)
    figures["settle"] = settle_delays(10_000 // scale)
    figures["settle"]["everyone_tries"] = figures["equal"].pop("settle_everyone_tries_ms")
    e = figures["settle"]["everyone_tries"]
    print(f"  when everyone tries (the equal-players runs): median {e['median']} ms, p99 {e['p99']} ms")
    figures["seconds"] = round(time.perf_counter() - start, 1)
    print(f"({figures['seconds']} s)")
    print("FAIRNESS " + json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
