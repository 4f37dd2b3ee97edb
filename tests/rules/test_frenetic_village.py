"""Frenetic Village's rules, one by one: deck, combinations, turn, grabs, action cards, variants."""
from __future__ import annotations

import copy
import json
import pickle
import random

import pytest

import rules.frenetic_village.components as fc
from rules import registry
from rules.engine import HUB
from rules.frenetic_village import GAME, bot
from rules.frenetic_village.state import State
from tests.rules.frenetic_village_kit import (
    WILD,
    WILD2,
    act,
    action,
    army,
    arrange,
    assert_conserved,
    new,
    settle,
    settle_all,
)
from tests.rules.kit import assert_refusal_changes_nothing, assert_views_are_json, random_playout, replay

H, E, D, ORC, G = fc.RACES


def combo(*cards: int) -> str | None:
    return fc.combination(list(cards))


# --- the deck and the combinations --------------------------------------------------------------

def test_deck_has_the_rulebooks_62_cards_and_the_chosen_counts() -> None:
    kinds = [c[0] for c in fc.CARDS]
    assert len(fc.CARDS) == 62
    assert kinds.count("army") == 50 and kinds.count("wild") == 2
    assert {k: kinds.count(k) for k in fc.ACTIONS} == fc.ACTION_COUNTS
    army_cards = [(fc.RACES[r], v) for k, r, v in fc.CARDS if k == "army"]
    for race, copies in fc.DECK.copies.items():
        for value in fc.VALUES:
            assert army_cards.count((race, value)) == copies
    assert fc.DECK.chosen_here  # the rulebook lists no cards: this deck is the project's choice
    assert registry.get("frenetic_village") is GAME


@pytest.mark.parametrize("cards, expected", [
    ((army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(H, 5)), "race_straight"),
    ((army(ORC, 5), army(ORC, 3), army(ORC, 4), army(ORC, 1), army(ORC, 2)), "race_straight"),
    ((army(E, 1), army(E, 2), WILD, army(E, 4), army(E, 5)), "race_straight"),
    ((army(E, 1), WILD2, WILD, army(E, 4), army(E, 5)), "race_straight"),
    ((army(E, 4), army(E, 5), WILD, WILD2, army(E, 3)), "race_straight"),
    ((army(H, 3), army(E, 3), army(D, 3), army(ORC, 3), army(G, 3)), "five_of_a_value"),
    ((army(H, 2), army(H, 2, 1), army(H, 2, 2), army(H, 2, 3), army(E, 2, 2)), "five_of_a_value"),
    ((army(H, 2), WILD, army(D, 2), army(ORC, 2), WILD2), "five_of_a_value"),
    ((army(H, 1), army(E, 2), army(D, 3), army(ORC, 4), army(G, 5)), "invincible_ladder"),
    ((army(G, 1), army(ORC, 2), army(H, 3), army(D, 4), army(E, 5)), "invincible_ladder"),
    ((army(G, 1), WILD, army(H, 3), army(D, 4), WILD2), "invincible_ladder"),
])
def test_each_winning_combination_with_and_without_wildcards(cards: tuple[int, ...], expected: str) -> None:
    assert combo(*cards) == expected


@pytest.mark.parametrize("cards", [
    (army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(H, 4, 1)),  # a repeated value
    (army(H, 1), army(H, 2), army(E, 3), army(H, 4), army(H, 5)),  # one race too many, one too few
    (army(H, 1), army(E, 2), army(D, 3), army(ORC, 4), army(ORC, 5)),  # a ladder needs five races
    (army(H, 3), army(E, 3), army(D, 3), army(ORC, 3), army(G, 2)),
    (army(H, 1), army(H, 2), action("skulls"), army(H, 4), army(H, 5)),  # action cards never fit
    (army(H, 1), army(H, 1, 1), WILD, WILD2, army(H, 3)),  # wildcards do not mend a repeated value
    (army(H, 1), army(H, 2), army(H, 3), army(H, 4)),  # four cards
])
def test_non_combinations(cards: tuple[int, ...]) -> None:
    assert combo(*cards) is None


def test_winning_slots_name_the_card_to_put_face_down() -> None:
    hand = [army(H, 1), army(E, 4), army(H, 2), army(H, 3), WILD, army(H, 5)]
    assert fc.winning_slots(hand) == [1]
    assert fc.winning_slots(hand[:5]) == []


# --- a plain turn and the grab flow -------------------------------------------------------------

