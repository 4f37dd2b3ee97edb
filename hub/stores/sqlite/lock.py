"""One process per database file: a second one pointed at the same file refuses to start.

Two writers on one file would each take the other's rooms for their own and diverge. The lock is an
advisory `flock` on a file beside the database, held for the life of the process: the kernel lets
it go when the process ends, however it ends (`kill -9` included), so a restart never finds a stale
lock. The holder's pid is written into it, for the message the second process prints.
"""
from __future__ import annotations

import fcntl
import os
from pathlib import Path

_held: dict[Path, int] = {}


class Locked(Exception):
    """Another process holds the database."""


def lock_path(db: Path) -> Path:
    return db.with_name(db.name + ".lock")


def hold(db: Path) -> None:
    """Take the database's lock for this process (again: a no-op), or raise `Locked`."""
    db = db.resolve()
    if db in _held:
        return
    path = lock_path(db)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        finally:
            os.close(fd)
        raise Locked(f"another hub process (pid {holder}) is serving the database {db}; "
                     "stop it first, or give this one its own file with --db") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _held[db] = fd
