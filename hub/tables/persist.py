"""A room as plain data: the record it was made from, its log entries and snapshots, and the way back.

The stores that keep rooms (SQLite, Redis) write these bytes and rebuild rooms from them, so both
share one format, all msgpack of plain data: nothing in them can run code when read back (the
engine's state is written by rules/snapshot.py, never pickled).

- The **record** is what the lobby made the room from: game, seats, options, seed, bots, when.
- Each change is one **entry**: what the engine needs to replay it (the action and its seat, or the
  join), what the hub added (status, deadline and its phase, every audience's seq after it) and each
  changed audience's delta as the msgpack bytes its connections received. Keys: `n` (1, 2, ...),
  `k` (`act`, `join`, `start`, `chat`, `sync`), `ln` a chat line (hub/tables/chat.py; no delta),
  `s` seat, `a` action, `by`, `aid` (the action's or chat line's id, for idempotence),
  `nm`/`th`/`jid` (a join's name, token hash and join id), `st` status, `dl` deadline, `dp` deadline phase,
  `q` {audience: seq}, `d` {audience: delta bytes}, `ts` epoch ms, `bk` banks.
- A **snapshot** is the room after entry `n`: the engine's state, seats, every audience's (seq,
  view), the action log, the chat lines kept and the ids recently applied.

A room comes back from its latest snapshot and the entries after it. When the snapshot cannot be
read (another format version, a state whose types changed, bytes that are not a snapshot) it is
refused with a log line and the room is rebuilt from its record and the whole log instead: engines
are deterministic, so the same seed and actions give the same room.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jsonpatch
import msgpack

from hub.logs import log
from hub.tables.bots import log_total
from hub.tables.frames import Encoded
from hub.tables.room import STAND_IN, Room
from hub.tables.seat import FINISHED, PLAYING, epoch_ms
from rules import snapshot as plain
from rules.levels import NORMAL
from rules.registry import GAMES

if TYPE_CHECKING:
    from hub.tables.table import House

logger = logging.getLogger("hub.tables.persist")

#: The snapshot format's version. 1 held the engine's state pickled and is refused (rebuilt from the log).
SNAPSHOT_V = 2


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


class Corrupt(Exception):
    """The log does not follow on from the snapshot (or an entry no longer applies)."""


class Unreadable(Corrupt):
    """A snapshot this hub does not read: another version, a foreign state, not a snapshot at all."""


@dataclass
class Restored:
    room: Room
    n: int                      # the last entry applied
    recent: list[list[Any]]     # [id, value] of actions and joins recently applied, oldest first


def levels_of(rec: dict[str, Any]) -> dict[int, str]:
    """The levels of a record's bots that are not normal (none in records older than levels)."""
    got = rec.get("bot_levels") or {}
    return {int(s): str(lv) for s, lv in got.items()} if isinstance(got, dict) else {}


def record_of(room: Room, created_ms: int) -> bytes:
    rec = {"game": room.game.id, "seats": len(room.seats), "options": room.options,
           "hub_options": room.hub_options, "seed": room.seed,
           "bots": [s.index for s in room.seats if s.bot], "created": created_ms}
    chosen = {str(s.index): s.level for s in room.seats if s.bot and s.level != NORMAL}
    if chosen:  # absent when every bot is normal, as in records made before bots had levels
        rec["bot_levels"] = chosen
    if room.again:  # a next game: whichever process holds it after a restart seats its bots in time
        rec["again"] = True
    return pack(rec)


def deadline_phase(room: Room) -> list[Any] | None:
    dp = room.clock.key
    return None if dp is None else [dp[0], sorted(dp[1])]


def entry_of(room: Room, n: int, cause: dict[str, Any] | None, changed: list[tuple[str, Encoded]]) -> dict[str, Any]:
    """The log entry of one change of the room, as its journal records it."""
    entry: dict[str, Any] = {k: v for k, v in (cause or {"k": "sync"}).items() if v is not None}
    entry.update(n=n, st=room.status, dl=room.deadline, dp=deadline_phase(room),
                 q={key: aud.seq for key, aud in room.audiences.items()},
                 d={key: enc.get("msgpack") for key, enc in changed}, ts=epoch_ms())
    if room.clock.banked:
        entry["bk"] = list(room.clock.bank_ms)
    return entry


