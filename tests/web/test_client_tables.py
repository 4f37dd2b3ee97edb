"""Every game the hub serves, at its table against bots, in a real Chromium: one screenshot each.

Each game's own browser test plays it through; this one checks that every registered game opens in
the shared frame with its own module (title, rules summary, board), for a player and for a
spectator on a phone, and keeps a picture of each.
"""
from __future__ import annotations

import contextlib
from typing import Any

import pytest

from tests.conftest import ROOT, HubProcess
from tests.web import client_kit as kit

pytestmark = pytest.mark.browser
expect = kit.expect
browser = kit.browser  # the module's Chromium


def test_every_registered_game_opens_its_table(browser: Any, hub: HubProcess) -> None:
    served = kit.games(hub)
    assert served, "the hub serves games"
    for game in served:
        gid = game["id"]
        n = game["min_players"]
        rid = kit.make_room(hub, gid, n, list(range(1, n)))
        got = kit.join(hub, rid, "Newcomer", 0)
        player = kit.new_page(browser, seat=(rid, got))
        page = player.page
        page.goto(f"{hub.url}/#/room/{rid}")
        expect(page.get_by_test_id("board")).to_have_attribute("data-game", gid)
        expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
        expect(page.get_by_test_id("players").locator("li")).to_have_count(n)
        has_module = (ROOT / "web" / "games" / f"{gid}.js").exists()
        mod = page.evaluate("() => ({id: window.hubDebug.frame.mod.id, summary: !!window.hubDebug.frame.mod.summary})")
        if has_module:
            assert mod == {"id": gid, "summary": True}, f"{gid}: its own module, with a rules summary"
            expect(page.get_by_test_id("how-to")).to_be_visible()
        # Seat colours: the game's own where its view names them, else the frame's, each with a symbol.
        view = kit.view_of(page)
        marks = page.get_by_test_id("players").get_by_test_id("seat-mark")
        expect(marks).to_have_count(n)
        for i, p in enumerate(view["players"]):
            if isinstance(p.get("colour"), str):
                assert (marks.nth(i).get_attribute("data-colour") or "").lower() == p["colour"].lower()
            assert (marks.nth(i).text_content() or "").strip(), "every colour has its symbol"
        expect(page.get_by_test_id("phase")).not_to_have_text("")
        expect(page.get_by_test_id("turn")).not_to_have_text("")
        # Against bots at full speed the first choice is soon this seat's, for a livelier picture; but
        # a bot's first move may open a contest, which waits on the hub's contest runner.
        with contextlib.suppress(kit.sync_api.TimeoutError):
            kit.wait_for_turn(page, timeout=3000)
        kit.shot(page, f"client-table-{gid}")

        watcher = kit.new_page(browser, width=390, height=844)
        spec = watcher.page
        spec.goto(f"{hub.url}/#/room/{rid}/watch")
        expect(spec.get_by_test_id("spectator-badge")).to_be_visible()
        expect(spec.get_by_test_id("board")).to_have_attribute("data-game", gid)
        expect(spec.locator("[data-testid=board] [data-legal=true]")).to_have_count(0)
        assert spec.evaluate("() => document.documentElement.scrollWidth") <= 390, f"{gid}: the table fits a phone"
        kit.shot(spec, f"client-table-{gid}-spectator-phone")
        player.check()
        watcher.check()
        page.context.close()
        spec.context.close()
