"""A bot for Waterfall Park that reads only its own seat's view.

Everything that decides a trade is public except coins, so the bot can value an offer for the other
party exactly as that party's own bot would: it proposes swaps of empty locations that help both
sides (a location of its own next to the other player's, for one of theirs next to its own), adds
coins when the swap helps it more than the other, accepts offers worth at least a coin to it, and
then says ready. Out of bases, it moves a base to a new location only where that raises its
position's worth. Its offers per round are capped (counted in the view's `offers_made`), and the
k-th offer of a round is its k-th best idea, so a declined proposal is not made again.

The worth of a position is its `potential`: the exact income its tiles would earn this round after
greedily building every unbuilt tile on its empty locations, times the rounds still to pay, plus a
coin for each location and tile that later rounds may still use.
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import combinations
from typing import Any

from rules.search import normal_first
from rules.waterfall_park.income import Cell, best_income

Action = dict[str, Any]
OFFERS_PER_ROUND = 3
#: Worth, in coins, that the bot gives a location or a tile it cannot use this round.
SPARE_WORTH = 1


@lru_cache(maxsize=4)
def _geometry(locations: tuple[tuple[int, int, int], ...]) -> tuple[dict[int, Cell], dict[int, list[int]]]:
    """Each location's cell and orthogonal neighbours: the same board in every view of every game,
    so worked out once (a look-ahead reads thousands of views)."""
    cell: dict[int, Cell] = {n: (x, y) for n, x, y in locations}
    by_cell = {c: n for n, c in cell.items()}
    nbrs = {n: [by_cell[c] for c in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)) if c in by_cell]
            for n, (x, y) in cell.items()}
    return cell, nbrs


class Park:
    """The bot's reading of a view: the board, who owns what, and the public holdings."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        self.me: int = view["seat"]
        self.round: int = view["round"]
        self.rounds: int = view["rounds"]
        self.sizes: dict[str, int] = {a["name"]: a["size"] for a in view["attractions"]}
        self.order: list[str] = [a["name"] for a in view["attractions"]]
        self.cell, self.nbrs = _geometry(tuple((loc["n"], loc["x"], loc["y"]) for loc in view["board"]["locations"]))
        sites = view["sites"]
        self.owner: dict[int, int | None] = {n: sites[n - 1]["owner"] for n in self.cell}
        self.tile: dict[int, str | None] = {n: sites[n - 1]["tile"] for n in self.cell}
        self.unbuilt: list[dict[str, int]] = [dict(p["tiles"]) for p in view["players"]]

    def owned(self, seat: int) -> set[int]:
        return {n for n, o in self.owner.items() if o == seat}

    def type_income(self, cells: Iterable[int], kind: str) -> int:
        return best_income([self.cell[n] for n in cells], self.sizes[kind])

    def potential(self, owned: set[int], unbuilt: dict[str, int]) -> float:
        """Income this round after building greedily, with the leftovers' worth for later rounds."""
        by_type: dict[str, set[int]] = {}
        for n in owned:
            kind = self.tile[n]
            if kind is not None:
                by_type.setdefault(kind, set()).add(n)
        empty = sorted(n for n in owned if self.tile[n] is None)
        left = dict(unbuilt)
        for kind in sorted(left, key=lambda k: (-left[k], -self.sizes[k], self.order.index(k))):
            cells = by_type.setdefault(kind, set())
            while left[kind] > 0 and empty:
                base = self.type_income(cells, kind)
                best = max(
                    empty,
                    key=lambda n: (
                        self.type_income(cells | {n}, kind) - base,
                        sum(1 for m in self.nbrs[n] if m in owned and self.tile[m] is None),
                        -n,
                    ),
                )
                cells.add(best)
                empty.remove(best)
                left[kind] -= 1
        income = sum(self.type_income(cells, kind) for kind, cells in by_type.items())
        pays = self.rounds - self.round + 1
        spare = (len(empty) + sum(left.values())) * SPARE_WORTH if self.round < self.rounds else 0
        return float(income * pays + spare)

    def value(self, seat: int, transfers: list[dict[str, Any]]) -> float:
        """What the transfers are worth to `seat`, in coins (its coin total is not needed)."""
        owned = self.owned(seat)
        unbuilt = dict(self.unbuilt[seat])
        before = self.potential(owned, unbuilt)
        coins = 0
        after_owned = set(owned)
        for t in transfers:
            sign = 1 if t["to"] == seat else -1 if t["from"] == seat else 0
            if not sign:
                continue
            for n in t["locations"]:
                (after_owned.add if sign > 0 else after_owned.discard)(n)
            for kind, c in t["tiles"].items():
                unbuilt[kind] += sign * c
            coins += sign * t["coins"]
        return self.potential(after_owned, unbuilt) - before + coins


