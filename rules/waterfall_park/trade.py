"""Exchange: offers between any players, checked strictly, executed atomically on the last acceptance.

An offer is a list of transfers, each naming what one party gives another. Its parties are every
seat named in it; it executes the moment all of them have accepted (its author accepts by making
it), and only if the whole deal can settle at once: "You must respect agreements that can be
completed immediately." Every transfer happens together, so a party covers what it gives with what
it holds plus what it receives in the same deal: a coin or a tile received may be passed on in it
(Pink 3 coins to Yellow, Yellow 3 coins to Blue, Blue a location to Pink settles even when Yellow
starts with none). A location is named once per offer, so it is given by the seat that owns it now.

Ownership of locations and unbuilt tiles is public, so an offer naming items that their giver does
not hold is refused at once, and an open offer whose public items have moved away is voided as soon
as they move. Coin totals are secret, so only the author's own coins (and, on acceptance, the
accepter's) are checked; an offer whose other party has spent its coins meanwhile fails when the
last party accepts, with a reason that names nobody's purse.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.engine import IllegalAction
from rules.waterfall_park.components import (
    ATTRACTIONS,
    BASES,
    COLOURS,
    MAX_OFFER_COINS,
    MAX_TRANSFERS,
    NUMBERS,
    TILE_COUNTS,
)
from rules.waterfall_park.state import Offer, State, Transfer

TRANSFER_KEYS = frozenset({"from", "to", "locations", "tiles", "coins"})


def _bad(message: str) -> IllegalAction:
    return IllegalAction("bad_message", message)


def _int(value: Any, lo: int, hi: int, what: str) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise _bad(f"{what} must be an integer from {lo} to {hi}")
    return value


def parse_transfers(seats: int, raw: Any) -> tuple[Transfer, ...]:
    """Check an offer's shape, independent of the state of play; the canonical transfers or bad_message."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_TRANSFERS:
        raise _bad(f"transfers must be a list of 1 to {MAX_TRANSFERS} transfers")
    out: list[Transfer] = []
    pairs: set[tuple[int, int]] = set()
    seen_locations: set[int] = set()
    for item in raw:
        if not isinstance(item, dict):
            raise _bad("each transfer must be a map")
        if not all(isinstance(k, str) and k in TRANSFER_KEYS for k in item):
            raise _bad(f"a transfer has only the keys {sorted(TRANSFER_KEYS)}")
        if "from" not in item or "to" not in item:
            raise _bad("a transfer names 'from' and 'to'")
        giver = _int(item["from"], 0, seats - 1, "from")
        receiver = _int(item["to"], 0, seats - 1, "to")
        if giver == receiver:
            raise _bad("a transfer goes from one seat to another")
        if (giver, receiver) in pairs:
            raise _bad("at most one transfer for each giver and receiver")
        pairs.add((giver, receiver))
        locations = item.get("locations", [])
        if not isinstance(locations, list) or len(locations) > len(NUMBERS):
            raise _bad("locations must be a list of location numbers")
        numbers: list[int] = []
        for n in locations:
            number = _int(n, 1, len(NUMBERS), "a location")
            if number in seen_locations:
                raise _bad(f"location {number} appears twice in the offer")
            seen_locations.add(number)
            numbers.append(number)
        tiles = item.get("tiles", {})
        if not isinstance(tiles, dict):
            raise _bad("tiles must be a map of attraction to count")
        for name in tiles:
            if not isinstance(name, str) or name not in TILE_COUNTS:
                raise _bad(f"tiles are keyed by attraction: {', '.join(ATTRACTIONS)}")
        counts = tuple(
            (name, _int(tiles[name], 0, TILE_COUNTS[name], f"tiles of {name}"))
            for name in ATTRACTIONS
            if name in tiles
        )
        counts = tuple((name, c) for name, c in counts if c > 0)
        coins = _int(item.get("coins", 0), 0, MAX_OFFER_COINS, "coins")
        if not numbers and not counts and not coins:
            raise _bad("a transfer gives something")
        out.append(Transfer(giver, receiver, tuple(sorted(numbers)), counts, coins))
    out.sort(key=lambda t: (t.giver, t.receiver))
    return tuple(out)


