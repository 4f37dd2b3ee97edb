"""The Frenetic Village table against a real hub, in a real Chromium: one battle against a bot.

The page is driven only as a player would drive it: every click lands on an element of the game's
own table that is highlighted as legal (never on the generic fallback list). What to play is
decided by the engine's own bot logic applied to the page's view (the seat's view, nothing more), so
the test's player aims at a combination and a battle ends in a few dozen turns (2 seats, bot
against bot-like play: median 16 turns, longest 52 in 3,000 seeded battles). Grabs are decided by
the bot's `wants`, and the first contest is always tried, so every run grabs through the UI at least
once, by the keyboard (G), and later ones by clicking the card. Screenshots go to
artifacts/screenshots/.
"""
from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

import rules.frenetic_village.components as fc
from rules.frenetic_village.bot import bot_action, wants
from tests.conftest import HubProcess
from tests.web.client_kit import SHOTS, Pacer, browser_serving, join, make_room, new_page, shot

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

STEP_TIMEOUT_MS = 15_000
BATTLE_SECONDS = 80  # the longest seeded battle (52 turns) would take about 40 s here
GRAB_WINDOW_MS = 500
# A human-like pause before grabbing: faster than 100 ms judged would be refused as a false start.
REACTION_S = 0.16
BOARD = "[data-testid=board]"


@pytest.fixture(scope="module")
def browser(chromium_path: str, hub: HubProcess) -> Iterator[Any]:
    yield from browser_serving(chromium_path, hub, "frenetic_village", "Frenetic Village")


def create_room(page: Any, hub: HubProcess, *, grab_window_ms: int = GRAB_WINDOW_MS) -> str:
    """Through the lobby form: 2 seats, seat 1 a bot, a short bot delay and grab window."""
    page.goto(hub.url + "/#/")
    page.get_by_test_id("name").fill("Tester")
    page.get_by_test_id("new-game").select_option("frenetic_village")
    page.get_by_test_id("new-seats").select_option("2")
    page.get_by_test_id("opt-variant").select_option(label="Single")
    # The form speaks seconds; the hub's options are in milliseconds.
    page.get_by_test_id("opt-bot_delay_ms").fill("0.04")
    page.get_by_test_id("opt-grab_window_ms").fill(str(grab_window_ms / 1000))
    page.get_by_test_id("bot-1").check()
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r".*#/room/[^/]+$"))
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    expect(page.locator(f"{BOARD} .frenetic-village")).to_be_visible()
    return str(page.url.rsplit("/", 1)[-1])


def seq(page: Any) -> int:
    raw = page.get_by_test_id("board").get_attribute("data-seq")
    return int(raw) if raw and raw.isdigit() else -1


def finished(page: Any) -> bool:
    return bool(page.locator("[data-testid=result]:visible").count())


# What the page offers now, in one look: a grab, a move, the end, or nothing yet.
STATE_JS = """(done) => {
  const result = document.querySelector('[data-testid=result]');
  if (result && !result.hidden) return 'over';
  const grab = document.querySelector('[data-testid=board] [data-testid=grab-card]:not([disabled])');
  if (grab && !done.includes(grab.dataset.cid)) return 'grab';
  if (document.querySelector('[data-testid=board] [data-legal=true]:not([data-testid=grab-card])')) return 'move';
  return '';
}"""


def next_state(page: Any, done: list[str]) -> str:
    handle = page.wait_for_function(STATE_JS, arg=done, timeout=STEP_TIMEOUT_MS, polling="raf")
    return str(handle.json_value())


def assert_only_own_table_is_clickable(page: Any) -> None:
    """Nothing of the generic fallback, and every button of the board leads to a legal move."""
    assert page.locator("[data-testid=legal-list]").count() == 0
    assert page.locator(f"{BOARD} button:not([data-legal=true])").count() == 0


def click_legal(page: Any, selector: str) -> None:
    el = page.locator(f"{BOARD} {selector}")
    expect(el).to_have_count(1)
    expect(el).to_have_attribute("data-legal", "true")
    el.click()


def wait_moved(page: Any, before: int) -> None:
    page.wait_for_function(f"() => Number(document.querySelector('{BOARD}').dataset.seq) > {before}",
                           timeout=STEP_TIMEOUT_MS)


