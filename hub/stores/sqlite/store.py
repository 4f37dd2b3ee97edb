"""The embedded default: one process, its rooms in memory and every change in a database file first.

Rooms are served from this process as with the memory store, with one difference on the path of a
change: it is committed to the file (hub/stores/sqlite/database.py) before any connection sees it
(hub/stores/sqlite/journal.py). So a process that stops, however it stops, loses nothing that
anyone was shown: on the next start every waiting and playing room comes back with its seats,
token hashes, deadlines and banks, and its players resume.

- A deadline moves on by the time nobody served the room (from the last heartbeat the writer left
  in the file to the restart): the time the hub was away is charged to no one.
- A grab contest open at the crash is opened again once the room is back: the card is still on the
  discard pile (the engine's state says so), and every eligible seat gets a fresh contest, timed
  from when it is shown to each. Settling it as nobody-grabbed would take a card from whoever was
  about to win it for a fault of the hub's.
- Finished games stay in the file with their replays for `--retention-days`; the lobby pages
  through them (`GET /api/history`).
"""
from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

from hub.logs import log
from hub.metrics import Metrics
from hub.settings import Settings
from hub.stores.base import Store, Target, no_room, not_finished
from hub.stores.sqlite import lock
from hub.stores.sqlite.database import Database, Step
from hub.stores.sqlite.journal import Gate, Journal
from hub.tables import persist, replay
from hub.tables.listing import info_of, summary_of
from hub.tables.room import Room
from hub.tables.seat import FINISHED, PLAYING, WAITING, RoomError, epoch_ms

logger = logging.getLogger("hub.stores.sqlite")

#: How often the writer notes that the process is alive; a restart charges nobody for the time since.
BEAT_S = 1.0
#: How often finished games past their retention are deleted.
SWEEP_S = 3600.0
HISTORY_MAX = 100


