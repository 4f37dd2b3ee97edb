"""A test client of the hub's contract: keeps one viewer's view by applying the hub's patches."""
from __future__ import annotations

import asyncio
import copy
import json
import ssl
import time
import urllib.error
import urllib.request
from typing import Any

import jsonpatch
import msgpack
import websockets
from websockets.asyncio.client import ClientConnection, connect


def unverified() -> ssl.SSLContext:
    """The tests' hubs serve TLS with certificates they made a moment ago, which nothing signed."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def ws_url_of(base: str) -> str:
    return "wss://" + base[len("https://"):] + "/ws" if base.startswith("https://") else \
        base.replace("http://", "ws://") + "/ws"


def http(base: str, method: str, path: str, body: Any = None,
         headers: dict[str, str] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10, context=unverified() if base.startswith("https") else None) as r:
            raw = r.read()
            ctype = r.headers.get("Content-Type", "")
            return r.status, (json.loads(raw) if "json" in ctype else raw.decode())
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, raw.decode(errors="replace")


def new_room(base: str, game: str, seats: int, options: dict[str, Any] | None = None,
             bots: list[int] | None = None) -> str:
    status, body = http(base, "POST", "/api/rooms", {"game": game, "seats": seats, "options": options or {},
                                                     "bots": bots or []})
    assert status == 201, body
    return str(body["room"])


def join(base: str, room: str, name: str = "p", seat: int | None = None) -> tuple[int, str]:
    payload: dict[str, Any] = {"name": name}
    if seat is not None:
        payload["seat"] = seat
    status, body = http(base, "POST", f"/api/rooms/{room}/join", payload)
    assert status == 200, body
    return int(body["seat"]), str(body["token"])


class Client:
    def __init__(self, base: str, room: str, token: str | None = None, codec: str = "msgpack") -> None:
        self.ws_url = ws_url_of(base)
        self.room, self.token, self.codec = room, token, codec
        self.ws: ClientConnection | None = None
        self.view: Any = None
        self.seq: int | None = None
        self.seat: int | None = None
        self.frames: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        self.problems: list[str] = []
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.errors: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.contests: list[dict[str, Any]] = []
        self.contest_at: dict[str, float] = {}  # contest frame id -> when it was read (monotonic)
        self.closed = asyncio.Event()
        self.welcomed = asyncio.Event()
        self.changed = asyncio.Event()
        self.close_code: int | None = None
        self.answer_pings = True
        self._next = 0
        self._reader: asyncio.Task[None] | None = None

    async def open(self, resume: int | None = None, hello: dict[str, Any] | bytes | None = None,
                   wait: bool = True) -> Client:
        tls = {"ssl": unverified()} if self.ws_url.startswith("wss://") else {}
        self.ws = await connect(self.ws_url, subprotocols=[self.codec], max_size=None,  # type: ignore[list-item]
                                ping_interval=None, open_timeout=10, **tls)
        self._reader = asyncio.create_task(self._read())
        if hello is None:
            hello = {"t": "hello", "room": self.room}
            if self.token is not None:
                hello["token"] = self.token
            if resume is not None:
                hello["resume"] = resume
        if isinstance(hello, bytes):
            await self.send_raw(hello)
        else:
            await self.send(hello)
        if wait:
            done, pending = await asyncio.wait(
                [asyncio.create_task(self.welcomed.wait()), asyncio.create_task(self.closed.wait())],
                timeout=10, return_when=asyncio.FIRST_COMPLETED)
            for p in pending:
                p.cancel()
        return self

    def encode(self, frame: Any) -> bytes | str:
        return msgpack.packb(frame) if self.codec == "msgpack" else json.dumps(frame)

    async def send(self, frame: Any) -> None:
        assert self.ws is not None
        await self.ws.send(self.encode(frame))

    async def send_raw(self, data: bytes | str) -> None:
        assert self.ws is not None
        await self.ws.send(data)

    async def act(self, action: Any, seq: int | None = None, timeout: float = 10) -> dict[str, Any]:
        self._next += 1
        i = self._next
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[i] = fut
        frame: dict[str, Any] = {"t": "act", "id": i, "action": action}
        if seq is not None:
            frame["seq"] = seq
        await self.send(frame)
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            self.pending.pop(i, None)

    async def request(self, frame: dict[str, Any], timeout: float = 5) -> dict[str, Any]:
        i = frame["id"]
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[i] = fut
        await self.send(frame)
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            self.pending.pop(i, None)

    async def next_error(self, timeout: float = 5) -> dict[str, Any]:
        n = len(self.errors)
        deadline = time.monotonic() + timeout
        while len(self.errors) == n and time.monotonic() < deadline and not self.closed.is_set():
            await asyncio.sleep(0.01)
        assert len(self.errors) > n, f"no error frame came (closed {self.close_code})"
        return self.errors[n]

    async def wait_closed(self, timeout: float = 5) -> int | None:
        await asyncio.wait_for(self.closed.wait(), timeout)
        return self.close_code

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, 5)
            except (TimeoutError, Exception):  # noqa: BLE001
                self._reader.cancel()

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for data in self.ws:
                self.raw.append(data if isinstance(data, bytes) else data.encode())
                frame = msgpack.unpackb(data, raw=False) if isinstance(data, bytes) else json.loads(data)
                self.frames.append(frame)
                await self._handle(frame)
                self.changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_code = self.ws.close_code
            self.closed.set()
            for fut in self.pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError(f"closed {self.close_code}"))

    async def _handle(self, f: dict[str, Any]) -> None:
        t = f["t"]
        if t == "welcome":
            self.seat = f["seat"]
            if f["view"] is not None:
                self.view = f["view"]
            elif self.view is None:
                self.problems.append("welcome without a view on a fresh client")
            self.seq = f["seq"]
            self.welcomed.set()
        elif t == "delta":
            if self.seq is None or f["seq"] != self.seq + 1:
                self.problems.append(f"seq gap: had {self.seq}, got {f['seq']}")
            try:
                self.view = jsonpatch.apply_patch(copy.deepcopy(self.view), f["ops"])
            except Exception as e:  # noqa: BLE001
                self.problems.append(f"patch failed: {e!r}")
            self.seq = f["seq"]
        elif t in ("ack", "error"):
            if t == "error":
                self.errors.append(f)
            fut = self.pending.get(f.get("id"))  # type: ignore[arg-type]
            if fut is not None and not fut.done():
                fut.set_result(f)
        elif t == "pong":
            fut = self.pending.get(f.get("id"))  # type: ignore[arg-type]
            if fut is not None and not fut.done():
                fut.set_result(f)
        elif t == "ping":
            if self.answer_pings:
                await self.send({"t": "pong", "id": f["id"]})
        elif t == "contest":
            self.contest_at[f["id"]] = time.monotonic()
            await self.send({"t": "seen", "id": f["id"]})
            self.contests.append(f)
        elif t == "event":
            self.events.append(f)

    @property
    def legal(self) -> list[Any]:
        return list(self.view.get("legal") or []) if isinstance(self.view, dict) else []


async def settle(clients: list[Client], gap: float = 0.05, limit: float = 5.0) -> None:
    """Wait until no client has received a frame for `gap` seconds."""
    start = time.monotonic()
    counts = [len(c.frames) for c in clients]
    quiet_since = time.monotonic()
    while time.monotonic() - start < limit:
        await asyncio.sleep(gap / 4)
        now = [len(c.frames) for c in clients]
        if now != counts:
            counts, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since >= gap:
            return


async def snapshot(base: str, room: str, token: str | None = None) -> tuple[int | None, Any]:
    c = await Client(base, room, token).open()
    await c.close()
    return c.seq, c.view


def without_presence(view: Any) -> Any:
    """A view less who is here (`presence`, `grace_until`): a connection closed and opened again
    moves those and nothing of the game."""
    view = dict(view)
    if isinstance(view.get("players"), list):
        view["players"] = [{k: v for k, v in p.items() if k not in ("presence", "grace_until")}
                           for p in view["players"]]
    return view
