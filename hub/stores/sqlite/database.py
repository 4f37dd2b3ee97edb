"""The database file: its schema, the commits made on the event loop itself, and reads.

Every change of every room is committed in the order the event loop made them, on the loop's own
thread, and only then is anyone told of it (and sent the change). A change is committed the moment
it is pushed when nothing waits before it; what is pushed while steps wait (a failed commit, or a
change made while others' commits are being told of) joins them in one transaction at the end of
the loop's turn. A WAL transaction with `synchronous=NORMAL` writes the WAL and no fsync: tens of
microseconds, less than what the hub paid before, when a writer thread committed each turn's batch:
two crossings between threads and a turn of the loop before anyone heard of a move, and under load
a turn of the loop is milliseconds long (docs/operations.md, "Restarts", has the figures).

A batch that fails (a full disk, an I/O error) stays where it is, in order, and is tried again after
a pause that doubles up to two seconds; meanwhile the rooms whose changes wait take no further
command, so nothing is shown that is not in the file.

WAL mode lets the lobby read finished games (on a thread of its own, with its own connection)
while the loop writes. `synchronous=NORMAL`, the default, keeps every commit through a crash of
the process (`kill -9`): the WAL is written before the commit returns. Only a crash of the whole
machine (a power loss) can lose the last commits, those whose WAL pages the kernel had not yet
written; `--db-sync full` closes that too, at the cost of an fsync per commit, on the loop.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from hub.logs import log
from hub.metrics import Metrics

logger = logging.getLogger("hub.stores.sqlite")

T = TypeVar("T")

#: The schema's version, kept in the file: a file of an older version is brought up to it at start
#: (`MIGRATIONS`), one of a newer version is refused.
SCHEMA_V = 2
#: How often the checkpointer's thread moves the WAL into the database file.
CHECKPOINT_EVERY_S = 1.0
#: A WAL of this many frames (4 KiB pages) is started again from its beginning (SQLite's own default).
WAL_RESTART_FRAMES = 1000
#: The first pause before a failed commit is tried again, and the longest.
RETRY_FIRST_S = 0.05
RETRY_LONGEST_S = 2.0
#: How long a commit on the loop waits for a lock another connection holds.
BUSY_MS = 50
#: How long `stop` keeps trying to commit what is still queued.
STOP_TRIES_S = 10.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS hub (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rooms (
    rid TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    status TEXT NOT NULL,
    private INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    finished_ms INTEGER,
    record BLOB NOT NULL,
    meta TEXT NOT NULL,
    snap BLOB NOT NULL,
    snap_n INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rooms_by_status ON rooms (status, finished_ms);
"""
#: The log's entries (schema 2, made by SCHEMA and by the migration from 1): rows in the order they
#: were made (a rowid table), found by room through a small index, so a commit appends its entry to
#: the table's last page and puts a few bytes in the index. Version 1 kept them in a WITHOUT ROWID
#: table keyed by (rid, n), where every commit wrote its 1-5 KB entry into the middle of the room's
#: part of the tree, splitting pages: SQLite advises that layout only for rows under a twentieth of
#: a page, and a commit cost twice the CPU (72 against 32 us for 1.5 KB entries over 500 rooms,
#: measured alone), and dirtied pages the checkpoints copy.
ENTRIES_V2 = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    rid TEXT NOT NULL,
    n INTEGER NOT NULL,
    entry BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS entries_by_room ON entries (rid, n);
"""
SCHEMA += ENTRIES_V2

#: From each version to the next, run in one transaction at start, before the schema above.
MIGRATIONS: dict[int, str] = {
    1: """
