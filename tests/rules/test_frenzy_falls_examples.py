"""The rulebook's examples, played on tables built by hand, and the rules around them."""
from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from rules.engine import IllegalAction
from rules.frenzy_falls import GAME, flow
from rules.frenzy_falls.components import FALLS, SCORE_DECK_SIZE, face_id
from rules.frenzy_falls.state import State
from tests.rules.frenzy_falls_kit import build, cards_in, face, faces, reveal, score

MOUNTAIN, GLACIER, DESERT, FOREST, COASTAL, TROPICAL = range(6)
# The rulebook's players: Rick (Mountain), Priscilla (Desert), Valley (Forest), Joey (Tropical).
RICK, PRISCILLA, VALLEY, JOEY = MOUNTAIN, DESERT, FOREST, TROPICAL


def logged(state: State, kind: str) -> list[list[Any]]:
    """The arguments of every log entry of `kind`, oldest first."""
    return [e[1:] for e in state.log if isinstance(e, list) and e[0] == kind]


def spilled(state: State) -> list[tuple[int, int, int, int]]:
    """Every spillover in the log as (Pool as printed, water, winner, influence)."""
    return [(pool + 1, water, seat, influence) for pool, water, seat, _, influence in logged(state, "spills")]


def act(state: State, seat: int, **action: object) -> None:
    GAME.apply(state, seat, {"type": state.phase, **action})


def test_spillover_example_desert_wins_with_five_influence() -> None:
    # 4 + 3 + 0 + 5 + 4 = 16: Mountain has 2 + 1, Desert 5, Forest 0 influence.
    state = reveal(build(4, [
        (score(4, 2), ["M3?", "D0?", "F5?", "M4?"]),
        (score(1, 4), []), (score(2, 3), []), (score(3, 3), []),
    ], hands={s: ["2"] for s in range(4)}, score_deck=[score(0, 5)]))
    assert [(w, seat, i) for _, w, seat, i in spilled(state)] == [(16, PRISCILLA, 5)]
    assert state.players[PRISCILLA].won == [score(4, 2)]
    assert faces(state.players[PRISCILLA].discard) == ["0"]
    assert state.pools[0].score == score(0, 5), "the won Score card is replaced at once"
    # Rick has two cards to choose from; Valley's only card moves without asking her.
    assert state.phase == "spill" and GAME.active(state) == [RICK]
    assert GAME.legal(state, RICK) == [{"type": "spill", "pos": 0}, {"type": "spill", "pos": 2}]
    act(state, RICK, pos=0)
    assert cards_in(state, 1) == ["M3", "F5"], "both stay face up, in the order of their owners"
    assert faces(state.players[RICK].discard) == ["4"]
    assert state.pools[0].cards == []
    assert state.phase == "discard"


def test_cascade_example_loops_into_pool_one() -> None:
    # Four Pools (seats Glacier and Coastal sit this one out, so the rulebook's names fit).
    state = reveal(build(6, [
        (score(0, 5), []),
        (score(2, 3), ["F1", "TBUMP?", "D2?"]),
        (score(4, 2), ["T1", "M3"]),
        (score(3, 3), ["D2", "F4"]),
    ], hands={s: ["3"] for s in range(6)}, score_deck=[score(1, 4), score(5, 1)]))
    # 2. Joey chooses to bump the '2' (still face down) down into Pool 3.
    assert state.phase == "bump" and GAME.active(state) == [JOEY]
    assert GAME.legal(state, JOEY) == [{"type": "bump", "side": "left"}, {"type": "bump", "side": "right"}]
    act(state, JOEY, side="right")
    # 3. Pool 3 reaches 10 (4+1+3+2): Joey wins with 4 influence and discards her '1'.
    assert (3, 10, JOEY, 4) in spilled(state)
    assert state.players[JOEY].won == [score(4, 2)]
    assert faces(state.players[JOEY].discard) == ["1"]
    # 5. Pool 4 reaches 14 (3+2+4+3+2): Priscilla wins with 6 and discards both her '2's.
    assert (4, 14, PRISCILLA, 6) in spilled(state)
    assert state.players[PRISCILLA].won == [score(3, 3)]
    assert faces(state.players[PRISCILLA].discard) == ["2", "2"]
    # 6. The '4' and the '3' loop up into Pool 1, which stops at 7 (0+4+3).
    assert cards_in(state, 0) == ["F4", "M3"]
    assert state.pools[0].water() == 7
    assert [p.cards for p in state.pools[2:]] == [[], []]
    assert [p.score for p in state.pools] == [score(0, 5), score(2, 3), score(1, 4), score(5, 1)]
    assert state.phase == "discard"


