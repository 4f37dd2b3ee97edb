"""Chat at the table: lines reach the room as `event`s and change no view; refused text, limits and
the rate change nothing; the last lines come back on reload, resume and to late spectators, stay in
the replay, keep spectators apart when the room says so, and cross processes on Redis."""
from __future__ import annotations

import itertools
from typing import Any

import msgpack
import pytest
import redis

from tests.conftest import HubProcess, drop_prefix, new_prefix
from tests.hub.wsclient import Client, http, join, new_room, settle

_IDS = itertools.count(10_000)  # apart from the ids Client.act uses


async def say(c: Client, text: Any, **extra: Any) -> dict[str, Any]:
    return await c.request({"t": "say", "id": next(_IDS), "text": text, **extra})


def lines(c: Client) -> list[dict[str, Any]]:
    """The chat lines a client was sent, as events and in histories, by id (as the page keeps them)."""
    got: dict[int, dict[str, Any]] = {}
    for e in c.events:
        if e["kind"] == "chat":
            got[e["id"]] = {k: v for k, v in e.items() if k not in ("t", "kind")}
        elif e["kind"] == "chat_history":
            for ln in e["lines"]:
                got[ln["id"]] = ln
    return [got[i] for i in sorted(got)]


def texts(c: Client) -> list[str]:
    return [ln["text"] for ln in lines(c)]


async def table(base: str, options: dict[str, Any] | None = None) -> tuple[str, list[str], list[Client], Client]:
    room = new_room(base, "symbiose", 2, options)
    tokens = [join(base, room, f"p{s}", s)[1] for s in range(2)]
    players = [await Client(base, room, t).open() for t in tokens]
    spec = await Client(base, room).open()
    await settle([*players, spec])
    return room, tokens, players, spec


async def close_all(*clients: Client) -> None:
    for c in clients:
        await c.close()


async def test_a_line_reaches_every_connection_and_changes_no_view(hub: Any) -> None:
    room, _, players, spec = await table(hub.url)
    everyone = [*players, spec]
    seqs = [c.seq for c in everyone]
    assert (await say(players[0], "  2 coins, not 3  "))["t"] == "ack"
    assert (await say(spec, "go p1!", name="Wim"))["t"] == "ack"
    await settle(everyone)
    for c in everyone:
        got = lines(c)
        assert [(ln["seat"], ln["name"], ln["text"], ln["to"]) for ln in got] == [
            (0, "p0", "2 coins, not 3", "all"), (None, "Wim", "go p1!", "all")], c.seat
        assert all(isinstance(ln["time"], int) and ln["time"] > 1.6e12 for ln in got)
        assert [ln["id"] for ln in got] == [1, 2]
    # a seat speaks under its seat's name, whatever it sends
    await say(players[1], "hi", name="Someone Else")
    await settle(everyone)
    assert lines(spec)[-1]["name"] == "p1"
    # no delta, and the game goes on with the seqs it had
    assert [c.seq for c in everyone] == seqs
    mover = next(c for c in players if c.legal)
    assert (await mover.act(mover.legal[0]))["t"] == "ack"
    await settle(everyone)
    assert all(c.seq == s + 1 for c, s in zip(everyone, seqs, strict=True))
    assert not any(c.problems for c in everyone)
    await close_all(*everyone)


async def test_refused_lines_change_nothing(hub: Any) -> None:
    room, _, players, spec = await table(hub.url)
    everyone = [*players, spec]
    cases: list[tuple[Any, str]] = [
        ("", "empty_text"),
        (" \u3000 ", "empty_text"),
        ("x" * 281, "text_too_long"),
        ("two\nlines", "bad_text"),
        ("bell\x07", "bad_text"),
        ("abc\u202edcba", "bad_text"),          # a right-to-left override: reorders what others read
        ("in\u200bvisible", "bad_text"),        # a zero width space
        ("a\u200db", "bad_text"),               # a joiner between letters
        ("private \ue000", "bad_text"),
        ("z" + "\u0301" * 9, "bad_text"),       # Zalgo
        (42, "bad_message"),
        (None, "bad_message"),
    ]
    for text, code in cases:
        answer = await say(players[0], text)
        assert answer["t"] == "error" and answer["code"] == code, (text, answer)
    assert (await say(spec, "hi", name="\u202eevil"))["code"] == "bad_name"
    await players[0].send({"t": "say", "text": "no id"})
    assert (await players[0].next_error())["code"] == "bad_message"
    await settle(everyone)
    assert not any(lines(c) for c in everyone)
    late = await Client(hub.url, room).open()
    await settle([late])
    assert not lines(late)
    # what passes: NFC, emoji (a family's joiners too), exactly 280 characters
    for text in ["cafe\u0301", "\U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f44d\U0001f3fd", "y" * 280]:
        assert (await say(players[1], text))["t"] == "ack"
    await settle(everyone)
    assert texts(spec) == ["caf\u00e9", "\U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f44d\U0001f3fd", "y" * 280]
    await close_all(*everyone, late)


