"""Waterfall Park rules: components, phases, the Exchange's offers, construction, income and the end."""
from __future__ import annotations

import json
import random
from itertools import combinations
from typing import Any

import pytest

from rules import registry
from rules.engine import IllegalAction
from rules.waterfall_park import GAME
from rules.waterfall_park.components import (
    ATTRACTIONS,
    BASES,
    BLOCKS,
    CELL,
    CIRCUS,
    GHOST_TRAIN,
    GIFT_SHOP,
    ICE_CREAM_STAND,
    LOCATIONS,
    NEIGHBOURS,
    NUMBERS,
    POOL,
    SCHEDULE,
    SIZES,
    THEATER,
    TILE_COUNTS,
)
from rules.waterfall_park.state import CONSTRUCTION, EXCHANGE, OVER, PREPARATION, State
from tests.rules.kit import assert_refusal_changes_nothing, assert_views_are_json


def new(seats: int = 3, seed: int = 1, **options: Any) -> State:
    return GAME.setup(seats, seed, GAME.check_options(seats, options))


def to_exchange(state: State) -> None:
    for seat in range(state.seats):
        GAME.apply(state, seat, GAME.legal(state, seat)[0])
    assert state.phase == EXCHANGE


def all_ready(state: State) -> None:
    for seat in range(state.seats):
        if not state.ready[seat]:
            GAME.apply(state, seat, {"type": "ready"})


def code(state: State, seat: int | None, action: Any) -> str:
    return assert_refusal_changes_nothing(GAME, state, seat, action)


def clear_board(state: State) -> None:
    """An exchange with nothing owned or held, for hand-made positions."""
    state.owner = [None] * len(NUMBERS)
    state.tile = [None] * len(NUMBERS)
    for held in state.unbuilt:
        for k in held:
            held[k] = 0
    state.refresh_earning()


def give(state: State, seat: int, *numbers: int) -> None:
    for n in numbers:
        state.owner[n - 1] = seat


def swap(a: int, la: int, b: int, lb: int, **extra: Any) -> dict[str, Any]:
    return {
        "type": "offer",
        "transfers": [
            {"from": a, "to": b, "locations": [la], **extra},
            {"from": b, "to": a, "locations": [lb]},
        ],
    }


# ---- components ---------------------------------------------------------------------------


def test_registered_under_its_protocol_id() -> None:
    assert registry.get("waterfall_park") is GAME
    assert (GAME.min_players, GAME.max_players) == (3, 5)


def test_board_has_78_locations_in_blocks_with_orthogonal_adjacency() -> None:
    assert [loc.number for loc in LOCATIONS] == list(range(1, 79))
    assert len({(loc.x, loc.y) for loc in LOCATIONS}) == 78
    block_of = {loc.number: loc.block for loc in LOCATIONS}
    for n, nbrs in NEIGHBOURS.items():
        for m in nbrs:
            (x, y), (u, v) = CELL[n], CELL[m]
            assert abs(x - u) + abs(y - v) == 1
            assert block_of[n] == block_of[m], "paths separate blocks"
    sizes = sorted(w * h for _, _, _, w, h in BLOCKS)
    assert sum(sizes) == 78
    assert sum(1 for s in sizes if s >= 5) >= 8, "room for size-5 attractions"


def test_view_carries_board_geometry() -> None:
    board = GAME.view(new(), None)["board"]
    assert len(board["locations"]) == 78
    assert board["locations"][0] == {"n": 1, "x": 0, "y": 0, "block": "A"}
    assert {b["id"] for b in board["blocks"]} == {b[0] for b in BLOCKS}


def test_attraction_tiles() -> None:
    assert len(ATTRACTIONS) == 9 and sum(TILE_COUNTS.values()) == 72
    assert (TILE_COUNTS[GIFT_SHOP], TILE_COUNTS[GHOST_TRAIN], TILE_COUNTS[THEATER]) == (6, 8, 10)
    assert SIZES[ICE_CREAM_STAND] == 3
    assert sorted(SIZES.values()) == [3, 3, 3, 4, 4, 4, 5, 5, 5]


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_player_aid_never_runs_the_deck_or_tiles_dry(seats: int) -> None:
    deck, tiles = 78, 72
    for cards, discard, dealt in SCHEDULE[seats]:
        assert cards * seats <= deck and discard == 2
        deck -= (cards - discard) * seats
        tiles -= dealt * seats
    assert tiles >= 0
    assert SCHEDULE[4][0] == (7, 2, 5)


