"""The lobby in a real Chromium: games, rooms, create / join / watch, private rooms, sharing a link."""
from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.hub.wsclient import http
from tests.web import client_kit as kit

pytestmark = pytest.mark.browser
expect = kit.expect
browser = kit.browser  # the module's Chromium


def test_games_are_listed_and_the_name_is_remembered(browser: Any, hub: HubProcess) -> None:
    served = kit.games(hub)
    w = kit.new_page(browser)
    page = w.page
    page.goto(hub.url + "/#/")
    cards = page.get_by_test_id("game")
    expect(cards).to_have_count(len(served))
    for g in served:
        card = page.locator(f"[data-testid=game][data-game={g['id']}]")
        expect(card).to_contain_text(g["name"])
        low, high = g["min_players"], g["max_players"]
        counts = f"{low}" if low == high else f"{low}–{high}"
        expect(card.get_by_test_id("game-players")).to_have_text(f"{counts} players")
        if g.get("description"):
            expect(card).to_contain_text(g["description"])
    # Picking a game fills the create form with it.
    page.get_by_test_id(f"pick-{served[-1]['id']}").click()
    expect(page.get_by_test_id("new-game")).to_have_value(served[-1]["id"])

    page.get_by_test_id("name").fill("Ada")
    page.reload()
    expect(page.get_by_test_id("name")).to_have_value("Ada")
    kit.shot(page, "client-lobby")
    phone = kit.new_page(browser, width=390, height=844)
    phone.page.goto(hub.url + "/#/")
    expect(phone.page.get_by_test_id("game")).to_have_count(len(served))
    assert phone.page.evaluate("() => document.documentElement.scrollWidth") <= 390, "the lobby fits a phone"
    kit.shot(phone.page, "client-lobby-phone")
    w.check()
    phone.check()


def test_create_join_and_watch_through_the_lobby(browser: Any, hub: HubProcess) -> None:
    host = kit.new_page(browser)
    page = host.page
    page.goto(hub.url + "/#/")
    page.get_by_test_id("name").fill("Host")
    page.get_by_test_id("new-game").select_option("symbiose")
    page.get_by_test_id("new-seats").select_option("3")
    page.get_by_test_id("bot-2").check()
    expect(page.get_by_test_id("create")).to_have_text("Create room and sit at seat 0")
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r".*#/room/[^/]+$"))
    rid = page.url.rsplit("/", 1)[-1]
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    expect(page.get_by_test_id("phase")).to_have_attribute("data-phase", "waiting")
    expect(page.get_by_test_id("invite-link")).to_have_value(re.compile(rf"#/room/{rid}$"))
    kit.shot(page, "client-room-waiting")

    # Another player finds the room in the lobby, with who is seated, and takes the free seat.
    guest = kit.new_page(browser)
    g = guest.page
    g.goto(hub.url + "/#/")
    g.get_by_test_id("name").fill("Guest")
    room = g.locator(f"[data-testid=room][data-room='{rid}']")
    expect(room).to_contain_text("waiting")
    expect(room).to_contain_text("Host")
    expect(room).to_contain_text("2/3 seated")
    kit.shot(g, "client-lobby-rooms")
    g.get_by_test_id(f"join-{rid}-1").click()
    expect(g.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "1")

    # Every seat is taken: the game starts for both, and the invite gives way to the table.
    for p in (page, g):
        expect(p.get_by_test_id("phase")).not_to_have_attribute("data-phase", "waiting")
        expect(p.get_by_test_id("invite")).to_have_count(0)
    expect(page.get_by_test_id("players").locator("li")).to_have_count(3)
    expect(page.get_by_test_id("players")).to_contain_text("Guest")
    expect(page.get_by_test_id("seat-mark")).not_to_have_count(0)

    # A third person watches from the lobby: the room now says it is playing.
    viewer = kit.new_page(browser)
    v = viewer.page
    v.goto(hub.url + "/#/")
    room = v.locator(f"[data-testid=room][data-room='{rid}']")
    expect(room).to_contain_text("playing")
    expect(room).to_contain_text("Guest")
    v.get_by_test_id(f"watch-{rid}").click()
    expect(v.get_by_test_id("spectator-badge")).to_be_visible()
    expect(v.locator("[data-testid=board] [data-legal=true]")).to_have_count(0)
    kit.shot(v, "client-watching")
    for p in (host, guest, viewer):
        p.check()


