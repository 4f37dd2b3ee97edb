"""The strong level's search (rules/search.py) and each game's sampler of what a seat cannot see.

A sample must be a world the seat cannot tell from the true one: its view of it is the seat's view,
`legal` included, and every card of the game lies in exactly one place. The search sees only the
view: two true states that show a seat the same view give the same move for the same seed.
"""
from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from bench.bots import USUAL
from rules import levels, search
from rules.engine import HUB
from rules.frenetic_village import sample as frenetic_village_sample
from rules.frenetic_village.components import DECK_SIZE, combination
from rules.frenzy_falls import sample as frenzy_falls_sample
from rules.frenzy_falls.components import SCORE_DECK_SIZE, WATERFALL_DECK
from rules.registry import GAMES, SAMPLERS
from rules.symbiose.components import DECK
from rules.waterfall_park import sample as waterfall_park_sample
from rules.waterfall_park.components import NUMBERS


def _symbiose_cards(state: Any) -> Counter[int]:
    return Counter([c for pond in state.ponds for c in pond] + list(state.river) + list(state.deck))


def _symbiose_full(state: Any, seats: int) -> bool:
    return _symbiose_cards(state) == Counter(range(len(DECK)))


def _frenzy_falls_full(state: Any, seats: int) -> bool:
    """Each player's 15 cards are the deck's 15 faces; the Score cards in play are as many as the
    chart says, each of the 32 at most once."""
    owned, scores = frenzy_falls_sample.cards_of(state)
    every = Counter(frenzy_falls_sample.SCORE_CARDS)
    return (all(o == Counter(WATERFALL_DECK) for o in owned) and sum(scores.values()) == SCORE_DECK_SIZE[seats]
            and all(n <= every[c] for c, n in scores.items()))


def _frenetic_village_full(state: Any, seats: int) -> bool:
    return frenetic_village_sample.cards_of(state) == list(range(DECK_SIZE))


def _waterfall_park_full(state: Any, seats: int) -> bool:
    """Every location card once, and every owned location's card in the box."""
    return (waterfall_park_sample.cards_of(state) == Counter(NUMBERS)
            and all(n in state.box for n in NUMBERS if state.owner[n - 1] is not None))


#: Whether a sample holds every card of a game of `seats` exactly once.
COUNTED: dict[str, Callable[[Any, int], bool]] = {"symbiose": _symbiose_full, "frenzy_falls": _frenzy_falls_full,
                                                  "frenetic_village": _frenetic_village_full,
                                                  "waterfall_park": _waterfall_park_full}


def _world(state: Any) -> str:
    """A state's every place, its random stream aside."""
    return repr({k: v for k, v in vars(state).items() if k != "rng"})


def playable(game: Any, state: Any, seat: int, action: Any) -> bool:
    """A move of `legal`, or an offer (which `legal` cannot list) that the true state takes."""
    if action in game.legal(state, seat):
        return True
    if not isinstance(action, dict) or action.get("type") != "offer":
        return False
    game.apply(copy.deepcopy(state), seat, copy.deepcopy(action))
    return True


def played(gid: str, seats: int, seed: int, limit: int = 400,
           keen: bool = False) -> Iterator[tuple[Any, int | None, Any]]:
    """One game played by normal bots: (state, seat, None) where a seat has a move to choose (one
    mover at random, or the first when `keen`), (state, None, contest) where a contest is open. A
    contest goes to any eligible seat at random, or when `keen` to one of those whose rule tries."""
    game = GAMES[gid]
    state = game.setup(seats, seed, game.check_options(seats, {}))
    rng = random.Random(seed)
    for _ in range(limit):
        if game.result(state) is not None:
            return
        contest = game.contest(state)
        if contest is not None:
            yield state, None, contest
            tried = ([s for s in contest.eligible if game.bot_wants(game.view(state, s), contest.info)]
                     if keen else list(contest.eligible))
            game.apply(state, HUB, {"type": "contest_result", "key": contest.key,
                                    "winner": rng.choice(tried) if tried else None})
            continue
        movers = [s for s in game.active(state) if game.legal(state, s)]
        if not movers:
            return
        seat = movers[0] if keen else rng.choice(movers)
        yield state, seat, None
        view = game.view(state, seat)
        game.apply(state, seat, game.bot_action(view, rng) or view["legal"][0])


def decisions(gid: str, seats: int, seed: int, limit: int = 400) -> Iterator[tuple[Any, int]]:
    """Every (state, seat) of one game played by normal bots where a seat has a move to choose."""
    return ((state, seat) for state, seat, _ in played(gid, seats, seed, limit) if seat is not None)


def contests(gid: str, seats: int, seed: int, limit: int = 400) -> Iterator[tuple[Any, Any]]:
    """Every (state, contest) of one game played by normal bots where a contest is open."""
    return ((state, c) for state, _, c in played(gid, seats, seed, limit, keen=True) if c is not None)


