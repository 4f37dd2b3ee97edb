"""A table never stalls, whatever its players do: at every phase of every game, a seat to act goes
silent (its decision times out), or leaves (a bot stands in after the grace period) and comes back
later with its token (it resumes where it was and has its seat again), or plays. Once every phase
met has been tried both ways and no new one shows up (or after SWITCH_S seconds), all but one
leave and the stand-ins finish with the one who stays. The spectator's seq must move
within a decision's time plus the grace period, all the way to the end of the game.
"""
from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Iterator

import pytest

from rules.registry import GAMES
from tests.conftest import HubProcess
from tests.hub.wsclient import Client, http, join, new_room, settle

DECISION_S = 1
GRACE_S = 0.3
STALL_S = DECISION_S + GRACE_S + 2.5  # generous: the machine may be busy
GAME_LIMIT_S = 90
SWITCH_S = 12  # after this long trying, all leave even if a phase was not met twice
QUIET_STEPS = 12  # steps without a new phase before everyone leaves for good


@pytest.fixture(scope="module")
def timed_hub() -> Iterator[HubProcess]:
    h = HubProcess("--grace-s", str(GRACE_S), "--bot-delay-ms", "0", "--verify-deltas").start()
    yield h
    h.stop()


async def wait_for_progress(spec: Client, seq: int | None, phase: str) -> None:
    """The spectator's seq must move before the view's deadline (games may scale a decision's time)
    plus the grace period and a margin."""
    start = time.monotonic()
    deadline = spec.view.get("deadline")
    limit = max(STALL_S, (deadline / 1000 - time.time()) + GRACE_S + 2.5 if deadline else 0)
    while spec.seq == seq and spec.view["result"] is None:
        assert time.monotonic() - start < limit, f"the table stalled in phase {phase!r}"
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("game_id", sorted(GAMES))
async def test_the_table_never_stalls(timed_hub: HubProcess, game_id: str) -> None:
    did: Counter[str] = Counter()
    for n in range(3):  # a game may end before a seat had the chance to leave: then another one
        did += await one_table(timed_hub.url, game_id, seed=n)
        if did["left"] and did["returned"]:
            break
    assert did["silent"] >= 1 and did["left"] >= 1 and did["returned"] >= 1, dict(did)


async def one_table(base: str, game_id: str, seed: int) -> Counter[str]:
    game = GAMES[game_id]
    seats = min(game.max_players, game.min_players + 1)
    rng = random.Random(seats * 100 + seed)
    options: dict[str, object] = {"decision_seconds": DECISION_S, "bot_delay_ms": 0}
    listed = next(g for g in http(base, "GET", "/api/games")[1] if g["id"] == game_id)["options"]
    if "grab_window_ms" in listed:  # timed contests: the shortest window, so that a game fits the test
        options["grab_window_ms"] = listed["grab_window_ms"]["min"]
    room = new_room(base, game_id, seats, options)
    tokens = [join(base, room, f"p{s}", s)[1] for s in range(seats)]
    players: dict[int, Client] = {s: await Client(base, room, t).open() for s, t in enumerate(tokens)}
    spec = await Client(base, room).open()
    away: dict[int, tuple[Client, int]] = {}  # seat -> (the closed client, spectator seq when it left)
    seen: Counter[str] = Counter()
    did: Counter[str] = Counter()
    started = time.monotonic()
    steps = last_new = 0
    while spec.view["result"] is None:
        assert time.monotonic() - started < GAME_LIMIT_S, (
            f"{game_id} did not finish in {GAME_LIMIT_S} s: phases {dict(seen)}; {dict(did)}; steps {steps}, "
            f"last new phase at {last_new}, away {sorted(away)}")
        await settle([*players.values(), spec], gap=0.02)
        for s, (gone, left_at) in list(away.items()):  # come back once the stand-in has played a little
            if spec.seq is not None and spec.seq >= left_at + 2 or time.monotonic() - started > GAME_LIMIT_S / 2:
                back = Client(base, room, tokens[s], codec=gone.codec)
                back.view, back.seq = gone.view, gone.seq
                await back.open(resume=gone.seq)
                await settle([back])
                fresh = await Client(base, room, tokens[s]).open()  # takes the seat over from `back`
                await back.wait_closed()
                if fresh.seq == back.seq:
                    assert fresh.view == back.view, "a player who came back does not see its seat's view"
                assert not back.problems, back.problems
                assert not http(base, "GET", f"/api/rooms/{room}")[1]["seats"][s]["bot"]
                players[s] = fresh
                del away[s]
                did["returned"] += 1
        if spec.view["result"] is not None:
            break
        phase = str(spec.view["phase"])
        if phase not in seen:
            last_new = steps
        steps += 1
        tried = steps - last_new > QUIET_STEPS and min(seen.values()) >= 2
        if not away and did["returned"] and (tried or time.monotonic() - started > SWITCH_S):
            # every phase met so far was tried every way: all but one leave, and the stand-ins finish
            # the game with the one who stays (a table nobody human is at waits: test_presence.py)
            keep = min(players)
            for s in [s for s in players if s != keep]:
                await players.pop(s).close()
            last = players[keep]
            while spec.view["result"] is None:
                assert time.monotonic() - started < GAME_LIMIT_S, f"{game_id}: the stand-ins did not finish"
                await settle([last, spec], gap=0.02)
                if last.legal and spec.view["result"] is None:
                    action = game.bot_action(last.view, rng) or last.legal[0]
                    answer = await last.act(action, seq=last.seq)
                    assert answer["t"] == "ack" or answer["code"] in ("stale", "not_your_turn", "illegal"), answer
                else:
                    await wait_for_progress(spec, spec.seq, str(spec.view["phase"]))
            break
        movers = [s for s, c in players.items() if c.legal]
        seq = spec.seq
        if not movers:  # everyone to act is away or silent: the hub must move on by itself
            await wait_for_progress(spec, seq, phase)
            continue
        s = rng.choice(movers)
        n = seen[phase]
        seen[phase] += 1
        if n == 0:
            did["silent"] += 1  # says nothing: the decision times out
            await wait_for_progress(spec, seq, phase)
        elif n == 1 and len(players) > 1:
            did["left"] += 1
            gone = players.pop(s)
            await gone.close()
            away[s] = (gone, seq or 0)
            await wait_for_progress(spec, seq, phase)
        else:
            c = players[s]
            action = game.bot_action(c.view, rng) if rng.random() < 0.7 else None  # mostly sensible play
            answer = await c.act(action or rng.choice(c.legal), seq=c.seq)
            assert answer["t"] == "ack" or answer["code"] in ("stale", "not_your_turn", "illegal"), answer
    print(f"\n{game_id}: phases {dict(seen)}; {dict(did)}; {time.monotonic() - started:.1f} s")
    for c in [*players.values(), spec]:
        assert not c.problems, c.problems
        await c.close()
    return did