def test_a_private_room_is_not_listed_and_its_link_is_the_way_in(browser: Any, hub: HubProcess) -> None:
    host = kit.new_page(browser, permissions=["clipboard-read", "clipboard-write"])
    page = host.page
    page.goto(hub.url + "/#/")
    page.get_by_test_id("name").fill("Secret")
    page.get_by_test_id("new-game").select_option("symbiose")
    page.get_by_test_id("new-seats").select_option("2")
    expect(page.get_by_test_id("private-note")).to_be_hidden()
    page.get_by_test_id("opt-private").check()
    expect(page.get_by_test_id("private-note")).to_be_visible()
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r".*#/room/[^/]+$"))
    rid = page.url.rsplit("/", 1)[-1]
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "0")
    link = page.get_by_test_id("invite-link").input_value()
    assert link.endswith(f"#/room/{rid}")
    expect(page.get_by_test_id("invite")).to_contain_text("a private room can be found no other way")

    # The copy button puts exactly that link on the clipboard.
    page.get_by_test_id("invite-copy").click()
    expect(page.get_by_test_id("invite-copy")).to_contain_text("Copied")
    assert page.evaluate("() => navigator.clipboard.readText()") == link
    kit.shot(page, "client-private-invite")

    # Not listed, neither by the hub nor in anyone's lobby.
    status, listing = kit.http(hub, "GET", "/api/rooms")
    assert status == 200 and rid not in [r["room"] for r in listing]
    other = kit.new_page(browser)
    o = other.page
    o.goto(hub.url + "/#/")
    expect(o.get_by_test_id("rooms")).not_to_contain_text("Loading")
    expect(o.locator(f"[data-testid=room][data-room='{rid}']")).to_have_count(0)

    # The link opens the table, watching, with the free seat on offer.
    o.goto(link)
    expect(o.get_by_test_id("spectator-badge")).to_be_visible()
    o.get_by_test_id("join-name").fill("Friend")
    o.get_by_test_id("sit-1").click()
    expect(o.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "1")
    expect(page.get_by_test_id("phase")).not_to_have_attribute("data-phase", "waiting")
    expect(page.get_by_test_id("players")).to_contain_text("Friend")

    # A room id pasted into the lobby finds it too.
    third = kit.new_page(browser)
    t = third.page
    t.goto(hub.url + "/#/")
    t.get_by_test_id("go-room").fill(rid)
    t.get_by_test_id("go").click()
    expect(t.get_by_test_id("spectator-badge")).to_be_visible()
    expect(t.get_by_test_id("players")).to_contain_text("Friend")
    for p in (host, other, third):
        p.check()


def test_watching_bots_then_the_replay_from_the_result_and_the_lobby(browser: Any, hub: HubProcess) -> None:
    w = kit.new_page(browser)
    page = w.page
    page.goto(hub.url + "/#/")
    page.get_by_test_id("new-game").select_option("symbiose")
    page.get_by_test_id("new-seats").select_option("2")
    page.get_by_test_id("new-me").select_option("watch")
    page.get_by_test_id("bot-0").check()
    page.get_by_test_id("bot-1").check()
    expect(page.get_by_test_id("create")).to_have_text("Create room and watch the bots")
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r".*#/room/[^/]+/watch$"))
    rid = page.url.split("/")[-2]
    expect(page.get_by_test_id("spectator-badge")).to_be_visible()
    # Bots at full speed finish at once; the result panel links to the replay.
    expect(page.get_by_test_id("result")).to_be_visible(timeout=kit.TURN_TIMEOUT_MS)
    page.get_by_test_id("result-replay").click()
    expect(page.get_by_test_id("replay-step")).to_have_text(re.compile(r"Move 0 of \d+"))

    # The finished room is listed with its replay.
    page.goto(hub.url + "/#/")
    room = page.locator(f"[data-testid=room][data-room='{rid}']")
    expect(room).to_contain_text("finished")
    expect(page.get_by_test_id(f"watch-{rid}")).to_have_count(0)
    page.get_by_test_id(f"replay-{rid}").click()
    expect(page.get_by_test_id("replay-badge")).to_be_visible()
    expect(page.get_by_test_id("replay-step")).to_have_text(re.compile(r"Move 0 of \d+"))
    w.check()