ALTER TABLE entries RENAME TO entries_v1;
""" + ENTRIES_V2 + """
INSERT INTO entries (rid, n, entry) SELECT rid, n, entry FROM entries_v1 ORDER BY rid, n;
DROP TABLE entries_v1;
""",
}


@dataclass
class Step:
    """One step of the ordered commits: at most one write, then a callback once it is in the file.

    `write` runs inside the turn's transaction (None: a local step that only keeps its place in the
    order, such as an event sent between two changes)."""

    write: Callable[[sqlite3.Connection], object] | None
    done: Callable[[], None] | None = None


class Database:
    def __init__(self, path: Path, metrics: Metrics, sync: str = "normal") -> None:
        self.path = path
        self.metrics = metrics
        self.sync = "FULL" if sync.lower() == "full" else "NORMAL"
        # pushed and not yet committed, in order (a batch that failed stays at the front)
        self._batch: list[Step] = []
        self._flushing = False  # a commit is due: at the end of this turn, or after a failure's pause
        self._telling = False  # committed steps' callbacks are running
        self._retry_s = RETRY_FIRST_S
        self._conn: sqlite3.Connection | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hub-sqlite-read")
        self._read_conn: sqlite3.Connection | None = None
        self.failing = False
        self._stopping = threading.Event()
        self._finish_checkpoint = threading.Event()
        self._checkpointer: threading.Thread | None = None

    # ---- life ----------------------------------------------------------------------------------

    def open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={self.sync}")
        conn.execute("PRAGMA foreign_keys=OFF")
        # No commit checkpoints the WAL itself (by default the one that passes 1,000 pages does, with
        # an fsync, while every delta of its batch and behind it waits): the checkpointer's thread does.
        conn.execute("PRAGMA wal_autocheckpoint=0")
        return conn

    def create_schema(self) -> None:
        conn = self.open()
        try:
            has_hub = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hub'").fetchone()
            row = conn.execute("SELECT value FROM hub WHERE key = 'schema'").fetchone() if has_hub else None
            version = SCHEMA_V if row is None else row[0]
            if not isinstance(version, int) or version > SCHEMA_V or version < min(MIGRATIONS, default=SCHEMA_V):
                raise RuntimeError(f"{self.path} holds schema version {version!r}; this hub reads {SCHEMA_V}")
            while version < SCHEMA_V:
                started = time.perf_counter()
                conn.executescript(f"BEGIN; {MIGRATIONS[version]} UPDATE hub SET value = {version + 1} "
                                   "WHERE key = 'schema'; COMMIT;")
                log(logger, logging.WARNING, "database schema brought up to date", path=str(self.path),
                    schema=version + 1, ms=round((time.perf_counter() - started) * 1000, 1))
                version += 1
            conn.executescript(SCHEMA)
            if row is None:
                conn.execute("INSERT INTO hub (key, value) VALUES ('schema', ?)", (SCHEMA_V,))
        finally:
            conn.close()

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._conn = self.open()
        # the loop never waits long for a lock (only a stray process on the same file could hold
        # one): a busy file is a failed commit, tried again after a pause like any other
        self._conn.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        self._checkpointer = threading.Thread(target=self._checkpoints, name="hub-sqlite-checkpoint", daemon=True)
        self._checkpointer.start()

    async def stop(self) -> None:
        """Commit what is queued (trying again for a while if the file refuses), then close."""
        deadline = time.monotonic() + STOP_TRIES_S
        self._flush()
        while self._batch and time.monotonic() < deadline:
            await asyncio.sleep(RETRY_FIRST_S)
            self._flush()
        if self._batch:
            log(logger, logging.ERROR, "changes could not be written before the hub stopped", steps=len(self._batch))
        self._stopping.set()
        if self._checkpointer is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._checkpointer.join, 10)
        self._reader.shutdown(wait=True)
        if self._read_conn is not None:
            self._read_conn.close()
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # ---- writing -------------------------------------------------------------------------------

    def push(self, step: Step) -> None:
        """Commit a step now, and tell of it, when nothing waits before it; else queue it behind
        what waits, for the commit at the end of this turn of the loop (or after a failure's pause)."""
        now = not self._batch and not self._flushing and not self._telling
        self._batch.append(step)
        if now:
            self._flush()
        elif not self._flushing:
            self._flushing = True
            assert self._loop is not None
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flushing = False
        if not self._batch or self._conn is None:
            return
        batch, self._batch = self._batch, []
        if not self._commit(self._conn, batch):
            self._batch = batch + self._batch
            self._retry_later()
            return
        self._checkpoint_if_due(self._conn)
        self._done(batch)

    def _retry_later(self) -> None:
        self._flushing = True
        assert self._loop is not None
        self._loop.call_later(self._retry_s, self._flush)
        self._retry_s = min(RETRY_LONGEST_S, self._retry_s * 2)

    def _checkpoint_if_due(self, conn: sqlite3.Connection) -> None:
        if self._finish_checkpoint.is_set():
            # right after a commit: what the checkpointer left is a few pages, and once all are in
            # the file the next commit starts the WAL again from its beginning (a checkpoint beside
            # a busy writer never catches up with it alone, and the WAL would grow without end)
            self._finish_checkpoint.clear()
            try:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as e:
                log(logger, logging.DEBUG, "checkpoint skipped", error=repr(e)[:200])

    def _checkpoints(self) -> None:
        """Moves the WAL's pages into the database file beside the loop, out of its way (a passive
        checkpoint takes no lock that a commit waits for), and once the WAL is long, asks the loop
        to copy the few pages left after a commit, so that it starts again from its beginning."""
        conn = self.open()
        try:
            while not self._stopping.wait(CHECKPOINT_EVERY_S):
                try:
                    _, frames, _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                except sqlite3.Error as e:  # busy or failing: the next one tries again
                    log(logger, logging.DEBUG, "checkpoint skipped", error=repr(e)[:200])
                    continue
                if frames >= WAL_RESTART_FRAMES:
                    self._finish_checkpoint.set()
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()

    def _commit(self, conn: sqlite3.Connection, batch: list[Step]) -> bool:
        """One transaction of a turn's steps; False (and rolled back) if the file refused it."""
        if all(step.write is None for step in batch):
            return True  # steps that only keep their place in the order: nothing to write
        started = time.perf_counter()
        try:
            conn.execute("BEGIN")
            for step in batch:
                if step.write is not None:
                    step.write(conn)
            conn.execute("COMMIT")
        except sqlite3.Error as e:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            self.metrics.db_errors.inc()
            if not self.failing:
                self.failing = True
                log(logger, logging.ERROR, "the database refuses writes; retrying", error=repr(e)[:300])
            return False
        self._retry_s = RETRY_FIRST_S
        if self.failing:
            self.failing = False
            log(logger, logging.WARNING, "the database takes writes again")
        self.metrics.db_commit_seconds.observe(time.perf_counter() - started)
        self.metrics.db_batch_steps.observe(len(batch))
        return True

    def _done(self, batch: list[Step]) -> None:
        """Tell of committed steps. What their callbacks push meanwhile is queued for the end of the
        turn rather than committed (and told of) inside them, so that no room's command runs in
        the middle of another's."""
        self._telling = True
        try:
            for step in batch:
                if step.done is not None:
                    try:
                        step.done()
                    except Exception:  # noqa: BLE001 - one room's failure must not stop the others' deliveries
                        logger.exception("delivering a committed change failed")
        finally:
            self._telling = False

    # ---- reading -------------------------------------------------------------------------------

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run a read on the reader's thread, with its own connection (WAL: never blocked by writes)."""
        def run() -> T:
            if self._read_conn is None:
                self._read_conn = self.open()
            return fn(self._read_conn)

        return await asyncio.get_running_loop().run_in_executor(self._reader, run)

    def read_now(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """A read on the caller's thread, for start-up before anything is served."""
        conn = self.open()
        try:
            return fn(conn)
        finally:
            conn.close()
