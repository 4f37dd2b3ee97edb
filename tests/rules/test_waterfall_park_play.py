"""Waterfall Park under random play with random offers: no crash, an end, conservation, secrecy, replay."""
from __future__ import annotations

import copy
import json
import pickle
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.engine import IllegalAction
from rules.waterfall_park import GAME
from rules.waterfall_park.bot import OFFERS_PER_ROUND
from rules.waterfall_park.components import (
    ATTRACTIONS,
    BASES,
    NUMBERS,
    POOL,
    START_COINS,
    TILE_COUNTS,
)
from rules.waterfall_park.state import EXCHANGE, PREPARATION, State
from tests.rules.kit import assert_views_are_json, random_playout, replay

Step = tuple[int, dict[str, Any]]


def scramble(state: State, viewer: int | None, seed: int) -> State:
    """A copy of `state` that differs in everything `viewer` cannot see.

    Other players' hands are redealt from the pool of face-down Location cards (theirs and the
    deck), their secret discard choices are redrawn from their new hands, their coin totals change,
    both decks are reshuffled and the RNG is reseeded.
    """
    rng = random.Random(seed)
    s = copy.deepcopy(state)
    others = [p for p in range(s.seats) if p != viewer]
    pool = list(s.deck) + [c for p in others for c in s.hands[p]]
    rng.shuffle(pool)
    for p in others:
        s.hands[p] = sorted(pool.pop() for _ in s.hands[p])
        if s.discards[p] is not None:
            a, b = sorted(rng.sample(s.hands[p], 2))
            s.discards[p] = (a, b)
        s.coins[p] = rng.randrange(0, 300)
    s.deck = pool
    rng.shuffle(s.tile_deck)
    s.rng = random.Random(rng.random())
    return s


def assert_non_interference(state: State, seed: int) -> None:
    for viewer in [None, *range(state.seats)]:
        mine = json.dumps(GAME.view(state, viewer), sort_keys=True)
        other = json.dumps(GAME.view(scramble(state, viewer, seed), viewer), sort_keys=True)
        assert mine == other, f"seat {viewer} can see something hidden"


def assert_conserved(state: State) -> None:
    n = state.seats
    assert sum(state.coins) == START_COINS * n + sum(sum(i) for i in state.income)
    assert all(c >= 0 for c in state.coins)
    tiles = Counter(state.tile_deck)
    for held in state.unbuilt:
        tiles.update({k: c for k, c in held.items() if c})
        assert all(c >= 0 for c in held.values())
    tiles.update(t for t in state.tile if t is not None)
    assert tiles == Counter(TILE_COUNTS)
    waiting = [c for p in state.pending for c in p]  # revealed, waiting for a base or the deck
    cards = [*state.deck, *state.box, *(c for h in state.hands for c in h), *waiting]
    assert sorted(cards) == list(NUMBERS)
    for c in [*state.deck, *(c for h in state.hands for c in h), *waiting]:
        assert state.owner[c - 1] is None, "a card in play names an unowned location"
    for n in NUMBERS:
        if state.tile[n - 1] is not None:
            assert state.owner[n - 1] is not None
    assert all(0 <= state.bases_left(s) <= BASES for s in range(n))
    for offer in state.offers.values():
        assert set(offer.accepted) <= set(offer.parties) and offer.author in offer.accepted


def random_offer(state: State, rng: random.Random) -> Step:
    """An offer an impatient player might make: mostly valid, sometimes asking for what is not there."""
    author = rng.randrange(state.seats)
    partners = rng.sample([p for p in range(state.seats) if p != author], rng.choice([1, 1, 2]))
    parties = [author, *partners]
    transfers: list[dict[str, Any]] = []
    for giver in parties:
        receiver = rng.choice([p for p in parties if p != giver])
        owned = state.owned(giver)
        item: dict[str, Any] = {"from": giver, "to": receiver}
        if owned and rng.random() < 0.6:
            item["locations"] = rng.sample(owned, min(len(owned), rng.choice([1, 1, 2])))
        held = [k for k in ATTRACTIONS if state.unbuilt[giver][k] > 0]
        if held and rng.random() < 0.5:
            item["tiles"] = {rng.choice(held): 1}
        if rng.random() < 0.4 or len(item) == 2:
            item["coins"] = rng.randint(1, 4)
        transfers.append(item)
    return author, {"type": "offer", "transfers": transfers}


def try_apply(state: State, seat: int, action: dict[str, Any]) -> bool:
    before = pickle.dumps(state)
    try:
        GAME.apply(state, seat, copy.deepcopy(action))
    except IllegalAction as e:
        assert e.code in ("illegal", "bad_message", "not_your_turn"), e.code
        assert pickle.dumps(state) == before, "a refused action changed the state"
        return False
    return True