def test_the_lobby_speaks_plainly(browser: Any, hub: HubProcess) -> None:
    """No connection state where nothing connects, the creator's seat not a bot box, help without raw
    backticks, seconds and words instead of "ms", and a public room's invite that does not say private."""
    w = kit.new_page(browser)
    page = w.page
    page.goto(hub.url + "/#/")
    expect(page.get_by_test_id("game")).not_to_have_count(0)
    expect(page.get_by_test_id("net")).to_be_hidden()
    expect(page.locator("header.site")).not_to_contain_text("not connected")
    page.get_by_test_id("name").fill("Plain")

    # The option help: `code` is code, never a backtick; the hub's own options in plain words and seconds.
    page.get_by_test_id("new-game").select_option("frenetic_village")
    form = page.get_by_test_id("create-form")
    expect(form).not_to_contain_text("`")
    # a variant is said in words, with its numbers, never as a placeholder (`battles` as code)
    expect(form.locator(".doc code").filter(has_text="battles")).to_have_count(0)
    expect(form.get_by_test_id("option-variant")).to_contain_text("One battle")
    for jargon in ("Bot delay ms", "Grab window ms", "Decision seconds"):
        expect(form).not_to_contain_text(jargon)
    expect(form.locator("label[for=opt-bot_delay_ms]")).to_have_text("Bot thinking time")
    expect(form.locator("label[for=opt-grab_window_ms]")).to_have_text("Time to grab")
    expect(form.locator("label[for=opt-decision_seconds]")).to_have_text("Time per decision")
    expect(form).to_contain_text("seconds")

    # The creator's own seat is theirs, not a bot box: ticking the others never moves them.
    page.get_by_test_id("new-game").select_option("symbiose")
    page.get_by_test_id("new-seats").select_option("3")
    expect(page.get_by_test_id("bots")).to_contain_text("Seat 0 (you)")
    expect(page.get_by_test_id("bot-you")).to_be_disabled()
    expect(page.get_by_test_id("bot-0")).to_have_count(0)
    page.get_by_test_id("bot-1").check()
    page.get_by_test_id("bot-2").check()
    expect(page.get_by_test_id("create")).to_have_text("Create room and sit at seat 0")
    # Another seat of one's own: that seat is "(you)", seat 0 becomes a box like the others.
    page.get_by_test_id("new-me").select_option("1")
    expect(page.get_by_test_id("bots")).to_contain_text("Seat 1 (you)")
    expect(page.get_by_test_id("bot-1")).to_have_count(0)
    expect(page.get_by_test_id("bot-0")).to_be_enabled()
    expect(page.get_by_test_id("create")).to_have_text("Create room and sit at seat 1")
    page.get_by_test_id("opt-bot_delay_ms").fill("0.5")
    with page.expect_request(lambda r: r.url.endswith("/api/rooms") and r.method == "POST") as made:
        page.get_by_test_id("create").click()
    sent = json.loads(made.value.post_data or "{}")
    assert sent["options"] == {"bot_delay_ms": 500}, "the form's seconds are the hub's milliseconds"
    assert sent["bots"] == [2]
    page.wait_for_url(re.compile(r".*#/room/[^/]+$"))
    rid = page.url.rsplit("/", 1)[-1]
    expect(page.get_by_test_id("seat-badge")).to_have_attribute("data-seat", "1")
    status, info = kit.http(hub, "GET", f"/api/rooms/{rid}")
    assert status == 200
    assert [s["bot"] for s in info["seats"]] == [False, False, True], "seat 2 a bot, seat 0 free, seat 1 ours"

    # A public room's invite does not call it private.
    invite = page.get_by_test_id("invite")
    expect(invite).to_be_visible()
    expect(invite).not_to_contain_text("private")
    expect(page.get_by_test_id("net")).to_be_visible()

    # A replay connects to nothing either.
    page.goto(hub.url + "/#/replay/no-such-room")
    expect(page.get_by_test_id("replay-error")).to_be_visible()
    expect(page.get_by_test_id("net")).to_be_hidden()
    kit.shot(page, "client-lobby-plain")
    w.check()


