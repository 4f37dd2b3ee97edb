"""The writer's and the pub/sub reader's link to a single Redis (hub/stores/redis/link.py), on real servers.

What the hub relies on: items answered in the order they were pushed, local steps kept in their
place, a URL's password and database honoured, a Redis that stops answering treated as down and
what must reach it sent again, and pub/sub messages delivered in order across a restart.
"""
from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest
import redis

from hub.metrics import Metrics
from hub.stores.redis.link import Link
from hub.stores.redis.pubsub import LinkShard, Subscriber
from hub.stores.redis.server import Item, Server
from hub.stores.redis.writer import Writer
from tests.conftest import drop_prefix, new_prefix
from tests.hub.test_scale import RedisServer

pytestmark = pytest.mark.redis


async def until(check: Any, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("not within the time allowed")


def started(url: str, timeout_s: float = 2.0) -> tuple[Server, Writer]:
    store = Server(url, new_prefix(), Metrics(), timeout_s=timeout_s)
    writer = Writer(store)
    writer.start()
    return store, writer


async def test_items_are_answered_in_the_order_they_were_pushed(redis_url: str) -> None:
    store, writer = started(redis_url)
    key = f"{store.keys.p}:counter"
    seen: list[tuple[int, Any]] = []
    try:
        await until(lambda: writer.ready)
        assert isinstance(writer.link, Link), "a single Redis is written through the link"
        for i in range(300):
            if i % 3 == 2:  # a local step: runs once everything before it is answered
                writer.push(Item(None, lambda r, i=i: seen.append((i, r))))
            else:
                writer.push(Item(lambda p: p.eval("return redis.call('INCR', KEYS[1])", 1, key),
                                 lambda r, i=i: seen.append((i, r))))
        writer.push(Item(lambda p: p.set(f"{store.keys.p}:flag", b"1", px=60_000), lambda r: seen.append((-1, r))))
        await until(lambda: len(seen) == 301)
        assert [i for i, _ in seen[:300]] == list(range(300))
        counts = [r for i, r in seen[:300] if i % 3 != 2]
        assert counts == list(range(1, 201)), "every command ran once, in order"
        assert all(r is None for i, r in seen[:300] if i % 3 == 2)
        assert seen[300] == (-1, True), "replies are what redis-py's pipeline gives (SET: True)"
        # an error reply is handed back, not raised, and the writer goes on
        errs: list[Any] = []
        writer.push(Item(lambda p: p.eval("return redis.error_reply('no')", 0), errs.append))
        writer.push(Item(lambda p: p.eval("return 5", 0), errs.append))
        await until(lambda: len(errs) == 2)
        assert isinstance(errs[0], redis.ResponseError) and errs[1] == 5
    finally:
        await writer.stop()
        drop_prefix(redis_url, store.keys.p)


async def test_a_password_and_database_in_the_url_are_used() -> None:
    server = RedisServer("--save", "", "--appendonly", "no").start()
    try:
        admin = redis.Redis(port=server.port, socket_timeout=2)
        admin.config_set("requirepass", "s3cret")
        store, writer = started(f"redis://:s3cret@127.0.0.1:{server.port}/3")
        got: list[Any] = []
        writer.push(Item(lambda p: p.set("where", b"db3"), got.append))
        await until(lambda: got == [True])
        authed = redis.Redis(port=server.port, password="s3cret", socket_timeout=2)
        assert redis.Redis(port=server.port, password="s3cret", db=3, socket_timeout=2).get("where") == b"db3"
        assert authed.get("where") is None
        await writer.stop()
        # a wrong password: nothing is written, and the store says Redis is not usable
        store2, writer2 = started(f"redis://:wrong@127.0.0.1:{server.port}/3")
        writer2.push(Item(lambda p: p.set("never", b"1"), got.append))
        await asyncio.sleep(0.5)
        assert not writer2.ready and got == [True]
        await writer2.stop()
    finally:
        server.stop()


async def test_a_redis_that_stops_answering_is_down_and_gets_what_must_reach_it() -> None:
    server = RedisServer("--save", "", "--appendonly", "no").start()
    assert server.proc is not None
    store, writer = started(server.url, timeout_s=0.5)
    try:
        await until(lambda: writer.ready and store.up)
        os.kill(server.proc.pid, signal.SIGSTOP)
        got: list[Any] = []
        writer.push(Item(lambda p: p.eval("return redis.call('INCR', KEYS[1])", 1, "must"), got.append))
        await until(lambda: not store.up, seconds=3)  # a silent Redis is noticed within its timeout
        assert got == []
        writer.push(Item(lambda p: p.eval("return redis.call('INCR', KEYS[1])", 1, "later"), got.append))
        os.kill(server.proc.pid, signal.SIGCONT)
        await until(lambda: len(got) == 2 and store.up, seconds=10)
        check = redis.Redis(port=server.port, socket_timeout=2)
        assert int(check.get("later") or 0) == 1
        # sent before the stall and again after it: at least once (the hub's scripts are idempotent)
        assert int(check.get("must") or 0) >= 1
    finally:
        if server.proc.poll() is None:
            os.kill(server.proc.pid, signal.SIGCONT)
        await writer.stop()
        server.stop()


async def test_pub_sub_messages_arrive_in_order_and_after_a_restart() -> None:
    server = RedisServer("--save", "", "--appendonly", "no").start()
    store = Server(server.url, new_prefix(), Metrics(), timeout_s=1.0)
    reconnected: list[int] = []
    sub = Subscriber(store, lambda: reconnected.append(1))
    got: list[bytes] = []
    try:
        await sub.subscribe("room:out", got.append)
        assert all(isinstance(s, LinkShard) for s in sub.shards.values())
        pub = redis.Redis(port=server.port, socket_timeout=2)
        for i in range(200):
            pub.publish("room:out", str(i).encode())
        await until(lambda: len(got) == 200)
        assert got == [str(i).encode() for i in range(200)]
        server.stop()
        await until(lambda: not store.up)
        server.start()
        await until(lambda: bool(reconnected), seconds=10)
        await until(lambda: any(s.ready.is_set() for s in sub.shards.values()))
        pub = redis.Redis(port=server.port, socket_timeout=2)
        await until(lambda: pub.pubsub_numsub("room:out")[0][1] == 1)
        pub.publish("room:out", b"again")
        await until(lambda: got[-1:] == [b"again"])
        await sub.unsubscribe("room:out")
        await until(lambda: pub.pubsub_numsub("room:out")[0][1] == 0)
    finally:
        sub.close()
        server.stop()
