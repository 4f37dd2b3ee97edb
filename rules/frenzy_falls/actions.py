"""What each seat may do now (`legal`) and the full validation of what it sends (`check`).

Actions come off the network as arbitrary decoded msgpack, so `check` looks at every field's
type before it looks at the rules, and changes nothing: it returns a closure that `apply` runs
only once the whole action is known to be good.
"""
from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

import rules.frenzy_falls.flow as flow
from rules.engine import Action, IllegalAction
from rules.frenzy_falls.state import State

KINDS = ("play", "proxy", "bump", "pull", "spill", "discard")
SIDES = ("left", "right")


def active(state: State) -> list[int]:
    if state.phase == "play":
        return [state.turns[0]]
    if state.phase == "discard":
        return [s for s in range(state.seats) if s not in state.discards]
    if state.pending is not None:
        return [state.pending.seat]
    return []


def legal(state: State, seat: int) -> list[Action]:
    if seat not in active(state):
        return []
    phase = state.phase
    if phase == "play":
        hand = state.players[seat].hand
        return [{"type": "play", "card": i, "pool": p}
                for i in range(len(hand)) for p in range(len(state.pools))]
    if phase == "discard":
        size = len(state.players[seat].hand)
        # chosen here: "discarding any leftover cards" is read as any subset of the hand, none
        # and all included (docs/frenzy_falls.md, Readings).
        return [{"type": "discard", "cards": list(c)}
                for k in range(size + 1) for c in combinations(range(size), k)]
    pending = state.pending
    assert pending is not None
    if phase == "proxy":
        return [{"type": "proxy", "card": i} for i in range(len(state.players[seat].hand))]
    if phase == "bump":
        return [{"type": "bump", "side": s} for s in flow.bump_sides(state, pending.pool, pending.pos)]
    if phase == "pull":
        return [{"type": "pull", "pool": p, "pos": i} for p, i in flow.pull_options(state, pending.pool)]
    if phase == "spill":
        return [{"type": "spill", "pos": i} for i in flow.spill_options(state, seat)]
    return []


def _int(action: dict[Any, Any], key: str) -> int:
    value = action.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalAction("bad_message", f"{key!r} must be an integer")
    return value


def _within(value: int, size: int, what: str) -> int:
    if not 0 <= value < size:
        raise IllegalAction("illegal", f"there is no {what} {value}")
    return value


def check(state: State, seat: Any, action: Any) -> Callable[[], None]:
    """Validate fully; return the change to make. Raises IllegalAction and changes nothing."""
    if state.phase == "over":
        raise IllegalAction("game_over", "the game is over")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.seats:
        raise IllegalAction("unauthorized", "only a seated player can act")
    if not isinstance(action, dict):
        raise IllegalAction("bad_message", "an action is a map")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in KINDS:
        raise IllegalAction("bad_message", f"'type' must be one of {list(KINDS)}")
    if seat not in active(state):
        raise IllegalAction("not_your_turn", "the game is not waiting for you")
    if kind != state.phase:
        raise IllegalAction("illegal", f"the game waits for a {state.phase!r} action, not {kind!r}")
    hand = state.players[seat].hand
    pending = state.pending
    if kind == "play":
        card = _int(action, "card")
        pool = _int(action, "pool")
        _within(card, len(hand), "card in your hand at index")
        _within(pool, len(state.pools), "Pool")
        return lambda: flow.play(state, seat, card, pool)
    if kind == "discard":
        cards = action.get("cards")
        if not isinstance(cards, list) or not all(
                isinstance(c, int) and not isinstance(c, bool) for c in cards):
            raise IllegalAction("bad_message", "'cards' must be a list of hand indices")
        for c in cards:
            _within(c, len(hand), "card in your hand at index")
        if len(set(cards)) != len(cards):
            raise IllegalAction("illegal", "a card is listed twice")
        chosen = list(cards)
        return lambda: flow.choose_discards(state, seat, chosen)
    assert pending is not None
    if kind == "proxy":
        card = _within(_int(action, "card"), len(hand), "card in your hand at index")
        return lambda: _resume(state, lambda: flow.do_proxy(state, pending.pool, pending.pos, card))
    if kind == "bump":
        side = action.get("side")
        if not isinstance(side, str) or side not in SIDES:
            raise IllegalAction("bad_message", "'side' must be 'left' or 'right'")
        if side not in flow.bump_sides(state, pending.pool, pending.pos):
            raise IllegalAction("illegal", f"there is no card to the {side} of the BUMP")
        return lambda: _resume(state, lambda: flow.do_bump(state, pending.pool, pending.pos, side))
    if kind == "pull":
        where = (_int(action, "pool"), _int(action, "pos"))
        if where not in flow.pull_options(state, pending.pool):
            raise IllegalAction("illegal", "the PULL can take any card of another Pool, and only that")
        return lambda: _resume(state, lambda: flow.do_pull(state, pending.pool, *where))
    # spill
    pos = _int(action, "pos")
    if pos not in flow.spill_options(state, seat):
        raise IllegalAction("illegal", "move one of your own cards of the Pool that spilled over")
    return lambda: _resume(state, lambda: flow.do_spill_move(state, pos))


def _resume(state: State, change: Callable[[], None]) -> None:
    """Clear the pending choice, make it, and let the reveal run on."""
    state.pending = None
    change()
    flow.advance(state)
