"""Symbiose: the rulebook's rules and scoring example, each mode's scoring, and properties of
random legal play (termination, conservation, determinism, refusals, hidden information)."""
from __future__ import annotations

import copy
import json
import pickle
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import registry
from rules.engine import IllegalAction, option_for
from rules.symbiose import GAME, scoring
from rules.symbiose.components import ANIMALS, COLOURS, DECK, MODES, RIVER, Card, neighbours
from rules.symbiose.scoring import slot_scores
from rules.symbiose.state import State
from tests.rules.kit import (
    assert_refusal_changes_nothing,
    assert_views_are_json,
    random_playout,
    replay,
    step_once,
)

CONFIGS = [(2, "standard"), (3, "standard"), (4, "standard"), (2, "duel"), (4, "team")]


def new(seats: int = 3, mode: str = "standard", seed: int = 1) -> State:
    return GAME.setup(seats, seed, GAME.check_options(seats, {"mode": mode}))


def card(label: str) -> int:
    """The index of the first deck card with this colour/animal/value, e.g. 'blue frog 2 per dragonfly'."""
    for i, c in enumerate(DECK):
        if f"{c.colour} {c.animal} {c.label}" == label:
            return i
    raise KeyError(label)


def all_ids(state: State) -> list[int]:
    return sorted([c for p in state.ponds for c in p] + state.river + state.deck)


# -- the deck ------------------------------------------------------------------------------------

def test_deck_has_36_cards_balanced_and_the_rulebook_examples() -> None:
    assert len(DECK) == 36
    assert Counter(c.colour for c in DECK) == dict.fromkeys(COLOURS, 9)
    assert Counter(c.animal for c in DECK) == dict.fromkeys(ANIMALS, 9)
    kinds = Counter(c.kind for c in DECK)
    assert kinds == {"fixed": 12, "per_animal": 12, "per_colour": 12}
    for c in DECK:
        assert c.kind == "fixed" or c.counts in (ANIMALS if c.kind == "per_animal" else COLOURS)
    labels = {c.label for c in DECK}
    assert {"8 points", "2 per dragonfly", "4 per orange"} <= labels
    assert sorted(c.points for c in DECK if c.kind == "fixed") == [3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8]
    worth: Counter[str] = Counter()
    for c in DECK:
        if c.kind != "fixed":
            assert c.counts not in (c.colour, c.animal), "no card counts its own colour or animal"
            worth[c.counts] += c.points
    assert worth == dict.fromkeys(COLOURS + ANIMALS, 6)


def test_registered_with_its_mode_option() -> None:
    assert registry.get("symbiose") is GAME
    assert GAME.check_options(3, {}) == {"mode": "standard"}
    assert GAME.check_options(2, {"mode": "duel"}) == {"mode": "duel"}
    assert GAME.check_options(4, {"mode": "team"}) == {"mode": "team"}


def test_two_seats_play_the_rulebooks_duel_mode_by_default() -> None:
    # "2-PLAYER RULES (Duel Mode)": the rulebook's only rules for two players.
    assert GAME.check_options(2, {}) == {"mode": "duel"}
    s = GAME.setup(2, 4, {})
    assert s.mode == "duel" and len(s.river) == 8, "The River has 8 cards"
    assert GAME.view(s, 0)["players"][0]["right"] == "river", "The River acts like a third player"
    # The 4-card River with both side columns on the opponent is kept, by name only.
    assert GAME.check_options(2, {"mode": "standard"}) == {"mode": "standard"}


@pytest.mark.parametrize("seats,default,choices", [
    (2, "duel", ["duel", "standard"]), (3, "standard", ["standard"]), (4, "standard", ["standard", "team"]),
])
def test_the_mode_option_offers_per_seat_count_only_what_is_valid(seats: int, default: str,
                                                                  choices: list[str]) -> None:
    spec = option_for(GAME.options["mode"], seats)
    assert spec["default"] == default and spec["choices"] == choices
    assert GAME.check_options(seats, {}) == {"mode": default}
    for mode in MODES:
        if mode in choices:
            assert GAME.check_options(seats, {"mode": mode}) == {"mode": mode}
        else:
            with pytest.raises(IllegalAction):
                GAME.check_options(seats, {"mode": mode})