def decide(view: dict[str, Any], rng: random.Random) -> Action | None:
    legal: list[Action] = view.get("legal") or []
    if view.get("seat") is None or not legal:
        return None
    phase = view.get("phase")
    park = Park(view)
    if phase == "preparation":
        if legal[0]["type"] in ("move_base", "return_card"):
            return _relocate(park, legal)
        return _discard(park, legal, rng)
    if phase == "construction":
        return _build(park, legal)
    if phase == "exchange":
        return _exchange(park, legal)
    return None


def _keep_worth(park: Park, rng: random.Random) -> Callable[[list[int]], float]:
    def worth(kept: list[int]) -> float:
        score = 0.0
        for n in kept:
            for m in park.nbrs[n]:
                owner = park.owner[m]
                if owner == park.me:
                    score += 2.0
                elif m in kept:
                    score += 1.0
                elif owner is None:
                    score += 0.3
                else:
                    score -= 0.2
        return score + rng.random() * 0.01

    return worth


def _discard(park: Park, legal: list[Action], rng: random.Random) -> Action:
    """Keep the cards that join our locations, or each other, into clusters."""
    hand: list[int] = park.view["hand"]
    worth = _keep_worth(park, rng)
    pairs = list(combinations(hand, 2))
    best = max(pairs, key=lambda p: worth([c for c in hand if c not in p]))
    action = {"type": "discard", "cards": list(best)}
    return action if action in legal else legal[0]


def _relocate(park: Park, legal: list[Action]) -> Action:
    """Out of bases: move the base whose move raises the position's worth most (then: joins the new
    location to more of its own than the old one touched), or keep every base where it stands, the
    card going back to the deck, when no move gains."""
    owned = park.owned(park.me)
    unbuilt = park.unbuilt[park.me]
    keep = park.potential(owned, unbuilt)

    def gain(action: Action) -> tuple[float, int]:
        old, new = action["from"], action["to"]
        after = (owned - {old}) | {new}
        touching = sum(1 for m in park.nbrs[new] if m in after) - sum(1 for m in park.nbrs[old] if m in owned)
        return park.potential(after, unbuilt) - keep, touching

    moves = [a for a in legal if a["type"] == "move_base"]
    best = max(moves, key=gain, default=None)
    if best is None or gain(best) <= (0.0, 0):
        return legal[-1]
    return best


def _build(park: Park, legal: list[Action]) -> Action:
    """Place the tile that raises this round's income most, leaving room for the group to grow."""
    builds = [a for a in legal if a["type"] == "build"]
    if not builds:
        return {"type": "done"}
    return max(builds, key=_build_gain(park))


def _build_gain(park: Park) -> Callable[[Action], tuple[int, int, int, int]]:
    mine = park.owned(park.me)
    current: dict[str, int] = {}

    def gain(a: Action) -> tuple[int, int, int, int]:
        kind: str = a["tile"]
        n: int = a["location"]
        cells = {m for m in mine if park.tile[m] == kind}
        if kind not in current:
            current[kind] = park.type_income(cells, kind)
        same = sum(1 for m in park.nbrs[n] if m in cells)
        room = sum(1 for m in park.nbrs[n] if m in mine and park.tile[m] is None)
        return (park.type_income(cells | {n}, kind) - current[kind], same, room, -n)

    return gain


def _exchange(park: Park, legal: list[Action]) -> Action | None:
    offer = answerable(park, legal)
    if offer is not None:
        return answers(park, offer)[0]
    if may_propose(park):
        made = park.view["players"][park.me]["offers_made"]
        found = ideas(park)
        if len(found) > made:
            return {"type": "offer", "transfers": found[made]}
    if {"type": "ready"} in legal:
        return {"type": "ready"}
    return None


def answerable(park: Park, legal: list[Action]) -> dict[str, Any] | None:
    """The first open offer this seat is a party of and has not yet accepted."""
    for action in legal:
        if action["type"] in ("accept", "decline"):
            offer: dict[str, Any] = park.view["offers"][str(action["offer"])]
            if park.me not in offer["accepted"]:
                return offer
    return None


def answers(park: Park, offer: dict[str, Any]) -> list[Action]:
    """Accepting and declining `offer`, the one the normal bot prefers first: it accepts what is
    worth at least a coin to it (and what it can pay for)."""
    accept = {"type": "accept", "offer": offer["id"]}
    decline = {"type": "decline", "offer": offer["id"]}
    if accept not in park.view["legal"]:
        return [decline]
    return [accept, decline] if park.value(park.me, offer["transfers"]) >= 1 else [decline, accept]


