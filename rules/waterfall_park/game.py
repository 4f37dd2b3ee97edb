"""Waterfall Park's engine: four rounds of Preparation, Exchange, Construction and Income.

Every phase is simultaneous, so each is a state whose `active` seats are those not yet finished
with it: not yet chosen their discards, not yet ready to leave the Exchange, not yet done building.
Income is automatic. Offers cannot be listed in `legal` (their combinations are endless); their
schema is in docs/waterfall_park.md and `trade.py` checks them.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from itertools import combinations
from typing import Any

from rules.engine import Action, Event, IllegalAction, Option, PublicViews, Result, View
from rules.waterfall_park import bot, trade
from rules.waterfall_park.data import (
    ATTRACTIONS,
    BLOCKS,
    BOARD_HEIGHT,
    BOARD_WIDTH,
    COLOURS,
    COMPLETE_INCOME,
    DEFAULT_MAX_OFFERS,
    GAME_ID,
    INCOMPLETE_INCOME,
    LOCATIONS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUMBERS,
    ROUNDS,
    SCHEDULE,
    SIZES,
    START_COINS,
    TILE_COUNTS,
    WATERFALL,
)
from rules.waterfall_park.state import (
    CONSTRUCTION,
    EXCHANGE,
    OVER,
    PREPARATION,
    Offer,
    State,
    empty_tiles,
)


def _name(seat: int) -> str:
    return COLOURS[seat][0]


def _article(word: str) -> str:
    return "an" if word[0] in "AEIOU" else "a"


def _bad(message: str) -> IllegalAction:
    return IllegalAction("bad_message", message)


def _keys(action: Mapping[Any, Any], *keys: str) -> None:
    if set(action) != {"type", *keys}:
        listed = ", ".join(repr(k) for k in ("type", *keys))
        raise _bad(f"this action has exactly the keys {listed}")


def _offer_id(state: State, seat: int, action: Mapping[Any, Any]) -> Offer:
    _keys(action, "offer")
    oid = action["offer"]
    if type(oid) is not int:
        raise _bad("'offer' is an offer id")
    offer = state.offers.get(oid)
    if offer is None:
        raise IllegalAction("illegal", f"no open offer #{oid}")
    return offer


class WaterfallPark(PublicViews):
    id = GAME_ID
    name = "Waterfall Park"
    description = "Negotiate locations and attractions, build the biggest attractions soonest, earn the most."
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    options: Mapping[str, Option] = {
        "max_offers": {
            "default": DEFAULT_MAX_OFFERS,
            "min": 1,
            "max": 20,
            "doc": "open offers a player may have at once",
        },
    }

    # ---- setup and phases -------------------------------------------------------------

    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> State:
        opts = self.check_options(seats, options)
        rng = random.Random(seed)
        deck = list(NUMBERS)
        rng.shuffle(deck)
        tiles = [name for name in ATTRACTIONS for _ in range(TILE_COUNTS[name])]
        rng.shuffle(tiles)
        state = State(
            seats=seats,
            max_offers=opts["max_offers"],
            rng=rng,
            deck=deck,
            tile_deck=tiles,
            hands=[[] for _ in range(seats)],
            discards=[None] * seats,
            owner=[None] * len(NUMBERS),
            tile=[None] * len(NUMBERS),
            unbuilt=[empty_tiles() for _ in range(seats)],
            coins=[START_COINS] * seats,
            income=[[] for _ in range(seats)],
            ready=[False] * seats,
            offers_made=[0] * seats,
            earning=[0] * seats,
        )
        self._start_preparation(state)
        return state

    def _start_preparation(self, state: State) -> None:
        cards, discard, tiles = SCHEDULE[state.seats][state.round - 1]
        state.phase = PREPARATION
        state.ready = [False] * state.seats
        state.offers_made = [0] * state.seats
        for seat in range(state.seats):
            dealt = [state.deck.pop() for _ in range(min(cards, len(state.deck)))]
            state.hands[seat] = sorted(dealt)
        state.say(f"Round {state.round}: {cards} Location cards each; keep all but {discard}.")

    def _resolve_preparation(self, state: State) -> None:
        """Reveal the kept cards together, place bases, return discards; then the choices of those
        out of bases, if any, and the Attraction tiles."""
        state.pending = [[] for _ in range(state.seats)]
        state.placed = [[] for _ in range(state.seats)]
        for seat in range(state.seats):
            chosen = state.discards[seat] or ()
            kept = [c for c in state.hands[seat] if c not in chosen]
            state.deck.extend(chosen)
            state.hands[seat] = []
            state.discards[seat] = None
            for card in kept:
                if state.bases_left(seat) == 0:
                    state.pending[seat].append(card)
                    continue
                state.owner[card - 1] = seat
                state.box.append(card)
                state.placed[seat].append(card)
            if state.placed[seat]:
                state.say(f"{_name(seat)} takes {trade.locations_text(state.placed[seat])}.")
        self._settle_pending(state)

    def _settle_pending(self, state: State) -> None:
        """Out of bases, "you can remove one of yours from an empty location ... and place it
        directly on a new location": each such card waits for its owner's choice (`move_base` or
        `return_card`), one at a time; a card with no empty location to take a base from goes back
        to the deck at once. When no card waits, the Attraction tiles are dealt."""
        for seat in range(state.seats):
            waiting = state.pending[seat]
            while waiting and not state.movable(seat):
                card = waiting.pop(0)
                state.deck.append(card)
                state.say(f"{_name(seat)} has no base for location {card}; its card returns to the deck.")
            state.ready[seat] = not waiting
        if all(state.ready):
            self._deal_tiles(state)

    def _deal_tiles(self, state: State) -> None:
        state.pending = []
        state.placed = []
        tiles = SCHEDULE[state.seats][state.round - 1][2]
        for seat in range(state.seats):
            dealt = [state.tile_deck.pop() for _ in range(min(tiles, len(state.tile_deck)))]
            for name in dealt:
                state.unbuilt[seat][name] += 1
            if dealt:
                state.say(f"{_name(seat)} reveals {', '.join(sorted(dealt, key=ATTRACTIONS.index))}.")
        state.refresh_earning()
        state.phase = EXCHANGE
        state.ready = [False] * state.seats
        state.say("Exchange: trade locations, tiles and coins; say ready when done.")

    def _end_exchange(self, state: State) -> None:
        if state.offers:
            state.say(f"Open offers lapse: {', '.join('#' + str(i) for i in sorted(state.offers))}.")
            state.offers.clear()
        state.phase = CONSTRUCTION
        state.ready = [not self._can_build(state, s) for s in range(state.seats)]
        state.say("Construction: place tiles on your empty locations.")
        if all(state.ready):
            self._income(state)

    def _can_build(self, state: State, seat: int) -> bool:
        return any(state.unbuilt[seat].values()) and any(
            state.tile[n - 1] is None for n in state.owned(seat)
        )

    def _income(self, state: State) -> None:
        state.refresh_earning()
        for seat in range(state.seats):
            state.coins[seat] += state.earning[seat]
            state.income[seat].append(state.earning[seat])
        paid = ", ".join(f"{_name(s)} {state.earning[s]}" for s in range(state.seats))
        state.say(f"Round {state.round} income: {paid}.")
        if state.round == ROUNDS:
            self._finish(state)
            return
        state.round += 1
        state.rng.shuffle(state.deck)
        self._start_preparation(state)

    def _finish(self, state: State) -> None:
        state.phase = OVER
        state.ready = [True] * state.seats
        on_board = self._tiles_on_board(state)
        best = max(zip(state.coins, on_board, strict=True))
        state.winners = [
            s for s in range(state.seats) if (state.coins[s], on_board[s]) == best
        ]
        coins = ", ".join(f"{_name(s)} {state.coins[s]}" for s in range(state.seats))
        won = " and ".join(_name(s) for s in state.winners)
        state.say(f"Game over. Coins: {coins}. {won} win{'s' if len(state.winners) == 1 else ''}.")

    def _tiles_on_board(self, state: State) -> list[int]:
        return [len(state.built(s)) for s in range(state.seats)]

    # ---- the engine face --------------------------------------------------------------

    def active(self, state: State) -> list[int]:
        if state.phase == OVER:
            return []
        return [s for s in range(state.seats) if not state.ready[s]]

    def legal(self, state: State, seat: int) -> list[Action]:
        if state.phase == OVER or not 0 <= seat < state.seats:
            return []
        if state.phase == PREPARATION:
            if state.ready[seat]:
                return []
            if state.pending:
                card = state.pending[seat][0]
                moves: list[Action] = [
                    {"type": "move_base", "from": n, "to": card} for n in state.movable(seat)
                ]
                return [*moves, {"type": "return_card", "card": card}]
            return [{"type": "discard", "cards": [a, b]} for a, b in combinations(state.hands[seat], 2)]
        if state.phase == CONSTRUCTION:
            if state.ready[seat]:
                return []
            empty = [n for n in state.owned(seat) if state.tile[n - 1] is None]
            kinds = [k for k in ATTRACTIONS if state.unbuilt[seat][k] > 0]
            out: list[Action] = [
                {"type": "build", "location": n, "tile": k} for n in empty for k in kinds
            ]
            return [*out, {"type": "done"}]
        out = []
        for oid in sorted(state.offers):
            offer = state.offers[oid]
            if seat not in offer.parties:
                continue
            if seat not in offer.accepted and trade.shortfall(
                state, offer.transfers, seat, coins=True
            ) is None:
                out.append({"type": "accept", "offer": oid})
            if seat == offer.author:
                out.append({"type": "withdraw", "offer": oid})
            else:
                out.append({"type": "decline", "offer": oid})
        out.append({"type": "unready"} if state.ready[seat] else {"type": "ready"})
        return out

    def timeout_action(self, state: State, seat: int) -> Action:
        """Out of time: keep the first cards (out of bases, leave every base where it stands and let
        the card go back to the deck), leave the negotiation, stop building."""
        if state.phase == PREPARATION:
            choices = self.legal(state, seat)
            if state.pending and choices:
                return choices[-1]
            return choices[0] if choices else {"type": "discard", "cards": []}
        if state.phase == EXCHANGE:
            return {"type": "ready"}
        return {"type": "done"}

    def decision_weight(self, state: State) -> float:
        """Negotiating takes longer than choosing two cards; the hub scales its clock by this."""
        if state.phase == EXCHANGE:
            return 4.0
        if state.phase == CONSTRUCTION:
            return 2.0
        return 1.0

    def apply(self, state: State, seat: int | None, action: Any) -> list[Event]:
        if state.phase == OVER:
            raise IllegalAction("game_over", "the game is over")
        if type(seat) is not int or not 0 <= seat < state.seats:
            raise IllegalAction("unauthorized", "only a seated player acts in Waterfall Park")
        if not isinstance(action, dict):
            raise _bad("an action is a map with a 'type'")
        kind = action.get("type")
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise _bad(f"unknown action type {kind!r}")
        phase, run = handler
        if phase != state.phase:
            raise IllegalAction("illegal", f"{kind!r} belongs to the {phase} phase, not {state.phase}")
        return run(self, state, seat, action)

    # ---- actions ------------------------------------------------------------------------

    def _discard(self, state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
        _keys(action, "cards")
        cards = action["cards"]
        if (
            not isinstance(cards, list)
            or len(cards) != 2
            or any(type(c) is not int for c in cards)
            or cards[0] == cards[1]
        ):
            raise _bad("'cards' is a list of two different location numbers")
        if state.ready[seat]:
            raise IllegalAction("not_your_turn", "you have already chosen")
        if state.pending:
            raise IllegalAction("illegal", "the cards are revealed: move a base to your card or return it")
        if any(c not in state.hands[seat] for c in cards):
            raise IllegalAction("illegal", "you can only discard cards from your hand")
        a, b = sorted(cards)
        state.discards[seat] = (a, b)
        state.ready[seat] = True
        state.say(f"{_name(seat)} has chosen.")
        if all(state.ready):
            self._resolve_preparation(state)
        return [{"kind": "discarded", "seat": seat}]

    def _waiting_card(self, state: State, seat: int, card: Any) -> int:
        """The card `seat` must decide on now, which `card` must name; else the reason it cannot."""
        if type(card) is not int or not 1 <= card <= len(NUMBERS):
            raise _bad(f"a card is a location number from 1 to {len(NUMBERS)}")
        if not state.pending:
            raise IllegalAction("illegal", "no revealed card waits for a base")
        if state.ready[seat] or not state.pending[seat]:
            raise IllegalAction("not_your_turn", "none of your cards waits for a base")
        if state.pending[seat][0] != card:
            raise IllegalAction("illegal", f"decide on location {state.pending[seat][0]} first")
        return card

    def _move_base(self, state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
        _keys(action, "from", "to")
        source = action["from"]
        if type(source) is not int or not 1 <= source <= len(NUMBERS):
            raise _bad(f"'from' is a location number from 1 to {len(NUMBERS)}")
        card = self._waiting_card(state, seat, action["to"])
        if source not in state.movable(seat):
            raise IllegalAction(
                "illegal", f"location {source} is not an empty location of yours placed before this reveal"
            )
        state.pending[seat].pop(0)
        state.owner[source - 1] = None
        state.owner[card - 1] = seat
        state.box.append(card)
        state.placed[seat].append(card)
        state.say(f"{_name(seat)} moves a base from location {source} to location {card}.")
        self._settle_pending(state)
        return [{"kind": "base_moved", "seat": seat, "from": source, "to": card}]

    def _return_card(self, state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
        _keys(action, "card")
        card = self._waiting_card(state, seat, action["card"])
        state.pending[seat].pop(0)
        state.deck.append(card)
        state.say(f"{_name(seat)} keeps its bases; location {card} returns to the deck.")
        self._settle_pending(state)
        return [{"kind": "card_returned", "seat": seat, "card": card}]

    def _offer(self, state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
        """A new offer; with `counters`, an answer to an offer made to this seat, which it declines
        in the same step (a counter-offer is a "no, but": the original does not stay open beside it)."""
        answered: Offer | None = None
        if "counters" in action:
            answered = _offer_id(state, seat, {"type": "offer", "offer": action["counters"]})
            if seat not in answered.parties or seat == answered.author:
                raise IllegalAction("illegal", "a counter-offer answers an offer made to you by another player")
            action = {k: v for k, v in action.items() if k != "counters"}
        offer = trade.make_offer(state, seat, action)  # checked whole before anything changes
        events: list[Event] = []
        if answered is not None:
            del state.offers[answered.id]
            state.say(f"{_name(seat)} declines offer #{answered.id} with a counter-offer.")
            events.append({"kind": "declined", "offer": answered.id, "seat": seat, "countered": offer.id})
        state.offers[offer.id] = offer
        state.next_offer += 1
        state.offers_made[seat] += 1
        for party in offer.parties:
            state.ready[party] = False
        state.say(f"Offer #{offer.id} by {_name(seat)}: {trade.describe(offer.transfers)}.")
        return [*events, {"kind": "offer", "offer": offer.id}]

    def _accept(self, state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
        offer = _offer_id(state, seat, action)
        if seat not in offer.parties:
            raise IllegalAction("illegal", f"you are not a party of offer #{offer.id}")
        if seat in offer.accepted:
            raise IllegalAction("illegal", f"you have already accepted offer #{offer.id}")
        reason = trade.shortfall(state, offer.transfers, seat, coins=True)
        if reason is not None:
            raise IllegalAction("illegal", reason)
        offer.accepted.append(seat)
        if len(offer.accepted) < len(offer.parties):
            state.say(f"{_name(seat)} accepts offer #{offer.id}.")
            return [{"kind": "accepted", "offer": offer.id, "seat": seat}]
        del state.offers[offer.id]
        if any(trade.shortfall(state, offer.transfers, p, coins=True) for p in offer.parties):
            state.say(f"Offer #{offer.id} fails: a party no longer holds what it gives.")
            return [{"kind": "failed", "offer": offer.id}]
        trade.execute(state, offer)
        state.trades += 1
        state.ready = [False] * state.seats
        state.refresh_earning()
        state.say(f"Trade #{offer.id} done: {trade.describe(offer.transfers)}.")
        events: list[Event] = [{"kind": "trade", "offer": offer.id}]
        for oid in sorted(state.offers):
            stale = trade.public_shortfall(state, state.offers[oid].transfers)
            if stale is not None:
                del state.offers[oid]
                state.say(f"Offer #{oid} is void: {stale}.")
                events.append({"kind": "void", "offer": oid})
        return events

    def _decline(self, state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
        offer = _offer_id(state, seat, action)
        if seat not in offer.parties or seat == offer.author:
            raise IllegalAction("illegal", "only a party other than the author declines an offer")
        del state.offers[offer.id]
        state.say(f"{_name(seat)} declines offer #{offer.id}.")
        return [{"kind": "declined", "offer": offer.id, "seat": seat}]

    def _withdraw(self, state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
        offer = _offer_id(state, seat, action)
        if seat != offer.author:
            raise IllegalAction("illegal", "only its author withdraws an offer")
        del state.offers[offer.id]
        state.say(f"{_name(seat)} withdraws offer #{offer.id}.")
        return [{"kind": "withdrawn", "offer": offer.id}]

    def _ready(self, state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
        _keys(action)
        if state.ready[seat]:
            raise IllegalAction("illegal", "you are already ready")
        state.ready[seat] = True
        state.say(f"{_name(seat)} is ready.")
        if all(state.ready):
            self._end_exchange(state)
        return [{"kind": "ready", "seat": seat}]

    def _unready(self, state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
        _keys(action)
        if not state.ready[seat]:
            raise IllegalAction("illegal", "you are not ready")
        state.ready[seat] = False
        state.say(f"{_name(seat)} negotiates again.")
        return [{"kind": "unready", "seat": seat}]

    def _build(self, state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
        _keys(action, "location", "tile")
        number, kind = action["location"], action["tile"]
        if type(number) is not int or not 1 <= number <= len(NUMBERS):
            raise _bad(f"'location' is a location number from 1 to {len(NUMBERS)}")
        if not isinstance(kind, str) or kind not in SIZES:
            raise _bad(f"'tile' is one of {', '.join(ATTRACTIONS)}")
        if state.ready[seat]:
            raise IllegalAction("not_your_turn", "you are done building this round")
        if state.owner[number - 1] != seat:
            raise IllegalAction("illegal", f"you do not own location {number}")
        if state.tile[number - 1] is not None:
            raise IllegalAction("illegal", f"location {number} is already built")
        if state.unbuilt[seat][kind] <= 0:
            raise IllegalAction("illegal", f"you hold no {kind} tile")
        state.tile[number - 1] = kind
        state.unbuilt[seat][kind] -= 1
        state.refresh_earning()
        state.say(f"{_name(seat)} builds {_article(kind)} {kind} on location {number}.")
        if not self._can_build(state, seat):
            state.ready[seat] = True
            if all(state.ready):
                self._income(state)
        return [{"kind": "built", "seat": seat, "location": number}]

    def _done(self, state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
        _keys(action)
        if state.ready[seat]:
            raise IllegalAction("not_your_turn", "you are already done building")
        state.ready[seat] = True
        state.say(f"{_name(seat)} is done building.")
        if all(state.ready):
            self._income(state)
        return [{"kind": "done", "seat": seat}]

    # ---- views --------------------------------------------------------------------------

    def result(self, state: State) -> Result | None:
        if state.phase != OVER or state.winners is None:
            return None
        return {"winners": list(state.winners), "scores": list(state.coins)}

    def seat_view(self, public: View, state: State, seat: int | None) -> View:
        """The board, the sites, the offers, the log and the other players are public; a seat adds
        its hand, its discards, its legal actions and its own coins."""
        view = dict(public)
        me = seat if isinstance(seat, int) and 0 <= seat < state.seats else None
        if me is not None:
            chosen = state.discards[me]
            view["seat"] = me
            if state.phase != OVER:
                view["players"] = [dict(p, coins=state.coins[me]) if s == me else p
                                   for s, p in enumerate(public["players"])]
            view["legal"] = self.legal(state, me)
            view["hand"] = list(state.hands[me])
            view["discarded"] = list(chosen) if chosen is not None else None
        return view

    def public_view(self, state: State) -> View:
        on_board = self._tiles_on_board(state)
        players = [self._player(state, s, on_board, state.phase == OVER) for s in range(state.seats)]
        return self._public(state, on_board, players)

    @staticmethod
    def _player(state: State, s: int, on_board: list[int], coins_shown: bool) -> dict[str, Any]:
        return {
            "seat": s,
            "colour": COLOURS[s][0],
            "symbol": COLOURS[s][1],
            "glyph": COLOURS[s][2],
            "coins": state.coins[s] if coins_shown else None,
            "income": list(state.income[s]),
            "earning": state.earning[s],
            "attractions": [
                {"tile": name, "locations": list(numbers), "size": len(numbers),
                 "complete": len(numbers) == SIZES[name], "income": pay}
                for name, numbers, pay in state.attractions[s]
            ] if state.attractions else [],
            "locations": len(state.owned(s)),
            "bases": state.bases_left(s),
            "built": on_board[s],
            "tiles": dict(state.unbuilt[s]),
            "cards": len(state.hands[s]),
            "waiting": list(state.pending[s]) if state.pending else [],
            "ready": state.ready[s],
            "offers_made": state.offers_made[s],
        }

    def _public(self, state: State, on_board: list[int], players: list[dict[str, Any]]) -> View:
        result: dict[str, Any] | None = None
        if state.phase == OVER and state.winners is not None:
            result = {
                "winners": list(state.winners),
                "scores": list(state.coins),
                "tiles_on_board": on_board,
            }
        return {
            "game": self.id,
            "phase": state.phase,
            "round": state.round,
            "rounds": ROUNDS,
            "seat": None,
            "players": players,
            "active": self.active(state),
            "legal": [],
            "deadline": None,
            "result": result,
            "board": board_view(),
            "attractions": [
                {"name": k, "size": SIZES[k], "tiles": TILE_COUNTS[k]} for k in ATTRACTIONS
            ],
            "income_table": {
                "incomplete": [INCOMPLETE_INCOME[k] for k in sorted(INCOMPLETE_INCOME)],
                "complete": {str(k): v for k, v in sorted(COMPLETE_INCOME.items())},
            },
            "schedule": [
                {"round": r + 1, "cards": c, "discard": d, "tiles": t}
                for r, (c, d, t) in enumerate(SCHEDULE[state.seats])
            ],
            "sites": [
                {"owner": state.owner[n - 1], "tile": state.tile[n - 1]} for n in NUMBERS
            ],
            "deck": len(state.deck),
            "tile_deck": len(state.tile_deck),
            "hand": [],
            "discarded": None,
            "offers": {str(oid): trade.offer_view(state.offers[oid]) for oid in sorted(state.offers)},
            "max_offers": state.max_offers,
            "trades": state.trades,
            "log": list(state.log),
        }

    def bot_action(self, view: View, rng: random.Random) -> Action | None:
        return bot.decide(view, rng)


_Handler = Callable[[WaterfallPark, State, int, dict[Any, Any]], list[Event]]
_HANDLERS: dict[str, tuple[str, _Handler]] = {
    "discard": (PREPARATION, WaterfallPark._discard),
    "move_base": (PREPARATION, WaterfallPark._move_base),
    "return_card": (PREPARATION, WaterfallPark._return_card),
    "offer": (EXCHANGE, WaterfallPark._offer),
    "accept": (EXCHANGE, WaterfallPark._accept),
    "decline": (EXCHANGE, WaterfallPark._decline),
    "withdraw": (EXCHANGE, WaterfallPark._withdraw),
    "ready": (EXCHANGE, WaterfallPark._ready),
    "unready": (EXCHANGE, WaterfallPark._unready),
    "build": (CONSTRUCTION, WaterfallPark._build),
    "done": (CONSTRUCTION, WaterfallPark._done),
}


def board_view() -> dict[str, Any]:
    """The park's geometry, so a client can draw it: every location's number, cell and block."""
    x, y, w, h = WATERFALL
    return {
        "width": BOARD_WIDTH,
        "height": BOARD_HEIGHT,
        "locations": [{"n": loc.number, "x": loc.x, "y": loc.y, "block": loc.block} for loc in LOCATIONS],
        "blocks": [{"id": b, "x": bx, "y": by, "w": bw, "h": bh} for b, bx, by, bw, bh in BLOCKS],
        "waterfall": {"x": x, "y": y, "w": w, "h": h},
    }