def play_move(page: Any, rng: random.Random) -> dict[str, Any]:
    """Choose as the bot would from this seat's view, then make that move by clicks on the table."""
    got = page.evaluate("() => ({view: window.hubDebug.connection.view, seq: window.hubDebug.connection.seq})")
    view, before = got["view"], got["seq"]
    assert view["legal"], "a highlighted element means there is a legal move"
    assert_only_own_table_is_clickable(page)
    action = bot_action(view, rng)
    assert action in view["legal"]
    me = page.evaluate("() => window.hubDebug.connection.seat")
    kind = action["type"]
    if kind == "draw":
        click_legal(page, "[data-testid=draw-pile]")
    elif kind == "declare":
        click_legal(page, f"[data-testid=declare][data-slot='{action['slot']}']")
    else:
        click_legal(page, f"[data-testid=hand-card][data-slot='{action['slot']}']")
        expect(page.locator(f"{BOARD} [data-testid=hand-card].selected")).to_have_count(1)
        target = me if kind == "discard" else action["target"]
        click_legal(page, f"[data-testid=pile][data-seat='{target}'][data-action={kind}]")
        if "give" in action:
            click_legal(page, f"[data-testid=hand-card][data-slot='{action['give']}'][data-role=give]")
    wait_moved(page, before)
    return action


def me(page: Any) -> int:
    return int(page.evaluate("() => window.hubDebug.connection.seat"))


def try_grab(page: Any, done: list[str], grabs: int) -> bool:
    """A contest is offered on a pile's top card: grab it if it helps (and always the first one)."""
    button = page.locator(f"{BOARD} [data-testid=grab-card]")
    cid = button.get_attribute("data-cid") or ""
    done.append(cid)
    view = page.evaluate("() => window.hubDebug.connection.view")
    card = view["contest"]["card"] if view.get("contest") else None
    if grabs and not wants(view, card):
        return False
    time.sleep(REACTION_S)
    try:
        if grabs == 0:
            page.keyboard.press("g")  # the shortcut, wherever the focus is
        else:
            button.click(timeout=1000)
    except sync_api.Error:
        return False  # the window closed first: the contest went on without us
    # The result shows with every judged time, this seat's among them; with none, the press came
    # after the window had closed (a loaded machine can take that long) and the battle goes on
    # without this try: the battle's end still asserts that some try was judged.
    result = page.locator(f"{BOARD} [data-testid=contest-result][data-cid='{cid}']")
    expect(result).to_be_visible(timeout=5000)
    if result.locator("[data-testid=judged]").count() == 0:
        expect(result).to_contain_text("Nobody tried")
        return False
    expect(result.locator(f"[data-testid=judged] li[data-seat='{me(page)}']")).to_have_count(1)
    assert re.search(r"\d+ ms", result.inner_text())
    return True


