"""Replays in a real Chromium: a finished game, move by move, forward and back, as a spectator saw it."""
from __future__ import annotations

import copy
import json
import re
import time
from typing import Any

import jsonpatch
import pytest

from tests.conftest import HubProcess
from tests.web import client_kit as kit
from tests.words_kit import words

pytestmark = pytest.mark.browser
expect = kit.expect
browser = kit.browser  # the module's Chromium


def replay_views(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The views the page must show, computed here independently of the page."""
    views = [data["view"]]
    for step in data["steps"]:
        views.append(jsonpatch.apply_patch(copy.deepcopy(views[-1]), step["ops"]))
    assert kit.canonical(views[-1]) == kit.canonical(data["final"]), "the hub's replay ends at its final view"
    return views


def shown(page: Any) -> tuple[int, str]:
    got = page.evaluate("() => [window.hubDebug.replay.index, JSON.stringify(window.hubDebug.frame.view)]")
    return int(got[0]), kit.canonical(json.loads(got[1]))


def test_a_finished_game_steps_forward_and_back(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 3, [0, 1, 2])
    kit.wait_finished(hub, rid)
    status, data = kit.http(hub, "GET", f"/api/rooms/{rid}/replay")
    assert status == 200
    views = replay_views(data)
    last = len(views) - 1
    assert last >= 24, "three seats play 8 turns each"

    w = kit.new_page(browser)
    page = w.page
    page.goto(f"{hub.url}/#/replay/{rid}")
    expect(page.get_by_test_id("replay-step")).to_have_text(f"Move 0 of {last}")
    assert shown(page) == (0, kit.canonical(views[0]))
    assert page.evaluate("() => window.hubDebug.replay.matchesFinal") is True
    # As a spectator sees it, and nothing on the board can be clicked.
    expect(page.get_by_test_id("replay-badge")).to_be_visible()
    expect(page.get_by_test_id("result")).to_be_hidden()
    expect(page.locator("[data-testid=board] button")).to_have_count(0)
    expect(page.get_by_test_id("replay-back")).to_be_disabled()
    kit.shot(page, "client-replay-start")

    # Forward by the button and by the keyboard.
    page.get_by_test_id("replay-next").click()
    assert shown(page) == (1, kit.canonical(views[1]))
    expect(page.get_by_test_id("replay-caption")).to_contain_text("Move 1")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert shown(page) == (3, kit.canonical(views[3]))
    page.keyboard.press("ArrowLeft")
    assert shown(page) == (2, kit.canonical(views[2]))

    # Forward to the end is the final view; back one step is the one before.
    page.keyboard.press("End")
    expect(page.get_by_test_id("replay-step")).to_have_text(f"Move {last} of {last}")
    assert shown(page) == (last, kit.canonical(data["final"]))
    expect(page.get_by_test_id("result")).to_be_visible()
    expect(page.get_by_test_id("replay-next")).to_be_disabled()
    expect(page.locator("[data-testid=board] button")).to_have_count(0)
    kit.shot(page, "client-replay-end")
    page.keyboard.press("ArrowLeft")
    assert shown(page) == (last - 1, kit.canonical(views[last - 1]))
    expect(page.get_by_test_id("result")).to_be_hidden()
    page.get_by_test_id("replay-next").click()
    assert shown(page) == (last, kit.canonical(views[last]))

    # The slider goes anywhere; the move is kept in the address, so a reload comes back to it.
    page.get_by_test_id("replay-slider").fill("5")
    assert shown(page) == (5, kit.canonical(views[5]))
    assert page.url.endswith(f"#/replay/{rid}/5")
    page.reload()
    expect(page.get_by_test_id("replay-step")).to_have_text(f"Move 5 of {last}")
    assert shown(page) == (5, kit.canonical(views[5]))
    page.keyboard.press("Home")
    assert shown(page)[0] == 0

    # Play runs forward by itself; any step control pauses it.
    page.get_by_test_id("replay-play").click()
    page.wait_for_function("() => window.hubDebug.replay.index >= 2", timeout=5000)
    page.get_by_test_id("replay-back").click()
    at = shown(page)[0]
    page.wait_for_timeout(1200)
    assert shown(page)[0] == at, "paused"
    w.check()


def test_the_final_scoring_is_revealed_step_by_step(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 2, [0, 1])
    info = kit.wait_finished(hub, rid)
    w = kit.new_page(browser, width=390, height=844)
    page = w.page
    page.goto(f"{hub.url}/#/replay/{rid}")
    expect(page.get_by_test_id("replay-step")).to_have_text(re.compile(r"Move 0 of \d+"))
    page.keyboard.press("End")
    table = page.get_by_test_id("result-scores")
    expect(table).to_be_visible()
    steps = int(table.get_attribute("data-steps") or 0)
    assert steps >= 2, "the module's steps and then the totals"
    expect(table.locator("tbody tr:visible")).to_have_count(1)
    kit.shot(page, "client-scoring-step-1-phone")
    # Keyboard: the Next button takes Enter, one row at a time, and keeps the focus as it redraws.
    page.get_by_test_id("score-next").focus()
    for n in range(2, steps + 1):
        page.keyboard.press("Enter")
        expect(table.locator("tbody tr:visible")).to_have_count(n)
        if n < steps:
            expect(page.get_by_test_id("score-next")).to_be_focused()
    expect(page.get_by_test_id("score-next")).to_be_disabled()
    expect(page.get_by_test_id("result")).to_be_focused()
    total = table.locator("tbody tr.total")
    expect(total).to_be_visible()
    for seat, points in enumerate(info["result"]["scores"]):
        expect(total.locator("td").nth(seat)).to_contain_text(str(points))
    # Each column's points add up to the total, step after step.
    running = table.locator("tbody tr:not(.total)").last.locator("small.running")
    for seat, points in enumerate(info["result"]["scores"]):
        expect(running.nth(seat)).to_have_text(f"= {points}")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390, "the replay fits a phone"
    kit.shot(page, "client-scoring-all-phone")
    w.check()


def test_a_game_still_playing_or_gone_has_no_replay(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 2, [])
    w = kit.new_page(browser)
    page = w.page
    page.goto(f"{hub.url}/#/replay/{rid}")
    expect(page.get_by_test_id("replay-error")).to_have_attribute("data-status", "409")
    page.get_by_role("link", name=re.compile("Watch it live")).click()
    expect(page.get_by_test_id("spectator-badge")).to_be_visible()
    page.goto(f"{hub.url}/#/replay/no-such-room")
    expect(page.get_by_test_id("replay-error")).to_have_attribute("data-status", "404")
    w.check()


def test_every_game_that_finishes_replays_to_its_final_view(browser: Any, hub: HubProcess) -> None:
    """Each game's replay, drawn by its own module (or the generic one), ends at the hub's final view."""
    rooms = {}
    for game in kit.games(hub):
        n = game["min_players"]
        rooms[game["id"]] = kit.make_room(hub, game["id"], n, list(range(n)))
    # A game whose bots cannot end it alone (a contest waiting on the hub) is left out.
    finished: list[str] = []
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline and len(finished) < len(rooms):
        finished = [gid for gid, rid in rooms.items()
                    if kit.http(hub, "GET", f"/api/rooms/{rid}")[1]["status"] == "finished"]
        time.sleep(0.2)
    for gid in finished:
        rid = rooms[gid]
        status, data = kit.http(hub, "GET", f"/api/rooms/{rid}/replay")
        assert status == 200
        views = replay_views(data)
        w = kit.new_page(browser)
        page = w.page
        page.goto(f"{hub.url}/#/replay/{rid}")
        expect(page.get_by_test_id("replay-step")).to_have_text(f"Move 0 of {len(views) - 1}")
        page.keyboard.press("End")
        assert shown(page) == (len(views) - 1, kit.canonical(data["final"])), gid
        # One end screen: the scoring step by step where the game has steps worth watching (then the
        # totals end it), else the final table at once; a final table in any case where there are no steps.
        expect(page.get_by_test_id("result")).to_be_visible()
        steps = page.get_by_test_id("result-scores")
        if steps.count():
            page.get_by_test_id("score-all").click()
            expect(steps.locator("tbody tr:visible")).to_have_count(int(steps.get_attribute("data-steps") or 0))
        else:
            expect(page.get_by_test_id("result").locator("table")).not_to_have_count(0)
        kit.shot(page, f"client-replay-{gid}-end")
        page.keyboard.press("ArrowLeft")
        assert shown(page) == (len(views) - 2, kit.canonical(views[-2])), gid
        w.check()
        page.context.close()
    assert "symbiose" in finished


def new_lines(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The log lines a step added: the views carry the last lines and where they start (log_from)."""
    added = after["log_from"] + len(after["log"]) - before["log_from"] - len(before["log"])
    return list(after["log"][len(after["log"]) - added:]) if added > 0 else []


def test_a_caption_names_every_log_line_of_its_step(browser: Any, hub: HubProcess) -> None:
    """A Frenzy Falls move that also revealed cards and spilled a Pool says all of it, in the moves' words."""
    # Bots play with a seed of their own: a game whose longest step spilled nothing is set aside
    # for another (a spill among three lines or more is in nearly every game; five is the bound).
    for _ in range(5):
        rid = kit.make_room(hub, "frenzy_falls", 2, [0, 1])
        kit.wait_finished(hub, rid)
        status, data = kit.http(hub, "GET", f"/api/rooms/{rid}/replay")
        assert status == 200
        views = replay_views(data)
        added = [new_lines(views[i - 1], views[i]) for i in range(1, len(views))]
        spilled = [i for i, a in enumerate(added) if len(a) >= 3 and any(entry[0] == "spills" for entry in a)]
        if spilled:
            break
    assert spilled, "five games without a move that spilled a Pool among three log lines or more"
    step = 1 + max(spilled, key=lambda i: len(added[i]))
    lines = added[step - 1]
    names = [p["name"] for p in views[step]["players"]]
    said = words("frenzy_falls", lines, names)

    w = kit.new_page(browser)
    page = w.page
    page.goto(f"{hub.url}/#/replay/{rid}/{step}")
    caption = page.get_by_test_id("replay-caption")
    expect(caption).to_contain_text(f"Move {step}, ")
    items = caption.locator("li")
    expect(items).to_have_count(len(lines))
    for i, line in enumerate(lines):
        shown_text = items.nth(i).inner_text()
        # The entry's own words, each player by name (with their deck's badge before it).
        text = said[i]
        assert text, line
        for word in text.split():
            assert word in shown_text, (word, line, shown_text)
    # A plain step (one card played) says its one line.
    one = next(i for i, a in enumerate(added, 1) if len(a) == 1)
    page.goto(f"{hub.url}/#/replay/{rid}/{one}")
    expect(page.get_by_test_id("replay-caption").locator("li")).to_have_count(1)
    kit.shot(page, "client-replay-caption")
    w.check()
