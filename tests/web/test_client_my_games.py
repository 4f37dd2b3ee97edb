"""The games a browser played stay with it (no accounts) and lead on to their next games, and finished
games are listed page by page, across a restart of the hub on its database file (the embedded default)."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web import client_kit as kit

pytestmark = pytest.mark.browser
expect = kit.expect
browser = kit.browser  # the module's Chromium


def test_my_games_survive_a_restart_and_finished_games_page_by_page(chromium_path: str, tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite3"
    flags = ("--db", str(db), "--bot-delay-ms", "0", "--rooms-per-ip-per-min", "0", "--finished-ttl-s", "1")
    hub = HubProcess(*flags).start()
    browser_cm = kit.launched(chromium_path)
    browser = next(browser_cm)
    try:
        w = kit.new_page(browser)
        page = w.page
        page.goto(hub.url + "/#/")
        page.get_by_test_id("name").fill("Mira")
        page.get_by_test_id("new-game").select_option("symbiose")
        page.get_by_test_id("new-seats").select_option("2")
        page.get_by_test_id("bot-1").check()
        page.get_by_test_id("create").click()
        page.wait_for_url(re.compile(r".*#/room/[^/]+$"))
        rid = page.url.rsplit("/", 1)[1]
        # finished games of bots, more than one page of the listing
        finished = [kit.make_room(hub, "symbiose", 2, [0, 1], bot_delay_ms=0) for _ in range(12)]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(
                kit.http(hub, "GET", f"/api/rooms/{r}")[1]["status"] != "finished" for r in finished):
            time.sleep(0.2)
        time.sleep(1.5)  # past --finished-ttl-s: they are read from the file now, not from memory
        hub.kill()
        hub = HubProcess(*flags, port=hub.port).start()  # the same origin: the browser's storage is the origin's

        page.goto(hub.url + "/#/")
        mine = page.locator(f"[data-testid=my-game][data-room='{rid}']")
        expect(mine).to_contain_text("Symbiose")
        expect(mine).to_contain_text("playing")
        expect(mine).to_contain_text("seat 0")
        # a fresh tab of the same browser has no seat of its own: "My games" gives it back
        other = w.page.context.new_page()
        other.goto(hub.url + "/#/")
        other.get_by_test_id(f"my-back-{rid}").click()
        other.wait_for_url(re.compile(rf".*#/room/{rid}$"))
        expect(other.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
        # and the tab that held it is told it was taken over, not left playing the same seat
        expect(page.locator("body")).to_be_visible()

        history = page.get_by_test_id("history")
        expect(history.get_by_test_id("finished-game")).to_have_count(10)
        history.get_by_test_id("history-more").click()
        expect(history.get_by_test_id("finished-game")).to_have_count(12)
        expect(history.get_by_test_id("history-more")).to_have_count(0)
        listed = history.get_by_test_id("finished-game").evaluate_all("els => els.map(e => e.dataset.room)")
        assert sorted(listed) == sorted(finished)
        kit.shot(page, "client-my-games")
        history.get_by_test_id(f"history-replay-{finished[0]}").click()
        # a change of the hash is a navigation within the page: the URL is polled for, not a load;
        # once the replay is shown it keeps its step in the address too (#/replay/<rid>/<step>)
        expect(page).to_have_url(re.compile(rf".*#/replay/{finished[0]}(/\d+)?$"))
        expect(page.locator("body")).not_to_contain_text("Could not")
        w.check()
    finally:
        hub.stop()
        for _ in browser_cm:
            pass


def test_a_finished_game_of_mine_leads_to_its_next_game(browser: Any, hub: HubProcess) -> None:
    """Once another player pressed "Play again", My games offers the finished game's next table, in
    my own seat; once I sat there, the same place takes me back to that seat."""
    rid = kit.make_room(hub, "symbiose", 2, [], bot_delay_ms=0)
    ann, bob = kit.join(hub, rid, "Ann", 0), kit.join(hub, rid, "Bob", 1)
    kit.played_out(hub, rid, [ann, bob])
    # this browser sat at seat 0 (remembered as the table remembers it); set once, not on every load
    mine = json.dumps(json.dumps([{"rid": rid, "seat": 0, "token": ann["token"], "name": "Ann", "at": 0}]))
    w = kit.new_page(browser, init=f"if (!localStorage.getItem('hub.games')) localStorage.setItem('hub.games', {mine})")
    page = w.page
    page.goto(hub.url + "/#/")
    entry = page.locator(f"[data-testid=my-game][data-room='{rid}']")
    expect(entry).to_contain_text("finished")
    expect(entry.get_by_test_id(f"my-replay-{rid}")).to_be_visible()
    expect(entry.get_by_test_id(f"my-next-{rid}")).to_have_count(0)  # nobody asked for a next game yet

    status, got = kit.http(hub, "POST", f"/api/rooms/{rid}/again", {"token": bob["token"]})
    assert status == 200, got
    nxt = got["room"]
    page.reload()
    go = entry.get_by_test_id(f"my-next-{rid}")
    expect(go).to_have_text("↻ Play again: join the next table")
    expect(go).to_have_attribute("data-room", nxt)
    # the lobby's list of rooms offers the same where it lists the finished room
    listed = page.locator(f"[data-testid=room][data-room='{rid}']").get_by_test_id(f"next-{rid}")
    expect(listed).to_have_text("↻ Play again: join the next table")
    kit.shot(page, "client-my-games-next")
    go.click()
    page.wait_for_url(re.compile(rf".*#/room/{nxt}$"))
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    info = kit.http(hub, "GET", f"/api/rooms/{nxt}")[1]
    assert [s["name"] for s in info["seats"]] == ["Ann", "Bob"], info

    page.goto(hub.url + "/#/")
    back = entry.get_by_test_id(f"my-next-{rid}")
    expect(back).to_have_text("↻ Back to my seat in the next game")
    back.click()
    page.wait_for_url(re.compile(rf".*#/room/{nxt}$"))
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    w.check()
    page.context.close()
