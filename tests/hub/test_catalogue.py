"""`GET /api/games/{id}/catalogue`: each game's kinds of cards and of log entries, fetched once and
revalidated by its ETag (docs/protocol.md, "Log entries")."""
from __future__ import annotations

import json
import urllib.request

from rules.registry import GAMES
from tests.conftest import HubProcess
from tests.hub.wsclient import http


def test_every_game_has_a_catalogue_a_client_caches(hub: HubProcess) -> None:
    for gid, game in GAMES.items():
        with urllib.request.urlopen(f"{hub.url}/api/games/{gid}/catalogue", timeout=10) as r:
            assert r.status == 200
            etag, cache = r.headers["ETag"], r.headers["Cache-Control"]
            doc = json.loads(r.read())
        assert doc["game"] == gid and doc["log"] == {k: list(a) for k, a in game.log_kinds.items()}
        assert {k: v for k, v in doc.items() if k not in ("game", "log")} == game.catalogue()
        assert etag.startswith('"') and "max-age=" in cache
        status, body = http(hub.url, "GET", f"/api/games/{gid}/catalogue", headers={"If-None-Match": etag})
        assert status == 304 and not body
    # the cards a log names are there by their ids
    assert set(GAMES["symbiose"].catalogue()["cards"]) == {str(i) for i in range(36)}
    assert "humans-3" in GAMES["frenetic_village"].catalogue()["cards"]
    assert GAMES["waterfall_park"].catalogue() == {}


def test_an_unknown_game_has_no_catalogue(hub: HubProcess) -> None:
    status, body = http(hub.url, "GET", "/api/games/chess/catalogue")
    assert status == 404 and body["error"] == "no_game", (status, body)
    for gid in ("../symbiose", "SYMBIOSE", "symbiose%00"):
        status, _ = http(hub.url, "GET", f"/api/games/{gid}/catalogue")
        assert status == 404, (gid, status)