def test_a_turn_draws_then_discards_and_the_discard_opens_a_grab_contest() -> None:
    s = new(3)
    t = s.turn
    assert GAME.active(s) == [t] and GAME.legal(s, t) == [{"type": "draw"}]
    assert GAME.view(s, t)["phase"] == "draw"
    act(s, t, {"type": "draw"})
    assert len(s.hands[t]) == 6 and s.phase == "play"
    card = s.hands[t][2]
    act(s, t, {"type": "discard", "slot": 2})
    assert s.piles[t] == [card]
    c = GAME.contest(s)
    assert c is not None and c.kind == "grab" and t not in c.eligible and len(c.eligible) == 2
    assert c.info == {"pile": t, "placer": t, "card": fc.face(card)}
    assert GAME.active(s) == []
    for seat in range(3):
        assert GAME.legal(s, seat) == []
        assert GAME.view(s, seat)["contest"]["key"] == c.key
    settle(s, None)
    assert s.piles[t] == [card] and s.turn == (t + 1) % 3 and s.phase == "draw"
    assert GAME.contest(s) is None  # a card left lying can no longer be taken


def test_a_grab_gives_the_card_the_winner_discards_another_and_play_continues_after_them() -> None:
    s = new(4, seed=3)
    arrange(s, top=[army(H, 1)])
    t = s.turn
    grabber = (t + 2) % 4
    act(s, t, {"type": "draw"})
    act(s, t, {"type": "discard", "slot": 5})  # the drawn Humans 1
    settle(s, grabber)
    assert s.hands[grabber][-1] == army(H, 1) and len(s.hands[grabber]) == 6
    assert s.piles[t] == [] and s.turn == grabber and s.phase == "discard"
    legal = GAME.legal(s, grabber)
    assert {"type": "discard", "slot": 5} not in legal  # "must discard another card"
    assert legal == [{"type": "discard", "slot": i} for i in range(5)]
    assert GAME.view(s, grabber)["grabbed_slot"] == 5
    assert GAME.active(s) == [grabber] and GAME.legal(s, t) == []
    act(s, grabber, {"type": "discard", "slot": 0})
    c = GAME.contest(s)
    assert c is not None and c.info["pile"] == grabber and grabber not in c.eligible and t in c.eligible
    settle(s, None)
    assert s.turn == (grabber + 1) % 4 and s.phase == "draw"


def test_grabs_chain_and_only_the_newest_card_once() -> None:
    s = new(3, seed=5)
    arrange(s, piles={0: [army(D, 2)]})
    s.turn = 0
    act(s, 0, {"type": "draw"})
    act(s, 0, {"type": "discard", "slot": 0})
    below = s.piles[0][0]
    settle(s, 1)
    assert s.piles[0] == [below]  # the card underneath is not offered
    act(s, 1, {"type": "discard", "slot": 1})
    c = GAME.contest(s)
    assert c is not None and c.info["pile"] == 1 and c.eligible == (0, 2)
    settle(s, 2)
    act(s, 2, {"type": "discard", "slot": 0})
    settle(s, None)
    assert s.turn == 0 and s.phase == "draw" and GAME.contest(s) is None
    assert_conserved(s)


def test_contest_results_are_checked() -> None:
    s = new(3)
    t = s.turn
    act(s, t, {"type": "draw"})
    act(s, t, {"type": "discard", "slot": 0})
    c = GAME.contest(s)
    assert c is not None
    bad = [
        {"type": "contest_result", "key": "nope", "winner": None},
        {"type": "contest_result", "key": c.key, "winner": t},  # the placer may not grab
        {"type": "contest_result", "key": c.key, "winner": 99},
    ]
    for a in bad:
        assert assert_refusal_changes_nothing(GAME, s, HUB, a) == "illegal"
    for a in [{"type": "contest_result", "key": c.key, "winner": True}, {"type": "contest_result"},
              {"type": "contest_result", "key": 3, "winner": None},
              {"type": "contest_result", "key": c.key, "winner": None, "x": 1}]:
        assert assert_refusal_changes_nothing(GAME, s, HUB, a) == "bad_message"
    for a in [{"type": "draw"}, None, "x"]:
        assert assert_refusal_changes_nothing(GAME, s, HUB, a) == "unauthorized"
    # a player cannot send the hub's result, nor act while the contest is open
    forged = {"type": "contest_result", "key": c.key, "winner": (t + 1) % 3}
    assert assert_refusal_changes_nothing(GAME, s, (t + 1) % 3, forged) == "unauthorized"
    assert assert_refusal_changes_nothing(GAME, s, (t + 1) % 3, {"type": "draw"}) == "not_your_turn"


def test_the_draw_pile_is_refilled_from_every_discard_pile() -> None:
    s = new(2, seed=1)
    s.turn = 0
    everything = [c for c in s.draw]
    s.piles = [everything[:20], everything[20:]]
    s.draw = []
    assert_conserved(s)
    act(s, 0, {"type": "draw"})
    assert s.piles == [[], []] and len(s.draw) == len(everything) - 1 and len(s.hands[0]) == 6
    assert s.log[-2] == ["reshuffled"]
    assert_conserved(s)


