"""The connection's protocol core (hub/edge/protocol.py) driven without a socket: a peer and a room of
the test's own stand where the WebSocket and the table would, and the core's answers are read off them.
What the same frames do over a real socket is tests/hub/test_protocol.py's."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack
import pytest

from hub.edge.protocol import CLOSE_BAD_HELLO, CLOSE_TOO_SLOW, Bucket, Hello, Refused, handle, read_hello
from hub.settings import Settings
from hub.tables.arbitration import KernelRtt, RoundTrips
from hub.tables.frames import Encoded


def packed(frame: Any) -> bytes:
    return msgpack.packb(frame, use_bin_type=True)


class Peer:
    """A connection as the core sees it, keeping what the core sent it."""

    def __init__(self, seat: int | None, settings: Settings) -> None:
        self.seat = seat
        self.serial = 1
        self.round_trips = RoundTrips()
        self.settings = settings
        self.frames = Bucket(settings.frames_per_s, settings.frame_burst, 0.0)
        self.chat = Bucket(settings.chat_per_min / 60, settings.chat_burst, 0.0)
        self.sent: list[dict[str, Any]] = []
        self.refused: list[tuple[Any, str]] = []
        self.closed: tuple[int, str] | None = None
        self.pongs: list[int] = []

    def send(self, frame: Encoded) -> None:
        self.sent.append({"encoded": frame})

    def send_frame(self, frame: dict[str, Any]) -> None:
        self.sent.append(frame)

    def send_timed(self, frame: dict[str, Any], written: Callable[[float], None]) -> None:
        self.sent.append(frame)

    def error(self, act_id: Any, code: str, message: str) -> None:
        self.refused.append((act_id, code))

    def refuse(self, act_id: Any, code: str, message: str) -> None:
        self.refused.append((act_id, code))

    def in_turn(self, answer: Callable[[], None]) -> None:
        answer()

    def close(self, code: int, reason: str, now: bool = False) -> None:
        self.closed = (code, reason)

    def ping(self) -> None:
        pass

    def tick(self, now: float) -> None:
        pass

    def pong(self, pid: int) -> None:
        self.pongs.append(pid)

    def kernel_rtt(self) -> KernelRtt | None:
        return None


class Contests:
    def __init__(self) -> None:
        self.grabs: list[tuple[int, dict[str, Any]]] = []
        self.seen_ids: list[Any] = []

    def grab(self, conn: Any, act_id: int, action: dict[str, Any]) -> None:
        self.grabs.append((act_id, action))

    def seen(self, conn: Any, nonce: Any) -> None:
        self.seen_ids.append(nonce)


class Room:
    """A room that keeps what it was asked to do."""

    rid = "r1"

    def __init__(self, contests: Contests | None = None) -> None:
        self.contests = contests
        self.submitted: list[tuple[int | None, dict[str, Any], Any, Any]] = []
        self.said: list[tuple[int | None, str | None, str]] = []

    async def authenticate(self, token: str) -> int | None:
        return None

    def attach(self, conn: Any, seat: int | None, resume: int | None, chat_after: int | None = None) -> None:
        pass

    def detach(self, conn: Any) -> None:
        pass

    def submit(self, seat: int | None, action: Any, conn: Any = None, act_id: int | None = None,
               seq: int | None = None, by: str = "player", aid: str | None = None) -> bool:
        self.submitted.append((seat, action, act_id, seq))
        return True

    def say(self, seat: int | None, name: str | None, text: str, conn: Any = None,
            say_id: int | None = None, aid: str | None = None) -> bool:
        self.said.append((seat, name, text))
        return True

    def in_turn(self, answer: Callable[[], None]) -> None:
        answer()


@pytest.mark.parametrize("frame", [
    b"\xc1", {"t": "act"}, {"t": "hello"}, {"t": "hello", "room": 3}, [1, 2],
    {"t": "hello", "room": "r", "token": 5}, {"t": "hello", "room": "r", "resume": "x"},
    {"t": "hello", "room": "r", "resume": 2**60},
])
def test_a_first_frame_that_is_no_hello_is_refused_with_4000(frame: Any) -> None:
    data = frame if isinstance(frame, bytes) else packed(frame)
    with pytest.raises(Refused) as e:
        read_hello(data, "msgpack")
    assert e.value.code == CLOSE_BAD_HELLO


def test_a_hello_is_read_whole() -> None:
    hello = read_hello(packed({"t": "hello", "room": "r1", "token": "tk", "resume": 7, "chat": 3}), "msgpack")
    assert hello == Hello("r1", "tk", 7, 3)
    assert read_hello('{"t": "hello", "room": "r1", "chat": "x"}', "json") == Hello("r1", None, None, None)


def test_frames_go_where_the_contract_says() -> None:
    settings = Settings()
    contests = Contests()
    room = Room(contests)
    seat, watcher = Peer(0, settings), Peer(None, settings)
    handle(seat, room, packed({"t": "act", "id": 1, "action": {"type": "flip", "slot": 2}, "seq": 4}), "msgpack", 1.0)
    assert room.submitted == [(0, {"type": "flip", "slot": 2}, 1, 4)]
    handle(seat, room, packed({"t": "act", "id": 2, "action": {"type": "grab"}}), "msgpack", 1.0)
    assert contests.grabs == [(2, {"type": "grab"})] and len(room.submitted) == 1
    handle(seat, room, packed({"t": "seen", "id": "n1"}), "msgpack", 1.0)
    assert contests.seen_ids == ["n1"]
    handle(seat, room, packed({"t": "ping", "id": 9}), "msgpack", 1.0)
    assert seat.sent[-1]["t"] == "pong" and seat.sent[-1]["id"] == 9
    handle(seat, room, packed({"t": "pong", "id": 5}), "msgpack", 1.0)
    assert seat.pongs == [5]
    handle(watcher, room, packed({"t": "act", "id": 3, "action": {"type": "flip"}}), "msgpack", 1.0)
    assert watcher.refused == [(3, "unauthorized")] and len(room.submitted) == 1
    assert seat.refused == []


@pytest.mark.parametrize(("frame", "refusal"), [
    (b"\xc1", (None, "bad_frame")),
    (packed([1]), (None, "bad_message")),
    (packed({"t": 1}), (None, "bad_message")),
    (packed({"t": "act", "id": "x", "action": {}}), (None, "bad_message")),
    (packed({"t": "act", "id": 4, "action": "flip"}), (4, "bad_message")),
    (packed({"t": "act", "id": 4, "action": {}, "seq": "1"}), (4, "bad_message")),
    (packed({"t": "ping"}), (None, "bad_message")),
    (packed({"t": "hello", "room": "r1"}), (None, "bad_message")),
    (packed({"t": "dance", "id": 6}), (6, "bad_message")),
    (packed({"t": "say", "id": 7}), (7, "bad_message")),
    (packed({"t": "say", "id": 8, "text": "   "}), (8, "empty_text")),
])
def test_bad_frames_get_their_code_and_change_nothing(frame: bytes, refusal: tuple[Any, str]) -> None:
    peer, room = Peer(0, Settings()), Room()
    handle(peer, room, frame, "msgpack", 1.0)
    assert peer.refused == [refusal]
    assert room.submitted == [] and room.said == [] and peer.closed is None


def test_past_the_burst_frames_are_refused_and_far_past_it_the_connection_closes() -> None:
    peer, room = Peer(0, Settings(frames_per_s=10, frame_burst=3)), Room()
    ping = packed({"t": "ping", "id": 1})
    for _ in range(3):
        handle(peer, room, ping, "msgpack", 0.0)
    assert peer.refused == [] and len(peer.sent) == 3
    for _ in range(3):
        handle(peer, room, ping, "msgpack", 0.0)
    assert peer.refused == [(None, "rate_limited")] * 3 and peer.closed is None
    handle(peer, room, ping, "msgpack", 0.0)
    assert peer.closed is not None and peer.closed[0] == CLOSE_TOO_SLOW
    # the bucket refills with time: a second later ten more are allowed
    later = Peer(0, Settings(frames_per_s=10, frame_burst=3))
    for i in range(4):
        handle(later, room, ping, "msgpack", 0.0 if i < 3 else 1.0)
    assert later.refused == []


def test_chat_lines_have_a_bucket_of_their_own_and_a_spectator_names_itself() -> None:
    settings = Settings(chat_burst=2, chat_per_min=60)
    watcher, room = Peer(None, settings), Room()
    for i in range(3):
        handle(watcher, room, packed({"t": "say", "id": i, "text": f"hi {i}", "name": " Ann "}), "msgpack", 0.0)
    assert room.said == [(None, "Ann", "hi 0"), (None, "Ann", "hi 1")]
    assert watcher.refused == [(2, "rate_limited")]
    handle(watcher, room, packed({"t": "say", "id": 3, "text": "again"}), "msgpack", 1.0)
    assert room.said[-1] == (None, None, "again")
