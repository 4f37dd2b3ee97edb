"""White-box: many full games over the hub, every game and both codecs, with every frame kept. No
frame to a viewer carries a seat token, the room's seed, the engine's random state, or a card that
viewer may not know; tokens are long, hashed at rest, compared in constant time, and never logged.

The app runs in this process (uvicorn on an ephemeral port), so the test reads what no client can:
`room.seed`, `room.state` and its random generators, and, after every change of a room, each
audience's view as the engine itself gives it. That engine view is "what V may know at that point";
tests/rules/test_secrets.py proves that it depends on nothing V cannot see. Here each client
rebuilds its view from the frames it got, and at every seq it must equal that engine view (plus
the hub's public additions: names, bot marks, banks, the deadline), and every string a frame
mentions must be in the engine view of its seq.
"""
from __future__ import annotations

import asyncio
import base64
import contextlib
import copy
import gc
import io
import logging
import os
import random
import re
import socket
import tempfile
import time
import weakref
from collections import defaultdict
from collections.abc import AsyncIterator
from typing import Any

import jsonpatch
import msgpack
import pytest
import uvicorn

from hub import logs, tokens
from hub.edge.app import create_app
from hub.settings import Settings
from hub.tables.room import Room
from rules.engine import declares_contests
from rules.levels import LEVELS
from rules.registry import GAMES
from tests.hub.wsclient import Client, http, join, new_room, settle

HUB_PLAYER_KEYS = {"name", "bot", "bot_level", "bank_ms", "presence", "grace_until"}
#: the words of `presence`: who is here is the hub's to say, not the engine's
PRESENCE_WORDS = {"here", "away", "bot", "empty"}
#: the words of `bot_level`: how well a hub bot plays is the hub's to say (rules/levels.py)
LEVEL_WORDS = set(LEVELS)
TABLES: list[tuple[str, int]] = [("symbiose", 4), ("frenzy_falls", 3), ("waterfall_park", 3),
                                 ("frenetic_village", 3)]  # bench/soak.py plays many more, without the white box
MAX_STEPS = 600
GRACE_S = 0.3


class Recorder:
    """After every refresh of every room: each audience's seq, engine view and sent view, and the
    random state of the room's generators."""

    def __init__(self) -> None:
        self.views: dict[tuple[str, str], dict[int, tuple[Any, Any]]] = defaultdict(dict)
        self.words: dict[str, set[int]] = defaultdict(set)

    def record(self, room: Room) -> None:
        for aud in room.audiences.values():
            if aud.view is None:
                continue
            engine = room.game.view(room.state, aud.seat)
            self.views[(room.rid, aud.key)][aud.seq] = (msgpack.unpackb(msgpack.packb(engine)), aud.view)
        for r in (*randoms(room.state), room.rng):
            self.words[room.rid].update(w for w in r.getstate()[1] if w > 1 << 24)


def randoms(obj: Any, seen: set[int] | None = None) -> list[random.Random]:
    seen = set() if seen is None else seen
    if isinstance(obj, random.Random):
        return [obj]
    if id(obj) in seen or isinstance(obj, str | bytes | int | float | bool | type(None)):
        return []
    seen.add(id(obj))
    items = (obj.values() if isinstance(obj, dict) else obj if isinstance(obj, list | tuple)
             else vars(obj).values() if hasattr(obj, "__dict__") else ())
    return [r for v in items for r in randoms(v, seen)]


