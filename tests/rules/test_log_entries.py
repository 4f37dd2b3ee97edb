"""Log entries are data, and every kind an engine writes is listed and put into words.

Every game is played at random at each table size: each entry its log holds is `[kind, *args]`
with a kind the game declares (`log_kinds`) and as many arguments; docs/protocol.md's table lists
each kind with its arguments in order; and the client's words in every language (web/i18n/, through
web/words.js, run by Node) turn every entry written into a sentence with nothing missing in it.
"""
from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import msgpack
import pytest

from rules.registry import GAMES
from tests.rules.kit import bot_step, step_once

ROOT = Path(__file__).resolve().parents[2]
STEPS = 600


def entries_of(game_id: str) -> list[Any]:
    """Every entry written in random games and bot games of every size (each entry once)."""
    game = GAMES[game_id]
    seen: dict[str, Any] = {}
    for seats in range(game.min_players, game.max_players + 1):
        for seed in range(2):
            state = game.setup(seats, seed, game.check_options(seats, {}))
            rng = random.Random(seed)
            for _ in range(STEPS):
                for entry in game.view(state, None)["log"]:
                    seen.setdefault(json.dumps(entry, sort_keys=True), entry)
                stepped = step_once(game, state, rng) is not None if seed == 0 else bot_step(game, state, rng)
                if game.result(state) is not None or not stepped:
                    break
    return list(seen.values())


ENTRIES = {gid: entries_of(gid) for gid in sorted(GAMES)}


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_entry_is_a_declared_kind_with_its_arguments(game_id: str) -> None:
    kinds = GAMES[game_id].log_kinds
    written = ENTRIES[game_id]
    assert written
    for entry in written:
        assert isinstance(entry, list) and entry and isinstance(entry[0], str), entry
        assert entry[0] in kinds, f"{game_id}: {entry[0]!r} is not declared"
        assert len(entry) - 1 == len(kinds[entry[0]]), f"{game_id}: {entry} against {kinds[entry[0]]}"
        assert msgpack.unpackb(msgpack.packb(entry), raw=False) == entry
        assert not any(isinstance(a, str) and (a.endswith(".") or ": " in a) for a in entry[1:]), \
            f"a sentence in {entry}"
    # random play reaches most kinds; the rest are covered by each game's own rule tests
    assert len({e[0] for e in written}) >= len(kinds) // 2


def test_the_protocol_lists_every_kind_with_its_arguments_in_order() -> None:
    doc = (ROOT / "docs" / "protocol.md").read_text()
    rows = {(g, k): a for g, k, a in re.findall(r"^\| `(\w+)` \| `(\w+)` \| (.*?) \|$", doc, re.M)}
    for gid, game in GAMES.items():
        for kind, args in game.log_kinds.items():
            assert (gid, kind) in rows, f"docs/protocol.md lacks {gid} {kind}"
            listed = re.findall(r"`(\w+)`", rows[(gid, kind)])
            assert listed == list(args), f"docs/protocol.md: {gid} {kind} has {listed}, the engine {list(args)}"
    assert len(rows) == sum(len(g.log_kinds) for g in GAMES.values()), "a kind listed that no engine has"


NODE_SCRIPT = """
import { readFileSync } from "node:fs";
import { LANGUAGES, entryWords, plain, setCatalogue, setLanguage } from "./web/words.js";
const { lang, games } = JSON.parse(readFileSync(0, "utf8"));
setLanguage(lang, { keep: false });
const out = { missing: [], bad: [], arity: [] };
for (const [game, { kinds, catalogue, entries }] of Object.entries(games)) {
  setCatalogue(game, catalogue);
  const words = LANGUAGES[lang].log[game] || {};
  for (const [kind, args] of Object.entries(kinds)) {
    if (typeof words[kind] !== "function") out.missing.push(`${game} ${kind}`);
    else if (words[kind].length !== args.length + 1 && !(args.length === 0 && words[kind].length === 0)) {
      out.arity.push(`${game} ${kind}`);
    }
  }
  for (const k of Object.keys(words)) if (!(k in kinds)) out.missing.push(`${game} ${k} (words of no kind)`);
  for (const entry of entries) {
    let text;
    try { text = plain(entryWords(game, entry, (s) => `Player${s}`)); } catch (e) { text = `THREW ${e}`; }
    const broken = /undefined|NaN|\\[object|‹|THREW|null/;
    if (!text || broken.test(text)) out.bad.push(`${game} ${JSON.stringify(entry)} -> ${text}`);
  }
}
console.log(JSON.stringify(out));
"""


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_words_say_every_entry_written(lang: str) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to run the client's words (make setup installs the web client's packages)")
    games = {gid: {"kinds": {k: list(a) for k, a in GAMES[gid].log_kinds.items()},
                     "catalogue": GAMES[gid].catalogue(), "entries": ENTRIES[gid]} for gid in sorted(GAMES)}
    run = subprocess.run([node, "--input-type=module", "-e", NODE_SCRIPT], cwd=ROOT,
                         input=json.dumps({"lang": lang, "games": games}),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out == {"missing": [], "bad": [], "arity": []}, out
