"""The Waterfall Park table in a real Chromium against a real hub: a whole game against bots.

The player only clicks what its table highlights (every button that sends carries the action it
sends in data-action, checked against the view's legal list), plus the offer composer, which the
engine cannot list: an offer made from clicks on the board and on tiles, with coins, that a bot
accepts, after which the board shows the new owner. A spectator on a phone-sized page watches the
same room to the end and never sees anything clickable.
"""
from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web.client_kit import SHOTS as SHOTS_DIR
from tests.web.client_kit import browser_serving, new_page, shot

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

WAIT_MS = 15_000
BOT_DELAY_MS = 30
BOARD = "[data-testid=wpark]"


@pytest.fixture(scope="module")
def browser(chromium_path: str, hub: HubProcess) -> Iterator[Any]:
    yield from browser_serving(chromium_path, hub, "waterfall_park", "Waterfall Park")


def create_room(page: Any, hub: HubProcess, bots: list[int], seats: int = 3) -> str:
    """Through the lobby form: the game, the seats, the bots and their pace; seated at seat 0."""
    page.goto(hub.url + "/#/")
    page.get_by_test_id("name").fill("Tester")
    page.get_by_test_id("new-game").select_option("waterfall_park")
    page.get_by_test_id("new-seats").select_option(str(seats))
    for seat in bots:
        page.get_by_test_id(f"bot-{seat}").check()
    page.get_by_test_id("opt-bot_delay_ms").fill(str(BOT_DELAY_MS / 1000))  # the form speaks seconds
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r".*#/room/[^/]+$"))
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    expect(page.locator(BOARD)).to_be_visible()
    track_sends(page)
    return str(page.url.rsplit("/", 1)[-1])


def track_sends(page: Any) -> None:
    """Count the page's acts and their answers, so a click can wait for its own ack."""
    page.evaluate("""() => {
        const c = window.hubDebug.connection;
        if (c.__wpTracked) return;
        c.__wpTracked = true;
        window.wpSent = 0; window.wpAnswered = 0; window.wpRefused = []; window.wpActs = [];
        const act = c.act.bind(c);
        c.act = (a) => { window.wpSent++; window.wpActs.push(a); return act(a).then(
            (r) => { window.wpAnswered++; return r; },
            (e) => { window.wpAnswered++; window.wpRefused.push([a, e && e.code]); throw e; }); };
    }""")


def view(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("() => window.hubDebug.connection.view"))


def seq(page: Any) -> int:
    return int(page.evaluate("() => window.hubDebug.connection.seq"))


def finished(page: Any) -> bool:
    return bool(page.locator("[data-testid=result]:visible").count())


def click_until(page: Any, selector: str, done: str, what: str) -> None:
    """Click, and click again if nothing came of it: with bots moving every few milliseconds the table
    can be redrawn between a button's press and its release, which a browser does not count as a click."""
    for _ in range(5):
        page.locator(selector).first.click(timeout=WAIT_MS)
        try:
            page.wait_for_function(done, timeout=1500)
            return
        except sync_api.TimeoutError:
            continue
    pytest.fail(f"clicking {what} had no effect")


def send_by(page: Any, button: Any) -> dict[str, Any] | None:
    """Click a button that sends one action, an item of legal (offers aside), and wait for the hub's answer.
    None if the choice went away (another player's move) before it could be clicked."""
    try:  # an offer seen a moment ago may have been withdrawn or settled by the bots since
        raw = button.get_attribute("data-action", timeout=2000)
    except sync_api.TimeoutError:
        return None
    action = json.loads(raw)
    selector = f"{BOARD} [data-action='{raw}']"
    for _ in range(5):
        if action["type"] != "offer" and action not in view(page)["legal"]:
            return None
        assert page.locator(selector).count() or action["type"] == "offer", f"{action} is legal but not highlighted"
        sent = page.evaluate("() => window.wpSent")
        try:
            page.locator(selector).first.click(timeout=2000)
            page.wait_for_function(f"() => window.wpSent > {sent}", timeout=1500)
        except sync_api.TimeoutError:
            continue
        page.wait_for_function("() => window.wpAnswered >= window.wpSent", timeout=WAIT_MS)
        return dict(action)
    pytest.fail(f"clicking the button for {action} sent nothing")