def test_proxy_into_bump_example() -> None:
    state = reveal(build(6, [
        (score(1, 4), ["M3", "TPROXY?", "F2?"]),
        (score(2, 3), []), (score(3, 3), []), (score(4, 2), []),
    ], hands={JOEY: ["1", "BUMP"], RICK: ["2"], VALLEY: ["2"]}))
    assert state.phase == "proxy" and GAME.active(state) == [JOEY]
    assert GAME.legal(state, JOEY) == [{"type": "proxy", "card": 0}, {"type": "proxy", "card": 1}]
    act(state, JOEY, card=1)
    assert cards_in(state, 0) == ["M3", "TBUMP", "F2?"]
    assert faces(state.players[JOEY].discard) == ["PROXY"]
    assert state.phase == "bump", "the replacement's own action resolves at once"
    # The card to the right is still face down: only its owner sees what it is.
    views = {s: GAME.view(state, s) for s in (None, RICK, VALLEY, JOEY)}
    assert views[VALLEY]["pools"][0]["cards"][2] == {"seat": VALLEY, "up": False, **_face("2")}
    assert views[JOEY]["pools"][0]["cards"][2] == {"seat": VALLEY, "up": False}
    assert views[None]["pools"][0]["cards"][2] == {"seat": VALLEY, "up": False}
    act(state, JOEY, side="right")
    # Bumped face down, it is revealed when the reveal reaches Pool 2.
    assert cards_in(state, 0) == ["M3", "TBUMP"]
    assert cards_in(state, 1) == ["F2"]
    assert [VALLEY, None, 1] in logged(state, "bump"), "a face-down card is bumped as its back only"


def test_proxy_example_one_replaces_with_a_one() -> None:
    state = reveal(build(4, [
        (score(1, 4), ["DPROXY?"]),
        (score(2, 3), []), (score(3, 3), []), (score(4, 2), []),
    ], hands={DESERT: ["1", "5"]}))
    act(state, DESERT, card=0)
    assert cards_in(state, 0) == ["D1"]
    assert state.players[DESERT].hand == [face("5")]


def test_proxy_with_one_card_in_hand_is_forced_and_with_none_stays() -> None:
    state = reveal(build(3, [
        (score(1, 4), ["MPROXY?", "GPROXY?"]), (score(2, 3), []), (score(3, 3), []),
    ], hands={MOUNTAIN: ["2"], DESERT: ["3"]}))
    assert cards_in(state, 0) == ["M2", "GPROXY"]
    assert logged(state, "proxy_stays")
    assert state.phase == "discard"


def test_pull_example_takes_any_card_of_another_pool() -> None:
    state = reveal(build(4, [
        (score(1, 4), ["FPULL?"]),
        (score(2, 3), ["M2", "F1?"]), (score(3, 3), ["D3"]), (score(4, 2), []),
    ], hands={s: ["4"] for s in range(4)}))
    assert state.phase == "pull" and GAME.active(state) == [FOREST]
    assert GAME.legal(state, FOREST) == [
        {"type": "pull", "pool": 1, "pos": 0}, {"type": "pull", "pool": 1, "pos": 1},
        {"type": "pull", "pool": 2, "pos": 0}]
    act(state, FOREST, pool=1, pos=1)
    # Pulled face down into the last space, it is revealed next, in this Pool.
    assert cards_in(state, 0) == ["FPULL", "F1"]
    assert cards_in(state, 1) == ["M2"]