async def test_lines_are_rate_limited_per_connection(hub_factory: Any) -> None:
    h = hub_factory("--chat-burst", "3", "--chat-per-min", "1").start()
    room, _, players, spec = await table(h.url)
    answers = [await say(players[0], f"line {i}") for i in range(5)]
    assert [a["t"] for a in answers] == ["ack", "ack", "ack", "error", "error"]
    assert {a.get("code") for a in answers[3:]} == {"rate_limited"}
    # another connection has its own allowance; the refused lines were never said
    assert (await say(players[1], "mine"))["t"] == "ack"
    await settle([*players, spec])
    assert texts(spec) == ["line 0", "line 1", "line 2", "mine"]
    assert not players[0].closed.is_set()
    await close_all(*players, spec)


async def test_the_last_lines_come_back_on_reload_resume_and_to_late_spectators(hub_factory: Any) -> None:
    h = hub_factory("--chat-history", "3").start()
    room, tokens, players, spec = await table(h.url)
    for i in range(5):
        await say(players[i % 2], f"line {i}")
    await settle([*players, spec])
    assert texts(spec) == [f"line {i}" for i in range(5)]
    kept = ["line 2", "line 3", "line 4"]
    # a reload: a new connection with the seat's token
    reload = await Client(h.url, room, tokens[0]).open()
    await settle([reload])
    history = [e for e in reload.events if e["kind"] == "chat_history"]
    assert len(history) == 1 and [ln["text"] for ln in history[0]["lines"]] == kept
    # the history comes after the welcome, before anything else of the room
    kinds = [f["t"] for f in reload.frames if f["t"] not in ("ping",)]
    assert kinds[0] == "welcome" and kinds[1] == "event"
    # a resume (welcome without a view) gets it too; one that says which lines it holds, only the rest
    other = players[1]
    seq, view = other.seq, other.view
    await other.close()
    back = Client(h.url, room, tokens[1])
    back.seq, back.view = seq, view
    await back.open(resume=seq)
    await settle([back])
    assert texts(back) == kept
    after = Client(h.url, room, tokens[1])
    after.seq, after.view = back.seq, back.view
    await after.open(hello={"t": "hello", "room": room, "token": tokens[1], "resume": back.seq, "chat": 4})
    await settle([after])
    assert texts(after) == ["line 4"]
    # a spectator who comes late
    late = await Client(h.url, room).open()
    await settle([late])
    assert texts(late) == kept
    assert not any(c.problems for c in (reload, back, after, late))
    await close_all(reload, after, late, spec)


async def test_spectators_kept_to_themselves(hub: Any) -> None:
    room, tokens, players, spec = await table(hub.url, {"spectator_chat": "spectators"})
    spec2 = await Client(hub.url, room).open()
    everyone = [*players, spec, spec2]
    await say(spec, "they will never see this", name="Wim")
    await say(players[0], "hello all")
    await settle(everyone)
    for s in (spec, spec2):
        assert [(ln["text"], ln["to"]) for ln in lines(s)] == [("they will never see this", "spectators"),
                                                               ("hello all", "all")]
    for p in players:
        assert texts(p) == ["hello all"]
    # and so it stays in what a reload gets
    reload = await Client(hub.url, room, tokens[1]).open()
    late = await Client(hub.url, room).open()
    await settle([reload, late])
    assert texts(reload) == ["hello all"]
    assert texts(late) == ["they will never see this", "hello all"]
    status, body = http(hub.url, "POST", "/api/rooms", {"game": "symbiose", "seats": 2,
                                                          "options": {"spectator_chat": "nobody"}})
    assert status == 400 and body["error"] == "bad_option"
    await close_all(players[0], reload, spec, spec2, late)


