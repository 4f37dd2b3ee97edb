"""The protocol core of one connection, without a socket: the hello read and checked, each later
frame counted against the rate, decoded, checked and dispatched to the room, and the answers sent
through the peer. `Connection` (hub/edge/connection.py) is its I/O part; tests/hub/test_protocol_core.py
drives this core with a peer and a room of its own and no network at all.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard

from hub.edge.codec import CODECS, BadFrame, Codec, decode
from hub.edge.lobby import clean_name
from hub.tables.chat import ChatRefused, clean_text
from hub.tables.peer import Peer
from hub.tables.seat import RoomError, epoch_ms

if TYPE_CHECKING:
    from hub.settings import Settings
    from hub.stores.base import Target

CLOSE_BAD_HELLO, CLOSE_UNKNOWN_TOKEN, CLOSE_NO_ROOM, CLOSE_TOO_SLOW, CLOSE_TAKEN_OVER = 4000, 4001, 4004, 4008, 4009
CLOSE_TOO_LARGE = 1009
CLOSE_TRY_LATER = 1013
INT_MAX = 2**53


def is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and -INT_MAX <= v <= INT_MAX


def pick_codec(offered: list[str]) -> tuple[Codec, str | None]:
    for name in offered:
        if name in CODECS:
            return name, name
    return "msgpack", None


class Refused(Exception):  # noqa: N818 - a refusal, said with a close code
    """A hello the hub closes the connection over, with the close code and reason to send."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code, self.reason = code, reason


@dataclass(frozen=True)
class Hello:
    room: str
    token: str | None
    resume: int | None
    chat_after: int | None  # the last chat line the client holds (an addition to the contract)


def read_hello(data: bytes | str, codec: Codec) -> Hello:
    """The first frame, which must be a hello (PROTOCOL.md); `Refused` with 4000 otherwise."""
    try:
        frame = decode(data, codec)
    except BadFrame:
        raise Refused(CLOSE_BAD_HELLO, "the first frame must be a hello") from None
    if not isinstance(frame, dict) or frame.get("t") != "hello" or not isinstance(frame.get("room"), str):
        raise Refused(CLOSE_BAD_HELLO, "the first frame must be {t: hello, room: ...}")
    token, resume, chat = frame.get("token"), frame.get("resume"), frame.get("chat")
    if (token is not None and not isinstance(token, str)) or (resume is not None and not is_int(resume)):
        raise Refused(CLOSE_BAD_HELLO, "token must be a string and resume an integer")
    return Hello(frame["room"], token, resume, chat if is_int(chat) else None)


class Bucket:
    """A token bucket of `burst` tokens refilled at `rate` a second, on a clock given to it."""

    __slots__ = ("rate", "burst", "tokens", "at")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate, self.burst, self.tokens, self.at = rate, float(burst), float(burst), now

    def _refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now

    def spend(self, now: float) -> float:
        """Take one token, into debt if need be; what is left (below zero: past the burst)."""
        self._refill(now)
        self.tokens -= 1
        return self.tokens

    def take(self, now: float) -> bool:
        """Take one token if there is one."""
        self._refill(now)
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Speaker(Peer, Protocol):
    """The connection as the core sees it: a peer with its limits and its buckets."""

    settings: Settings
    frames: Bucket
    chat: Bucket

    def refuse(self, act_id: Any, code: str, message: str) -> None: ...
    def in_turn(self, answer: Callable[[], None]) -> None: ...
    def pong(self, pid: int) -> None: ...


def handle(conn: Speaker, room: Target, data: bytes | str, codec: Codec, now: float) -> None:
    """One received frame after the hello: counted against the rate, decoded and dispatched. Past
    the burst a frame is refused; far past it the connection is closed."""
    left = conn.frames.spend(now)
    if left < -conn.frames.burst:
        conn.close(CLOSE_TOO_SLOW, "too many frames")
        return
    if left < 0:
        conn.refuse(None, "rate_limited", "too many frames; slow down")
        return
    try:
        frame = decode(data, codec)
    except BadFrame as e:
        conn.refuse(None, "bad_frame", str(e))
        return
    dispatch(conn, room, frame, now)


def dispatch(conn: Speaker, room: Target, frame: Any, now: float) -> None:
    if not isinstance(frame, dict) or not isinstance(frame.get("t"), str):
        conn.refuse(None, "bad_message", "a frame is a map with a string 't'")
        return
    t = frame["t"]
    fid = frame.get("id")
    if t == "act":
        if not is_int(fid):
            conn.refuse(None, "bad_message", "act needs an integer id")
            return
        action, seq = frame.get("action"), frame.get("seq")
        if not isinstance(action, dict) or (seq is not None and not is_int(seq)):
            conn.refuse(fid, "bad_message", "act needs an action map and an optional integer seq")
            return
        if conn.seat is None:
            conn.refuse(fid, "unauthorized", "spectators cannot act")
            return
        if room.contests is not None and action.get("type") == "grab":
            room.contests.grab(conn, fid, action)
            return
        room.submit(conn.seat, action, conn=conn, act_id=fid, seq=seq)
    elif t == "say":
        say(conn, room, fid, frame, now)
    elif t == "ping":
        if not is_int(fid):
            conn.refuse(None, "bad_message", "ping needs an integer id")
            return
        conn.in_turn(lambda: conn.send_frame({"t": "pong", "id": fid, "s": epoch_ms()}))
    elif t == "pong":
        if isinstance(fid, int):
            conn.pong(fid)
    elif t == "seen":
        if room.contests is not None:
            room.contests.seen(conn, fid)
    elif t == "hello":
        conn.refuse(None, "bad_message", "hello was already said")
    else:
        conn.refuse(fid if is_int(fid) else None, "bad_message", f"unknown frame type {t[:40]!r}")


def say(conn: Speaker, room: Target, fid: Any, frame: dict[str, Any], now: float) -> None:
    """A chat line (docs/protocol.md): checked here, where the socket is, so a refused line goes
    no further; then said at the table, acked once every connection was sent it. Lines per
    connection are a bucket of `--chat-burst` refilled at `--chat-per-min`."""
    if not is_int(fid):
        conn.refuse(None, "bad_message", "say needs an integer id")
        return
    text, name = frame.get("text"), frame.get("name")
    if not isinstance(text, str) or (name is not None and not isinstance(name, str)):
        conn.refuse(fid, "bad_message", "say needs a string text and an optional string name")
        return
    settings = conn.settings
    try:
        text = clean_text(text, settings.chat_max_chars)
        # a seat speaks under its seat's name; a spectator may give one (the lobby's rules)
        spoken = clean_name(name, settings.name_max) if conn.seat is None and name is not None else None
    except (ChatRefused, RoomError) as e:
        conn.refuse(fid, e.code, e.message)
        return
    if not conn.chat.take(now):
        conn.refuse(fid, "rate_limited", "too many chat lines; wait a moment")
        return
    room.say(conn.seat, spoken, text, conn=conn, say_id=fid)
