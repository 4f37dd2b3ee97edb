"""One non-interference test for every registered game: what a viewer cannot see never changes a byte
that the hub would send it.

What the hub sends a viewer V is, by construction, `msgpack(view(s, V))` in a welcome and
`msgpack(diff(view(s, V), view(t, V)))` in a delta from state s to state t. So V learns nothing
hidden if, for every reachable state s and every change of s that V cannot observe, the *bytes* of
`view(s, V)` stay the same: the delta between two states is then a function of two invariant views.
Bytes, not dicts: two dicts that compare equal may still list their keys in an order that depends on
a hidden card, and msgpack (and the diff's op order) would carry that order to the viewer.

"A change V cannot observe" comes from two sources, both sound:

- each game's own scramble helper (found in its test modules: `scramble`, `scramble_hidden`, ...),
  which permutes exactly what V may not know: other hands, face-down cards, the deck order. The
  helpers are written for running games: a finished game reveals what its rules reveal (Waterfall
  Park's coins, say), so at the end only the generic change below applies;
- a generic one that every game shares: replacing each `random.Random` held by the state. No viewer
  may know the random state, so no view may depend on it.

The generic two-seed form (two deals that happen to give V equal views) was set aside: for most
viewers two deals almost never coincide, so it would test next to nothing. Deltas are checked for
every action each active seat could take next, not only the one played: the successor views of all
of them, scrambled independently, must give byte-identical deltas. A guard makes sure the helpers
really changed the state in most cases, so a helper that does nothing cannot pass in silence.
"""
from __future__ import annotations

import copy
import importlib
import inspect
import json
import pickle
import random
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from hub.tables.audience import diff
from rules.engine import Game, IllegalAction
from rules.registry import GAMES
from tests.rules.kit import step_once

Scramble = Callable[[Any, "int | None", random.Random], Any]

HERE = Path(__file__).resolve().parent
HELPER_NAMES = ("scramble", "scramble_hidden", "scramble_for", "scramble_unseen", "scramble_secrets")
VIEWER_PARAMS = {"viewer", "seat", "who", "for_seat"}


def clone(state: Any) -> Any:
    """A deep copy; states must survive pickle, and a pickle round trip is far faster than deepcopy."""
    return pickle.loads(pickle.dumps(state))


def find_scramble(game_id: str) -> Scramble | None:
    """The game's own "change what V cannot see" helper, wrapped to one shape: (state, viewer, rng)
    -> a new state, the argument left untouched (helpers that mutate in place get a copy)."""
    names = sorted({p.stem for p in [*HERE.glob(f"{game_id}_kit*.py"), *HERE.glob(f"test_{game_id}*.py")]})
    for stem in names:
        try:
            mod = importlib.import_module(f"tests.rules.{stem}")
        except ImportError:
            continue
        for name in HELPER_NAMES:
            fn = getattr(mod, name, None)
            if callable(fn):
                return adapt(fn)
    return None


def adapt(fn: Callable[..., Any]) -> Scramble:
    params = list(inspect.signature(fn).parameters)
    takes_viewer = any(p in VIEWER_PARAMS for p in params)

    def scramble(state: Any, viewer: int | None, rng: random.Random) -> Any:
        work = clone(state)
        args: list[Any] = []
        for p in params:
            if p in VIEWER_PARAMS:
                args.append(viewer)
            elif p in ("rng", "random", "r"):
                args.append(rng)
            elif p == "seed":
                args.append(rng.getrandbits(32))
            elif not args:
                args.append(work)
        if not takes_viewer and len(args) < 2:
            args.append(rng)
        out = fn(*args)
        return out if out is not None and type(out) is type(state) else work

    return scramble


ATOMS = frozenset({str, bytes, int, float, bool, type(None)})


