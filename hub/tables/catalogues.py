"""Each game's catalogue as the hub serves it: what every kind of card the views and the log name by
id shows and means, and every kind of log entry with its arguments. It never changes while a process
runs, so it is encoded once, with an ETag a client revalidates it by (`GET /api/games/<id>/catalogue`)."""
from __future__ import annotations

import functools
import hashlib
import json

from rules.registry import GAMES


@functools.cache
def catalogue(game_id: str) -> tuple[bytes, str] | None:
    """(JSON body, ETag) of a game's catalogue; None for a game this hub does not serve."""
    game = GAMES.get(game_id)
    if game is None:
        return None
    doc = {"game": game.id, **game.catalogue(), "log": {kind: list(args) for kind, args in game.log_kinds.items()}}
    body = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