def test_players_have_colours_and_symbols() -> None:
    players = GAME.view(new(5), None)["players"]
    assert [p["colour"] for p in players] == ["Pink", "Yellow", "Blue", "Green", "Red"]
    assert len({p["symbol"] for p in players}) == 5
    assert all(p["bases"] == BASES for p in players)


# ---- preparation --------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_setup_deals_the_first_round(seats: int) -> None:
    state = new(seats)
    cards = SCHEDULE[seats][0][0]
    assert state.phase == PREPARATION and GAME.active(state) == list(range(seats))
    assert all(len(h) == cards for h in state.hands) and state.coins == [5] * seats
    legal = GAME.legal(state, 0)
    assert len(legal) == len(list(combinations(range(cards), 2)))
    assert all(a["type"] == "discard" for a in legal)
    assert_views_are_json(GAME, state, seats)


def test_discard_validation() -> None:
    state = new()
    hand = state.hands[0]
    other = next(n for n in NUMBERS if n not in hand)
    bad: Any
    for bad in (None, 3, "discard", [], {"type": "discard"}, {"type": "discard", "cards": hand[:1]},
                {"type": "discard", "cards": [hand[0], hand[0]]}, {"type": "discard", "cards": [True, 2]},
                {"type": "discard", "cards": hand[:2], "x": 1}, {"type": "discard", "cards": "12"}):
        assert code(state, 0, bad) == "bad_message"
    assert code(state, 0, {"type": "discard", "cards": [hand[0], other]}) == "illegal"
    assert code(state, 0, {"type": "build", "location": hand[0], "tile": POOL}) == "illegal"
    assert code(state, 0, {"type": "nonsense"}) == "bad_message"
    assert code(state, None, GAME.legal(state, 0)[0]) == "unauthorized"
    GAME.apply(state, 0, {"type": "discard", "cards": [hand[1], hand[0]]})  # any order
    assert code(state, 0, {"type": "discard", "cards": hand[2:4]}) == "not_your_turn"
    assert GAME.active(state) == [1, 2] and GAME.legal(state, 0) == []


def test_choices_stay_secret_until_all_have_chosen_then_bases_and_tiles() -> None:
    state = new(3, seed=5)
    hands = [list(h) for h in state.hands]
    GAME.apply(state, 0, {"type": "discard", "cards": hands[0][:2]})
    mine, theirs = GAME.view(state, 0), GAME.view(state, 1)
    assert mine["discarded"] == hands[0][:2] and theirs["discarded"] is None
    assert theirs["hand"] == hands[1] and mine["hand"] == hands[0]
    assert theirs["players"][0]["ready"] is True and theirs["players"][0]["cards"] == 7
    deck_before = len(state.deck)
    GAME.apply(state, 1, {"type": "discard", "cards": hands[1][:2]})
    GAME.apply(state, 2, {"type": "discard", "cards": hands[2][-2:]})
    assert state.phase == EXCHANGE
    assert state.owned(0) == sorted(hands[0][2:]) and state.owned(2) == sorted(hands[2][:-2])
    assert len(state.deck) == deck_before + 6 and hands[2][-1] in state.deck
    assert all(sum(u.values()) == 6 for u in state.unbuilt)  # 3 players, round 1: 6 tiles
    assert len(state.tile_deck) == 72 - 18
    assert all(p["tiles"] == state.unbuilt[p["seat"]] for p in GAME.view(state, None)["players"])


def out_of_bases(seed: int = 2) -> tuple[State, list[int], list[int]]:
    """Pink holds all 24 bases (the first of its locations built) and has chosen its discards."""
    state = new(3, seed=seed)
    hand = state.hands[0]
    spare = [n for n in NUMBERS if n not in {c for h in state.hands for c in h}][:BASES]
    give(state, 0, *spare)
    state.tile[spare[0] - 1] = POOL  # built: its base stays
    GAME.apply(state, 0, {"type": "discard", "cards": hand[:2]})
    GAME.apply(state, 1, GAME.legal(state, 1)[0])
    GAME.apply(state, 2, GAME.legal(state, 2)[0])
    return state, hand[2:], spare


