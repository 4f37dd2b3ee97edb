"""The embedded default keeps everything in a real SQLite file: a process killed with `kill -9` at
any moment loses no acknowledged action, its rooms come back on the next start, and clients resume.
"""
from __future__ import annotations

import ast
import asyncio
import pickle
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest

from rules.registry import GAMES
from tests.conftest import ROOT, HubProcess
from tests.hub.test_contests import contest_table
from tests.hub.wsclient import Client, http, join, new_room, snapshot, without_presence

GAME_SEATS = [("symbiose", 2), ("frenzy_falls", 3), ("waterfall_park", 3), ("frenetic_village", 3)]


def hub_on(db: Path, *args: str) -> HubProcess:
    return HubProcess("--db", str(db), "--bot-delay-ms", "0", "--rooms-per-ip-per-min", "0", *args)


def entries_of(db: Path, rid: str) -> list[dict[str, Any]]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT entry FROM entries WHERE rid = ? ORDER BY n", (rid,)).fetchall()
    finally:
        conn.close()
    return [msgpack.unpackb(r[0], raw=False, strict_map_key=False) for r in rows]


async def play_acked(client: Client, rng: random.Random, acked: list[tuple[int, Any]], stop: asyncio.Event) -> None:
    """Play random legal actions; remember each one the hub acknowledged, in order."""
    while not stop.is_set() and not client.closed.is_set():
        legal = client.legal
        if not legal:
            await asyncio.sleep(0.005)
            continue
        action = rng.choice(legal)
        try:
            answer = await client.act(action, seq=client.seq, timeout=5)
        except (ConnectionError, TimeoutError):
            return
        if answer.get("t") == "ack":
            assert client.seat is not None
            acked.append((client.seat, action))


async def resumed(base: str, rid: str, token: str, last: tuple[int, Any] | None) -> Client:
    """A client that had been shown `last` (seq, view) reconnects and resumes from there."""
    c = Client(base, rid, token)
    if last is None:
        return await c.open()
    c.seq, c.view = last
    return await c.open(resume=last[0])


@pytest.mark.parametrize("kills", [3])
async def test_kill_9_during_play_loses_no_acknowledged_action(tmp_path: Path, kills: int) -> None:
    db = tmp_path / "hub.sqlite3"
    rng = random.Random(20261202)
    hub = hub_on(db).start()
    rooms: list[tuple[str, list[str]]] = []
    for game, seats in GAME_SEATS:
        rid = new_room(hub.url, game, seats, {"bot_delay_ms": 0})
        tokens = [join(hub.url, rid, f"p{i}")[1] for i in range(seats)]
        rooms.append((rid, tokens))
    acked: dict[str, list[tuple[int, Any]]] = {rid: [] for rid, _ in rooms}
    seen: dict[tuple[str, int], tuple[int, Any]] = {}  # what each client was last shown: (seq, view)
    try:
        for _ in range(kills):
            clients = [(rid, await resumed(hub.url, rid, tok, seen.get((rid, i))))
                       for rid, toks in rooms for i, tok in enumerate(toks)]
            for rid, c in clients:
                assert c.seq is not None and c.seat is not None
                # nothing the client was shown before the crash is missing afterwards
                assert c.seq >= seen.get((rid, c.seat), (0, None))[0], (rid, c.seat, c.seq)
                assert not c.problems, c.problems
            stop = asyncio.Event()
            players = [asyncio.create_task(play_acked(c, rng, acked[rid], stop)) for rid, c in clients]
            await asyncio.sleep(rng.uniform(0.4, 1.2))
            hub.kill()  # SIGKILL, mid-play
            stop.set()
            await asyncio.gather(*players, return_exceptions=True)
            for rid, c in clients:
                assert c.seat is not None and c.seq is not None
                seen[(rid, c.seat)] = (c.seq, c.view)
                await c.close()
            hub = hub_on(db).start()
        # every acknowledged action is in the file, each seat's in the order they were acknowledged
        for rid, toks in rooms:
            logged = [(e.get("s"), e.get("a")) for e in entries_of(db, rid) if e["k"] == "act"]
            for seat in range(len(toks)):
                it = iter(a for s, a in logged if s == seat)
                mine = [a for s, a in acked[rid] if s == seat]
                missing = [a for a in mine if not any(a == x for x in it)]
                assert not missing, f"{rid} seat {seat}: acknowledged but not in the log: {missing[:3]}"
            assert acked[rid], f"{rid}: nothing was played"
        # and every client resumes to exactly the hub's view
        for rid, toks in rooms:
            for i, tok in enumerate(toks):
                c = await resumed(hub.url, rid, tok, seen.get((rid, i)))
                await asyncio.sleep(0.05)
                _, fresh = await snapshot(hub.url, rid, tok)
                assert c.view == fresh and not c.problems
                await c.close()
        assert "Traceback" not in hub.log()
    finally:
        hub.stop()


