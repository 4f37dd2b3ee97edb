"""Frames as the tables hand them out: encoded once per codec, however many connections receive them.

The tables build each delta and event once per audience; the edge writes the same bytes to every
connection of that audience. Decoding what clients send is the edge's (hub/edge/codec.py).
"""
from __future__ import annotations

import json
from typing import Any, Literal

import msgpack

Codec = Literal["msgpack", "json"]
CODECS: tuple[Codec, ...] = ("msgpack", "json")


def encode(frame: Any, codec: Codec) -> bytes | str:
    if codec == "msgpack":
        return msgpack.packb(frame, use_bin_type=True)  # type: ignore[no-any-return]
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False)


class Encoded:
    """One frame encoded at most once per codec, however many connections receive it.

    A frame that arrives already packed (a delta relayed from another process) is kept as its
    msgpack bytes and decoded only if a JSON connection needs it, once per process.
    """

    __slots__ = ("_frame", "_msgpack", "_json")

    def __init__(self, frame: dict[str, Any] | None = None, packed: bytes | None = None) -> None:
        self._frame = frame
        self._msgpack = packed
        self._json: str | None = None

    @classmethod
    def packed(cls, data: bytes) -> Encoded:
        return cls(None, data)

    def compact(self) -> None:
        """Keep only the msgpack bytes: a frame held for resumes is then one object the garbage
        collector walks, not the tree of maps and lists of its operations (which made a full
        collection of a busy hub's histories take most of a second)."""
        if self._frame is not None:
            if self._msgpack is None:
                self._msgpack = msgpack.packb(self._frame, use_bin_type=True)
            self._frame = None

    @property
    def frame(self) -> dict[str, Any]:
        if self._frame is None:
            assert self._msgpack is not None
            self._frame = msgpack.unpackb(self._msgpack, raw=False, strict_map_key=False)
        return self._frame

    def get(self, codec: Codec) -> bytes | str:
        if codec == "msgpack":
            if self._msgpack is None:
                self._msgpack = msgpack.packb(self._frame, use_bin_type=True)
            return self._msgpack
        if self._json is None:
            self._json = json.dumps(self.frame, separators=(",", ":"), ensure_ascii=False)
        return self._json