def test_out_of_bases_the_player_chooses_which_empty_location_gives_up_its_base() -> None:
    """ "If you have no more bases, you can remove one of yours from an empty location (with no tile
    on top) and place it directly on a new location": which one is the player's choice."""
    state, kept, spare = out_of_bases()
    assert state.phase == PREPARATION and GAME.active(state) == [0]
    assert all(sum(u.values()) == 0 for u in state.unbuilt), "tiles come once the bases are placed"
    legal = GAME.legal(state, 0)
    first = kept[0]
    assert legal == [{"type": "move_base", "from": n, "to": first} for n in spare[1:]] + [
        {"type": "return_card", "card": first}]
    assert GAME.view(state, 1)["players"][0]["waiting"] == kept
    # not the lowest-numbered: the player's own pick
    GAME.apply(state, 0, {"type": "move_base", "from": spare[5], "to": first})
    assert state.owner[spare[5] - 1] is None and state.owner[first - 1] == 0
    assert state.owner[spare[1] - 1] == 0
    assert ["base_moved", 0, spare[5], first] in state.log
    # a location placed in this reveal keeps its base; the next card waits its turn
    legal = GAME.legal(state, 0)
    assert {a["from"] for a in legal if a["type"] == "move_base"} == set(spare[1:]) - {spare[5]}
    assert code(state, 0, {"type": "move_base", "from": spare[1], "to": kept[2]}) == "illegal"
    assert code(state, 0, {"type": "move_base", "from": first, "to": kept[1]}) == "illegal"
    assert code(state, 0, {"type": "move_base", "from": spare[0], "to": kept[1]}) == "illegal"  # built
    assert code(state, 1, {"type": "return_card", "card": kept[1]}) == "not_your_turn"
    assert code(state, 0, {"type": "discard", "cards": kept[1:3]}) == "illegal"
    assert code(state, 0, {"type": "move_base", "from": "x", "to": kept[1]}) == "bad_message"
    # or it declines: the card goes back into the deck and every base stays
    GAME.apply(state, 0, {"type": "return_card", "card": kept[1]})
    assert state.owner[kept[1] - 1] is None and kept[1] in state.deck
    for card in kept[2:]:
        assert GAME.legal(state, 0)[-1] == {"type": "return_card", "card": card}
        GAME.apply(state, 0, {"type": "return_card", "card": card})
    assert state.phase == EXCHANGE and all(sum(u.values()) == 6 for u in state.unbuilt)
    assert state.bases_left(0) == 0 and GAME.view(state, None)["players"][0]["waiting"] == []
    assert len(state.deck) + len(state.box) + sum(map(len, state.hands)) == 78


def test_out_of_bases_the_choice_waits_for_its_player_and_times_out_keeping_the_bases() -> None:
    state, kept, spare = out_of_bases()
    assert GAME.timeout_action(state, 0) == {"type": "return_card", "card": kept[0]}
    assert GAME.legal(state, 1) == [] and GAME.active(state) == [0]
    owners = list(state.owner)
    for _ in kept:
        GAME.apply(state, 0, GAME.timeout_action(state, 0))
    assert state.owner == owners and state.phase == EXCHANGE


def test_out_of_bases_with_every_location_built_returns_the_card() -> None:
    state = new(3, seed=2)
    hand = state.hands[0]
    spare = [n for n in NUMBERS if n not in {c for h in state.hands for c in h}][:BASES]
    give(state, 0, *spare)
    for n in spare:
        state.tile[n - 1] = POOL
    for seat in range(3):
        GAME.apply(state, seat, GAME.legal(state, seat)[0])
    assert all(state.owner[n - 1] is None and n in state.deck for n in hand[2:])
    assert len(state.deck) + len(state.box) + sum(map(len, state.hands)) == 78


def test_out_of_bases_a_bot_moves_a_base_only_where_it_gains() -> None:
    state, kept, spare = out_of_bases()
    clear_board(state)
    # Pink: a Pool of 2 on locations 1 and 2, a Pool tile to build, 22 empty locations elsewhere
    far = [n for n in NUMBERS if CELL[n][1] >= 3][:BASES - 2]
    give(state, 0, 1, 2, *far)
    state.tile[0] = state.tile[1] = POOL
    state.unbuilt[0][POOL] = 1
    state.pending[0] = [3]  # location 3 lies next to 2
    state.placed[0] = []
    view = GAME.view(state, 0)
    action = GAME.bot_action(view, random.Random(0))
    assert action is not None and action["type"] == "move_base" and action["to"] == 3
    assert action in view["legal"] and action["from"] in far
    # a card far from everything of Pink's gains nothing: the card goes back
    lonely = next(n for n in NUMBERS if state.owner[n - 1] is None and CELL[n][1] == 0 and CELL[n][0] >= 9)
    state.pending[0] = [lonely]
    assert GAME.bot_action(GAME.view(state, 0), random.Random(0)) == {"type": "return_card", "card": lonely}


# ---- exchange -----------------------------------------------------------------------------


def exchange_position(seats: int = 3) -> State:
    state = new(seats, seed=3)
    to_exchange(state)
    clear_board(state)
    give(state, 0, 1, 2)
    give(state, 1, 5, 6)
    give(state, 2, 10, 11)
    state.unbuilt[0][POOL] = 2
    state.unbuilt[1][CIRCUS] = 1
    return state