def wait_for_something(page: Any) -> None:
    page.wait_for_function(
        """() => document.querySelector('[data-testid=wpark] [data-legal=true]:not([data-testid=wp-unready])')
               || !document.querySelector('[data-testid=result]').hidden""",
        timeout=WAIT_MS,
    )


SNAPSHOT = """() => {
    const board = document.querySelector('[data-testid=wpark]');
    const all = (sel) => [...board.querySelectorAll(sel)];
    return {
        seq: window.hubDebug.connection.seq,
        drawn: Number(document.querySelector('[data-testid=board]').dataset.seq),
        view: window.hubDebug.connection.view,
        actions: all('[data-legal=true][data-action]').map((e) => JSON.parse(e.dataset.action)),
        cards: all('[data-testid=wp-hand-card][data-legal=true]').map((e) => Number(e.dataset.n)),
        kinds: all('[data-testid=wp-tile-chip][data-legal=true]').map((e) => e.dataset.tile),
        stray: all('button:not([data-legal=true]):not([data-compose=true]):not([disabled])').map((e) => e.outerHTML),
    };
}"""


def check_highlights(page: Any) -> None:
    """Only legal things are highlighted, and each choice of legal is reachable from what is.

    The page's view and its drawing are read in one go, at one seq, so a delta cannot slip in between."""
    for _ in range(20):
        snap = page.evaluate(SNAPSHOT)
        if snap["seq"] == snap["drawn"]:
            break
        page.wait_for_timeout(20)
    else:
        pytest.fail("the table never caught up with its view")
    v = snap["view"]
    legal = v["legal"]
    for action in snap["actions"]:
        assert action in legal, f"{action} is highlighted but not legal"
    if v["phase"] == "preparation" and legal:
        assert set(snap["cards"]) == {c for a in legal for c in a["cards"]}
    if v["phase"] == "construction" and legal:
        assert set(snap["kinds"]) == {a["tile"] for a in legal if a["type"] == "build"}
    # Nothing of the board is clickable but legal targets and the offer composer.
    assert not snap["stray"], snap["stray"]


def pressed(selector: str) -> str:
    return f"() => !!document.querySelector(\"{selector}[aria-pressed=true]\")"


def discard(page: Any, rng: random.Random) -> None:
    cards = page.locator(f"{BOARD} [data-testid=wp-hand-card][data-legal=true]")
    numbers = cards.evaluate_all("els => els.map((e) => Number(e.dataset.n))")
    pick = sorted(rng.sample(numbers, 2))
    # One card from the hand panel, the other from the board: both say the same.
    card = f"{BOARD} [data-testid=wp-hand-card][data-n='{pick[0]}']"
    click_until(page, card, pressed(card), f"card {pick[0]}")
    cell = f"{BOARD} [data-testid=wp-cell][data-n='{pick[1]}']"
    click_until(page, cell, pressed(cell), f"location {pick[1]}")
    button = page.get_by_test_id("wp-discard")
    assert json.loads(button.get_attribute("data-action")) == {"type": "discard", "cards": pick}
    assert send_by(page, button)


#: The location left seat 0, and its title names the colour of the seat that holds it now.
OWNER_DRAWN = """(n) => {
    const el = document.querySelector(`[data-testid=wpark] [data-testid=wp-cell][data-n='${n}']`);
    const players = (window.hubDebug.connection.view || {}).players || [];
    if (!el || el.dataset.owner === '' || el.dataset.owner === '0') return false;
    const p = players.find((q) => q.seat === Number(el.dataset.owner));
    return !!p && el.title.includes(`owned by ${p.glyph} ${p.colour}`);
}"""


