"""No click is lost while deltas arrive: a press and its release on either side of a delta still click.

A Waterfall Park room in its Exchange: seat 1 is played by this test over its own websocket, saying
ready and not ready in turn every 150 ms, so a delta reaches seat 0 several times a second; seat 2
is a bot. Seat 0's page, at phone size, is clicked as a hand clicks, but slowly: the button is
pressed, the test waits until the page has drawn a delta under the pressed button, then releases.
A table that rebuilt itself on each delta lost every such click (the element pressed was gone by
the release); each must now do what it says: mark a location for the offer, send the offer, say
ready.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web import client_kit as kit

pytestmark = pytest.mark.browser
expect = kit.expect
browser = kit.browser  # the module's Chromium
BOARD = "[data-testid=wpark]"


def ready_and_not(view: dict[str, Any]) -> dict[str, Any] | None:
    """Seat 1's part: discard when asked, then ready / not ready in turn for as long as the Exchange lasts."""
    legal = view.get("legal") or []
    for kind in ("discard", "unready", "ready"):
        for action in legal:
            if action["type"] == kind:
                return dict(action)
    return None


def drawn(page: Any) -> int:
    return kit.seq(page)


def straddle(page: Any, selector: str) -> None:
    """Press the element, wait until a delta has been drawn under the pressed pointer, release there."""
    target = page.locator(selector).first
    target.evaluate("(e) => e.scrollIntoView({ block: 'center' })")
    box = target.bounding_box()
    assert box is not None, selector
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    assert target.evaluate("(e, [x, y]) => e.contains(document.elementFromPoint(x, y))", [x, y]), \
        f"{selector} is under the pointer"
    page.mouse.move(x, y)
    before = drawn(page)
    page.mouse.down()
    page.wait_for_function(f"() => Number(document.querySelector('[data-testid=board]').dataset.seq) > {before}",
                           timeout=5000)
    page.mouse.up()


def test_clicks_land_while_deltas_arrive(browser: Any, hub: HubProcess) -> None:
    rid = kit.make_room(hub, "waterfall_park", 3, [2], bot_delay_ms=20)
    me = kit.join(hub, rid, "Clicker", 0)
    other = kit.join(hub, rid, "Pacer", 1)
    w = kit.new_page(browser, width=390, height=844, seat=(rid, me))
    page = w.page
    page.goto(f"{hub.url}/#/room/{rid}")
    pacer = kit.Pacer(hub, rid, other["token"], ready_and_not, every=0.15)
    pacer.start()
    try:
        page.wait_for_function("() => (window.hubDebug.connection.view || {}).phase === 'preparation'"
                               " && window.hubDebug.connection.view.legal.length > 0")
        page.evaluate("() => window.hubDebug.connection.act(window.hubDebug.connection.view.legal[0])")
        expect(page.get_by_test_id("phase")).to_have_attribute("data-phase", "exchange", timeout=kit.TURN_TIMEOUT_MS)
        page.evaluate("""() => {
            const c = window.hubDebug.connection;
            window.sentActs = [];
            const act = c.act.bind(c);
            c.act = (a) => { window.sentActs.push(a); return act(a); };
        }""")
        # Deltas arrive several times a second: the pacer's ready and not ready.
        start = drawn(page)
        page.wait_for_timeout(1000)
        assert drawn(page) - start >= 4, "several deltas a second"

        # Locations of seat 1 and of our own, in and out of the offer: each press straddles a delta.
        theirs = page.locator(f"{BOARD} [data-testid=wp-cell][data-compose=true][data-owner='1']")
        ours = page.locator(f"{BOARD} [data-testid=wp-cell][data-compose=true][data-owner='0']")
        picks = [theirs.nth(0), ours.nth(0), theirs.nth(1), theirs.nth(1), ours.nth(1), ours.nth(1)]
        numbers = [int(p.get_attribute("data-n") or 0) for p in picks]
        expected: dict[int, bool] = {}
        for n in numbers:
            cell = f"{BOARD} [data-testid=wp-cell][data-n='{n}']"
            straddle(page, cell)
            expected[n] = not expected.get(n, False)
            expect(page.locator(cell)).to_have_attribute("aria-pressed", "true" if expected[n] else "false")
        chosen = sorted(n for n, on in expected.items() if on)
        assert len(chosen) == 2, expected

        # Sending the offer, and saying ready: clicks that send, each straddling a delta too.
        straddle(page, "[data-testid=wp-send-offer]")
        page.wait_for_function("() => window.sentActs.some((a) => a.type === 'offer')")
        offer = page.evaluate("() => window.sentActs.find((a) => a.type === 'offer')")
        assert sorted(n for t in offer["transfers"] for n in t["locations"]) == chosen
        straddle(page, "[data-testid=wp-ready]")
        page.wait_for_function("() => window.sentActs.some((a) => a.type === 'ready')")
        assert pacer.moves >= 10, "the deltas kept coming"

        # The Moves box, after all those deltas: newest first, its first line whole at its top edge.
        box = page.evaluate("""() => {
            const log = document.querySelector('[data-testid=log]');
            const first = log.querySelector('li');
            const ns = [...log.querySelectorAll('li')].map((li) => Number(li.dataset.n));
            return { scrollTop: log.scrollTop, top: log.getBoundingClientRect().top + log.clientTop,
                     firstTop: first.getBoundingClientRect().top, first: ns[0], newest: Math.max(...ns),
                     overflows: log.scrollHeight > log.clientHeight };
        }""")
        assert box["overflows"], "enough moves to scroll"
        assert box["scrollTop"] == 0 and box["first"] == box["newest"], box
        assert abs(box["firstTop"] - box["top"]) < 1, box
    finally:
        pacer.stop()
    kit.shot(page, "client-clicks-through-deltas-phone")
    w.check()