def playout(seats: int, seed: int, *, check_every: int = 0, crowd: int = 0) -> tuple[State, list[Step]]:
    """Random play with random offers; Pink starts with `crowd` locations (from the deck's bottom),
    so that it runs out of bases within the game (the deck still serves every deal)."""
    state = GAME.setup(seats, seed, GAME.check_options(seats, {}))
    for n in state.deck[:crowd]:
        state.owner[n - 1] = 0
        state.box.append(n)
    del state.deck[:crowd]
    rng = random.Random(seed * 7 + 1)
    steps: list[Step] = []
    offers_this_exchange = 0
    for i in range(5000):
        if GAME.result(state) is not None:
            break
        if state.phase != EXCHANGE:
            offers_this_exchange = 0
        if state.phase == EXCHANGE and offers_this_exchange < 8 and rng.random() < 0.35:
            seat, action = random_offer(state, rng)
            offers_this_exchange += 1
        else:
            movers = [s for s in range(seats) if GAME.legal(state, s)]
            seat = rng.choice(movers)
            choices = GAME.legal(state, seat)
            if len(choices) > 1 and rng.random() < 0.9:
                choices = [a for a in choices if a["type"] != "unready"]
            action = rng.choice(choices)
        if try_apply(state, seat, action):
            steps.append((seat, action))
        assert_conserved(state)
        if check_every and i % check_every == 0 and GAME.result(state) is None:
            assert_non_interference(state, seed + i)
    return state, steps


@settings(max_examples=12, deadline=None)
@given(seats=st.sampled_from([3, 4, 5]), seed=st.integers(0, 10**6))
def test_random_play_with_offers_ends_conserves_and_hides(seats: int, seed: int) -> None:
    state, steps = playout(seats, seed, check_every=9)
    result = GAME.result(state)
    assert result is not None and result["winners"]
    assert all(len(i) == 4 for i in state.income)
    assert_views_are_json(GAME, state, seats)
    assert any(a["type"] == "offer" for _, a in steps)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_random_play_out_of_bases_ends_conserves_and_hides(seed: int) -> None:
    """A seat that runs out of bases chooses where its bases go: the game still ends, conserves
    everything and hides what it hid."""
    state, steps = playout(3, seed, check_every=3, crowd=12)
    assert GAME.result(state) is not None
    kinds = Counter(a["type"] for _, a in steps)
    assert kinds["move_base"] + kinds["return_card"] > 0


def test_random_play_trades_for_every_player_count() -> None:
    trades = 0
    for seats in (3, 4, 5):
        for seed in range(2):
            state, steps = playout(seats, seed)
            assert GAME.result(state) is not None
            trades += state.trades
    assert trades > 0


def test_the_shared_kit_playout_reaches_the_end() -> None:
    for seats in (3, 4, 5):
        out = random_playout(GAME, seats, seed=seats)
        assert out.finished, "listed actions alone (no offers) finish the game"
        assert_conserved(out.state)


def test_same_seed_and_actions_give_the_same_game() -> None:
    state, steps = playout(4, 42)
    again = replay(GAME, 4, 42, None, [(s, a) for s, a in steps])
    for viewer in [None, 0, 1, 2, 3]:
        assert json.dumps(GAME.view(state, viewer)) == json.dumps(GAME.view(again, viewer))
    assert pickle.dumps(state) == pickle.dumps(again)


