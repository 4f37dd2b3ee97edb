"""The Frenzy Falls table in a real Chromium against a real hub: a whole game against bots.

The player clicks only what the table highlights as legal (hand cards, "Play here" at a Pool's
end, the cards a BUMP, PULL or spillover may move, the round-end confirmation) and never the
generic fallback. At every turn the test also checks that what the table offers is exactly what
view.legal allows: nothing more is clickable, nothing legal is missing. Screenshots go to
artifacts/screenshots/.
"""
from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web.client_kit import browser_serving, new_page, shot

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

TURN_TIMEOUT_MS = 15_000
LEGAL = "[data-testid=board] [data-legal=true]"


@pytest.fixture(scope="module")
def browser(chromium_path: str, hub: HubProcess) -> Iterator[Any]:
    yield from browser_serving(chromium_path, hub, "frenzy_falls", "Frenzy Falls")


def create_room(page: Any, hub: HubProcess, seats: int, bots: list[int]) -> str:
    """Through the lobby form; the page ends seated at seat 0 of a Frenzy Falls table."""
    page.goto(hub.url + "/#/")
    page.get_by_test_id("name").fill("Tester")
    page.get_by_test_id("new-game").select_option("frenzy_falls")
    page.get_by_test_id("new-seats").select_option(str(seats))
    for seat in bots:
        page.get_by_test_id(f"bot-{seat}").check()
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r".*#/room/[^/]+$"))
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    expect(page.locator("[data-testid=board] .ff")).to_have_count(1)
    return str(page.url.rsplit("/", 1)[-1])


def seq(page: Any) -> int:
    raw = page.get_by_test_id("board").get_attribute("data-seq")
    return int(raw) if raw and raw.isdigit() else -1


def finished(page: Any) -> bool:
    return bool(page.locator("[data-testid=result]:visible").count())


def wait_for_turn(page: Any) -> bool:
    """Until something of the table is clickable or the game is over; True while it goes on."""
    page.wait_for_function(
        f"""() => document.querySelector('{LEGAL}')
               || !document.querySelector('[data-testid=result]').hidden""",
        timeout=TURN_TIMEOUT_MS,
    )
    return not finished(page)


def the_view(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("() => window.hubDebug.connection.view"))


def ints(locator: Any, attr: str) -> list[int]:
    return sorted(int(locator.nth(i).get_attribute(attr)) for i in range(locator.count()))


def check_offers(page: Any) -> dict[str, Any]:
    """What the table offers is exactly view.legal: every clickable thing a button, nothing else."""
    view = the_view(page)
    legal = view["legal"]
    assert legal, "something is clickable only when the game waits for this seat"
    assert page.locator("[data-testid=legal-list]").count() == 0, "the table's own, not the generic fallback"
    clickable = page.locator(LEGAL)
    tags = page.evaluate(f"() => [...document.querySelectorAll('{LEGAL}')].map((e) => e.tagName)")
    assert set(tags) == {"BUTTON"}, tags
    # Highlighted: a legal outline class and, on cards, a word saying what pressing does.
    assert page.locator(f"{LEGAL}:not(.legal)").count() == 0
    phase = view["phase"]
    kinds = {a["type"] for a in legal}
    assert kinds == {phase}, (kinds, phase)
    hand_buttons = page.locator("[data-testid=hand-card][data-legal=true]")
    pool_buttons = page.locator("[data-testid=pool-card][data-legal=true]")
    if phase == "play":
        assert ints(hand_buttons, "data-index") == sorted({a["card"] for a in legal})
        assert pool_buttons.count() == 0
    elif phase == "proxy":
        assert ints(hand_buttons, "data-index") == sorted(a["card"] for a in legal)
        assert clickable.count() == len(legal)
    elif phase in ("bump", "pull", "spill"):
        assert hand_buttons.count() == 0
        assert clickable.count() == len(legal)
        if phase == "pull":
            cards = [pool_buttons.nth(i) for i in range(pool_buttons.count())]
            offered = {(int(c.get_attribute("data-pool")), int(c.get_attribute("data-pos"))) for c in cards}
            assert offered == {(a["pool"], a["pos"]) for a in legal}
        if phase == "spill":
            assert ints(pool_buttons, "data-pos") == sorted(a["pos"] for a in legal)
            assert {int(pool_buttons.nth(i).get_attribute("data-pool")) for i in range(pool_buttons.count())} == {
                view["spill"]["pool"]}
    elif phase == "discard":
        assert hand_buttons.count() == len(view["hand"]) and len(legal) == 2 ** len(view["hand"])
        expect(page.get_by_test_id("discard-confirm")).to_have_count(1)
    return view