def trade_with_a_bot(page: Any, spectator: Any) -> None:
    """Offer bot seat 1 one of our empty locations, one of our tiles and 2 coins: worth it to a bot."""
    before = view(page)
    mine = page.locator(f"{BOARD} [data-testid=wp-cell][data-owner='0'][data-tile=''][data-compose=true]")
    assert mine.count() > 0
    location = int(mine.first.get_attribute("data-n"))
    partner = f"{BOARD} [data-testid=wp-partner][data-seat='1']"
    click_until(page, partner, pressed(partner), "the partner Yellow")
    cell = f"{BOARD} [data-testid=wp-cell][data-n='{location}']"
    click_until(page, cell, pressed(cell), f"location {location}")
    expect(page.locator(cell)).to_have_class(re.compile("in-draft"))
    tile = page.locator(f"{BOARD} [data-testid=wp-tiles][data-seat='0'] [data-testid=wp-tile-chip][data-compose=true]"
                        ).first.get_attribute("data-tile")
    chip = f"{BOARD} [data-testid=wp-tiles][data-seat='0'] [data-testid=wp-tile-chip][data-tile='{tile}']"
    click_until(page, chip, f"() => document.querySelector(\"{chip}\").dataset.inDraft === '1'", f"the {tile} tile")
    coins = f"{BOARD} [data-testid=wp-coins-give][data-seat='1']"
    for _ in range(5):
        page.locator(coins).fill("2")
        if page.locator(coins).input_value() == "2":
            break
    send = page.get_by_test_id("wp-send-offer")
    expect(send).to_be_enabled()
    action = json.loads(send.get_attribute("data-action"))
    assert action == {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "locations": [location], "tiles": {tile: 1}, "coins": 2}]}, action
    expect(page.get_by_test_id("wp-draft")).to_contain_text(f"location {location}")
    shot(page, "waterfall_park-offer-composed")
    assert send_by(page, send)
    # The bot accepts at once: the base on that location changes colour, for the player and the spectator.
    # The bots trade among themselves too, so Yellow may pass it on at once: whoever holds it, the cell's
    # colour and words name them.
    for p in (page, spectator):
        p.wait_for_function(OWNER_DRAWN, arg=location, timeout=WAIT_MS)
    after = view(page)
    assert after["players"][0]["coins"] == before["players"][0]["coins"] - 2
    assert after["players"][0]["tiles"][tile] == before["players"][0]["tiles"][tile] - 1
    assert after["trades"] > before["trades"]
    # a trade between Pink (seat 0) and Yellow (seat 1): [trade, id, [[giver, receiver, ...], ...]]
    assert any(e[0] == "trade" and {t[0] for t in e[2]} | {t[1] for t in e[2]} == {0, 1} for e in after["log"]), \
        after["log"]
    # The moves name the players (their colours as badges), not the colours.
    expect(page.get_by_test_id("log")).to_contain_text(re.compile(r"Tester (\(you\) )?gives \W*Bram"))
    expect(page.get_by_test_id("log")).not_to_contain_text("Pink gives Yellow")
    shot(page, "waterfall_park-after-trade")


def exchange_step(page: Any, rng: random.Random) -> bool:
    """Answer an offer for us, else say ready; False when only waiting is left."""
    answers = page.locator(f"{BOARD} [data-testid=wp-offer] [data-legal=true]")
    if answers.count():
        accept = page.locator(f"{BOARD} [data-testid=wp-offer] [data-testid=wp-accept]")
        decline = page.locator(f"{BOARD} [data-testid=wp-offer] [data-testid=wp-decline]")
        if accept.count() and rng.random() < 0.5:
            pick = accept.first
        else:
            pick = decline.first if decline.count() else answers.first
        send_by(page, pick)
        return True
    ready = page.get_by_test_id("wp-ready")
    if ready.count():
        send_by(page, ready)
        return True
    return False


def build_step(page: Any, rng: random.Random) -> None:
    chips = page.locator(f"{BOARD} [data-testid=wp-tile-chip][data-legal=true]")
    if chips.count() and rng.random() < 0.9:
        if not page.locator(f"{BOARD} [data-testid=wp-tile-chip].selected").count():
            kind = chips.nth(rng.randrange(chips.count())).get_attribute("data-tile")
            chip = f"{BOARD} [data-testid=wp-tile-chip][data-legal=true][data-tile='{kind}']"
            click_until(page, chip, pressed(chip), f"the {kind} tile")
        chosen = page.locator(f"{BOARD} [data-testid=wp-tile-chip].selected").get_attribute("data-tile")
        targets = page.locator(f"{BOARD} [data-testid=wp-cell][data-legal=true]")
        wanted = {a["location"] for a in view(page)["legal"] if a["type"] == "build" and a["tile"] == chosen}
        assert {int(n) for n in targets.evaluate_all("els => els.map((e) => e.dataset.n)")} == wanted
        send_by(page, targets.nth(rng.randrange(targets.count())))
        return
    send_by(page, page.get_by_test_id("wp-done"))


