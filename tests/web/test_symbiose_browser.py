"""The browser client against a real hub, in a real Chromium: Symbiose against bots, from the lobby.

Each test drives the page only as a player would (clicking what is highlighted as legal) and
checks what a player would see. Screenshots go to artifacts/screenshots/ for a look afterwards.
"""
from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web.client_kit import browser_serving, new_page, shot
from tests.web.client_kit import view_of as kit_view

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

TURN_TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def browser(chromium_path: str, hub: HubProcess) -> Iterator[Any]:
    yield from browser_serving(chromium_path, hub, "symbiose", "Symbiose")


def create_room(page: Any, hub: HubProcess, seats: int, bots: list[int], name: str = "Tester") -> str:
    """Through the lobby form: the game, the seats, the bots; the page ends seated at seat 0."""
    page.goto(hub.url + "/#/")
    page.get_by_test_id("name").fill(name)
    page.get_by_test_id("new-game").select_option("symbiose")
    page.get_by_test_id("new-seats").select_option(str(seats))
    for seat in bots:
        page.get_by_test_id(f"bot-{seat}").check()
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r".*#/room/[^/]+$"))
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    return page.url.rsplit("/", 1)[-1]


def seq(page: Any) -> int:
    raw = page.get_by_test_id("board").get_attribute("data-seq")
    return int(raw) if raw and raw.isdigit() else -1


def finished(page: Any) -> bool:
    return bool(page.locator("[data-testid=result]:visible").count())


def wait_for_turn(page: Any) -> bool:
    """Wait until something is clickable or the game is over; True while the game goes on."""
    page.wait_for_function(
        """() => document.querySelector('[data-testid=board] [data-legal=true], [data-testid=board] .legal')
               || !document.querySelector('[data-testid=result]').hidden""",
        timeout=TURN_TIMEOUT_MS,
    )
    return not finished(page)


def play_turn(page: Any, rng: random.Random) -> None:
    """One move of the Symbiose table: a flip, or a river card then a pond slot."""
    before = seq(page)
    phase = page.get_by_test_id("phase").get_attribute("data-phase")
    if phase == "swap":
        river = page.locator("[data-testid=river-slot][data-legal=true]")
        assert river.count() > 0, "a swap turn offers river cards"
        river.nth(rng.randrange(river.count())).click()
        expect(page.locator("[data-testid=river-slot].selected")).to_have_count(1)
    targets = page.locator("[data-testid=my-pond] [data-legal=true]")
    assert targets.count() > 0, f"phase {phase}: the pond offers legal slots"
    # Only own slots may be clickable: nothing of another pond is ever a button.
    assert page.locator("[data-testid=pond] [data-legal=true]").count() == 0
    targets.nth(rng.randrange(targets.count())).click()
    page.wait_for_function(f"() => Number(document.querySelector('[data-testid=board]').dataset.seq) > {before}",
                           timeout=TURN_TIMEOUT_MS)


def play_to_end(page: Any, rng: random.Random, *, reload_after: int | None = None, limit: int = 60) -> int:
    moves = 0
    while wait_for_turn(page):
        play_turn(page, rng)
        moves += 1
        if reload_after is not None and moves == reload_after:
            resume_after_reload(page)
        assert moves < limit, "the game should end within its 8 rounds"
    return moves


def resume_after_reload(page: Any) -> None:
    """A reload in the same tab keeps the seat (its token is in sessionStorage) and the game goes on."""
    round_before = page.get_by_test_id("round").inner_text()
    faces_before = page.get_by_test_id("my-pond").locator(".slot.up").count()
    shot(page, "symbiose-before-reload")
    page.reload()
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    expect(page.get_by_test_id("spectator-badge")).to_have_count(0)
    expect(page.get_by_test_id("my-pond")).to_be_visible()
    expect(page.get_by_test_id("net")).to_have_attribute("data-state", "connected")
    # The same game, not a new one: the round did not go back and no face-up card turned back.
    assert page.get_by_test_id("round").inner_text() >= round_before
    assert page.get_by_test_id("my-pond").locator(".slot.up").count() >= faces_before