def snapshot_of(room: Room, n: int, recent: list[list[Any]]) -> bytes:
    finished_ts = None
    if room.finished_at is not None:
        finished_ts = epoch_ms() - int((time.monotonic() - room.finished_at) * 1000)
    return pack({"v": SNAPSHOT_V, "n": n, "state": {"v": plain.VERSION, "d": plain.dump(room.state)},
                 "status": room.status, "deadline": room.deadline, "dp": deadline_phase(room),
                 "banks": list(room.clock.bank_ms), "actions": room.actions, "finished_ts": finished_ts,
                 "seats": [[s.name, s.token_hash, s.bot] for s in room.seats],
                 "aud": {key: [aud.seq, aud.view] for key, aud in room.audiences.items()},
                 "log": [[seat, action] for seat, action in room.log],
                 "recent": recent, "ts": epoch_ms(), "abandoned": room.abandoned,
                 "stood": sorted(room.bots.stood_in),
                 "stood_log": list(room.bots.stood_in_log),
                 "chat": list(room.chat.lines)})


def snapshot_n(snap_b: bytes) -> int:
    """The entry a snapshot follows, or 0 (read the whole log) when the snapshot cannot be read."""
    if not readable(snap_b):
        return 0
    n = unpack(snap_b).get("n")
    return n if isinstance(n, int) and n >= 0 else 0


def readable(snap_b: bytes) -> bool:
    """Whether a snapshot is of this hub's format (its state may still turn out not to load)."""
    try:
        snap = unpack(snap_b)
    except (ValueError, TypeError, msgpack.UnpackException):
        return False
    return isinstance(snap, dict) and snap.get("v") == SNAPSHOT_V


def read_record(rec_b: bytes) -> dict[str, Any]:
    try:
        rec = unpack(rec_b)
        if not isinstance(rec, dict) or rec.get("game") not in GAMES:
            raise Corrupt("the room's record names no game this hub serves")
        return rec
    except (ValueError, TypeError, msgpack.UnpackException) as e:
        raise Corrupt(f"the room's record is not readable ({type(e).__name__})") from None


