"""Worlds a Waterfall Park seat cannot tell from the true one, and the rest of the strong level's
knowledge of the park (rules/search.py).

What a seat sees: the whole park (who owns each location, what stands on it), every player's unbuilt
tiles, announced incomes and open offers, the cards waiting for a base, its own hand, discards and
coins, and how many cards each other hand and the two decks hold. A sample deals the rest:

- the location cards not in sight (not owned, not waiting, not in the seat's hand, not a location
  the log shows a base moved off: those cards are in the box) among the other hands, the deck (as
  many as the view counts) and the box;
- the tile deck, from the tiles neither built nor held, as many as the view counts;
- the other players' coins: 5 to start, plus their announced incomes, plus and minus the coins of
  every trade the log still holds (a sample cannot know a trade that scrolled out of the log);
- the two cards a ready player chose to discard, at random from its sampled hand.

A whole game is too long to play out within a decision's budget (about 60 ms a playout with the
normal policy's building, and its offers cost far more), so a playout stops at the end of the round
under way (`Horizon`): each player's coins then, plus what its park earns a round times the rounds
still to pay, plus a coin for each empty location and unbuilt tile that later rounds may use; and
in playouts nobody makes new offers (`policy`).
"""
from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import rules.waterfall_park.bot as bot
import rules.waterfall_park.trade as trade
import rules.waterfall_park.view as views
from rules.engine import Action, View, json_copy
from rules.search import playout
from rules.waterfall_park import GAME
from rules.waterfall_park.components import ATTRACTIONS, NUMBERS, ROUNDS, START_COINS, TILE_COUNTS
from rules.waterfall_park.state import EXCHANGE, OVER, PREPARATION, Offer, State, Transfer

#: The search compares its lines in the same worlds (rules/search.py `_paired`): a trade's worth is
#: small beside the luck of the cards still to come.
paired = True
#: Worlds in which an offer is tried from the other party's side before it is made (`fair`), and
#: how many of the normal bot's best ideas are so tried: together at most a third of the budget.
FAIR_WORLDS = 3
IDEAS_TRIED = 2


def seat_of(view: View) -> int:
    return int(view["seat"])


def sample(view: View, rng: random.Random) -> State:
    me = seat_of(view)
    players = view["players"]
    seats = len(players)
    sites = view["sites"]
    relocating = view["phase"] == PREPARATION and any(p["waiting"] for p in players)
    state = State(seats=seats, max_offers=view["max_offers"], rng=random.Random(rng.getrandbits(64)),
                  round=view["round"], phase=view["phase"])
    state.owner = [s["owner"] for s in sites]
    state.tile = [s["tile"] for s in sites]
    state.unbuilt = [{k: p["tiles"].get(k, 0) for k in ATTRACTIONS} for p in players]
    state.income = [list(p["income"]) for p in players]
    state.ready = [bool(p["ready"]) for p in players]
    state.offers_made = [int(p["offers_made"]) for p in players]
    state.trades = view["trades"]
    state.earning = [p["earning"] for p in players]
    state.attractions = [[(a["tile"], tuple(a["locations"]), a["income"]) for a in p["attractions"]]
                         for p in players]
    state.log = json_copy(view["log"])
    state.log_from = view["log_from"]
    state.offers = {o["id"]: _offer(o) for o in view["offers"].values()}
    state.next_offer = 1 + max([0, *state.offers, *(e[1] for e in view["log"] if e[0] == "offer")])
    state.coins = _coins(view, me)
    if relocating:
        state.pending = [list(p["waiting"]) for p in players]
        state.placed = _placed(view)
    _deal(view, state, me, rng)
    if view["phase"] == OVER:
        state.winners = list(view["result"]["winners"])
    return state


def _offer(o: dict[str, Any]) -> Offer:
    transfers = tuple(Transfer(t["from"], t["to"], tuple(t["locations"]),
                               tuple((k, t["tiles"][k]) for k in ATTRACTIONS if t["tiles"].get(k)), t["coins"])
                      for t in o["transfers"])
    return Offer(o["id"], o["author"], transfers, list(o["accepted"]))


def _coins(view: View, me: int) -> list[int]:
    coins = [START_COINS + sum(p["income"]) for p in view["players"]]
    for entry in view["log"]:
        if entry[0] == "trade":
            for giver, receiver, _locations, _tiles, paid in entry[2]:
                coins[giver] -= paid
                coins[receiver] += paid
    coins = [max(0, c) for c in coins]
    coins[me] = view["players"][me]["coins"]
    if view["phase"] == OVER:
        coins = list(view["result"]["scores"])
    return coins


def _placed(view: View) -> list[list[int]]:
    """The cards placed in this reveal, whose bases stay: the log's since the round began."""
    placed: list[list[int]] = [[] for _ in view["players"]]
    for entry in reversed(view["log"]):
        if entry[0] == "round":
            break
        if entry[0] == "takes":
            placed[entry[1]] = list(entry[2]) + placed[entry[1]]
        elif entry[0] == "base_moved":
            placed[entry[1]].append(entry[3])
    return placed


