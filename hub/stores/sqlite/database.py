"""The database file: its schema, the one writer that commits off the event loop, and reads.

Every change of every room is written by one thread, in the order the event loop made them: what
one turn of the loop pushed goes to the thread as one batch, committed as one transaction, and only
then does the loop hear of it (and send the change to anyone). A batch that fails (a full disk, an
I/O error) is tried again, in order, until it is in the file; meanwhile the rooms whose changes wait
take no further command, so nothing is shown that is not in the file.

WAL mode lets the lobby read finished games (on a thread of its own, with its own connection)
while the writer writes. `synchronous=NORMAL`, the default, keeps every commit through a crash of
the process (`kill -9`): the WAL is written before the commit returns. Only a crash of the whole
machine can lose the last commits; `--db-sync full` closes that too, at the cost of an fsync per
commit.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
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

#: The schema's version, kept in the file: a file of another version is refused at start.
SCHEMA_V = 1
#: How often the checkpointer's thread moves the WAL into the database file.
CHECKPOINT_EVERY_S = 1.0
#: A WAL of this many frames (4 KiB pages) is started again from its beginning (SQLite's own default).
WAL_RESTART_FRAMES = 1000

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
CREATE TABLE IF NOT EXISTS entries (
    rid TEXT NOT NULL,
    n INTEGER NOT NULL,
    entry BLOB NOT NULL,
    PRIMARY KEY (rid, n)
) WITHOUT ROWID;
"""


@dataclass
class Step:
    """One step of the ordered writer: at most one write, then a callback on the event loop.

    `write` runs on the writer's thread inside the batch's transaction (None: a local step that only
    keeps its place in the order, such as an event sent between two changes)."""

    write: Callable[[sqlite3.Connection], object] | None
    done: Callable[[], None] | None = None


class Database:
    def __init__(self, path: Path, metrics: Metrics, sync: str = "normal") -> None:
        self.path = path
        self.metrics = metrics
        self.sync = "FULL" if sync.lower() == "full" else "NORMAL"
        self._batch: list[Step] = []
        self._flushing = False
        self._queue: queue.SimpleQueue[list[Step] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hub-sqlite-read")
        self._read_conn: sqlite3.Connection | None = None
        self.failing = False
        self.idle = threading.Event()
        self.idle.set()
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
            conn.executescript(SCHEMA)
            row = conn.execute("SELECT value FROM hub WHERE key = 'schema'").fetchone()
            if row is None:
                conn.execute("INSERT INTO hub (key, value) VALUES ('schema', ?)", (SCHEMA_V,))
            elif row[0] != SCHEMA_V:
                raise RuntimeError(f"{self.path} holds schema version {row[0]!r}; this hub reads {SCHEMA_V}")
        finally:
            conn.close()

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="hub-sqlite-writer", daemon=True)
        self._thread.start()
        self._checkpointer = threading.Thread(target=self._checkpoints, name="hub-sqlite-checkpoint", daemon=True)
        self._checkpointer.start()

    async def stop(self) -> None:
        """Commit what is queued, then stop the thread."""
        self._flush()
        self._queue.put(None)
        self._stopping.set()
        if self._thread is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._thread.join, 10)
        if self._checkpointer is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._checkpointer.join, 10)
        self._reader.shutdown(wait=True)
        if self._read_conn is not None:
            self._read_conn.close()

    # ---- writing -------------------------------------------------------------------------------

    def push(self, step: Step) -> None:
        """Queue a step; everything pushed in this turn of the loop is committed together."""
        self._batch.append(step)
        if not self._flushing:
            self._flushing = True
            assert self._loop is not None
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flushing = False
        if self._batch:
            batch, self._batch = self._batch, []
            self.idle.clear()
            self._queue.put(batch)

    def _run(self) -> None:
        conn = self.open()
        try:
            while True:
                batch = self._queue.get()
                if batch is None:
                    return
                # whatever queued up while the last commit ran goes in this one transaction too
                while True:
                    try:
                        more = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        self._queue.put(None)
                        break
                    batch.extend(more)
                self._commit(conn, batch)
                if self._finish_checkpoint.is_set():
                    # after the batch's deltas went out, and before the next batch: what the
                    # checkpointer left is a few pages, and once all are in the file the next commit
                    # starts the WAL again from its beginning (a checkpoint beside a busy writer
                    # never catches up with it alone, and the WAL would grow without end)
                    self._finish_checkpoint.clear()
                    try:
                        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    except sqlite3.Error as e:
                        log(logger, logging.DEBUG, "checkpoint skipped", error=repr(e)[:200])
                if self._queue.empty():
                    self.idle.set()
        finally:
            conn.close()

    def _checkpoints(self) -> None:
        """Moves the WAL's pages into the database file beside the writer, out of its way (a passive
        checkpoint takes no lock that a commit waits for), and once the WAL is long, asks the writer
        to copy the few pages left between two batches, so that it starts again from its beginning."""
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

    def _commit(self, conn: sqlite3.Connection, batch: list[Step]) -> None:
        delay = 0.05
        while True:
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
                time.sleep(delay)
                delay = min(2.0, delay * 2)
                continue
            if self.failing:
                self.failing = False
                log(logger, logging.WARNING, "the database takes writes again")
            self.metrics.db_commit_seconds.observe(time.perf_counter() - started)
            self.metrics.db_batch_steps.observe(len(batch))
            break
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed while the last batch committed
                loop.call_soon_threadsafe(self._done, batch)

    @staticmethod
    def _done(batch: list[Step]) -> None:
        for step in batch:
            if step.done is not None:
                try:
                    step.done()
                except Exception:  # noqa: BLE001 - one room's failure must not stop the others' deliveries
                    logger.exception("delivering a committed change failed")

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