async def test_a_second_process_on_the_same_file_refuses(tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite3"
    first = hub_on(db).start()
    try:
        second = subprocess.run([sys.executable, "-m", "hub", "serve", "--port", "0", "--db", str(db)],
                                cwd=ROOT, capture_output=True, text=True, timeout=30)
        assert second.returncode != 0
        assert "another hub process" in second.stderr + second.stdout
        assert http(first.url, "GET", "/healthz")[0] == 200
    finally:
        first.stop()


def edit_snapshots(db: Path, blob: bytes) -> int:
    conn = sqlite3.connect(db)
    try:
        n = conn.execute("UPDATE rooms SET snap = ?", (blob,)).rowcount
        conn.commit()
        return n
    finally:
        conn.close()


class Boom:
    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (Path(self.marker),))

    marker = ""


@pytest.mark.parametrize("kind", ["pickle", "garbage", "version-1", "foreign-type"])
async def test_a_corrupt_or_foreign_snapshot_is_refused_and_the_room_rebuilt(tmp_path: Path, kind: str) -> None:
    db = tmp_path / "hub.sqlite3"
    marker = tmp_path / "ran"
    hub = hub_on(db, "--snapshot-every", "4").start()
    try:
        rid = new_room(hub.url, "symbiose", 2, {"bot_delay_ms": 0}, bots=[1])
        _, tok = join(hub.url, rid, "ana")
        c = await Client(hub.url, rid, tok).open()
        for _ in range(6):
            if not c.legal:
                await asyncio.sleep(0.2)
                continue
            assert (await c.act(c.legal[0], seq=c.seq))["t"] == "ack"
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        before = await snapshot(hub.url, rid, tok)
        await c.close()
    finally:
        hub.kill()
    Boom.marker = str(marker)
    blob = {
        "pickle": pickle.dumps(Boom()),
        "garbage": b"\x00not a snapshot",
        "version-1": msgpack.packb({"v": 1, "n": 2, "state": pickle.dumps(Boom())}),
        "foreign-type": msgpack.packb({"v": 2, "n": 0, "state": {"v": 1, "d": ["C", "subprocess.Popen", "args", "x"]}}),
    }[kind]
    assert edit_snapshots(db, blob) == 1
    hub = hub_on(db).start()
    try:
        seq, view = await snapshot(hub.url, rid, tok)
        # the player left before the restart: only who is here moved
        assert without_presence(view) == without_presence(before[1])
        assert seq is not None and before[0] is not None and seq >= before[0]
        assert "snapshot refused" in hub.log()
        assert "Traceback" not in hub.log()
        assert not marker.exists(), "a snapshot ran code"
        metrics = http(hub.url, "GET", "/metrics")[1]
        assert "hub_snapshots_refused_total 1.0" in metrics
    finally:
        hub.stop()