def test_symbiose_modes_offered_are_those_valid_for_the_seat_count(browser: Any, hub: HubProcess) -> None:
    # "2-PLAYER RULES (Duel Mode)": two seats default to duel; each count offers only its valid modes,
    # so the form never sends what the hub refuses (the hub still refuses it from anyone else).
    w = kit.new_page(browser)
    page = w.page
    page.goto(hub.url + "/#/")
    page.get_by_test_id("name").fill("Modes")
    page.get_by_test_id("new-game").select_option("symbiose")
    mode = page.get_by_test_id("opt-mode")

    def offered() -> list[str]:
        return [t.strip().lower() for t in mode.locator("option").all_inner_texts()]

    def chosen() -> str:
        return str(mode.evaluate("(el) => el.options[el.selectedIndex].textContent")).strip().lower()

    for seats, modes, default in [("2", ["duel", "standard"], "duel"), ("3", ["standard"], "standard"),
                                  ("4", ["standard", "team"], "standard")]:
        page.get_by_test_id("new-seats").select_option(seats)
        expect(mode.locator("option")).to_have_count(len(modes))
        assert offered() == modes and chosen() == default
    # Team at 4, then back to 2: team is not valid there, so the form goes to duel.
    mode.select_option(label="Team")
    page.get_by_test_id("new-seats").select_option("2")
    expect(mode.locator("option")).to_have_count(2)
    assert chosen() == "duel"
    page.get_by_test_id("bot-1").check()
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r".*#/room/[^/]+$"))
    rid = page.url.rsplit("/", 1)[-1]
    status, info = kit.http(hub, "GET", f"/api/rooms/{rid}")
    assert status == 200 and info["options"]["mode"] == "duel"
    # The hub's refusal stays for a combination no form offers.
    status, got = kit.http(hub, "POST", "/api/rooms", {"game": "symbiose", "seats": 3, "options": {"mode": "team"}})
    assert status == 400 and got["error"] == "bad_option"
    w.check()


def test_a_finished_room_leads_to_the_table_its_players_went_on_to(browser: Any, hub: HubProcess) -> None:
    """Someone who did not play it is offered to follow a finished room to its next table, to watch:
    the seats there are kept for the finished game's players, those who did not come yet included."""
    rid = kit.make_room(hub, "symbiose", 2, [], bot_delay_ms=0)
    ann, bob = kit.join(hub, rid, "Ann", 0), kit.join(hub, rid, "Bob", 1)
    kit.played_out(hub, rid, [ann, bob])
    w = kit.new_page(browser)
    page = w.page
    page.goto(hub.url + "/#/")
    room = page.locator(f"[data-testid=room][data-room='{rid}']")
    expect(room.get_by_test_id(f"replay-{rid}")).to_be_visible()
    expect(room.get_by_test_id(f"next-{rid}")).to_have_count(0)  # nobody asked for a next game yet

    status, got = kit.http(hub, "POST", f"/api/rooms/{rid}/again", {"token": bob["token"]})
    assert status == 200, got
    nxt = got["room"]
    follow = room.get_by_test_id(f"next-{rid}")
    expect(follow).to_have_text("◉ Follow to the next game", timeout=15_000)  # at the lobby's next refresh
    follow.click()
    page.wait_for_url(re.compile(rf".*#/room/{nxt}/watch$"))
    expect(page.get_by_test_id("spectator-badge")).to_be_visible()
    expect(page.get_by_test_id("board")).to_have_attribute("data-game", "symbiose")
    expect(page.get_by_role("button", name="Sit at seat 0")).to_have_count(0)  # Ann's seat: kept for her
    w.check()
    page.context.close()