def test_one_battle_against_a_bot_with_a_spectator(browser: Any, hub: HubProcess) -> None:
    player = new_page(browser)
    page = player.page
    watcher = new_page(browser, width=390, height=844)
    spec = watcher.page
    rng = random.Random(7)
    mid_shot = False
    grabs = 0
    # A bot holding a combination can end a battle before a contest comes to this seat (or, on a
    # loaded machine, before a press lands in a window): then another battle, at most three.
    for _ in range(3):
        rid = create_room(page, hub)
        spec.goto(f"{hub.url}/#/room/{rid}/watch")
        expect(spec.get_by_test_id("spectator-badge")).to_be_visible()
        expect(spec.locator(f"{BOARD} [data-testid=pile]")).to_have_count(2)
        expect(spec.locator(f"{BOARD} [data-testid=my-hand]")).to_have_count(0)

        done: list[str] = []
        grabs = moves = 0
        start = time.monotonic()
        while True:
            assert time.monotonic() - start < BATTLE_SECONDS, f"the battle did not end ({moves} moves, {grabs} grabs)"
            state = next_state(page, done)
            if state == "over":
                break
            if state == "grab":
                if try_grab(page, done, grabs):
                    grabs += 1
                    if grabs == 1:
                        shot(page, "frenetic-village-grab-result")
                continue
            play_move(page, rng)
            moves += 1
            if moves == 6 and not mid_shot:
                mid_shot = True
                shot(page, "frenetic-village-mid-game")
                shot(spec, "frenetic-village-spectator-mid-game-phone")
                # The spectator sees the same piles and nothing clickable; the page fits a phone.
                assert spec.locator(f"{BOARD} [data-legal=true], {BOARD} button").count() == 0
                assert spec.evaluate("() => document.documentElement.scrollWidth") <= 390
        print(f"battle: {moves} moves, {grabs} grabs, {len(done)} contests, {time.monotonic() - start:.1f} s")
        if grabs:
            break
    assert grabs >= 1, "the first contest offered to this seat is always tried"

    # The end: the frame's result, the winning hand on the table, and the same for the spectator.
    expect(page.get_by_test_id("result-headline")).to_contain_text("wins")
    expect(page.locator(f"{BOARD} [data-testid=last-battle]")).to_be_visible()
    expect(page.locator(f"{BOARD} [data-testid=winning-hand] .fv-card")).to_have_count(5)
    assert page.locator(f"{BOARD} [data-legal=true]").count() == 0
    shot(page, "frenetic-village-end")
    expect(spec.get_by_test_id("result")).to_be_visible(timeout=STEP_TIMEOUT_MS)
    expect(spec.locator(f"{BOARD} [data-testid=winning-hand] .fv-card")).to_have_count(5)
    assert spec.get_by_test_id("result-headline").inner_text().split("!")[0] == \
        page.get_by_test_id("result-headline").inner_text().split("!")[0]
    assert spec.locator(f"{BOARD} button").count() == 0
    shot(spec, "frenetic-village-spectator-end-phone")
    player.check()
    watcher.check()


def inject(page: Any, frame: dict[str, Any]) -> bool:
    """Hand the connection a frame as if the hub had sent it; True if the grab card was up on return."""
    return bool(page.evaluate("""(f) => {
        window.hubDebug.connection._onFrame(JSON.stringify(f));
        return !!document.querySelector('[data-testid=board] [data-testid=grab-card]:not([disabled])');
    }""", frame))