def restore(house: House, rid: str, rec_b: bytes, snap_b: bytes, entries: list[tuple[int, bytes]],
            fresh_views: bool = False) -> Restored:
    """Rebuild a room from its record, latest snapshot and the log entries after it; `Unreadable`
    when the snapshot cannot be used (the caller then reads the whole log and calls `rebuild`).

    Each audience's view is its view at the last entry, patched from the snapshot's by every delta
    since: a relay elsewhere holds exactly that view and goes on from it (Redis). With
    `fresh_views`, an audience that changed since the snapshot is shown afresh instead, at the
    next seq, so every client of it gets a whole welcome; a store that nobody follows (SQLite)
    comes back that way without applying every delta since the snapshot (a millisecond each)."""
    rec = read_record(rec_b)
    game = GAMES[rec["game"]]
    try:
        snap = unpack(snap_b)
    except (ValueError, TypeError, msgpack.UnpackException):
        raise Unreadable(f"room {rid}: the snapshot is not msgpack") from None
    if not isinstance(snap, dict) or snap.get("v") != SNAPSHOT_V:
        version = snap.get("v") if isinstance(snap, dict) else None
        raise Unreadable(f"room {rid}: snapshot version {version!r:.20} is not {SNAPSHOT_V}")
    state = snap.get("state")
    if not isinstance(state, dict) or state.get("v") != plain.VERSION:
        raise Unreadable(f"room {rid}: the state's format is not version {plain.VERSION}")
    room = Room.__new__(Room)
    room._fields(house, rid, game, int(rec["seats"]), rec["options"], rec["hub_options"], int(rec["seed"]))  # noqa: SLF001
    try:
        room.state = plain.load(state["d"], plain.state_types(game))
    except plain.SnapshotError as e:
        raise Unreadable(f"room {rid}: {e}") from None
    for seat, (name, th, bot) in zip(room.seats, snap["seats"], strict=True):
        seat.name, seat.token_hash, seat.bot = name, th, bool(bot)
    for index, level in levels_of(rec).items():
        if 0 <= index < len(room.seats):
            room.seats[index].level = level
    room.status, room.deadline, room.actions = snap["status"], snap["deadline"], int(snap["actions"])
    room.log = [(seat, action) for seat, action in snap.get("log") or []]
    for index in snap.get("stood") or []:
        actor = room.log[index][0] if isinstance(index, int) and 0 <= index < len(room.log) else None
        if actor is not None:
            room.bots.note_stood_in(index, actor)
    for n in snap.get("stood_log") or []:
        if isinstance(n, int):
            room.bots.note_log(range(n, n + 1))
    room.abandoned = bool(snap.get("abandoned"))
    for line in snap.get("chat") or []:
        room.chat.add(line)
    if room.clock.banked and isinstance(snap.get("banks"), list):
        room.clock.bank_ms = [int(b) for b in snap["banks"]]
    room.clock.restore(None if snap["dp"] is None else (snap["dp"][0], frozenset(snap["dp"][1])), room.deadline)
    views: dict[str, list[Any]] = {k: [int(v[0]), v[1]] for k, v in snap["aud"].items()}
    return _follow(room, rec, int(snap["n"]), views, list(snap.get("recent") or []), snap.get("finished_ts"),
                   entries, fresh_views)


def rebuild(house: House, rid: str, rec_b: bytes, entries: list[tuple[int, bytes]],
            fresh_views: bool = False) -> Restored:
    """Rebuild a room from its record and its whole log, as it was made and then changed. Its
    timers are held until `wake`: while entries are applied nothing may fire."""
    rec = read_record(rec_b)
    game = GAMES[rec["game"]]
    room = Room(_Held(house), rid, game, int(rec["seats"]), rec["options"], rec["hub_options"],
                int(rec["seed"]), [int(b) for b in rec.get("bots") or []], levels_of(rec))
    room.rooms = house
    # copies: the audiences of one change share what they see alike, and entries patch them in place
    views = {key: [aud.seq, aud.view if fresh_views else unpack(pack(aud.view))]
             for key, aud in room.audiences.items()}
    return _follow(room, rec, 0, views, [], None, entries, fresh_views)


def _follow(room: Room, rec: dict[str, Any], n: int, views: dict[str, list[Any]], recent: list[list[Any]],
            finished_ts: Any, entries: list[tuple[int, bytes]], fresh_views: bool) -> Restored:
    for en, blob in entries:
        if en != n + 1:
            raise Corrupt(f"room {room.rid}: the log jumps from {n} to {en}")
        e = unpack(blob)
        apply_entry(room, e, views, fresh_views)
        if e.get("aid") is not None:
            recent.append([e["aid"], en])
        if e.get("jid") is not None:
            recent.append([e["jid"], int(e["s"])])
        if e["st"] == FINISHED and finished_ts is None:
            finished_ts = int(e["ts"])
        n = en
    for key, aud in room.audiences.items():
        aud.seq, aud.view = views[key]
        # changed since the snapshot, not patched: `wake` sends it whole, as the next seq (in the log)
        aud.stale = aud.view is None
        aud.history.clear()
        aud.legal_at.clear()
        if aud.seat is not None and aud.view is not None:
            aud.legal_at.append((aud.seq, aud.view.get("legal") or []))
    now_ms, mono = epoch_ms(), time.monotonic()
    room.created = mono - max(0, now_ms - int(rec.get("created", now_ms))) / 1000
    room.again = bool(rec.get("again"))
    if finished_ts is not None:
        room.finished_at = mono - max(0, now_ms - int(finished_ts)) / 1000
    return Restored(room, n, recent)