async def test_the_time_the_hub_was_away_is_charged_to_no_one(tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite3"
    hub = hub_on(db).start()
    try:
        rid = new_room(hub.url, "symbiose", 2, {"decision_seconds": 60, "bank_seconds": 30})
        toks = [join(hub.url, rid, f"p{i}")[1] for i in range(2)]
        await asyncio.sleep(0.5)
        _, view = await snapshot(hub.url, rid, toks[0])
        left_before = view["deadline"] - int(time.time() * 1000)
        banks = [p["bank_ms"] for p in view["players"]]
        await asyncio.sleep(1.5)  # the writer notes the process alive every second
    finally:
        hub.kill()
    await asyncio.sleep(4)
    hub = hub_on(db).start()
    try:
        _, view = await snapshot(hub.url, rid, toks[0])
        left_after = view["deadline"] - int(time.time() * 1000)
        # without the move, 4 s and more of the decision would be gone; a second's slack for the beat
        assert left_after > left_before - 3000, (left_before, left_after)
        assert [p["bank_ms"] for p in view["players"]] == banks
        assert view["phase"] != "waiting" and view["legal"]
    finally:
        hub.stop()


async def test_finished_games_stay_with_their_replays_and_are_listed_page_by_page(tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite3"
    hub = hub_on(db, "--finished-ttl-s", "1").start()
    rids = []
    try:
        for _ in range(3):
            rids.append(new_room(hub.url, "symbiose", 2, {"bot_delay_ms": 0}, bots=[0, 1]))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            infos = [http(hub.url, "GET", f"/api/rooms/{r}")[1] for r in rids]
            if all(i["status"] == "finished" for i in infos):
                break
            await asyncio.sleep(0.2)
        replays = {r: http(hub.url, "GET", f"/api/rooms/{r}/replay")[1] for r in rids}
    finally:
        hub.kill()
    hub = hub_on(db, "--finished-ttl-s", "1").start()
    try:
        await asyncio.sleep(1.2)
        for r in rids:
            status, body = http(hub.url, "GET", f"/api/rooms/{r}/replay")
            assert status == 200 and body == replays[r]
            assert http(hub.url, "GET", f"/api/rooms/{r}")[1]["status"] == "finished"
        status, page1 = http(hub.url, "GET", "/api/history?limit=2")
        assert status == 200 and len(page1["games"]) == 2 and page1["next"] is not None
        status, page2 = http(hub.url, "GET", f"/api/history?limit=2&before={page1['next']}")
        assert status == 200 and len(page2["games"]) == 1 and page2["next"] is None
        listed = [g["room"] for g in page1["games"] + page2["games"]]
        assert sorted(listed) == sorted(rids)
        assert all(g["result"] and g["result"]["winners"] is not None for g in page1["games"] + page2["games"])
    finally:
        hub.stop()


def test_every_game_state_is_written_without_pickle() -> None:
    """The snapshot format carries the engine state as plain data of rules/snapshot.py."""
    from hub.tables import persist

    assert persist.SNAPSHOT_V == 2
    def names(node: ast.AST) -> list[str]:
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        if isinstance(node, ast.ImportFrom):
            return [node.module or "", *(a.name for a in node.names)]
        return []

    importing = [p for p in (ROOT / "hub").rglob("*.py") for node in ast.walk(ast.parse(p.read_text()))
                 if any("pickle" in n for n in names(node))]
    assert not importing, "the hub must not pickle or unpickle"
    assert GAMES


def test_a_waiting_room_that_expires_leaves_the_file(tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite3"
    hub = hub_on(db, "--waiting-ttl-s", "1").start()
    try:
        rid = new_room(hub.url, "symbiose", 2)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and http(hub.url, "GET", f"/api/rooms/{rid}")[0] == 200:
            time.sleep(0.2)
        time.sleep(0.3)
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("SELECT count(*) FROM rooms WHERE rid = ?", (rid,)).fetchone()[0] == 0
        finally:
            conn.close()
    finally:
        hub.stop()


def test_the_wal_is_moved_into_the_file_beside_the_writer(tmp_path: Path) -> None:
    """No commit checkpoints the WAL (that commit's deltas waited for an fsync): the checkpointer's
    thread keeps it short while tables play, and a clean stop leaves it empty."""
    db = tmp_path / "hub.sqlite3"
    wal = Path(str(db) + "-wal")
    hub = hub_on(db).start()
    try:
        for _ in range(6):
            new_room(hub.url, "waterfall_park", 5, bots=list(range(5)))
        sizes = []
        for _ in range(30):  # 6 s of bots playing without delay
            time.sleep(0.2)
            sizes.append(wal.stat().st_size if wal.exists() else 0)
        conn = sqlite3.connect(db)
        try:
            written = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
            autocheckpoint = conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        finally:
            conn.close()
        assert written > 200, f"the bots wrote {written} entries"
        assert autocheckpoint == 1000, "a reader's connection keeps SQLite's default"
        # the WAL starts again from its beginning once it passes 1,000 pages of 4 KiB (checked every
        # second): its file stops growing (a checkpointer alone beside this writer let it pass 14 MB)
        assert max(sizes) < 10 * 1024 * 1024, f"the WAL grew to {max(sizes)} bytes: {sizes}"
    finally:
        hub.stop()
    assert not wal.exists() or wal.stat().st_size == 0, "a clean stop leaves the WAL empty"


def test_games_that_finish_in_one_millisecond_are_each_on_a_page() -> None:
    """The history pages by the moment a game finished (`finished_ms < before`): two games finished in
    one millisecond must not share it, or the second page starts past one of them."""
    from hub.stores.sqlite.database import SCHEMA
    from hub.stores.sqlite.journal import SET_META

    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    for rid in ("a", "b", "c"):
        db.execute("INSERT INTO rooms (rid, game, status, private, created_ms, finished_ms, record, meta, snap, "
                   "snap_n) VALUES (?, 'symbiose', 'playing', 0, 1, NULL, x'', '{}', x'', 0)", (rid,))
    for rid in ("a", "b", "c"):
        db.execute(SET_META, ("finished", "{}", 5000, rid))
    db.execute(SET_META, ("finished", "{}", 9000, "a"))  # a later write keeps the moment it finished
    moments = dict(db.execute("SELECT rid, finished_ms FROM rooms").fetchall())
    assert moments == {"a": 5000, "b": 5001, "c": 5002}
    page = [r for (r,) in db.execute("SELECT rid FROM rooms WHERE finished_ms < ? ORDER BY finished_ms DESC "
                                     "LIMIT 2", (2**62,))]
    rest = [r for (r,) in db.execute("SELECT rid FROM rooms WHERE finished_ms < ? ORDER BY finished_ms DESC",
                                     (moments[page[-1]],))]
    assert sorted(page + rest) == ["a", "b", "c"]


async def test_a_grab_contest_open_at_the_crash_is_opened_again_and_settled_fairly(tmp_path: Path) -> None:
    """The card is still on the pile in the engine's state, so the room declares the contest anew
    once it is back (docs/operations.md): each eligible seat gets a new offer with a new nonce, timed
    from when it is shown; a nonce from before the crash is refused, and of two tries on the new
    offers the faster hand wins, whichever seat was asked first."""
    db = tmp_path / "hub.sqlite3"
    hub = hub_on(db).start()
    tokens: list[str] = []
    try:
        players, room = await contest_table(hub.url, tokens_out=tokens)
        offered = {c.seat: c.contests[-1] for c in players if c.contests}
        assert len(offered) == 2, "the two other players are offered the card"
        seen = {c.seat: (c.seq, c.view) for c in players}
        hub.kill()  # SIGKILL while the contest is open and nobody has tried
        for c in players:
            await c.close()
        hub = hub_on(db).start()
        back = {seat: await resumed(hub.url, room, tokens[seat], seen[seat]) for seat in seen}
        for _ in range(300):
            if all(back[s].contests for s in offered):
                break
            await asyncio.sleep(0.01)
        fresh = {s: back[s].contests[-1] for s in offered}
        assert all(fresh[s]["id"] != offered[s]["id"] for s in offered), "new nonces after the restart"
        first, second = sorted(offered)
        assert (await back[first].act({"type": "grab", "contest": offered[first]["id"]}))["code"] == "illegal"
        # `second` reacts in 200 ms, `first` in 450 ms, each from its own offer's arrival
        arrived = {s: back[s].contest_at[fresh[s]["id"]] for s in offered}

        async def grab_after(seat: int, reaction_s: float) -> dict[str, Any]:
            await asyncio.sleep(max(0.0, arrived[seat] + reaction_s - time.monotonic()))
            return await back[seat].act({"type": "grab", "contest": fresh[seat]["id"]})
        answers = await asyncio.gather(grab_after(first, 0.45), grab_after(second, 0.2))
        assert [a["t"] for a in answers] == ["ack", "ack"], answers
        watcher = back[first]
        for _ in range(400):
            results = [e for e in watcher.events if e["kind"] == "contest_result"
                       and e["contest"] == fresh[first]["contest"]]
            if results:
                break
            await asyncio.sleep(0.01)
        assert results and results[-1]["winner"] == second, results
        assert "Traceback" not in hub.log()
        for c in back.values():
            await c.close()
    finally:
        hub.stop()


#: How version 1 of the schema kept the log (a WITHOUT ROWID table keyed by room and entry).
TO_V1 = """
BEGIN;
ALTER TABLE entries RENAME TO entries_v2;
DROP INDEX entries_by_room;
CREATE TABLE entries (rid TEXT NOT NULL, n INTEGER NOT NULL, entry BLOB NOT NULL, PRIMARY KEY (rid, n)) WITHOUT ROWID;
INSERT INTO entries SELECT rid, n, entry FROM entries_v2;
DROP TABLE entries_v2;
UPDATE hub SET value = 1 WHERE key = 'schema';
COMMIT;
"""


def schema_of(db: Path) -> tuple[Any, str]:
    conn = sqlite3.connect(db)
    try:
        version = conn.execute("SELECT value FROM hub WHERE key = 'schema'").fetchone()[0]
        table = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'entries'").fetchone()[0]
    finally:
        conn.close()
    return version, table


async def test_a_file_of_the_first_schema_is_brought_up_to_date_and_its_rooms_play_on(tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite3"
    hub = hub_on(db).start()
    try:
        rid = new_room(hub.url, "symbiose", 2)
        tokens = [join(hub.url, rid, f"p{i}")[1] for i in range(2)]
        players = [await Client(hub.url, rid, t).open() for t in tokens]
        for _ in range(4):
            await asyncio.sleep(0.05)
            mover = next(c for c in players if c.legal)
            assert (await mover.act(mover.legal[0], seq=mover.seq))["t"] == "ack"
        for c in players:
            await c.close()
        before = entries_of(db, rid)
        _, view_before = await snapshot(hub.url, rid, tokens[0])
    finally:
        hub.stop()
    assert schema_of(db)[0] == 2 and "WITHOUT ROWID" not in schema_of(db)[1]
    conn = sqlite3.connect(db)
    try:
        conn.executescript(TO_V1)
    finally:
        conn.close()
    assert schema_of(db)[0] == 1 and "WITHOUT ROWID" in schema_of(db)[1]

    hub = hub_on(db).start()
    try:
        version, table = schema_of(db)
        assert version == 2 and "WITHOUT ROWID" not in table
        assert entries_of(db, rid)[:len(before)] == before  # then what the restart itself writes (a sync)
        _, view_after = await snapshot(hub.url, rid, tokens[0])
        assert without_presence(view_after) == without_presence(view_before)
        c = await Client(hub.url, rid, tokens[0]).open()
        other = await Client(hub.url, rid, tokens[1]).open()
        await asyncio.sleep(0.05)
        mover = next(x for x in (c, other) if x.legal)
        assert (await mover.act(mover.legal[0], seq=mover.seq))["t"] == "ack"
        assert entries_of(db, rid)[-1]["k"] == "act"
        await c.close()
        await other.close()
    finally:
        hub.stop()


def test_a_file_of_a_newer_schema_is_refused(tmp_path: Path) -> None:
    from hub.metrics import Metrics
    from hub.stores.sqlite.database import SCHEMA_V, Database

    db = tmp_path / "hub.sqlite3"
    Database(db, Metrics()).create_schema()
    conn = sqlite3.connect(db)
    try:
        conn.execute("UPDATE hub SET value = ? WHERE key = 'schema'", (SCHEMA_V + 1,))
        conn.commit()
    finally:
        conn.close()
    with pytest.raises(RuntimeError, match="schema version"):
        Database(db, Metrics()).create_schema()