def test_bump_with_no_neighbour_does_nothing_and_one_neighbour_is_forced() -> None:
    state = reveal(build(3, [
        (score(1, 4), ["MBUMP?"]), (score(2, 3), ["G4", "DBUMP?"]), (score(3, 3), []),
    ], hands={s: ["2"] for s in range(3)}))
    assert logged(state, "bump_nothing")
    assert cards_in(state, 1) == ["DBUMP"]
    assert cards_in(state, 2) == ["G4"]


def test_bump_from_the_bottom_pool_loops_to_the_top_and_is_revealed_on_a_later_pass() -> None:
    state = reveal(build(3, [
        (score(1, 4), ["M2"]), (score(2, 3), []), (score(3, 3), ["GBUMP?", "D4?"]),
    ], hands={s: ["2"] for s in range(3)}))
    assert cards_in(state, 0) == ["M2", "D4"]
    assert [2] in logged(state, "pass")
    assert [0, DESERT, face_id(face("4"))] in logged(state, "reveals")


def test_every_card_is_revealed_even_past_ten() -> None:
    # The Pool is at 10 before its last card; the PULL still resolves before the spillover.
    state = reveal(build(3, [
        (score(5, 1), ["M5?", "GPULL?"]), (score(1, 4), ["G0"]), (score(2, 3), []),
    ], hands={s: ["2"] for s in range(3)}, score_deck=[score(3, 3)]))
    kinds = [e[0] for e in state.log]
    assert kinds.index("pull") < kinds.index("spills")
    assert [(w, seat) for _, w, seat, _ in spilled(state)] == [(11, GLACIER)]


@pytest.mark.parametrize(("cards", "winner"), [
    (["M1?", "G1?", "D5?"], MOUNTAIN),
    (["G1?", "M1?", "D5?"], GLACIER),
    (["D5?", "G1?", "M1?"], GLACIER),
])
def test_spillover_tie_goes_to_the_earliest_card(cards: list[str], winner: int) -> None:
    # Score 5 + 1 + 1 + 5 = 12; Mountain and Glacier tie on 4 influence.
    state = reveal(build(3, [(score(5, 1), cards), (score(1, 4), []), (score(2, 3), [])],
                         hands={s: ["2"] for s in range(3)}))
    assert state.players[winner].won == [score(5, 1)]


def test_movers_go_in_order_of_their_earliest_card() -> None:
    state = reveal(build(4, [
        (score(5, 1), ["F3", "D0", "M2", "F1", "G4"]), (score(0, 5), []),
        (score(1, 4), []), (score(2, 3), []),
    ], hands={s: ["2"] for s in range(4)}))
    # 15 water; Forest has 2 + 4 = 6 influence, Desert 5, Mountain 3, Glacier 1.
    assert state.players[FOREST].won == [score(5, 1)]
    assert cards_in(state, 1) == ["D0", "M2", "G4"]


def test_spill_move_of_identical_cards_is_not_asked() -> None:
    state = reveal(build(3, [
        (score(5, 1), ["M2", "M2", "G0", "G1"]), (score(0, 5), []), (score(1, 4), []),
    ], hands={s: ["3"] for s in range(3)}, score_deck=[score(3, 3)]))
    assert state.phase == "discard"
    assert cards_in(state, 1) == ["M2"]
    assert faces(state.players[MOUNTAIN].discard) == ["2"]


