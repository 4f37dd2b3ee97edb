"""Every language file of the client has the same keys, so no screen falls back to another
language or shows a raw key: the screens' words (`ui`, each plural map with the same forms and each
text with the same `{placeholders}`), the log's words per game and kind (the same number of
arguments), and the words of catalogue cards and scores. Run by Node on the files as served."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import { LANGUAGES } from "./web/words.js";
const placeholders = (text) => [...new Set([...String(text).matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort().join(",");
const shape = (v) => {
  if (typeof v === "function") return `function/${v.length}`;
  if (v && typeof v === "object") {
    return `plural:${Object.keys(v).includes("other")}:${placeholders(Object.values(v).join(" "))}`;
  }
  return `text:${placeholders(v)}`;
};
const flat = (texts) => {
  const out = {};
  for (const [k, v] of Object.entries(texts.ui)) out[`ui ${k}`] = shape(v);
  for (const [g, kinds] of Object.entries(texts.log)) {
    for (const [k, v] of Object.entries(kinds)) out[`log ${g} ${k}`] = shape(v);
  }
  for (const part of ["cards", "scores"]) {
    for (const [g, v] of Object.entries(texts[part] || {})) out[`${part} ${g}`] = typeof v;
  }
  return out;
};
const all = Object.fromEntries(Object.entries(LANGUAGES).map(([lang, texts]) => [lang, flat(texts)]));
console.log(JSON.stringify(all));
"""


def test_every_language_has_every_key_in_the_same_shape() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to read the client's language files")
    run = subprocess.run([node, "--input-type=module", "-e", SCRIPT], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    langs: dict[str, dict[str, str]] = json.loads(run.stdout)
    assert set(langs) >= {"en", "fr"}
    en = langs["en"]
    assert len(en) > 100
    for lang, keys in langs.items():
        missing = sorted(set(en) - set(keys))
        extra = sorted(set(keys) - set(en))
        assert not missing and not extra, f"{lang}: missing {missing}, not in English {extra}"
        differ = sorted(k for k in en if en[k] != keys[k])
        assert not differ, f"{lang}: keys whose form differs from English: {differ}"
