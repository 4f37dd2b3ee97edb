"""Whole games over real WebSockets against a real hub: every patched view equals a fresh snapshot."""
from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

from rules.registry import GAMES
from tests.hub.wsclient import Client, join, new_room, settle, snapshot

TABLES: list[tuple[str, int, dict[str, Any]]] = [
    ("symbiose", 2, {}), ("symbiose", 3, {}), ("symbiose", 4, {}),
    ("symbiose", 2, {"mode": "duel"}), ("symbiose", 4, {"mode": "team"}),
    ("frenzy_falls", 2, {}), ("frenzy_falls", 6, {}),
    ("waterfall_park", 3, {}), ("waterfall_park", 5, {}),
    ("frenetic_village", 2, {}), ("frenetic_village", 5, {}),
]
MAX_STEPS = 4000
#: Random play may never complete a Frenetic Village combination: a bounded stretch of play is checked.
STEPS = {"frenetic_village": 120}


async def grab_at(c: Client, contest: str, when: float) -> None:
    await asyncio.sleep(max(0.0, when - time.monotonic()))
    await c.act({"type": "grab", "contest": contest})


async def play_table(base: str, game: str, seats: int, options: dict[str, Any], seed: int,
                     check_every: int = 1) -> tuple[list[Client], Any]:
    rng = random.Random(seed)
    room = new_room(base, game, seats, {**options, **({"grab_window_ms": 500} if game == "frenetic_village" else {})})
    tokens = [join(base, room, f"p{s}", s)[1] for s in range(seats)]
    players = [await Client(base, room, t).open() for t in tokens]
    spec = await Client(base, room).open()
    spec_json = await Client(base, room, codec="json").open()
    everyone = [*players, spec, spec_json]
    grabs: set[tuple[int, Any]] = set()
    grabbing: list[asyncio.Task[Any]] = []
    for step in range(STEPS.get(game, MAX_STEPS)):
        await settle(everyone, gap=0.02)
        for i, c in enumerate(players):  # take part in timed contests, as a player would
            for f in c.contests:
                if (i, f["id"]) in grabs:
                    continue
                grabs.add((i, f["id"]))
                if rng.random() < 0.6:
                    # a human reaction after the card showed (faster is a false start), well inside the window
                    when = c.contest_at[f["id"]] + rng.uniform(0.13, 0.2)
                    grabbing.append(asyncio.create_task(grab_at(c, f["id"], when)))
        if spec.view["result"] is not None:
            break
        movers = [c for c in players if c.legal]
        if not movers:
            await asyncio.sleep(0.05)
            continue
        c = rng.choice(movers)
        answer = await c.act(rng.choice(c.legal), seq=c.seq)
        assert answer["t"] == "ack" or answer["code"] == "stale", answer
        if step % check_every == 0:
            await settle(everyone, gap=0.02)
            seq, view = await snapshot(base, room)
            if seq == spec.seq:
                assert view == spec.view, f"step {step}: the spectator's patched view differs from a snapshot"
            # a fresh connection of the seat takes it over (4009) and must see exactly the patched view
            i = players.index(c)
            fresh = await Client(base, room, tokens[i]).open()
            assert await c.wait_closed() == 4009
            assert not c.problems, c.problems
            if fresh.seq == c.seq:
                assert fresh.view == c.view, f"step {step}: seat {i}'s patched view differs from a snapshot"
            players[i] = fresh
            everyone = [*players, spec, spec_json]
    await asyncio.gather(*grabbing, return_exceptions=True)
    await settle(everyone)
    for c in everyone:
        assert not c.problems, c.problems
    assert spec_json.view == spec.view
    seq, view = await snapshot(base, room)
    assert (seq, view) == (spec.seq, spec.view)
    return everyone, spec.view


@pytest.mark.parametrize(("game", "seats", "options"),
                         [t for t in TABLES if t[0] in GAMES], ids=lambda v: str(v))
async def test_full_game(hub: Any, game: str, seats: int, options: dict[str, Any]) -> None:
    everyone, final = await play_table(hub.url, game, seats, options, seed=seats * 31 + len(options),
                                       check_every=1 if game == "symbiose" else 7)
    try:
        if game != "frenetic_village":
            assert final["result"] is not None, "the game did not finish"
        if final["result"] is not None:
            assert len(final["result"]["scores"]) == seats
            assert final["result"]["winners"]
        for c in everyone[:-2]:
            assert c.view["result"] == final["result"]
        if game == "frenetic_village":
            results = [e for e in everyone[-2].events if e["kind"] == "contest_result"]
            assert results, "no grab contest was settled"
            assert any(e["winner"] is not None for e in results), "no grab was ever won"
            assert all(len(e["secret"]) == 32 for e in results)
    finally:
        for c in everyone:
            await c.close()


async def test_bots_finish_a_game_alone(hub: Any) -> None:
    for game in [g for g in ("symbiose", "frenzy_falls", "waterfall_park") if g in GAMES]:
        seats = GAMES[game].min_players
        room = new_room(hub.url, game, seats, {"bot_delay_ms": 0}, bots=list(range(seats)))
        spec = await Client(hub.url, room).open()
        for _ in range(300):
            if spec.view["result"] is not None:
                break
            await asyncio.sleep(0.05)
        assert spec.view["result"] is not None, f"{game}: bots did not finish"
        assert not spec.problems
        await spec.close()


async def test_human_against_bots(hub: Any) -> None:
    room = new_room(hub.url, "symbiose", 3, {"bot_delay_ms": 0}, bots=[1, 2])
    _, token = join(hub.url, room, "me")
    me = await Client(hub.url, room, token).open()
    rng = random.Random(5)
    for _ in range(200):
        await settle([me], gap=0.03)
        if me.view["result"] is not None:
            break
        if me.legal:
            assert (await me.act(rng.choice(me.legal)))["t"] == "ack"
    assert me.view["result"] is not None
    names = [p["name"] for p in me.view["players"]]
    assert names[0] == "me" and all(p["bot"] for p in me.view["players"][1:])
    await me.close()


async def test_frames_written_at_once_and_through_the_writer_alike(hub_factory: Any) -> None:
    """A frame with nothing queued before it is written at once (hub/edge/direct.py); with that off every
    frame takes the connection's writer. Either way spectators of both codecs follow a whole game
    of bots to the same view a fresh snapshot shows."""
    import urllib.request

    for direct in ("true", "false"):
        h = hub_factory("--direct-send", direct, "--verify-deltas").start()
        room = new_room(h.url, "symbiose", 4, {"bot_delay_ms": 0}, bots=list(range(4)))
        specs = [await Client(h.url, room).open(), await Client(h.url, room, codec="json").open()]
        for _ in range(300):
            if all(s.view["result"] is not None for s in specs):
                break
            await asyncio.sleep(0.05)
        seq, view = await snapshot(h.url, room)
        for s in specs:
            assert s.view["result"] is not None and not s.problems
            assert (s.seq, s.view) == (seq, view)
            await s.close()
        with urllib.request.urlopen(h.url + "/metrics", timeout=10) as r:
            line = next(x for x in r.read().decode().splitlines() if x.startswith("hub_frames_direct_total "))
        written_at_once = float(line.split()[1])
        assert written_at_once > 0 if direct == "true" else written_at_once == 0, (direct, written_at_once)
        h.stop()