@pytest.mark.parametrize("gid", sorted(SAMPLERS))
def test_a_sample_shows_the_seat_its_own_view_and_counts_every_card_once(gid: str) -> None:
    game, sampler = GAMES[gid], SAMPLERS[gid]
    seats = USUAL[gid]
    checked = 0
    for seed in range(3):
        for state, seat in decisions(gid, seats, seed):
            view = game.view(state, seat)
            assert sampler.seat_of(view) == seat
            rng = random.Random(seed * 1000 + checked)
            for _ in range(3):
                world = sampler.sample(view, rng)
                assert game.view(world, seat) == view
                assert COUNTED[gid](world, seats)
            checked += 1
    assert checked >= 30


@pytest.mark.parametrize("gid", sorted(SAMPLERS))
def test_samples_differ_where_the_seat_cannot_see(gid: str) -> None:
    """A sampler that returned the one world it was built from would pass the test above."""
    game, sampler = GAMES[gid], SAMPLERS[gid]
    state, seat = next(iter(decisions(gid, USUAL[gid], 7)))
    view = game.view(state, seat)
    rng = random.Random(1)
    worlds = {_world(sampler.sample(view, rng)) for _ in range(5)}
    assert len(worlds) > 1


@pytest.mark.parametrize("gid", sorted(SAMPLERS))
def test_two_true_states_with_one_view_give_one_move(gid: str) -> None:
    """The strong bot cannot use a card it could not see: a second true state is drawn from the
    sampler (it differs in every hidden place), checked to show the same view, and the search run on
    each view with the same seed chooses the same move."""
    game, sampler = GAMES[gid], SAMPLERS[gid]
    compared = 0
    for state, seat in decisions(gid, USUAL[gid], 11):
        view = game.view(state, seat)
        if len(view["legal"]) < 2:
            continue
        other = sampler.sample(view, random.Random(compared))
        assert _world(other) != _world(state)
        other_view = game.view(other, seat)
        assert other_view == view
        first = search.search(game, sampler, view, random.Random(5), iterations=24)
        second = search.search(game, sampler, other_view, random.Random(5), iterations=24)
        assert first == second and playable(game, state, seat, first)
        compared += 1
        if compared >= 6:
            break
    assert compared >= 3


@pytest.mark.parametrize("gid", sorted(SAMPLERS))
def test_a_strong_bot_plays_only_legal_moves_to_the_end(gid: str) -> None:
    game = GAMES[gid]
    seats = USUAL[gid]
    state = game.setup(seats, 3, game.check_options(seats, {}))
    rng = random.Random(3)
    for _ in range(2000):
        if game.result(state) is not None:
            break
        contest = game.contest(state)
        if contest is not None:
            game.apply(state, HUB, {"type": "contest_result", "key": contest.key, "winner": None})
            continue
        seat = next(s for s in game.active(state) if game.legal(state, s))
        view = game.view(state, seat)
        action = search.search(game, SAMPLERS[gid], view, rng, iterations=12)
        assert playable(game, state, seat, action)
        game.apply(state, seat, action)
    assert game.result(state) is not None


def test_a_strong_bot_is_the_search_where_it_is_offered() -> None:
    game = GAMES["symbiose"]
    state, seat = next((st, s) for st, s in decisions("symbiose", 2, 4) if st.phase == "swap")
    view = game.view(state, seat)
    assert levels.bot_action(game, view, random.Random(2), levels.STRONG, iterations=30) == search.search(
        game, SAMPLERS["symbiose"], view, random.Random(2), iterations=30)


def test_a_search_stops_when_told_after_one_try_of_each_candidate() -> None:
    game, sampler = GAMES["symbiose"], SAMPLERS["symbiose"]
    state, seat = next((st, s) for st, s in decisions("symbiose", 2, 4) if st.phase == "swap")
    view = game.view(state, seat)
    asked = []

    def stop() -> bool:
        asked.append(1)
        return True
    action = search.search(game, sampler, view, random.Random(0), iterations=10_000, stop=stop)
    assert action in view["legal"] and len(asked) == 1


def test_a_strong_park_bot_proposes_only_when_the_table_lets_it() -> None:
    """Waterfall Park's strong bot weighs offers of its own beside saying ready, and makes none when
    the hub's pace forbids it (`propose=False`): every other move stays its to choose."""
    game, sampler = GAMES["waterfall_park"], SAMPLERS["waterfall_park"]
    proposing = []
    for st, s in decisions("waterfall_park", 4, 5):
        view = game.view(st, s)
        if (st.phase == "exchange" and not st.offers and {"type": "ready"} in view["legal"]
                and any(a["type"] == "offer" for a in sampler.candidates(view, random.Random(0), 8))):
            proposing.append(view)
            if len(proposing) == 4:
                break
    assert len(proposing) >= 4
    free = [levels.bot_action(game, v, random.Random(0), levels.STRONG, iterations=60) for v in proposing]
    paced = [levels.bot_action(game, v, random.Random(0), levels.STRONG, iterations=60, propose=False)
             for v in proposing]
    assert any(a is not None and a["type"] == "offer" for a in free)
    assert paced == [{"type": "ready"}] * len(proposing)