def test_contest_lights_the_pile_top_at_once_and_space_grabs(browser: Any, hub: HubProcess) -> None:
    """The grab control is drawn inside the frame handler, on the pile's top card; Space sends the grab."""
    w = new_page(browser, width=390, height=844)
    page = w.page
    create_room(page, hub)
    # A quiet moment: this seat's turn to draw, so no real contest can open meanwhile.
    done: list[str] = []
    while next_state(page, done) != "move":
        done.append(page.locator(f"{BOARD} [data-testid=grab-card]").get_attribute("data-cid") or "")
    page.evaluate("""async () => {
        const { decode } = await import("@msgpack/msgpack");
        const conn = window.hubDebug.connection;
        window.sent = [];
        const send = conn.ws.send.bind(conn.ws);
        conn.ws.send = (data) => { window.sent.push(decode(new Uint8Array(data))); send(data); };
    }""")
    card = {"kind": "army", "race": "elves", "value": 4, "name": "Elves 4"}
    frame = {"t": "contest", "id": "n-test", "contest": "c-test", "kind": "grab", "commit": "00",
             "pile": 1, "placer": 1, "card": card}
    assert inject(page, frame), "the grab card is on screen before the frame handler returns"
    grab = page.locator(f"{BOARD} [data-testid=pile][data-seat='1'] [data-testid=grab-card]")
    expect(grab).to_be_visible()
    expect(grab).to_be_focused()
    expect(grab).to_have_attribute("data-race", "elves")
    assert "Elves" in grab.inner_text() and "GRAB" in grab.inner_text()
    shot(page, "frenetic-village-grab-lit-phone")
    page.keyboard.press("Space")
    page.wait_for_function("() => window.sent.some((f) => f.t === 'act' && f.action.type === 'grab')")
    acts = page.evaluate("() => window.sent.filter((f) => f.t === 'act' && f.action.type === 'grab')")
    assert [a["action"] for a in acts] == [{"type": "grab", "contest": "n-test"}]
    page.keyboard.press("g")  # one try per contest: a second key press sends nothing
    page.wait_for_timeout(200)
    assert len(page.evaluate("() => window.sent.filter((f) => f.t === 'act' && f.action.type === 'grab')")) == 1
    # The hub refuses a nonce it never issued; the result event then shows the judged times.
    inject(page, {"t": "event", "kind": "contest_result", "contest": "c-test", "winner": 1,
                  "judged": {"1": 402, "0": 455}, "refused": {}, "tied": [], "secret": "ab", "bounded": [0]})
    expect(page.locator(f"{BOARD} [data-testid=grab-card]")).to_have_count(0)
    result = page.locator(f"{BOARD} [data-testid=contest-result]")
    expect(result).to_have_attribute("data-cid", "c-test")
    expect(result.locator("[data-testid=judged] li")).to_have_count(2)
    expect(result.locator("[data-testid=judged] li").first).to_contain_text("402 ms")
    expect(result).to_contain_text("455 ms")
    # seat 0 claimed more delay than its kernel measured: the table says its allowance was held to that
    expect(result.locator("[data-testid=judged] li[data-seat='0'] [data-testid=bounded]")).to_have_count(1)
    expect(result.locator("[data-testid=judged] li[data-seat='1'] [data-testid=bounded]")).to_have_count(0)
    # by how much it was won, in words
    expect(result.get_by_test_id("result-line")).to_contain_text("53 ms ahead of")
    # The commitment "00" is not sha256 of the secret: the table says so (and only then speaks of it).
    expect(result.get_by_test_id("lottery")).to_contain_text("does NOT match")
    expect(result).not_to_contain_text("commitment")

    # The next contest, on this seat's own pile this time, grabbed with the mouse.
    wild = {"kind": "wild", "name": "Wildcard"}
    assert inject(page, {**frame, "id": "n-test2", "contest": "c-test2", "pile": 0, "card": wild})
    page.locator(f"{BOARD} [data-testid=pile][data-seat='0'] [data-testid=grab-card]").click()
    page.wait_for_function("() => window.sent.some((f) => f.t === 'act' && f.action.contest === 'n-test2')")
    expect(page.locator(f"{BOARD} [data-testid=grab-card]")).to_be_disabled()
    assert len(page.evaluate("() => window.sent.filter((f) => f.t === 'act' && f.action.type === 'grab')")) == 2
    w.check()


def test_keyboard_alone_makes_a_move(browser: Any, hub: HubProcess) -> None:
    """Tab to a highlighted element and press Enter: every clickable thing is a focusable button."""
    w = new_page(browser, width=390, height=844)
    page = w.page
    create_room(page, hub)
    done: list[str] = []
    while next_state(page, done) != "move":
        done.append(page.locator(f"{BOARD} [data-testid=grab-card]").get_attribute("data-cid") or "")
    before = seq(page)
    page.locator("[data-testid=seat-badge]").click()
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement && document.activeElement.dataset.legal === 'true'"
                         " && document.activeElement.dataset.testid !== 'grab-card'"):
            break
    else:
        pytest.fail("no legal element could be reached with Tab")
    testid = page.evaluate("() => document.activeElement.dataset.testid")
    page.keyboard.press("Enter")
    if testid == "hand-card":  # a card chosen: Tab on to the pile it can go to, Enter again
        expect(page.locator(f"{BOARD} [data-testid=hand-card].selected")).to_have_count(1)
        page.locator(f"{BOARD} [data-testid=pile][data-legal=true][data-action=discard]").focus()
        page.keyboard.press("Enter")
    wait_moved(page, before)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    shot(page, "frenetic-village-keyboard-phone")
    w.check()


# --- the module alone, on views the engine makes --------------------------------------------------

RENDER_JS = """async ([view, seat, room]) => {
    const mod = (await import('/games/frenetic_village.js')).default;
    const { render } = await import('/ui.js');
    // as the frame does: the catalogue with the module (views name cards by their kinds' ids)
    await (await import('/words.js')).loadCatalogue('frenetic_village');
    let el = document.getElementById('fv-test');
    if (!el) { el = document.createElement('section'); el.id = 'fv-test'; document.body.prepend(el); }
    window.fvSent = [];
    const ctx = {
        seat, isSpectator: seat === null, room, name: (s) => `P${s}`, serverNow: () => Date.now(),
        send: (a) => { window.fvSent.push(a); return Promise.resolve(true); },
        rerender: () => render(mod.render(view, ctx), el),
    };
    ctx.rerender();
}"""


