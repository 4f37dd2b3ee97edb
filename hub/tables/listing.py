"""What the lobby and the room's page show of a room, from its meta: plain data any process reads
(a Redis room's meta is written by its owner), so a listing never needs the room itself."""
from __future__ import annotations

from typing import Any

from hub.tables.seat import PLAYING, WAITING, epoch_ms


def summary_of(meta: dict[str, Any]) -> dict[str, Any]:
    names = meta["names"]
    return {"room": meta["room"], "game": meta["game"], "seats": meta["seats"],
            "taken": sum(1 for n in names if n is not None), "status": meta["status"], "names": names,
            "presence": meta.get("presence"), "watchers": meta.get("watchers", 0),
            "joinable": meta["status"] == WAITING and not gone(meta) and None in names,
            # ended because its humans had all gone (--abandon-s): the lobby says so, not "finished"
            "abandoned": bool(isinstance(meta.get("result"), dict) and meta["result"].get("abandoned"))}


def gone(meta: dict[str, Any], now_ms: int | None = None) -> bool:
    """Whether a room's seated players have all been away longer than the grace, from its meta."""
    since = meta.get("away_since")
    now_ms = epoch_ms() if now_ms is None else now_ms
    return isinstance(since, int) and now_ms - since > int(meta.get("grace_ms") or 0)


def listable(meta: dict[str, Any]) -> bool:
    """A room whose people have all gone is not offered: a waiting one to newcomers, a playing one to
    watchers (nothing is played there until someone comes back: People.deserted)."""
    return not (meta["status"] in (WAITING, PLAYING) and gone(meta))


def info_of(meta: dict[str, Any]) -> dict[str, Any]:
    presence = meta.get("presence") or [{} for _ in meta["names"]]
    return {"room": meta["room"], "game": meta["game"], "status": meta["status"], "options": meta["options"],
            "private": meta["private"], "result": meta["result"], "watchers": meta.get("watchers", 0),
            "seats": [{"seat": i, "name": name, "bot": bot or stand_in, "connected": bot or here, **pres}
                      for i, (name, bot, stand_in, here, pres)
                      in enumerate(zip(meta["names"], meta["bots"], meta["stand_in"], meta["connected"],
                                       presence, strict=True))]}


def abandoned_result(view: dict[str, Any], seats: int) -> dict[str, Any]:
    """The contract's result shape (winners, scores) for a game nobody finished: no winner, each
    seat's score as the view shows it (0 where it shows none), and `abandoned`."""
    players = {p.get("seat"): p for p in view.get("players") or [] if isinstance(p, dict)}
    scores = []
    for i in range(seats):
        score = players.get(i, {}).get("score")
        scores.append(score if isinstance(score, int) and not isinstance(score, bool) else 0)
    return {"winners": [], "scores": scores, "abandoned": True}