def shortfall(state: State, transfers: tuple[Transfer, ...], party: int, *, coins: bool) -> str | None:
    """Why `party` cannot carry out its side when the whole deal settles at once, or None.

    What it gives is covered by what it holds now plus what it receives in the same deal; its
    coins are checked only if asked (they are secret)."""
    given_locations = [n for t in transfers if t.giver == party for n in t.locations]
    received_locations = sum(len(t.locations) for t in transfers if t.receiver == party)
    name = COLOURS[party][0]
    for n in given_locations:
        if state.owner[n - 1] != party:
            return f"{name} does not own location {n}"
    tiles: dict[str, int] = {}
    for t in transfers:
        sign = -1 if t.giver == party else 1 if t.receiver == party else 0
        for kind, count in t.tiles:
            tiles[kind] = tiles.get(kind, 0) + sign * count
    for kind in ATTRACTIONS:
        net = tiles.get(kind, 0)
        if state.unbuilt[party][kind] + net < 0:
            given = sum(c for t in transfers if t.giver == party for k, c in t.tiles if k == kind)
            return f"{name} does not hold {given} {kind}"
    held = BASES - state.bases_left(party)
    if held - len(given_locations) + received_locations > BASES:
        return f"{name} has not enough bases for those locations"
    if coins:
        net_coins = sum(t.coins for t in transfers if t.receiver == party) - sum(
            t.coins for t in transfers if t.giver == party
        )
        if state.coins[party] + net_coins < 0:
            return f"{name} cannot pay that many coins"
    return None


def public_shortfall(state: State, transfers: tuple[Transfer, ...]) -> str | None:
    party = short_party(state, transfers)
    return None if party is None else shortfall(state, transfers, party, coins=False)


def short_party(state: State, transfers: tuple[Transfer, ...]) -> int | None:
    """The first party that, as every player can see, no longer holds what it gives; or None."""
    parties = {t.giver for t in transfers} | {t.receiver for t in transfers}
    for party in sorted(parties):
        if shortfall(state, transfers, party, coins=False) is not None:
            return party
    return None


def make_offer(state: State, seat: int, action: Mapping[str, Any]) -> Offer:
    """Validate a new offer fully; the Offer to open, or IllegalAction with nothing changed."""
    if set(action) != {"type", "transfers"}:
        raise _bad("an offer is {'type': 'offer', 'transfers': [...]}")
    transfers = parse_transfers(state.seats, action["transfers"])
    parties = {t.giver for t in transfers} | {t.receiver for t in transfers}
    if seat not in parties:
        raise IllegalAction("illegal", "an offer's author must be one of its parties")
    if sum(1 for o in state.offers.values() if o.author == seat) >= state.max_offers:
        raise IllegalAction("illegal", f"at most {state.max_offers} open offers each")
    reason = public_shortfall(state, transfers) or shortfall(state, transfers, seat, coins=True)
    if reason is not None:
        raise IllegalAction("illegal", reason)
    return Offer(state.next_offer, seat, transfers, [seat])


def execute(state: State, offer: Offer) -> None:
    """Carry out every transfer at once; the caller has checked that every party holds its side."""
    for t in offer.transfers:
        for n in t.locations:
            state.owner[n - 1] = t.receiver
        for kind, count in t.tiles:
            state.unbuilt[t.giver][kind] -= count
            state.unbuilt[t.receiver][kind] += count
        state.coins[t.giver] -= t.coins
        state.coins[t.receiver] += t.coins


def transfers_data(transfers: tuple[Transfer, ...]) -> list[list[Any]]:
    """A deal as the log keeps it: [giver, receiver, locations, {tile: count}, coins] each."""
    return [[t.giver, t.receiver, list(t.locations), dict(t.tiles), t.coins] for t in transfers]


def offer_view(offer: Offer) -> dict[str, Any]:
    return {
        "id": offer.id,
        "author": offer.author,
        "parties": offer.parties,
        "accepted": sorted(offer.accepted),
        "transfers": [
            {
                "from": t.giver,
                "to": t.receiver,
                "locations": list(t.locations),
                "tiles": dict(t.tiles),
                "coins": t.coins,
            }
            for t in offer.transfers
        ],
    }
