"""Live play in a real Chromium: resuming after a reload, a spectator following, deadlines, accessibility."""
from __future__ import annotations

import random
import re
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web import client_kit as kit

pytestmark = pytest.mark.browser
expect = kit.expect
browser = kit.browser  # the module's Chromium


def without_deadline(view: dict[str, Any]) -> str:
    return kit.canonical({k: v for k, v in view.items() if k != "deadline"})


def test_a_reload_mid_game_resumes_the_seat(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 2, [1])
    got = kit.join(hub, rid, "Reloader", 0)
    w = kit.new_page(browser, seat=(rid, got))
    page = w.page
    page.goto(f"{hub.url}/#/room/{rid}")
    rng = random.Random(1)
    for _ in range(3):
        assert kit.wait_for_turn(page)
        kit.play_move(page, rng)
    assert kit.wait_for_turn(page)
    # The bot waits for this seat now, so nothing moves while the page reloads.
    before = kit.view_of(page)
    seq_before = page.evaluate("() => window.hubDebug.connection.seq")
    page.reload()
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    expect(page.get_by_test_id("net")).to_have_attribute("data-state", "connected")
    page.wait_for_function("() => window.hubDebug.connection.view !== null")
    # the welcome may come before the delta that shows this seat here again (the drop's "away" is
    # the view it welcomes with): the same moment is the one where the seat is back
    page.wait_for_function("() => (window.hubDebug.connection.view.players || [])"
                           ".some((p) => p.seat === 0 && p.presence === 'here')", timeout=10_000)
    assert without_deadline(kit.view_of(page)) == without_deadline(before), "the same seat, game and moment"
    # the seat's own stream goes on: the reload showed the seat away, then here again (two deltas)
    assert page.evaluate("() => window.hubDebug.connection.seq") >= seq_before, "the seat's own stream goes on"
    assert kit.wait_for_turn(page)
    kit.play_move(page, rng)
    w.check()


def test_a_spectator_window_follows_the_game(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 2, [1])
    got = kit.join(hub, rid, "Player", 0)
    player = kit.new_page(browser, seat=(rid, got))
    page = player.page
    page.goto(f"{hub.url}/#/room/{rid}")
    watcher = kit.new_page(browser, width=390, height=844)
    spec = watcher.page
    spec.goto(f"{hub.url}/#/room/{rid}/watch")
    expect(spec.get_by_test_id("spectator-badge")).to_be_visible()
    # the badge shows before the welcome: wait for the spectator's first view before reading its seq
    spec.wait_for_function("() => window.hubDebug.connection.seq !== null")
    rng = random.Random(2)
    assert kit.wait_for_turn(page)
    for _ in range(4):
        seen = spec.evaluate("() => window.hubDebug.connection.seq")
        kit.play_move(page, rng)
        # The bot answers at once and then waits for the player: the table is still until then.
        assert kit.wait_for_turn(page)
        # Each move reaches the spectator's window, with the same log as the player's.
        spec.wait_for_function(f"() => window.hubDebug.connection.seq > {seen}")
        spec.wait_for_function(
            "(log) => JSON.stringify(window.hubDebug.connection.view.log) === log",
            arg=page.evaluate("() => JSON.stringify(window.hubDebug.connection.view.log)"))
    view = spec.evaluate("() => window.hubDebug.connection.view")
    assert view["legal"] == [], "a spectator is offered nothing"
    for pond in view["ponds"]:
        for slot in pond:
            assert slot is None or isinstance(slot, int), "a face-down card is null, a face-up one its kind"
    expect(spec.locator("[data-testid=board] [data-legal=true]")).to_have_count(0)
    expect(spec.get_by_test_id("log").locator("li")).not_to_have_count(1)
    # The log reads with names, not seat numbers.
    expect(spec.get_by_test_id("log")).to_contain_text("Player")
    assert spec.evaluate("() => document.documentElement.scrollWidth") <= 390, "the table fits a phone"
    kit.shot(spec, "client-spectator-phone")
    kit.shot(page, "client-player")
    player.check()
    watcher.check()