def card_id(kind: str, race: str | None = None, value: int | None = None, nth: int = 0) -> int:
    ids = [i for i, (k, r, v) in enumerate(fc.CARDS)
           if k == kind and (race is None or fc.RACES[r] == race) and (value is None or v == value)]
    return ids[nth]


def engine_view(hand: list[int], seats: int = 3, phase: str = "play", seat: int | None = 0) -> dict[str, Any]:
    """A view of seat 0 (or a spectator) whose hand is `hand`, taken from the engine itself."""
    from rules.frenetic_village import GAME

    state = GAME.setup(seats, 5, {})
    used = set(hand)
    pool = [c for c in range(62) if c not in used]
    state.hands = [list(hand)] + [pool[5 * i:5 * i + 5] for i in range(seats - 1)]
    state.draw = pool[5 * (seats - 1):]
    state.turn, state.phase = 0, phase
    return dict(GAME.view(state, seat))


def test_every_legal_action_is_reachable_by_clicks_and_nothing_else(browser: Any, hub: HubProcess) -> None:
    """Each item of view.legal, and only those, can be sent by clicking highlighted buttons."""
    w = new_page(browser, width=390, height=844)
    page = w.page
    page.goto(hub.url + "/#/")
    hand = [card_id("palla_paca_card"), card_id("army", "elves", 3), card_id("skulls"),
            card_id("army", "elves", 4), card_id("wild"), card_id("one_card")]
    view = engine_view(hand)
    legal = view["legal"]
    assert {a["type"] for a in legal} == {"discard", "play"} and any("give" in a for a in legal)
    for n, action in enumerate(legal):
        page.evaluate(RENDER_JS, [view, 0, f"play-{n}"])  # a fresh table: no card chosen yet
        root = page.locator("#fv-test")
        assert root.locator("button:not([data-legal=true])").count() == 0
        root.locator(f"[data-testid=hand-card][data-slot='{action['slot']}'][data-legal=true]").click()
        if action["type"] == "discard":
            root.locator("[data-testid=pile][data-seat='0'][data-action=discard]").click()
        else:
            # Only piles this card may go onto are buttons.
            targets = {int(x) for x in root.locator("[data-testid=pile][data-legal=true]").evaluate_all(
                "(els) => els.map((e) => e.dataset.seat)")}
            assert targets == {0} | {a["target"] for a in legal if a["slot"] == action["slot"] and a["type"] == "play"}
            root.locator(f"[data-testid=pile][data-seat='{action['target']}'][data-action=play]").click()
            if "give" in action:
                gives = root.locator("[data-testid=hand-card][data-role=give]")
                assert gives.count() == len(hand) - 1
                gives.and_(root.locator(f"[data-slot='{action['give']}']")).click()
        assert page.evaluate("() => window.fvSent") == [action]

    # A winning hand: the declare buttons send exactly the legal declares.
    win = [card_id("army", r, v) for r, v in
           [("elves", 1), ("humans", 2), ("orcs", 3), ("dwarves", 4), ("goblins", 5)]] + [card_id("skulls")]
    view = engine_view(win)
    declares = [a for a in view["legal"] if a["type"] == "declare"]
    assert declares
    for n, action in enumerate(declares):
        page.evaluate(RENDER_JS, [view, 0, f"declare-{n}"])
        page.locator(f"#fv-test [data-testid=declare][data-slot='{action['slot']}']").click()
        assert page.evaluate("() => window.fvSent") == [action]
    expect(page.locator("#fv-test [data-testid=combos] li").first).to_contain_text("complete")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#fv-test").screenshot(path=str(SHOTS / "frenetic-village-declare-phone.png"))

    # A spectator's board: the same piles, no hand, nothing clickable.
    page.evaluate(RENDER_JS, [engine_view(win, seat=None), None, "watch"])
    assert page.locator("#fv-test button").count() == 0
    expect(page.locator("#fv-test [data-testid=pile]")).to_have_count(3)
    expect(page.locator("#fv-test [data-testid=my-hand]")).to_have_count(0)
    w.check()


