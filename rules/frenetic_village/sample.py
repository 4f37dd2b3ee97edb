"""Worlds a Frenetic Village seat cannot tell from the true one, for the strong level
(rules/search.py).

What a seat sees: its own hand, every pile's top card (but a face-down declaring card), how many
cards each hand, pile and the draw pile hold, the contest under way, and the log. A sample gives
each card seen a physical card of its kind; deals each other player the cards the log shows they
took and still hold (`known_hands`); deals the rest of the 62 at random among the other hands, the
piles under their tops and the draw pile; and then settles each other hand as its player has had
turns to make it (`_settle`). What the turn's flags are (a grabbed card that may not be put away at
once, a discard owed after "One card") follows from the phase and the last log entry.
"""
from __future__ import annotations

import random
from typing import Any

import rules.frenetic_village.bot as bot
import rules.frenetic_village.components as fc
import rules.frenetic_village.view as views
from rules.engine import Action, View, json_copy
from rules.frenetic_village.state import OpenContest, State
from rules.search import normal_first

#: The search compares its lines in the same worlds (rules/search.py `_paired`), played out to the
#: battle's end: a battle is about 45 steps, 1.3 ms of playout. A horizon 12 steps on, scored by
#: each hand's progress, measured weaker (0.67 against 1.20 times the fair share, 60 games each).
paired = True
#: Moves weighed a decision: the normal bot's, then the other different moves in its order. With
#: five, each line gets about 30 worlds in 300 ms; with eight it measured weaker (1.17 against 1.27
#: times the fair share, 120 games each).
WIDTH = 5
#: A grab is taken against the normal bot's rule only when the search finds the other answer better
#: by this many standard errors (`search.wants`). A grab's worth turns on the others' hands, which
#: a sample can only guess: measured against a sample's own truth, the search's grabs where they
#: differed from the rule's were worse by 0.06 of a win (27 contests).
grab_confidence = 3.0
#: Turns of play a sampled hand is made to have had (`_settle`), at most.
SETTLE_TURNS = 8


def _by_kind() -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for card in range(fc.DECK_SIZE):
        out.setdefault(fc.kind_id(card), []).append(card)
    return out


#: The physical cards of each kind, in the deck table's order.
BY_KIND = _by_kind()


def seat_of(view: View) -> int:
    return int(view["seat"])


#: What a player's own play unsettles of what the others know of their hand: cards taken at random
#: from it, or given it unseen.
UNSETTLING = frozenset({"two_cards", "three_cards", "one_card", "palla_paca_card"})


def _this_battle(view: View) -> list[Any]:
    """The log's entries since the battle under way began, as far back as the log goes."""
    log = view.get("log") or []
    start = max((i for i, e in enumerate(log) if isinstance(e, list) and e and e[0] == "battle"), default=0)
    return list(log[start:])


def known_hands(view: View) -> list[list[str]]:
    """The cards each player is known to hold, by kind, from the log since the battle began: a card
    grabbed is in the grabber's hand until they put one of its kind away. A Skulls empties what is
    known of its victim's hand, a hand swapped swaps it, and a card taken or given unseen unsettles
    both hands (nothing more is known of them). The seat's own hand is its view's."""
    seats = len(view["players"])
    known: list[list[str]] = [[] for _ in range(seats)]
    for entry in _this_battle(view):
        what = entry[0]
        if what == "grabs":
            known[entry[1]].append(entry[2])
        elif what == "discards" and entry[2] in known[entry[1]]:
            known[entry[1]].remove(entry[2])
        elif what == "plays":
            seat, card, target = entry[1], entry[2], entry[3]
            if card in known[seat]:
                known[seat].remove(card)
            if card == "skulls":
                known[target] = []
            elif card == "palla_paca_hand":
                known[seat], known[target] = known[target], known[seat]
            elif card in UNSETTLING:
                known[target] = []
                known[seat] = []
    known[seat_of(view)] = list(view["hand"])
    return known


def turns_taken(view: View) -> list[int]:
    """How many times each player drew a card on their turn since the battle began (as far back as
    the log goes)."""
    turns = [0] * len(view["players"])
    for entry in _this_battle(view):
        if entry[0] == "draws" and entry[2] == 1:
            turns[entry[1]] += 1
    return turns


def _settle(hand: list[int], fixed: int, unseen: list[int], turns: int, rng: random.Random) -> None:
    """A hand dealt at random, made as the player has been making it: for each turn they took, a
    card in from the unseen ones and the least useful one out (as the normal bot keeps its hand),
    the cards known to be theirs (the first `fixed`) kept. A player's hand is not a random one:
    they keep what fits a combination, and a sample that forgot it would see no one near a win."""
    for _ in range(turns):
        if not unseen or len(hand) <= fixed:
            return
        j = rng.randrange(len(unseen))
        hand.append(unseen[j])
        parsed = [bot.parse_card(c) for c in hand]
        out = max(range(fixed, len(hand)), key=lambda i: bot.progress_without(parsed, i))
        unseen[j] = hand.pop(out)