class SqliteStore(Store):
    kind = "sqlite"

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        super().__init__(settings, metrics)
        self.path = Path(settings.db)
        self.db = Database(self.path, metrics, settings.db_sync)
        self.journals: dict[str, Journal] = {}
        self.gates: dict[str, Gate] = {}
        self._tasks: list[asyncio.Task[None]] = []
        # the next rooms of the finished rooms brought back at start (made before the restart)
        self.links_taken_up: dict[str, str] = {}
        self.rooms.on_drop = self._dropped

    # ---- life ----------------------------------------------------------------------------------

    async def start(self) -> None:
        lock.hold(self.path)
        self.db.create_schema()
        await super().start()
        self.db.start()
        started = time.perf_counter()
        n = self._take_up_all()
        log(logger, logging.INFO, "database open", path=str(self.path), rooms=n,
            ms=round((time.perf_counter() - started) * 1000, 1))
        self._tasks.append(asyncio.create_task(self._beat()))

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        self.rooms.on_drop = None  # leaving memory at shutdown is not leaving the file
        for journal in self.journals.values():
            journal.gone = True
        await super().stop()
        await self.db.stop()

    def _take_up_all(self) -> int:
        """Bring back every room that was waiting or playing (and finished ones still on show)."""
        keep_finished = epoch_ms() - int(self.settings.finished_ttl_s * 1000)

        def read(db: sqlite3.Connection) -> tuple[list[tuple[Any, ...]], int | None]:
            rows = db.execute("SELECT rid, record, snap, snap_n FROM rooms WHERE status IN (?, ?) "
                              "OR (status = ? AND finished_ms >= ?) ORDER BY created_ms",
                              (WAITING, PLAYING, FINISHED, keep_finished)).fetchall()
            beat = db.execute("SELECT value FROM hub WHERE key = 'beat'").fetchone()
            return rows, beat[0] if beat else None

        def links(db: sqlite3.Connection) -> list[tuple[Any, ...]]:
            return db.execute("SELECT r.rid, h.value FROM rooms r JOIN hub h ON h.key = 'next:' || r.rid "
                              "WHERE r.status = ? AND r.finished_ms >= ?", (FINISHED, keep_finished)).fetchall()

        rows, beat = self.db.read_now(read)
        self.links_taken_up = {str(rid): str(nxt) for rid, nxt in self.db.read_now(links)}
        paused_ms = max(0, epoch_ms() - int(beat)) if beat is not None else 0
        taken = 0
        conn = self.db.open()
        try:
            for rid, rec, snap, _ in rows:
                try:
                    restored = self._restore(conn, rid, bytes(rec), bytes(snap))
                except Exception:  # noqa: BLE001 - one room that cannot come back must not keep the rest away
                    logger.exception("could not bring a room back", extra={"fields": {"room": rid}})
                    continue
                room = restored.room
                self._hold(room, restored.n)
                persist.wake(room, paused_ms if room.status == PLAYING else 0)
                taken += 1
        finally:
            conn.close()
        return taken

    def _restore(self, conn: sqlite3.Connection, rid: str, rec: bytes, snap: bytes) -> persist.Restored:
        def entries_after(n: int) -> list[tuple[int, bytes]]:
            return [(int(en), bytes(blob)) for en, blob in conn.execute(
                "SELECT n, entry FROM entries WHERE rid = ? AND n > ? ORDER BY n", (rid, n))]

        try:
            return persist.restore(self.rooms, rid, rec, snap, entries_after(persist.snapshot_n(snap)),
                                   fresh_views=True)
        except persist.Unreadable as e:
            log(logger, logging.WARNING, "snapshot refused; rebuilding the room from its log", room=rid,
                why=str(e)[:200])
            self.metrics.snapshots_refused.inc()
            return persist.rebuild(self.rooms, rid, rec, entries_after(0), fresh_views=True)

    def _hold(self, room: Room, n: int) -> Journal:
        journal = Journal(self, room, n)
        self.journals[room.rid] = journal
        self.gates[room.rid] = Gate(journal)
        self.rooms.rooms[room.rid] = room
        return journal

    async def _beat(self) -> None:
        last_sweep = 0.0
        while True:
            self.db.push(Step(partial(_beat, epoch_ms())))
            if time.monotonic() - last_sweep >= SWEEP_S:
                last_sweep = time.monotonic()
                self._sweep()
            await asyncio.sleep(BEAT_S)

    def _sweep(self) -> None:
        """Finished games past their retention go, with their logs."""
        before = epoch_ms() - int(self.settings.retention_days * 86400 * 1000)

        def write(db: sqlite3.Connection) -> None:
            old = [r for (r,) in db.execute("SELECT rid FROM rooms WHERE status = ? AND finished_ms < ?",
                                            (FINISHED, before))]
            for rid in old:
                db.execute("DELETE FROM entries WHERE rid = ?", (rid,))
                db.execute("DELETE FROM rooms WHERE rid = ?", (rid,))
                db.execute("DELETE FROM hub WHERE key = ?", (f"next:{rid}",))

        self.db.push(Step(write))

    def _dropped(self, room: Room) -> None:
        """A room leaves this process's memory: one that never started is forgotten (it holds no
        game); a finished one stays in the file for its replay."""
        journal = self.journals.pop(room.rid, None)
        self.gates.pop(room.rid, None)
        if journal is not None:
            journal.close()
        if room.status == WAITING:
            rid = room.rid
            self.db.push(Step(lambda db: (db.execute("DELETE FROM entries WHERE rid = ?", (rid,)),
                                          db.execute("DELETE FROM rooms WHERE rid = ?", (rid,)))))

    # ---- the lobby -----------------------------------------------------------------------------

    async def create(self, game: Any, seats: Any, options: Any, bots: Any, ip: str,
                     again: bool = False) -> dict[str, Any]:
        room = self.rooms.build(game, seats, options, bots, ip, again=again)
        journal = self._hold(room, 0)
        created = epoch_ms()
        row = (room.rid, room.game.id, room.status, int(room.private), created, persist.record_of(room, created),
               json.dumps(room.meta()), persist.snapshot_of(room, 0, []))
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def committed() -> None:
            journal.inflight -= 1
            if not done.done():
                done.set_result(None)
            journal.drain()  # the journal's first step is the room's row

        journal.inflight += 1
        self.db.push(Step(lambda db: db.execute(
            "INSERT INTO rooms (rid, game, status, private, created_ms, finished_ms, record, meta, snap, snap_n) "
            "VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, 0)", row), committed))
        await done
        return {"room": room.rid, "game": room.game.id, "seats": len(room.seats)}

    async def listing(self) -> list[dict[str, Any]]:
        return self.with_next_listed(self.rooms.listing())

    async def info(self, rid: str) -> dict[str, Any] | None:
        room = self.rooms.get(rid)
        if room is not None:
            return await self.with_next(rid, room.info())
        meta = await self._meta(rid)
        return await self.with_next(rid, info_of(meta) if meta is not None else None)

    def next_held(self, rid: str) -> str | None:
        """Made since this process started, or a finished room's link brought back with it."""
        return super().next_held(rid) or self.links_taken_up.get(rid)

    async def next_of(self, rid: str) -> str | None:
        """Asked in this process since it started, else as the file says (it outlives a restart)."""
        held = await super().next_of(rid)
        if held is not None or not isinstance(rid, str) or len(rid) > 64:
            return held
        key = f"next:{rid}"
        row = await self.db.read(lambda db: db.execute("SELECT value FROM hub WHERE key = ?", (key,)).fetchone())
        return str(row[0]) if row else None

    async def link_next(self, rid: str, make: Callable[[], Awaitable[str]]) -> str:
        """After a restart the link is in the file only: a press then finds the room made before it."""
        if rid not in self.next_rooms:
            known = await self.next_of(rid)
            if known is not None:
                return known
        return await super().link_next(rid, make)

    def linked(self, rid: str, nxt: str) -> None:
        key = f"next:{rid}"
        self.db.push(Step(lambda db: db.execute("INSERT OR IGNORE INTO hub (key, value) VALUES (?, ?)", (key, nxt))))

    async def _meta(self, rid: str) -> dict[str, Any] | None:
        if not isinstance(rid, str) or len(rid) > 64:
            return None
        row = await self.db.read(lambda db: db.execute("SELECT meta FROM rooms WHERE rid = ?", (rid,)).fetchone())
        return json.loads(row[0]) if row else None

    async def join(self, rid: str, name: str, seat: int | None, bot: bool = False,
                   token_hash: str | None = None) -> tuple[int, str]:
        gate = self.gates.get(rid)
        if gate is None:
            if await self._meta(rid) is not None:  # finished, and no longer in memory
                raise RoomError("game_over", "this game has finished", 409)
            raise no_room()
        return await gate.join(name, seat, bot, token_hash)

    async def replay(self, rid: str) -> dict[str, Any] | None:
        room = self.rooms.get(rid)
        if room is not None:
            if room.status != FINISHED:
                raise not_finished()
            return replay.build(room)
        if not isinstance(rid, str) or len(rid) > 64:
            return None

        def read(db: sqlite3.Connection) -> tuple[Any, ...] | None:
            row = db.execute("SELECT record, snap, status FROM rooms WHERE rid = ?", (rid,)).fetchone()
            if row is None:
                return None
            entries = [(int(en), bytes(b)) for en, b in db.execute(
                "SELECT n, entry FROM entries WHERE rid = ? AND n > ? ORDER BY n", (rid, persist.snapshot_n(row[1])))]
            return bytes(row[0]), bytes(row[1]), row[2], entries

        got = await self.db.read(read)
        if got is None:
            return None
        rec, snap, status, entries = got
        if status != FINISHED:
            raise not_finished()
        try:
            shadow = persist.restore(self.rooms, rid, rec, snap, entries)
        except persist.Unreadable:
            all_entries = await self.db.read(lambda db: [(int(en), bytes(b)) for en, b in db.execute(
                "SELECT n, entry FROM entries WHERE rid = ? ORDER BY n", (rid,))])
            shadow = persist.rebuild(self.rooms, rid, rec, all_entries)
        return replay.build(shadow.room)

    async def history(self, before_ms: int | None, limit: int) -> dict[str, Any]:
        limit = max(1, min(HISTORY_MAX, limit))
        before = before_ms if before_ms is not None else 2**62

        def read(db: sqlite3.Connection) -> list[tuple[Any, ...]]:
            return db.execute("SELECT meta, finished_ms FROM rooms WHERE status = ? AND private = 0 "
                              "AND finished_ms < ? ORDER BY finished_ms DESC LIMIT ?",
                              (FINISHED, before, limit + 1)).fetchall()

        rows = await self.db.read(read)
        games = [dict(summary_of(json.loads(meta)), finished=int(fin), result=json.loads(meta).get("result"))
                 for meta, fin in rows[:limit]]
        more = len(rows) > limit
        return {"games": games, "next": games[-1]["finished"] if more and games else None}

    # ---- connections ---------------------------------------------------------------------------

    async def enter(self, rid: str) -> Target | None:
        return self.gates.get(rid)

    def go_deaf(self, seconds: float) -> None:
        """Nothing to lose: no message crosses a process boundary here."""



def _beat(now: int, db: sqlite3.Connection) -> None:
    db.execute("INSERT OR REPLACE INTO hub (key, value) VALUES ('beat', ?)", (now,))
