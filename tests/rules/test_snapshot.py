"""Snapshots as plain data (rules/snapshot.py): every game's state survives the round trip at every
step of random play, and bytes that are not a snapshot of the game are refused without building
anything but its own data."""
from __future__ import annotations

import copy
import random

import msgpack
import pytest

from rules import snapshot
from rules.registry import GAMES
from tests.rules.kit import all_views, step_once

CASES = [(gid, seats) for gid, g in sorted(GAMES.items()) for seats in sorted({g.min_players, g.max_players})]


def round_trip(game_id: str, state: object) -> object:
    data = msgpack.unpackb(msgpack.packb(snapshot.dump(state), use_bin_type=True), raw=False,
                           strict_map_key=False)
    return snapshot.load(data, snapshot.state_types(GAMES[game_id]))


@pytest.mark.parametrize(("game_id", "seats"), CASES)
def test_every_state_of_random_play_comes_back_whole(game_id: str, seats: int) -> None:
    game = GAMES[game_id]
    for seed in range(3):
        state = game.setup(seats, seed, game.check_options(seats, {}))
        rng = random.Random(seed)
        for _ in range(400):
            back = round_trip(game_id, state)
            assert snapshot.dump(back) == snapshot.dump(state)
            assert all_views(game, back, seats) == all_views(game, state, seats)
            # the rebuilt state goes on exactly as the original: the same actions, the same draws
            twin_rng = copy.deepcopy(rng)
            step = step_once(game, state, rng)
            if step is None:
                break
            assert step_once(game, back, twin_rng) == step
            assert all_views(game, back, seats) == all_views(game, state, seats)
            if game.result(state) is not None:
                break


def test_only_the_games_own_types_are_built() -> None:
    game = GAMES["symbiose"]
    types = snapshot.state_types(game)
    assert types and all(name.startswith(("rules.symbiose.", "~rules.symbiose.")) for name in types)
    state = game.setup(2, 1, game.check_options(2, {}))
    data = snapshot.dump(state)
    foreign = ["C", "os._wrap_close", "proc", None]
    for bad in (foreign, ["C", "rules.frenzy_falls.state.State"], ["X", 1], {"a": 1}, ["D", 1], ["R", 3, ["x"], None]):
        with pytest.raises(snapshot.SnapshotError):
            snapshot.load(bad, types)
    # a field renamed since the snapshot was written is refused, not half-built
    renamed = [x if x != data[2] else data[2] + "_old" for x in data]
    with pytest.raises(snapshot.SnapshotError):
        snapshot.load(renamed, types)


def test_a_snapshot_from_before_a_class_moved_within_its_game_loads() -> None:
    """Symbiose's `State` lived in `rules/symbiose.py` before the game became a package: a room
    stored then comes back with the class's new home, and another game's class is still refused."""
    game = GAMES["symbiose"]
    types = snapshot.state_types(game)
    state = game.setup(3, 7, game.check_options(3, {}))
    data = snapshot.dump(state)
    assert data[1] == "rules.symbiose.state.State"
    before = ["C", "rules.symbiose.State", *data[2:]]
    back = snapshot.load(before, types)
    assert snapshot.dump(back) == data
    with pytest.raises(snapshot.SnapshotError):
        snapshot.load(["C", "rules.frenzy_falls.State", *data[2:]], types)


def test_a_field_added_with_a_default_loads_from_an_older_snapshot() -> None:
    """A state field added since a room was stored (with a default) takes its default; a field that
    has none, or one renamed, still refuses the snapshot (the room is then rebuilt from its log)."""
    game = GAMES["symbiose"]
    types = snapshot.state_types(game)
    state = game.setup(3, 7, game.check_options(3, {}))
    data = snapshot.dump(state)

    def without(field: str) -> list[object]:
        i = data.index(field)
        return [*data[:i], *data[i + 2:]]

    older = snapshot.load(without("log"), types)
    assert older.log == [] and older.ponds == state.ponds
    with pytest.raises(snapshot.SnapshotError):
        snapshot.load(without("seats"), types)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_room_stored_when_its_log_was_sentences_loads_and_plays_on(game_id: str) -> None:
    """Before log entries were data, a stored state's log held sentences (and Symbiose's and Waterfall
    Park's had no `log_from`): such a snapshot loads, the game plays on, and its view shows the old
    lines as the text they were, the new entries after them."""
    game = GAMES[game_id]
    seats = game.min_players
    state = game.setup(seats, 3, game.check_options(seats, {}))
    data = snapshot.dump(state)
    log_at = data.index("log")
    data[log_at + 1] = ["L", "Seat 0 did something long ago."]
    if "log_from" in data and game_id in ("symbiose", "waterfall_park"):
        i = data.index("log_from")
        data = [*data[:i], *data[i + 2:]]
    old = snapshot.load(data, snapshot.state_types(game))
    rng = random.Random(3)
    log = game.view(old, None)["log"]
    while len(log) < 2:
        assert step_once(game, old, rng) is not None
        log = game.view(old, None)["log"]
    assert log[0] == "Seat 0 did something long ago." and all(isinstance(e, list) for e in log[1:]) and len(log) > 1


def test_a_state_that_shares_a_mutable_part_is_refused() -> None:
    shared = [1, 2]
    with pytest.raises(snapshot.SnapshotError):
        snapshot.dump({"a": shared, "b": shared})
    with pytest.raises(snapshot.SnapshotError):
        snapshot.dump({"f": open})