def wait_moved(page: Any, before: int) -> None:
    """Until the hub has acked the move: its deltas come before the ack, so the board shows it.

    A newer seq alone is not enough where seats choose at once (the round-end discards): a bot's
    choice may arrive before this seat's own.
    """
    page.wait_for_function(
        f"""() => window.hubDebug.connection._pending.size === 0
               && Number(document.querySelector('[data-testid=board]').dataset.seq) > {before}""",
        timeout=TURN_TIMEOUT_MS)


def play_turn(page: Any, rng: random.Random) -> str:
    """One decision, made by clicking the table's highlighted elements only."""
    view = check_offers(page)
    phase = str(view["phase"])
    before = seq(page)
    if phase == "play":
        hand = page.locator("[data-testid=hand-card][data-legal=true]")
        hand.nth(rng.randrange(hand.count())).click()
        expect(page.locator("[data-testid=hand-card].selected")).to_have_count(1)
        chosen = int(page.locator("[data-testid=hand-card].selected").get_attribute("data-index"))
        pools = sorted(a["pool"] for a in view["legal"] if a["card"] == chosen)
        # The same choice twice: at each Pool's end, and as a row of Pool buttons under the hand.
        drops = page.locator("[data-testid=play-here]")
        row = page.locator("[data-testid=play-to]")
        assert ints(drops, "data-pool") == pools and ints(row, "data-pool") == pools
        targets = drops if rng.random() < 0.5 else row
        targets.nth(rng.randrange(targets.count())).click()
    elif phase == "discard":
        n = len(view["hand"])
        picks = sorted(i for i in range(n) if rng.random() < 0.35)
        for i in picks:
            page.locator(f"[data-testid=hand-card][data-index='{i}']").click()
        expect(page.locator("[data-testid=hand-card].to-discard")).to_have_count(len(picks))
        confirm = page.get_by_test_id("discard-confirm")
        expect(confirm).to_contain_text(f"Discard {len(picks)}" if picks else "Keep")
        confirm.click()
    else:
        options = page.locator(LEGAL)
        options.nth(rng.randrange(options.count())).click()
    wait_moved(page, before)
    assert page.locator(".toast-error").count() == 0, page.locator(".toast-error").all_inner_texts()
    return phase


def test_whole_game_against_bots_with_a_spectator(browser: Any, hub: HubProcess) -> None:
    player = new_page(browser)
    page = player.page
    rid = create_room(page, hub, seats=3, bots=[1, 2])

    watcher = new_page(browser, width=390, height=844)
    spec = watcher.page
    spec.goto(f"{hub.url}/#/room/{rid}/watch")
    expect(spec.get_by_test_id("spectator-badge")).to_be_visible()
    expect(spec.get_by_test_id("pool")).to_have_count(3)
    expect(spec.get_by_test_id("score-card")).to_have_count(3)
    expect(spec.get_by_test_id("hand")).to_have_count(0)

    rng = random.Random(7)
    phases: dict[str, int] = {}
    moves = 0
    mid_shot = False
    while wait_for_turn(page):
        phase = play_turn(page, rng)
        phases[phase] = phases.get(phase, 0) + 1
        moves += 1
        if phase == "play" and phases[phase] == 1:
            # The card just played lies face down, and its owner alone sees its face.
            assert page.locator("[data-testid=pool-card].mine-down .ff-water").count() >= 1
        if not mid_shot and (phases.get("discard", 0) >= 2 or phases.get("spill")):
            mid_shot = True
            shot(page, "frenzy_falls-midgame")
            # Nothing of the spectator's board is clickable, and no face-down card shows a face.
            assert spec.locator("[data-testid=board] button").count() == 0
            assert spec.locator("[data-testid=board] .ff-card.down .ff-water").count() == 0
            shot(spec, "frenzy_falls-spectator-midgame-phone")
        assert moves < 150, "the game should end"
    assert phases.get("play", 0) >= 6 and phases.get("discard", 0) >= 1, phases

    expect(page.get_by_test_id("result")).to_be_visible()
    expect(page.get_by_test_id("result-headline")).to_contain_text(re.compile("win|victory", re.I))
    final = page.get_by_test_id("ff-final")
    expect(final).to_be_visible()
    expect(final.locator("tbody tr")).to_have_count(3)
    expect(page.get_by_test_id("phase")).to_have_attribute("data-phase", "over")
    assert page.locator(LEGAL).count() == 0
    # One log, the frame's Moves (newest first), in the table's own words.
    assert page.get_by_test_id("ff-log").count() == 0
    assert "game is over" in page.get_by_test_id("log").locator("li").first.inner_text()
    shot(page, "frenzy_falls-result")

    expect(spec.get_by_test_id("result")).to_be_visible()
    expect(spec.get_by_test_id("ff-final").locator("tbody tr")).to_have_count(3)
    expect(spec.get_by_test_id("turn")).to_contain_text("over")
    assert spec.locator("[data-testid=board] button").count() == 0
    shot(spec, "frenzy_falls-spectator-result-phone")

    # The spectator and the player agree on the result, and it is the engine's.
    assert the_view(spec)["result"] == the_view(page)["result"]
    scores = the_view(page)["result"]["scores"]
    shown = [int(x) for x in re.findall(r"★ (\d+)", final.locator("tbody").inner_text())]
    assert sorted(shown) == sorted(scores)
    player.check()
    watcher.check()


