"""What a room hands its changes to, and who hears how an action went: the seams where a store's
journal (hub/stores/commits.py) and a forwarding process stand in for local connections."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import msgpack

from hub.tables.frames import Encoded
from rules.engine import IllegalAction


class Replier(Protocol):
    """Who hears how an action went: a connection, or (with Redis) the process that forwarded it."""

    def error(self, act_id: Any, code: str, message: str) -> None: ...
    def send_frame(self, frame: dict[str, Any]) -> None: ...


class Journal(Protocol):
    """Where a room's changes go when they must be logged before anyone sees them (hub.stores.redis.owner)."""

    @property
    def busy(self) -> bool: ...

    def record(self, cause: dict[str, Any] | None, changed: list[tuple[str, Encoded]]) -> None: ...
    def presence_changed(self) -> None: ...
    def event(self, frame: Encoded) -> None: ...
    def contest(self, open_contest: Any) -> None: ...
    def after(self, fn: Callable[[], None]) -> None:
        """Run `fn` once what was recorded so far is shown to this process's connections."""


def keepable(action: Any) -> Any:
    """A private copy of an action for the replay log. Actions come from the network as any decoded
    value: one msgpack cannot hold (an integer past 64 bits from a JSON client) is refused here,
    before the engine sees it, rather than taking the connection down."""
    try:
        return msgpack.unpackb(msgpack.packb(action, use_bin_type=True), raw=False, strict_map_key=False)
    except (ValueError, TypeError, OverflowError):
        raise IllegalAction("bad_message", "the action holds a value out of range") from None
