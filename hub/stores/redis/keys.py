"""The hub's keys in Redis: one room's keys in one slot, and what each holds.

Every key and channel of a room carries the room id as its hash tag (`hub:{<rid>}:...`), so that on
Redis Cluster a room's record, log, snapshot, lease and channels share one slot: the scripts below
touch several of them atomically, and publish from inside the script onto the room's own shard.

What lives where, for a room `R` (prefix `hub` by default):

| key | type | what |
|---|---|---|
| `hub:{R}:room` | hash | `rec` (game, seats, options, seed, bots; msgpack), `meta` (the lobby's view; JSON), |
|  |  | `tokens` (the seats' token SHA-256 hashes; JSON), `snap_n` (the latest snapshot's entry) |
| `hub:{R}:log` | stream | one entry per change, id `<n>-0`, field `e`: msgpack of the entry (hub.stores.redis.owner) |
| `hub:{R}:snap` | string | the latest snapshot (msgpack of plain data: hub/tables/persist.py) |
| `hub:{R}:lease` | string | the owner process's id, with a TTL it renews |
| `hub:{R}:out` | channel | owner to every process: log entries as appended, replies, notices |
| `hub:{R}:in` | channel | any process to the owner: actions, joins, seat presence |

and `hub:index` (public rooms by creation time), `hub:live` (every held room by lease expiry, for
the sweep that takes over orphans), `hub:node:<id>` (a process's heartbeat) and `hub:node:<id>:rx`
(replies to that process's HTTP joins).
"""
from __future__ import annotations

import re
from typing import Any

ROOM_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def valid_rid(rid: Any) -> bool:
    """Room ids come from clients; only ours can be used in a key (no braces to break the hash tag)."""
    return isinstance(rid, str) and ROOM_ID.match(rid) is not None


class Keys:
    def __init__(self, prefix: str) -> None:
        self.p = prefix
        self.index = f"{prefix}:index"
        self.live = f"{prefix}:live"

    def room(self, rid: str) -> str:
        return f"{self.p}:{{{rid}}}:room"

    def log(self, rid: str) -> str:
        return f"{self.p}:{{{rid}}}:log"

    def snap(self, rid: str) -> str:
        return f"{self.p}:{{{rid}}}:snap"

    def lease(self, rid: str) -> str:
        return f"{self.p}:{{{rid}}}:lease"

    def out(self, rid: str) -> str:
        return f"{self.p}:{{{rid}}}:out"

    def inbox(self, rid: str) -> str:
        return f"{self.p}:{{{rid}}}:in"

    def node(self, inst: str) -> str:
        return f"{self.p}:node:{inst}"

    def rx(self, inst: str) -> str:
        return f"{self.p}:node:{inst}:rx"
