"""Negotiating at the Waterfall Park table in a real Chromium: an offer received is answered with a
counter-offer (the composer opens filled from it; sending it declines the offer it answers), the
author of a declined offer is told at once, above the offers and as a notice, and so is every party
of a deal once it is done. Seat 1 is played over its own socket by the test; seat 2 is a bot."""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web import client_kit as kit

pytestmark = pytest.mark.browser
expect = kit.expect
WAIT_MS = 20_000


@pytest.fixture(scope="module")
def browser(chromium_path: str, hub: HubProcess) -> Iterator[Any]:
    yield from kit.browser_serving(chromium_path, hub, "waterfall_park", "Waterfall Park")


def owned(view: dict[str, Any], seat: int) -> list[int]:
    return [i + 1 for i, s in enumerate(view.get("sites") or []) if s and s.get("owner") == seat]


class Partner:
    """Seat 1: discards, then offers seat 0 a swap of one location each, then declines whatever seat
    0 offers it; never ready, so the Exchange lasts."""

    def __init__(self, accepts: bool = False) -> None:
        self.offered: dict[str, Any] | None = None
        self.declined: list[int] = []
        self.accepts = accepts  # accept seat 0's offers instead, and offer nothing

    def __call__(self, view: dict[str, Any]) -> dict[str, Any] | None:
        legal = view.get("legal") or []
        if view.get("phase") == "preparation":
            return next((a for a in legal if a.get("type") == "discard"), None)
        if view.get("phase") != "exchange":
            return None
        if self.accepts:
            for a in legal:
                if a.get("type") == "accept":
                    offer = (view.get("offers") or {}).get(str(a["offer"])) or {}
                    if offer.get("author") == 0:
                        return dict(a)
            return None
        for a in legal:
            if a.get("type") == "decline":
                offer = (view.get("offers") or {}).get(str(a["offer"])) or {}
                if offer.get("author") == 0:
                    self.declined.append(a["offer"])
                    return dict(a)
        if self.offered is None and owned(view, 0) and owned(view, 1):
            self.offered = {"type": "offer", "transfers": [
                {"from": 0, "to": 1, "locations": [owned(view, 0)[0]], "tiles": {}, "coins": 0},
                {"from": 1, "to": 0, "locations": [owned(view, 1)[0]], "tiles": {}, "coins": 0}]}
            return self.offered
        return None


def at_the_table(browser: Any, hub: HubProcess, partner: Partner) -> tuple[Any, Any, str]:
    """Ann's page (seat 0) at a new table, Bob (seat 1) played by `partner` over his own socket, a bot
    at seat 2; Ann's discard sent as the page would: (page's watch, Bob's pacer, the room)."""
    rid = kit.make_room(hub, "waterfall_park", 3, [2], bot_delay_ms=200)
    me = kit.join(hub, rid, "Ann", 0)
    other = kit.join(hub, rid, "Bob", 1)
    pacer = kit.Pacer(hub, rid, other["token"], partner, every=0.2)
    pacer.start()
    w = kit.new_page(browser, seat=(rid, me))
    page = w.page
    page.goto(f"{hub.url}/#/room/{rid}")
    expect(page.get_by_test_id("wpark")).to_be_visible()
    page.wait_for_function("() => (window.hubDebug.connection.view || {}).legal?.length > 0", timeout=WAIT_MS)
    page.evaluate("() => window.hubDebug.session.send(window.hubDebug.connection.view.legal[0])")
    return w, pacer, rid


def test_a_counter_offer_and_a_decline_notice(browser: Any, hub: HubProcess) -> None:
    partner = Partner()
    w, pacer, _ = at_the_table(browser, hub, partner)
    page = w.page
    try:
        # Bob's offer arrives: answer it with a counter-offer
        page.wait_for_function("() => Object.values(window.hubDebug.connection.view.offers || {})"
                               ".some((o) => o.author === 1)", timeout=WAIT_MS)
        received = next(o for o in kit.view_of(page)["offers"].values() if o["author"] == 1)
        counter = page.locator(f"[data-testid=wp-offer][data-id='{received['id']}'] [data-testid=wp-counter]")
        expect(counter).to_be_visible()
        counter.click()
        expect(page.get_by_test_id("wp-draft")).to_be_visible()
        send = page.get_by_test_id("wp-send-offer")
        expect(send).to_contain_text(f"counter-offer to #{received['id']}")
        sent = json.loads(send.get_attribute("data-action") or "null")
        assert sent == {"type": "offer", "transfers": received["transfers"], "counters": received["id"]}, \
            "the composer holds the offer, and the counter-offer names the one it answers"
        # change it: take Bob's location out, so Ann only gives
        mine, theirs = received["transfers"][0]["locations"][0], received["transfers"][1]["locations"][0]
        page.locator(f"[data-testid=wpark] [data-testid=wp-cell][data-n='{theirs}']").click()
        page.wait_for_function(
            "(n) => !JSON.parse(document.querySelector('[data-testid=wp-send-offer]').dataset.action || '{}')"
            ".transfers?.some((t) => t.locations.includes(n))", arg=theirs)
        changed = json.loads(send.get_attribute("data-action") or "null")
        assert changed == {"type": "offer", "transfers": [
            {"from": 0, "to": 1, "locations": [mine], "tiles": {}, "coins": 0}], "counters": received["id"]}, changed
        send.click()
        # the counter-offer declined the offer it answers: it does not stay open beside it
        expect(page.locator(f"[data-testid=wp-offer][data-id='{received['id']}']")).to_have_count(0, timeout=WAIT_MS)

        # Bob declines it: Ann sees it at once, above the offers and as a notice
        notice = page.get_by_test_id("wp-declined")
        expect(notice).to_be_visible(timeout=WAIT_MS)
        expect(notice).to_contain_text("Bob declined your offer #")
        expect(page.locator(".toast").filter(has_text="Bob declined your offer")).to_have_count(1)
        assert partner.declined, "Bob declined Ann's counter-offer"
        expect(notice).to_contain_text(f"#{partner.declined[0]}")
        kit.shot(page, "waterfall-park-decline-notice")
        w.check()
    finally:
        pacer.stop()
        page.context.close()
    assert not [e for e in pacer.errors if e.get("code") != "stale"], pacer.errors


