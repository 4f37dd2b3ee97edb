"""Property tests of Frenzy Falls over random legal play, for every player count."""
from __future__ import annotations

import copy
import json
import pickle
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.engine import IllegalAction
from rules.frenzy_falls import GAME
from rules.frenzy_falls.actions import KINDS
from rules.frenzy_falls.components import SCORE_DECK_SIZE, WATERFALL_DECK, face_id
from rules.frenzy_falls.state import State
from rules.registry import get
from tests.rules.frenzy_falls_kit import assert_conserved, build, reveal, score
from tests.rules.kit import (
    assert_refusal_changes_nothing,
    assert_views_are_json,
    random_playout,
    replay,
    step_once,
)

SEATS = range(2, 7)
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def dump(view: dict[str, Any]) -> str:
    return json.dumps(view, sort_keys=True)


def states_along(seats: int, seed: int, every: int = 1) -> list[State]:
    """Snapshots of one random game, one every `every` steps, the last included."""
    state = GAME.setup(seats, seed, {})
    rng = random.Random(seed)
    out = [copy.deepcopy(state)]
    steps = 0
    while GAME.result(state) is None:
        assert step_once(GAME, state, rng) is not None, "a game that is not over waits for someone"
        steps += 1
        if steps % every == 0:
            out.append(copy.deepcopy(state))
        assert steps < 5000
    out.append(state)
    return out


def test_registered() -> None:
    assert get("frenzy_falls") is GAME


@pytest.mark.parametrize("seats", SEATS)
@FAST
@given(seed=seeds)
def test_random_play_ends_and_conserves_every_card(seats: int, seed: int) -> None:
    state = GAME.setup(seats, seed, {})
    rng = random.Random(seed)
    total = SCORE_DECK_SIZE[seats]
    # A round's reveal takes at most (face-down cards + Score cards + 1) passes.
    bound = 3 * seats + total + 1
    while GAME.result(state) is None:
        assert_conserved(state, total)
        assert state.passes <= bound
        assert GAME.active(state), "someone must be able to act"
        step_once(GAME, state, rng)
        assert state.round <= 40
    assert_conserved(state, total)
    result = GAME.result(state)
    assert result is not None and result["winners"]
    assert result["scores"] == [p.points() for p in state.players]
    assert GAME.active(state) == [] and all(GAME.legal(state, s) == [] for s in range(seats))
    assert_views_are_json(GAME, state, seats)


