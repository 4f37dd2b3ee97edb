"""A blocking client of the hub's contract, for property tests that send one frame and read the answer.

Hypothesis drives plain functions best, so the fuzz tests use this rather than the asyncio client.
A sentinel ping after each frame marks the end of its answer: the hub reads a connection's frames in
order and answers each before it reads the next.
"""
from __future__ import annotations

import copy
import json
from typing import Any

import jsonpatch
import msgpack
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

SENTINEL = 2**52 + 17


class Closed(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__(f"closed with {code}")
        self.code = code


class SyncClient:
    def __init__(self, base: str, room: str, token: str | None = None, codec: str = "msgpack") -> None:
        self.url = base.replace("http://", "ws://") + "/ws"
        self.room, self.token, self.codec = room, token, codec
        self.ws: ClientConnection | None = None
        self.view: Any = None
        self.seq: int | None = None
        self.seat: int | None = None
        self.problems: list[str] = []
        self.raw: list[bytes] = []
        self.frames: list[dict[str, Any]] = []  # contests and events, which change no view

    def open(self, hello: Any = None, raw: bytes | str | None = None, timeout: float = 10) -> list[dict[str, Any]]:
        """Connect and say hello; return the frames up to the welcome (or raise Closed)."""
        # legacy=True: a connection returned directly, since these outlive the call that opens them
        self.ws = connect(self.url, subprotocols=[self.codec], max_size=None,  # type: ignore[list-item]
                          compression=None, ping_interval=None, proxy=None, open_timeout=timeout, legacy=True)
        if raw is not None:
            self.ws.send(raw)
        else:
            if hello is None:
                hello = {"t": "hello", "room": self.room}
                if self.token is not None:
                    hello["token"] = self.token
            self.send(hello)
        return self.until(lambda f: f.get("t") == "welcome", timeout)

    def encode(self, frame: Any) -> bytes | str:
        return msgpack.packb(frame, use_bin_type=True) if self.codec == "msgpack" else json.dumps(frame)

    def send(self, frame: Any) -> None:
        self.send_raw(self.encode(frame))

    def send_raw(self, data: bytes | str) -> None:
        assert self.ws is not None
        try:
            self.ws.send(data)
        except ConnectionClosed as e:
            raise Closed(self.close_code()) from e

    def close_code(self) -> int | None:
        return None if self.ws is None else self.ws.close_code

    def recv(self, timeout: float) -> dict[str, Any] | None:
        """The next frame, None after `timeout` seconds of silence; Closed once the hub has closed."""
        assert self.ws is not None
        try:
            data = self.ws.recv(timeout)
        except TimeoutError:
            return None
        except ConnectionClosed as e:
            raise Closed(self.close_code()) from e
        self.raw.append(data if isinstance(data, bytes) else data.encode())
        frame: dict[str, Any] = msgpack.unpackb(data, raw=False) if isinstance(data, bytes) else json.loads(data)
        self.handle(frame)
        if frame.get("t") in ("contest", "event"):
            self.frames.append(frame)
        return frame

    def handle(self, f: dict[str, Any]) -> None:
        if f.get("t") == "welcome":
            self.seat = f["seat"]
            if f["view"] is not None:
                self.view = f["view"]
            self.seq = f["seq"]
        elif f.get("t") == "delta":
            if self.seq is None or f["seq"] != self.seq + 1:
                self.problems.append(f"seq gap: had {self.seq}, got {f['seq']}")
            try:
                self.view = jsonpatch.apply_patch(copy.deepcopy(self.view), f["ops"])
            except Exception as e:  # noqa: BLE001 - recorded, then asserted on
                self.problems.append(f"patch failed: {e!r}")
            self.seq = f["seq"]

    def until(self, done: Any, timeout: float = 5) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while True:
            f = self.recv(timeout)
            if f is None:
                raise TimeoutError(f"no matching frame within {timeout} s; got {[g.get('t') for g in out]}")
            out.append(f)
            if done(f):
                return out

    def answer(self, timeout: float = 5) -> list[dict[str, Any]]:
        """Everything the hub said in answer to the frames sent so far, ended by a sentinel ping."""
        self.send({"t": "ping", "id": SENTINEL})
        frames = self.until(lambda f: f.get("t") == "pong" and f.get("id") == SENTINEL, timeout)
        return [f for f in frames[:-1] if f.get("t") != "ping"]

    def drain(self, quiet: float = 0.02) -> list[dict[str, Any]]:
        out = []
        while (f := self.recv(quiet)) is not None:
            out.append(f)
        return out

    @property
    def legal(self) -> list[Any]:
        return list(self.view.get("legal") or []) if isinstance(self.view, dict) else []

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
