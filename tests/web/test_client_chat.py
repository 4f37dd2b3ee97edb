"""Chat at the table, in a real Chromium with several browser contexts: two players talk and a
spectator reads them, markup in a line stays text, a reload keeps the chat, muting hides a speaker
(and stays muted after a reload), reactions are one tap, and on a phone the chat is a drawer with
an unread count."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from websockets.sync.client import connect

from tests.conftest import HubProcess
from tests.web import client_kit as kit

pytestmark = pytest.mark.browser
expect = kit.expect
browser = kit.browser  # the module's Chromium

TIMEOUT = 10_000


@pytest.fixture(scope="module")
def hub() -> Iterator[HubProcess]:
    h = HubProcess("--bot-delay-ms", "0", "--rooms-per-ip-per-min", "0").start()  # SQLite: lines are logged
    yield h
    h.stop()


def table(browser: Any, hub: HubProcess) -> tuple[str, kit.Watched, kit.Watched]:
    rid = kit.make_room(hub, "symbiose", 2, [])
    ann, bo = kit.join(hub, rid, "Ann", 0), kit.join(hub, rid, "Bo", 1)
    a = kit.new_page(browser, seat=(rid, ann))
    b = kit.new_page(browser, seat=(rid, bo))
    for w in (a, b):
        w.page.goto(hub.url + f"/#/room/{rid}")
        expect(w.page.get_by_test_id("chat")).to_be_visible(timeout=TIMEOUT)
    return rid, a, b


def say(page: Any, text: str) -> None:
    page.get_by_test_id("chat-input").fill(text)
    page.get_by_test_id("chat-input").press("Enter")
    expect(page.get_by_test_id("chat-input")).to_have_value("", timeout=TIMEOUT)  # cleared once acked


def texts(page: Any) -> Any:
    return page.get_by_test_id("chat-text")


def test_two_players_chat_a_spectator_reads_it_and_a_reload_keeps_it(browser: Any, hub: HubProcess) -> None:
    rid, a, b = table(browser, hub)
    watcher = kit.new_page(browser)
    watcher.page.goto(hub.url + f"/#/room/{rid}/watch")
    expect(watcher.page.get_by_test_id("chat")).to_be_visible(timeout=TIMEOUT)

    say(a.page, "2 coins, not 3")
    b.page.get_by_test_id("chat-reaction").first.click()  # one tap: 👍
    evil = '<img src=x onerror="document.body.dataset.owned=1"><b>bold</b>'
    say(b.page, evil)
    say(watcher.page, "nice table")
    want = ["2 coins, not 3", "👍", evil, "nice table"]
    for w in (a, b, watcher):
        expect(texts(w.page)).to_have_text(want, timeout=TIMEOUT)
        expect(w.page.get_by_test_id("chat-name")).to_have_text(["Ann", "Bo", "Bo", "spectator"])
        # markup in a line is text: no element was made of it, and nothing ran
        assert w.page.locator("[data-testid=chat-lines] img, [data-testid=chat-lines] b").count() == 0
        assert w.page.evaluate("document.body.dataset.owned") is None
    # the players' lines carry their seat's mark; the spectator's says it is one
    lines = watcher.page.get_by_test_id("chat-line")
    expect(lines.nth(0)).to_have_attribute("data-seat", "0")
    expect(lines.nth(3)).to_have_attribute("data-seat", "")

    # a refused line says why and changes nothing
    a.page.get_by_test_id("chat-input").fill("   ")
    a.page.get_by_test_id("chat-send").click()
    expect(a.page.locator("#toasts")).to_contain_text("Type something first", timeout=TIMEOUT)
    expect(texts(watcher.page)).to_have_count(4)

    # a reload keeps the chat, for a player and for the spectator
    for w in (b, watcher):
        w.page.reload()
        expect(texts(w.page)).to_have_text(want, timeout=TIMEOUT)
    say(b.page, "back again")
    expect(texts(a.page)).to_have_text([*want, "back again"], timeout=TIMEOUT)
    kit.shot(a.page, "chat-table")
    for w in (a, b, watcher):
        w.check()


def test_mute_hides_a_speaker_here_only_and_stays_muted(browser: Any, hub: HubProcess) -> None:
    rid, a, b = table(browser, hub)
    watcher = kit.new_page(browser)
    watcher.page.goto(hub.url + f"/#/room/{rid}/watch")
    say(a.page, "hello Bo")
    say(b.page, "spam spam")
    expect(texts(a.page)).to_have_text(["hello Bo", "spam spam"], timeout=TIMEOUT)
    # no mute button on one's own lines
    expect(a.page.get_by_test_id("chat-line").nth(0).get_by_test_id("chat-mute")).to_have_count(0)
    a.page.get_by_test_id("chat-line").nth(1).get_by_test_id("chat-mute").click()
    expect(texts(a.page)).to_have_text(["hello Bo"])
    expect(a.page.get_by_test_id("chat-muted")).to_contain_text("Bo")
    say(b.page, "more spam")
    expect(texts(watcher.page)).to_have_text(["hello Bo", "spam spam", "more spam"], timeout=TIMEOUT)
    expect(texts(a.page)).to_have_text(["hello Bo"])  # muted here only
    a.page.reload()
    expect(a.page.get_by_test_id("chat-muted")).to_contain_text("Bo", timeout=TIMEOUT)
    expect(texts(a.page)).to_have_text(["hello Bo"])
    a.page.get_by_test_id("chat-unmute").click()
    expect(texts(a.page)).to_have_text(["hello Bo", "spam spam", "more spam"])
    for w in (a, b, watcher):
        w.check()


def test_on_a_phone_the_chat_is_a_drawer_with_an_unread_count(browser: Any, hub: HubProcess) -> None:
    rid, a, b = table(browser, hub)
    phone = kit.new_page(browser, width=390, height=800)
    phone.page.goto(hub.url + f"/#/room/{rid}/watch")
    handle = phone.page.get_by_test_id("chat-toggle")
    expect(handle).to_be_visible(timeout=TIMEOUT)
    expect(phone.page.get_by_test_id("chat")).to_be_hidden()
    expect(a.page.get_by_test_id("chat-toggle")).to_be_hidden()  # wide enough: beside the table
    say(a.page, "one")
    say(b.page, "two")
    expect(phone.page.get_by_test_id("chat-unread")).to_have_text("2", timeout=TIMEOUT)
    handle.click()
    expect(phone.page.get_by_test_id("chat")).to_be_visible()
    expect(texts(phone.page)).to_have_text(["one", "two"])
    expect(phone.page.get_by_test_id("chat-unread")).to_have_count(0)
    kit.shot(phone.page, "chat-phone-drawer")
    handle.click()
    expect(phone.page.get_by_test_id("chat")).to_be_hidden()
    for w in (a, b, phone):
        w.check()


def test_the_replay_shows_the_lines_said_by_the_step_shown(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "symbiose", 2, [0, 1], bot_delay_ms=0)
    kit.wait_finished(hub, rid)
    with connect(hub.url.replace("http://", "ws://") + "/ws", subprotocols=["msgpack"],  # type: ignore[list-item]
                 open_timeout=10) as ws:
        ws.send(msgpack.packb({"t": "hello", "room": rid}))
        ws.send(msgpack.packb({"t": "say", "id": 1, "text": "well played, bots", "name": "Wim"}))
        while True:
            f = msgpack.unpackb(ws.recv(10), raw=False)
            if f["t"] in ("ack", "error"):
                assert f["t"] == "ack", f
                break
    w = kit.new_page(browser)
    w.page.goto(hub.url + f"/#/replay/{rid}/0")
    expect(w.page.get_by_test_id("chat")).to_be_visible(timeout=TIMEOUT)
    expect(texts(w.page)).to_have_count(0)  # said after the last move
    expect(w.page.get_by_test_id("chat-input")).to_have_count(0)  # nothing to send in a replay
    w.page.keyboard.press("End")
    expect(texts(w.page)).to_have_text(["well played, bots"], timeout=TIMEOUT)
    expect(w.page.get_by_test_id("chat-name")).to_have_text(["Wim"])
    w.check()


def test_on_a_phone_the_chat_handle_covers_nothing_of_the_table(browser: Any, hub: HubProcess) -> None:
    """The handle sits in the bar at the top of the screen: wherever the page is scrolled, the table's
    cells, buttons and fields at the bottom of the screen are the table's own, not the handle's."""
    rid = kit.make_room(hub, "waterfall_park", 3, [1, 2], bot_delay_ms=10_000)
    got = kit.join(hub, rid, "Pia", 0)
    phone = kit.new_page(browser, width=390, height=844, seat=(rid, got))
    page = phone.page
    page.goto(hub.url + f"/#/room/{rid}")
    expect(page.get_by_test_id("board")).to_have_attribute("data-game", "waterfall_park", timeout=TIMEOUT)
    handle = page.get_by_test_id("chat-toggle")
    expect(handle).to_be_visible()
    height = page.evaluate("() => document.documentElement.scrollHeight")
    for y in range(0, height, 300):
        page.evaluate(f"() => window.scrollTo(0, {y})")
        covered = page.evaluate("""() => {
          const handle = document.querySelector('[data-testid=chat-toggle]');
          const bar = document.querySelector('header.site').getBoundingClientRect();
          const box = handle.getBoundingClientRect();
          const inBar = box.top >= bar.top - 1 && box.bottom <= bar.bottom + 1;
          const hits = [];
          for (const x of [innerWidth - 10, innerWidth - 40, innerWidth - 80])
            for (const dy of [10, 30, 60]) {
              const el = document.elementFromPoint(x, innerHeight - dy);
              if (el && handle.contains(el)) hits.push([x, innerHeight - dy]);
            }
          return { inBar, hits };
        }""")
        assert covered["inBar"], f"the handle is outside the bar at scroll {y}"
        assert not covered["hits"], f"the handle covers the table at {covered['hits']} (scroll {y})"
    handle.click()
    expect(page.get_by_test_id("chat")).to_be_visible()
    handle.click()
    expect(page.get_by_test_id("chat")).to_be_hidden()
    kit.shot(page, "chat-phone-handle-in-bar")
    phone.check()
