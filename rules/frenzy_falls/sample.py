"""Worlds a Frenzy Falls seat cannot tell from the true one, for the strong level (rules/search.py).

What a seat sees: its own hand, discard pile and face-down Pool cards; every face-up Pool card; how
many cards each player holds in hand, deck and discard pile; each player's Score cards by count and
points. Everything else is dealt at random:

- each player's 15 Waterfall cards (every deck is the same 15 faces), less what the seat sees of
  them, among that player's hand, deck, discard pile and face-down Pool cards;
- the Score cards: the table's deck is a draw of the 32 (rulebook's chart by player count), so the
  won stacks are dealt from the cards not in sight with each stack's count and points, and the
  draw deck from the rest;
- the choices other seats have made and not yet shown (round-end discards).

The sample reads the view alone; the log it carries is the view's, and the history it no longer
holds (cards revealed many moves ago) is not used.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any

import rules.frenzy_falls.bot as bot
from rules.engine import Action, View, json_copy
from rules.frenzy_falls.components import FACES, SCORE_CARDS, SCORE_FACES, WATERFALL_DECK, Card, ScoreCard
from rules.frenzy_falls.state import Pending, Player, Pool, PoolCard, Spill, State

#: Tries at dealing the won Score stacks before the sample keeps the last (see `_won`).
WON_TRIES = 50


def seat_of(view: View) -> int:
    return int(view["seat"])


def sample(view: View, rng: random.Random) -> State:
    me = seat_of(view)
    seats = len(view["players"])
    pools = [Pool(None if p["score"] is None else SCORE_FACES[p["score"]],
                  [PoolCard(c["seat"], FACES[c["card"]] if "card" in c else WATERFALL_DECK[0], c["up"])
                   for c in p["cards"]]) for p in view["pools"]]
    players = [_player(view, pools, s, me, rng) for s in range(seats)]
    won = _won(view, pools, rng)
    for s, p in enumerate(players):
        p.won = won[s]
    rest = _out_of_sight(pools)
    rest.subtract([c for stack in won for c in stack])
    unseen = sorted(rest.elements(), key=SCORE_FACES.index)
    rng.shuffle(unseen)
    score_deck = unseen[:view["score_deck"]]
    phase = view["phase"]
    pending = view["pending"]
    spill = view["spill"]
    state = State(
        seats, random.Random(rng.getrandbits(64)), players, pools, score_deck,
        first=next(s for s, p in enumerate(view["players"]) if p["first"]), round=view["round"], phase=phase,
        turns=_turns(view, seats), end_triggered=view["end_triggered"], log=json_copy(view["log"]),
        log_total=view["log_from"] + len(view["log"]), result=json_copy(view["result"]),
    )
    reveal = view["reveal"]
    if reveal is not None:
        state.cursor, state.passes = reveal["pool"], reveal["pass"]
    if pending is not None:
        state.pending = Pending(pending["kind"], pending["seat"], pending["pool"], pending["pos"] or 0)
    if spill is not None:
        state.spill = Spill(spill["pool"], spill["winner"], _movers(view, spill, pending))
    if phase == "discard":
        state.discards = _discards(view, players, me, rng)
    state.spills_by_round = [0] * state.round
    return state


def _player(view: View, pools: list[Pool], seat: int, me: int, rng: random.Random) -> Player:
    """A player's 15 cards: what the seat sees in place, the rest dealt among the hidden places."""
    shown = view["players"][seat]
    player = Player(shown["falls"], [])
    mine = seat == me
    if mine:
        player.hand = [FACES[k] for k in view["hand"]]
        player.discard = [FACES[k] for k in view["discard_pile"]]
    rest = Counter(WATERFALL_DECK)
    rest.subtract(player.hand + player.discard)
    hidden: list[PoolCard] = []
    for pool, seen in zip(pools, view["pools"], strict=True):
        for pc, card in zip(pool.cards, seen["cards"], strict=True):
            if pc.seat == seat:
                if "card" in card:
                    rest[pc.card] -= 1
                else:
                    hidden.append(pc)
    cards = sorted(rest.elements(), key=FACES.index)
    rng.shuffle(cards)
    for pc in hidden:
        pc.card = cards.pop()
    if not mine:
        player.hand = [cards.pop() for _ in range(shown["hand"])]
        player.discard = [cards.pop() for _ in range(shown["discard"])]
    player.deck = cards
    assert len(cards) == shown["deck"], "every card of a deck is somewhere the view counts"
    return player