def test_an_empty_name_is_asked_for_never_made_up(browser: Any, hub: HubProcess) -> None:
    """An empty name used to become "Player" for everyone, silently: now the lobby and the table's
    free seats ask for one, and nothing is made or taken until it is there."""
    w = kit.new_page(browser)
    page = w.page
    page.goto(hub.url + "/#/")
    page.get_by_test_id("new-game").select_option("symbiose")
    page.get_by_test_id("bot-1").check()
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.get_by_test_id("create").click()
    expect(page.locator("#toasts")).to_contain_text("Type your name first")
    expect(page.get_by_test_id("name")).to_be_focused()
    page.wait_for_timeout(300)
    assert not posts, f"nothing is made without a name: {posts}"
    assert page.url.endswith("#/")

    rid = kit.make_room(hub, "symbiose", 2, [])
    page.goto(f"{hub.url}/#/room/{rid}")
    page.get_by_test_id("join-name").fill("   ")
    page.get_by_test_id("sit-0").click()
    expect(page.locator("#toasts")).to_contain_text("Type your name first")
    page.wait_for_timeout(300)
    status, info = kit.http(hub, "GET", f"/api/rooms/{rid}")
    assert status == 200 and info["seats"][0]["name"] is None, info
    page.get_by_test_id("join-name").fill("Noor")
    page.get_by_test_id("sit-0").click()
    expect(page.get_by_test_id("seat-badge")).to_contain_text("Noor")
    w.check()
    page.context.close()


def test_frenetic_villages_variants_say_what_they_mean(browser: Any, hub: HubProcess) -> None:
    """The variant's help is the chosen variant's, in words with the number of battles chosen (no
    raw `battles` placeholder), and "Battles" is offered only for the variants that count them."""
    w = kit.new_page(browser)
    page = w.page
    page.goto(hub.url + "/#/")
    page.get_by_test_id("name").fill("Vera")
    page.get_by_test_id("new-game").select_option("frenetic_village")
    variant = page.get_by_test_id("option-variant")
    expect(variant).to_contain_text("One battle")
    expect(variant).not_to_contain_text("`")
    expect(page.get_by_test_id("option-battles")).to_have_count(0)  # the single battle counts none
    page.get_by_test_id("opt-variant").select_option(label="Lowest total")
    expect(page.get_by_test_id("option-battles")).to_be_visible()
    expect(variant).to_contain_text("5 battles: after each")
    page.get_by_test_id("opt-battles").fill("3")
    expect(variant).to_contain_text("3 battles: after each")
    page.get_by_test_id("bot-1").check()
    with page.expect_request(lambda r: r.url.endswith("/api/rooms") and r.method == "POST") as made:
        page.get_by_test_id("create").click()
    assert json.loads(made.value.post_data or "{}")["options"] == {"variant": "lowest_total", "battles": 3}
    page.wait_for_url(re.compile(r".*#/room/[^/]+$"))
    # back to a single battle: the battles chosen before are not sent for it
    page.goto(hub.url + "/#/")
    page.get_by_test_id("new-game").select_option("frenetic_village")
    page.get_by_test_id("opt-variant").select_option(label="Lowest total")
    page.get_by_test_id("opt-battles").fill("7")
    page.get_by_test_id("opt-variant").select_option(label="Single")
    expect(page.get_by_test_id("option-battles")).to_have_count(0)
    page.get_by_test_id("bot-1").check()
    with page.expect_request(lambda r: r.url.endswith("/api/rooms") and r.method == "POST") as made:
        page.get_by_test_id("create").click()
    assert json.loads(made.value.post_data or "{}")["options"] == {}
    w.check()
    page.context.close()