def sample(view: View, rng: random.Random) -> State:
    me = seat_of(view)
    players = view["players"]
    seats = len(players)
    left = {k: list(cards) for k, cards in BY_KIND.items()}
    for cards in left.values():
        rng.shuffle(cards)
    hand = [left[k].pop() for k in view["hand"]]
    tops = [None if p["top"] is None else left[p["top"]].pop() for p in players]
    held: list[list[int]] = [[] for _ in players]
    for s, kinds in enumerate(known_hands(view)):
        if s != me:
            for k in kinds[:players[s]["hand"]]:
                if left[k]:
                    held[s].append(left[k].pop())
    unseen = sorted(c for cards in left.values() for c in cards)
    rng.shuffle(unseen)
    hands = [hand if s == me else held[s] + [unseen.pop() for _ in range(p["hand"] - len(held[s]))]
             for s, p in enumerate(players)]
    turns = turns_taken(view)
    for s in range(seats):
        if s != me:
            _settle(hands[s], len(held[s]), unseen, min(turns[s], SETTLE_TURNS), rng)
    for s in range(seats):
        if s != me:
            rng.shuffle(hands[s])
    piles = []
    for p, top in zip(players, tops, strict=True):
        under = [unseen.pop() for _ in range(p["pile"] - (top is not None))]
        piles.append(under + ([top] if top is not None else []))
    assert len(unseen) == view["draw_pile"], "every card is somewhere the view counts"
    phase = view["phase"]
    log = json_copy(view["log"])
    turn = int(view["turn"])
    grabbed = phase == "discard" and bool(log) and isinstance(log[-1], list) and log[-1][0] == "grabs"
    if turn == me:
        exclude = view["grabbed_slot"]
    elif grabbed:  # the card just grabbed (known, so dealt to the grabber) cannot be put away at once
        held_now = hands[turn]
        i = next(i for i, c in enumerate(held_now) if fc.kind_id(c) == log[-1][2])
        held_now.append(held_now.pop(i))
        exclude = len(held_now) - 1
    else:
        exclude = None
    c = view["contest"]
    contest = None if c is None else OpenContest(c["key"], c["pile"], c["placer"], tuple(c["eligible"]))
    seq = int(str(c["key"]).rsplit("-", 1)[-1]) if c is not None and str(c["key"]).rsplit("-", 1)[-1].isdigit() else 0
    return State(
        seats=seats, variant=view["variant"], battles=view["battles"] or 1, rng=random.Random(rng.getrandbits(64)),
        hands=hands, draw=unseen, piles=piles, phase=phase, turn=turn, exclude_slot=exclude,
        actions_allowed=phase != "discard", queue=[(p, p) for p in view["grabbable"]], contest=contest,
        contest_seq=seq, battle=int(view["battle"]), wins=[p["wins"] for p in players],
        scores=[p["score"] for p in players], last_battle=json_copy(view["last_battle"]),
        face_down=next((s for s, p in enumerate(players) if p["face_down"]), None),
        log=log, log_from=int(view["log_from"]), result=json_copy(view["result"]),
    )


def candidates(view: View, rng: random.Random, width: int) -> list[Action]:
    """The normal bot's choice first, then one of each different move: each action card on each
    other player (a "Pallá pacá" card giving what the normal bot would give), then the discards,
    the most useless first; `WIDTH` at most. Two cards of one kind are one move."""
    legal = view["legal"]
    pick = bot.bot_action(view, rng)
    hand = view["hand"]
    if pick is None or len(legal) < 2:
        return normal_first(legal, pick, rng, min(width, WIDTH))
    if pick["type"] == "declare":
        return [pick]  # the battle is won
    parsed = [bot.parse_kind(k) for k in hand]
    plays = [a for a in legal if a["type"] == "play"]
    gifts: dict[tuple[int, int], Action] = {}
    for a in plays:
        key = (a["slot"], a["target"])
        if "give" in a and (key not in gifts or bot.progress_without(parsed, a["slot"], a["give"]) >
                            bot.progress_without(parsed, *(gifts[key][k] for k in ("slot", "give")))):
            gifts[key] = a
    discards = sorted((a for a in legal if a["type"] == "discard"),
                      key=lambda a: bot.progress_without(parsed, a["slot"]), reverse=True)
    out = [pick]
    seen = {_sense(hand, pick)}
    for a in [*(a for a in plays if "give" not in a), *gifts.values(), *discards]:
        sense = _sense(hand, a)
        if sense not in seen:
            seen.add(sense)
            out.append(dict(a))
    return out[:min(width, WIDTH)]


def _sense(hand: list[str], action: Action) -> tuple[Any, ...]:
    """What a move does, whichever copy of a card it moves."""
    give = hand[action["give"]] if "give" in action else None
    return (action["type"], hand[action["slot"]] if "slot" in action else None, action.get("target"), give)


def cards_of(state: State) -> list[int]:
    """Every physical card wherever it lies (for the tests): each of the 62 once."""
    return sorted([c for h in state.hands for c in h] + list(state.draw) + [c for p in state.piles for c in p])


def playout_view(state: State, seat: int) -> View:
    """A seat's view for a playout's bots: all but the log, which they never read."""
    return views.seat_view(views.public_view(state, log=False), state, seat)
