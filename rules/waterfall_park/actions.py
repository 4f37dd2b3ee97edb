"""What a seat may do in Waterfall Park, and doing it: every phase is simultaneous, so its `active`
seats are those not yet finished with it. Offers cannot be listed in `legal` (their combinations are
endless); their schema is in docs/waterfall_park.md and `trade.py` checks them."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import combinations
from typing import Any

import rules.waterfall_park.flow as flow
import rules.waterfall_park.trade as trade
from rules.engine import Action, Event, IllegalAction
from rules.waterfall_park.components import ATTRACTIONS, NUMBERS, SIZES
from rules.waterfall_park.state import CONSTRUCTION, EXCHANGE, OVER, PREPARATION, Offer, State


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


def active(state: State) -> list[int]:
    if state.phase == OVER:
        return []
    return [s for s in range(state.seats) if not state.ready[s]]


def legal(state: State, seat: int) -> list[Action]:
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


def timeout_action(state: State, seat: int) -> Action:
    """Out of time: keep the first cards (out of bases, leave every base where it stands and let
    the card go back to the deck), leave the negotiation, stop building."""
    if state.phase == PREPARATION:
        choices = legal(state, seat)
        if state.pending and choices:
            return choices[-1]
        return choices[0] if choices else {"type": "discard", "cards": []}
    if state.phase == EXCHANGE:
        return {"type": "ready"}
    return {"type": "done"}


def decision_weight(state: State) -> float:
    """Negotiating takes longer than choosing two cards; the hub scales its clock by this."""
    if state.phase == EXCHANGE:
        return 4.0
    if state.phase == CONSTRUCTION:
        return 2.0
    return 1.0


def apply(state: State, seat: int | None, action: Any) -> list[Event]:
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
    return run(state, seat, action)

# ---- actions ------------------------------------------------------------------------


def _discard(state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
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
    state.say("chosen", seat)
    if all(state.ready):
        flow.resolve_preparation(state)
    return [{"kind": "discarded", "seat": seat}]


def _waiting_card(state: State, seat: int, card: Any) -> int:
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


def _move_base(state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
    _keys(action, "from", "to")
    source = action["from"]
    if type(source) is not int or not 1 <= source <= len(NUMBERS):
        raise _bad(f"'from' is a location number from 1 to {len(NUMBERS)}")
    card = _waiting_card(state, seat, action["to"])
    if source not in state.movable(seat):
        raise IllegalAction(
            "illegal", f"location {source} is not an empty location of yours placed before this reveal"
        )
    state.pending[seat].pop(0)
    state.owner[source - 1] = None
    state.owner[card - 1] = seat
    state.box.append(card)
    state.placed[seat].append(card)
    state.say("base_moved", seat, source, card)
    flow.settle_pending(state)
    return [{"kind": "base_moved", "seat": seat, "from": source, "to": card}]


def _return_card(state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
    _keys(action, "card")
    card = _waiting_card(state, seat, action["card"])
    state.pending[seat].pop(0)
    state.deck.append(card)
    state.say("card_returned", seat, card)
    flow.settle_pending(state)
    return [{"kind": "card_returned", "seat": seat, "card": card}]


def _offer(state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
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
        state.say("countered", seat, answered.id)
        events.append({"kind": "declined", "offer": answered.id, "seat": seat, "countered": offer.id})
    state.offers[offer.id] = offer
    state.next_offer += 1
    state.offers_made[seat] += 1
    for party in offer.parties:
        state.ready[party] = False
    state.say("offer", offer.id, seat, trade.transfers_data(offer.transfers))
    return [*events, {"kind": "offer", "offer": offer.id}]


def _accept(state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
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
        state.say("accepts", seat, offer.id)
        return [{"kind": "accepted", "offer": offer.id, "seat": seat}]
    del state.offers[offer.id]
    if any(trade.shortfall(state, offer.transfers, p, coins=True) for p in offer.parties):
        state.say("fails", offer.id)
        return [{"kind": "failed", "offer": offer.id}]
    trade.execute(state, offer)
    state.trades += 1
    state.ready = [False] * state.seats
    state.refresh_earning()
    state.say("trade", offer.id, trade.transfers_data(offer.transfers))
    events: list[Event] = [{"kind": "trade", "offer": offer.id}]
    for oid in sorted(state.offers):
        stale = trade.short_party(state, state.offers[oid].transfers)
        if stale is not None:
            del state.offers[oid]
            state.say("void", oid, stale)
            events.append({"kind": "void", "offer": oid})
    return events


def _decline(state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
    offer = _offer_id(state, seat, action)
    if seat not in offer.parties or seat == offer.author:
        raise IllegalAction("illegal", "only a party other than the author declines an offer")
    del state.offers[offer.id]
    state.say("declines", seat, offer.id)
    return [{"kind": "declined", "offer": offer.id, "seat": seat}]


def _withdraw(state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
    offer = _offer_id(state, seat, action)
    if seat != offer.author:
        raise IllegalAction("illegal", "only its author withdraws an offer")
    del state.offers[offer.id]
    state.say("withdraws", seat, offer.id)
    return [{"kind": "withdrawn", "offer": offer.id}]


def _ready(state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
    _keys(action)
    if state.ready[seat]:
        raise IllegalAction("illegal", "you are already ready")
    state.ready[seat] = True
    state.say("ready", seat)
    if all(state.ready):
        flow.end_exchange(state)
    return [{"kind": "ready", "seat": seat}]


def _unready(state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
    _keys(action)
    if not state.ready[seat]:
        raise IllegalAction("illegal", "you are not ready")
    state.ready[seat] = False
    state.say("unready", seat)
    return [{"kind": "unready", "seat": seat}]


def _build(state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
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
    state.say("builds", seat, kind, number)
    if not flow.can_build(state, seat):
        state.ready[seat] = True
        if all(state.ready):
            flow.income(state)
    return [{"kind": "built", "seat": seat, "location": number}]


def _done(state: State, seat: int, action: dict[Any, Any]) -> list[Event]:
    _keys(action)
    if state.ready[seat]:
        raise IllegalAction("not_your_turn", "you are already done building")
    state.ready[seat] = True
    state.say("done", seat)
    if all(state.ready):
        flow.income(state)
    return [{"kind": "done", "seat": seat}]

# ---- views --------------------------------------------------------------------------


_Handler = Callable[[State, int, dict[Any, Any]], list[Event]]
_HANDLERS: dict[str, tuple[str, _Handler]] = {
    "discard": (PREPARATION, _discard),
    "move_base": (PREPARATION, _move_base),
    "return_card": (PREPARATION, _return_card),
    "offer": (EXCHANGE, _offer),
    "accept": (EXCHANGE, _accept),
    "decline": (EXCHANGE, _decline),
    "withdraw": (EXCHANGE, _withdraw),
    "ready": (EXCHANGE, _ready),
    "unready": (EXCHANGE, _unready),
    "build": (CONSTRUCTION, _build),
    "done": (CONSTRUCTION, _done),
}