def _out_of_sight(pools: list[Pool]) -> Counter[ScoreCard]:
    """The Score cards not lying on a Pool: the won stacks, the draw deck and those out of the game."""
    rest = Counter(SCORE_CARDS)
    rest.subtract([p.score for p in pools if p.score is not None])
    return rest


def _won(view: View, pools: list[Pool], rng: random.Random) -> list[list[ScoreCard]]:
    """Each player's won Score cards: as many as the view counts, worth its points, dealt from the
    cards not in sight. A random deal is tried first (each stack a random fit); a table whose
    stacks cannot all be dealt that way in WON_TRIES gets the first fit found in order, which
    always exists, since the true stacks are one."""
    wanted = [(p["score_cards"], p["points"]) for p in view["players"]]
    for attempt in range(WON_TRIES + 1):
        rest = _out_of_sight(pools)
        stacks: list[list[ScoreCard]] = []
        for count, points in wanted:
            faces = [f for f in SCORE_FACES if rest[f] > 0]
            if attempt < WON_TRIES:
                rng.shuffle(faces)
            stack = _fit(faces, rest, count, points)
            if stack is None:
                break
            rest.subtract(stack)
            stacks.append(stack)
        else:
            return stacks
    raise ValueError("no deal of the Score cards fits the view")


def _fit(faces: list[ScoreCard], rest: Counter[ScoreCard], count: int, points: int) -> list[ScoreCard] | None:
    """`count` cards of `rest` worth `points` together, trying faces in the order given."""
    if count == 0:
        return [] if points == 0 else None
    for f in faces:
        if rest[f] > 0 and f.points <= points:
            rest[f] -= 1
            found = _fit(faces, rest, count - 1, points - f.points)
            rest[f] += 1
            if found is not None:
                return [f, *found]
    return None


def _turns(view: View, seats: int) -> list[int]:
    """Seats still to play this round: the round's order from its first player, of which the view's
    `to_play` counts say how many are left (a turn passed over for an empty hand is gone too)."""
    first = next(s for s, p in enumerate(view["players"]) if p["first"])
    left = sum(p["to_play"] for p in view["players"])
    plays = max((p["to_play"] for p in view["players"]), default=0) + 3
    order = [(first + k) % seats for _ in range(plays) for k in range(seats)]
    return order[len(order) - left:] if left else []


def _movers(view: View, spill: dict[str, Any], pending: dict[str, Any] | None) -> list[int]:
    """Who still moves a card of a spilled Pool: the one deciding, then every other player with
    cards there who has not moved one yet (the log since the spill says who has), by earliest card."""
    cards = view["pools"][spill["pool"]]["cards"]
    moved: set[int] = set()
    for entry in reversed(view["log"]):
        if isinstance(entry, list) and entry and entry[0] in ("cascade", "cascade_discards"):
            moved.add(entry[1])
        if isinstance(entry, list) and entry and entry[0] == "spills":
            break
    order: list[int] = []
    for c in cards:
        if c["seat"] != spill["winner"] and c["seat"] not in moved and c["seat"] not in order:
            order.append(c["seat"])
    if pending is not None and pending["seat"] in order:
        order.remove(pending["seat"])
        order.insert(0, pending["seat"])
    return order


def _discards(view: View, players: list[Player], me: int, rng: random.Random) -> dict[int, list[int]]:
    """The round-end choices already made: the seat's own as shown, others' (hidden) at random."""
    waiting = set(view["active"])
    out: dict[int, list[int]] = {}
    for s, p in enumerate(players):
        if s in waiting:
            continue
        if s == me and view["discarding"] is not None:
            out[s] = list(view["discarding"])
        else:
            out[s] = sorted(i for i in range(len(p.hand)) if rng.random() < 0.3)
    return out


def candidates(view: View, rng: random.Random, width: int) -> list[Action]:
    """The plays the normal bot values most; in the other phases its choice, then the rest at random."""
    return bot.ranked(view, rng, width)


def cards_of(state: State) -> tuple[list[Counter[Card]], Counter[ScoreCard]]:
    """Every Waterfall card by owner, and every Score card, wherever they lie (for the tests)."""
    owned = [Counter(p.hand + p.deck + p.discard) for p in state.players]
    for pool in state.pools:
        for pc in pool.cards:
            owned[pc.seat][pc.card] += 1
    scores = Counter([c for p in state.players for c in p.won] + state.score_deck
                     + [p.score for p in state.pools if p.score is not None])
    return owned, scores