def test_closest_combination_matches_the_engines_measure(browser: Any, hub: HubProcess) -> None:
    """The table's "closest combinations" count what the bots' measure counts, on random hands."""
    w = new_page(browser)
    page = w.page
    page.goto(hub.url + "/#/")
    rng = random.Random(3)
    hands = [rng.sample(range(fc.DECK_SIZE), rng.choice([5, 6])) for _ in range(400)]
    faces = [[fc.face(c) for c in hand] for hand in hands]
    counts = page.evaluate("""async (hands) => {
        const { closest } = await import('/games/frenetic_village.js');
        return hands.map((h) => (closest(h, 1)[0] || { count: 0 }).count);
    }""", faces)
    for hand, got in zip(hands, counts, strict=True):
        army, wilds, _ = fc.split(hand)
        assert got == fc.progress(army, wilds)[0], [fc.name(c) for c in hand]
    w.check()


# --- a grab that comes too late -------------------------------------------------------------------

# The page's grab leaves only once the contest's result has come back, and a little later still:
# the network between page and hub held it past the window, whatever the load of the machine.
HOLD_LATE_GRAB_JS = """async (extraMs) => {
    const { decode } = await import("@msgpack/msgpack");
    const conn = window.hubDebug.connection;
    const ws = conn.ws;
    const send = ws.send.bind(ws);
    window.lateGrab = { held: null, sent: false };
    conn.on("event", (f) => {
        // one contest is open at a time: the first result after the grab is its contest's
        const held = window.lateGrab.held;
        if (f.kind !== "contest_result" || !held) return;
        window.lateGrab.held = null;
        setTimeout(() => { window.lateGrab.sent = true; send(held); }, extraMs);
    });
    ws.send = (data) => {
        const f = decode(new Uint8Array(data));
        if (f.t === "act" && f.action.type === "grab" && !window.lateGrab.sent) window.lateGrab.held = data;
        else send(data);
    };
}"""


def discards_first(view: dict[str, Any]) -> dict[str, Any] | None:
    """The other seat's play: draw, then put a card on its own pile, which opens a grab for seat 0."""
    legal = view.get("legal") or []
    return next((a for a in legal if a["type"] in ("discard", "draw")), None)


def offered_a_grab(page: Any) -> Any:
    """Play the page's turns (draw, then a card onto its own pile: a grab for seat 1, which has
    nobody to try it) until seat 1's discard offers the page a grab; its lit card."""
    grab = page.locator(f"{BOARD} [data-testid=grab-card]:not([disabled])")
    deadline = time.monotonic() + 15
    while not grab.count():
        assert time.monotonic() < deadline, "no grab was offered to the page"
        state = page.wait_for_function(
            """() => document.querySelector('[data-testid=board] [data-testid=grab-card]:not([disabled])')
                ? 'grab' : (window.hubDebug.connection.view?.legal?.length ? 'move' : '')""",
            timeout=STEP_TIMEOUT_MS, polling="raf").json_value()
        if state == "move":
            page.evaluate("""() => {
                const legal = window.hubDebug.connection.view.legal;
                return window.hubDebug.session.send(legal.find((a) => a.type === 'discard' || a.type === 'draw'));
            }""")
    return grab


def test_a_grab_that_reaches_the_hub_after_the_window_is_told_how_late(browser: Any, hub: HubProcess) -> None:
    """A grab that reaches the hub after its contest closed is answered `too_late` with by how much,
    and the page says "Too late by N ms" where the move's status shows, not a bare refusal."""
    held_ms = 250
    # No bot anywhere: seat 1 is this test's own socket, so the only one who may grab is the page.
    rid = make_room(hub, "frenetic_village", 2, [], grab_window_ms=1000, bot_delay_ms=10000)
    mine = join(hub, rid, "Ann", 0)
    w = new_page(browser, seat=(rid, mine))
    page = w.page
    page.goto(f"{hub.url}/#/room/{rid}")
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    page.wait_for_function("() => window.hubDebug.connection.live()", timeout=STEP_TIMEOUT_MS)
    page.evaluate(HOLD_LATE_GRAB_JS, held_ms)
    other = join(hub, rid, "Bob", 1)
    pacer = Pacer(hub, rid, other["token"], discards_first, every=0.1)
    pacer.start()
    try:
        grab = offered_a_grab(page)
        grab.click()
        status = page.get_by_test_id("move-status")
        expect(status).to_contain_text(re.compile(r"Too late by \d+ ms"), timeout=STEP_TIMEOUT_MS)
        assert page.evaluate("() => window.lateGrab.sent")
        late = int(re.search(r"Too late by (\d+) ms", status.inner_text()).group(1))  # type: ignore[union-attr]
        assert late >= held_ms, f"the grab left {held_ms} ms after the result came, the hub says {late} ms late"
        expect(page.locator("#toasts")).to_contain_text(f"Too late by {late} ms")
        # and the box of the last grab says the same of this seat's try, not "Nobody tried"
        expect(page.locator(f"{BOARD} [data-testid=late-grab]")).to_contain_text(f"{late} ms after the window")
        shot(page, "frenetic-village-too-late")
        w.check()
    finally:
        pacer.stop()
        page.context.close()