@pytest.mark.parametrize("seats,options", [
    (3, {"mode": "duel"}), (4, {"mode": "duel"}), (2, {"mode": "team"}), (3, {"mode": "team"}),
    (2, {"mode": "solo"}), (2, {"mode": 1}), (2, {"speed": 3}), (1, {}), (5, {}),
])
def test_bad_options_are_refused(seats: int, options: dict[str, Any]) -> None:
    with pytest.raises(IllegalAction) as e:
        GAME.check_options(seats, options)
    assert e.value.code == "bad_message"


# -- setting up and the turn ---------------------------------------------------------------------

@pytest.mark.parametrize("seats,mode", CONFIGS)
def test_setup_deals_face_down_ponds_and_a_face_up_river(seats: int, mode: str) -> None:
    s = new(seats, mode)
    assert all(len(p) == 8 and not any(u) for p, u in zip(s.ponds, s.up, strict=True))
    if mode == "duel":
        assert len(s.river) == 8 and s.river_up == [True] * 4 + [False] * 4
    else:
        assert len(s.river) == 4 and all(s.river_up)
    assert all_ids(s) == list(range(36))
    v = GAME.view(s, 0)
    assert v["phase"] == "flip" and v["active"] == [0] and v["round"] == 1 and v["rounds"] == 8
    assert v["legal"] == [{"type": "flip", "slot": i} for i in range(8)]
    assert GAME.view(s, 1)["legal"] == [] and GAME.view(s, None)["legal"] == []


def test_turn_one_flips_and_does_not_swap() -> None:
    s = new(3)
    code = assert_refusal_changes_nothing(GAME, s, 0, {"type": "swap", "river": 0, "slot": 0})
    assert code == "illegal"
    GAME.apply(s, 0, {"type": "flip", "slot": 5})
    assert s.up[0] == [i == 5 for i in range(8)]
    assert GAME.active(s) == [1]
    GAME.apply(s, 1, {"type": "flip", "slot": 0})
    GAME.apply(s, 2, {"type": "flip", "slot": 7})
    v = GAME.view(s, 0)
    assert v["phase"] == "swap" and v["round"] == 2 and v["active"] == [0]
    assert len(v["legal"]) == 4 * 8
    assert assert_refusal_changes_nothing(GAME, s, 0, {"type": "flip", "slot": 1}) == "illegal"


def test_swapping_a_face_down_card_puts_it_face_up_in_the_river() -> None:
    s = new(2)
    GAME.apply(s, 0, {"type": "flip", "slot": 0})
    GAME.apply(s, 1, {"type": "flip", "slot": 0})
    taken, given = s.river[2], s.ponds[0][3]
    GAME.apply(s, 0, {"type": "swap", "river": 2, "slot": 3})
    assert s.ponds[0][3] == taken and s.up[0][3]
    assert s.river[2] == given and s.river_up[2]
    assert GAME.active(s) == [1] and s.phase == "swap"  # no flip owed


def test_swapping_a_face_up_card_forces_a_flip() -> None:
    s = new(2)
    GAME.apply(s, 0, {"type": "flip", "slot": 4})
    GAME.apply(s, 1, {"type": "flip", "slot": 0})
    taken, given = s.river[1], s.ponds[0][4]
    GAME.apply(s, 0, {"type": "swap", "river": 1, "slot": 4})
    assert s.ponds[0][4] == taken and s.river[1] == given
    v = GAME.view(s, 0)
    assert v["phase"] == "forced_flip" and v["active"] == [0]
    assert v["legal"] == [{"type": "flip", "slot": i} for i in range(8) if i != 4]
    assert assert_refusal_changes_nothing(GAME, s, 0, {"type": "flip", "slot": 4}) == "illegal"
    assert assert_refusal_changes_nothing(GAME, s, 0, {"type": "swap", "river": 0, "slot": 1}) == "illegal"
    assert assert_refusal_changes_nothing(GAME, s, 1, {"type": "flip", "slot": 1}) == "not_your_turn"
    GAME.apply(s, 0, {"type": "flip", "slot": 6})
    assert s.up[0][6] and GAME.active(s) == [1]


def test_every_turn_turns_one_card_up_so_all_are_up_after_eight() -> None:
    rng = random.Random(3)
    s = new(3, seed=3)
    for turn in range(24):
        seat = turn % 3
        assert sum(s.up[seat]) == turn // 3
        while GAME.active(s) == [seat] and s.phase != "over":
            GAME.apply(s, seat, rng.choice(GAME.legal(s, seat)))
    assert s.phase == "over" and all(all(u) for u in s.up)
    v = GAME.view(s, None)
    assert v["active"] == [] and v["result"] is not None and v["round"] == 8
    assert all(p["score"] is not None for p in v["players"])
    with pytest.raises(IllegalAction) as e:
        GAME.apply(s, 0, {"type": "flip", "slot": 0})
    assert e.value.code == "game_over"


