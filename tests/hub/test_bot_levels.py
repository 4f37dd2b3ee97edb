"""A bot seat's level, asked when the room is made (`bots: [{"seat", "level"}]`, docs/protocol.md):
refused when unknown, shown in every view and in the replay, kept in the room's record across a
restart and into the next game, and played: a room of easy and normal bots plays to its end."""
from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from typing import Any

import pytest

from bench.common import descendants
from tests.conftest import HubProcess
from tests.hub.test_play_again import finished_room
from tests.hub.wsclient import Client, http, snapshot

pytestmark = pytest.mark.asyncio


def played_out(hub: HubProcess, rid: str, within_s: float, why: str, each: Any = None) -> None:
    """Wait until room `rid` is finished (`why` if it is not within `within_s`), calling `each()`
    between looks."""
    deadline = time.monotonic() + within_s
    while http(hub.url, "GET", f"/api/rooms/{rid}")[1]["status"] != "finished":
        assert time.monotonic() < deadline, why
        if each is not None:
            each()
        time.sleep(0.2)


def make(hub: HubProcess, bots: Any, game: str = "symbiose", seats: int = 2) -> tuple[int, Any]:
    return http(hub.url, "POST", "/api/rooms", {"game": game, "seats": seats, "options": {"bot_delay_ms": 0},
                                                "bots": bots})


async def test_an_unknown_level_or_a_bad_seat_is_refused_and_makes_nothing(hub: HubProcess) -> None:
    before = http(hub.url, "GET", "/api/rooms")[1]
    for bots in ([{"seat": 1, "level": "mighty"}], [{"seat": 1, "level": 3}], [{"seat": 5, "level": "easy"}],
                 [{"level": "easy"}], [1, {"seat": 1, "level": "easy"}], "1"):
        status, body = make(hub, bots)
        assert status == 400 and body["error"] == "bad_bots", (bots, body)
    assert len(http(hub.url, "GET", "/api/rooms")[1]) == len(before)


async def test_each_bots_level_is_in_the_view_and_the_replay(hub: HubProcess) -> None:
    status, made = make(hub, [{"seat": 0, "level": "easy"}, 1])
    assert status == 201, made
    rid = made["room"]
    _, view = await snapshot(hub.url, rid)
    by_seat = {p["seat"]: p for p in view["players"]}
    assert by_seat[0]["bot_level"] == "easy" and by_seat[1]["bot_level"] == "normal"
    played_out(hub, rid, 30, "a room of an easy and a normal bot plays to its end")
    status, replay = http(hub.url, "GET", f"/api/rooms/{rid}/replay")
    assert status == 200
    assert [p["bot_level"] for p in replay["view"]["players"]] == ["easy", "normal"]


async def test_the_strong_level_is_offered_only_where_the_search_knows_the_game(hub: HubProcess) -> None:
    games = {g["id"]: g for g in http(hub.url, "GET", "/api/games")[1]}
    assert games["symbiose"]["bot_levels"] == ["easy", "normal", "strong"]
    for gid, g in games.items():
        status, body = make(hub, [{"seat": 1, "level": "strong"}], gid, g["min_players"])
        if "strong" in g["bot_levels"]:
            assert status == 201, body
        else:
            assert status == 400 and body["error"] == "bad_bots", (gid, body)


async def test_a_room_of_a_strong_and_a_normal_bot_plays_to_its_end(hub: HubProcess) -> None:
    """The strong bot thinks in the hub's pool of workers and its moves come back to the table."""
    status, made = make(hub, [{"seat": 0, "level": "strong"}, 1])
    assert status == 201, made
    rid = made["room"]
    played_out(hub, rid, 60, "a room of a strong and a normal bot plays to its end")
    status, replay = http(hub.url, "GET", f"/api/rooms/{rid}/replay")
    assert status == 200
    assert [p["bot_level"] for p in replay["view"]["players"]] == ["strong", "normal"]
    assert len(replay["steps"]) >= 16