def test_a_swap_executes_when_every_party_accepts() -> None:
    state = exchange_position()
    GAME.apply(state, 0, swap(0, 1, 1, 5, tiles={POOL: 1}, coins=2))
    view1 = GAME.view(state, 1)
    offer = view1["offers"]["1"]
    assert offer["parties"] == [0, 1] and offer["accepted"] == [0]
    assert offer["transfers"][0] == {"from": 0, "to": 1, "locations": [1], "tiles": {POOL: 1}, "coins": 2}
    assert {"type": "accept", "offer": 1} in view1["legal"]
    assert {"type": "decline", "offer": 1} in view1["legal"]
    assert {"type": "withdraw", "offer": 1} in GAME.legal(state, 0)
    assert GAME.legal(state, 2) == [{"type": "ready"}]
    assert code(state, 2, {"type": "accept", "offer": 1}) == "illegal"
    assert code(state, 0, {"type": "accept", "offer": 1}) == "illegal"  # the author already accepted
    GAME.apply(state, 1, {"type": "accept", "offer": 1})
    assert state.owner[0] == 1 and state.owner[4] == 0
    assert state.unbuilt[0][POOL] == 1 and state.unbuilt[1][POOL] == 1
    assert state.coins[:2] == [3, 7] and state.offers == {} and state.trades == 1


def test_three_party_offer_is_atomic() -> None:
    state = exchange_position()
    offer = {
        "type": "offer",
        "transfers": [
            {"from": 0, "to": 1, "locations": [1]},
            {"from": 1, "to": 2, "tiles": {CIRCUS: 1}},
            {"from": 2, "to": 0, "locations": [10, 11], "coins": 1},
        ],
    }
    GAME.apply(state, 0, offer)
    GAME.apply(state, 2, {"type": "accept", "offer": 1})
    assert state.owner[0] == 0 and state.unbuilt[1][CIRCUS] == 1  # nothing moved yet
    GAME.apply(state, 1, {"type": "accept", "offer": 1})
    assert state.owner[0] == 1 and state.owner[9] == 0 and state.owner[10] == 0
    assert state.unbuilt[2][CIRCUS] == 1 and state.unbuilt[1][CIRCUS] == 0
    assert sum(state.coins) == 15 and state.coins[0] == 6


def test_a_built_location_changes_owner_with_its_tile() -> None:
    state = exchange_position()
    state.tile[0] = POOL
    state.refresh_earning()
    assert state.earning[0] == 1
    GAME.apply(state, 1, {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "locations": [1]}, {"from": 1, "to": 0, "coins": 4}]})
    GAME.apply(state, 0, {"type": "accept", "offer": 1})
    assert state.owner[0] == 1 and state.tile[0] == POOL and state.earning[:2] == [0, 1]


BAD_OFFERS: list[Any] = [
    {"type": "offer"},
    {"type": "offer", "transfers": []},
    {"type": "offer", "transfers": "x"},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "locations": [1]}], "note": 1},
    {"type": "offer", "transfers": [{"from": 0, "locations": [1]}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 0, "locations": [1]}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 3, "locations": [1]}]},
    {"type": "offer", "transfers": [{"from": True, "to": 1, "locations": [1]}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "locations": [0]}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "locations": [79]}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "locations": [1, 1]}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "locations": 1}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "locations": ["1"]}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "tiles": {"Rollercoaster": 1}}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "tiles": {POOL: -1}}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "tiles": {POOL: 1.0}}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "tiles": [POOL]}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "tiles": {1: 1}}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "coins": -1}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "coins": 10**30}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "coins": False}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "coins": 0}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "coins": 1, "gift": 1}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "coins": 1}, {"from": 0, "to": 1, "coins": 1}]},
    {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "locations": [1]}, {"from": 1, "to": 0, "locations": [1]}]},
    {"type": "offer", "transfers": [{"from": 0, "to": 1, "coins": 1}] * 21},
    {"type": "offer", "transfers": [None]},
    {"type": "accept"},
    {"type": "accept", "offer": "1"},
    {"type": "accept", "offer": True},
    {"type": "withdraw", "offer": 1.5},
    {"type": "ready", "now": True},
]


@pytest.mark.parametrize("bad", BAD_OFFERS)
def test_malformed_exchange_actions_are_bad_messages(bad: Any) -> None:
    assert code(exchange_position(), 0, bad) == "bad_message"