def test_duel_face_down_river_cards_can_be_taken_and_are_hidden() -> None:
    s = new(2, "duel")
    v = GAME.view(s, 0)
    assert v["river"][4:] == [None] * 4
    GAME.apply(s, 0, {"type": "flip", "slot": 0})
    GAME.apply(s, 1, {"type": "flip", "slot": 0})
    assert {"type": "swap", "river": 6, "slot": 2} in GAME.legal(s, 0)
    taken = s.river[6]
    GAME.apply(s, 0, {"type": "swap", "river": 6, "slot": 2})
    assert s.ponds[0][2] == taken and s.up[0][2] and s.river_up[6]
    assert GAME.view(s, 1)["ponds"][0][2] == taken


def test_duel_river_is_revealed_for_scoring() -> None:
    out = random_playout(GAME, 2, 5, {"mode": "duel"})
    assert out.finished
    assert all(slot is not None for slot in GAME.view(out.state, None)["river"])


# -- scoring -------------------------------------------------------------------------------------

class Picker:
    """Hands out distinct deck cards by description, so hand-built ponds are real deals."""

    def __init__(self) -> None:
        self.free = list(range(len(DECK)))

    def take(self, n: int, pred: Any = lambda c: True) -> list[int]:
        got = [i for i in self.free if pred(DECK[i])][:n]
        assert len(got) == n
        for i in got:
            self.free.remove(i)
        return got

    def label(self, text: str) -> int:
        index = card(text)
        self.free.remove(index)
        return index


def test_rulebook_example_left_column_scores_the_left_board() -> None:
    """The 2 cards of your left column are an 8-point card and '2 points per dragonfly': 8 points,
    plus 2 for every dragonfly on the board to your left."""
    pick = Picker()
    eight, per_dragonfly = pick.label("orange snail 8 points"), pick.label("blue frog 2 per dragonfly")
    fixed = pick.take(6, lambda c: c.kind == "fixed")
    mine = [eight, *fixed[:3], per_dragonfly, *fixed[3:]]  # slots 0 and 4: the left column
    left = pick.take(3, lambda c: c.animal == "dragonfly") + pick.take(5, lambda c: c.animal == "fish")
    right = pick.take(5, lambda c: c.animal == "dragonfly") + pick.take(3, lambda c: c.animal == "frog")
    assert neighbours(3, "standard")[0] == (1, 2)  # seat 1 sits on seat 0's left
    points = scoring.score([mine, left, right], pick.take(4), "standard")
    assert points[0][0] == 8
    assert points[0][4] == 2 * 3
    assert sum(points[0]) == 8 + 6 + sum(DECK[c].points for c in fixed)


def boards_of(*ponds: list[Card]) -> dict[int | str, list[Card | None]]:
    return {i: list(p) for i, p in enumerate(ponds)}


F = Card("blue", "frog", "fixed", 5)
PER_FROG = Card("green", "fish", "per_animal", 2, "frog")
PER_GREEN = Card("purple", "snail", "per_colour", 3, "green")
FROG_BLUE = Card("blue", "frog", "fixed", 1)
FISH_PURPLE = Card("purple", "fish", "fixed", 1)
GREEN_SNAIL = Card("green", "snail", "fixed", 1)


def test_each_column_faces_its_board_and_fixed_cards_score_anywhere() -> None:
    # seat 0 holds the same "2 per frog" in every column of row 0 and fixed 5s in row 1.
    zero = [PER_FROG] * 4 + [F] * 4
    one = [FROG_BLUE] * 1 + [FISH_PURPLE] * 7      # seat 0's left: 1 frog
    two = [FROG_BLUE] * 3 + [FISH_PURPLE] * 5      # seat 0's right: 3 frogs
    boards = boards_of(zero, one, two)
    sides = neighbours(3, "standard")
    # own board has 4 frogs (the fixed 5s are blue frogs)
    assert slot_scores(boards, 0, sides[0]) == [2 * 1, 2 * 4, 2 * 4, 2 * 3, 5, 5, 5, 5]