def test_end_of_score_cards_ends_the_game_after_the_round_and_skips_empty_pools() -> None:
    state = reveal(build(3, [
        (score(5, 1), ["M0", "G5"]),
        (score(2, 3), ["G1"]),
        (score(4, 2), ["D0", "M3", "G3"]),
    ], hands={s: ["2"] for s in range(3)}))
    three = face_id(face("3"))
    # Pool 1 spills at 10 with no Score card to replace it: the game ends after this round.
    assert [(p, w, seat) for p, w, seat, _ in spilled(state)][0] == (1, 10, MOUNTAIN)
    assert logged(state, "last_round")
    # Pool 3 spills at 10; its cards loop past Pool 1 (no Score card) into Pool 2 ...
    assert (3, 10, DESERT) in [(p, w, seat) for p, w, seat, _ in spilled(state)]
    assert [MOUNTAIN, three, 1] in logged(state, "cascade")
    assert [GLACIER, three, 1] in logged(state, "cascade")
    # ... which reaches 2 + 1 + 5 + 3 + 3 = 14 and spills on the next pass, with nowhere left to go.
    assert (2, 14, GLACIER) in [(p, w, seat) for p, w, seat, _ in spilled(state)]
    assert [MOUNTAIN, three] in logged(state, "cascade_discards")
    assert [p.score for p in state.pools] == [None, None, None]
    assert [p.won for p in state.players] == [[score(5, 1)], [score(2, 3)], [score(4, 2)]]
    assert state.phase == "over" and GAME.active(state) == []
    assert GAME.result(state) == {"winners": [GLACIER], "scores": [1, 3, 2], "score_cards": [1, 1, 1]}


def test_a_move_with_no_pool_to_go_to_is_discarded() -> None:
    state = reveal(build(3, [
        (score(5, 1), ["M0", "G5"]), (None, []), (None, []),
    ], hands={s: ["2"] for s in range(3)}))
    assert state.phase == "over"
    assert faces(state.players[GLACIER].discard) == ["5"]
    assert logged(state, "cascade_discards")


def test_game_end_tie_breaks() -> None:
    state = build(3, [(score(1, 4), []), (score(2, 3), []), (score(3, 3), [])])
    state.players[MOUNTAIN].won = [score(0, 5)]
    state.players[GLACIER].won = [score(5, 1), score(5, 1), score(4, 2)]
    state.players[DESERT].won = [score(2, 4)]
    flow.finish(state)
    assert state.result == {"winners": [MOUNTAIN], "scores": [5, 4, 4], "score_cards": [1, 3, 1]}
    state.players[DESERT].won = [score(2, 4), score(1, 4)]
    flow.finish(state)
    assert state.result == {"winners": [DESERT], "scores": [5, 4, 8], "score_cards": [1, 3, 2]}
    state.players[DESERT].won = [score(0, 5)]
    state.players[GLACIER].won = [score(0, 5)]
    flow.finish(state)
    assert state.result["winners"] == [MOUNTAIN, GLACIER, DESERT]
    state.players[GLACIER].won = [score(5, 1), score(1, 4)]
    flow.finish(state)
    assert state.result["winners"] == [GLACIER], "same points: more Score cards wins"


def test_setup_by_player_count() -> None:
    for seats in range(2, 7):
        state = GAME.setup(seats, 7, {})
        pools = 3 if seats == 2 else seats
        assert len(state.pools) == pools
        assert len(state.score_deck) == SCORE_DECK_SIZE[seats] - pools
        assert [p.falls for p in state.players] == list(FALLS[:seats])
        assert all(len(p.hand) == 5 and len(p.deck) == 10 for p in state.players)
        assert state.turns == [(state.first + k) % seats
                               for _ in range(3 if seats == 2 else 2) for k in range(seats)]
        assert GAME.active(state) == [state.first]
    assert {GAME.setup(4, seed, {}).first for seed in range(40)} == {0, 1, 2, 3}


