"""What a Frenetic Village seat may do and doing it: draw, put a card away (on one's own pile, or an
action card on another's), declare a combination; and the hub's settling of each grab contest."""
from __future__ import annotations

from typing import Any

import rules.frenetic_village.bot as bot
import rules.frenetic_village.components as fc
import rules.frenetic_village.flow as flow
from rules.engine import HUB, Action, Contest, Event, IllegalAction
from rules.frenetic_village.components import SENT_BACK
from rules.frenetic_village.state import State


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def active(state: State) -> list[int]:
    if state.result is not None or state.phase in ("grab", "over"):
        return []
    if state.phase == "refill":
        return flow.short(state)
    return [state.turn]


def legal(state: State, seat: int) -> list[Action]:
    if state.result is not None or seat not in active(state):
        return []
    if state.phase in ("draw", "refill"):
        return [{"type": "draw"}]
    hand = state.hands[seat]
    out: list[Action] = []
    if state.phase == "play" and fc.combination(hand[:fc.HAND]):
        # "If you have gathered any of these combinations in your hand, on your turn draw a card
        # and place it face down": the five held before the turn's draw win, and the card put
        # face down is the one just drawn (the last slot). No declaring after a grab or "One card".
        out.append({"type": "declare", "slot": fc.HAND})
    free = [i for i in range(len(hand)) if i != state.exclude_slot]
    out += [{"type": "discard", "slot": i} for i in free]
    if not state.actions_allowed:
        return out
    others = [t for t in range(state.seats) if t != seat]
    for i in free:
        k = fc.kind(hand[i])
        if k not in fc.ACTIONS:
            continue
        for t in others:
            if k == "palla_paca_card":
                if state.hands[t]:
                    out += [{"type": "play", "slot": i, "target": t, "give": g}
                            for g in range(len(hand)) if g != i]
            elif k != "one_card" or state.hands[t]:
                out.append({"type": "play", "slot": i, "target": t})
    return out


def contest(state: State) -> Contest | None:
    c = state.contest
    if c is None:
        return None
    top = state.piles[c.pile][-1]
    return Contest(c.key, "grab", c.eligible, {"pile": c.pile, "placer": c.placer, "card": fc.face(top)})


def timeout_action(state: State, seat: int) -> Action:
    """A seat out of time draws, declares when it can, else puts away its least useful card."""
    choices = legal(state, seat)
    if not choices:
        raise IllegalAction("not_your_turn", "this seat has nothing to do")
    if choices[0]["type"] in ("draw", "declare"):
        return choices[0]
    faces = [fc.face(c) for c in state.hands[seat]]
    return bot.least_useful(faces, [a for a in choices if a["type"] == "discard"])


def apply(state: State, seat: int | None, action: Any) -> list[Event]:
    if seat is HUB:
        return _contest_result(state, action)
    if not _is_int(seat) or not 0 <= seat < state.seats:
        raise IllegalAction("unauthorized", "no such seat")
    if state.result is not None:
        raise IllegalAction("game_over", "the game is over")
    if isinstance(action, dict) and action.get("type") == "contest_result":
        raise IllegalAction("unauthorized", "only the hub settles contests")
    _check_shape(action)
    if state.phase == "grab":
        raise IllegalAction("not_your_turn", "a grab contest is open; the hub settles it")
    if seat not in active(state):
        raise IllegalAction("not_your_turn", f"the game waits for {active(state)}")
    if action not in legal(state, seat):
        raise IllegalAction("illegal", "that move is not allowed now")
    kind = action["type"]
    if kind == "draw":
        return _do_draw(state, seat)
    if kind == "declare":
        return _declare(state, seat, action["slot"])
    if kind == "discard":
        return _discard(state, seat, action["slot"])
    return _play(state, seat, action)


def _do_draw(state: State, seat: int) -> list[Event]:
    if state.phase == "draw":
        flow.draw_one(state, seat)
        state.phase = "play"
        state.say("draws", seat, 1)
        return [{"type": "draw", "seat": seat, "cards": 1}]
    n = fc.HAND - len(state.hands[seat])
    for _ in range(n):
        flow.draw_one(state, seat)
    state.say("draws", seat, n)
    if not flow.short(state):
        flow.begin_turn(state, (state.turn + 1) % state.seats)
    return [{"type": "draw", "seat": seat, "cards": n}]


def _discard(state: State, seat: int, slot: int) -> list[Event]:
    card = state.hands[seat].pop(slot)
    state.piles[seat].append(card)
    state.queue.append((seat, seat))
    state.say("discards", seat, fc.kind_id(card))
    flow.after_placement(state)
    return [{"type": "discard", "seat": seat, "card": fc.face(card)}]