# --- action cards -------------------------------------------------------------------------------

def start_with(hand: list[int], seats: int = 3, seed: int = 0, top: list[int] | None = None,
               others: dict[int, list[int]] | None = None) -> State:
    s = new(seats, seed)
    s.turn = 0
    hands = {0: hand}
    hands.update(others or {})
    arrange(s, hands, top=top or [])
    s.phase = "play"
    return s


def test_skulls_sends_the_whole_hand_under_the_draw_pile_and_they_draw_five_new() -> None:
    victim = [army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(E, 5)]
    fresh = [army(ORC, 1), army(ORC, 2), army(ORC, 3), army(ORC, 4), army(ORC, 5)]
    s = start_with([action("skulls"), army(G, 1), army(G, 2), army(G, 3), army(G, 4), army(G, 5)],
                   top=fresh, others={1: victim})
    act(s, 0, {"type": "play", "slot": 0, "target": 1})
    assert sorted(s.hands[1]) == sorted(fresh)
    assert s.draw[:5] == victim  # at the bottom
    assert s.piles[1] == [action("skulls")]
    assert_conserved(s)


def short_draw_pile(s: State, keep: int) -> None:
    """Leave `keep` cards in the draw pile; the rest go under seat 2's pile top."""
    s.piles[2] = s.draw[:len(s.draw) - keep] + s.piles[2]
    s.draw = s.draw[len(s.draw) - keep:]
    assert_conserved(s)


@pytest.mark.parametrize("left", [0, 1, 4, 5])
def test_skulls_victim_draws_five_new_cards_even_from_a_short_draw_pile(left: int) -> None:
    """Skulls: "That player must place all their cards face down at the bottom of the central draw
    pile. They must then draw 5 new cards." With fewer than five above them, the discard piles
    refill the pile first, as "If the draw pile runs out" does, so none of the five is their own."""
    victim = [army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(E, 5)]
    s = start_with([action("skulls"), army(G, 1), army(G, 2), army(G, 3), army(G, 4), army(G, 5)],
                   others={1: victim})
    short_draw_pile(s, left)
    above = list(s.draw)
    act(s, 0, {"type": "play", "slot": 0, "target": 1})
    assert len(s.hands[1]) == 5 and not set(s.hands[1]) & set(victim)
    assert s.draw[:5] == victim  # still at the bottom
    if left >= 5:
        assert sorted(s.hands[1]) == sorted(above) and s.piles[2]
    else:
        assert set(above) <= set(s.hands[1]) and s.piles == [[], [action("skulls")], []]
    assert_conserved(s)


@pytest.mark.parametrize("kind, n", [("two_cards", 2), ("three_cards", 3)])
def test_cards_sent_to_the_deck_never_come_back_in_the_victims_draw(kind: str, n: int) -> None:
    """"... you remove two cards at random from their hand and place them face down in the central
    deck ... That player must quickly draw two other cards": never one of the two just removed."""
    for seed in range(100):
        theirs = [army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(H, 5)]
        mine = [army(G, 1), army(G, 2), action(kind), army(G, 3), army(G, 4), army(D, 5)]
        s = start_with(mine, seats=4, seed=seed, others={1: theirs})
        short_draw_pile(s, seed % 6)
        act(s, 0, {"type": "play", "slot": 2, "target": 1})
        gone = [c for c in theirs if c not in s.hands[1]]
        assert len(gone) == n
        act(s, 1, {"type": "draw"})
        assert len(s.hands[1]) == 5 and not set(gone) & set(s.hands[1]), seed
        assert set(gone) <= set(s.draw)
        assert_conserved(s)


def test_palla_paca_card_gives_the_chosen_card_and_takes_one_of_theirs_at_random() -> None:
    theirs = [army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(H, 5)]
    mine = [army(G, 1), action("palla_paca_card"), army(G, 2), army(G, 3), army(G, 4), army(D, 5)]
    s = start_with(mine, others={1: theirs})
    legal = GAME.legal(s, 0)
    assert {"type": "play", "slot": 1, "target": 1, "give": 5} in legal
    assert {"type": "play", "slot": 1, "target": 1} not in legal
    act(s, 0, {"type": "play", "slot": 1, "target": 1, "give": 5})
    assert army(D, 5) in s.hands[1] and army(D, 5) not in s.hands[0]
    assert len(s.hands[0]) == 5 and len(s.hands[1]) == 5
    taken = s.hands[0][-1]
    assert taken in theirs and s.hands[0][:4] == [army(G, 1), army(G, 2), army(G, 3), army(G, 4)]
    assert s.piles[1] == [action("palla_paca_card")]
    assert_conserved(s)