def test_the_deadline_counts_down_by_the_servers_clock(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 2, [1], decision_seconds=4)
    got = kit.join(hub, rid, "Slow", 0)
    # This browser's clock is ten minutes fast: the countdown must follow the hub's clock anyway.
    skew = "(() => { const real = Date.now; Date.now = () => real() + 600000; })();"
    w = kit.new_page(browser, seat=(rid, got), init=skew)
    page = w.page
    page.goto(f"{hub.url}/#/room/{rid}")
    assert kit.wait_for_turn(page)
    expect(page.get_by_test_id("rtt")).to_have_text(re.compile(r"\d+ ms"))
    deadline = page.get_by_test_id("deadline")
    expect(deadline).to_have_text(re.compile(r"◷ [1-4] s left"))
    # read with room to count down: from 1 the next value is the default move's fresh 4 (a slow page
    # on a loaded machine first read it at 1, and waited in vain for less)
    page.wait_for_function("() => Number(document.querySelector('[data-testid=deadline]').dataset.left) >= 2")
    first = int(deadline.get_attribute("data-left") or 0)
    page.wait_for_function(f"() => Number(document.querySelector('[data-testid=deadline]').dataset.left) < {first}")
    # Nobody moves: at the deadline the hub plays the default move, and the page shows it.
    before = kit.seq(page)
    page.wait_for_function(f"() => Number(document.querySelector('[data-testid=board]').dataset.seq) > {before}",
                           timeout=8000)
    expect(page.get_by_test_id("log")).to_contain_text("Slow")
    w.check()


def test_turns_are_announced_and_everything_clickable_takes_the_keyboard(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 2, [1])
    got = kit.join(hub, rid, "Keys", 0)
    w = kit.new_page(browser, seat=(rid, got))
    page = w.page
    page.goto(f"{hub.url}/#/room/{rid}")
    assert kit.wait_for_turn(page)
    expect(page.get_by_test_id("announce")).to_have_text(re.compile(r"^Your turn: "))
    expect(page.get_by_test_id("turn")).to_have_text("▶ Your turn.")
    assert page.title().startswith("▶ Your turn")
    # Everything marked legal is a button (or focusable with a role), so Tab and Enter reach it.
    bad = page.evaluate("""() => [...document.querySelectorAll('[data-legal=true]')]
        .filter((e) => e.tagName !== 'BUTTON' && !(e.tabIndex >= 0 && e.getAttribute('role')))
        .map((e) => e.outerHTML.slice(0, 80))""")
    assert bad == []
    # The player list shows every seat's colour with its symbol and name.
    marks = page.get_by_test_id("players").get_by_test_id("seat-mark")
    expect(marks).to_have_count(2)
    assert [marks.nth(i).get_attribute("aria-label") for i in range(2)] == ["Pink heart", "Yellow star"]
    assert marks.nth(0).evaluate("(e) => getComputedStyle(e).backgroundColor") == "rgb(214, 64, 159)", "drawn in pink"
    # Focus is visible: the focused element draws an outline.
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement && document.activeElement.dataset.legal === 'true'"):
            break
    else:
        pytest.fail("no legal choice could be reached with Tab")
    style = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert style not in ("", "none"), "the focused choice is outlined"
    before = kit.seq(page)
    said = int(page.get_by_test_id("announce").get_attribute("data-count") or 0)
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => Number(document.querySelector('[data-testid=board]').dataset.seq) > {before}")
    # The turn passes to the bot and back: announced again.
    assert kit.wait_for_turn(page)
    page.wait_for_function(f"() => Number(document.getElementById('announce').dataset.count) > {said}")
    expect(page.get_by_test_id("announce")).to_have_text(re.compile(r"^Your turn: "))
    w.check()