def test_a_whole_game_against_bots_with_a_trade(browser: Any, hub: HubProcess) -> None:
    player = new_page(browser)
    page = player.page
    rid = create_room(page, hub, bots=[1, 2])
    watcher = new_page(browser, width=390, height=844)
    spec = watcher.page
    spec.goto(f"{hub.url}/#/room/{rid}/watch")
    expect(spec.get_by_test_id("spectator-badge")).to_be_visible()
    expect(spec.locator(BOARD)).to_be_visible()

    rng = random.Random(7)
    traded = False
    shots: set[str] = set()
    for _ in range(400):
        wait_for_something(page)
        if finished(page):
            break
        check_highlights(page)
        phase = page.get_by_test_id("phase").get_attribute("data-phase")
        if phase == "preparation":
            discard(page, rng)
        elif phase == "exchange":
            if not traded:
                shot(page, "waterfall_park-exchange")
                trade_with_a_bot(page, spec)
                traded = True
            if not exchange_step(page, rng):
                page.wait_for_function(f"() => window.hubDebug.connection.seq > {seq(page)}", timeout=WAIT_MS)
        elif phase == "construction":
            chips = f"{BOARD} [data-testid=wp-tile-chip][data-legal=true]"
            if "construction" not in shots and page.locator(chips).count():  # once, with a tile chosen
                kind = page.locator(chips).first.get_attribute("data-tile")
                chip = f"{chips}[data-tile='{kind}']"
                if not page.locator(f"{chip}[aria-pressed=true]").count():
                    click_until(page, chip, pressed(chip), f"the {kind} tile")
                shot(page, "waterfall_park-construction")
                shots.add("construction")
            build_step(page, rng)
    else:
        pytest.fail("the game should end within four rounds")
    assert traded

    # The end: the result, every player's final coins, for the player and for the spectator.
    final = view(page)
    assert final["phase"] == "over" and final["result"]
    expect(page.get_by_test_id("result")).to_be_visible()
    table = page.get_by_test_id("wp-final")
    expect(table.locator("tbody tr")).to_have_count(3)
    expect(table).not_to_contain_text("secret")
    for s, coins in enumerate(final["result"]["scores"]):
        expect(table.locator(f"tbody tr[data-seat='{s}'] .wp-coins-cell")).to_have_text(str(coins))
    shot(page, "waterfall_park-result")

    expect(spec.get_by_test_id("result")).to_be_visible(timeout=WAIT_MS)
    expect(spec.get_by_test_id("wp-final")).to_be_visible()
    assert spec.get_by_test_id("wp-final").locator("tbody").inner_text() == \
        table.locator("tbody").inner_text().replace(" (you)", "")
    assert spec.locator(f"{BOARD} button, {BOARD} [data-legal=true], {BOARD} input, {BOARD} select").count() == 0
    shot(spec, "waterfall_park-spectator-result-phone")

    refused = page.evaluate("() => window.wpRefused")
    assert all(code in ("stale", "illegal", "not_your_turn") for _, code in refused), refused
    assert len(refused) <= 3, refused
    player.check()
    watcher.check()


def test_spectator_sees_the_board_and_nothing_clickable(browser: Any, hub: HubProcess) -> None:
    """A spectator mid-game: the park, the tiles and the offers, and not one button."""
    player = new_page(browser)
    page = player.page
    rid = create_room(page, hub, bots=[1, 2])
    watcher = new_page(browser, width=390, height=844)
    spec = watcher.page
    spec.goto(f"{hub.url}/#/room/{rid}/watch")
    wait_for_something(page)
    discard(page, random.Random(1))
    expect(spec.get_by_test_id("phase")).to_have_attribute("data-phase", "exchange", timeout=WAIT_MS)
    expect(spec.locator(f"{BOARD} [data-testid=wp-cell]")).to_have_count(78)
    expect(spec.locator(f"{BOARD} [data-testid=wp-cell][data-owner='0']")).to_have_count(5)
    assert spec.locator(f"{BOARD} button, {BOARD} input, {BOARD} select").count() == 0
    assert spec.locator(f"{BOARD} [data-testid=wp-hand]").count() == 0
    expect(spec.get_by_test_id("wp-income")).to_contain_text("secret")
    shot(spec, "waterfall_park-spectator-phone")
    player.check()
    watcher.check()