def test_palla_paca_hand_exchanges_whole_hands() -> None:
    theirs = [army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(H, 5)]
    mine = [army(G, 1), army(G, 2), action("palla_paca_hand"), army(G, 3), army(G, 4), army(D, 5)]
    s = start_with(mine, others={2: theirs})
    act(s, 0, {"type": "play", "slot": 2, "target": 2})
    assert s.hands[0] == theirs
    assert s.hands[2] == [army(G, 1), army(G, 2), army(G, 3), army(G, 4), army(D, 5)]
    assert_conserved(s)


@pytest.mark.parametrize("kind, n", [("two_cards", 2), ("three_cards", 3)])
def test_cards_to_the_deck_go_back_unseen_and_the_victim_draws_before_the_next_turn(
        kind: str, n: int) -> None:
    theirs = [army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(H, 5)]
    mine = [army(G, 1), army(G, 2), action(kind), army(G, 3), army(G, 4), army(D, 5)]
    s = start_with(mine, others={1: theirs})
    act(s, 0, {"type": "play", "slot": 2, "target": 1})
    assert len(s.hands[1]) == 5 - n
    gone = [c for c in theirs if c not in s.hands[1]]
    assert all(c in s.draw for c in gone)
    for v in (None, 0, 2):  # nobody but the victim learns which cards went back
        text = json.dumps({k: x for k, x in GAME.view(s, v).items() if k != "hand"})
        assert not any(json.dumps(fc.face(c)) in text for c in gone)
    assert GAME.contest(s) is None and s.phase == "refill" and GAME.active(s) == [1]
    assert GAME.legal(s, 1) == [{"type": "draw"}] and GAME.legal(s, 2) == []
    assert GAME.timeout_action(s, 1) == {"type": "draw"}
    assert_refusal_changes_nothing(GAME, s, 2, {"type": "draw"})
    act(s, 1, {"type": "draw"})
    assert len(s.hands[1]) == 5 and s.phase == "draw" and s.turn == 1
    assert_conserved(s)


def test_one_card_takes_one_the_victim_redraws_and_the_attacker_discards_before_the_grabs() -> None:
    theirs = [army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(H, 5)]
    mine = [army(G, 1), action("one_card"), army(G, 2), army(G, 3), army(G, 4), army(D, 5)]
    s = start_with(mine, others={2: theirs}, top=[army(ORC, 5)])
    act(s, 0, {"type": "play", "slot": 1, "target": 2})
    assert len(s.hands[0]) == 6 and s.hands[0][-1] in theirs
    assert len(s.hands[2]) == 5 and s.hands[2][-1] == army(ORC, 5)
    assert s.phase == "discard" and GAME.contest(s) is None
    legal = GAME.legal(s, 0)
    assert legal and all(a["type"] in ("discard", "declare") for a in legal)
    assert GAME.view(s, None)["grabbable"] == []
    act(s, 0, {"type": "discard", "slot": 4})
    c = GAME.contest(s)
    assert c is not None and c.info["pile"] == 0  # only the attacker's discard, on their own pile
    settle(s, None)
    assert s.phase == "draw" and s.turn == 1 and s.piles[2] == [action("one_card")]


def test_a_grab_of_the_discard_after_one_card_passes_the_turn_to_the_grabber() -> None:
    theirs = [army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(H, 5)]
    mine = [army(G, 1), action("one_card"), army(G, 2), army(G, 3), army(G, 4), army(D, 5)]
    s = start_with(mine, others={2: theirs})
    act(s, 0, {"type": "play", "slot": 1, "target": 2})
    act(s, 0, {"type": "discard", "slot": 0})
    settle(s, 1)
    assert s.turn == 1 and s.phase == "discard" and s.queue == [] and s.piles[0] == []
    act(s, 1, {"type": "discard", "slot": 0})
    c = GAME.contest(s)
    assert c is not None and c.info["pile"] == 1
    settle(s, None)
    assert GAME.contest(s) is None and s.piles[2] == [action("one_card")] and s.turn == 2


def test_action_cards_discarded_on_ones_own_pile_do_nothing() -> None:
    s = start_with([army(G, 1), army(G, 2), action("skulls"), army(G, 3), army(G, 4), army(D, 5)])
    before = [list(h) for h in s.hands[1:]]
    act(s, 0, {"type": "discard", "slot": 2})
    assert [list(h) for h in s.hands[1:]] == before


