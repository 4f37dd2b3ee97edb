"""The Frenetic Village bot, from a view only: it aims at the best partial combination, keeps the
cards that fit it, strikes the leader with action cards and grabs only what brings it nearer."""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import rules.frenetic_village.components as fc
from rules.engine import Action, View
from rules.frenetic_village.components import PLAY_ORDER

Parsed = tuple[str, int, int]


def _parse(face: Any) -> Parsed | None:
    """A card as the bot reasons about it: from a view's kind id ("humans-3"), or from a face (a
    contest's card, as the hub offers it)."""
    if isinstance(face, str):  # kind_id: "<race>-<value>" for an army card, else the kind
        named, _, number = face.partition("-")
        face = {"kind": "army", "race": named, "value": int(number) if number.isdigit() else None} if number \
            else {"kind": face}
    if not isinstance(face, dict):
        return None
    kind = face.get("kind")
    if kind == "army":
        race, value = face.get("race"), face.get("value")
        if race in fc.RACES and isinstance(value, int) and not isinstance(value, bool):
            return ("army", fc.RACES.index(race), value)
        return None
    if kind == "wild" or kind in fc.ACTIONS:
        return (str(kind), -1, 0)
    return None


def _progress(cards: Sequence[Parsed]) -> tuple[int, int]:
    army = [(r, v) for k, r, v in cards if k == "army"]
    wilds = sum(1 for k, _, _ in cards if k == "wild")
    return fc.progress(army, wilds)


def _hand(view: Mapping[str, Any]) -> list[Parsed]:
    raw = view.get("hand")
    if not isinstance(raw, list):
        return []
    parsed = [_parse(f) for f in raw]
    return [p for p in parsed if p is not None] if None not in parsed else []


def _without(cards: Sequence[Parsed], *slots: int) -> list[Parsed]:
    return [c for i, c in enumerate(cards) if i not in slots]


def least_useful(faces: Sequence[Any], discards: Sequence[Action]) -> Action:
    """The discard that leaves the hand closest to a combination (action cards go first)."""
    hand = [p if p is not None else ("skulls", -1, 0) for p in (_parse(f) for f in faces)]

    def rank(a: Action) -> tuple[int, int, int]:
        best, flex = _progress(_without(hand, a["slot"]))
        return best, flex, hand[a["slot"]][0] != "army" and hand[a["slot"]][0] != "wild"

    return max(discards, key=rank)


def bot_action(view: View, rng: random.Random) -> Action | None:
    """Aim at the best partial combination: keep the cards that fit it, strike with action cards."""
    legal = view.get("legal") or []
    if not legal:
        return None
    for a in legal:
        if a.get("type") in ("declare", "draw"):
            return dict(a)
    hand = _hand(view)
    if not hand:
        return dict(rng.choice(legal))
    plays = [a for a in legal if a.get("type") == "play"]
    if plays:
        wins = {p.get("seat"): p.get("wins", 0) for p in view.get("players", [])}
        for k in PLAY_ORDER:
            mine = [a for a in plays if hand[a["slot"]][0] == k]
            if not mine:
                continue
            if k == "palla_paca_hand" and _progress(_without(hand, mine[0]["slot"]))[0] > 2:
                continue  # a good hand is not worth swapping blind
            top = max(wins.get(a["target"], 0) for a in mine)
            targets = sorted({a["target"] for a in mine if wins.get(a["target"], 0) == top})
            target = rng.choice(targets)
            mine = [a for a in mine if a["target"] == target]
            if k == "palla_paca_card":
                return dict(max(mine, key=lambda a: _progress(_without(hand, a["slot"], a["give"]))))
            return dict(mine[0])
    discards = [a for a in legal if a.get("type") == "discard"]
    if not discards:
        return dict(rng.choice(legal))
    return dict(least_useful(view.get("hand", []), discards))


def wants(view: View, card: Any) -> bool:
    """Would a bot grab `card` from a pile? Only if it brings the hand nearer a combination.

    The grabber must put another card away, so the question is whether some hand of the same size,
    with this card in and one other card out, fits a better template than the hand has now.
    """
    hand = _hand(view)
    new = _parse(card)
    if not hand or new is None or new[0] not in ("army", "wild"):
        return False
    now = _progress(hand)[0]
    grown = [*hand, new]
    return any(_progress(_without(grown, d))[0] > now for d in range(len(hand)))


def parse_card(card: int) -> Parsed:
    """A physical card (an engine's, or a search's sampled world's) as the bot reasons about it."""
    return fc.CARDS[card]


def parse_kind(kind_id: str) -> Parsed:
    """A card a view shows (its kind's id) as the bot reasons about it; an unknown one as an action
    card, which fits no combination."""
    return _parse(kind_id) or ("skulls", -1, 0)


def progress_without(cards: Sequence[Parsed], *slots: int) -> tuple[int, int]:
    """How close the cards but those in `slots` are to a combination."""
    return _progress(_without(cards, *slots))