def test_keyboard_alone_plays_a_card(browser: Any, hub: HubProcess) -> None:
    """Tab to a hand card, Enter; Tab to a Pool's "Play here", Enter: all buttons, at phone width."""
    w = new_page(browser, width=390, height=844)
    page = w.page
    create_room(page, hub, seats=2, bots=[1])
    assert wait_for_turn(page)
    expect(page.get_by_test_id("phase")).to_have_attribute("data-phase", "play")

    def tab_to(selector: str) -> None:
        for _ in range(120):
            page.keyboard.press("Tab")
            if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector):
                return
        pytest.fail(f"nothing matching {selector} could be reached with Tab")

    tab_to("[data-testid=hand-card][data-legal=true]")
    page.keyboard.press("Enter")
    expect(page.locator("[data-testid=hand-card].selected")).to_have_count(1)
    # Esc takes the choice back; Space makes it again.
    page.keyboard.press("Escape")
    expect(page.locator("[data-testid=hand-card].selected")).to_have_count(0)
    tab_to("[data-testid=hand-card][data-legal=true]")
    page.keyboard.press(" ")
    expect(page.locator("[data-testid=hand-card].selected")).to_have_count(1)
    before = seq(page)
    tab_to("[data-testid=play-to], [data-testid=play-here]")
    page.keyboard.press("Enter")
    wait_moved(page, before)
    expect(page.locator("[data-testid=pool-card].mine-down")).to_have_count(1)
    shot(page, "frenzy_falls-keyboard-phone")
    w.check()


def test_a_spectator_reads_the_moves_on_the_first_screen_in_plain_words(browser: Any, hub: HubProcess) -> None:
    """A spectator's table: no hint repeating the same sentence before every move (the header says
    whose turn it is), the Moves panel within the first screen beside the pools, and counts said as
    counts ("1 card", "3 cards", never "card(s)")."""
    from tests.web import client_kit as kit

    live = kit.make_room(hub, "frenzy_falls", 4, [0, 1, 2, 3], bot_delay_ms=400)
    w = new_page(browser, 1100, 900)
    page = w.page
    page.goto(f"{hub.url}/#/room/{live}/watch")
    expect(page.get_by_test_id("spectator-badge")).to_be_visible()
    moves = page.get_by_test_id("moves-card")
    expect(moves.locator("li").nth(2)).to_be_visible(timeout=15_000)
    top = moves.evaluate("(el) => el.getBoundingClientRect().top")
    assert top < 900 - 100, f"the Moves panel starts {top:.0f} px down a 900 px screen"
    expect(page.get_by_test_id("board")).not_to_contain_text("You are watching:")
    # a whole game's log says its counts as counts
    rid = kit.make_room(hub, "frenzy_falls", 4, [0, 1, 2, 3], bot_delay_ms=0)
    kit.wait_finished(hub, rid, timeout=60)
    page.goto(f"{hub.url}/#/room/{rid}/watch")
    expect(moves.locator("li").first).to_be_visible()
    text = moves.inner_text()
    assert "card(s)" not in text and re.search(r"\b1 cards\b", text) is None
    w.check()
    page.context.close()
