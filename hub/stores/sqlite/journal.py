"""The journal of one room kept in the database file: every change is committed before anyone sees it.

The room (hub.tables.room) stays the authoritative actor; this journal sits where its deltas would
have gone. Each change becomes one log entry (hub.tables.persist), written by the database's one
writer; once it is committed, this process's connections get the deltas, then the action's ack or
the join's answer. The room takes its next command only when its last entry is in the file, so
what the file holds is never more than one change behind the room, and nothing anyone was shown
or told is missing from it after a crash.

Connections reach the room through `Gate`, which puts their commands (attach, detach, act) in the
same line: a welcome is never of a change that is not yet in the file.
"""
from __future__ import annotations

import asyncio
import itertools
import json
import logging
import sqlite3
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from hub.stores.commits import CommitLine
from hub.stores.sqlite.database import Database, Step
from hub.tables.chat import deliver
from hub.tables.frames import Encoded
from hub.tables.persist import snapshot_of
from hub.tables.room import Room
from hub.tables.seat import FINISHED, RoomError, epoch_ms

if TYPE_CHECKING:
    from hub.settings import Settings
    from hub.tables.peer import Peer

logger = logging.getLogger("hub.stores.sqlite")

_AIDS = itertools.count(1)


class Host(Protocol):
    settings: Settings
    db: Database


def meta_row(room: Room) -> tuple[str, str, int | None, str]:
    """(status, meta JSON, finished ms, rid) for the room's row (`SET_META`)."""
    finished = epoch_ms() if room.status == FINISHED else None
    return room.status, json.dumps(room.meta()), finished, room.rid


#: A room's lobby row. Its moment of finishing is written once, and after every other game's: the
#: history pages by it (`finished_ms < before`), so two games that finished in one millisecond
#: would put one of them between two pages, in neither.
SET_META = ("UPDATE rooms SET status = ?1, meta = ?2, finished_ms = CASE WHEN ?3 IS NULL OR finished_ms IS NOT NULL "
            "THEN finished_ms ELSE max(?3, (SELECT coalesce(max(finished_ms), 0) + 1 FROM rooms "
            f"WHERE status = '{FINISHED}')) END WHERE rid = ?4")


