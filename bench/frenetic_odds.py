"""Frenetic Village's odds: which combination ends battles, exact hand odds, how long battles last.

Run `python -m bench.frenetic_odds` (`--shares` for the first part only). The first part plays
1,000 seeded battles between bots (table sizes 2 to 8 in turn) under the chosen deck and under the
decks it was chosen against, and prints the share of battles each combination ends. The second is
exact: it enumerates every set of army cards that two, one or no wildcards can complete. The third
plays seeded games (bots, and uniformly random legal play) and counts turns per battle. Prints a
final `ODDS {json}` line.
"""
from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import combinations
from math import comb
from typing import Any

import rules.frenetic_village.components as fc
from rules.engine import HUB
from rules.frenetic_village import GAME
from rules.frenetic_village.state import State
from tests.rules.kit import step_once

ARMY = [(r, v) for k, r, v in fc.CARDS if k == "army"]
ACTION_CARDS = sum(fc.ACTION_COUNTS.values())
BATTLES = 1000
TABLES = tuple(range(2, 9))

#: The decks the chosen one (fc.DECK) was measured against.
CANDIDATES: dict[str, fc.Deck] = {
    "chosen: Humans x4, Elves x3, others x1, values 1-5": fc.DECK,
    "one card per race and value, values 1-10": fc.Deck(
        chosen_here=True, copies=dict.fromkeys(fc.RACES, 1), values=tuple(range(1, 11)),
        actions=fc.DECK.actions, wildcards=fc.WILDCARDS),
    "two cards per race and value, values 1-5": fc.Deck(
        chosen_here=True, copies=dict.fromkeys(fc.RACES, 2), values=fc.VALUES, actions=fc.DECK.actions,
        wildcards=fc.WILDCARDS),
    "Humans x6, others x1, values 1-5": fc.Deck(
        chosen_here=True, copies={**dict.fromkeys(fc.RACES, 1), "humans": 6}, values=fc.VALUES,
        actions=fc.DECK.actions, wildcards=fc.WILDCARDS),
    "Humans x5, Elves x2, others x1, values 1-5": fc.Deck(
        chosen_here=True, copies={**dict.fromkeys(fc.RACES, 1), "humans": 5, "elves": 2}, values=fc.VALUES,
        actions=fc.DECK.actions, wildcards=fc.WILDCARDS),
}


@contextmanager
def deck_in_use(deck: fc.Deck) -> Iterator[None]:
    """Play with another deck for a measurement: the engine and its bot read the card table from
    rules.frenetic_village.components at each call, so swapping it there is enough (a bench-only swap)."""
    saved = fc.CARDS, fc.VALUES, fc.STARTS
    fc.CARDS = fc.build(deck)
    assert len(fc.CARDS) == fc.DECK_SIZE, "a candidate deck has the rulebook's 62 cards"
    fc.VALUES = deck.values
    fc.STARTS = tuple(range(deck.values[0], deck.values[-1] - fc.RUN + 2))
    try:
        yield
    finally:
        fc.CARDS, fc.VALUES, fc.STARTS = saved


def combination_shares(battles: int = BATTLES) -> dict[str, Any]:
    """Which combination ends each of `battles` bot battles (seed i, 2 + i % 7 seats)."""
    ends: dict[str, int] = dict.fromkeys(fc.COMBINATION_NAMES, 0)
    by_table: dict[int, dict[str, int]] = {n: dict.fromkeys(fc.COMBINATION_NAMES, 0) for n in TABLES}
    unfinished = 0
    for i in range(battles):
        seats = TABLES[i % len(TABLES)]
        got = bot_battle(seats, i)
        if got is None:
            unfinished += 1
            continue
        ends[got["combination"]] += 1
        by_table[seats][got["combination"]] += 1
    return {
        "battles": battles, "unfinished": unfinished,
        "shares": {k: n / battles for k, n in ends.items()},
        "by_table": {str(n): {k: c / max(1, sum(t.values())) for k, c in t.items()} for n, t in by_table.items()},
    }


def print_shares() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, deck in CANDIDATES.items():
        with deck_in_use(deck):
            r = combination_shares()
        out[label] = r
        sh = r["shares"]
        print(f"{label}: {r['battles']} bot battles end by " + ", ".join(
            f"{k} {sh[k]:.1%}" for k in fc.COMBINATION_NAMES) + f" (unfinished {r['unfinished']})")
        for n, t in r["by_table"].items():
            print(f"    {n} players: " + ", ".join(f"{k} {t[k]:.1%}" for k in fc.COMBINATION_NAMES))
    return out


