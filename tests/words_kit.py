"""The client's words for log entries, run by Node from web/words.js and web/i18n/: what a player
reads for an entry, for tests that compare it with what a page shows."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rules.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import { readFileSync } from "node:fs";
import { entryWords, plain, setCatalogue } from "./web/words.js";
const { game, catalogue, entries, names } = JSON.parse(readFileSync(0, "utf8"));
setCatalogue(game, catalogue);
console.log(JSON.stringify(entries.map((e) => {
  const said = entryWords(game, e, (s) => names[s] ?? `Seat ${s}`);
  return said === null ? (typeof e === "string" ? e : null) : plain(said);
})));
"""


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.fail("node is needed to run the client's words (make setup installs the web client's packages)")
    return found


def words(game: str, entries: list[Any], names: list[str] | None = None) -> list[str | None]:
    """What the English client says for each entry (None for an entry it has no words for)."""
    payload = {"game": game, "catalogue": GAMES[game].catalogue(), "entries": entries, "names": names or []}
    run = subprocess.run([node(), "--input-type=module", "-e", SCRIPT], cwd=ROOT, input=json.dumps(payload),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    said: list[str | None] = json.loads(run.stdout)
    return said