def counters(park: Park, offer: dict[str, Any], asks: tuple[int, ...] = (1, 3)) -> list[Action]:
    """Counter-offers to a two-party offer from another player: the same deal for `asks` coins more
    to this seat (fewer of its own coins given, or more of the author's received), while the round's
    cap on its offers allows."""
    me, author = park.me, offer["author"]
    made = park.view["players"][me]["offers_made"]  # a counter-offer counts: no endless haggling
    if author == me or len(offer["parties"]) != 2 or made >= OFFERS_PER_ROUND:
        return []
    out: list[Action] = []
    for more in asks:
        transfers = [dict(t, tiles=dict(t["tiles"]), locations=list(t["locations"])) for t in offer["transfers"]]
        mine = next((t for t in transfers if t["from"] == me), None)
        theirs = next((t for t in transfers if t["from"] == author), None)
        if mine is not None and mine["coins"] >= more:
            mine["coins"] -= more
        elif theirs is not None:
            theirs["coins"] += more
        else:
            transfers.append({"from": author, "to": me, "locations": [], "tiles": {}, "coins": more})
        transfers = [t for t in transfers if t["locations"] or any(t["tiles"].values()) or t["coins"]]
        if len({(t["from"], t["to"]) for t in transfers}) == 2:
            out.append({"type": "offer", "transfers": transfers, "counters": offer["id"]})
    return out


def may_propose(park: Park) -> bool:
    """Whether the bot makes another offer this round: none of its own open, fewer than its cap."""
    offers: dict[str, Any] = park.view["offers"]
    mine_open = any(o["author"] == park.me for o in offers.values())
    return not mine_open and park.view["players"][park.me]["offers_made"] < OFFERS_PER_ROUND


def ranked(view: dict[str, Any], rng: random.Random, width: int) -> list[Action]:
    """The normal bot's moves, its best first: discards by the clusters they keep, builds by what
    they earn at once; elsewhere its choice, then other legal moves at random."""
    legal: list[Action] = view["legal"]
    park = Park(view)
    if legal and legal[0]["type"] == "discard":
        worth = _keep_worth(park, rng)
        order = sorted(legal, key=lambda a: -worth([c for c in park.view["hand"] if c not in a["cards"]]))
        return [dict(a) for a in order[:width]]
    if view["phase"] == "construction" and any(a["type"] == "build" for a in legal):
        gain = _build_gain(park)
        order = sorted((a for a in legal if a["type"] == "build"), key=gain, reverse=True)
        return [dict(a) for a in order[:width]]
    return normal_first(legal, decide(view, rng), rng, width)


def ideas(park: Park) -> list[list[dict[str, Any]]]:
    """Swaps that help both sides, best for us first: empty locations next to each other's groups,
    or one unbuilt tile for another; coins make up the difference when the other side gains less."""
    me = park.me
    coins: int = park.view["players"][me]["coins"] or 0
    mine = park.owned(me)
    scored: list[tuple[float, int, list[dict[str, Any]]]] = []
    for other in range(len(park.view["players"])):
        if other == me:
            continue
        theirs = park.owned(other)
        give = [n for n in sorted(mine) if park.tile[n] is None and any(m in theirs for m in park.nbrs[n])]
        take = [n for n in sorted(theirs) if park.tile[n] is None and any(m in mine for m in park.nbrs[n])]
        swaps: list[tuple[dict[str, Any], dict[str, Any]]] = [
            ({"locations": [a], "tiles": {}}, {"locations": [b], "tiles": {}})
            for a in give[:6]
            for b in take[:6]
        ]
        swaps += [
            ({"locations": [], "tiles": {a: 1}}, {"locations": [], "tiles": {b: 1}})
            for a in park.order
            if park.unbuilt[me][a] > 0
            for b in park.order
            if b != a and park.unbuilt[other][b] > 0
        ]
        for ours_side, theirs_side in swaps:
            swap = [
                {"from": me, "to": other, **ours_side, "coins": 0},
                {"from": other, "to": me, **theirs_side, "coins": 0},
            ]
            ours = park.value(me, swap)
            if ours < 2:
                continue
            theirs_value = park.value(other, swap)
            extra = 0 if theirs_value >= 1 else math.ceil(1 - theirs_value)
            if ours - extra < 1 or extra > coins:
                continue
            swap[0]["coins"] = extra
            scored.append((ours - extra, len(scored), swap))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [s[2] for s in scored]