def test_an_abandoned_game_is_marked_so_in_the_lobby_and_the_history(browser: Any) -> None:
    """Its players left and it ended as abandoned: the lobby's rooms and the finished games say so
    rather than "finished"."""
    hub = HubProcess("--store", "memory", "--grace-s", "0.5", "--abandon-s", "1", "--bot-delay-ms", "0",
                     "--rooms-per-ip-per-min", "0").start()
    try:
        rid = kit.make_room(hub, "symbiose", 2, [1])
        kit.join(hub, rid, "Gone", 0)  # and never comes
        kit.wait_finished(hub, rid, timeout=20)
        assert kit.http(hub, "GET", f"/api/rooms/{rid}")[1]["result"]["abandoned"] is True
        w = kit.new_page(browser)
        page = w.page
        page.goto(hub.url + "/#/")
        expect(page.get_by_test_id(f"status-{rid}")).to_contain_text("abandoned")
        expect(page.get_by_test_id(f"abandoned-{rid}")).to_be_visible()
        w.check()
    finally:
        hub.stop()


def test_a_bot_seats_level_is_chosen_in_the_form_and_shown_at_the_table(browser: Any, hub: HubProcess) -> None:
    """Each bot box offers a level (normal unless changed); the room is made with it, and the players
    list names a bot's level where it is not the normal one."""
    w = kit.new_page(browser)
    page = w.page
    page.goto(hub.url + "/#/")
    page.get_by_test_id("name").fill("Host")
    page.get_by_test_id("new-game").select_option("symbiose")
    page.get_by_test_id("new-seats").select_option("3")
    expect(page.get_by_test_id("bot-level-1")).to_have_count(0)  # only a bot seat has a level
    page.get_by_test_id("bot-1").check()
    page.get_by_test_id("bot-2").check()
    expect(page.get_by_test_id("bot-level-1")).to_have_value("normal")
    # the levels offered are each game's own, as the hub lists them
    offered = "(e) => [...e.options].map((o) => o.value)"
    assert page.get_by_test_id("bot-level-1").evaluate(offered) == ["easy", "normal", "strong"]
    for game in http(hub.url, "GET", "/api/games")[1]:
        page.get_by_test_id("new-game").select_option(game["id"])
        page.get_by_test_id("bot-1").check()
        assert page.get_by_test_id("bot-level-1").evaluate(offered) == game["bot_levels"], game["id"]
    page.get_by_test_id("new-game").select_option("symbiose")
    page.get_by_test_id("new-seats").select_option("3")
    page.get_by_test_id("bot-1").check()
    page.get_by_test_id("bot-2").check()
    page.get_by_test_id("bot-level-2").select_option("easy")
    page.get_by_test_id("bot-level-1").select_option("strong")
    with page.expect_request(lambda r: r.url.endswith("/api/rooms") and r.method == "POST") as made:
        page.get_by_test_id("create").click()
    assert json.loads(made.value.post_data or "{}")["bots"] == [{"seat": 1, "level": "strong"},
                                                              {"seat": 2, "level": "easy"}]
    page.wait_for_url(re.compile(r".*#/room/[^/]+$"))
    expect(page.get_by_test_id("presence-1")).to_have_text(re.compile(r"bot \(strong\)"))
    expect(page.get_by_test_id("presence-2")).to_have_text(re.compile(r"bot \(easy\)"))
    page.get_by_test_id("language").select_option("fr")
    expect(page.get_by_test_id("presence-2")).to_have_text(re.compile(r"bot \(facile\)"))
    expect(page.get_by_test_id("presence-1")).to_have_text(re.compile(r"bot \(fort\)"))
    w.check()
