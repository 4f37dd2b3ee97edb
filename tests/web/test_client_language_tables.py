"""Every game's table in French, switched mid-game: the test plays a seat in Chromium against bots,
switches the language in the header after a few moves, finds no English word and no raw key left
on the page, then plays on to the end screen in French and looks again.

"An English word" is one of the English language file's screen words, or of a short list of common
English words, that the French file does not use too (so "points", "total" or "mode" are not counted),
and that is not a proper name on the page (the players', the game's)."""
from __future__ import annotations

import random
import re
from typing import Any

import pytest

from tests.conftest import HubProcess
from tests.web import client_kit as kit

pytestmark = pytest.mark.browser
expect = kit.expect
browser = kit.browser  # the module's Chromium

COMMON = frozenset({"the", "and", "you", "your", "of", "to", "is", "are", "with", "for", "from", "on", "in", "it",
    "its", "this", "that", "was", "has", "have", "wait", "waiting", "turn", "card", "cards", "seat", "player",
    "players", "move", "moves", "game", "over", "left", "right", "round", "pool", "pile", "hand", "draw", "play",
    "grab", "score", "scores", "water", "winner", "wins", "nobody", "none", "who", "what", "when", "choose",
    "chosen", "back", "next", "end", "start", "offer", "offers", "accept", "decline", "ready", "build", "built",
    "coins", "coin", "tile", "tiles", "location", "locations", "discard", "discards", "deck", "battle", "pass",
    "yes", "no", "not", "now"})

# The page's words in the two languages, by the language files as served (web/words.js).
VOCABULARY = """async () => {
  const { LANGUAGES } = await import("/words.js");
  const texts = (lang) => Object.values(LANGUAGES[lang].ui)
    .flatMap((v) => (v && typeof v === "object" ? Object.values(v) : typeof v === "string" ? [v] : []));
  const words = (list) => [...new Set(list.join(" ").replace(/\\{\\w+\\}/g, " ").toLowerCase()
    .match(/\\p{L}+/gu) || [])];
  return { en: words(texts("en")), fr: words(texts("fr")), keys: Object.keys(LANGUAGES.en.ui) };
}"""

NAMES = ["Zoé", "Bot"]


def english_left(page: Any, proper: set[str]) -> list[str]:
    """The English words and raw keys the page shows (what a reader sees: innerText)."""
    vocab = page.evaluate(VOCABULARY)
    french = set(vocab["fr"])
    english = {w for w in [*vocab["en"], *COMMON] if len(w) > 2 or w in COMMON} - french - proper
    # what is on screen; the screen reader's last announcement was said before the switch, in its language
    text = page.evaluate("() => [...document.body.children].filter((e) => e.id !== 'announce')"
                         ".map((e) => e.innerText || '').join('\\n')")
    names = page.evaluate("() => (window.hubDebug.connection.view.players || []).map((p) => p.name || '').join(' ')")
    proper = proper | set(re.findall(r"\w+", names.lower()))
    seen = set(re.findall(r"\w+", text.lower()))
    found = sorted(seen & english)
    found += [f"key {k}" for k in vocab["keys"] if k in text]
    if "‹" in text:
        found.append("a card the catalogue does not name")
    return found


# A grab is a race the bots win at once: the test plays the turns and leaves the grabs to them.
LEGAL = f"{kit.LEGAL}:not([data-testid=grab-card])"

# Waterfall Park's seat plays the short way: discard the first two cards, return a card it has no
# base for, say ready at once, build nothing. Each is one button once chosen (data-testid).
PARK_BUTTONS = ["wp-discard", "wp-return-card", "wp-ready", "wp-done"]


def press(el: Any) -> bool:
    """A click; on a loaded machine the bots' deltas can keep a button moving (never "stable" for
    Playwright) or redraw it away, and then the click event itself; False if the element went."""
    try:
        el.click(timeout=2000)
        return True
    except kit.sync_api.Error:
        pass
    try:
        el.dispatch_event("click", timeout=2000)
        return True
    except kit.sync_api.Error:
        return False


def park_move(page: Any) -> None:
    before = kit.seq(page)
    for _ in range(20):
        for testid in PARK_BUTTONS:
            button = page.locator(f"{kit.LEGAL}[data-testid={testid}]")
            if button.count():
                if not press(button.first):
                    break
                page.wait_for_function(
                    f"() => Number(document.querySelector('[data-testid=board]').dataset.seq) > {before}"
                    f" || !document.querySelector('{kit.LEGAL}[data-testid={testid}]')", timeout=kit.TURN_TIMEOUT_MS)
                return
        cards = page.locator(f"{kit.LEGAL}[data-testid=wp-hand-card][aria-pressed=false]")
        if not cards.count():
            return  # the hub moved the table on meanwhile (a bot's answer ended the phase)
        if press(cards.first):
            page.wait_for_timeout(50)
    raise AssertionError("the park's seat found nothing to press")


#: What a seat's click goes to first, per game: where a chosen card goes before choosing another.
PREFER = {"frenetic_village": ("[data-testid=draw-pile]", "[data-testid=declare]", "[data-role=give]",
                               "[data-testid=pile]")}

def move(page: Any, game: str, rng: random.Random) -> None:
    """One move of the seat by clicks on its table."""
    try:
        if game == "waterfall_park":
            park_move(page)
        else:
            kit.play_move(page, rng, legal=LEGAL, prefer=PREFER.get(game, ()))
    except AssertionError:
        # A grab can take the turn away between the look and the clicks (Frenetic Village): then
        # nothing is offered any more, and the caller waits for the next turn.
        if page.locator(f"{LEGAL}:visible").count():
            raise


GAMES = {
    "symbiose": (2, [1], {}),
    "frenzy_falls": (3, [1, 2], {}),
    "waterfall_park": (3, [1, 2], {}),
    "frenetic_village": (2, [1], {}),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_table_switched_to_french_mid_game_has_no_english_left(browser: Any, hub: HubProcess, game: str) -> None:
    need_game = game in kit.served_games(hub)
    assert need_game, f"the hub serves {game}"
    seats, bots, options = GAMES[game]
    rid = kit.make_room(hub, game, seats, bots, bot_delay_ms=0, **options)
    got = kit.join(hub, rid, NAMES[0], 0)
    w = kit.new_page(browser, seat=(rid, got), locale="en-US")
    page = w.page
    page.goto(f"{hub.url}/#/room/{rid}")
    title = next(g["name"] for g in kit.games(hub) if g["id"] == game)
    proper = {x.lower() for x in re.findall(r"\w+", " ".join([title, *NAMES, rid]))}
    rng = random.Random(7)
    for _ in range(2):
        assert kit.wait_for_turn(page, legal=LEGAL)
        move(page, game, rng)
    assert kit.wait_for_turn(page, legal=LEGAL)
    page.get_by_test_id("language").select_option("fr")
    assert page.evaluate("() => document.documentElement.lang") == "fr"
    kit.shot(page, f"language-{game}-mid")
    left = english_left(page, proper)
    assert not left, f"{game}: English left on a French table: {left}"
    moves = 0
    while kit.wait_for_turn(page, timeout=30_000, legal=LEGAL):
        move(page, game, rng)
        moves += 1
        assert moves < 400, "the game ends"
        if moves % 10 == 0:
            left = english_left(page, proper)
            assert not left, f"{game}: English left after {moves} moves in French: {left}"
    expect(page.get_by_test_id("result")).to_be_visible()
    kit.shot(page, f"language-{game}-end")
    left = english_left(page, proper)
    assert not left, f"{game}: English left on the French end screen: {left}"
    w.check()