def test_a_conditional_card_counts_itself_on_its_own_board() -> None:
    self_counting = Card("green", "frog", "per_animal", 2, "frog")
    zero = [FISH_PURPLE, self_counting, FISH_PURPLE, self_counting] + [FISH_PURPLE] * 4
    other = [FISH_PURPLE] * 8
    sides = neighbours(2, "standard")
    points = slot_scores(boards_of(zero, other), 0, sides[0])
    assert points[1] == 2 * 2  # centre: both frogs on its own board, itself included
    assert points[3] == 0      # right column: seat 1's board has no frog


def test_two_player_standard_both_sides_face_the_other_player() -> None:
    assert neighbours(2, "standard") == [(1, 1), (0, 0)]
    zero = [PER_GREEN, FISH_PURPLE, FISH_PURPLE, PER_GREEN] + [FISH_PURPLE] * 4
    one = [GREEN_SNAIL] * 2 + [FISH_PURPLE] * 6
    points = slot_scores(boards_of(zero, one), 0, (1, 1))
    assert points[0] == points[3] == 3 * 2


def test_four_player_neighbours_run_in_seat_order() -> None:
    assert neighbours(4, "standard") == [(1, 3), (2, 0), (3, 1), (0, 2)]
    v = GAME.view(new(4), None)
    assert [(p["left"], p["right"], p["team"]) for p in v["players"]] == [
        (1, 3, None), (2, 0, None), (3, 1, None), (0, 2, None)]


def test_duel_river_is_a_third_board() -> None:
    assert neighbours(2, "duel") == [(1, RIVER), (RIVER, 0)]
    v = GAME.view(new(2, "duel"), None)
    assert [(p["left"], p["right"]) for p in v["players"]] == [(1, "river"), ("river", 0)]
    zero = [PER_FROG, FISH_PURPLE, FISH_PURPLE, PER_FROG] + [FISH_PURPLE] * 4
    one = [PER_FROG, FISH_PURPLE, FISH_PURPLE, PER_FROG] + [FROG_BLUE] * 4
    river = [FROG_BLUE] * 2 + [FISH_PURPLE] * 6
    boards: dict[int | str, list[Card | None]] = {0: list(zero), 1: list(one), RIVER: list(river)}
    sides = neighbours(2, "duel")
    p0 = slot_scores(boards, 0, sides[0])
    p1 = slot_scores(boards, 1, sides[1])
    assert (p0[0], p0[3]) == (2 * 4, 2 * 2)  # left faces seat 1 (4 frogs), right the River (2)
    assert (p1[0], p1[3]) == (2 * 2, 0)      # left faces the River, right seat 0 (no frog)


def test_team_side_columns_score_the_partner_and_teams_win_together() -> None:
    assert neighbours(4, "team") == [(2, 2), (3, 3), (0, 0), (1, 1)]
    v = GAME.view(new(4, "team"), None)
    assert [(p["left"], p["right"], p["team"]) for p in v["players"]] == [
        (2, 2, 0), (3, 3, 1), (0, 0, 0), (1, 1, 1)]
    res = scoring.outcome([10, 20, 15, 4], "team")
    assert res["teams"] == [25, 24] and res["winners"] == [0, 2] and res["scores"] == [10, 20, 15, 4]
    assert scoring.outcome([10, 20, 14, 4], "team")["winners"] == [0, 1, 2, 3]


def test_team_scoring_with_hand_built_ponds() -> None:
    pick = Picker()
    per_frog, per_green = pick.label("orange dragonfly 2 per frog"), pick.label("blue frog 3 per green")
    fixed = pick.take(6, lambda c: c.kind == "fixed")
    zero = [per_frog, *fixed[:3], *fixed[3:6], per_green]   # left: 2 per frog, right: 3 per green
    two = pick.take(5, lambda c: c.animal == "frog" and c.colour != "green") + pick.take(
        3, lambda c: c.colour == "green" and c.animal != "frog")
    one, three = pick.take(8), pick.take(8)
    points = scoring.score([zero, one, two, three], [], "team")
    assert points[0][0] == 2 * 5  # seat 0's left column scores partner seat 2: 5 frogs
    assert points[0][7] == 3 * 3  # and its right column too: 3 green cards
    res = scoring.outcome([sum(p) for p in points], "team")
    assert res["teams"] == [sum(points[0]) + sum(points[2]), sum(points[1]) + sum(points[3])]


