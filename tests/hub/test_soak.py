"""The short form of bench/soak.py: concurrent tables of every game with bots and scripted clients,
disconnects with resume and malformed frames, about half a minute against one hub process. Half a
minute is mostly warm-up for memory, so its bound on growth is loose; the minutes-long run of
bench/soak.py holds the 15 % bound whose figures are in docs/security.md."""
from __future__ import annotations

import pytest

from bench.soak import run


@pytest.mark.slow
@pytest.mark.serial
def test_a_short_soak_leaves_no_error_no_stuck_room_and_flat_memory() -> None:
    text, ok, fig = run(seconds=10, tables=6, seed=7, max_humans=2, growth_limit=0.5)
    print("\n" + text)
    assert ok, text
    assert fig.reconnects > 0 and fig.malformed > 0