# Every notification the page makes, kept for the test (the real one is made as well).
NOTIFICATION_SPY_JS = """(() => {
    const Real = window.Notification;
    window.notified = [];
    function Spy(title, options) {
        window.notified.push({ title, tag: options && options.tag });
        return new Real(title, options);
    }
    Object.defineProperty(Spy, "permission", { get: () => Real.permission });
    Spy.requestPermission = (...args) => Real.requestPermission(...args);
    window.Notification = Spy;
})();"""


def test_an_opted_in_seat_is_alerted_when_a_grab_opens_for_it(browser: Any, hub: HubProcess) -> None:
    """A player who opted in to notifications is told when a grab they may try opens (not when the
    others may grab their own discard), and the tab's title says "Grab" until the contest's result."""
    rid = make_room(hub, "frenetic_village", 2, [], grab_window_ms=1000, bot_delay_ms=10000)
    mine = join(hub, rid, "Ann", 0)
    w = new_page(browser, seat=(rid, mine), permissions=["notifications"], init=NOTIFICATION_SPY_JS)
    page = w.page
    page.goto(f"{hub.url}/#/room/{rid}")
    page.get_by_test_id("alert-notify").check()
    expect(page.get_by_test_id("alert-notify")).to_be_checked()
    page.wait_for_function("() => window.hubDebug.connection.live()", timeout=STEP_TIMEOUT_MS)
    # every title the tab takes, so one that lasts only while the grab is open is not missed
    page.evaluate("""() => { window.titles = [];
        new MutationObserver(() => window.titles.push(document.title)).observe(
            document.querySelector("title"), { childList: true, characterData: true, subtree: true }); }""")
    other = join(hub, rid, "Bob", 1)
    pacer = Pacer(hub, rid, other["token"], discards_first, every=0.1)
    pacer.start()
    try:
        offered_a_grab(page)
        # the view names the card by its kind; the contest frame, and so the alert, by its face's name
        kind = page.evaluate("() => window.hubDebug.connection.view.contest.card")
        card = next(fc.name(c) for c in range(fc.DECK_SIZE) if fc.kind_id(c) == kind)
        page.wait_for_function("() => window.notified.some((n) => n.tag === 'hub-grab')", timeout=STEP_TIMEOUT_MS)
        grabs = page.evaluate("() => window.notified.filter((n) => n.tag === 'hub-grab')")
        # the page's own discards opened grabs too, for seat 1 only: this is the one offered to the page
        assert len(grabs) == 1 and card in grabs[0]["title"], grabs
        assert any(a["kind"] == "grab" and a["notified"] for a in page.evaluate("() => window.hubAlerts")), \
            page.evaluate("() => window.hubAlerts")
        assert any(t.startswith(f"⚡ Grab {card}!") for t in page.evaluate("() => window.titles")), \
            page.evaluate("() => window.titles")
        # nobody tries it: once its result comes, the title no longer says "Grab"
        expect(page.locator(f"{BOARD} [data-testid=contest-result]")).to_contain_text("Nobody", timeout=STEP_TIMEOUT_MS)
        page.wait_for_function("() => !document.title.startsWith('⚡')", timeout=STEP_TIMEOUT_MS)
        w.check()
    finally:
        pacer.stop()
        page.context.close()
