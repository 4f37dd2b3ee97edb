"""The end of a game as a player finds it, for every game whose bots finish alone: one end screen, one
log, and the moves naming people.

The end screen holds the headline, the scoring step by step only where the game gives steps, one
final table, and the replay; the board keeps no final standings of its own. The Moves panel is the
only log, newest first, and names players (with their deck or colour as a badge), never a deck or a
colour in their place.
"""
from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web import client_kit as kit

pytestmark = pytest.mark.browser
expect = kit.expect
browser = kit.browser  # the module's Chromium

#: What a player was called in place of their name, per game: the subject of a move.
STAND_INS = {
    "frenzy_falls": re.compile(r"\b(Mountain|Glacier|Desert|Forest|Coastal|Tropical) "
                               r"(plays|reveals|discards|moves|wins|replaces|bumps|pulls|gives)\b"),
    "waterfall_park": re.compile(r"\b(Pink|Yellow|Blue|Green|Red) (gives|takes|reveals|is|has|builds|accepts|declines|"
                                 r"withdraws|negotiates|moves)\b"),
}
BADGES = {"frenzy_falls": ".ff-badge", "waterfall_park": ".wp-badge"}
#: The tables a game's board drew at the end besides the end screen, before there was one.
OLD_FINALS = "[data-testid=ff-final], [data-testid=wp-final], [data-testid=scoring], [data-testid=ff-scoreboard], " \
             "[data-testid=wp-income], [data-testid=ff-log], [data-testid=result-final], [data-testid=result-scores]"


def finished_rooms(hub: HubProcess) -> dict[str, str]:
    """A room of bots per game at its fewest seats; those that finished within a few seconds."""
    rooms = {g["id"]: kit.make_room(hub, g["id"], g["min_players"], list(range(g["min_players"])))
             for g in kit.games(hub)}
    done: dict[str, str] = {}
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(done) < len(rooms):
        for gid, rid in rooms.items():
            if gid not in done and kit.http(hub, "GET", f"/api/rooms/{rid}")[1]["status"] == "finished":
                done[gid] = rid
        time.sleep(0.2)
    return done


def test_one_end_screen_one_log_and_names(browser: Any, hub: HubProcess) -> None:
    done = finished_rooms(hub)
    assert {"symbiose", "frenzy_falls", "waterfall_park"} <= set(done), done
    for gid, rid in done.items():
        w = kit.new_page(browser, width=390, height=844)
        page = w.page
        page.goto(f"{hub.url}/#/room/{rid}/watch")
        result = page.get_by_test_id("result")
        expect(result).to_be_visible()
        view = kit.view_of(page)
        names = [p["name"] for p in view["players"]]

        # One end screen: the headline, then steps (where the game has them) and one final table.
        expect(page.get_by_test_id("result")).to_have_count(1)
        expect(page.get_by_test_id("result-headline")).to_contain_text(re.compile(r"wins|victory|No winner"))
        steps = result.get_by_test_id("result-scores").count()
        finals = result.locator(".final table").count()
        assert finals <= 1, gid
        assert steps + finals >= 1, f"{gid}: a scoring or a final table"
        if gid == "symbiose":
            assert steps == 1, "Symbiose's columns, step by step"
        else:
            assert steps == 0 and finals == 1, f"{gid}: the final table at once, no reveal repeating it"
        expect(result.get_by_test_id("result-replay")).to_be_visible()
        expect(result.locator(".end-actions")).to_have_count(1)
        # Nothing of it a second time on the board, and one log.
        expect(page.locator(f"[data-testid=board] :is({OLD_FINALS})")).to_have_count(0)
        expect(page.get_by_test_id("log")).to_have_count(1)

        # The moves name people: their names, a badge where the game gives seats a deck or a colour.
        log = page.get_by_test_id("log")
        text = log.inner_text()
        assert any(n in text for n in names), (gid, names)
        if gid in STAND_INS:
            assert not STAND_INS[gid].search(text), (gid, STAND_INS[gid].search(text))
            expect(log.locator(BADGES[gid])).not_to_have_count(0)
        expect(log.locator("li").first).to_have_attribute("data-n", str(max(
            int(x) for x in log.locator("li").evaluate_all("(els) => els.map((e) => e.dataset.n)"))))
        kit.shot(page, f"client-end-{gid}-phone")
        w.check()
        page.context.close()
