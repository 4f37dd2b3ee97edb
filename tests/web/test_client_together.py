"""Playing together in a real Chromium: play again, the page that tells you the network is gone, and
opt-in notices (a hub of its own: a short grace, so that stand-ins come quickly)."""
from __future__ import annotations

import random
import re
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
    h = HubProcess("--grace-s", "3", "--bot-delay-ms", "0", "--rooms-per-ip-per-min", "0",
                   "--ping-interval-s", "0.5", "--verify-deltas").start()
    yield h
    h.stop()


@pytest.fixture(scope="module")
def browser(chromium_path: str, hub: HubProcess) -> Iterator[Any]:
    yield from kit.launched(chromium_path)


def test_play_again_seats_both_players_in_a_new_room(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 2, [], bot_delay_ms=0)
    seats = [kit.join(hub, rid, name, s) for s, name in enumerate(("Ann", "Bob"))]
    kit.played_out(hub, rid, seats, timeout=60)  # both play to the end over their own sockets
    pages = [kit.new_page(browser, seat=(rid, got)) for got in seats]
    watcher = kit.new_page(browser)
    for w in pages:
        w.page.goto(f"{hub.url}/#/room/{rid}")
        expect(w.page.get_by_test_id("play-again")).to_be_visible()
    watcher.page.goto(f"{hub.url}/#/room/{rid}/watch")
    expect(watcher.page.get_by_test_id("result")).to_be_visible()
    expect(watcher.page.get_by_test_id("play-again")).to_have_count(0)  # a spectator has no seat to keep

    ann, bob = pages[0].page, pages[1].page
    ann.get_by_test_id("play-again").click()
    ann.wait_for_function(f"() => location.hash.startsWith('#/room/') && !location.hash.includes('{rid}')")
    nxt = ann.evaluate("() => location.hash.split('/')[2]")
    expect(ann.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    # Bob is told the others are in, and joins the same room in his own seat
    expect(bob.get_by_test_id("play-again-waiting")).to_be_visible()
    bob.get_by_test_id("play-again").click()
    bob.wait_for_function(f"() => location.hash === '#/room/{nxt}'")
    expect(bob.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "1")
    # the spectator is offered to follow
    follow = watcher.page.get_by_test_id("follow-next")
    expect(follow).to_be_visible()
    follow.click()
    expect(watcher.page.get_by_test_id("spectator-badge")).to_be_visible()
    assert nxt in watcher.page.url

    status, info = kit.http(hub, "GET", f"/api/rooms/{nxt}")
    assert status == 200 and info["status"] == "playing", info
    assert [s["name"] for s in info["seats"]] == ["Ann", "Bob"]
    assert not any(s["bot"] for s in info["seats"])
    assert kit.http(hub, "GET", f"/api/rooms/{rid}")[1]["next_room"] == nxt
    for w in (*pages, watcher):
        expect(w.page.get_by_test_id("net")).to_have_attribute("data-state", "connected")
        w.check()
        w.page.context.close()


def wait(what: Any, timeout: float = 10) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = what()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_an_offline_spell_shows_reconnecting_and_the_queued_move_completes(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 2, [1], bot_delay_ms=0)
    got = kit.join(hub, rid, "Offline", 0)
    w = kit.new_page(browser, seat=(rid, got))
    page = w.page
    page.goto(f"{hub.url}/#/room/{rid}")
    net = page.get_by_test_id("net")
    assert kit.wait_for_turn(page)
    expect(net).to_have_attribute("data-state", "connected")
    before = kit.seq(page)

    page.context.set_offline(True)
    expect(net).to_have_attribute("data-state", "reconnecting", timeout=2000)
    expect(net).to_contain_text("reconnecting…")
    # a move made while away: it waits, and says so
    for _ in range(12):
        choices = page.locator("[data-testid=board] [data-legal=true]:visible")
        choices.nth(0).click()
        if page.locator("[data-testid=board].busy").count():
            break
    expect(page.get_by_test_id("move-status")).to_have_attribute("data-state", "held")
    expect(page.get_by_test_id("move-status")).to_contain_text("held: sent when the hub is back")
    page.wait_for_timeout(1500)
    assert kit.seq(page) == before, "nothing reached the hub while offline"
    expect(net).to_have_attribute("data-state", "reconnecting")

    page.context.set_offline(False)
    expect(net).to_have_attribute("data-state", "connected")
    expect(page.get_by_test_id("move-status")).to_have_count(0)  # acked
    page.wait_for_function(f"() => Number(document.querySelector('[data-testid=board]').dataset.seq) > {before}")
    assert kit.view_of(page)["log"], "the move was applied"
    w.check()
    page.context.close()


def test_a_silent_socket_is_noticed_within_two_seconds(browser: Any, hub: HubProcess) -> None:
    """No offline event, only silence: frames stop arriving (the page stops reading them)."""
    rid = kit.make_room(hub, "symbiose", 2, [1], bot_delay_ms=0)
    got = kit.join(hub, rid, "Silent", 0)
    w = kit.new_page(browser, seat=(rid, got))
    page = w.page
    page.goto(f"{hub.url}/#/room/{rid}")
    net = page.get_by_test_id("net")
    expect(net).to_have_attribute("data-state", "connected")
    # the socket stays open but nothing more arrives from it (a dead path that has not closed)
    page.evaluate("""() => {
      const conn = window.hubDebug.connection;
      window.states = [];
      conn.on("status", ({ state }) => window.states.push([state, performance.now()]));
      window.silentFrom = performance.now();
      conn.ws.onmessage = null;
    }""")
    page.wait_for_function("() => window.states.some(([s]) => s === 'reconnecting')", timeout=5000)
    took = page.evaluate("() => window.states.find(([s]) => s === 'reconnecting')[1] - window.silentFrom")
    print(f"a silent socket was noticed after {took:.0f} ms")
    expect(net).to_have_attribute("data-state", "connected")  # a new socket, resumed
    assert page.evaluate("() => window.hubDebug.connection.stats.resumed") >= 1
    w.check()
    page.context.close()


def test_an_outage_is_said_over_the_board_with_clocks_stopped_and_presence_unknown(browser: Any,
                                                                                 hub: HubProcess) -> None:
    """Two players; one loses the connection: the table says so over the board, its turn clock stands
    still and the other player's presence is not known (a move made meanwhile is marked held: the
    test above); on return the hub's clock, which ran on, and presence come back."""
    rid = kit.make_room(hub, "symbiose", 2, [], bot_delay_ms=0, decision_seconds=120)
    seats = [kit.join(hub, rid, name, s) for s, name in enumerate(("Ann", "Bob"))]
    ann, bob = (kit.new_page(browser, seat=(rid, got)) for got in seats)
    for w in (ann, bob):
        w.page.goto(f"{hub.url}/#/room/{rid}")
        expect(w.page.get_by_test_id("net")).to_have_attribute("data-state", "connected")
    page = ann.page
    assert kit.wait_for_turn(page)
    expect(page.get_by_test_id("presence-1")).to_have_attribute("data-presence", "here")
    expect(page.get_by_test_id("outage")).to_have_count(0)
    clock = page.get_by_test_id("deadline")
    expect(clock).to_have_attribute("data-left", re.compile(r"\d+"))

    page.context.set_offline(True)
    outage = page.get_by_test_id("outage")
    expect(outage).to_be_visible(timeout=3000)
    expect(outage).to_contain_text("connection to the hub is lost")
    expect(page.get_by_test_id("turn")).not_to_contain_text("Your turn")
    expect(page.get_by_test_id("presence-1")).to_have_attribute("data-presence", "unknown")
    frozen = clock.get_attribute("data-left")
    page.wait_for_timeout(2500)
    assert clock.get_attribute("data-left") == frozen, "the clock stands still while the hub is away"
    kit.shot(page, "client-outage")

    page.context.set_offline(False)
    expect(page.get_by_test_id("net")).to_have_attribute("data-state", "connected")
    expect(outage).to_have_count(0)
    expect(page.get_by_test_id("presence-1")).to_have_attribute("data-presence", "here")
    # the hub's clock ran on meanwhile: the table takes it, not its own (as soon as its estimate of
    # the hub's time has a round trip again: on a loaded machine the first one back may be slow)
    page.wait_for_function("(f) => Number(document.querySelector('[data-testid=deadline]').dataset.left) < f",
                           arg=int(frozen or "0"), timeout=10_000)
    for w in (ann, bob):
        w.check()
        w.page.context.close()


def test_moves_a_bot_made_for_an_absent_player_are_marked(browser: Any, hub: HubProcess) -> None:
    """Ben joined and never came: while Ann plays, a stand-in plays his seat. The table counts those
    moves on his seat and marks each line of the Moves log they wrote, the end screen does not
    credit him silently, and the replay's captions say which moves a bot made for him."""
    rid = kit.make_room(hub, "symbiose", 2, [], bot_delay_ms=0)
    ann = kit.join(hub, rid, "Ann", 0)
    kit.join(hub, rid, "Ben", 1)
    w = kit.new_page(browser, seat=(rid, ann))
    page = w.page
    page.goto(f"{hub.url}/#/room/{rid}")
    rng = random.Random(3)
    while kit.wait_for_turn(page, timeout=30_000):
        kit.play_move(page, rng)
    marked = page.get_by_test_id("stood-in-1")
    expect(marked).to_contain_text("made by a bot for them")
    count = kit.view_of(page)["players"][1]["stood_in"]
    assert count >= 1
    expect(marked).to_contain_text(f"{count} move")
    # the very lines of the Moves log that the stand-in's moves wrote say so, in Ben's name
    marks = kit.view_of(page).get("log_stood_in") or []
    assert marks, "the view marks the log entries a stand-in wrote"
    lines = page.locator("[data-testid=log] li[data-stood-in=true]")
    expect(lines).to_have_count(len(marks))
    for i in range(len(marks)):
        expect(lines.nth(i)).to_contain_text("⚙")
        expect(lines.nth(i)).to_contain_text("Ben")
    expect(page.locator("[data-testid=log] li:not([data-stood-in])").filter(has_text="Ben")).to_have_count(0)
    result = kit.view_of(page)["result"]
    if 1 in result["winners"]:
        expect(page.get_by_test_id("result-headline")).to_contain_text(f"A bot made {count} of Ben’s moves")
    else:
        expect(page.get_by_test_id("result-headline")).not_to_contain_text("A bot made")
    status, replay = kit.http(hub, "GET", f"/api/rooms/{rid}/replay")
    assert status == 200
    step = 1 + next(i for i, st in enumerate(replay["steps"]) if st.get("by") == "stand_in")
    page.goto(f"{hub.url}/#/replay/{rid}/{step}")
    expect(page.get_by_test_id("replay-caption")).to_contain_text(f"Move {step}, A bot for Ben (away)")
    w.check()
    page.context.close()