def test_whole_game_against_bots_with_a_spectator_and_a_reload(browser: Any, hub: HubProcess) -> None:
    player = new_page(browser)
    page = player.page
    rid = create_room(page, hub, seats=3, bots=[1, 2])
    shot(page, "symbiose-start")

    watcher = new_page(browser, width=390, height=844)
    spec = watcher.page
    spec.goto(f"{hub.url}/#/room/{rid}/watch")
    expect(spec.get_by_test_id("spectator-badge")).to_be_visible()
    expect(spec.get_by_test_id("pond")).to_have_count(3)
    assert spec.locator("[data-legal=true]").count() == 0

    # a running score during play: the points the table shows, for every player
    players = page.get_by_test_id("players")
    expect(players.locator("li")).to_have_count(3)
    for li in players.locator("li").all():
        expect(li).to_contain_text(re.compile(r"\d+ points showing"))

    rng = random.Random(7)
    moves = play_to_end(page, rng, reload_after=3)
    assert moves >= 8, "a seat plays 8 turns (plus the flips a face-up swap forces)"

    expect(page.get_by_test_id("result")).to_be_visible()
    expect(page.get_by_test_id("result-headline")).to_contain_text(re.compile("win|victory", re.I))
    # everyone's total at once, before any step of the scoring is revealed
    view = kit_view(page)
    totals = page.get_by_test_id("result-totals")
    expect(totals).to_be_visible()
    for seat, points in enumerate(view["result"]["scores"]):
        expect(totals.locator(f"[data-seat='{seat}']")).to_contain_text(str(points))
    expect(page.get_by_test_id("score-next")).to_be_enabled()  # the steps wait, the totals do not
    # The end screen reveals the scoring column by column, one step at a time, for each of the 3 seats.
    scoring = page.get_by_test_id("result-scores")
    expect(scoring).to_be_visible()
    expect(scoring.locator("thead th")).to_have_count(4)
    page.get_by_test_id("score-all").click()
    expect(scoring.locator("tbody tr:visible")).to_have_count(int(scoring.get_attribute("data-steps") or 0))
    expect(page.get_by_test_id("scoring")).to_have_count(0)  # not a second time on the board
    # Column by column: four column totals under every pond, points on every card.
    expect(page.get_by_test_id("col-total")).to_have_count(12)
    expect(page.get_by_test_id("slot-points")).to_have_count(24)
    assert page.locator("[data-legal=true]").count() == 0
    shot(page, "symbiose-result")

    expect(spec.get_by_test_id("result")).to_be_visible()
    expect(spec.get_by_test_id("result-scores").locator("thead th")).to_have_count(4)
    spec.get_by_test_id("score-all").click()
    expect(spec.get_by_test_id("turn")).to_contain_text("over")
    assert spec.locator("[data-legal=true]").count() == 0
    shot(spec, "symbiose-spectator-result-phone")

    # The spectator and the player agree on the scores.
    assert (page.get_by_test_id("result-scores").inner_text()
            == spec.get_by_test_id("result-scores").inner_text())
    player.check()
    watcher.check()


def test_keyboard_alone_plays_a_turn(browser: Any, hub: HubProcess) -> None:
    """Tab to a highlighted card and press Enter: every clickable thing is a focusable button."""
    w = new_page(browser, width=390, height=844)
    page = w.page
    create_room(page, hub, seats=2, bots=[1])
    assert wait_for_turn(page)
    expect(page.get_by_test_id("phase")).to_have_attribute("data-phase", "flip")
    before = seq(page)
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement && document.activeElement.dataset.legal === 'true'"):
            break
    else:
        pytest.fail("no legal slot could be reached with Tab")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => Number(document.querySelector('[data-testid=board]').dataset.seq) > {before}")
    expect(page.get_by_test_id("my-pond").locator(".slot.up")).to_have_count(1)
    # A swap by keyboard: a river card, Enter, then a pond slot, Enter.
    assert wait_for_turn(page)
    expect(page.get_by_test_id("phase")).to_have_attribute("data-phase", "swap")
    page.locator("[data-testid=river-slot][data-legal=true]").first.focus()
    page.keyboard.press("Enter")
    expect(page.locator("[data-testid=river-slot].selected")).to_have_count(1)
    before = seq(page)
    page.locator("[data-testid=my-pond] [data-legal=true]").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => Number(document.querySelector('[data-testid=board]').dataset.seq) > {before}")
    shot(page, "symbiose-keyboard-phone")
    w.check()