def _play(state: State, seat: int, action: Action) -> list[Event]:
    hand = state.hands[seat]
    slot, target = action["slot"], action["target"]
    card = hand.pop(slot)
    state.exclude_slot = None
    k = fc.kind(card)
    victim = state.hands[target]
    state.say("plays", seat, fc.kind_id(card), target)
    if k == "skulls":
        # "They must then draw 5 new cards": with fewer than five above the bottom, where the
        # victim's own cards go, the discard piles refill the pile first (as when it runs out).
        flow.at_least(state, fc.HAND)
        state.draw[0:0] = victim  # face down at the bottom of the draw pile
        state.hands[target] = []
        for _ in range(fc.HAND):
            flow.draw_one(state, target)
    elif k == "palla_paca_card":
        give = action["give"] - (1 if action["give"] > slot else 0)
        given = hand.pop(give)
        hand.append(victim.pop(state.rng.randrange(len(victim))))
        victim.append(given)
    elif k == "palla_paca_hand":
        state.hands[seat], state.hands[target] = victim, hand
    elif k in SENT_BACK:
        # "... must quickly draw two other cards": the cards sent back go in at random places
        # below the n the victim will draw at once (the refill), so none comes straight back.
        n = min(SENT_BACK[k], len(victim))
        flow.at_least(state, n)
        for _ in range(n):
            back = victim.pop(state.rng.randrange(len(victim)))
            state.draw.insert(state.rng.randint(0, len(state.draw) - n), back)  # unseen
    else:  # one_card: the attacker keeps one card at random; the victim draws back to five
        hand.append(victim.pop(state.rng.randrange(len(victim))))
        flow.draw_one(state, target)
    # "Nor may a player take the card from another player's discard pile when it is not that
    # player's turn": an action card lands on someone else's pile, so nobody may grab it.
    state.piles[target].append(card)
    event: Event = {"type": "play", "seat": seat, "target": target, "card": fc.face(card)}
    if k == "one_card":  # "... and you discard one card" before anyone may grab
        state.phase = "discard"
        state.exclude_slot = None
        state.actions_allowed = False
        return [event]
    flow.after_placement(state)
    return [event]


def _contest_result(state: State, action: Any) -> list[Event]:
    if state.result is not None:
        raise IllegalAction("game_over", "the game is over")
    if not isinstance(action, dict) or action.get("type") != "contest_result":
        raise IllegalAction("unauthorized", "the hub only sends contest results")
    key, winner = action.get("key"), action.get("winner")
    if not isinstance(key, str) or not (winner is None or _is_int(winner)) or set(action) != {
            "type", "key", "winner"}:
        raise IllegalAction("bad_message", "contest_result needs a string key and a seat or null")
    c = state.contest
    if c is None or key != c.key:
        raise IllegalAction("illegal", "no such contest is open")
    if winner is not None and winner not in c.eligible:
        raise IllegalAction("illegal", "that seat could not grab this card")
    state.queue.pop(0)
    state.contest = None
    top = state.piles[c.pile][-1]
    if winner is None:
        state.say("no_grab", fc.kind_id(top))
        flow.after_placement(state)
        return [{"type": "grab", "contest": key, "winner": None}]
    state.piles[c.pile].pop()
    state.hands[winner].append(top)
    state.queue.clear()  # play continues from the grabber; older cards are left lying
    state.turn = winner
    state.phase = "discard"
    state.exclude_slot = len(state.hands[winner]) - 1
    state.actions_allowed = False  # "must discard another card": a discard, not an action play
    state.say("grabs", winner, fc.kind_id(top), c.pile)
    return [{"type": "grab", "contest": key, "winner": winner, "card": fc.face(top)}]


def _declare(state: State, seat: int, slot: int) -> list[Event]:
    down = state.hands[seat].pop(slot)
    state.piles[seat].append(down)
    state.face_down = seat
    state.queue.clear()
    state.contest = None
    hand = state.hands[seat]
    combo = fc.combination(hand) or ""
    added = [0] * state.seats
    if state.variant == "lowest_total":
        added = [0 if s == seat else sum(fc.points(c) for c in state.hands[s])
                 for s in range(state.seats)]
    elif state.variant == "battle_points":
        added[seat] = sum(fc.points(c) for c in hand)
    else:
        added[seat] = 1
    state.wins[seat] += 1
    state.scores = [a + b for a, b in zip(state.scores, added, strict=True)]
    state.last_battle = {
        "battle": state.battle, "winner": seat, "combination": combo,
        "combination_name": fc.COMBINATION_NAMES.get(combo, combo),
        "hand": [fc.kind_id(c) for c in hand],
        "hands": [[fc.kind_id(c) for c in h] if s != seat else [] for s, h in enumerate(state.hands)],
        "added": added,
    }
    state.say("declares", seat, combo, [fc.kind_id(c) for c in hand], state.battle)
    events: list[Event] = [{"type": "declare", "seat": seat, "combination": combo,
                            "hand": state.last_battle["hand"]}]
    if flow.over(state, seat):
        state.phase = "over"
        best = min(state.scores) if state.variant == "lowest_total" else max(state.scores)
        winners = [s for s in range(state.seats) if state.scores[s] == best]
        state.result = {"winners": winners, "scores": list(state.scores)}
        state.say("over", list(winners))
        return events
    state.battle += 1
    flow.start_battle(state, seat)  # the winner of a battle starts the next
    return events


SHAPES: dict[str, tuple[str, ...]] = {
    "draw": (),
    "discard": ("slot",),
    "declare": ("slot",),
    "play": ("slot", "target"),
}


def _check_shape(action: Any) -> None:
    """Refuse what no legal action could ever look like, before comparing with `legal`."""
    if not isinstance(action, dict):
        raise IllegalAction("bad_message", "an action is a map")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in SHAPES:
        raise IllegalAction("bad_message", "unknown action type")
    for key in SHAPES[kind]:
        if not _is_int(action.get(key)):
            raise IllegalAction("bad_message", f"{kind} needs an integer {key!r}")
    if "give" in action and not _is_int(action["give"]):
        raise IllegalAction("bad_message", "'give' must be an integer slot")

