"""Who is here, in a real Chromium: the table shows a seat whose player never connected as away with
the grace counting down, then played by a bot, and how many watch; the lobby shows the same."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web import client_kit as kit

pytestmark = pytest.mark.browser
expect = kit.expect
browser = kit.browser  # the module's Chromium

GRACE_S = 4


@pytest.fixture(scope="module")
def hub() -> Iterator[HubProcess]:
    h = HubProcess("--store", "memory", "--grace-s", str(GRACE_S), "--bot-delay-ms", "0",
                   "--rooms-per-ip-per-min", "0").start()
    yield h
    h.stop()


def test_a_seat_away_then_a_bot_at_the_table_and_in_the_lobby(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 2, [])
    kit.join(hub, rid, "Gone", 0)  # joined over HTTP, never opens the table
    lobby = kit.new_page(browser)
    lobby.page.goto(hub.url + "/#/")
    seat0 = lobby.page.locator(f'[data-room="{rid}"] li.seat').first
    expect(seat0).to_have_attribute("data-presence", "away", timeout=10_000)
    expect(seat0).to_contain_text("away")

    got = kit.join(hub, rid, "Here", 1)
    player = kit.new_page(browser, seat=(rid, got))
    player.page.goto(hub.url + f"/#/room/{rid}")
    away = player.page.get_by_test_id("presence-0")
    expect(away).to_have_attribute("data-presence", "away", timeout=10_000)
    expect(away).to_contain_text("a bot plays in")
    expect(player.page.get_by_test_id("presence-1")).to_have_attribute("data-presence", "here")
    watcher = kit.new_page(browser)
    watcher.page.goto(hub.url + f"/#/room/{rid}/watch")
    expect(player.page.get_by_test_id("watchers")).to_contain_text("1 watching", timeout=10_000)
    expect(away).to_have_attribute("data-presence", "bot", timeout=(GRACE_S + 6) * 1000)

    lobby.page.reload()
    chips = lobby.page.locator(f'[data-room="{rid}"] li.seat')
    expect(chips.nth(0)).to_have_attribute("data-presence", "bot", timeout=10_000)
    expect(chips.nth(1)).to_have_attribute("data-presence", "here")
    expect(lobby.page.get_by_test_id(f"watchers-{rid}")).to_contain_text("1 watching")
    kit.shot(player.page, "presence-table")
    for w in (lobby, player, watcher):
        w.check()
