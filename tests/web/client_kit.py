"""Helpers shared by the browser tests (the client's shared parts and every game's table).

The pages are driven as a player would drive them: clicking what the table marks as legal
(`data-legal="true"`), reading what the page shows. Rooms that only set the scene are made over
HTTP, which is quicker than the lobby form (the lobby's own tests use the form).
"""
from __future__ import annotations

import json
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonpatch
import msgpack
import pytest
from websockets.sync.client import connect

from tests.conftest import CHROMIUM_ARGS, ROOT, HubProcess, need

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

SHOTS = ROOT / "artifacts" / "screenshots"
TURN_TIMEOUT_MS = 15_000


def shot(page: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def http(hub: HubProcess, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(hub.url + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def games(hub: HubProcess) -> list[dict[str, Any]]:
    status, got = http(hub, "GET", "/api/games")
    assert status == 200
    return list(got)


def make_room(hub: HubProcess, game: str, seats: int, bots: list[int], **options: Any) -> str:
    status, got = http(hub, "POST", "/api/rooms", {"game": game, "seats": seats, "bots": bots, "options": options})
    assert status == 201, got
    return str(got["room"])


def join(hub: HubProcess, rid: str, name: str, seat: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name}
    if seat is not None:
        body["seat"] = seat
    status, got = http(hub, "POST", f"/api/rooms/{rid}/join", body)
    assert status == 200, got
    return dict(got)


def wait_finished(hub: HubProcess, rid: str, timeout: float = 20) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, info = http(hub, "GET", f"/api/rooms/{rid}")
        assert status == 200, info
        if info["status"] == "finished":
            return dict(info)
        time.sleep(0.1)
    raise AssertionError(f"room {rid} did not finish")


def first_legal(view: dict[str, Any]) -> dict[str, Any] | None:
    legal = view.get("legal") or []
    return dict(legal[0]) if legal else None


def played_out(hub: HubProcess, rid: str, seated: list[dict[str, Any]], timeout: float = 30) -> dict[str, Any]:
    """The seated players (join answers) play their first legal move over their own sockets as fast
    as the hub takes them until the game ends (seconds, where stand-in bots wait for the grace)."""
    players = [Pacer(hub, rid, got["token"], first_legal, every=0.01) for got in seated]
    for p in players:
        p.start()
    try:
        return wait_finished(hub, rid, timeout)
    finally:
        for p in players:
            p.stop()


def served_games(hub: HubProcess) -> list[str]:
    return [g["id"] for g in games(hub)]


def launched(chromium_path: str) -> Iterator[Any]:
    """Debian's Chromium through Playwright, with the flags this machine needs; closed at the end."""
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield b
        b.close()


def browser_serving(chromium_path: str, hub: HubProcess, game: str, name: str) -> Iterator[Any]:
    """A browser for one game's tests: they fail under CI (skip locally) when the hub lacks the game."""
    need(game in served_games(hub), f"the hub serves {name}")
    yield from launched(chromium_path)


@pytest.fixture(scope="module")
def browser(chromium_path: str, hub: HubProcess) -> Iterator[Any]:
    yield from launched(chromium_path)


class Watched:
    """A page whose script errors fail the test: a broken client must not pass by luck."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def check(self) -> None:
        assert not self.errors, f"script errors in the page: {self.errors}"


def new_page(browser: Any, width: int = 1100, height: int = 900, *, seat: tuple[str, dict[str, Any]] | None = None,
             init: str | None = None, **context: Any) -> Watched:
    """A fresh browser context (its own storage); seat=(rid, join answer) puts that seat's token in the tab."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, **context)
    if seat is not None:
        rid, got = seat
        held = json.dumps(json.dumps({"seat": got["seat"], "token": got["token"]}))
        ctx.add_init_script(f"sessionStorage.setItem('hub.seat.{rid}', {held})")
    if init:
        ctx.add_init_script(init)
    return Watched(ctx.new_page())


def seq(page: Any) -> int:
    raw = page.get_by_test_id("board").get_attribute("data-seq")
    return int(raw) if raw and raw.lstrip("-").isdigit() else -1


def finished(page: Any) -> bool:
    return bool(page.locator("[data-testid=result]:visible").count())


LEGAL = "[data-testid=board] [data-legal=true]"


def wait_for_turn(page: Any, timeout: int = TURN_TIMEOUT_MS, legal: str = LEGAL) -> bool:
    """Wait until the board offers a legal choice (`legal` selects them) or the game is over; True
    while the game goes on."""
    page.wait_for_function(
        f"""() => document.querySelector('{legal}')
               || !document.querySelector('[data-testid=result]').hidden""",
        timeout=timeout,
    )
    return not finished(page)


def play_move(page: Any, rng: random.Random, clicks: int = 12, legal: str = LEGAL,
              prefer: tuple[str, ...] = ()) -> None:
    """One move of any game's table: click legal things until the view moves on.

    A move may take several clicks (a card, then where it goes): each click of something marked
    legal either sends an action (the board is busy until the hub answers) or narrows the choice,
    which redraws the legal things at once. `prefer`: selectors (within `legal`) tried in turn
    before any legal thing, so that a chosen card goes somewhere rather than being chosen again.
    """
    before = seq(page)
    signature = (f"() => [...document.querySelectorAll('{legal}')]"
                 ".map((e) => e.outerHTML).join()")
    for _ in range(clicks):
        choices = page.locator(f"{legal}:visible")
        for first in prefer:
            preferred = page.locator(f"{legal}{first}:visible")
            if preferred.count():
                choices = preferred
                break
        if not choices.count():
            page.wait_for_timeout(100)
        else:
            old = page.evaluate(signature)
            choices.nth(rng.randrange(choices.count())).click()
            page.wait_for_function(
                f"""(old) => Number(document.querySelector('[data-testid=board]').dataset.seq) > {before}
                    || (!document.querySelector('[data-testid=board]').classList.contains('busy')
                        && ({signature})() !== old)""", arg=old, timeout=TURN_TIMEOUT_MS)
        if seq(page) > before:
            return
    raise AssertionError("no sequence of legal clicks moved the game on")


class Pacer(threading.Thread):
    """A seat played over its own websocket by the test: it takes what `choose` picks from its legal
    list every `every` seconds (none when `choose` gives None), so deltas reach every other seat at a
    pace the test sets. `moves` counts the acts the hub answered."""

    def __init__(self, hub: HubProcess, rid: str, token: str, choose: Any, every: float = 0.15) -> None:
        super().__init__(daemon=True)
        self.url = hub.url.replace("http://", "ws://") + "/ws"
        self.rid, self.token, self.choose, self.every = rid, token, choose, every
        self.view: dict[str, Any] | None = None
        self.seq: int | None = None
        self.moves = 0
        self.errors: list[Any] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        with connect(self.url, subprotocols=["msgpack"], max_size=None, compression=None,  # type: ignore[list-item]
                     open_timeout=10) as ws:
            ws.send(msgpack.packb({"t": "hello", "room": self.rid, "token": self.token}))
            next_at = time.monotonic()
            sent = 0
            while not self.stopping.is_set():
                try:
                    data = ws.recv(0.02)
                except TimeoutError:
                    data = None
                if data is not None:
                    f = msgpack.unpackb(data, raw=False)
                    if f["t"] == "welcome":
                        self.view, self.seq = f["view"], f["seq"]
                    elif f["t"] == "delta":
                        self.view = jsonpatch.apply_patch(self.view, f["ops"])
                        self.seq = f["seq"]
                    elif f["t"] == "ping":
                        ws.send(msgpack.packb({"t": "pong", "id": f["id"]}))
                    elif f["t"] == "ack":
                        self.moves += 1
                    elif f["t"] == "error":
                        self.errors.append(f)
                if self.view is not None and time.monotonic() >= next_at:
                    action = self.choose(self.view)
                    if action is not None:
                        sent += 1
                        ws.send(msgpack.packb({"t": "act", "id": sent, "action": action, "seq": self.seq}))
                    next_at = time.monotonic() + self.every

    def stop(self) -> None:
        self.stopping.set()
        self.join(10)


def view_of(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("() => window.hubDebug.connection.view"))


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