def test_offers_that_break_rules_are_illegal() -> None:
    state = exchange_position()
    one = {"type": "offer", "transfers": [{"from": 1, "to": 2, "coins": 1}]}
    assert code(state, 0, one) == "illegal"  # the author must be a party
    assert code(state, 0, swap(0, 5, 1, 6)) == "illegal"  # 5 is Yellow's
    assert code(state, 0, swap(0, 1, 1, 2)) == "illegal"  # 2 is Pink's own
    assert code(state, 0, swap(0, 1, 1, 5, tiles={POOL: 3})) == "illegal"
    assert code(state, 0, swap(0, 1, 1, 5, coins=6)) == "illegal"  # Pink holds 5 coins
    circus = {"type": "offer", "transfers": [{"from": 0, "to": 1, "tiles": {CIRCUS: 1}}]}
    assert code(state, 0, circus) == "illegal"
    assert code(state, 0, {"type": "accept", "offer": 99}) == "illegal"
    # the other side's coins are secret: asking for more than it holds is allowed, accepting is not
    GAME.apply(state, 0, {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "locations": [1]}, {"from": 1, "to": 0, "coins": 50}]})
    assert {"type": "accept", "offer": 1} not in GAME.legal(state, 1)
    assert code(state, 1, {"type": "accept", "offer": 1}) == "illegal"
    assert code(state, 1, {"type": "withdraw", "offer": 1}) == "illegal"
    assert code(state, 0, {"type": "decline", "offer": 1}) == "illegal"


def test_bases_limit_what_a_player_can_receive() -> None:
    state = exchange_position()
    give(state, 1, *range(20, 20 + BASES - 2))  # Yellow now holds all 24 bases' worth
    assert state.bases_left(1) == 0
    assert code(state, 0, {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "locations": [1]}, {"from": 1, "to": 0, "coins": 1}]}) == "illegal"
    GAME.apply(state, 0, swap(0, 1, 1, 5))  # one for one is fine
    GAME.apply(state, 1, {"type": "accept", "offer": 1})
    assert state.bases_left(1) == 0 and state.owner[0] == 1


def test_max_open_offers_per_player() -> None:
    state = exchange_position()
    state.max_offers = 2
    gift = {"type": "offer", "transfers": [{"from": 0, "to": 1, "coins": 1}]}
    GAME.apply(state, 0, gift)
    GAME.apply(state, 0, gift)
    assert code(state, 0, gift) == "illegal"
    GAME.apply(state, 0, {"type": "withdraw", "offer": 1})
    GAME.apply(state, 0, gift)
    assert sorted(state.offers) == [2, 3]
    assert GAME.view(state, None)["max_offers"] == 2
    assert GAME.check_options(3, {})["max_offers"] == 5
    with pytest.raises(IllegalAction):
        GAME.check_options(3, {"max_offers": 0})


def test_two_offers_on_one_location_first_accepted_wins_second_is_void() -> None:
    state = exchange_position()
    GAME.apply(state, 0, {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "locations": [1]}, {"from": 1, "to": 0, "coins": 2}]})
    GAME.apply(state, 0, {"type": "offer", "transfers": [
        {"from": 0, "to": 2, "locations": [1]}, {"from": 2, "to": 0, "coins": 3}]})
    GAME.apply(state, 2, {"type": "accept", "offer": 2})
    assert state.owner[0] == 2 and 1 not in state.offers
    assert any(entry[:2] == ["void", 1] for entry in state.log)
    assert code(state, 1, {"type": "accept", "offer": 1}) == "illegal"
    assert state.coins == [8, 5, 2]


def test_cannot_give_what_you_no_longer_hold_coins_fail_on_the_last_acceptance() -> None:
    state = exchange_position()
    # Yellow promises 5 coins in a three-party offer and accepts it ...
    GAME.apply(state, 0, {"type": "offer", "transfers": [
        {"from": 0, "to": 2, "locations": [1]}, {"from": 1, "to": 0, "coins": 5},
        {"from": 2, "to": 1, "locations": [10]}]})
    GAME.apply(state, 1, {"type": "accept", "offer": 1})
    # ... then spends 3 of them elsewhere; coins are secret, so offer 1 stays open
    GAME.apply(state, 1, {"type": "offer", "transfers": [{"from": 1, "to": 2, "coins": 3}]})
    GAME.apply(state, 2, {"type": "accept", "offer": 2})
    assert 1 in state.offers and state.coins[1] == 2
    before = (list(state.owner), list(state.coins))
    GAME.apply(state, 2, {"type": "accept", "offer": 1})
    assert (state.owner, state.coins) == before and state.offers == {}
    assert state.log[-1][0] == "fails"