def test_keyboard_alone_discards_at_phone_width(browser: Any, hub: HubProcess) -> None:
    """Tab to the cards and press Enter or Space: every clickable thing is a focusable button."""
    w = new_page(browser, width=390, height=844)
    page = w.page
    create_room(page, hub, bots=[1, 2])
    wait_for_something(page)
    picked = 0
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement?.dataset.testid === 'wp-hand-card'"):
            page.keyboard.press("Enter" if picked == 0 else " ")
            picked += 1
            if picked == 2:
                break
    assert picked == 2, "two hand cards could be reached with Tab"
    button = page.get_by_test_id("wp-discard")
    expect(button).to_be_enabled()
    button.focus()
    sent = page.evaluate("() => window.wpSent")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => window.wpSent > {sent} && window.wpAnswered >= window.wpSent", timeout=WAIT_MS)
    assert page.evaluate("() => window.wpRefused.length") == 0
    v = view(page)
    # Chosen: the bots had chosen already, so the kept cards are revealed at once.
    assert v["discarded"] is not None or v["phase"] == "exchange"
    expect(page.locator(f"{BOARD} [data-testid=wp-cell][data-owner='0']")).to_have_count(5)
    # The park fits the phone's width: no sideways scrolling.
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(page, "waterfall_park-keyboard-phone")
    w.check()


def test_two_players_swap_locations_from_two_browsers(browser: Any, hub: HubProcess) -> None:
    """Pink asks Yellow for a location in exchange for one of its own; Yellow accepts in its own browser."""
    first = new_page(browser)
    a = first.page
    rid = create_room(a, hub, bots=[2])
    second = new_page(browser, width=390, height=844)
    b = second.page
    b.goto(f"{hub.url}/#/")
    b.get_by_test_id("name").fill("Second")
    b.get_by_test_id(f"join-{rid}-1").click()
    expect(b.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "1")
    track_sends(b)
    for page, seed in ((a, 1), (b, 2)):
        wait_for_something(page)
        discard(page, random.Random(seed))
    for page in (a, b):
        expect(page.get_by_test_id("phase")).to_have_attribute("data-phase", "exchange", timeout=WAIT_MS)

    owned = f"{BOARD} [data-testid=wp-cell][data-compose=true][data-owner="
    give = int(a.locator(f"{owned}'0']").first.get_attribute("data-n"))
    take = int(a.locator(f"{owned}'1']").first.get_attribute("data-n"))
    for n in (give, take):
        cell = f"{BOARD} [data-testid=wp-cell][data-n='{n}']"
        click_until(a, cell, pressed(cell), f"location {n}")
    # Asking for Yellow's location made Yellow the partner; Pink's own goes to Yellow.
    expect(a.locator(f"{BOARD} [data-testid=wp-partner][data-seat='1']")).to_have_attribute("aria-pressed", "true")
    send = a.get_by_test_id("wp-send-offer")
    assert json.loads(send.get_attribute("data-action")) == {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "locations": [give], "tiles": {}, "coins": 0},
        {"from": 1, "to": 0, "locations": [take], "tiles": {}, "coins": 0}]}
    assert send_by(a, send)

    # The bot may make Yellow an offer of its own meanwhile: pick Pink's by its id in the view.
    mine = [o for o in view(a)["offers"].values() if o["author"] == 0 and o["transfers"][0]["locations"] == [give]]
    assert len(mine) == 1, view(a)["offers"]
    offer = b.locator(f"{BOARD} [data-testid=wp-offer][data-id='{mine[0]['id']}']")
    expect(offer.get_by_test_id("wp-accept")).to_have_count(1, timeout=WAIT_MS)
    expect(offer).to_contain_text(f"location {give}")
    expect(offer).to_contain_text(f"location {take}")
    shot(b, "waterfall_park-offer-received-phone")
    assert send_by(b, offer.get_by_test_id("wp-accept"))
    for page in (a, b):
        expect(page.locator(f"{BOARD} [data-testid=wp-cell][data-n='{give}']")).to_have_attribute("data-owner", "1")
        expect(page.locator(f"{BOARD} [data-testid=wp-cell][data-n='{take}']")).to_have_attribute("data-owner", "0")
    expect(a.get_by_test_id("log")).to_contain_text("Trade #")
    first.check()
    second.check()