def test_grabbing_an_action_card_does_not_fire_it_but_it_can_be_played_later() -> None:
    s = start_with([action("skulls"), army(G, 1), army(G, 2), army(G, 3), army(G, 4), army(D, 5)])
    act(s, 0, {"type": "discard", "slot": 0})  # onto seat 0's own pile: up for grabs
    settle(s, 2)
    assert s.hands[2][-1] == action("skulls")
    assert all(a.get("slot") != 5 for a in GAME.legal(s, 2))  # not at once ("another card")
    act(s, 2, {"type": "discard", "slot": 0})
    settle_all(s)
    assert s.turn == 0 and s.phase == "draw"
    act(s, 0, {"type": "draw"})
    act(s, 0, GAME.timeout_action(s, 0))
    settle_all(s)
    assert s.turn == 1
    act(s, 1, {"type": "draw"})
    act(s, 1, GAME.timeout_action(s, 1))
    settle_all(s)
    act(s, 2, {"type": "draw"})
    slot = s.hands[2].index(action("skulls"))
    assert {"type": "play", "slot": slot, "target": 0} in GAME.legal(s, 2)
    assert_conserved(s)


# --- declaring and the variants -----------------------------------------------------------------

RUN = [army(H, 1), army(H, 2), army(H, 3), army(H, 4)]


def win_now(s: State, seat: int) -> None:
    """Arrange the seat's hand to a run of five, then draw and put the drawn card face down."""
    assert s.phase == "draw" and s.turn == seat
    arrange(s, {seat: [*RUN, army(H, 5)]}, top=[army(E, 5)])
    act(s, seat, {"type": "draw"})
    legal = GAME.legal(s, seat)
    assert legal[0] == {"type": "declare", "slot": 5}
    act(s, seat, legal[0])


def test_declaring_puts_a_card_face_down_shows_the_winning_hand_and_needs_no_contest() -> None:
    s = new(3, seed=2)
    t = s.turn
    win_now(s, t)
    assert GAME.contest(s) is None
    assert GAME.result(s) == {"winners": [t], "scores": [1 if i == t else 0 for i in range(3)]}
    for v in (None, 0, 1, 2):
        view = GAME.view(s, v)
        assert view["phase"] == "over" and view["active"] == [] and view["legal"] == []
        assert view["players"][t]["face_down"] and view["players"][t]["top"] is None
        assert view["last_battle"]["combination"] == "race_straight"
        assert view["last_battle"]["hand"] == ["humans-1", "humans-2", "humans-3", "humans-4", "humans-5"]
    assert s.log[-2] == ["declares", t, "race_straight", [f"humans-{v}" for v in range(1, 6)], 1]
    assert assert_refusal_changes_nothing(GAME, s, t, {"type": "draw"}) == "game_over"
    assert assert_refusal_changes_nothing(GAME, s, HUB, {"type": "contest_result"}) == "game_over"


def test_a_combination_is_declared_on_ones_turn_with_the_drawn_card_face_down() -> None:
    """"If you have gathered any of these combinations in your hand, on your turn draw a card and
    place it face down on your discard pile": the five held before the draw win, the drawn card goes
    face down; a drawn card that completes five only allows it on the next turn."""
    s = new(3, seed=4)
    s.turn = 0
    arrange(s, {0: [*RUN, army(D, 1)]}, top=[army(H, 5), army(G, 2)])
    assert GAME.legal(s, 0) == [{"type": "draw"}]
    act(s, 0, {"type": "draw"})
    legal = GAME.legal(s, 0)
    assert not [a for a in legal if a["type"] == "declare"]  # Humans 7 drawn completes it: not yet
    act(s, 0, {"type": "discard", "slot": 4})  # Dwarves 1 away: five of a run in hand
    settle(s, None)
    for t in (1, 2):
        act(s, t, {"type": "draw"})
        act(s, t, GAME.timeout_action(s, t))
        settle_all(s)
    assert s.turn == 0 and s.hands[0] == [*RUN, army(H, 5)]
    drawn = s.draw[-1]
    act(s, 0, {"type": "draw"})
    assert GAME.legal(s, 0)[0] == {"type": "declare", "slot": 5}
    assert {"type": "declare", "slot": 0} not in GAME.legal(s, 0)
    act(s, 0, {"type": "declare", "slot": 5})
    assert GAME.result(s) is not None and GAME.result(s)["winners"] == [0]
    assert s.piles[0][-1] == drawn and s.last_battle is not None
    assert s.last_battle["hand"] == ["humans-1", "humans-2", "humans-3", "humans-4", "humans-5"]


def test_a_grabber_cannot_win_at_once_without_drawing() -> None:
    """A grab is not "on your turn draw a card": the grabber only discards, and wins on their turn."""
    s = new(3, seed=4)
    s.turn = 0
    arrange(s, {0: [army(E, 1), army(E, 2), army(E, 3), army(E, 4), army(ORC, 1)],
                1: [*RUN, army(D, 1)]}, top=[army(H, 5)])
    act(s, 0, {"type": "draw"})
    act(s, 0, {"type": "discard", "slot": 5})
    settle(s, 1)
    legal = GAME.legal(s, 1)
    assert legal == [{"type": "discard", "slot": i} for i in range(5)]
    for slot in range(6):
        assert assert_refusal_changes_nothing(GAME, s, 1, {"type": "declare", "slot": slot}) == "illegal"
    act(s, 1, {"type": "discard", "slot": 4})
    settle(s, None)
    assert GAME.result(s) is None and s.turn == 2