def test_agreements_that_can_be_completed_immediately_settle_as_a_whole() -> None:
    """ "You must respect agreements that can be completed immediately": the deal settles at once, so
    a coin received in it may be passed on in it. Pink 3 coins to Yellow, Yellow 3 coins to Blue,
    Blue a location to Pink, with Yellow holding no coin."""
    state = exchange_position()
    state.coins = [5, 0, 5]
    deal = {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "coins": 3},
        {"from": 1, "to": 2, "coins": 3},
        {"from": 2, "to": 0, "locations": [10]}]}
    GAME.apply(state, 0, deal)
    assert {"type": "accept", "offer": 1} in GAME.legal(state, 1)
    GAME.apply(state, 1, {"type": "accept", "offer": 1})
    GAME.apply(state, 2, {"type": "accept", "offer": 1})
    assert state.trades == 1 and state.offers == {}
    assert state.coins == [2, 0, 8] and state.owner[9] == 0
    # Yellow, the author now, may offer to pass on what the same deal brings it
    state = exchange_position()
    state.coins = [5, 0, 5]
    GAME.apply(state, 1, deal)
    GAME.apply(state, 0, {"type": "accept", "offer": 1})
    GAME.apply(state, 2, {"type": "accept", "offer": 1})
    assert state.coins == [2, 0, 8] and state.owner[9] == 0


def test_a_tile_received_in_a_deal_may_be_passed_on_in_it() -> None:
    state = exchange_position()
    assert state.unbuilt[1][POOL] == 0
    GAME.apply(state, 0, {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "tiles": {POOL: 1}},
        {"from": 1, "to": 2, "tiles": {POOL: 1}},
        {"from": 2, "to": 0, "coins": 2}]})
    GAME.apply(state, 1, {"type": "accept", "offer": 1})
    GAME.apply(state, 2, {"type": "accept", "offer": 1})
    assert [u[POOL] for u in state.unbuilt] == [1, 0, 1] and state.coins == [7, 5, 3]


def test_what_the_whole_deal_cannot_cover_is_still_refused() -> None:
    state = exchange_position()
    state.coins = [5, 0, 5]
    # Yellow would give 4 coins and receive 3, holding none: refused to Yellow, nothing moves
    GAME.apply(state, 0, {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "coins": 3},
        {"from": 1, "to": 2, "coins": 4},
        {"from": 2, "to": 0, "locations": [10]}]})
    assert {"type": "accept", "offer": 1} not in GAME.legal(state, 1)
    assert code(state, 1, {"type": "accept", "offer": 1}) == "illegal"
    # a tile passed on must come in the same deal: Yellow gives 2 Pools and receives 1
    assert code(state, 0, {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "tiles": {POOL: 1}},
        {"from": 1, "to": 2, "tiles": {POOL: 2}}]}) == "illegal"
    # and a party whose coins went elsewhere meanwhile makes the whole deal fail on the last acceptance
    state = exchange_position()
    state.coins = [5, 0, 5]
    GAME.apply(state, 1, {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "coins": 3},
        {"from": 1, "to": 2, "coins": 3},
        {"from": 2, "to": 0, "locations": [10]}]})
    GAME.apply(state, 0, {"type": "accept", "offer": 1})
    GAME.apply(state, 0, {"type": "offer", "transfers": [{"from": 0, "to": 2, "coins": 4}]})
    GAME.apply(state, 2, {"type": "accept", "offer": 2})
    before = (list(state.owner), list(state.coins))
    GAME.apply(state, 2, {"type": "accept", "offer": 1})
    assert (state.owner, state.coins) == before and state.log[-1][0] == "fails"


def test_readiness_new_offers_clear_their_parties_trades_clear_everyone() -> None:
    state = exchange_position()
    for seat in (0, 1):
        GAME.apply(state, seat, {"type": "ready"})
    assert GAME.active(state) == [2]
    assert code(state, 0, {"type": "ready"}) == "illegal"
    GAME.apply(state, 2, {"type": "offer", "transfers": [{"from": 2, "to": 1, "locations": [10]}]})
    assert state.ready == [True, False, False]
    assert {"type": "unready"} in GAME.legal(state, 0)
    GAME.apply(state, 1, {"type": "accept", "offer": 1})
    assert state.ready == [False, False, False]
    GAME.apply(state, 0, {"type": "ready"})
    GAME.apply(state, 0, {"type": "unready"})
    assert code(state, 0, {"type": "unready"}) == "illegal"
    GAME.apply(state, 0, {"type": "offer", "transfers": [{"from": 0, "to": 1, "coins": 1}]})
    all_ready(state)
    assert state.phase == CONSTRUCTION and state.offers == {}
    assert any(entry[0] == "lapse" for entry in state.log)