@pytest.mark.parametrize("seats", SEATS)
@settings(max_examples=5, deadline=None)
@given(seed=seeds)
def test_determinism_and_snapshots(seats: int, seed: int) -> None:
    play = random_playout(GAME, seats, seed)
    assert play.finished
    again = replay(GAME, seats, seed, None, play.actions)
    assert pickle.dumps(again) == pickle.dumps(play.state)
    for viewer in [None, *range(seats)]:
        assert dump(GAME.view(again, viewer)) == dump(GAME.view(play.state, viewer))
    # Snapshots taken midway continue exactly like the original.
    half = replay(GAME, seats, seed, None, play.actions[: play.steps // 2])
    for clone in (copy.deepcopy(half), pickle.loads(pickle.dumps(half))):
        for seat, action in play.actions[play.steps // 2:]:
            GAME.apply(clone, seat, copy.deepcopy(action))
        assert pickle.dumps(clone) == pickle.dumps(play.state)


garbage = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=8,
)
near_misses = st.fixed_dictionaries(
    {"type": st.sampled_from(KINDS) | garbage},
    optional={"card": garbage | st.integers(-3, 8), "pool": garbage | st.integers(-3, 8),
              "pos": garbage | st.integers(-3, 12), "side": garbage | st.sampled_from(["left", "right"]),
              "cards": garbage | st.lists(st.integers(-2, 6) | st.booleans(), max_size=6)},
)


@pytest.mark.parametrize("seats", SEATS)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, actions=st.lists(near_misses | garbage, min_size=8, max_size=8))
def test_refusals_change_nothing_and_legal_is_accepted(seats: int, seed: int, actions: list[Any]) -> None:
    codes = {"bad_message", "illegal", "not_your_turn", "unauthorized", "game_over"}
    for state in states_along(seats, seed, every=9):
        for seat in range(seats):
            legal = GAME.legal(state, seat)
            for action in legal:
                GAME.apply(copy.deepcopy(state), seat, copy.deepcopy(action))
            for action in actions:
                try:
                    GAME.apply(copy.deepcopy(state), seat, copy.deepcopy(action))
                except IllegalAction:
                    assert assert_refusal_changes_nothing(GAME, state, seat, action) in codes
                else:
                    # Keys an action does not use are ignored; what it does use must be legal.
                    assert {k: action[k] for k in action if k in legal[0]} in legal
            if not legal:
                for other in range(seats):
                    for action in GAME.legal(state, other)[:3]:
                        code = assert_refusal_changes_nothing(GAME, state, seat, action)
                        assert code in ({"game_over"} if GAME.result(state) else {"not_your_turn"})
        odd_seats: list[Any] = [None, -1, seats, True, "0", 2**70]
        for odd in odd_seats:
            action = {"type": "play", "card": 0, "pool": 0}
            assert assert_refusal_changes_nothing(GAME, state, odd, action) in codes
        bad_actions: list[Any] = [
            {"type": "play", "card": True, "pool": 0}, {"type": "play", "card": 2**80, "pool": 0},
            {"type": "discard", "cards": [0, 0]}, {"type": "discard", "cards": 3}, [], "play"]
        for bad in bad_actions:
            for seat in GAME.active(state):
                assert assert_refusal_changes_nothing(GAME, state, seat, bad) in codes


def scramble(state: State, viewer: int | None, rng: random.Random) -> State:
    """Change everything `viewer` cannot see: other players' hands, decks, discard piles and
    face-down cards (each seat's hidden cards are dealt again among its hidden places), every
    deck's order, the Score deck's order and the random state."""
    s = copy.deepcopy(state)
    for seat, player in enumerate(s.players):
        rng.shuffle(player.deck)
        if seat == viewer:
            continue
        hidden = [pc for pool in s.pools for pc in pool.cards if pc.seat == seat and not pc.up]
        cards = player.hand + player.deck + player.discard + [pc.card for pc in hidden]
        rng.shuffle(cards)
        sizes = (len(player.hand), len(player.deck), len(player.discard))
        player.hand = cards[: sizes[0]]
        player.deck = cards[sizes[0]: sizes[0] + sizes[1]]
        player.discard = cards[sizes[0] + sizes[1]: sum(sizes)]
        for pc, card in zip(hidden, cards[sum(sizes):], strict=True):
            pc.card = card
    rng.shuffle(s.score_deck)
    s.rng = random.Random(rng.random())
    return s


@pytest.mark.parametrize("seats", SEATS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_non_interference(seats: int, seed: int) -> None:
    rng = random.Random(seed)
    changed = 0
    for state in states_along(seats, seed, every=3):
        for viewer in [None, *range(seats)]:
            other = scramble(state, viewer, rng)
            changed += pickle.dumps(other) != pickle.dumps(state)
            assert dump(GAME.view(other, viewer)) == dump(GAME.view(state, viewer)), viewer
    assert changed, "the scramble must change something for the test to mean anything"


def test_hidden_cards_carry_no_face_and_no_id() -> None:
    state = GAME.setup(3, 5, {})
    first = state.first
    GAME.apply(state, first, {"type": "play", "card": 0, "pool": 1})
    mine = GAME.view(state, first)["pools"][1]["cards"][0]
    assert mine["seat"] == first and mine["up"] is False and set(mine) == {"seat", "up", "card"}
    assert mine["card"] == face_id(state.pools[1].cards[0].card)
    for viewer in [None, *(s for s in range(3) if s != first)]:
        view = GAME.view(state, viewer)
        assert view["pools"][1]["cards"][0] == {"seat": first, "up": False}
        score = GAME.catalogue()["scores"][str(GAME.view(state, None)["pools"][1]["score"])]
        assert view["pools"][1]["water"] == score["water"]
        assert view["hand"] is None or viewer != first
    assert GAME.view(state, None)["hand"] is None and GAME.view(state, None)["legal"] == []


@pytest.mark.parametrize("seats", SEATS)
def test_bots_play_whole_games_from_their_own_view(seats: int) -> None:
    for seed in range(3):
        state = GAME.setup(seats, seed, {})
        rng = random.Random(seed)
        while GAME.result(state) is None:
            seat = GAME.active(state)[0]
            view = GAME.view(state, seat)
            action = GAME.bot_action(view, rng)
            assert action in view["legal"]
            timeout = GAME.timeout_action(state, seat)
            assert timeout in view["legal"]
            GAME.apply(state, seat, action)
        assert GAME.bot_action(GAME.view(state, 0), rng) is None


def test_bots_beat_random_players() -> None:
    wins = 0
    games = 30
    for seed in range(games):
        state = GAME.setup(3, seed, {})
        rng = random.Random(seed)
        while GAME.result(state) is None:
            seat = GAME.active(state)[0]
            action = (GAME.bot_action(GAME.view(state, seat), rng) if seat == 0
                      else rng.choice(GAME.legal(state, seat)))
            assert action is not None
            GAME.apply(state, seat, action)
        result = GAME.result(state)
        assert result is not None
        wins += 0 in result["winners"]
    assert wins > games / 2, wins


@st.composite
def layouts(draw: st.DrawFn) -> tuple[int, list[list[str]], dict[int, list[str]]]:
    """Random tables of 2 to 6 players whose Pools hold any cards, face up or down."""
    seats = draw(st.integers(2, 6))
    npools = 3 if seats == 2 else seats
    pools: list[list[str]] = [[] for _ in range(npools)]
    initials = "MGDFCT"
    names = [c.action or str(c.water) for c in WATERFALL_DECK]
    hands: dict[int, list[str]] = {}
    for seat in range(seats):
        order = draw(st.permutations(range(15)))
        placed = draw(st.integers(0, 9))
        for i in order[:placed]:
            where = draw(st.integers(0, npools - 1))
            up = draw(st.booleans())
            pools[where].append(initials[seat] + names[i] + ("" if up else "?"))
        hands[seat] = [names[i] for i in order[placed: placed + draw(st.integers(0, 3))]]
    for pool in pools:
        pool[:] = draw(st.permutations(pool))
    return seats, pools, hands


@settings(max_examples=60, deadline=None)
@given(layout=layouts(), big_deck=st.booleans(), seed=seeds)
def test_any_layout_settles(layout: tuple[int, list[list[str]], dict[int, list[str]]],
                            big_deck: bool, seed: int) -> None:
    """However the cards lie and however the choices go, the reveal settles: cascades are bounded
    because each spillover takes a Score card out of play and every action fires only once."""
    seats, pools, hands = layout
    scores = [score(0, 5), score(1, 4), score(2, 3), score(3, 3), score(4, 2), score(5, 1)]
    table = [(scores[i % 6], cards) for i, cards in enumerate(pools)]
    deck = (scores * 4) if big_deck else []
    state = reveal(build(seats, table, hands=hands, score_deck=deck))
    rng = random.Random(seed)
    downs = sum(1 for p in state.pools for pc in p.cards if not pc.up)
    steps = 0
    while state.phase not in ("discard", "play", "over"):
        seat = GAME.active(state)[0]
        GAME.apply(state, seat, rng.choice(GAME.legal(state, seat)))
        steps += 1
        assert steps <= 3 * (downs + len(deck) + len(pools)) + 10
    assert state.passes <= downs + len(deck) + len(pools) + 1
    for pool in state.pools:
        assert all(pc.up for pc in pool.cards)
        assert pool.score is None or pool.water() < 10
    for seat in range(seats):
        total = (len(state.players[seat].hand) + len(state.players[seat].deck)
                 + len(state.players[seat].discard)
                 + sum(pc.seat == seat for p in state.pools for pc in p.cards))
        assert total == 15


def test_refusing_an_action_after_the_end() -> None:
    play = random_playout(GAME, 2, 3)
    code = assert_refusal_changes_nothing(GAME, play.state, 0, {"type": "discard", "cards": []})
    assert code == "game_over"
    with pytest.raises(IllegalAction):
        GAME.timeout_action(play.state, 0)
