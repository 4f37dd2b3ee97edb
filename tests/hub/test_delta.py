"""The hub's own RFC 6902 diff: applying its operations to the old document gives the new one."""
from __future__ import annotations

import copy
import random
from typing import Any

import jsonpatch
import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.tables.delta import Shared, _map_len, diff_view, json_equal, make_patch, packs_of
from rules.registry import GAMES
from tests.rules.kit import step_once

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(["", "a", "b", "~", "/x", "a~1"]))
docs = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=6), st.dictionaries(st.sampled_from(["a", "b", "c", "d/e", "f~g"]), inner, max_size=4)),
    max_leaves=30)


def edited(doc: Any, rng: random.Random) -> Any:
    """A nearby document: the kinds of change views make (edits in place, a sliding list, inserts)."""
    if isinstance(doc, list):
        out = [edited(x, rng) if rng.random() < 0.3 else x for x in doc]
        r = rng.random()
        if r < 0.2 and out:
            out = out[rng.randint(1, min(3, len(out))):] + [rng.choice([1, "z", None, True])]
        elif r < 0.4:
            out.insert(rng.randint(0, len(out)), rng.choice([0, "y", [], {}]))
        elif r < 0.5 and out:
            del out[rng.randrange(len(out))]
        return out
    if isinstance(doc, dict):
        out = {k: (edited(v, rng) if rng.random() < 0.4 else v) for k, v in doc.items()}
        if rng.random() < 0.3:
            out[rng.choice(["a", "q", "d/e"])] = rng.choice([1, False, "s"])
        if out and rng.random() < 0.2:
            del out[rng.choice(sorted(out))]
        return out
    return rng.choice([doc, 1, True, 0, False, "a", None, 1.5])


def check(old: Any, new: Any) -> list[dict[str, Any]]:
    ops = make_patch(old, new)
    got = jsonpatch.apply_patch(copy.deepcopy(old), ops)
    assert json_equal(got, new), ops  # where True and 1 differ
    return ops


@settings(max_examples=400, deadline=None)
@given(docs, docs)
def test_any_two_documents(old: Any, new: Any) -> None:
    check(old, new)


@settings(max_examples=400, deadline=None)
@given(docs, st.integers(0, 2**32))
def test_nearby_documents(old: Any, seed: int) -> None:
    check(old, edited(old, random.Random(seed)))


def test_json_equality_is_strict_about_types_not_order() -> None:
    assert json_equal({"a": 1, "b": [None]}, {"b": [None], "a": 1})
    assert not json_equal({"a": 1}, {"a": True})
    assert not json_equal([0], [False])


def test_equal_documents_need_nothing() -> None:
    doc = {"a": [1, {"b": [True, None]}], "c": "x"}
    assert make_patch(doc, copy.deepcopy(doc)) == []


def test_bool_and_number_are_different_values() -> None:
    assert make_patch({"a": 1}, {"a": True}) == [{"op": "replace", "path": "/a", "value": True}]
    assert make_patch([0], [False]) == [{"op": "replace", "path": "/0", "value": False}]


def test_a_sliding_log_costs_one_remove_and_one_add() -> None:
    old = {"log": [f"line {i}" for i in range(40)]}
    new = {"log": [f"line {i}" for i in range(1, 41)]}
    assert check(old, new) == [{"op": "remove", "path": "/log/0"}, {"op": "add", "path": "/log/39", "value": "line 40"}]


def test_keys_are_escaped() -> None:
    assert check({}, {"a/b~c": 1}) == [{"op": "add", "path": "/a~1b~0c", "value": 1}]


def test_every_game_view_through_random_play() -> None:
    for game in GAMES.values():
        for seats in (game.min_players, game.max_players):
            state = game.setup(seats, 3, game.check_options(seats, {}))
            rng = random.Random(3)
            views = {a: game.view(state, a) for a in [None, *range(seats)]}
            for _ in range(400):
                if game.result(state) is not None or step_once(game, state, rng) is None:
                    break
                for a in views:
                    new = msgpack.unpackb(msgpack.packb(game.view(state, a)), raw=False)
                    check(views[a], new)
                    views[a] = new


def same_as_make_patch(old: dict[str, Any], new: dict[str, Any], shared: Shared) -> list[dict[str, Any]]:
    """diff_view gives make_patch's operations, whatever other audiences left in `shared`."""
    ops, packs = diff_view(old, new, packs_of(old), shared)
    assert msgpack.packb(ops) == msgpack.packb(make_patch(old, new))
    assert packs == packs_of(new)
    assert json_equal(jsonpatch.apply_patch(copy.deepcopy(old), ops), new)
    return ops


maps = st.dictionaries(st.sampled_from(["a", "b", "c", "d/e", "f~g"]), docs, max_size=5)


@settings(max_examples=300, deadline=None)
@given(maps, st.lists(st.tuples(maps, st.integers(0, 2**32)), min_size=1, max_size=4), st.integers(0, 2**32))
def test_audiences_of_one_change_share_what_they_see_alike(base: dict[str, Any], own: Any, seed: int) -> None:
    """Views of one change: a common part (edited the same way for everyone) and parts of their own."""
    rng = random.Random(seed)
    common_new = edited(base, rng)
    shared = Shared()
    for extra, s in own:
        mine = random.Random(s)
        old = {**base, **{k: v for k, v in extra.items() if mine.random() < 0.5}}
        new = {**common_new, **{k: edited(v, mine) for k, v in extra.items() if mine.random() < 0.5}}
        same_as_make_patch(old, new, shared)


def test_a_bool_where_another_audience_had_a_number_is_not_taken_for_it() -> None:
    shared = Shared()
    assert same_as_make_patch({"x": [1, 5]}, {"x": [1, 6]}, shared) == [{"op": "replace", "path": "/x/1", "value": 6}]
    ops = same_as_make_patch({"x": [True, 5]}, {"x": [1, 6]}, shared)
    assert {"op": "replace", "path": "/x/0", "value": 1} in ops


def test_every_game_view_through_random_play_with_audiences_sharing() -> None:
    for game in GAMES.values():
        for seats in (game.min_players, game.max_players):
            state = game.setup(seats, 5, game.check_options(seats, {}))
            rng = random.Random(5)
            audiences = [None, *range(seats)]
            views = dict(zip(audiences, game.views(state, audiences), strict=True))
            for _ in range(300):
                if game.result(state) is not None or step_once(game, state, rng) is None:
                    break
                shared = Shared()  # the views of one call share what every audience sees alike
                for a, new in zip(audiences, game.views(state, audiences), strict=True):
                    same_as_make_patch(views[a], new, shared)
                    views[a] = new


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=40), docs, max_size=20))
def test_a_views_length_is_known_from_its_parts(doc: dict[str, Any]) -> None:
    assert _map_len(packs_of(doc)) == len(msgpack.packb(doc))