@contextlib.asynccontextmanager
async def in_process_hub(recorder: Recorder, monkeypatch: pytest.MonkeyPatch,
                         **overrides: Any) -> AsyncIterator[tuple[str, Any, io.StringIO]]:
    original = Room.refresh

    def refresh(self: Room, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        recorder.record(self)

    monkeypatch.setattr(Room, "refresh", refresh)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    files = tempfile.TemporaryDirectory(prefix="hub-secrets-")
    if "db" not in overrides:  # a file of its own: tests run side by side, and the checkout's stays untouched
        overrides["db"] = os.path.join(files.name, "hub.sqlite3")
    settings = Settings(port=port, bot_delay_ms=0, verify_deltas=True, log_level="debug",
                        rooms_per_ip_per_min=10000, grace_s=GRACE_S, **overrides)
    app = create_app(settings)
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logs.JsonFormatter())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, ws="websockets-sansio",
                                           lifespan="on", log_config=None, access_log=True,
                                           ws_per_message_deflate=False, ws_ping_interval=None))
    task = asyncio.create_task(server.serve())
    for _ in range(500):
        if server.started:
            break
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}", app, out
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        root.removeHandler(handler)
        root.setLevel(old_level)
        files.cleanup()


async def off_loop(fn: Any, *args: Any) -> Any:
    """The blocking HTTP helpers, run off the event loop that also serves the hub."""
    return await asyncio.to_thread(fn, *args)


def strings(value: Any, out: set[str]) -> set[str]:
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.add(str(k))
            strings(v, out)
    elif isinstance(value, list):
        for v in value:
            strings(v, out)
    return out


def without_hub_keys(view: Any) -> Any:
    view = dict(view)
    view["deadline"] = None
    if isinstance(view.get("players"), list):
        view["players"] = [{k: v for k, v in p.items() if k not in HUB_PLAYER_KEYS} for p in view["players"]]
    return view


def check_client(c: Client, rid: str, key: str, recorder: Recorder, seat_names: set[str]) -> int:
    """Replay the client's frames: every seq's view must be the recorded one, and every string a
    frame mentions must be one the engine view of that seq holds. Returns the frames checked."""
    record = recorder.views[(rid, key)]
    view: Any = START.get(id(c))
    checked = 0
    for f in c.frames:
        if f["t"] == "welcome":
            if f["view"] is not None:
                view = f["view"]
                mentioned = strings(f["view"], set())
            else:
                mentioned = set()
            seq = f["seq"]
        elif f["t"] == "delta":
            view = jsonpatch.apply_patch(copy.deepcopy(view), f["ops"])
            seq = f["seq"]
            mentioned = set()
            for op in f["ops"]:
                if "value" in op:
                    strings(op["value"], mentioned)
        else:
            continue
        assert seq in record, f"{key} seq {seq} was never an audience state"
        engine, sent = record[seq]
        assert view == sent, f"{key} at seq {seq}: the client's view is not its audience's"
        assert without_hub_keys(view) == without_hub_keys(engine), f"{key} at seq {seq}: not the engine's view"
        extra = mentioned - strings(engine, set()) - seat_names - HUB_PLAYER_KEYS - PRESENCE_WORDS - LEVEL_WORDS
        assert not extra, f"{key} at seq {seq}: a frame mentions {sorted(extra)[:5]} that the engine view lacks"
        checked += 1
    return checked


START: dict[int, Any] = {}  # the view a resuming client already held, by client


def scan_raw(c: Client, forbidden: list[bytes], what: str) -> None:
    for data in c.raw:
        for f in forbidden:
            assert f not in data, f"a frame to {what} holds a secret: {f[:40]!r}"