def test_only_the_card_put_on_ones_own_pile_can_be_grabbed() -> None:
    """"Nor may a player take the card from another player's discard pile when it is not that
    player's turn": an action card played onto another player's pile opens no contest, so its
    victim cannot take it back from its own pile and take over the turn."""
    for kind in fc.ACTIONS:
        mine = [army(G, 1), army(G, 2), action(kind), army(G, 3), army(G, 4), army(D, 5)]
        s = start_with(mine, others={1: [army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(H, 5)]})
        play = next(a for a in GAME.legal(s, 0) if a["type"] == "play" and a["target"] == 1)
        act(s, 0, play)
        assert s.piles[1][-1] == action(kind)
        assert GAME.contest(s) is None and GAME.view(s, None)["grabbable"] == []
        if kind == "one_card":
            act(s, 0, {"type": "discard", "slot": 0})
            c = GAME.contest(s)
            assert c is not None and c.info["pile"] == 0 and c.eligible == (1, 2)
            settle(s, None)
        while s.phase == "refill":
            act(s, GAME.active(s)[0], {"type": "draw"})
        assert GAME.contest(s) is None and s.phase == "draw" and s.turn == 1
        assert s.piles[1][-1] == action(kind)


def test_after_a_grab_the_grabber_discards_and_may_not_play_an_action_card() -> None:
    """"The player who obtains the card must discard another card": onto their own pile, where it
    may be grabbed in turn."""
    s = new(3, seed=6)
    s.turn = 0
    arrange(s, {1: [action("skulls"), action("two_cards"), army(E, 1), army(E, 2), army(E, 3)]},
            top=[army(E, 4)])
    act(s, 0, {"type": "draw"})
    act(s, 0, {"type": "discard", "slot": 5})
    settle(s, 1)
    assert all(a["type"] == "discard" for a in GAME.legal(s, 1))
    play = {"type": "play", "slot": 0, "target": 2}
    assert assert_refusal_changes_nothing(GAME, s, 1, play) == "illegal"
    act(s, 1, {"type": "discard", "slot": 0})
    c = GAME.contest(s)
    assert c is not None and c.info["pile"] == 1 and c.info["card"]["kind"] == "skulls"
    assert c.eligible == (0, 2)
    settle(s, 2)
    assert s.turn == 2 and s.hands[2][-1] == action("skulls") and s.phase == "discard"


def test_five_wins_ends_at_the_fifth_battle_won_and_the_winner_starts_the_next() -> None:
    s = new(3, seed=7, variant="five_wins")
    for k in range(9):
        if GAME.result(s) is not None:
            break
        seat = [0, 1, 0, 2, 0, 0, 1, 0, 0][k]
        while s.turn != seat:  # pass the turn by plain discards
            t = s.turn
            act(s, t, {"type": "draw"})
            act(s, t, GAME.timeout_action(s, t))
            settle_all(s)
        win_now(s, seat)
        if GAME.result(s) is None:
            assert s.turn == seat and s.battle == k + 2 and s.phase == "draw"
            assert all(len(h) == 5 for h in s.hands) and all(p == [] for p in s.piles)
            assert_conserved(s)
    assert GAME.result(s) == {"winners": [0], "scores": [5, 2, 1]}
    assert s.battle == 8


def test_lowest_total_adds_the_losers_cards_and_the_lowest_total_wins() -> None:
    s = new(3, seed=8, variant="lowest_total", battles=2)
    totals = [0, 0, 0]
    for _ in range(2):
        seat = s.turn
        win_now(s, seat)
        lb = s.last_battle
        assert lb is not None
        for other in range(3):
            if other != seat:
                hand = [fc.catalogue()[k] for k in lb["hands"][other]]
                pts = sum(f.get("value", fc.WILD_POINTS if f["kind"] == "wild" else fc.ACTION_POINTS)
                          for f in hand)
                assert lb["added"][other] == pts
                totals[other] += pts
        assert lb["added"][seat] == 0
    r = GAME.result(s)
    assert r is not None and r["scores"] == totals
    assert r["winners"] == [i for i in range(3) if totals[i] == min(totals)]