def test_round_end_discards_are_simultaneous_and_hidden() -> None:
    state = reveal(build(2, [(score(1, 4), []), (score(2, 3), []), (score(3, 3), [])],
                         hands={0: ["2", "BUMP"], 1: ["3"]}, first=0))
    assert state.phase == "discard" and GAME.active(state) == [0, 1]
    assert GAME.legal(state, 0) == [{"type": "discard", "cards": c} for c in ([], [0], [1], [0, 1])]
    assert GAME.legal(state, 1) == [{"type": "discard", "cards": []}, {"type": "discard", "cards": [0]}]
    before = json.dumps(GAME.view(state, 1), sort_keys=True)
    GAME.apply(state, 0, {"type": "discard", "cards": [1]})
    assert GAME.active(state) == [1] and GAME.legal(state, 0) == []
    assert GAME.view(state, 0)["discarding"] == [1]
    after = GAME.view(state, 1)
    assert after["legal"] == json.loads(before)["legal"] and after["discarding"] is None
    with pytest.raises(IllegalAction) as refused:
        GAME.apply(state, 0, {"type": "discard", "cards": []})
    assert refused.value.code == "not_your_turn"
    GAME.apply(state, 1, {"type": "discard", "cards": []})
    assert state.phase == "play" and state.first == 1 and state.round == 2
    assert all(len(p.hand) == 5 for p in state.players)
    assert faces(state.players[0].discard) == ["BUMP"]
    assert [MOUNTAIN, 1, 4] in logged(state, "refills")


def test_drawing_reshuffles_only_the_players_own_discards() -> None:
    state = reveal(build(2, [(score(1, 4), []), (score(2, 3), []), (score(3, 3), [])],
                         hands={0: ["2"], 1: ["3"]}))
    player = state.players[0]
    player.discard, player.deck = player.deck[:-2], player.deck[-2:]
    GAME.apply(state, 0, {"type": "discard", "cards": []})
    GAME.apply(state, 1, {"type": "discard", "cards": []})
    assert len(player.hand) == 5 and player.discard == []
    assert len(player.deck) == 14 - 4
    assert [MOUNTAIN] in logged(state, "reshuffles")


def test_a_player_with_an_empty_hand_is_passed_over() -> None:
    state = GAME.setup(3, 1, {})
    first = state.first
    state.players[first].deck += state.players[first].hand
    state.players[first].hand = []
    flow.next_turn(state)
    assert GAME.active(state) == [(first + 1) % 3]


def _face(name: str) -> dict[str, object]:
    """A card as a view names it: by its kind's id in the catalogue."""
    return {"card": face_id(face(name))}


def test_apply_returns_every_log_line_the_action_wrote() -> None:
    # Six players, seed 12: the 12th random action (a card into Pool 1) sets off a cascade that writes
    # 38 lines; the log trim used to drop some of them before `apply` read them back.
    state = GAME.setup(6, 12, {})
    written = list(state.log)
    assert state.log_total == len(written)
    rng = random.Random(12)
    longest = 0
    for _ in range(400):
        if GAME.result(state) is not None:
            break
        seat = rng.choice([s for s in GAME.active(state) if GAME.legal(state, s)])
        action = rng.choice(GAME.legal(state, seat))
        before = state.log_total
        events = GAME.apply(state, seat, copy.deepcopy(action))
        assert len(events) == state.log_total - before, "every line written comes back as an event"
        longest = max(longest, len(events))
        written += [e["entry"] for e in events]
        assert written[-len(state.log):] == state.log and len(written) == state.log_total
        assert 0 < len(state.log) <= 50
    assert longest > 31, "the game played must hold an action that writes more lines than survive a trim"


def test_log_keeps_31_to_50_entries_as_the_docs_say() -> None:
    state = GAME.setup(4, 3, {})
    rng = random.Random(3)
    sizes: list[int] = []
    while GAME.result(state) is None:
        seat = rng.choice([s for s in GAME.active(state) if GAME.legal(state, s)])
        GAME.apply(state, seat, copy.deepcopy(rng.choice(GAME.legal(state, seat))))
        sizes.append(len(state.log))
        assert len(sizes) < 5000
    assert max(sizes) <= 50
    trimmed = next(i for i, n in enumerate(sizes) if i and n < sizes[i - 1])
    assert min(sizes[trimmed:]) >= 31, "once trimmed, the log never holds fewer than 31 entries"