def test_state_survives_deepcopy_and_pickle_mid_exchange() -> None:
    state = GAME.setup(3, 9, GAME.check_options(3, {}))
    for seat in range(3):
        GAME.apply(state, seat, GAME.legal(state, seat)[0])
    GAME.apply(state, 0, {"type": "offer", "transfers": [{"from": 0, "to": 1, "coins": 2}]})
    for clone in (copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert GAME.view(clone, 1) == GAME.view(state, 1)
        GAME.apply(clone, 1, {"type": "accept", "offer": 1})
        assert clone.coins[1] == 7 and state.coins[1] == 5


def test_non_interference_in_preparation_after_some_have_chosen() -> None:
    state = GAME.setup(5, 3, GAME.check_options(5, {}))
    GAME.apply(state, 1, GAME.legal(state, 1)[3])
    GAME.apply(state, 3, GAME.legal(state, 3)[0])
    assert state.phase == PREPARATION
    for seed in range(5):
        assert_non_interference(state, seed)


# ---- hostile input ------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
types = st.sampled_from(
    ["discard", "offer", "accept", "decline", "withdraw", "ready", "unready", "build", "done"]
)
keys = st.sampled_from(
    ["cards", "transfers", "offer", "location", "tile", "from", "to", "locations", "tiles", "coins"]
)
near_actions = st.builds(
    lambda t, extra: {"type": t, **extra}, types, st.dictionaries(keys, json_values, max_size=3)
)
near_transfers = st.builds(
    lambda items: {"type": "offer", "transfers": items},
    st.lists(st.dictionaries(keys, json_values | st.integers(0, 80) | st.just(POOL), max_size=5), max_size=4),
)


def _positions() -> list[State]:
    out = []
    state = GAME.setup(3, 11, GAME.check_options(3, {}))
    out.append(copy.deepcopy(state))
    for seat in range(3):
        GAME.apply(state, seat, GAME.legal(state, seat)[0])
    GAME.apply(state, 1, {"type": "offer", "transfers": [{"from": 1, "to": 0, "coins": 1}]})
    out.append(copy.deepcopy(state))
    for seat in range(3):
        if not state.ready[seat]:
            GAME.apply(state, seat, {"type": "ready"})
    out.append(state)
    return out


POSITIONS = _positions()


@settings(max_examples=300, deadline=None)
@given(action=json_values | near_actions | near_transfers, which=st.integers(0, 2), seat=st.integers(0, 2))
def test_hostile_actions_never_crash_and_refusals_change_nothing(action: Any, which: int, seat: int) -> None:
    state = copy.deepcopy(POSITIONS[which])
    try_apply(state, seat, action)


# ---- bots ---------------------------------------------------------------------------------


def bot_game(seats: int, seed: int, crowd: int = 0) -> State:
    state = GAME.setup(seats, seed, GAME.check_options(seats, {}))
    for n in state.deck[:crowd]:  # Pink starts with `crowd` locations, as in `playout`
        state.owner[n - 1] = 0
        state.box.append(n)
    del state.deck[:crowd]
    rng = random.Random(seed)
    for _ in range(3000):
        if GAME.result(state) is not None:
            break
        movers = GAME.active(state)
        seat = movers[rng.randrange(len(movers))]
        view = GAME.view(state, seat)
        action = GAME.bot_action(view, rng)
        assert action is not None, "an active bot always has something to do"
        assert action in view["legal"] or action["type"] == "offer"
        GAME.apply(state, seat, action)  # a bot never sends a refused action
        assert max(state.offers_made) <= OFFERS_PER_ROUND
    return state


def test_bots_play_whole_games_and_trade() -> None:
    finals: list[int] = []
    trades = 0
    for seats in (3, 4, 5):
        for seed in range(2):
            state = bot_game(seats, seed)
            result = GAME.result(state)
            assert result is not None
            finals += result["scores"]
            trades += state.trades
    assert trades > 0
    assert min(finals) > 5 and max(finals) < 200


def test_bots_out_of_bases_choose_and_finish() -> None:
    moved = returned = 0
    for seed in range(3):
        state = bot_game(3, seed, crowd=12)
        assert GAME.result(state) is not None
        assert_conserved(state)
        moved += sum(1 for entry in state.log if entry[0] == "base_moved")
        returned += sum(1 for entry in state.log if entry[0] == "card_returned")
    assert moved + returned > 0


def exchange_with_bots_position() -> State:
    state = GAME.setup(3, 4, GAME.check_options(3, {}))
    for seat in range(3):
        GAME.apply(state, seat, GAME.legal(state, seat)[0])
    state.owner = [None] * 78
    state.tile = [None] * 78
    for held in state.unbuilt:
        for k in held:
            held[k] = 0
    # Yellow has a Pool of 2 on locations 4 and 5 and one Pool tile in hand; Pink owns 6, next to it.
    state.owner[3] = state.owner[4] = 1
    state.tile[3] = state.tile[4] = POOL
    state.unbuilt[1][POOL] = 1
    state.owner[5] = 0
    state.owner[0] = 2
    state.refresh_earning()
    return state


def test_bot_accepts_what_raises_its_income_and_declines_what_does_not() -> None:
    state = exchange_with_bots_position()
    GAME.apply(state, 0, {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "locations": [6]}, {"from": 1, "to": 0, "coins": 2}]})
    GAME.apply(state, 0, {"type": "offer", "transfers": [
        {"from": 1, "to": 0, "locations": [5]}, {"from": 0, "to": 1, "coins": 1}]})
    rng = random.Random(0)
    assert GAME.bot_action(GAME.view(state, 1), rng) == {"type": "accept", "offer": 1}
    GAME.apply(state, 1, {"type": "accept", "offer": 1})
    assert GAME.bot_action(GAME.view(state, 1), rng) == {"type": "decline", "offer": 2}


def test_bot_proposes_a_swap_next_to_its_group() -> None:
    state = exchange_with_bots_position()
    state.owner[6] = 1  # Yellow owns 7, next to Pink's 6; Pink has nothing near 7
    state.owner[18] = 0  # Pink's 19 lies under 7; Yellow's 7 lies next to Pink's 6
    state.unbuilt[0][POOL] = 0
    action = GAME.bot_action(GAME.view(state, 1), random.Random(0))
    assert action is not None and action["type"] == "offer"
    GAME.apply(state, 1, action)
    gets = [t for t in action["transfers"] if t["to"] == 1]
    assert gets and 6 in gets[0]["locations"]