def test_lowest_total_adds_up_the_full_hands_of_the_other_players() -> None:
    """"When a player wins, the other players add up their cards": five cards each, even when the
    battle is won in the turn a player lost cards to the deck (who then draws back before anyone
    may win)."""
    s = new(3, seed=10, variant="lowest_total", battles=1)
    s.turn = 0
    straight = [army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(H, 5)]
    arrange(s, {0: [army(E, 1), army(E, 2), action("two_cards"), army(E, 3), army(G, 5), army(D, 4)],
                1: [army(ORC, 1), army(ORC, 2), army(D, 3), army(D, 5), army(G, 1)], 2: straight},
            top=[action("skulls"), action("palla_paca_hand"), action("skulls", 1), action("one_card")])
    s.phase = "play"
    act(s, 0, {"type": "play", "slot": 2, "target": 1})
    for _ in range(100):
        if GAME.result(s) is not None:
            break
        c = GAME.contest(s)
        if c is not None:  # seat 2 grabs an action card played at someone if it may, else nobody
            at_someone = c.info["pile"] != c.info["placer"]
            settle(s, 2 if 2 in c.eligible and at_someone else None)
            continue
        seat = GAME.active(s)[0]
        legal = GAME.legal(s, seat)
        declare = [a for a in legal if a["type"] == "declare"]
        act(s, seat, declare[0] if declare else GAME.timeout_action(s, seat))
    lb = s.last_battle
    assert lb is not None and lb["winner"] == 2
    for other in (0, 1):
        assert len(lb["hands"][other]) == fc.HAND and len(s.hands[other]) == fc.HAND
        assert lb["added"][other] == sum(fc.points(c) for c in s.hands[other])


def test_battle_points_add_the_winning_hands_points_and_the_most_points_win() -> None:
    s = new(2, seed=9, variant="battle_points", battles=3)
    first = s.turn
    for _ in range(3):
        win_now(s, s.turn)
    r = GAME.result(s)
    assert r is not None and r["scores"][first] == 3 * (1 + 2 + 3 + 4 + 5) and r["winners"] == [first]


def test_options_are_checked() -> None:
    assert GAME.check_options(4, {}) == {"variant": "single", "battles": 5}
    for bad in [{"variant": "best_of_three"}, {"battles": 0}, {"battles": True}, {"other": 1}]:
        with pytest.raises(Exception):  # noqa: B017 - IllegalAction from the shared face
            GAME.check_options(4, bad)
    with pytest.raises(Exception):  # noqa: B017
        GAME.check_options(9, {})


# --- refusals, determinism, views, bots ---------------------------------------------------------

GARBAGE: list[object] = [
    None, 3, "draw", [], {}, {"type": None}, {"type": "fly"}, {"type": "discard"},
    {"type": "discard", "slot": "0"}, {"type": "discard", "slot": True}, {"type": "discard", "slot": 1.0},
    {"type": "discard", "slot": 10 ** 30}, {"type": "discard", "slot": -1},
    {"type": "play", "slot": 0}, {"type": "play", "slot": 0, "target": [1]},
    {"type": "play", "slot": 0, "target": 1, "give": None}, {"type": "declare", "slot": 0},
    {"type": "draw", "extra": 1}, {"type": "discard", "slot": 0, "x": {"y": [1]}}, {1: 2}, {"type": b"draw"},
]


def test_garbage_is_refused_and_changes_nothing() -> None:
    s = new(3, seed=11)
    t = s.turn
    for phase_step in range(2):
        for g in GARBAGE:
            code = assert_refusal_changes_nothing(GAME, s, t, g)
            assert code in ("bad_message", "illegal"), (g, code)
        for seat in [99, -1, True, "0"]:
            assert assert_refusal_changes_nothing(GAME, s, seat, {"type": "draw"}) == "unauthorized"
        assert assert_refusal_changes_nothing(GAME, s, (t + 1) % 3, {"type": "draw"}) == "not_your_turn"
        if phase_step == 0:
            assert assert_refusal_changes_nothing(GAME, s, t, {"type": "discard", "slot": 0}) == "illegal"
            act(s, t, {"type": "draw"})
            assert assert_refusal_changes_nothing(GAME, s, t, {"type": "draw"}) == "illegal"
            assert assert_refusal_changes_nothing(GAME, s, t, {"type": "discard", "slot": 6}) == "illegal"


def test_every_legal_action_is_accepted_as_sent_back_verbatim() -> None:
    s = new(4, seed=12)
    t = s.turn
    act(s, t, {"type": "draw"})
    for a in GAME.legal(s, t):
        trial = copy.deepcopy(s)
        GAME.apply(trial, t, json.loads(json.dumps(a)))


def test_determinism_and_replay() -> None:
    a = random_playout(GAME, 5, seed=21, max_steps=800)
    b = random_playout(GAME, 5, seed=21, max_steps=800)
    assert a.actions == b.actions and pickle.dumps(a.state) == pickle.dumps(b.state)
    again = replay(GAME, 5, 21, None, a.actions)
    assert pickle.dumps(again) == pickle.dumps(a.state)
    assert pickle.dumps(copy.deepcopy(a.state)) == pickle.dumps(a.state)


