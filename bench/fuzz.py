"""Coverage-guided fuzzing (atheris, on libFuzzer) of the frame decoder and every game's `apply`.

    python -m bench.fuzz --runs 2000000            # a long manual run
    python -m bench.fuzz --runs 20000 --seed 1     # what the test suite runs
    python -m bench.fuzz --corpus artifacts/fuzz   # keep and grow a corpus between runs

Each input picks a target by its first byte:
- the decoder (`hub.edge.codec.decode`) with the rest as a binary msgpack frame or a text JSON frame: it
  returns a value or raises `BadFrame`, never anything else;
- a game's `apply`, on a state taken from random legal play (a few per game, at different steps),
  for a seat (or none), with an action that is either the rest decoded as msgpack (any shape) or a
  real `legal` item bent by the fuzzer's bytes. A refusal must be an `IllegalAction` with a protocol
  code and leave the state byte-identical; an accepted action must leave views JSON-compatible.
Any other exception is a crash: libFuzzer stops, prints the input and exits non-zero.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import pickle
import random
import sys
from typing import Any

import atheris
import msgpack

from hub.edge.codec import BadFrame, decode
from rules.engine import HUB, IllegalAction
from rules.registry import GAMES

CODES = {"illegal", "not_your_turn", "bad_message", "game_over", "unauthorized"}
KEYS = ["type", "slot", "river", "target", "card", "cards", "offer", "give", "take", "seat", "key", "winner",
        "pool", "pos", "location", "tile", "coins", "contest", "choice", "index", "direction"]


def sample_states(per_game: int = 6) -> list[tuple[str, int, bytes]]:
    """(game id, seats, pickled state) from random legal play, deterministic, at spread-out steps."""
    out: list[tuple[str, int, bytes]] = []
    for gid in sorted(GAMES):
        game = GAMES[gid]
        for k in range(per_game):
            seats = game.min_players + k % (game.max_players - game.min_players + 1)
            state = game.setup(seats, 1000 + k, game.check_options(seats, {}))
            rng = random.Random(k)
            for _ in range(k * 7):
                if game.result(state) is not None:
                    break
                contest = game.contest(state)
                if contest is not None:
                    game.apply(state, HUB, {"type": "contest_result", "key": contest.key,
                                            "winner": rng.choice([*contest.eligible, None])})
                    continue
                movers = [s for s in game.active(state) if game.legal(state, s)]
                if not movers:
                    break
                seat = rng.choice(movers)
                game.apply(state, seat, rng.choice(game.legal(state, seat)))
            out.append((gid, seats, pickle.dumps(state)))
    return out


STATES: list[tuple[str, int, bytes]] = []


def fuzz_value(fdp: Any, depth: int = 0) -> Any:
    kind = fdp.ConsumeIntInRange(0, 9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return fdp.ConsumeIntInRange(-3, 12)
    if kind == 3:
        return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 9))
    if kind == 4:
        return fdp.ConsumeFloat()
    if kind == 5:
        return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 12))
    if kind == 6:
        return KEYS[fdp.ConsumeIntInRange(0, len(KEYS) - 1)]
    if kind == 7:
        return [fuzz_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))]
    return {fuzz_key(fdp): fuzz_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))}


def fuzz_key(fdp: Any) -> Any:
    if fdp.ConsumeIntInRange(0, 7) == 0:
        return fdp.ConsumeIntInRange(-2, 2)
    return KEYS[fdp.ConsumeIntInRange(0, len(KEYS) - 1)]


def bend(action: dict[str, Any], fdp: Any) -> Any:
    a = dict(action)
    for _ in range(fdp.ConsumeIntInRange(0, 3)):
        keys = sorted(a, key=str) or ["type"]
        key = keys[fdp.ConsumeIntInRange(0, len(keys) - 1)]
        how = fdp.ConsumeIntInRange(0, 5)
        if how == 0:
            a.pop(key, None)
        elif how == 1:
            a[fuzz_key(fdp)] = fuzz_value(fdp)
        elif how == 2 and isinstance(a.get(key), int):
            a[key] = a[key] + fdp.ConsumeIntInRange(-3, 3)
        elif how == 3:
            a[key] = fuzz_value(fdp)
        elif how == 4 and isinstance(a.get(key), int):
            a[key] = bool(a[key])
        else:
            a[key] = [a.get(key)]
    return a


def one_input(data: bytes) -> None:
    if not data:
        return
    fdp = atheris.FuzzedDataProvider(data)
    target = fdp.ConsumeIntInRange(0, 3)
    if target == 0:
        with contextlib.suppress(BadFrame):
            decode(fdp.ConsumeBytes(fdp.remaining_bytes()), "msgpack")
        return
    if target == 1:
        with contextlib.suppress(BadFrame):
            decode(fdp.ConsumeUnicode(fdp.remaining_bytes()), "json")
        return
    gid, seats, blob = STATES[fdp.ConsumeIntInRange(0, len(STATES) - 1)]
    game = GAMES[gid]
    state = pickle.loads(blob)
    seat_pick = fdp.ConsumeIntInRange(-2, seats)
    seat: Any = None if seat_pick == -1 else seat_pick if seat_pick >= 0 else fuzz_value(fdp)
    if target == 2:
        try:
            action: Any = msgpack.unpackb(fdp.ConsumeBytes(fdp.remaining_bytes()), raw=False, strict_map_key=False)
        except Exception:  # noqa: BLE001 - not msgpack: the hub's decoder would refuse it first
            return
    else:
        movers = [s for s in game.active(state) if game.legal(state, s)]
        legal = game.legal(state, movers[fdp.ConsumeIntInRange(0, len(movers) - 1)]) if movers else []
        base = legal[fdp.ConsumeIntInRange(0, len(legal) - 1)] if legal else {"type": fuzz_value(fdp)}
        action = bend(base, fdp)
    before = pickle.dumps(state)
    try:
        game.apply(state, seat, action)
    except IllegalAction as e:
        if e.code not in CODES:
            raise AssertionError(f"{gid}: refusal code {e.code!r} is not a protocol code") from None
        if pickle.dumps(state) != before:
            raise AssertionError(f"{gid}: a refused action changed the state: {action!r}") from None
        return
    for viewer in [None, *range(seats)]:
        json.dumps(game.view(state, viewer), allow_nan=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=200000, help="inputs to try (libFuzzer -runs)")
    ap.add_argument("--seed", type=int, default=0, help="libFuzzer seed; 0 = random")
    ap.add_argument("--max-len", type=int, default=2048)
    ap.add_argument("--corpus", default="", help="a folder to read and grow a corpus in")
    args, extra = ap.parse_known_args(argv)
    STATES[:] = sample_states()
    atheris.instrument_all()  # every loaded Python function: the hub's decoder and every game's package
    flags = [sys.argv[0], f"-runs={args.runs}", f"-max_len={args.max_len}", "-print_final_stats=1", *extra]
    if args.seed:
        flags.append(f"-seed={args.seed}")
    if args.corpus:
        flags.append(args.corpus)
    print(f"fuzzing {len(GAMES)} games ({len(STATES)} states) and the decoder for {args.runs} runs", flush=True)
    atheris.Setup(flags, one_input)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main())