def test_opted_in_alerts_are_remembered_and_a_new_offer_changes_the_title(browser: Any, hub: HubProcess) -> None:
    """Sound and notifications are off until chosen, the choice outlives a reload, and a new offer for
    the player changes the tab's title and is notified (permission granted to the page)."""
    rid = kit.make_room(hub, "waterfall_park", 3, [2], bot_delay_ms=200)
    me = kit.join(hub, rid, "Ann", 0)
    other = kit.join(hub, rid, "Bob", 1)
    w = kit.new_page(browser, seat=(rid, me), permissions=["notifications"])
    page = w.page
    pacer = None
    try:
        page.goto(f"{hub.url}/#/room/{rid}")
        sound, notify = page.get_by_test_id("alert-sound"), page.get_by_test_id("alert-notify")
        expect(sound).not_to_be_checked()
        expect(notify).not_to_be_checked()
        sound.check()
        notify.check()
        expect(notify).to_be_checked()
        page.reload()
        expect(page.get_by_test_id("alert-sound")).to_be_checked()
        expect(page.get_by_test_id("alert-notify")).to_be_checked()
        assert page.evaluate("() => JSON.parse(localStorage.getItem('hub.alerts'))") == {"sound": True, "notify": True}

        page.wait_for_function("() => (window.hubDebug.connection.view || {}).legal?.length > 0", timeout=WAIT_MS)
        page.evaluate("() => window.hubDebug.session.send(window.hubDebug.connection.view.legal[0])")
        partner = Partner()
        pacer = kit.Pacer(hub, rid, other["token"], partner, every=0.2)
        pacer.start()
        page.wait_for_function("() => (window.hubAlerts || [])"
                               ".some((a) => a.kind === 'offer' && a.text.startsWith('Bob'))", timeout=WAIT_MS)
        assert page.title().startswith("✉ "), page.title()  # "New offer from …", or "2 new offers" with the bot's
        alerts = page.evaluate("() => window.hubAlerts")
        offer = next(a for a in alerts if a["kind"] == "offer" and a["text"].startswith("Bob"))
        assert offer["notified"] is True and "Bob made you an offer" in offer["text"], alerts
        # touching the page means it was seen: the title goes back
        # (Bob stops first, and every title the tab takes is kept: the bot may offer again at once, and
        # the title going back must not be missed between two polls)
        pacer.stop()
        page.evaluate("""() => { window.titles = [];
            new MutationObserver(() => window.titles.push(document.title)).observe(
                document.querySelector("title"), { childList: true, characterData: true, subtree: true }); }""")
        page.get_by_test_id("wp-offers").click()
        page.wait_for_function("() => !document.title.startsWith('✉') || window.titles.some((t) => !t.startsWith('✉'))")
        w.check()
    finally:
        if pacer is not None:
            pacer.stop()
        page.context.close()


def test_a_deal_done_is_confirmed_to_its_parties(browser: Any, hub: HubProcess) -> None:
    """Ann offers Bob a coin; Bob accepts; the offer leaves the list, and Ann is told the deal is done
    and what changed hands, at once, above the offers and as a notice."""
    w, pacer, _ = at_the_table(browser, hub, Partner(accepts=True))
    page = w.page
    try:
        page.wait_for_function("() => window.hubDebug.connection.view.phase === 'exchange'", timeout=WAIT_MS)
        gift = {"type": "offer", "transfers": [{"from": 0, "to": 1, "locations": [], "tiles": {}, "coins": 1}]}
        assert page.evaluate("(a) => window.hubDebug.session.send(a)", gift)
        done = page.get_by_test_id("wp-traded")
        expect(done).to_be_visible(timeout=WAIT_MS)
        expect(done).to_contain_text("done: you gave 1 coin to Bob")
        expect(page.locator(".toast").filter(has_text="done: you gave 1 coin to Bob")).to_have_count(1)
        page.wait_for_function("() => !Object.values(window.hubDebug.connection.view.offers || {})"
                               ".some((o) => o.author === 0)", timeout=WAIT_MS)  # the deal left the list
        w.check()
    finally:
        pacer.stop()
        page.context.close()
    assert not [e for e in pacer.errors if e.get("code") != "stale"], pacer.errors