def test_ties_share_the_victory() -> None:
    assert scoring.outcome([30, 41, 41], "standard")["winners"] == [1, 2]
    assert scoring.outcome([30, 29], "duel")["winners"] == [0]


def test_final_view_has_scoring_per_slot_column_and_fixed() -> None:
    out = random_playout(GAME, 3, 11)
    v = GAME.view(out.state, 2)
    assert v["phase"] == "over" and v["legal"] == []
    res = v["result"]
    for entry in v["scoring"]:
        seat = entry["seat"]
        assert sum(entry["slots"]) == entry["total"] == sum(entry["columns"]) == res["scores"][seat]
        assert entry["columns"] == [entry["slots"][c] + entry["slots"][c + 4] for c in range(4)]
        fixed = sum(p for slot, p in zip(v["ponds"][seat], entry["slots"], strict=True)
                    if DECK[slot].kind == "fixed")
        assert entry["fixed"] == fixed
        assert v["players"][seat]["score"] == entry["total"]
    assert set(res["winners"]) == {s for s, x in enumerate(res["scores"]) if x == max(res["scores"])}


# -- views ---------------------------------------------------------------------------------------

def test_view_shows_face_down_slots_as_bare_and_cards_by_contract() -> None:
    s = new(3, "standard", 4)
    GAME.apply(s, 0, {"type": "flip", "slot": 2})
    for viewer in (None, 0, 1, 2):
        v = GAME.view(s, viewer)
        assert v["ponds"][0][0] is None
        shown = v["ponds"][0][2]
        # a face-up card is the id of its kind; the catalogue says what it shows
        assert shown == s.ponds[0][2]
        c, face = DECK[s.ponds[0][2]], GAME.catalogue()["cards"][str(s.ponds[0][2])]
        assert (face["colour"], face["animal"]) == (c.colour, c.animal)
        assert v["scoring"] is None and v["result"] is None and v["deadline"] is None
        assert all(p["score"] is None for p in v["players"])
    assert_views_are_json(GAME, s, 3)


def test_card_values_by_kind() -> None:
    s = new(2)
    cards = GAME.catalogue()["cards"]
    views = {DECK[c].label: cards[str(v)]["value"] for c, v in zip(s.river, GAME.view(s, None)["river"],
                                                                          strict=True)}
    for label, value in views.items():
        if value["kind"] == "fixed":
            assert label == f"{value['points']} points"
        elif value["kind"] == "per_animal":
            assert label == f"{value['points']} per {value['animal']}"
        else:
            assert value["kind"] == "per_colour" and label == f"{value['points']} per {value['colour']}"


def test_log_follows_the_game_and_stays_short() -> None:
    out = random_playout(GAME, 4, 2)
    log = GAME.view(out.state, None)["log"]
    assert 0 < len(log) <= 40
    assert log[-1][0] == "scores" and log[-1][1] == out.state.scores
    assert any(entry[0] == "swap" for entry in log)


# -- timeouts and bots ---------------------------------------------------------------------------

@pytest.mark.parametrize("seats,mode", CONFIGS)
def test_timeout_and_bot_actions_are_legal_and_finish_a_game(seats: int, mode: str) -> None:
    s = new(seats, mode, 9)
    rng = random.Random(9)
    turn = 0
    while s.phase != "over":
        seat = GAME.active(s)[0]
        action = GAME.timeout_action(s, seat) if turn % 2 else GAME.bot_action(GAME.view(s, seat), rng)
        assert action in GAME.legal(s, seat)
        GAME.apply(s, seat, action)
        turn += 1
    assert GAME.result(s) is not None
    assert GAME.bot_action(GAME.view(s, 0), rng) is None


def test_timeout_flips_the_first_face_down_slot() -> None:
    s = new(2)
    assert GAME.timeout_action(s, 0) == {"type": "flip", "slot": 0}


def test_greedy_bot_beats_random_play() -> None:
    wins = 0
    games = 60
    for seed in range(games):
        s = new(2, "standard", seed)
        rng = random.Random(seed)
        while s.phase != "over":
            seat = GAME.active(s)[0]
            action = GAME.bot_action(GAME.view(s, seat), rng) if seat == seed % 2 else rng.choice(GAME.legal(s, seat))
            assert action is not None
            GAME.apply(s, seat, action)
        result = GAME.result(s)
        assert result is not None
        wins += result["winners"] == [seed % 2]
    assert wins > games * 0.7