def _deal(view: View, state: State, me: int, rng: random.Random) -> None:
    players = view["players"]
    moved_off = {e[2] for e in view["log"] if e[0] == "base_moved"}
    seen = set(view["hand"]) | {c for p in players for c in p["waiting"]} | moved_off
    seen |= {n for n, s in zip(NUMBERS, view["sites"], strict=True) if s["owner"] is not None}
    unseen = [n for n in NUMBERS if n not in seen]
    rng.shuffle(unseen)
    state.hands = []
    state.discards = []
    for s, p in enumerate(players):
        if s == me:
            hand = list(view["hand"])
        else:
            hand, unseen = sorted(unseen[:p["cards"]]), unseen[p["cards"]:]
        state.hands.append(hand)
        chosen: tuple[int, int] | None = None
        if s == me and view["discarded"] is not None:
            a, b = view["discarded"]
            chosen = (a, b)
        elif s != me and state.phase == PREPARATION and p["ready"] and len(hand) >= 2:
            a, b = sorted(rng.sample(hand, 2))
            chosen = (a, b)
        state.discards.append(chosen)
    state.deck, rest = unseen[:view["deck"]], unseen[view["deck"]:]
    state.box = sorted(set(NUMBERS) - set(state.deck) - set(rest) - {c for h in state.hands for c in h}
                       - {c for p in state.pending for c in p}) + rest
    tiles = Counter(TILE_COUNTS)
    tiles.subtract(t for t in state.tile if t is not None)
    for held in state.unbuilt:
        tiles.subtract(held)
    left = sorted(tiles.elements(), key=ATTRACTIONS.index)
    rng.shuffle(left)
    state.tile_deck = left[:view["tile_deck"]]


def cards_of(state: State) -> Counter[int]:
    """Every location card wherever it lies (for the tests): hands, deck, box, waiting for a base."""
    return Counter([c for h in state.hands for c in h] + state.deck + state.box
                   + [c for p in state.pending for c in p])


def candidates(view: View, rng: random.Random, width: int) -> list[Action]:
    """What the search weighs: the normal bot's ranking of discards and builds; when an offer waits
    for this seat, accepting it, declining it and countering it for a little more; otherwise its
    best offers that the other party would accept in its place (`fair`), beside saying ready."""
    legal: list[Action] = view["legal"]
    if view["phase"] != EXCHANGE:
        return bot.ranked(view, rng, width)
    park = bot.Park(view)
    answer = bot.answerable(park, legal)
    if answer is not None:
        return [a for a in (*bot.answers(park, answer), *bot.counters(park, answer)) if a is not None][:width]
    out: list[Action] = [{"type": "ready"}] if {"type": "ready"} in legal else []
    if bot.may_propose(park):
        for transfers in bot.ideas(park)[:IDEAS_TRIED]:
            if fair(view, transfers, rng):
                out.append({"type": "offer", "transfers": transfers})
    return out or [dict(legal[0])]


def fair(view: View, transfers: list[dict[str, Any]], rng: random.Random, worlds: int = FAIR_WORLDS) -> bool:
    """Whether the other party, judging as the strong bot does, would take the deal: in sampled
    worlds played to the round's end by the same playouts, the deal done against no deal, from its
    side (the seat's own side is the search's to weigh)."""
    me = seat_of(view)
    other = next(t["to"] if t["from"] == me else t["from"] for t in transfers)
    deal = trade.parse_transfers(len(view["players"]), transfers)
    horizon = Horizon(view)
    gain = 0.0
    for _ in range(worlds):
        world = sample(view, rng)
        seed = rng.getrandbits(64)
        dealt = copy.deepcopy(world)
        trade.execute(dealt, Offer(dealt.next_offer, me, deal, []))
        dealt.refresh_earning()
        gain += playout(GAME, dealt, other, random.Random(seed), horizon, policy, playout_view)
        gain -= playout(GAME, world, other, random.Random(seed), horizon, policy, playout_view)
    return gain >= 0


class Horizon:
    """The end of the round under way, and each player's foreseen final coins from there."""

    def __init__(self, view: View) -> None:
        self.round = int(view["round"])

    def reached(self, state: State) -> bool:
        return state.round > self.round

    def spread(self, state: State) -> float:
        """Two coins, and four more for each round still to pay: roughly how far apart players
        who stand level at a round's end may finish."""
        return 2.0 + 4.0 * (ROUNDS - state.round + 1)

    def scores(self, state: State) -> list[float]:
        pays = ROUNDS - state.round + 1
        later = 1 if state.round < ROUNDS else 0
        out = []
        for s in range(state.seats):
            empty = sum(1 for n in state.owned(s) if state.tile[n - 1] is None)
            out.append(state.coins[s] + state.earning[s] * pays + later * (empty + sum(state.unbuilt[s].values())))
        return [float(x) for x in out]


def horizon(view: View) -> Horizon:
    return Horizon(view)


def playout_view(state: State, seat: int) -> View:
    """A seat's view for a playout's policy: all but the log, which it never reads."""
    return views.seat_view(views.public_view(state, log=False), state, seat)


def policy(view: View, rng: random.Random) -> Action | None:
    """The normal bot's play without its proposals, which cost a playout most of its time."""
    if view.get("phase") == EXCHANGE:
        park = bot.Park(view)
        answer = bot.answerable(park, view.get("legal") or [])
        if answer is not None:
            return bot.answers(park, answer)[0]
        return {"type": "ready"} if {"type": "ready"} in view["legal"] else None
    return bot.decide(view, rng)
