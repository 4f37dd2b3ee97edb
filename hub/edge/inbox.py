"""A WebSocket's incoming messages and its writability, held in a few slots rather than asyncio's
general types.

uvicorn's sans-I/O protocol gives every connection an `asyncio.Queue` for the messages the app will
receive and an `asyncio.Event` for whether it may write. On CPython 3.11 each `collections.deque`
takes its first block at once (624 bytes), and a Queue holds three of them and an Event with a
fourth, an Event one more: 4.1 KiB per connection (bench/memory.py), for a queue that holds one
message at a time (the protocol stops reading while one waits) and one reader (the app's receive).
`Inbox` and `Writable` do the same work with what is in use: a list made by the first message, and
a future made by a reader who must wait.

Only the methods the protocol calls are here: `put_nowait`, `get`, `empty`; `set`, `clear`,
`is_set`, `wait`. The protocol that installs them (hub/edge/refusal.py) checks first that the
attributes it replaces are the asyncio types it knows; otherwise it leaves them.
"""
from __future__ import annotations

import asyncio
from typing import Any


class Inbox:
    """A first-in first-out queue with no bound; its readers are served in the order they came."""

    __slots__ = ("_items", "_waiters")

    def __init__(self) -> None:
        self._items: list[Any] | None = None
        self._waiters: list[asyncio.Future[None]] | None = None

    def put_nowait(self, item: Any) -> None:
        if self._items is None:
            self._items = [item]
        else:
            self._items.append(item)
        wake_first(self._waiters)

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items) if self._items else 0

    async def get(self) -> Any:
        while not self._items:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters = add(self._waiters, waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                # woken, then cancelled before it took the item: the next reader takes it
                if waiter.done() and not waiter.cancelled() and self._items:
                    self._waiters = remove(self._waiters, waiter)
                    wake_first(self._waiters)
                raise
            finally:
                self._waiters = remove(self._waiters, waiter)
        items = self._items
        item = items.pop(0)  # at most a few: the protocol stops reading while a message waits
        if not items:
            self._items = None
        return item


class Writable:
    """Whether the transport takes more (uvicorn's `writable`), with the futures of waiting writers."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        if self._set:
            return True
        waiter = asyncio.get_running_loop().create_future()
        self._waiters = add(self._waiters, waiter)
        try:
            await waiter
        finally:
            self._waiters = remove(self._waiters, waiter)
        return True


def add(waiters: list[asyncio.Future[None]] | None, waiter: asyncio.Future[None]) -> list[asyncio.Future[None]]:
    if waiters is None:
        return [waiter]
    waiters.append(waiter)
    return waiters


def remove(waiters: list[asyncio.Future[None]] | None,
           waiter: asyncio.Future[None]) -> list[asyncio.Future[None]] | None:
    """The waiters without this one; None when none is left, so an idle connection holds no list."""
    if waiters is not None and waiter in waiters:
        waiters.remove(waiter)
    return waiters or None


def wake_first(waiters: list[asyncio.Future[None]] | None) -> None:
    for waiter in waiters or ():
        if not waiter.done():
            waiter.set_result(None)
            return