# -- properties of random play -------------------------------------------------------------------

GARBAGE: list[Any] = [
    None, 0, 1.5, "flip", b"flip", [], [{"type": "flip", "slot": 0}], {}, {"type": None},
    {"type": "dance"}, {"type": "flip"}, {"type": "flip", "slot": None}, {"type": "flip", "slot": True},
    {"type": "flip", "slot": False}, {"type": "flip", "slot": "0"}, {"type": "flip", "slot": 0.0},
    {"type": "flip", "slot": -1}, {"type": "flip", "slot": 8}, {"type": "flip", "slot": 10**30},
    {"type": "flip", "slot": [0]}, {"type": "flip", "slot": 0, "extra": 1}, {"type": "swap"},
    {"type": "swap", "river": 0}, {"type": "swap", "slot": 0}, {"type": "swap", "river": True, "slot": 0},
    {"type": "swap", "river": 0, "slot": True}, {"type": "swap", "river": 99, "slot": 0},
    {"type": "swap", "river": -1, "slot": 0}, {"type": "swap", "river": 0, "slot": 8},
    {"type": "swap", "river": 2**64, "slot": 0}, {"type": "swap", "river": "1", "slot": 0},
    {"type": "swap", "river": 0, "slot": 0, "again": True}, {1: 2}, {("type",): "flip"},
]


def scramble_hidden(state: State, rng: random.Random) -> State:
    """Permute every card nobody can see (face-down Pond and River cards, the undealt deck) among
    those hidden places. In Symbiose a face-down card is hidden from every viewer alike."""
    out = copy.deepcopy(state)
    places: list[tuple[str, int, int]] = []
    for s, ups in enumerate(out.up):
        places += [("pond", s, i) for i, u in enumerate(ups) if not u]
    places += [("river", 0, j) for j, u in enumerate(out.river_up) if not u]
    places += [("deck", 0, k) for k in range(len(out.deck))]

    def get(p: tuple[str, int, int]) -> int:
        return out.ponds[p[1]][p[2]] if p[0] == "pond" else (out.river if p[0] == "river" else out.deck)[p[2]]

    cards = [get(p) for p in places]
    rng.shuffle(cards)
    for (where, s, i), c in zip(places, cards, strict=True):
        if where == "pond":
            out.ponds[s][i] = c
        elif where == "river":
            out.river[i] = c
        else:
            out.deck[i] = c
    out.rng = random.Random(rng.random())
    return out


def dump(view: dict[str, Any]) -> str:
    return json.dumps(view, sort_keys=True)


configs = st.sampled_from(CONFIGS)
seeds = st.integers(min_value=0, max_value=2**32)


@settings(max_examples=40, deadline=None)
@given(configs, seeds, seeds)
def test_random_play_ends_conserves_cards_and_replays(config: tuple[int, str], seed: int, rseed: int) -> None:
    seats, mode = config
    state = GAME.setup(seats, seed, GAME.check_options(seats, {"mode": mode}))
    rng = random.Random(rseed)
    views: list[list[str]] = []
    actions: list[tuple[int | None, dict[str, Any]]] = []
    while GAME.result(state) is None:
        assert all_ids(state) == list(range(36))
        views.append([dump(v) for v in (GAME.view(state, s) for s in [None, *range(seats)])])
        step = step_once(GAME, state, rng)
        assert step is not None, "a game that has not ended must wait for someone"
        actions.append(step)
    assert all_ids(state) == list(range(36))
    assert len(actions) <= 8 * seats * 2
    views.append([dump(v) for v in (GAME.view(state, s) for s in [None, *range(seats)])])
    again = GAME.setup(seats, seed, GAME.check_options(seats, {"mode": mode}))
    for k, (seat, action) in enumerate(actions):
        assert [dump(GAME.view(again, s)) for s in [None, *range(seats)]] == views[k]
        GAME.apply(again, seat, copy.deepcopy(action))
    assert [dump(GAME.view(again, s)) for s in [None, *range(seats)]] == views[-1]
    assert pickle.dumps(replay(GAME, seats, seed, {"mode": mode}, actions)) == pickle.dumps(state)
    assert pickle.loads(pickle.dumps(state)).ponds == copy.deepcopy(state).ponds == state.ponds


