"""Another site's page, open in a player's browser, can neither take seats nor open a WebSocket.

A page served from another loopback port (another origin) sends what needs no CORS preflight, a
`text/plain` POST, and opens a WebSocket to the hub; the hub must refuse both, and change nothing,
while the hub's own page still creates rooms, takes seats and connects.
"""
from __future__ import annotations

import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web.client_kit import http, launched, make_room

PAGE = b"""<!doctype html><html><head><meta charset="utf-8"><title>a game site</title></head>
<body><p>Free games!</p></body></html>"""

ATTACK = """async ([hub, rid]) => {
  const out = {};
  const post = async (path, body) => {
    try {
      await fetch(hub + path, {method: "POST", mode: "no-cors", body: JSON.stringify(body),
                               headers: {"Content-Type": "text/plain"}});
      return "sent";
    } catch (e) { return "failed: " + e; }
  };
  out.create = await post("/api/rooms", {game: "symbiose", seats: 2});
  out.join = await post("/api/rooms/" + rid + "/join", {name: "lured"});
  out.ws = await new Promise((resolve) => {
    const ws = new WebSocket(hub.replace("http", "ws") + "/ws", "msgpack");
    const timer = setTimeout(() => resolve("no answer"), 8000);
    ws.onopen = () => { clearTimeout(timer); ws.close(); resolve("opened"); };
    ws.onclose = (ev) => { clearTimeout(timer); resolve("closed " + ev.code); };
  });
  return out;
}"""

OWN = """async ([rid]) => {
  const out = {};
  const res = await fetch("/api/rooms/" + rid + "/join", {method: "POST", body: JSON.stringify({name: "own"}),
                                                          headers: {"Content-Type": "application/json"}});
  out.join = res.status;
  out.ws = await new Promise((resolve) => {
    const ws = new WebSocket(location.origin.replace("http", "ws") + "/ws", "msgpack");
    const timer = setTimeout(() => resolve("no answer"), 8000);
    ws.onopen = () => { clearTimeout(timer); ws.close(); resolve("opened"); };
    ws.onclose = (ev) => { clearTimeout(timer); resolve("closed " + ev.code); };
  });
  return out;
}"""


class Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def other_site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def lobby_hub() -> Iterator[HubProcess]:
    h = HubProcess("--store", "memory").start()
    yield h
    h.stop()


def test_another_sites_page_can_neither_take_seats_nor_connect(chromium_path: str, lobby_hub: HubProcess,
                                                              other_site: str) -> None:
    hub = lobby_hub
    rid = make_room(hub, "symbiose", 2, [])
    rooms_before = len(http(hub, "GET", "/api/rooms")[1])
    for browser in launched(chromium_path):
        page = browser.new_page()
        page.goto(other_site + "/")
        got = page.evaluate(ATTACK, [hub.url, rid])
        # the page learns nothing from an opaque answer; what counts is what the hub did
        assert got["create"] == "sent" and got["join"] == "sent", got
        assert got["ws"].startswith("closed"), got  # the handshake was refused: the socket never opened
        assert len(http(hub, "GET", "/api/rooms")[1]) == rooms_before
        info = http(hub, "GET", f"/api/rooms/{rid}")[1]
        assert [s["name"] for s in info["seats"]] == [None, None]
        with urllib.request.urlopen(hub.url + "/metrics", timeout=10) as r:
            metrics = r.read().decode()
        assert 'hub_refused_total{reason="origin"} 3.0' in metrics, metrics[-2000:]

        own = browser.new_page()
        own.goto(hub.url + "/")
        mine = own.evaluate(OWN, [rid])
        assert mine == {"join": 200, "ws": "opened"}, mine
        info = http(hub, "GET", f"/api/rooms/{rid}")[1]
        assert [s["name"] for s in info["seats"]] == ["own", None]