def test_a_strong_park_bot_answers_an_offer_by_accepting_declining_or_countering() -> None:
    game, sampler = GAMES["waterfall_park"], SAMPLERS["waterfall_park"]
    asked = 0
    for state, seat in decisions("waterfall_park", 4, 9):
        view = game.view(state, seat)
        waiting = [a for a in view["legal"] if a["type"] == "decline"]
        if not waiting:
            continue
        lines = sampler.candidates(view, random.Random(0), 8)
        oid = waiting[0]["offer"]
        assert {"type": "decline", "offer": oid} in lines
        counters = [a for a in lines if a["type"] == "offer"]
        assert all(a["counters"] == oid for a in counters)
        for counter in counters:  # each is a legal counter-offer in the true world
            copy_ = sampler.sample(view, random.Random(1))
            game.apply(copy_, seat, counter)
        asked += 1
    assert asked >= 3


CONTESTED = [gid for gid in sorted(SAMPLERS) if gid == "frenetic_village"]


@pytest.mark.parametrize("gid", CONTESTED)
def test_a_sample_during_a_contest_shows_each_eligible_seat_its_view(gid: str) -> None:
    game, sampler = GAMES[gid], SAMPLERS[gid]
    seats = USUAL[gid]
    checked = 0
    for state, contest in contests(gid, seats, 2):
        for seat in contest.eligible:
            view = game.view(state, seat)
            world = sampler.sample(view, random.Random(checked))
            assert game.view(world, seat) == view and COUNTED[gid](world, seats)
            assert game.contest(world) == contest
            checked += 1
    assert checked >= 20


@pytest.mark.parametrize("gid", CONTESTED)
def test_two_true_states_with_one_view_give_one_grab(gid: str) -> None:
    """A strong bot weighs a grab from its view alone, as it chooses a move."""
    game, sampler = GAMES[gid], SAMPLERS[gid]
    compared = 0
    answers = set()
    for state, contest in contests(gid, USUAL[gid], 13):
        seat = contest.eligible[0]
        view = game.view(state, seat)
        other = sampler.sample(view, random.Random(compared))
        assert _world(other) != _world(state) and game.view(other, seat) == view
        first = search.wants(game, sampler, view, contest.info, random.Random(5), iterations=24)
        second = search.wants(game, sampler, game.view(other, seat), contest.info, random.Random(5), iterations=24)
        assert first == second
        answers.add(first)
        compared += 1
        if compared >= 8:
            break
    assert compared >= 4


def test_a_strong_bot_grabs_the_card_that_completes_its_hand() -> None:
    """The card that makes five of a combination is worth taking in every world; the strong level's
    grab (`levels.bot_wants`) is the search's."""
    game, sampler = GAMES["frenetic_village"], SAMPLERS["frenetic_village"]
    seen = 0
    for seed in range(40):
        for state, contest in contests("frenetic_village", 4, seed):
            for seat in contest.eligible:
                hand = state.hands[seat]
                card = state.piles[contest.info["pile"]][-1]
                if not any(combination([c for i, c in enumerate([*hand, card]) if i != d])
                           for d in range(len(hand))) or combination(hand):
                    continue
                view = game.view(state, seat)
                assert levels.bot_wants(game, view, contest.info, random.Random(seed), levels.STRONG, iterations=40)
                assert levels.bot_wants(game, view, contest.info, random.Random(seed), levels.STRONG,
                                        iterations=40) == search.wants(game, sampler, view, contest.info,
                                                                       random.Random(seed), iterations=40)
                seen += 1
        if seen >= 3:
            break
    assert seen >= 3


def test_a_frenetic_village_sample_deals_each_player_the_cards_the_log_shows_they_took() -> None:
    """A card grabbed is public, and stays in its grabber's hand until they put one of its kind away:
    every sample deals it to them, as the true state holds it."""
    game, sampler = GAMES["frenetic_village"], SAMPLERS["frenetic_village"]
    checked = 0
    for seed in range(12):
        for state, seat in decisions("frenetic_village", 4, seed):
            view = game.view(state, seat)
            known = frenetic_village_sample.known_hands(view)
            for other, kinds in enumerate(known):
                if other == seat or not kinds:
                    continue
                true = Counter(frenetic_village_sample.fc.kind_id(c) for c in state.hands[other])
                assert not Counter(kinds) - true, "what the log shows is in the true hand"
                world = sampler.sample(view, random.Random(checked))
                dealt = Counter(frenetic_village_sample.fc.kind_id(c) for c in world.hands[other])
                assert not Counter(kinds) - dealt
                checked += 1
    assert checked >= 10
