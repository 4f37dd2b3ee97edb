"""The lobby's HTTP API under hostile requests: generated methods, paths, content types and bodies.
Whatever arrives, the answer is never a 500, an error body follows the contract's shape, and the
hub logs no error."""
from __future__ import annotations

import http.client as httpc
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rules.registry import GAMES
from tests.conftest import HubProcess
from tests.hub.wsclient import http, join, new_room

BODY_LIMIT = 4096


@pytest.fixture(scope="module")
def lobby_hub() -> Iterator[HubProcess]:
    h = HubProcess("--bot-delay-ms", "0", "--rooms-per-ip-per-min", "100000", "--max-body-bytes",
                   str(BODY_LIMIT)).start()
    yield h
    h.stop()


ROOM: dict[str, str] = {}


def a_room(base: str) -> str:
    if "rid" not in ROOM:
        game = sorted(GAMES)[0]
        ROOM["rid"] = new_room(base, game, GAMES[game].max_players)
    return ROOM["rid"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20)
game_ids = st.sampled_from([*sorted(GAMES), "chess", ""]) | json_values
create_bodies = st.fixed_dictionaries({}, optional={
    "game": game_ids, "seats": st.integers(-2, 10) | json_values,
    "options": st.dictionaries(st.sampled_from(["mode", "private", "bot_delay_ms", "decision_seconds",
                                                "bank_seconds", "max_offers", "variant"]) | st.text(max_size=8),
                               json_values | st.integers(-10, 10**6), max_size=4) | json_values,
    "bots": st.lists(st.integers(-1, 9) | json_values, max_size=5) | json_values})
join_bodies = st.fixed_dictionaries({}, optional={
    "name": st.text(max_size=40) | json_values
    | st.sampled_from(["\u202eevil", "a\u200bb", "ok", " ", "x" * 25, "\ud800", "A\u0301", "\x00"]),
    "seat": st.integers(-3, 12) | json_values})
raw_bodies = st.one_of(
    st.binary(max_size=300),
    st.integers(1, 4000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(BODY_LIMIT + 1, 3 * BODY_LIMIT).map(lambda n: b'{"name": "' + b"x" * n + b'"}'),
    st.just(b'{"seats": 1e999, "game": "symbiose"}'), st.just(b'{"seats": ' + b"9" * 5000 + b"}"),
    st.just(b"\xff\xfe{}"), st.just(b'{"a":1,"a":2}'))
segments = st.text(max_size=20) | st.sampled_from(["..", "%00", "%2e%2e", "%ff", "x" * 3000, "", "?", "#"])
methods = st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]) | st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=8)
ctypes = st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded",
                          "multipart/form-data; boundary=xx", "application/json; charset=latin-1", None, ""])


@st.composite
def requests(draw: Any, rid: str) -> tuple[str, str, bytes, str | None]:
    where = draw(st.sampled_from(["create", "join", "info", "list", "games", "other"]))
    if where == "create":
        path, body = "/api/rooms", draw(st.one_of(create_bodies.map(lambda b: json.dumps(b).encode()), raw_bodies))
    elif where == "join":
        target = draw(st.sampled_from([rid, rid + "x", "", rid.upper()]) | segments)
        path = f"/api/rooms/{quote(target, safe='%./?#')}/join"
        body = draw(st.one_of(join_bodies.map(lambda b: json.dumps(b).encode()), raw_bodies))
    elif where == "info":
        path, body = f"/api/rooms/{quote(draw(segments), safe='%./')}", b""
    elif where in ("list", "games"):
        path, body = ("/api/rooms" if where == "list" else "/api/games"), draw(raw_bodies | st.just(b""))
    else:
        parts = draw(st.lists(segments, max_size=4))
        path = "/" + "/".join(quote(p, safe="%./") for p in parts)
        body = draw(raw_bodies | st.just(b""))
    method = draw(st.sampled_from(["POST"] * 3 + ["GET"]) | methods)
    return method, path, body, draw(ctypes)


def send(port: int, method: str, path: str, body: bytes, ctype: str | None) -> tuple[int, bytes, str]:
    conn = httpc.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {} if ctype is None else {"Content-Type": ctype}
        conn.request(method, path, body=body or None, headers=headers)
        r = conn.getresponse()
        return r.status, r.read(), r.getheader("Content-Type") or ""
    finally:
        conn.close()


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), phases=[Phase.generate])
@given(data=st.data())
def test_no_request_gets_a_500(lobby_hub: HubProcess, data: st.DataObject) -> None:
    rid = a_room(lobby_hub.url)
    method, path, body, ctype = data.draw(requests(rid), label="request")
    status, raw, got_type = send(lobby_hub.port, method, path, body, ctype)
    assert status < 500 or status == 503, (status, method, path[:200], body[:200], raw[:300])
    if path.startswith("/api/") and "json" in got_type and status >= 400 and method != "HEAD":
        answer = json.loads(raw)
        if isinstance(answer, dict) and "error" in answer:
            assert isinstance(answer["error"], str) and isinstance(answer.get("message"), str), answer


def test_the_lobby_still_serves_and_logged_no_error(lobby_hub: HubProcess) -> None:
    rid = new_room(lobby_hub.url, "symbiose", 2) if "symbiose" in GAMES else a_room(lobby_hub.url)
    seat, token = join(lobby_hub.url, rid, "After")
    assert token and seat in (0, 1)
    assert http(lobby_hub.url, "GET", "/healthz")[0] == 200
    assert lobby_hub.proc is not None and lobby_hub.proc.poll() is None
    log = lobby_hub.log()
    assert '"level": "error"' not in log and "Traceback" not in log, log[-3000:]
    ROOM.clear()