def test_dropped_socket_resumes_and_a_second_tab_takes_the_seat_over(browser: Any, hub: HubProcess) -> None:
    w = new_page(browser)
    page = w.page
    rid = create_room(page, hub, seats=2, bots=[1])
    rng = random.Random(3)
    assert wait_for_turn(page)
    play_turn(page, rng)

    # The socket drops under the page: it comes back by itself and resumes from its last seq
    # (the hub still holds every delta since, so its welcome carries no view).
    stats = page.evaluate("() => ({...window.hubDebug.connection.stats})")
    page.evaluate("() => window.hubDebug.connection.ws.close()")
    page.wait_for_function(f"() => window.hubDebug.connection.stats.welcomes > {stats['welcomes']}")
    expect(page.get_by_test_id("net")).to_have_attribute("data-state", "connected")
    after = page.evaluate("() => ({...window.hubDebug.connection.stats})")
    assert after["resumed"] == stats["resumed"] + 1, after
    assert after["gaps"] == 0 and after["patchFailures"] == 0, after
    assert wait_for_turn(page)
    play_turn(page, rng)

    # The same seat opened elsewhere (the token copied into another tab): the first is told, and stays closed.
    token = page.evaluate(f"() => sessionStorage.getItem('hub.seat.{rid}')")
    other = new_page(browser)
    other.page.context.add_init_script(f"sessionStorage.setItem('hub.seat.{rid}', {json.dumps(token)})")
    other.page.goto(f"{hub.url}/#/room/{rid}")
    expect(other.page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    expect(page.get_by_test_id("banner")).to_have_attribute("data-code", "4009")
    expect(page.get_by_test_id("net")).to_have_attribute("data-state", "closed")
    page.wait_for_timeout(1500)
    expect(page.get_by_test_id("net")).to_have_attribute("data-state", "closed")
    shot(page, "symbiose-taken-over")
    # The game goes on in the tab that took over.
    assert wait_for_turn(other.page)
    play_turn(other.page, rng)
    w.check()
    other.check()


def test_unknown_room_and_unknown_token_are_shown_and_not_retried(browser: Any, hub: HubProcess) -> None:
    w = new_page(browser)
    page = w.page
    page.goto(f"{hub.url}/#/room/no-such-room")
    expect(page.get_by_test_id("banner")).to_have_attribute("data-code", "4004")
    expect(page.get_by_test_id("net")).to_have_attribute("data-state", "closed")

    rid = create_room(page, hub, seats=2, bots=[1])
    other = new_page(browser)
    bogus = json.dumps(json.dumps({"seat": 0, "token": "not-a-token"}))
    other.page.context.add_init_script(f"sessionStorage.setItem('hub.seat.{rid}', {bogus})")
    other.page.goto(f"{hub.url}/#/room/{rid}")
    expect(other.page.get_by_test_id("banner")).to_have_attribute("data-code", "4001")
    expect(other.page.get_by_test_id("net")).to_have_attribute("data-state", "closed")
    # The seat this tab thought it held is forgotten, and watching is one click away.
    other.page.get_by_role("link", name=re.compile("Watch instead")).click()
    expect(other.page.get_by_test_id("spectator-badge")).to_be_visible()
    expect(other.page.get_by_test_id("net")).to_have_attribute("data-state", "connected")
    # The real seat was not disturbed.
    expect(page.get_by_test_id("net")).to_have_attribute("data-state", "connected")
    w.check()
    other.check()


def stats(page: Any) -> dict[str, int]:
    return dict(page.evaluate("() => ({...window.hubDebug.connection.stats})"))


def inject(page: Any, frame: dict[str, Any]) -> None:
    """Hand the connection a frame as if the hub had sent it (JSON text takes the same path)."""
    page.evaluate("(f) => window.hubDebug.connection._onFrame(JSON.stringify(f))", frame)


def test_a_gap_or_a_bad_patch_resynchronises_the_view(browser: Any, hub: HubProcess) -> None:
    """A delta out of sequence, or one that does not apply, is never shown: the page resumes instead."""
    w = new_page(browser)
    page = w.page
    create_room(page, hub, seats=2, bots=[1])
    assert wait_for_turn(page)
    # who is here moves the seq: a resume shows this seat away, then here; each step injects
    # against the seq the page holds once that has settled
    settled = "() => window.hubDebug.connection.view.players.every(p => p.presence !== 'away')"
    page.wait_for_function(settled)
    view_before = page.evaluate("() => JSON.stringify(window.hubDebug.connection.view)")
    cur = page.evaluate("() => window.hubDebug.connection.seq")

    before = stats(page)
    inject(page, {"t": "delta", "seq": cur + 5, "ops": [{"op": "replace", "path": "/phase", "value": "bogus"}]})
    page.wait_for_function(f"() => window.hubDebug.connection.stats.welcomes > {before['welcomes']}")
    after = stats(page)
    assert after["gaps"] == before["gaps"] + 1 and after["resumed"] == before["resumed"] + 1, after

    page.wait_for_function(settled)
    cur = page.evaluate("() => window.hubDebug.connection.seq")
    before = stats(page)
    inject(page, {"t": "delta", "seq": cur + 1, "ops": [{"op": "replace", "path": "/no/such/path", "value": 1}]})
    page.wait_for_function(f"() => window.hubDebug.connection.stats.welcomes > {before['welcomes']}")
    after = stats(page)
    assert after["patchFailures"] == before["patchFailures"] + 1 and after["resumed"] == before["resumed"] + 1

    # The same failure again: resuming cannot help twice, so the page asks for a whole snapshot. The
    # resume's first delta fails as the one before it did (as a hub replaying a broken delta would).
    page.wait_for_function(settled)
    cur = page.evaluate("() => window.hubDebug.connection.seq")
    before = stats(page)
    page.evaluate("""(f) => {
        const c = window.hubDebug.connection;
        const welcome = c._onWelcome.bind(c);
        c._onWelcome = (w) => {
            c._onWelcome = welcome;
            welcome(w);
            c._onFrame(JSON.stringify({ ...f, seq: c.seq + 1 }));
        };
        c._onFrame(JSON.stringify(f));
    }""", {"t": "delta", "seq": cur + 1, "ops": [{"op": "test", "path": "/phase", "value": "bogus"}]})
    page.wait_for_function(f"() => window.hubDebug.connection.stats.welcomes > {before['welcomes'] + 1}")
    after = stats(page)
    assert after["snapshots"] == before["snapshots"] + 1, after

    page.wait_for_function(settled)
    assert page.evaluate("() => JSON.stringify(window.hubDebug.connection.view)") == view_before
    assert page.get_by_test_id("phase").get_attribute("data-phase") == "flip"
    expect(page.get_by_test_id("net")).to_have_attribute("data-state", "connected")
    play_turn(page, random.Random(5))
    w.check()


def test_contest_is_answered_with_seen_before_anything_renders(browser: Any, hub: HubProcess) -> None:
    """The `seen` answer leaves from inside the frame handler, before any listener sees the contest."""
    w = new_page(browser)
    page = w.page
    create_room(page, hub, seats=2, bots=[1])
    assert wait_for_turn(page)
    page.evaluate("""async () => {
        const { decode } = await import("@msgpack/msgpack");
        const conn = window.hubDebug.connection;
        window.sent = [];
        window.seenBeforeListener = null;
        const send = conn.ws.send.bind(conn.ws);
        conn.ws.send = (data) => { window.sent.push(decode(new Uint8Array(data))); send(data); };
        conn.on("contest", () => {
            window.seenBeforeListener = window.sent.some((f) => f.t === "seen" && f.id === "n-1");
        });
    }""")
    inject(page, {"t": "contest", "id": "n-1", "contest": "c-1", "kind": "grab", "commit": "00"})
    assert page.evaluate("() => window.seenBeforeListener") is True
    grab = page.get_by_test_id("grab")
    expect(grab).to_be_visible()
    expect(grab).to_be_focused()
    grab.click()
    page.wait_for_function("() => window.sent.some((f) => f.t === 'act' && f.action.type === 'grab')")
    act = page.evaluate("() => window.sent.find((f) => f.t === 'act' && f.action.type === 'grab')")
    assert act["action"] == {"type": "grab", "contest": "n-1"} and isinstance(act["id"], int)
    inject(page, {"t": "event", "kind": "contest_result", "contest": "c-1", "winner": None,
                  "judged": {}, "refused": {}, "secret": "s"})
    expect(grab).to_have_count(0)
    # The table is as it was: a Symbiose grab is refused by the engine and changes nothing.
    expect(page.get_by_test_id("phase")).to_have_attribute("data-phase", "flip")
    w.check()


def test_generic_renderer_plays_a_whole_game(browser: Any, hub: HubProcess) -> None:
    """Without a game module the frame lists every legal action as a button: enough to finish a game."""
    w = new_page(browser)
    page = w.page
    page.route(re.compile(r".*/games/symbiose\.js$"), lambda route: route.fulfill(status=404, body="missing"))
    create_room(page, hub, seats=2, bots=[1])
    rng = random.Random(11)
    moves = 0
    while wait_for_turn(page):
        buttons = page.locator("[data-testid=legal]")
        assert buttons.count() > 0
        before = seq(page)
        buttons.nth(rng.randrange(buttons.count())).click()
        page.wait_for_function(f"() => Number(document.querySelector('[data-testid=board]').dataset.seq) > {before}",
                               timeout=TURN_TIMEOUT_MS)
        moves += 1
        assert moves < 60
    # Without a module there are no scoring steps: the end screen's final table is the ranking.
    expect(page.get_by_test_id("result-final")).to_be_visible()
    expect(page.get_by_test_id("result-final").locator("tbody tr")).to_have_count(2)
    expect(page.get_by_test_id("result-scores")).to_have_count(0)
    shot(page, "generic-result")
    w.check()