async def play(base: str, app: Any, game: str, seats: int, seed: int, recorder: Recorder) -> dict[str, Any]:
    rng = random.Random(seed)
    rooms = app.state.store.rooms
    options: dict[str, Any] = {"bot_delay_ms": 0}
    if declares_contests(GAMES[game]):
        options["grab_window_ms"] = 300  # the shortest window, so that a game fits the test
    room_id = await off_loop(new_room, base, game, seats, options, [seats - 1] if seats > 2 else [])
    seat_tokens = {s: (await off_loop(join, base, room_id, f"Player{s}", s))[1]
                   for s in range(seats - (1 if seats > 2 else 0))}
    codecs = ["msgpack", "json"]
    players = {s: await Client(base, room_id, t, codec=codecs[(s + seed) % 2]).open() for s, t in seat_tokens.items()}
    specs = [await Client(base, room_id).open(), await Client(base, room_id, codec="json").open()]
    old: list[tuple[str, Client]] = []
    room = rooms.rooms[room_id]
    for step in range(MAX_STEPS):
        await settle([*players.values(), *specs], gap=0.003)
        if specs[0].view["result"] is not None:
            break
        for c in players.values():  # take part in contests, as a player would
            for f in c.contests[-1:]:
                if rng.random() < 0.5:
                    await c.send({"t": "act", "id": 10**6 + step, "action": {"type": "grab", "contest": f["id"]}})
        if step % 9 == 4 and players:  # reconnect a seat mid-game: take-over, resume from its seq
            s = rng.choice(sorted(players))
            c = players[s]
            fresh = Client(base, room_id, seat_tokens[s], codec=c.codec)
            fresh.view, fresh.seq = c.view, c.seq
            START[id(fresh)] = c.view
            await fresh.open(resume=c.seq)
            old.append((f"s{s}", c))
            players[s] = fresh
        movers = [c for c in players.values() if c.legal]
        if not movers:
            await asyncio.sleep(0.02)
            continue
        c = rng.choice(movers)
        action = GAMES[game].bot_action(c.view, rng) if rng.random() < 0.7 else None  # mostly sensible play
        await c.act(action or rng.choice(c.legal), seq=c.seq)
    await settle([*players.values(), *specs], gap=0.05)
    names = {s.name for s in room.seats if s.name is not None}  # what the hub adds: the seats' public names
    checked = 0
    forbidden = [t.encode() for t in seat_tokens.values()] + [str(room.seed).encode(), msgpack.packb(room.seed)]
    forbidden += [s.token_hash.encode() for s in room.seats if s.token_hash]
    for key, c in [*((f"s{s}", c) for s, c in players.items()), ("spec", specs[0]), ("spec", specs[1]), *old]:
        assert not c.problems, c.problems
        checked += check_client(c, room_id, key, recorder, names)
        scan_raw(c, forbidden, key)
        words = recorder.words[room_id]
        for data in c.raw:
            if c.codec == "msgpack":
                assert not any(b"\xce" + w.to_bytes(4, "big") in data for w in words), f"{key}: random state in a frame"
            else:
                numbers = set(re.findall(rb"\d+", data))
                assert not numbers & {str(w).encode() for w in words}, f"{key}: random state in a frame"
    for c in [*players.values(), *specs]:
        await c.close()
    return {"room": room_id, "tokens": list(seat_tokens.values()), "frames": checked, "steps": step,
            "finished": specs[0].view["result"] is not None, "room_obj": room}


async def test_no_frame_carries_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    async with in_process_hub(recorder, monkeypatch) as (base, app, log):
        results = []
        for n, (game, seats) in enumerate(t for t in TABLES if t[0] in GAMES):
            started = time.perf_counter()
            results.append(await play(base, app, game, seats, seed=n, recorder=recorder))
            print(f"{game} x{seats}: {results[-1]['steps']} steps, {time.perf_counter() - started:.1f} s")
        # tokens: long, hashed at rest, never in the room's own fields, never logged
        all_tokens = [t for r in results for t in r["tokens"]]
        assert len(set(all_tokens)) == len(all_tokens)
        for r in results:
            room: Room = r["room_obj"]
            held = repr([vars(s) for s in room.seats]) + repr(room.info()) + repr(room.summary())
            for t in r["tokens"]:
                assert len(base64.urlsafe_b64decode(t + "=" * (-len(t) % 4))) * 8 >= 128
                assert t not in held, "a token is stored in the clear"
                assert tokens.hash_token(t) in {s.token_hash for s in room.seats}
        text = log.getvalue()
        assert "room created" in text and "seat taken" in text, "the log was not captured"
        for t in all_tokens:
            assert t not in text, "a token was logged"
    total = sum(r["frames"] for r in results)
    print(f"\n{len(results)} games, {total} welcome and delta frames checked against the engine's views; "
          f"{sum(r['finished'] for r in results)} finished")
    assert total > 200
    assert all(r["finished"] for r in results if r["room_obj"].game.id != "frenetic_village")


