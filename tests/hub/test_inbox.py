"""The lean queue and event that stand in for uvicorn's asyncio.Queue and Event on each WebSocket
(hub/edge/inbox.py): what the protocol relies on, including a reader cancelled by a timeout (a
hello that never came) that must neither lose a message nor strand the next reader."""
from __future__ import annotations

import asyncio

import pytest

from hub.edge.inbox import Inbox, Writable


async def test_messages_come_out_in_order_and_the_inbox_holds_nothing_once_empty() -> None:
    inbox = Inbox()
    assert inbox.empty()
    for i in range(3):
        inbox.put_nowait(i)
    assert not inbox.empty() and inbox.qsize() == 3
    assert [await inbox.get() for _ in range(3)] == [0, 1, 2]
    assert inbox.empty() and inbox._items is None and inbox._waiters is None


async def test_a_waiting_reader_is_woken_by_the_next_message() -> None:
    inbox = Inbox()
    reader = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    assert not reader.done()
    inbox.put_nowait("hello")
    assert await asyncio.wait_for(reader, 5) == "hello"
    assert inbox._waiters is None


async def test_a_reader_cancelled_by_a_timeout_leaves_the_next_message_to_the_next_reader() -> None:
    inbox = Inbox()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(inbox.get(), 0.01)
    assert inbox._waiters is None
    inbox.put_nowait("late")
    assert await asyncio.wait_for(inbox.get(), 5) == "late"


async def test_a_reader_woken_then_cancelled_hands_the_message_on() -> None:
    inbox = Inbox()
    first = asyncio.ensure_future(inbox.get())
    second = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    inbox.put_nowait("only")
    first.cancel()  # woken, not yet run: the message must go to the other reader
    assert await asyncio.wait_for(second, 5) == "only"
    with pytest.raises(asyncio.CancelledError):
        await first


async def test_writable_wakes_every_waiting_writer_and_passes_at_once_when_set() -> None:
    writable = Writable()
    assert not writable.is_set()
    writers = [asyncio.ensure_future(writable.wait()) for _ in range(2)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in writers)
    writable.set()
    assert await asyncio.wait_for(asyncio.gather(*writers), 5) == [True, True]
    assert await writable.wait() is True
    writable.clear()
    assert not writable.is_set()
    cancelled = asyncio.ensure_future(writable.wait())
    await asyncio.sleep(0)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert writable._waiters is None