def exact_hand_odds() -> dict[str, Any]:
    """Count 5-card hands (of all C(62, 5)) making each combination, by number of wildcards."""
    counts: dict[str, dict[int, int]] = {name: {0: 0, 1: 0, 2: 0} for name in fc.COMBINATION_NAMES}
    for wilds in (0, 1, 2):
        ways = comb(fc.WILDCARDS, wilds)
        for army in combinations(ARMY, fc.HAND - wilds):
            name = fc.combination_of(army, wilds)
            if name is not None:
                counts[name][wilds] += ways
    total = comb(fc.DECK_SIZE, fc.HAND)
    out: dict[str, Any] = {"hands": total}
    for name, by in counts.items():
        n = sum(by.values())
        out[name] = {"hands": n, "by_wildcards": by, "p": n / total, "one_in": round(total / n)}
    anyn = sum(sum(by.values()) for by in counts.values())
    out["any"] = {"hands": anyn, "p": anyn / total, "one_in": round(total / anyn)}
    return out


def six_card_odds(samples: int, seed: int = 1) -> float:
    """Chance that six random cards (a hand after its draw) hold a winning five: seeded sampling."""
    rng = random.Random(seed)
    deck = list(range(fc.DECK_SIZE))
    hits = sum(1 for _ in range(samples) if fc.winning_slots(rng.sample(deck, fc.HAND + 1)))
    return hits / samples


def bot_battle(seats: int, seed: int, max_steps: int = 20000) -> dict[str, Any] | None:
    """One battle between bots; a contest goes to a random bot among those that want the card."""
    s: State = GAME.setup(seats, seed, {"variant": "single", "battles": 5})
    rng = random.Random(seed)
    turns = grabs = contests = 0
    for _ in range(max_steps):
        if GAME.result(s) is not None:
            combination = s.last_battle["combination"] if s.last_battle else ""
            return {"turns": turns, "grabs": grabs, "contests": contests, "combination": combination}
        c = GAME.contest(s)
        if c is not None:
            keen = [e for e in c.eligible if GAME.wants(GAME.view(s, e), c.info["card"])]
            winner = rng.choice(keen) if keen else None
            contests += 1
            grabs += winner is not None
            GAME.apply(s, HUB, {"type": "contest_result", "key": c.key, "winner": winner})
            continue
        seat = GAME.active(s)[0]
        turns += s.phase == "draw"
        a = GAME.bot_action(GAME.view(s, seat), rng)
        assert a is not None
        GAME.apply(s, seat, a)
    return None


def random_battle(seats: int, seed: int, max_turns: int) -> int | None:
    s: State = GAME.setup(seats, seed, {"variant": "single", "battles": 5})
    rng = random.Random(seed)
    turns = 0
    while turns <= max_turns:
        if GAME.result(s) is not None:
            return turns
        turns += s.phase == "draw" and GAME.contest(s) is None
        step_once(GAME, s, rng)
    return None


def pct(xs: list[int], q: float) -> float:
    xs = sorted(xs)
    return float(xs[min(len(xs) - 1, int(q * len(xs)))])


def main() -> None:
    t = time.perf_counter()
    shares = print_shares()
    if "--shares" in sys.argv[1:]:
        print("ODDS " + json.dumps({"shares": shares}, sort_keys=True))
        return
    odds = exact_hand_odds()
    print(f"5-card hands: {odds['hands']:,}")
    for name in (*fc.COMBINATION_NAMES, "any"):
        o = odds[name]
        extra = f"  by wildcards {o['by_wildcards']}" if "by_wildcards" in o else ""
        print(f"  {name:18} {o['hands']:>7,} hands  p={o['p']:.6f}  1 in {o['one_in']:,}{extra}")
    six = six_card_odds(200_000)
    print(f"6 cards hold a winning five: p={six:.5f} (200,000 seeded samples)")
    odds["six_cards_p"] = six
    battles: dict[str, Any] = {}
    for seats in range(2, 9):
        games = [bot_battle(seats, seed) for seed in range(200)]
        done = [g for g in games if g is not None]
        turns = [g["turns"] for g in done]
        rounds = [g["turns"] / seats for g in done]
        rand = [random_battle(seats, seed, 2000) for seed in range(40)]
        rdone = [r for r in rand if r is not None]
        battles[str(seats)] = {
            "bot_finished": len(done) / len(games),
            "bot_turns_median": statistics.median(turns), "bot_turns_p90": pct(turns, 0.9),
            "bot_rounds_median": round(statistics.median(rounds), 2),
            "bot_grabs_per_battle": round(statistics.mean(g["grabs"] for g in done), 2),
            "random_finished_2000_turns": len(rdone) / len(rand),
            "random_turns_median": statistics.median(rdone) if rdone else None,
        }
        b = battles[str(seats)]
        print(f"{seats} players: bots end a battle in {b['bot_turns_median']} turns (median; p90 "
              f"{b['bot_turns_p90']:.0f}; {b['bot_rounds_median']} rounds), {b['bot_grabs_per_battle']} "
              f"grabs; random play ends {b['random_finished_2000_turns']:.0%} of battles within 2000 "
              f"turns, median {b['random_turns_median']}")
    print(f"({time.perf_counter() - t:.0f} s)")
    print("ODDS " + json.dumps({"shares": shares, "hands": odds, "battles": battles}, sort_keys=True))


if __name__ == "__main__":
    main()