def apply_entry(room: Room, e: dict[str, Any], views: dict[str, list[Any]], fresh_views: bool = False) -> None:
    """Apply one log entry to a room being rebuilt: the engine's part, the hub's part, the views
    (patched, or with `fresh_views` only counted, and dropped to be made afresh)."""
    k = e["k"]
    if k == "act":
        by_stand_in = e.get("by") == STAND_IN and isinstance(e.get("s"), int)
        written_from = log_total(room.game, room.state) if by_stand_in else 0
        try:
            room.game.apply(room.state, e.get("s"), dict(e["a"]))
        except Exception as err:
            raise Corrupt(f"room {room.rid}: entry {e['n']} no longer applies: {err!r}") from err
        room.log.append((e.get("s"), e["a"]))
        room.actions += 1
        if by_stand_in:
            room.bots.note_stood_in(len(room.log) - 1, int(e["s"]),
                                    range(written_from, log_total(room.game, room.state)))
    elif k == "join":
        seat = room.seats[int(e["s"])]
        seat.name, seat.token_hash = e["nm"], e["th"]
        seat.bot = bool(e.get("bt"))
    elif k == "abandon":
        room.abandoned = True
    elif k == "chat":
        room.chat.add(e["ln"])
    room.status, room.deadline = e["st"], e["dl"]
    if room.clock.banked and isinstance(e.get("bk"), list):
        room.clock.bank_ms = [int(b) for b in e["bk"]]
    room.clock.restore(None if e["dp"] is None else (e["dp"][0], frozenset(e["dp"][1])), room.deadline)
    for key, delta in e["d"].items():
        seq = int(e["q"][key])
        cur = views[key]
        if seq != cur[0] + 1:
            raise Corrupt(f"room {room.rid}: audience {key} goes from seq {cur[0]} to {seq}")
        if fresh_views:
            views[key] = [seq, None]
            continue
        # in place: the views being rebuilt are this function's own (unpacked), shared with nothing
        views[key] = [seq, jsonpatch.apply_patch(cur[1], unpack(delta)["ops"], in_place=True)]


def wake(room: Room, paused_ms: int = 0) -> None:
    """Start a rebuilt room's clocks: bots and timers resume here; absent players get their grace.

    `paused_ms` is how long nobody served the room (a restart): its deadline moves by as much, so
    the time the hub was away is charged to no one."""
    rooms = room.rooms
    room.drop_timers()
    if room.status == PLAYING:
        for s in room.seats:
            if not s.bot:
                s.dropped_at = time.monotonic()
                rooms.loop_call_later(room.settings.grace_s, room.people.grace_over, s.index)
        if room.deadline is not None:
            room.deadline += max(0, paused_ms)
            room.clock.restore(room.clock.key, room.deadline)
            wait = max(0.0, (room.deadline - epoch_ms()) / 1000)
            room.clock.adopt(rooms.loop_call_later(wait, room.clock.fire))
    elif room.status == FINISHED and room.finished_at is not None:
        left = room.settings.finished_ttl_s - (time.monotonic() - room.finished_at)
        rooms.loop_call_later(max(0.0, left), room.drop_if_held)
    room.refresh()  # normally changes nothing; schedules the bots, opens a contest the engine declares
    log(logger, logging.INFO, "room taken up", room=room.rid, status=room.status,
        seqs={k: a.seq for k, a in room.audiences.items()})


class _Held:
    """The process's rooms as a room being rebuilt sees them: every timer it asks for is cancelled
    at once (`wake` starts what the rebuilt room needs), and it is in no one's list."""

    def __init__(self, house: House) -> None:
        self.settings = house.settings
        self.metrics = house.metrics
        self.rooms: dict[str, object] = {}

    def loop_call_later(self, delay: float, fn: Callable[..., Any], *args: Any) -> asyncio.TimerHandle:
        handle = asyncio.get_running_loop().call_later(delay, fn, *args)
        handle.cancel()
        return handle

    def drop(self, rid: str) -> None:
        pass