def reseed_randoms(state: Any, rng: random.Random) -> Any:
    """A copy of the state whose every `random.Random` (at any depth of plain containers and
    objects) is replaced by a freshly seeded one: the random state is hidden from everyone."""
    out = clone(state)
    seen: set[int] = set()

    def walk(obj: Any) -> Any:
        if isinstance(obj, random.Random):
            return random.Random(rng.getrandbits(64))
        if type(obj) in ATOMS or id(obj) in seen:
            return obj
        seen.add(id(obj))
        if isinstance(obj, list):
            obj[:] = [walk(v) for v in obj]
        elif isinstance(obj, dict):
            for k in list(obj):
                obj[k] = walk(obj[k])
        elif hasattr(obj, "__dict__"):
            for k, v in list(vars(obj).items()):
                new = walk(v)
                if new is not v:
                    object.__setattr__(obj, k, new)
        return obj

    return walk(out)


def view_bytes(game: Game, state: Any, viewer: int | None) -> bytes:
    return msgpack.packb(game.view(state, viewer), use_bin_type=True)  # type: ignore[no-any-return]


def delta_bytes(game: Game, before: Any, after: Any, viewer: int | None) -> bytes:
    ops = diff(game.view(before, viewer), game.view(after, viewer))
    return msgpack.packb(ops, use_bin_type=True)  # type: ignore[no-any-return]


def configs(game: Game) -> list[tuple[int, dict[str, Any]]]:
    """Every seat count, and each value of each option with `choices`, where the game accepts it."""
    out: list[tuple[int, dict[str, Any]]] = []
    for seats in range(game.min_players, game.max_players + 1):
        variants: list[dict[str, Any]] = [{}]
        for key, spec in game.options.items():
            variants += [{key: v} for v in spec.get("choices", []) if v != spec.get("default")]
        for opts in variants:
            try:
                out.append((seats, game.check_options(seats, opts)))
            except IllegalAction:
                continue
    return out


def successors(game: Game, state: Any, rng: random.Random, limit: int) -> list[Any]:
    """States one action away: up to `limit` legal actions of the active seats (or a contest's result)."""
    contest = game.contest(state)
    moves: list[tuple[int | None, dict[str, Any]]] = []
    if contest is not None:
        moves = [(None, {"type": "contest_result", "key": contest.key, "winner": w})
                 for w in [*contest.eligible, None]]
    else:
        for seat in game.active(state):
            moves += [(seat, a) for a in game.legal(state, seat)]
    rng.shuffle(moves)
    out = []
    for seat, action in moves[:limit]:
        nxt = clone(state)
        game.apply(nxt, seat, copy.deepcopy(action))
        out.append(nxt)
    return out


class Tally:
    def __init__(self) -> None:
        self.checked = 0
        self.changed = 0


def check_state(game: Game, state: Any, seats: int, own: Scramble | None, rng: random.Random,
                tally: Tally) -> None:
    if game.result(state) is not None:
        own = None  # the end reveals what each game's rules reveal; the helpers scramble running games
    for viewer in [None, *range(seats)]:
        base = view_bytes(game, state, viewer)
        assert json.loads(json.dumps(game.view(state, viewer))) == game.view(state, viewer)
        worlds = [reseed_randoms(state, rng)]
        if own is not None:
            worlds.append(own(state, viewer, rng))
        if own is not None:
            tally.checked += 1
            tally.changed += neutral(worlds[1]) != neutral(state)
        for other in worlds:
            assert view_bytes(game, other, viewer) == base, (
                f"{game.id}: viewer {viewer}'s view depends on what it cannot see\n"
                f"{json.dumps(game.view(state, viewer), sort_keys=True)[:3000]}\n"
                f"{json.dumps(game.view(other, viewer), sort_keys=True)[:3000]}")


def neutral(state: Any) -> bytes:
    """The state's bytes with its random state set aside, to tell whether a scramble moved anything else."""
    return pickle.dumps(reseed_randoms(state, random.Random(0)))