async def test_tokens_are_compared_in_constant_time_against_every_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    calls: list[tuple[str, str]] = []
    original = tokens.hmac.compare_digest

    def counting(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return original(a, b)

    async with in_process_hub(recorder, monkeypatch) as (base, app, _):
        rid = await off_loop(new_room, base, "symbiose", 4)
        seat_tokens = [(await off_loop(join, base, rid, f"p{s}", s))[1] for s in range(4)]
        room = app.state.store.rooms.rooms[rid]
        monkeypatch.setattr(tokens.hmac, "compare_digest", counting)
        for t in [seat_tokens[0], seat_tokens[3], "nope"]:
            calls.clear()
            room.seat_of(t)
            assert len(calls) == 4, "the search must not stop at the first match"
            assert all(len(a) == len(b) == 64 for a, b in calls), "compare fixed-length hashes, not the tokens"


async def test_private_room_ids_are_long_and_unlisted(hub: Any) -> None:
    ids = [new_room(hub.url, "symbiose", 2, {"private": True}) for _ in range(20)]
    assert len(set(ids)) == 20
    for rid in ids:
        assert len(base64.urlsafe_b64decode(rid + "=" * (-len(rid) % 4))) * 8 >= 96
    listed = {r["room"] for r in http(hub.url, "GET", "/api/rooms")[1]}
    assert not listed & set(ids)
    for rid in ids[:3]:  # a near miss is no way in
        assert http(hub.url, "GET", f"/api/rooms/{rid[:-1] + ('A' if rid[-1] != 'A' else 'B')}")[0] == 404


async def test_dropped_rooms_are_freed(monkeypatch: pytest.MonkeyPatch) -> None:
    """No reference outlives a room: once the hub drops the finished rooms of a few bot games (after
    --finished-ttl-s), every one of them is garbage."""
    recorder = Recorder()
    async with in_process_hub(recorder, monkeypatch, finished_ttl_s=1) as (base, app, _):
        rooms = app.state.store.rooms
        refs = []
        for game in sorted(GAMES):
            seats = GAMES[game].min_players
            options: dict[str, Any] = {"bot_delay_ms": 0}
            if declares_contests(GAMES[game]):
                options["grab_window_ms"] = 300
            rid = await off_loop(new_room, base, game, seats, options, list(range(seats)))
            refs.append(weakref.ref(rooms.rooms[rid]))
            spec = await Client(base, rid).open()
            for _ in range(600):
                if spec.view["result"] is not None:
                    break
                await asyncio.sleep(0.05)
            await spec.close()
        for _ in range(100):  # the hub drops them by itself, a second after each finished
            if not rooms.rooms:
                break
            await asyncio.sleep(0.1)
        assert not rooms.rooms, "finished rooms were not dropped"
        # until the collector's whole walk, a dropped room waits in its cycles: without its views,
        # its delta history and its replay log, which are most of its memory (Audience.release)
        for ref in refs:
            room = ref()
            if room is not None:
                assert not room.log
                for aud in room.audiences.values():
                    assert aud.view is None and not aud.history and not aud.legal_at and not aud.conns
            del room
        await asyncio.sleep(max(GRACE_S, 1.0) + 0.3)  # timers that name a room, and a tick, run first
        # the hub's periodic full walk (hub/run/gcpolicy.py), now: a room frozen by an earlier collection
        # and dropped since is a cycle that only that walk reclaims; a live reference survives it
        gc.unfreeze()
        gc.collect()
        alive = [r() for r in refs if r() is not None]
        assert not alive, f"{len(alive)} dropped rooms are still referenced"