def test_offers_belong_to_the_exchange() -> None:
    state = new()
    offer = {"type": "offer", "transfers": [{"from": 0, "to": 1, "coins": 1}]}
    assert code(state, 0, offer) == "illegal"


# ---- construction and income --------------------------------------------------------------


def construction_position() -> State:
    state = exchange_position()
    all_ready(state)
    assert state.phase == CONSTRUCTION
    return state


def test_construction_places_own_tiles_on_own_empty_locations() -> None:
    state = construction_position()
    assert state.ready == [False, False, True]  # Blue holds no tile: nothing to do
    legal = GAME.legal(state, 0)
    assert legal == [
        {"type": "build", "location": 1, "tile": POOL},
        {"type": "build", "location": 2, "tile": POOL},
        {"type": "done"},
    ]
    assert code(state, 0, {"type": "build", "location": 5, "tile": POOL}) == "illegal"
    assert code(state, 0, {"type": "build", "location": 1, "tile": CIRCUS}) == "illegal"
    assert code(state, 0, {"type": "build", "location": 1, "tile": "Pools"}) == "bad_message"
    assert code(state, 0, {"type": "build", "location": 100, "tile": POOL}) == "bad_message"
    assert code(state, 0, {"type": "build", "location": 1}) == "bad_message"
    GAME.apply(state, 0, {"type": "build", "location": 1, "tile": POOL})
    assert code(state, 0, {"type": "build", "location": 1, "tile": POOL}) == "illegal"
    assert state.earning[0] == 1
    GAME.apply(state, 0, {"type": "build", "location": 2, "tile": POOL})
    assert state.ready[0] and state.earning[0] == 3  # nothing left to build: done by itself
    assert code(state, 0, {"type": "done"}) == "not_your_turn"
    GAME.apply(state, 1, {"type": "done"})
    assert state.phase == PREPARATION and state.round == 2
    assert [p["income"] for p in GAME.view(state, None)["players"]] == [[3], [0], [0]]
    assert state.coins == [8, 5, 5] and state.unbuilt[1][CIRCUS] == 1
    assert ["income", 1, [3, 0, 0]] in state.log


def test_reshaping_example_through_the_engine() -> None:
    state = construction_position()
    clear_board(state)
    # Block B is 4 x 2: locations 4-7 on the top row, 16-19 below them.
    assert [CELL[n] for n in (4, 7, 16)] == [(4, 0), (7, 0), (4, 1)]
    give(state, 0, 4, 5, 6, 7, 16)
    for n in (4, 5, 6):
        state.tile[n - 1] = ICE_CREAM_STAND
    state.refresh_earning()
    assert state.earning[0] == 6  # round 2: one complete Ice Cream Stand of size 3
    state.unbuilt[0][ICE_CREAM_STAND] = 2
    GAME.apply(state, 0, {"type": "build", "location": 7, "tile": ICE_CREAM_STAND})
    GAME.apply(state, 0, {"type": "build", "location": 16, "tile": ICE_CREAM_STAND})
    assert state.earning[0] == 6 + 3  # reshaped: one complete and one of size 2


def test_the_view_says_how_the_income_is_split_and_which_attractions_are_complete() -> None:
    """ "Red constructs 2 adjacent Ice Cream Stands: 1 of size 3 (complete) and 1 of size 2
    (incomplete)": the view names each attraction, its locations, and whether it is complete."""
    state = construction_position()
    clear_board(state)
    give(state, 0, 4, 5, 6, 7, 16, 1, 20)
    state.unbuilt[0][ICE_CREAM_STAND] = 5
    state.unbuilt[0][CIRCUS] = 1
    for n in (4, 5, 6, 7, 16):
        GAME.apply(state, 0, {"type": "build", "location": n, "tile": ICE_CREAM_STAND})
    GAME.apply(state, 0, {"type": "build", "location": 1, "tile": CIRCUS})
    for viewer in (None, 0, 1):
        pink = GAME.view(state, viewer)["players"][0]
        attractions = sorted(pink["attractions"], key=lambda a: (a["tile"], -a["size"]))
        assert [(a["tile"], a["size"], a["complete"], a["income"]) for a in attractions] == [
            (CIRCUS, 1, False, 1), (ICE_CREAM_STAND, 3, True, 6), (ICE_CREAM_STAND, 2, False, 3)]
        assert sorted(n for a in attractions for n in a["locations"]) == [1, 4, 5, 6, 7, 16]
        assert sum(a["income"] for a in attractions) == pink["earning"] == 10
        assert GAME.view(state, viewer)["players"][1]["attractions"] == []