async def test_a_strong_bot_whose_workers_die_still_plays_to_the_end(hub_factory: Any) -> None:
    """Killing the thinking workers mid-search (kill -9, again and again) costs the seat its search,
    never its move: it plays the normal move, and the next search gets a new pool."""
    h = hub_factory("--bot-think-ms", "400").start()
    assert h.proc is not None
    status, made = make(h, [{"seat": 0, "level": "strong"}, {"seat": 1, "level": "strong"}])
    assert status == 201, made
    killed: list[int] = []

    def kill_workers() -> None:
        assert h.proc is not None
        for pid in descendants(h.proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
    played_out(h, made["room"], 90, "the table stalled after its thinking workers were killed", kill_workers)
    assert len(killed) >= 2
    assert h.proc.poll() is None, "the hub itself lives on"


async def test_the_level_is_kept_across_a_restart(tmp_path: Any) -> None:
    args = ["--bot-delay-ms", "60000", "--rooms-per-ip-per-min", "0", "--db", str(tmp_path / "hub.sqlite3")]
    h = HubProcess(*args).start()
    try:
        status, made = make(h, [{"seat": 1, "level": "easy"}])
        assert status == 201, made
    finally:
        h.kill()
    h = HubProcess(*args).start()
    try:
        _, view = await snapshot(h.url, made["room"])
        assert [p.get("bot_level") for p in view["players"]] == [None, "easy"]
    finally:
        h.stop()


async def test_the_next_game_keeps_each_bots_level(hub: HubProcess) -> None:
    rid, tokens = await finished_room(hub, [{"seat": 2, "level": "easy"}])  # type: ignore[list-item]
    status, body = http(hub.url, "POST", f"/api/rooms/{rid}/again", {"token": tokens[0]})
    assert status == 200, body
    _, view = await snapshot(hub.url, body["room"])
    assert [p.get("bot_level") for p in view["players"]] == [None, None, "easy"]


async def test_a_tables_strong_bots_make_at_most_one_offer_a_minute(hub_factory: Any) -> None:
    """Waterfall Park's strong bots negotiate (tests/rules/test_search.py sees them propose), but the
    table paces them: one offer or counter-offer a minute among them all, while the normal bots at
    the same table propose as they always have. A spectator reads every log entry as it comes."""
    h = hub_factory("--bot-think-ms", "120").start()
    status, made = make(h, [{"seat": 0, "level": "strong"}, {"seat": 1, "level": "strong"}, 2, 3],
                        "waterfall_park", 4)
    assert status == 201, made
    rid = made["room"]
    watcher = await Client(h.url, rid).open()
    entries: dict[int, Any] = {}
    first_seen: dict[int, float] = {}
    started = time.monotonic()
    try:
        while time.monotonic() - started < 150:
            view = watcher.view
            for i, entry in enumerate(view["log"]):
                n = view["log_from"] + i
                if n not in entries:
                    entries[n] = entry
                    first_seen[n] = time.monotonic()
            if view["phase"] == "over":
                break
            watcher.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watcher.changed.wait(), 1)
        assert watcher.view["phase"] == "over", "the table plays to its end"
        assert entries and min(entries) == 0 and len(entries) == max(entries) + 1, "no entry was missed"
    finally:
        await watcher.close()
    elapsed = time.monotonic() - started
    # a counter-offer writes "countered" and then its own "offer"
    strong = [first_seen[n] for n, e in entries.items() if e[0] == "offer" and e[2] in (0, 1)]
    normal = [n for n, e in entries.items() if e[0] == "offer" and e[2] in (2, 3)]
    assert normal, "offers were on the table (the normal bots')"
    assert len(strong) <= 1 + int(elapsed // 60), (len(strong), elapsed)
    assert all(b - a >= 59 for a, b in zip(strong, strong[1:], strict=False)), strong