@settings(max_examples=40, deadline=None)
@given(configs, seeds, st.integers(min_value=0, max_value=60))
def test_refusals_change_nothing_and_legal_actions_are_accepted(config: tuple[int, str], seed: int,
                                                                 steps: int) -> None:
    seats, mode = config
    state = GAME.setup(seats, seed, GAME.check_options(seats, {"mode": mode}))
    rng = random.Random(seed)
    for _ in range(steps):
        if GAME.result(state) is not None:
            break
        step_once(GAME, state, rng)
    if GAME.result(state) is not None:
        for seat in [None, *range(seats)]:
            assert assert_refusal_changes_nothing(GAME, state, seat, GARBAGE[5]) == "game_over"
        return
    seat = GAME.active(state)[0]
    for junk in GARBAGE:
        assert assert_refusal_changes_nothing(GAME, state, seat, junk) in ("bad_message", "illegal")
        for other in [None, True, -1, 99, *[s for s in range(seats) if s != seat]]:
            code = assert_refusal_changes_nothing(GAME, state, other, junk)
            assert code == "not_your_turn"
    legal = GAME.legal(state, seat)
    for action in legal:
        GAME.apply(copy.deepcopy(state), seat, copy.deepcopy(action))
    every = ([{"type": "flip", "slot": i} for i in range(8)]
             + [{"type": "swap", "river": j, "slot": i} for j in range(len(state.river)) for i in range(8)])
    for action in every:
        if action not in legal:
            assert assert_refusal_changes_nothing(GAME, state, seat, action) == "illegal"


@settings(max_examples=40, deadline=None)
@given(configs, seeds, st.integers(min_value=0, max_value=70), seeds)
def test_non_interference_hidden_cards_never_show(config: tuple[int, str], seed: int, steps: int,
                                                   sseed: int) -> None:
    seats, mode = config
    state = GAME.setup(seats, seed, GAME.check_options(seats, {"mode": mode}))
    rng = random.Random(seed)
    for _ in range(steps):
        if GAME.result(state) is not None:
            break
        step_once(GAME, state, rng)
    other = scramble_hidden(state, random.Random(sseed))
    assert all_ids(other) == list(range(36))
    for viewer in [None, *range(seats)]:
        assert dump(GAME.view(other, viewer)) == dump(GAME.view(state, viewer))
    # and the public consequences of the next move are equally blind to the hidden cards
    if GAME.result(state) is None:
        seat = GAME.active(state)[0]
        action = GAME.timeout_action(state, seat)
        assert GAME.timeout_action(other, seat) == action
        assert GAME.bot_action(GAME.view(other, seat), random.Random(1)) == GAME.bot_action(
            GAME.view(state, seat), random.Random(1))


@pytest.mark.parametrize("seats,mode", CONFIGS)
def test_hidden_cards_are_bare_in_every_view(seats: int, mode: str) -> None:
    out = random_playout(GAME, seats, 21, {"mode": mode}, max_steps=seats * 6)
    state = out.state
    for viewer in [None, *range(seats)]:
        v = GAME.view(state, viewer)
        for s in range(seats):
            for i, slot in enumerate(v["ponds"][s]):
                if state.up[s][i]:
                    assert slot == state.ponds[s][i]
                else:
                    assert slot is None
        for j, slot in enumerate(v["river"]):
            if state.river_up[j]:
                assert slot == state.river[j]
            else:
                assert slot is None
        text = dump(v)
        hidden = [state.ponds[s][i] for s in range(seats) for i in range(8) if not state.up[s][i]]
        for c in hidden + state.deck:
            assert f'"s{c}"' not in text


@pytest.mark.parametrize(("seats", "mode"), CONFIGS)
def test_the_running_score_counts_what_is_face_up_and_nothing_hidden(seats: int, mode: str) -> None:
    """Each player's `showing` is the score of the table as it shows: nothing while every card is face
    down, the final scoring once every card is face up, and the same in every viewer's view."""
    state = new(seats, mode, seed=7)
    assert all(not up for ups in state.up for up in ups)
    assert [p["showing"] for p in GAME.view(state, None)["players"]] == [0] * seats
    for ups in state.up:
        ups[:] = [True] * len(ups)
    state.river_up = [True] * len(state.river_up)
    whole = [sum(points) for points in scoring.score(state.ponds, state.river, mode)]
    views = [GAME.view(state, s) for s in [None, *range(seats)]]
    for view in views:
        assert [p["showing"] for p in view["players"]] == whole