#: Every location's box, its number's and its owner's symbol's, in page pixels.
CELL_BOXES = """() => [...document.querySelectorAll('[data-testid=wpark] [data-testid=wp-cell]')].map((c) => {
    const box = (e) => { if (!e) return null; const r = e.getBoundingClientRect();
        return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height }; };
    return { n: Number(c.dataset.n), cell: box(c), num: box(c.querySelector('.wp-num')),
             glyph: box(c.querySelector('.wp-glyph')), text: c.querySelector('.wp-num').textContent };
})"""


#: The numbers of the locations pressed into the offer being composed.
PRESSED_CELLS = """() => [...document.querySelectorAll(
    '[data-testid=wpark] [data-testid=wp-cell][aria-pressed=true]')].map((c) => Number(c.dataset.n))"""


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["left"] < b["right"] - 0.5 and b["left"] < a["right"] - 0.5 and \
        a["top"] < b["bottom"] - 0.5 and b["top"] < a["bottom"] - 0.5


def inside(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["left"] >= b["left"] - 0.5 and a["right"] <= b["right"] + 0.5 and \
        a["top"] >= b["top"] - 0.5 and a["bottom"] <= b["bottom"] + 0.5


def check_cells(page: Any, owned: int) -> None:
    """Every location a target of at least 40 x 40 px; its number whole and clear of its owner's symbol."""
    boxes = page.evaluate(CELL_BOXES)
    assert len(boxes) == 78
    assert sum(1 for b in boxes if b["glyph"]) >= owned
    for b in boxes:
        assert b["cell"]["width"] >= 40 and b["cell"]["height"] >= 40, b
        assert b["text"] == str(b["n"]) and inside(b["num"], b["cell"]), b
        if b["glyph"]:
            assert inside(b["glyph"], b["cell"]) and not overlap(b["num"], b["glyph"]), b


def test_the_park_reads_and_taps_on_a_phone(browser: Any, hub: HubProcess) -> None:
    """At 390 x 844: targets of 40 px, numbers no symbol covers, and the offer composer beside the park."""
    phone = new_page(browser, width=390, height=844)
    page = phone.page
    rid = create_room(page, hub, bots=[1, 2])
    wait_for_something(page)
    discard(page, random.Random(5))
    expect(page.get_by_test_id("phase")).to_have_attribute("data-phase", "exchange", timeout=WAIT_MS)
    check_cells(page, owned=15)
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    # The blocks, one after another, each with its letter.
    expect(page.locator(f"{BOARD} .wp-block-id:visible")).to_have_count(11)

    # A location of Yellow's, in the middle of the screen: the composer is docked beside it, on screen,
    # and covers nothing of it.
    cell = page.locator(f"{BOARD} [data-testid=wp-cell][data-compose=true][data-owner='1']").first
    n = int(cell.get_attribute("data-n") or 0)
    pressed = page.locator(f"{BOARD} [data-testid=wp-cell][data-n='{n}']")
    for _ in range(6):
        # the bots' offers come and go above the park meanwhile and move it: measure, then tap at once
        cell.evaluate("(e) => e.scrollIntoView({ block: 'center' })")
        box = cell.bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        if not cell.evaluate("(e, [x, y]) => e.contains(document.elementFromPoint(x, y))", [x, y]):
            continue
        page.mouse.click(x, y)  # a tap where it is: no scrolling
        try:  # wait for the press to show before tapping again: a second tap would take it back
            expect(pressed).to_have_attribute("aria-pressed", "true", timeout=2000)
            break
        except AssertionError:
            continue
    expect(pressed).to_have_attribute("aria-pressed", "true")
    # A tap measured just before the park moved lands on the location beside it: take that one back out.
    for other in page.evaluate(PRESSED_CELLS):
        if other != n:
            page.locator(f"{BOARD} [data-testid=wp-cell][data-n='{other}']").click()
    expect(page.get_by_test_id("wp-draft-summary")).to_contain_text("1 item")
    send = page.get_by_test_id("wp-send-offer")
    expect(send).to_be_enabled()
    geometry = page.evaluate("""() => {
        const r = (s) => document.querySelector(s).getBoundingClientRect();
        return { dock: r('[data-testid=wp-dock]'), send: r('[data-testid=wp-send-offer]'), height: window.innerHeight };
    }""")
    assert geometry["dock"]["top"] >= 0 and geometry["dock"]["bottom"] <= geometry["height"] + 0.5, geometry
    assert geometry["dock"]["top"] > y, "the composer sits below the location just tapped, not over it"
    shot_viewport = SHOTS_DIR / "waterfall_park-phone-composing.png"
    page.screenshot(path=str(shot_viewport))
    sent = page.evaluate("() => window.wpSent")
    page.mouse.click(geometry["send"]["x"] + geometry["send"]["width"] / 2,
                     geometry["send"]["y"] + geometry["send"]["height"] / 2)
    page.wait_for_function(f"() => window.wpSent > {sent} && window.wpAnswered >= window.wpSent", timeout=WAIT_MS)
    # (Yellow's bot may take it or decline it at once: what the hub acked is what was sent.)
    assert page.evaluate("() => window.wpActs[window.wpActs.length - 1]") == {
        "type": "offer", "transfers": [{"from": 1, "to": 0, "locations": [n], "tiles": {}, "coins": 0}]}
    assert page.evaluate("() => window.wpRefused.length") == 0

    # On a wide screen the park keeps its map, each location as large a target.
    wide = new_page(browser, width=1280, height=900)
    wide.page.goto(f"{hub.url}/#/room/{rid}/watch")
    expect(wide.page.locator(f"{BOARD} [data-testid=wp-cell][data-owner='0']")).not_to_have_count(0)
    check_cells(wide.page, owned=15)
    grid = wide.page.evaluate("() => getComputedStyle(document.querySelector('[data-testid=wp-board]')).display")
    assert grid == "grid", "the park's own map"
    expect(wide.page.locator(f"{BOARD} .wp-falls")).to_be_visible()
    phone.check()
    wide.check()


# --- the module alone, on views the engine makes --------------------------------------------------

RENDER_JS = """async ([view, seat, room]) => {
    const mod = (await import('/games/waterfall_park.js')).default;
    const { render } = await import('/ui.js');
    let el = document.getElementById('wp-test');
    if (!el) { el = document.createElement('section'); el.id = 'wp-test'; document.body.prepend(el); }
    window.wpTestSent = [];
    const ctx = {
        seat, isSpectator: seat === null, room, name: (s) => `P${s}`, serverNow: () => Date.now(),
        send: (a) => { window.wpTestSent.push(a); return Promise.resolve(true); },
        rerender: () => render(mod.render(view, ctx), el),
    };
    ctx.rerender();
}"""


def out_of_bases_view(seat: int | None = 0) -> dict[str, Any]:
    """Pink holds all 24 bases and two of its kept cards wait: the engine's own view of that."""
    from rules.waterfall_park import GAME
    from rules.waterfall_park.components import BASES, NUMBERS

    state = GAME.setup(3, 2, GAME.check_options(3, {}))
    spare = [n for n in NUMBERS if n not in {c for h in state.hands for c in h}][:BASES]
    for n in spare:
        state.owner[n - 1] = 0
    state.tile[spare[0] - 1] = "Pool"
    for s in range(3):
        GAME.apply(state, s, GAME.legal(state, s)[0])
    return dict(GAME.view(state, seat))


def test_out_of_bases_every_choice_is_a_legal_item_the_table_sends(browser: Any, hub: HubProcess) -> None:
    """ "You can remove one of yours from an empty location ... and place it directly on a new
    location": the table offers each empty location of the player's, on the park and in a list,
    and the return of the card; each button sends exactly its item of legal."""
    w = new_page(browser, width=390, height=844)
    page = w.page
    page.goto(hub.url + "/#/")
    view = out_of_bases_view()
    legal = view["legal"]
    moves = [a for a in legal if a["type"] == "move_base"]
    assert moves and legal[-1]["type"] == "return_card"
    card = legal[-1]["card"]
    page.evaluate(RENDER_JS, [view, 0, "relocate"])
    root = page.locator("#wp-test")
    expect(root.get_by_test_id("wp-relocate")).to_contain_text(f"location {card}")
    expect(root.get_by_test_id("hint")).to_contain_text("out of bases")
    expect(root.locator(f"[data-testid=wp-cell][data-n='{card}']")).to_have_class(re.compile(r"\bwaiting\b"))
    sent = [json.loads(x) for x in root.locator("[data-legal=true]").evaluate_all(
        "(els) => els.map((e) => e.dataset.action).filter(Boolean)")]
    assert {json.dumps(a) for a in sent} == {json.dumps(a) for a in legal}, "exactly the legal items"
    # on the park: a cell of each empty location; in the panel: a button each, and the return
    for i, action in enumerate([moves[0], moves[-1]]):
        page.evaluate(RENDER_JS, [view, 0, f"park-{i}"])
        root.locator(f"[data-testid=wp-cell][data-n='{action['from']}'][data-legal=true]").click()
        assert page.evaluate("() => window.wpTestSent") == [action]
    page.evaluate(RENDER_JS, [view, 0, "list"])
    root.get_by_test_id("wp-move-base").nth(len(moves) - 1).click()
    assert page.evaluate("() => window.wpTestSent") == [moves[-1]]
    page.evaluate(RENDER_JS, [view, 0, "return"])
    root.get_by_test_id("wp-return-card").click()
    assert page.evaluate("() => window.wpTestSent") == [legal[-1]]
    shot(page, "waterfall-park-out-of-bases-phone")
    # the others wait, and a spectator sees the waiting card with nothing to click
    page.evaluate(RENDER_JS, [out_of_bases_view(1), 1, "other"])
    assert root.locator("[data-legal=true]").count() == 0
    expect(root.get_by_test_id("hint")).to_contain_text("Waiting for P0")
    page.evaluate(RENDER_JS, [out_of_bases_view(None), None, "watch"])
    assert root.locator("button").count() == 0
    expect(root.locator(f"[data-testid=wp-cell][data-n='{card}']")).to_have_class(re.compile(r"\bwaiting\b"))
    w.check()


def split_view(seat: int | None = 1) -> dict[str, Any]:
    """The rulebook's "2 adjacent Ice Cream Stands: 1 of size 3 (complete) and 1 of size 2
    (incomplete)": five of Pink's on locations 4-7 and 16, as the engine's view shows them."""
    from rules.waterfall_park import GAME
    from rules.waterfall_park.components import ICE_CREAM_STAND

    state = GAME.setup(3, 2, GAME.check_options(3, {}))
    for s in range(3):
        GAME.apply(state, s, GAME.legal(state, s)[0])
    state.owner = [None] * 78
    state.tile = [None] * 78
    for n in (4, 5, 6, 7, 16):
        state.owner[n - 1] = 0
        state.tile[n - 1] = ICE_CREAM_STAND
    state.refresh_earning()
    return dict(GAME.view(state, seat))


def test_complete_attractions_are_marked_as_the_income_splits_them(browser: Any, hub: HubProcess) -> None:
    w = new_page(browser)
    page = w.page
    page.goto(hub.url + "/#/")
    view = split_view()
    parts = view["players"][0]["attractions"]
    complete = next(a["locations"] for a in parts if a["complete"])
    other = next(a["locations"] for a in parts if not a["complete"])
    assert len(complete) == 3 and len(other) == 2
    for seat, who in ((1, "player"), (None, "spectator")):
        page.evaluate(RENDER_JS, [split_view(seat), seat, who])
        root = page.locator("#wp-test")
        for n in (4, 5, 6, 7, 16):
            cell = root.locator(f"[data-testid=wp-cell][data-n='{n}']")
            if n in complete:
                expect(cell).to_have_class(re.compile(r"\bcomplete\b"))
                label = re.compile("part of a complete Ice Cream Stand of 3, paying 6")
                expect(cell).to_have_attribute("aria-label", label)
            else:
                expect(cell).not_to_have_class(re.compile(r"\bcomplete\b"))
                expect(cell).to_have_attribute("aria-label", re.compile("incomplete Ice Cream Stand of 2 tiles"))
        # the two attractions are drawn apart: no join between a cell of one and a cell of the other
        joins = root.locator("[data-testid=wp-cell]").evaluate_all(
            "(els) => els.map((e) => [Number(e.dataset.n), [...e.classList].filter((c) => c.startsWith('join-'))])")
        joined = {n: set(c) for n, c in joins if c}
        assert set(joined) == {4, 5, 6, 7, 16}
        for n in complete:
            assert len(joined[n]) == sum(1 for m in complete if m != n and abs(m - n) in (1, 12)), n
        mine = root.locator("[data-testid=wp-attractions][data-seat='0'] [data-complete=true]")
        expect(mine).to_have_count(1)
        expect(mine).to_contain_text("3 ✓ +6")
    shot(page, "waterfall-park-complete-attractions")
    w.check()
