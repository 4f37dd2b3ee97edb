"""The stores: where rooms live, each behind the one interface in hub/stores/base.py.

- `sqlite`, the default, holds every room in this process and commits each change to a database
  file before anyone sees it, so a restart loses nothing (hub/stores/sqlite/).
- `memory` holds every room in this process and sends each change straight to the connections;
  nothing adds a hop to that path, and nothing survives the process (for tests).
- `redis` lets any number of processes share rooms: each room has one owner process that logs every
  change to Redis before anyone sees it, and every process relays the owner's deltas to its own
  connections (hub/stores/redis/).

A store builds on the tables (rooms, audiences, the journal a room logs its changes through); the
edge reaches a store only through `Store`, and the tables know nothing of any store.
"""
from __future__ import annotations

from hub.metrics import Metrics
from hub.settings import Settings
from hub.stores.base import Store


def make_store(settings: Settings, metrics: Metrics) -> Store:
    if settings.redis:
        from hub.stores.redis.store import RedisStore

        return RedisStore(settings, metrics)
    if settings.store == "memory":
        from hub.stores.memory import MemoryStore

        return MemoryStore(settings, metrics)
    if settings.store != "sqlite":
        raise ValueError(f"unknown store {settings.store!r}: sqlite or memory (or --redis URL)")
    from hub.stores.sqlite.store import SqliteStore

    return SqliteStore(settings, metrics)