class Journal(CommitLine):
    def __init__(self, store: Host, room: Room, n: int) -> None:
        self.store = store
        self.db = store.db
        self.acks: dict[str, tuple[Peer, int]] = {}
        self.joins: dict[str, asyncio.Future[int]] = {}
        super().__init__(room, n)
        room.journal = self

    # ---- the journal (hub.tables.room.Journal) -------------------------------------------------

    def record(self, cause: dict[str, Any] | None, changed: list[tuple[str, Encoded]]) -> None:
        e = self.entry(cause, changed)
        if e is None:
            return
        room, rid, n, blob = self.room, self.rid, e.n, e.blob
        meta = meta_row(room) if e.entry["k"] in ("join", "start") or e.status_moved else None
        snap = None
        if n % max(1, self.store.settings.snapshot_every) == 0 or e.finished_now:
            snap = (snapshot_of(room, n, []), n, rid)

        def write(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR REPLACE INTO entries (rid, n, entry) VALUES (?, ?, ?)", (rid, n, blob))
            if meta is not None:
                db.execute(SET_META, meta)
            if snap is not None:
                db.execute("UPDATE rooms SET snap = ?, snap_n = ? WHERE rid = ?", snap)

        self.inflight += 1
        self.db.push(Step(write, partial(self._committed, e.entry, changed)))

    def _committed(self, entry: dict[str, Any], changed: list[tuple[str, Encoded]]) -> None:
        self.inflight -= 1
        if self.gone:
            return
        audiences = self.room.audiences
        for key, delta in changed:
            audiences[key].broadcast((delta,))
        if entry["k"] == "chat":
            deliver(audiences.values(), entry["ln"])
        aid = entry.get("aid")
        if aid is not None:
            waiting = self.acks.pop(aid, None)
            if waiting is not None:
                waiting[0].send_frame({"t": "ack", "id": waiting[1]})
        jid = entry.get("jid")
        if jid is not None:
            fut = self.joins.pop(jid, None)
            if fut is not None and not fut.done():
                fut.set_result(int(entry["s"]))
        self.drain()

    def presence_changed(self) -> None:
        """Who is here changed: the lobby's copy of the room is brought up to date (not a change of
        the game: no entry, and nobody waits for it)."""
        if self.gone:
            return
        row = meta_row(self.room)
        self.db.push(Step(lambda db: db.execute(SET_META, row)))

    def event(self, frame: Encoded) -> None:
        """An event for every connection, in order behind the changes before it."""
        self.after(lambda: self._broadcast(frame))

    def _broadcast(self, frame: Encoded) -> None:
        for aud in self.room.audiences.values():
            aud.broadcast((frame,))

    def contest(self, open_contest: Any) -> None:
        """Contests run in this process (hub.tables.contests): nothing to tell other processes."""

    def after(self, fn: Callable[[], None]) -> None:
        """Run `fn` once everything recorded so far has been shown (a contest's offers follow the
        delta that shows its card)."""
        if self.gone:
            return
        self.db.push(Step(None, lambda: None if self.gone else fn()))

    def close(self) -> None:
        self.gone = True
        for fut in self.joins.values():
            if not fut.done():
                fut.set_exception(RoomError("no_room", "the room is gone", 404))
        self.joins.clear()
        self.acks.clear()
        self.inbox.clear()


class Gate:
    """The room as a connection's hello finds it (hub.stores.base.Target): every command waits its
    turn behind the changes still being written."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.room = journal.room
        self.rid = journal.rid
        self.contests = journal.room.contests

    async def authenticate(self, token: str) -> int | None:
        return self.room.seat_of(token)

    def in_turn(self, answer: Callable[[], None]) -> None:
        self.journal.command(answer)

    def attach(self, conn: Peer, seat: int | None, resume: int | None, chat_after: int | None = None) -> None:
        self.journal.command(lambda: self.room.attach(conn, seat, resume, chat_after))

    def detach(self, conn: Peer) -> None:
        self.journal.command(lambda: self.room.detach(conn))

    def submit(self, seat: int | None, action: Any, conn: Peer | None = None, act_id: int | None = None,
               seq: int | None = None, by: str = "player", aid: str | None = None) -> bool:
        self.journal.command(partial(self._submit, seat, action, conn, act_id, seq, by))
        return True

    def _submit(self, seat: int | None, action: Any, conn: Peer | None, act_id: int | None, seq: int | None,
                by: str) -> None:
        aid = f"a{next(_AIDS)}"
        if conn is not None and act_id is not None:
            self.journal.acks[aid] = (conn, act_id)
        if not self.room.submit(seat, action, conn=conn, act_id=act_id, seq=seq, by=by, aid=aid):
            self.journal.acks.pop(aid, None)

    def say(self, seat: int | None, name: str | None, text: str, conn: Peer | None = None,
            say_id: int | None = None, aid: str | None = None) -> bool:
        self.journal.command(partial(self._say, seat, name, text, conn, say_id))
        return True

    def _say(self, seat: int | None, name: str | None, text: str, conn: Peer | None, say_id: int | None) -> None:
        aid = f"c{next(_AIDS)}"
        if conn is not None and say_id is not None:
            self.journal.acks[aid] = (conn, say_id)
        if not self.room.say(seat, name, text, conn=conn, say_id=say_id, aid=aid):
            self.journal.acks.pop(aid, None)

    async def join(self, name: str, seat: int | None, bot: bool = False,
                   token_hash: str | None = None) -> tuple[int, str]:
        """Seat a player; answered once the join is in the file (its token is good from then on)."""
        fut: asyncio.Future[tuple[int, str]] = asyncio.get_running_loop().create_future()

        def run() -> None:
            jid = f"j{next(_AIDS)}"
            waiting: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            self.journal.joins[jid] = waiting
            try:
                index, token = self.room.join(name, seat, token_hash=token_hash, jid=jid, bot=bot)
            except RoomError as e:
                self.journal.joins.pop(jid, None)
                fut.set_exception(e)
                return
            def answered(w: asyncio.Future[int]) -> None:
                if fut.done():
                    return
                failed = w.exception()
                if failed is not None:
                    fut.set_exception(failed)
                else:
                    fut.set_result((index, token))

            waiting.add_done_callback(answered)

        self.journal.command(run)
        return await fut
