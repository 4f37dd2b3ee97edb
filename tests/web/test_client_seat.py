"""A seat follows the browser, not the tab, in a real Chromium: a player who closes the tab, or the
browser, and opens the room's link again is back in their seat; another tab takes the seat over as
a reconnect does; a spectator page of a room where this browser holds a seat offers it back at once;
and a player who comes back to a finished game after the others started the next one still finds
their seat there (a hub of its own: a short grace, so that stand-ins play for absent players)."""
from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web import client_kit as kit

pytestmark = pytest.mark.browser
expect = kit.expect


@pytest.fixture(scope="module")
def hub() -> Iterator[HubProcess]:
    h = HubProcess("--grace-s", "2", "--bot-delay-ms", "0", "--rooms-per-ip-per-min", "0",
                   "--verify-deltas").start()
    yield h
    h.stop()


@pytest.fixture(scope="module")
def browser(chromium_path: str, hub: HubProcess) -> Iterator[Any]:
    yield from kit.launched(chromium_path)


def seated_at(page: Any, seat: int) -> None:
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", str(seat))
    expect(page.get_by_test_id("spectator-badge")).to_have_count(0)


def test_reopening_the_link_in_a_new_tab_or_browser_finds_the_seat(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 2, [1], bot_delay_ms=0, decision_seconds=600)
    link = f"{hub.url}/#/room/{rid}"
    ctx = browser.new_context(viewport={"width": 1100, "height": 900})
    first = kit.Watched(ctx.new_page())
    first.page.goto(link)
    first.page.get_by_test_id("join-name").fill("Ann")
    first.page.get_by_test_id("sit-0").click()
    seated_at(first.page, 0)
    first.check()
    first.page.close()  # the tab is closed

    # the shared link opened again in a new tab of the same browser: the seat, not a spectator's view
    again = kit.Watched(ctx.new_page())
    again.page.goto(link)
    seated_at(again.page, 0)
    expect(again.page.get_by_test_id("net")).to_have_attribute("data-state", "connected")

    # a second tab takes the seat over, as a reconnect does; the first is told, and may take it back
    third = kit.Watched(ctx.new_page())
    third.page.goto(link)
    seated_at(third.page, 0)
    banner = again.page.get_by_test_id("banner")
    expect(banner).to_have_attribute("data-code", "4009")
    expect(banner.get_by_role("button", name="Take the seat back here")).to_be_visible()

    # a spectator page of this room offers the seat back at once
    watch = kit.Watched(ctx.new_page())
    watch.page.goto(f"{link}/watch")
    expect(watch.page.get_by_test_id("spectator-badge")).to_be_visible()
    offer = watch.page.get_by_test_id("take-seat-back")
    expect(offer).to_be_visible()
    offer.click()
    watch.page.wait_for_function(f"() => location.hash === '#/room/{rid}'")
    seated_at(watch.page, 0)
    for w in (again, third, watch):
        w.check()

    # the browser closed and started again (its storage kept, as a browser keeps it): still the seat
    state = ctx.storage_state()
    ctx.close()
    ctx = browser.new_context(viewport={"width": 1100, "height": 900}, storage_state=state)
    back = kit.Watched(ctx.new_page())
    back.page.goto(link)
    seated_at(back.page, 0)
    back.check()
    ctx.close()


def remembered(rid: str, got: dict[str, Any], name: str) -> str:
    """A browser that sat at `rid` earlier (its My games), with no tab holding the seat now."""
    games = json.dumps([{"rid": rid, "seat": got["seat"], "token": got["token"], "name": name, "at": 1}])
    return f"localStorage.setItem('hub.games', {json.dumps(games)})"


def test_a_returning_player_finds_the_rematch_seat(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 2, [], bot_delay_ms=0)
    seats = [kit.join(hub, rid, name, s) for s, name in enumerate(("Ann", "Bob"))]
    kit.played_out(hub, rid, seats, timeout=60)  # both play to the end over their own sockets
    ann = kit.new_page(browser, seat=(rid, seats[0]), init=remembered(rid, seats[0], "Ann"))
    ann.page.goto(f"{hub.url}/#/room/{rid}")
    ann.page.get_by_test_id("play-again").click()
    ann.page.wait_for_function(f"() => location.hash.startsWith('#/room/') && !location.hash.includes('{rid}')")
    nxt = ann.page.evaluate("() => location.hash.split('/')[2]")
    seated_at(ann.page, 0)

    # Bob is away past the grace: a stand-in plays his seat of the next game meanwhile
    deadline = time.monotonic() + 20
    while kit.http(hub, "GET", f"/api/rooms/{nxt}")[1]["seats"][1].get("presence") != "bot":
        assert time.monotonic() < deadline, "no stand-in for the absent player"
        time.sleep(0.2)
    # then opens the finished game's link again, in a new tab: his seat, with its "Play again"
    bob = kit.new_page(browser, init=remembered(rid, seats[1], "Bob"))
    bob.page.goto(f"{hub.url}/#/room/{rid}")
    seated_at(bob.page, 1)
    bob.page.get_by_test_id("play-again").click()
    bob.page.wait_for_function(f"() => location.hash === '#/room/{nxt}'")
    seated_at(bob.page, 1)
    expect(bob.page.get_by_test_id("net")).to_have_attribute("data-state", "connected")
    status, info = kit.http(hub, "GET", f"/api/rooms/{nxt}")
    assert status == 200 and [s["name"] for s in info["seats"]] == ["Ann", "Bob"], info
    assert not any(s["bot"] for s in info["seats"]), info

    # the lobby's way on leads to the same seat (a third tab of Bob's browser)
    lobby = bob.page.context.new_page()
    lobby.goto(f"{hub.url}/#/")
    lobby.get_by_test_id(f"next-{rid}").click()
    lobby.wait_for_function(f"() => location.hash === '#/room/{nxt}'")
    seated_at(lobby, 1)
    for w in (ann, bob):
        w.check()
        w.page.context.close()
