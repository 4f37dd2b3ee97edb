"""What one viewer sees: every public fact, their own hidden cards, and nothing else.

A card is named by the id of its kind in the catalogue (`GET /api/games/frenzy_falls/catalogue`),
the same for every card of that face, never by an id of its own: Pool cards are known by their
place (Pool index, position), hand cards by their index in the owner's hand, so nobody can follow
a card through a hand, a deck or a shuffle. A face-down card shows its owner (the card back is
public) and, to its owner alone, its kind. A kind's id in place of the three numbers of its face
is what keeps a played or revealed card to a few bytes on the wire.
"""
from __future__ import annotations

from typing import Any

import rules.frenzy_falls.actions as actions
from rules.engine import View, json_copy
from rules.frenzy_falls.components import FACES, SCORE_FACES, ScoreCard, face_id, score_id
from rules.frenzy_falls.state import Pool, PoolCard, State


def face(kind: int) -> dict[str, Any]:
    card = FACES[kind]
    return {"water": card.water, "influence": card.influence, "action": card.action}


def pool_card(pc: PoolCard, viewer: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": pc.seat, "up": pc.up}
    if pc.up or pc.seat == viewer:
        out["card"] = face_id(pc.card)
    return out


def _score(card: ScoreCard | None) -> int | None:
    return None if card is None else score_id(card)


def with_faces(view: View) -> View:
    """The view with every kind id replaced by the face it names, as the bots read it."""
    v = dict(view)

    def card(c: dict[str, Any]) -> dict[str, Any]:
        out = {k: x for k, x in c.items() if k != "card"}
        return {**out, **face(c["card"])} if "card" in c else out

    v["pools"] = [{**pool, "score": None if pool["score"] is None else
                   {"water": SCORE_FACES[pool["score"]].water, "points": SCORE_FACES[pool["score"]].points},
                   "cards": [card(c) for c in pool["cards"]]} for pool in view.get("pools") or []]
    for key in ("hand", "discard_pile"):
        if view.get(key) is not None:
            v[key] = [face(k) for k in view[key]]
    return v


def seat_view(public: View, state: State, seat: int | None) -> View:
    """What all see alike is the public view: the players, the Pools but those holding a face-down
    card of the viewer's, the log. A seat adds its hand, its discard pile, its choices and the faces
    of its own face-down cards."""
    v = dict(public)
    me = seat if seat is not None and 0 <= seat < state.seats else None
    if me is not None:
        mine = state.players[me]
        v["legal"] = actions.legal(state, me)
        v["seat"] = me
        v["pools"] = [_pool(pool, me) if any(not pc.up and pc.seat == me for pc in pool.cards) else shared
                      for pool, shared in zip(state.pools, public["pools"], strict=True)]
        v["hand"] = [face_id(c) for c in mine.hand]
        v["discard_pile"] = [face_id(c) for c in mine.discard]
        v["discarding"] = list(state.discards[me]) if me in state.discards else None
    return v


def _pool(pool: Pool, viewer: int | None) -> dict[str, Any]:
    shown = (pool.score.water if pool.score else 0) + sum(pc.card.water for pc in pool.cards if pc.up)
    return {
        "score": _score(pool.score),
        "water": shown,
        "cards": [pool_card(pc, viewer) for pc in pool.cards],
    }


def public_view(state: State, game_id: str) -> View:
    players = []
    for s, p in enumerate(state.players):
        players.append({
            "seat": s,
            "falls": p.falls,
            "hand": len(p.hand),
            "deck": len(p.deck),
            "discard": len(p.discard),
            "score_cards": len(p.won),
            # Won Score cards lie face down, but every one was won in plain sight.
            "points": p.points(),
            "first": s == state.first,
            "to_play": state.turns.count(s),
        })
    pending = state.pending
    return {
        "game": game_id,
        "phase": state.phase,
        "round": state.round,
        "players": players,
        "active": actions.active(state),
        "legal": [],
        "deadline": None,
        "result": json_copy(state.result),
        "seat": None,
        "pools": [_pool(pool, None) for pool in state.pools],
        "score_deck": len(state.score_deck),
        "end_triggered": state.end_triggered,
        "reveal": None if state.passes == 0 or state.phase in ("play", "discard", "over")
        else {"pool": state.cursor, "pass": state.passes},
        "pending": None if pending is None else {
            "kind": pending.kind, "seat": pending.seat, "pool": pending.pool,
            "pos": pending.pos if pending.kind != "spill" else None,
        },
        "spill": None if state.spill is None else {"pool": state.spill.pool, "winner": state.spill.winner},
        "hand": None,
        "discard_pile": None,
        "discarding": None,
        "log": json_copy(state.log),
        "log_from": state.log_total - len(state.log),
    }