def test_views_hide_hands_the_draw_pile_and_what_lies_under_pile_tops() -> None:
    s = new(3, seed=13)
    t = s.turn
    act(s, t, {"type": "draw"})
    act(s, t, {"type": "discard", "slot": 0})
    settle(s, None)
    assert_views_are_json(GAME, s, 3)
    spectator = GAME.view(s, None)
    assert spectator["hand"] == [] and spectator["legal"] == []
    mine = GAME.view(s, 1)
    assert mine["hand"] == [fc.kind_id(c) for c in s.hands[1]]
    text = json.dumps(GAME.view(s, 2))
    assert '"id"' not in text and "seed" not in text and "rng" not in text
    shown = {json.dumps(fc.face(c)) for c in s.hands[2]} | {json.dumps(fc.face(p[-1])) for p in s.piles if p}
    for c in s.hands[1]:  # seat 1's army cards never show in seat 2's view (but for copies it sees)
        if fc.kind(c) == "army" and json.dumps(fc.face(c)) not in shown:
            assert json.dumps(fc.face(c)) not in text
    assert GAME.view(s, 1) == GAME.view(s, 1)


def test_the_log_appends_and_trims_in_blocks() -> None:
    p = random_playout(GAME, 4, seed=14, max_steps=400)
    v = GAME.view(p.state, None)
    assert 0 < len(v["log"]) <= 40 and v["log_from"] % 20 == 0


def test_timeout_action_is_always_legal() -> None:
    rng = random.Random(0)
    for seed in range(5):
        p = random_playout(GAME, 3 + seed, seed=seed, max_steps=150 + 37 * seed)
        s = p.state
        for seat in GAME.active(s):
            assert GAME.timeout_action(s, seat) in GAME.legal(s, seat)
        assert rng is not None


def test_bot_declares_when_it_can_and_plays_legal_moves() -> None:
    s = new(3, seed=15)
    t = s.turn
    arrange(s, {t: [*RUN, army(H, 5)]}, top=[army(E, 5)])
    act(s, t, {"type": "draw"})
    assert GAME.bot_action(GAME.view(s, t), random.Random(1)) == {"type": "declare", "slot": 5}


def test_bot_discards_the_card_that_fits_no_partial_combination() -> None:
    s = new(3, seed=16)
    s.turn = 0
    arrange(s, {0: [army(H, 1), army(H, 2), army(H, 3), army(H, 4), army(H, 1, 1)]}, top=[army(H, 1, 2)])
    act(s, 0, {"type": "draw"})
    a = GAME.bot_action(GAME.view(s, 0), random.Random(2))
    assert a is not None and a["type"] == "discard" and a["slot"] in (0, 4, 5)  # a spare Humans 1


def test_bot_strikes_with_an_action_card() -> None:
    s = start_with([army(G, 1), army(G, 2), action("skulls"), army(G, 3), army(G, 4), army(D, 5)])
    a = GAME.bot_action(GAME.view(s, 0), random.Random(3))
    assert a is not None and a["type"] == "play" and a["slot"] == 2 and a["target"] in (1, 2)


def test_wants_grabs_only_what_brings_a_combination_nearer() -> None:
    s = new(3, seed=17)
    arrange(s, {1: [army(H, 1), army(H, 2), army(H, 3), army(D, 5), army(E, 1)]})
    v = GAME.view(s, 1)
    assert bot.wants(v, fc.face(army(H, 4)))
    assert bot.wants(v, fc.face(WILD))
    assert not bot.wants(v, fc.face(army(D, 4)))
    assert not bot.wants(v, fc.face(action("skulls")))
    assert not bot.wants(GAME.view(s, None), fc.face(army(H, 4)))
    assert not bot.wants(v, {"kind": "army", "race": "trolls", "value": 3})
    assert not bot.wants(v, None)


def test_bots_finish_battles() -> None:
    finished = 0
    for seed in range(6):
        s = new(2 + seed, seed=seed)
        rng = random.Random(seed)
        for _ in range(3000):
            if GAME.result(s) is not None:
                finished += 1
                break
            c = GAME.contest(s)
            if c is not None:
                keen = [e for e in c.eligible if GAME.bot_wants(GAME.view(s, e), c.info)]
                settle(s, rng.choice(keen) if keen else None)
                continue
            seat = GAME.active(s)[0]
            a = GAME.bot_action(GAME.view(s, seat), rng)
            assert a in GAME.legal(s, seat)
            act(s, seat, a)
        assert_conserved(s)
    assert finished == 6
