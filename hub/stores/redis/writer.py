"""The one ordered writer to Redis of a process."""
from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Any

from hub.logs import log
from hub.stores.redis.link import Link, Recorder, Waiting, connect, hello, plain, result_of
from hub.stores.redis.server import DOWN, WRITES, Item, Server, refusal

logger = logging.getLogger("hub.stores.redis")


class Writer:
    """The one writer to Redis for this process, in order, many items per round trip.

    Order matters twice: a room's entries must reach the log one after the other, and a reply or
    notice must not overtake the entry it follows. One ordered stream of commands gives both. On a
    single Redis that stream is a `Link`: each item is written in the turn that pushed it and
    answered in the turn its reply is read (hub.stores.redis.link says why). On a cluster, or over TLS,
    it is redis-py's pipelines, one in flight at a time, batching every room's writes under load.
    """

    def __init__(self, server: Server, batch: int = 512) -> None:
        self.server = server
        self.batch = batch
        self.queue: deque[Item] = deque()        # not sent yet
        self.waiting: deque[Waiting] = deque()   # sent on the link, or local steps behind those
        self.link: Link | None = None
        self.ready = False                       # the link said who we are and answered a PING
        self._recorder = Recorder()
        self._callbacks: Any = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._watch: asyncio.TimerHandle | None = None
        self._pause = 0.0                        # before the next link, after Redis refused (REFUSING)
        self._refused_backoff = 0.05

    def push(self, item: Item) -> None:
        if self.ready and not self.queue:
            self._send(item)
        else:
            self.queue.append(item)
            self._wake.set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self, flush_s: float = 2.0) -> None:
        deadline = asyncio.get_running_loop().time() + flush_s
        while (self.queue or self.waiting) and self.server.up and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        if self._task is not None:
            self._task.cancel()
        self._close()

    async def _run(self) -> None:
        backoff = 0.05
        where: dict[str, Any] | None = None
        while where is None:
            try:
                if self.server.client is None:
                    await self.server.connect()
            except DOWN as e:
                self.server.went_down(e)
                await asyncio.sleep(backoff)
                backoff = min(2.0, backoff * 2)
                continue
            where = {} if self.server.cluster else plain(self.server.client)
            if not where:
                await self._pipelines()
        self._callbacks = getattr(self.server.client, "response_callbacks", None)
        backoff = 0.05
        while True:
            if self.link is None:
                if self._pause:
                    pause, self._pause = self._pause, 0.0
                    await asyncio.sleep(pause)
                try:
                    self.link = await connect(where, self.server.timeout_s, self._on_reply, self._on_lost)
                except DOWN as e:
                    self.server.went_down(e)
                    await asyncio.sleep(backoff)
                    backoff = min(2.0, backoff * 2)
                    continue
                backoff = 0.05
                self._hello(where)
            self._wake.clear()
            await self._wake.wait()

    # ---- on a link -----------------------------------------------------------------------------

    def _hello(self, where: dict[str, Any]) -> None:
        assert self.link is not None
        now = asyncio.get_running_loop().time()
        for args in hello(where):
            self.link.write(args)
            self.waiting.append(Waiting(Item(None, self._greeted), args[0], {}, now))
        self._watch = asyncio.get_running_loop().call_later(self.server.timeout_s / 4, self._check)

    def _greeted(self, result: Any) -> None:
        if refusal(result):  # loading its data after a restart, say: ask again in a while
            self.server.refused(result)
            self._hold(None)
            return
        if isinstance(result, Exception):
            log(logger, logging.ERROR, "redis refused the writer's link", error=str(result)[:200])
            if self.link is not None:
                self.link.abort()
            return
        if self.waiting:  # AUTH or SELECT answered; the PING is still to come
            return
        self.ready = True
        while self.queue and self.ready:
            self._send(self.queue.popleft())
        if not self.server.up:
            self.server.came_up()

    def _send(self, item: Item) -> None:
        assert self.link is not None
        now = asyncio.get_running_loop().time()
        commands = self._recorder.take(item.command) if item.command is not None else []
        if not commands:
            if self.waiting:
                self.waiting.append(Waiting(item, None, {}, now))
            else:  # nothing before it waits for an answer; run it after this turn, as a reply would
                asyncio.get_running_loop().call_soon(self._finish, item, None)
            return
        (args, options), = commands
        self.link.write(args)
        self.waiting.append(Waiting(item, args[0], options, now))

    def _on_reply(self, reply: Any) -> None:
        if not self.waiting:  # nothing was asked: this is not the Redis we think it is
            log(logger, logging.ERROR, "redis answered nothing the writer asked", reply=repr(reply)[:200])
            if self.link is not None:
                self.link.abort()
            return
        w = self.waiting.popleft()
        result = result_of(reply, w.name, w.options, self._callbacks)
        if refusal(result):
            self.server.refused(result)
            if w.item.must:
                self._hold(w.item)
                return
        elif w.name in WRITES and not isinstance(result, Exception):
            self._refused_backoff = 0.05
            self.server.accepted()
        self._finish(w.item, result)
        while self.waiting and self.waiting[0].name is None:
            self._finish(self.waiting.popleft().item, None)

    def _finish(self, item: Item, result: Any) -> None:
        if item.done is not None:
            try:
                item.done(result)
            except Exception:  # noqa: BLE001 - the writer must outlive any one bad item
                logger.exception("after a redis write")

    def _on_lost(self, exc: BaseException | None) -> None:
        """Send again what must reach Redis (the scripts are idempotent), drop the rest, reconnect."""
        keep = [w.item for w in self.waiting if w.item.must and w.item.done != self._greeted]
        self.waiting.clear()
        self.queue.extendleft(reversed(keep))
        self.link, self.ready = None, False
        if self._watch is not None:
            self._watch.cancel()
        self.server.went_down(exc or ConnectionError("redis link lost"))
        self._wake.set()

    def _hold(self, first: Item | None) -> None:
        """Redis refused an item that must reach it (out of memory, say): that item and every one
        sent behind it go back to the head of the queue in their order (the scripts are
        idempotent, and a refused script wrote nothing), the link is dropped before any later
        reply is handled, and a new one is opened after a pause that grows while Redis refuses.
        Its callback never sees the refusal: an owner whose commit was refused keeps its room
        (it used to drop it, and the room stood still until its lease lapsed)."""
        keep = [] if first is None else [first]
        keep += [w.item for w in self.waiting if w.item.must and w.item.done != self._greeted]
        self.waiting.clear()
        self.queue.extendleft(reversed(keep))
        link, self.link, self.ready = self.link, None, False
        if self._watch is not None:
            self._watch.cancel()
        if link is not None:
            link.close()
        self._pause, self._refused_backoff = self._refused_backoff, min(2.0, self._refused_backoff * 2)
        self._wake.set()

    def _check(self) -> None:
        """A Redis that stops answering without closing the socket is down too (redis-py's
        socket timeout, here)."""
        link = self.link
        if link is None:
            return
        loop = asyncio.get_running_loop()
        if self.waiting and loop.time() - self.waiting[0].sent_at > self.server.timeout_s:
            link.abort()
            return
        self._watch = loop.call_later(self.server.timeout_s / 4, self._check)

    def _close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        link, self.link, self.ready = self.link, None, False
        if link is not None:
            link.close()

    # ---- on redis-py's pipelines ---------------------------------------------------------------

    async def _pipelines(self) -> None:
        backoff = 0.05
        while True:
            if not self.queue:
                self._wake.clear()
                await self._wake.wait()
            batch = [self.queue.popleft() for _ in range(min(self.batch, len(self.queue)))]
            names = [self._name(it) for it in batch]
            try:
                results = await self._execute(batch)
            except DOWN as e:
                self.server.went_down(e)
                keep = [it for it in batch if it.must]
                self.queue.extendleft(reversed(keep))
                await asyncio.sleep(backoff)
                backoff = min(2.0, backoff * 2)
                continue
            except Exception:  # noqa: BLE001 - the writer must outlive any one bad item
                logger.exception("redis write failed")
                results = [None] * len(batch)
            backoff = 0.05
            self.server.came_up()
            it_results = iter(results)
            held: list[Item] = []
            for it, name in zip(batch, names, strict=True):
                result: Any = next(it_results) if it.command is not None else None
                if held or refusal(result):  # as on a link (_hold): from the first refused on, in order
                    if refusal(result):
                        self.server.refused(result)
                    if it.must:
                        held.append(it)
                        continue
                elif name in WRITES and not isinstance(result, Exception):
                    self.server.accepted()
                self._finish(it, result)
            if held:
                self.queue.extendleft(reversed(held))
                await asyncio.sleep(self._refused_backoff)
                self._refused_backoff = min(2.0, self._refused_backoff * 2)
            elif self.server.refusing is None:
                self._refused_backoff = 0.05

    def _name(self, item: Item) -> Any:
        commands = self._recorder.take(item.command) if item.command is not None else []
        return commands[0][0][0] if commands else None

    async def _execute(self, batch: list[Item]) -> list[Any]:
        if not any(it.command is not None for it in batch):
            return []
        if self.server.client is None:
            await self.server.connect()

        async def go(c: Any) -> Any:
            pipe = c.pipeline(transaction=False)
            for it in batch:
                if it.command is not None:
                    it.command(pipe)
            return await pipe.execute(raise_on_error=False)

        results: list[Any] = await go(self.server.client)
        for r in results:
            if isinstance(r, DOWN):
                raise r
        return results