async def test_lines_are_part_of_the_replay(hub: Any) -> None:
    room = new_room(hub.url, "symbiose", 2, {"bot_delay_ms": 0}, bots=[1])
    _, token = join(hub.url, room, "me")
    me = await Client(hub.url, room, token).open()
    await settle([me])
    assert (await say(me, "good luck"))["t"] == "ack"
    for _ in range(200):
        await settle([me], gap=0.03)
        if me.view["result"] is not None:
            break
        if me.legal:
            await me.act(me.legal[-1])
    assert me.view["result"] is not None
    assert (await say(me, "gg"))["t"] == "ack"  # a finished table still talks
    status, replay = http(hub.url, "GET", f"/api/rooms/{room}/replay")
    assert status == 200
    chat = replay["chat"]
    assert [(ln["text"], ln["seat"], ln["name"]) for ln in chat] == [("good luck", 0, "me"), ("gg", 0, "me")]
    assert chat[0]["step"] == 0 and chat[1]["step"] == len(replay["steps"])
    await me.close()


@pytest.mark.redis
async def test_chat_across_two_processes_on_redis(redis_url: str) -> None:
    prefix = new_prefix()
    # snapshots every other entry: the lines come back from a snapshot and from the entries after it
    args = ("--bot-delay-ms", "0", "--verify-deltas", "--snapshot-every", "2", "--redis", redis_url,
            "--redis-prefix", prefix)
    a, b = HubProcess(*args).start(), HubProcess(*args).start()
    third: HubProcess | None = None
    try:
        room = new_room(a.url, "symbiose", 2)  # owned by a
        t0, t1 = join(a.url, room, "Ann", 0)[1], join(b.url, room, "Bo", 1)[1]
        p0 = await Client(a.url, room, t0).open()
        p1 = await Client(b.url, room, t1).open()
        watcher = await Client(b.url, room).open()
        everyone = [p0, p1, watcher]
        await settle(everyone)
        assert (await say(p1, "from b"))["t"] == "ack"  # forwarded to the owner on a, logged, relayed
        assert (await say(p0, "from a"))["t"] == "ack"
        assert (await say(watcher, "from the stands", name="Wim"))["t"] == "ack"
        await settle(everyone)
        for c in everyone:
            assert texts(c) == ["from b", "from a", "from the stands"]
        # in the room's log like everything else
        r = redis.Redis.from_url(redis_url, socket_timeout=2)
        try:
            entries = [msgpack.unpackb(f[b"e"], raw=False, strict_map_key=False)
                       for _, f in r.xrange(f"{prefix}:{{{room}}}:log")]
        finally:
            r.close()
        assert [e["ln"]["text"] for e in entries if e["k"] == "chat"] == ["from b", "from a", "from the stands"]
        # a process that never saw the room serves the lines from the log
        third = HubProcess(*args).start()
        late = await Client(third.url, room).open()
        again = await Client(b.url, room, t0).open()  # Ann reloads on b
        await settle([late, again])
        assert texts(late) == texts(again) == ["from b", "from a", "from the stands"]
        assert await p0.wait_closed() == 4009
        await close_all(p1, watcher, late, again)
    finally:
        for h in (a, b, third):
            if h is not None:
                h.stop()
        drop_prefix(redis_url, prefix)


@pytest.fixture(scope="module")
def memory_hub() -> Any:
    h = HubProcess("--store", "memory", "--bot-delay-ms", "0", "--verify-deltas").start()
    yield h
    h.stop()


async def test_the_memory_store_chats_alike(memory_hub: HubProcess) -> None:
    """The store without a journal sends a line at once: the same frames, the same history."""
    await test_a_line_reaches_every_connection_and_changes_no_view(memory_hub)
    await test_spectators_kept_to_themselves(memory_hub)
    await test_lines_are_part_of_the_replay(memory_hub)


async def test_lines_survive_a_restart_on_sqlite(tmp_path: Any) -> None:
    db = str(tmp_path / "hub.sqlite3")
    # snapshots every other entry: the lines come back from a snapshot and from the entries after it
    args = ("--db", db, "--bot-delay-ms", "0", "--snapshot-every", "2")
    h = HubProcess(*args).start()
    try:
        room, tokens, players, spec = await table(h.url)
        for text in ("one", "two", "three"):
            await say(players[0], text)
        await settle([*players, spec])
        await close_all(*players, spec)
        h.stop()
        h = HubProcess(*args, port=h.port).start()
        back = await Client(h.url, room, tokens[0]).open()
        await settle([back])
        assert texts(back) == ["one", "two", "three"]
        assert (await say(back, "after"))["t"] == "ack"
        await settle([back])
        assert [ln["id"] for ln in lines(back)] == [1, 2, 3, 4]
        await back.close()
    finally:
        h.stop()