def check_deltas(game: Game, state: Any, nexts: list[Any], seats: int, own: Scramble | None,
                 rng: random.Random) -> None:
    """The deltas a viewer would get for each next state. Given byte-identical views at both ends
    (what check_state proves for each), the delta is too, as long as the diff is a function of the
    two views alone; that is checked here on a sample, since diffing big views is the slow part."""
    if not nexts:
        return
    if game.result(state) is not None or any(game.result(n) is not None for n in nexts):
        own = None
    viewer = rng.choice([None, *range(seats)])
    nxt = rng.choice(nexts)
    scramble = own or (lambda s, v, r: reseed_randoms(s, r))
    a, b = scramble(state, viewer, rng), scramble(nxt, viewer, rng)
    assert delta_bytes(game, a, b, viewer) == delta_bytes(game, state, nxt, viewer), (
        f"{game.id}: viewer {viewer}'s delta depends on what it cannot see")


MAX_CHECKS = 8  # states checked per example (each with its successors), to bound the time per game
SCRAMBLES: dict[str, Scramble | None] = {g: find_scramble(g) for g in GAMES}


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_has_its_own_scramble_helper(game_id: str) -> None:
    if SCRAMBLES[game_id] is None:
        warnings.warn(f"{game_id}: no scramble helper found in its tests; only the random state is varied",
                      stacklevel=1)
        pytest.skip(f"{game_id} exposes no scramble helper")


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(data=st.data())
def test_views_and_deltas_never_depend_on_what_the_viewer_cannot_see(game_id: str, data: st.DataObject) -> None:
    game = GAMES[game_id]
    seats, options = data.draw(st.sampled_from(configs(game)), label="config")
    seed = data.draw(st.integers(0, 2**62), label="seed")
    play_rng = random.Random(data.draw(st.integers(0, 2**32), label="play"))
    scramble_rng = random.Random(seed ^ 0xA5A5)
    own = SCRAMBLES[game_id]
    state = game.setup(seats, seed, options)
    tally = Tally()
    every = data.draw(st.integers(2, 8), label="every")
    checks = 0
    for step in range(400):
        if step % every == 0 and checks < MAX_CHECKS:
            checks += 1
            check_state(game, state, seats, own, scramble_rng, tally)
            nexts = successors(game, state, play_rng, limit=3)
            for nxt in nexts:
                check_state(game, nxt, seats, own, scramble_rng, tally)
            check_deltas(game, state, nexts, seats, own, scramble_rng)
        if game.result(state) is not None or step_once(game, state, play_rng) is None:
            break
    check_state(game, state, seats, own, scramble_rng, tally)
    assert own is None or tally.changed >= tally.checked // 4, (
        f"{game_id}: the scrambles changed the state in only {tally.changed} of {tally.checked} checks")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_no_view_carries_the_seed_or_the_random_state(game_id: str) -> None:
    """A direct look for the numbers themselves, with seeds large enough not to appear by chance."""
    game = GAMES[game_id]
    for seats, options in configs(game)[:3]:
        seed = random.Random(seats).getrandbits(62) | (1 << 61)
        state = game.setup(seats, seed, options)
        rng = random.Random(seed)
        for _ in range(120):
            words = {str(w) for r in randoms(state) for w in r.getstate()[1] if w > 1 << 24}
            for viewer in [None, *range(seats)]:
                text = json.dumps(game.view(state, viewer))
                packed = view_bytes(game, state, viewer)
                assert str(seed) not in text and msgpack.packb(seed) not in packed
                numbers = set(re.findall(r"\d+", text))
                assert not numbers & words, f"{game_id}: a view holds the random state"
            if game.result(state) is not None or step_once(game, state, rng) is None:
                break


def randoms(state: Any) -> list[random.Random]:
    found: list[random.Random] = []
    seen: set[int] = set()

    def walk(obj: Any) -> None:
        if isinstance(obj, random.Random):
            found.append(obj)
            return
        if type(obj) in ATOMS or id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, list | tuple):
            for v in obj:
                walk(v)
        elif isinstance(obj, dict):
            for v in obj.values():
                walk(v)
        elif hasattr(obj, "__dict__"):
            for v in vars(obj).values():
                walk(v)

    walk(state)
    assert found, "every state keeps its randomness in a random.Random of its own"
    return found
