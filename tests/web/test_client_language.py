"""The client's language in a real Chromium: the browser's own language chooses, the lobby's switch
changes every word at once (no reload), and the choice is kept in the browser over the browser's."""
from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web import client_kit as kit

pytestmark = pytest.mark.browser
expect = kit.expect
browser = kit.browser  # the module's Chromium


def test_the_browser_language_chooses_and_the_switch_is_kept(browser: Any, hub: HubProcess) -> None:
    served = kit.games(hub)
    g = served[0]
    counts = f"{g['min_players']}" if g["min_players"] == g["max_players"] else f"{g['min_players']}–{g['max_players']}"
    low, high = g["min_players"], g["max_players"]
    joueurs = re.compile(rf"^{low}( à {high})? joueurs?$")
    card = f"[data-testid=game][data-game={g['id']}] [data-testid=game-players]"

    french = kit.new_page(browser, locale="fr-FR")
    page = french.page
    page.goto(hub.url + "/#/")
    expect(page.locator(card)).to_have_text(joueurs)
    assert page.evaluate("() => document.documentElement.lang") == "fr"
    expect(page.get_by_test_id("language")).to_have_value("fr")
    expect(page.get_by_test_id("create")).to_contain_text("Créer la salle")

    english = kit.new_page(browser, locale="en-US")
    page = english.page
    page.goto(hub.url + "/#/")
    expect(page.locator(card)).to_have_text(f"{counts} players")
    assert page.evaluate("() => document.documentElement.lang") == "en"
    # The switch redraws the lobby at once, then outlives a reload over the browser's own language.
    page.get_by_test_id("language").select_option("fr")
    expect(page.locator(card)).to_have_text(joueurs)
    assert page.evaluate("() => document.documentElement.lang") == "fr"
    page.reload()
    expect(page.locator(card)).to_have_text(joueurs)
    expect(page.get_by_test_id("language")).to_have_value("fr")
    kit.shot(page, "client-lobby-fr")
    page.get_by_test_id("language").select_option("en")
    expect(page.locator(card)).to_have_text(f"{counts} players")
    french.check()
    english.check()


def test_a_log_line_stored_as_text_is_shown_as_it_was_in_either_language(browser: Any, hub: HubProcess) -> None:
    """A room stored before log entries were data holds sentences in its log (tests/rules/
    test_snapshot.py loads such a state): the table shows such a line as the text it was, the seat it
    names as the player, beside entries of data in the reader's language."""
    rid = kit.make_room(hub, "symbiose", 2, [0, 1], bot_delay_ms=0)
    kit.wait_finished(hub, rid)
    w = kit.new_page(browser, locale="en-US")
    page = w.page
    page.goto(f"{hub.url}/#/room/{rid}/watch")
    page.wait_for_function("() => window.hubDebug.connection.view && window.hubDebug.connection.seq !== null")
    got = page.evaluate("() => ({seq: window.hubDebug.connection.seq, n: window.hubDebug.connection.view.log.length,"
                        " name: window.hubDebug.connection.view.players[1].name})")
    old = "Seat 1 took river 2, a blue frog (2 per snail), for its slot 5, a green fish (3 points)."
    page.evaluate("(f) => window.hubDebug.connection._onFrame(JSON.stringify(f))",
                  {"t": "delta", "seq": got["seq"] + 1, "ops": [{"op": "add", "path": "/log/-", "value": old}]})
    newest = page.locator("[data-testid=log] li").first
    said = old.replace("Seat 1", got["name"])
    expect(newest).to_have_text(re.compile(r"^\W*" + re.escape(said) + "$"))  # after the seat's badge
    page.get_by_test_id("language").select_option("fr")
    expect(newest).to_have_text(re.compile(r"^\W*" + re.escape(said) + "$"))
    expect(page.locator("[data-testid=log] li").nth(1)).to_contain_text("Points :")  # the final scores, as data
    w.check()
