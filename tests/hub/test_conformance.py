"""The shared black-box checker of the contract, run against a real hub process."""
from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from rules.registry import GAMES
from tests.checker import conformance_checker
from tests.conftest import need

CHECKER = conformance_checker()
COUNTS = {"symbiose": "2,3,4", "frenzy_falls": "2,3,6", "waterfall_park": "3,4,5", "frenetic_village": "2,5,8"}


#: Frenetic Village may never end under random play and each discard opens a timed contest, so the
#: checker plays a bounded stretch of it (the shortest grab window a room may have keeps it short).
STEPS = {"frenetic_village": 150}


@pytest.mark.parametrize("game", list(COUNTS))
def test_conformance(hub_factory: Any, game: str) -> None:
    need(CHECKER.exists(), f"the conformance checker at {CHECKER}")
    if game not in GAMES:
        pytest.fail(f"{game} is not registered")
    h = hub_factory("--verify-deltas", "--grab-window-ms", "300").start()
    run = subprocess.run([sys.executable, str(CHECKER), h.url, "--seed", "7", "--steps", str(STEPS.get(game, 3000)),
                          "--games", f"{game}:{COUNTS[game]}"],
                         cwd=CHECKER.parent, capture_output=True, text=True, timeout=900)
    print(run.stdout[-4000:], run.stderr[-2000:])
    fails = [line for line in run.stdout.splitlines() if line.startswith("FAIL")]
    assert run.returncode == 0 and not fails, fails
    assert " passed, " in run.stdout