def test_game_ends_after_round_four_most_coins_then_tiles_then_shared() -> None:
    state = construction_position()
    state.round = 4
    clear_board(state)
    give(state, 0, 1)
    give(state, 1, 5, 6)
    give(state, 2, 10)
    state.tile[0] = POOL
    state.tile[4] = POOL  # Yellow: two adjacent tiles of different attractions, 1 + 1
    state.tile[5] = GIFT_SHOP
    state.coins = [10, 7, 11]
    state.ready = [False, True, True]
    GAME.apply(state, 0, {"type": "done"})
    # Pink 10 + 1, Yellow 7 + 1 + 1, Blue 11 + 0: Pink and Blue tie on 11, Pink has more tiles
    assert state.phase == OVER and state.coins == [11, 9, 11]
    assert GAME.result(state) == {"winners": [0], "scores": [11, 9, 11]}
    view = GAME.view(state, 1)
    assert [p["coins"] for p in view["players"]] == [11, 9, 11]
    assert view["result"]["tiles_on_board"] == [1, 2, 0]
    assert GAME.legal(state, 0) == [] and GAME.active(state) == []
    assert code(state, 0, {"type": "done"}) == "game_over"


def test_a_full_tie_is_shared() -> None:
    state = construction_position()
    state.round = 4
    clear_board(state)
    state.coins = [9, 9, 4]
    state.ready = [False, True, True]
    GAME.apply(state, 0, {"type": "done"})
    assert GAME.result(state) == {"winners": [0, 1], "scores": [9, 9, 4]}


def test_coins_are_hidden_until_the_end() -> None:
    state = construction_position()
    view = GAME.view(state, 1)
    assert [p["coins"] for p in view["players"]] == [None, 5, None]
    assert all(p["coins"] is None for p in GAME.view(state, None)["players"])


def test_timeouts_and_decision_weights() -> None:
    state = new()
    assert GAME.decision_weight(state) == 1.0
    assert GAME.timeout_action(state, 0) == GAME.legal(state, 0)[0]
    to_exchange(state)
    assert GAME.decision_weight(state) == 4.0
    for seat in range(3):
        GAME.apply(state, seat, GAME.timeout_action(state, seat))
    assert state.phase in (CONSTRUCTION, PREPARATION)
    if state.phase == CONSTRUCTION:
        assert GAME.decision_weight(state) == 2.0
        for seat in GAME.active(state):
            GAME.apply(state, seat, GAME.timeout_action(state, seat))
    assert state.phase == PREPARATION and state.round == 2


def test_spectators_have_no_legal_actions_and_views_are_stable() -> None:
    state = new()
    to_exchange(state)
    assert GAME.view(state, None)["legal"] == [] and GAME.view(state, None)["hand"] == []
    assert json.dumps(GAME.view(state, 0)) == json.dumps(GAME.view(state, 0))
    assert_views_are_json(GAME, state, 3)


def test_a_counter_offer_declines_the_offer_it_answers_in_the_same_step() -> None:
    """A counter-offer is a "no, but": the offer it answers does not stay open beside it. Everything
    is checked first: a counter to an offer that is not one's to answer, or a counter that is not a
    valid offer, changes nothing and leaves the original open."""
    state = exchange_position()
    GAME.apply(state, 0, swap(0, 1, 1, 5, tiles={POOL: 1}, coins=2))
    counter = {"type": "offer", "transfers": [{"from": 0, "to": 1, "locations": [1]},
                                              {"from": 1, "to": 0, "locations": [5]}], "counters": 1}
    assert code(state, 0, counter) == "illegal"  # its own offer: withdraw it instead
    assert code(state, 2, {**counter, "transfers": [{"from": 2, "to": 0, "coins": 1}]}) == "illegal"  # not a party
    assert code(state, 1, {**counter, "counters": 9}) == "illegal"  # no such offer
    assert code(state, 1, {**counter, "transfers": [{"from": 1, "to": 0, "coins": 99}]}) == "illegal"
    assert code(state, 1, {**counter, "counters": "1"}) == "bad_message"
    assert sorted(state.offers) == [1]  # each refusal was proved to change nothing (`code`)
    events = GAME.apply(state, 1, counter)
    assert [e["kind"] for e in events] == ["declined", "offer"]
    assert events[0] == {"kind": "declined", "offer": 1, "seat": 1, "countered": 2}
    assert sorted(state.offers) == [2] and state.offers[2].author == 1
    assert any(entry[0] == "countered" and entry[2] == 1 for entry in state.log)
