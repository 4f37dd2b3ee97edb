"""Symbiose: eight turns of swapping cards between your Pond and the River, scored by column.

Each player's Pond is 2 rows x 4 columns, slot = row * 4 + col. Column 0 scores the board on the
player's left, column 3 the board on the right, columns 1 and 2 the player's own board; fixed cards
score wherever they lie. The rulebook lists no cards, so the deck below is chosen here and explained
in docs/symbiose.md, with every other point where the rulebook is silent.

The state keeps every card's place, face-down ones included; `view` shows a face-down slot as
`{"up": false}` and nothing else, to everyone, its owner included (nobody has looked at it).
"""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from rules.engine import Action, Event, IllegalAction, Option, PublicViews, Result, View
from rules.registry import register

COLOURS = ("blue", "green", "orange", "purple")
ANIMALS = ("frog", "snail", "dragonfly", "fish")
ROUNDS = 8
POND = 8  # 2 rows x 4 columns
COLUMNS = 4
LOG_KEEP = 40
MODES = ("standard", "duel", "team")
RIVER = "river"

Target: TypeAlias = int | str  # a seat, or RIVER in duel mode


class SymbioseResult(Result, total=False):
    teams: list[int]  # team mode: the totals of seats 0+2 and of seats 1+3


@dataclass(frozen=True)
class Card:
    colour: str
    animal: str
    kind: str  # "fixed" | "per_animal" | "per_colour"
    points: int
    counts: str = ""  # the animal or colour a conditional card counts

    @property
    def label(self) -> str:
        if self.kind == "fixed":
            return f"{self.points} points"
        return f"{self.points} per {self.counts}"

    def matches(self, other: Card) -> bool:
        """Whether `other` is one of the cards this conditional card counts."""
        if self.kind == "per_animal":
            return other.animal == self.counts
        return self.kind == "per_colour" and other.colour == self.counts


def _card(colour: str, animal: str, value: str) -> Card:
    """Parse the deck table's value column: "8", "2 per dragonfly" or "4 per orange"."""
    if " per " not in value:
        return Card(colour, animal, "fixed", int(value))
    points, counts = value.split(" per ")
    kind = "per_animal" if counts in ANIMALS else "per_colour"
    return Card(colour, animal, kind, int(points), counts)


# chosen here: the 36 cards (the rulebook lists none). 9 per colour and 9 per animal; every colour
# and every animal has 3 fixed, 3 per-animal and 3 per-colour cards. Each animal is counted by three
# cards worth 1, 2 and 3 a match, each colour too except orange, counted at 1, 1 and 4 so that the
# rulebook's "4 per orange" exists while every counted animal or colour is worth 6 in all. Fixed
# values run 3..8 twice, a low, a middle and a high one per colour. No card counts its own colour or
# animal. The rulebook's examples are here: "8 points", "2 per dragonfly", "4 per orange".
# docs/symbiose.md gives the reasons and the figures measured with it (bench/symbiose.py).
DECK_TABLE: tuple[tuple[str, str, str], ...] = (
    ("blue", "frog", "3"),
    ("blue", "frog", "2 per dragonfly"),
    ("blue", "frog", "3 per green"),
    ("blue", "snail", "5"),
    ("blue", "snail", "3 per fish"),
    ("blue", "dragonfly", "1 per snail"),
    ("blue", "dragonfly", "2 per purple"),
    ("blue", "fish", "1 per orange"),
    ("blue", "fish", "8"),
    ("green", "snail", "3"),
    ("green", "snail", "2 per fish"),
    ("green", "snail", "1 per orange"),
    ("green", "dragonfly", "6"),
    ("green", "dragonfly", "3 per frog"),
    ("green", "fish", "1 per dragonfly"),
    ("green", "fish", "2 per blue"),
    ("green", "frog", "3 per purple"),
    ("green", "frog", "7"),
    ("orange", "dragonfly", "4"),
    ("orange", "dragonfly", "2 per frog"),
    ("orange", "dragonfly", "1 per purple"),
    ("orange", "fish", "5"),
    ("orange", "fish", "3 per snail"),
    ("orange", "frog", "1 per fish"),
    ("orange", "frog", "2 per green"),
    ("orange", "snail", "3 per blue"),
    ("orange", "snail", "8"),
    ("purple", "fish", "4"),
    ("purple", "fish", "2 per snail"),
    ("purple", "fish", "1 per blue"),
    ("purple", "frog", "6"),
    ("purple", "frog", "3 per dragonfly"),
    ("purple", "snail", "1 per frog"),
    ("purple", "snail", "4 per orange"),
    ("purple", "dragonfly", "1 per green"),
    ("purple", "dragonfly", "7"),
)
DECK: tuple[Card, ...] = tuple(_card(*row) for row in DECK_TABLE)


def neighbours(seats: int, mode: str) -> list[tuple[Target, Target]]:
    """(left, right) board of each seat: what its column 0 and its column 3 score.

    Play runs in seat order, clockwise, so the next seat sits on your left. In duel the River
    sits as a third place in that circle (after seat 1), so it is seat 0's right and seat 1's
    left; in team mode both side columns face the partner across the table.
    """
    if mode == "team":
        return [((i + 2) % 4, (i + 2) % 4) for i in range(seats)]
    if mode == "duel":
        return [(1, RIVER), (RIVER, 0)]
    return [((i + 1) % seats, (i - 1) % seats) for i in range(seats)]


def team_of(seat: int, mode: str) -> int | None:
    return seat % 2 if mode == "team" else None


@dataclass
class State:
    seats: int
    mode: str
    rng: random.Random
    deck: list[int]  # the undealt rest, face down; never drawn from after the deal
    ponds: list[list[int]]  # card index per slot
    up: list[list[bool]]
    river: list[int]
    river_up: list[bool]
    turn: int = 0  # turns completed; seat = turn % seats, round = turn // seats + 1
    phase: str = "flip"
    log: list[str] = field(default_factory=list)
    scores: list[int] | None = None
    slot_points: list[list[int]] | None = None


def card_text(index: int) -> str:
    card = DECK[index]
    return f"{card.colour} {card.animal} ({card.label})"


def slot_scores(boards: Mapping[Target, Sequence[Card | None]], seat: int,
                sides: tuple[Target, Target]) -> list[int]:
    """Points of each slot of `seat`'s Pond; a conditional card counts matching cards on the board
    its column faces, itself included when that is its own board. Unknown cards (None) score 0."""
    own = boards[seat]
    out = []
    for slot, card in enumerate(own):
        if card is None:
            out.append(0)
        elif card.kind == "fixed":
            out.append(card.points)
        else:
            col = slot % COLUMNS
            target = sides[0] if col == 0 else sides[1] if col == COLUMNS - 1 else seat
            hits = sum(1 for other in boards[target] if other is not None and card.matches(other))
            out.append(card.points * hits)
    return out


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Symbiose(PublicViews):
    id = "symbiose"
    name = "Symbiose"
    description = "Swap cards between your pond and the river; each column scores a different board."
    min_players = 2
    max_players = 4
    options: Mapping[str, Option] = {
        "mode": {
            "default": "standard",
            "choices": list(MODES),
            "doc": "duel (2 players, the rulebook's: a River of 8 that scores too); standard (3 or 4; with 2 "
                   "a variant of this hub's, not the rulebook's); team (4, partners across)",
            # The rulebook's only rules for two players are its Duel Mode, so a two-seat table plays
            # duel unless asked for the variant; each seat count offers only the modes it may play.
            "by_seats": {
                "2": {"default": "duel", "choices": ["duel", "standard"]},
                "3": {"default": "standard", "choices": ["standard"]},
                "4": {"default": "standard", "choices": ["standard", "team"]},
            },
        }
    }

    def check_options(self, seats: int, options: Mapping[str, Any]) -> dict[str, Any]:
        mode = options.get("mode")
        if mode == "duel" and seats != 2:
            raise IllegalAction("bad_message", "duel mode is for 2 players")
        if mode == "team" and seats != 4:
            raise IllegalAction("bad_message", "team mode is for 4 players")
        return super().check_options(seats, options)

    # -- setup and turn order ------------------------------------------------------------------

    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> State:
        opts = self.check_options(seats, options)
        rng = random.Random(seed)
        order = list(range(len(DECK)))
        rng.shuffle(order)
        ponds = [order[i * POND:(i + 1) * POND] for i in range(seats)]
        rest = order[seats * POND:]
        duel = opts["mode"] == "duel"
        river_size = 8 if duel else 4
        river, deck = rest[:river_size], rest[river_size:]
        river_up = [i < 4 for i in range(river_size)]
        state = State(seats, opts["mode"], rng, deck, ponds, [[False] * POND for _ in range(seats)],
                      river, river_up)
        state.log.append(f"Symbiose ({opts['mode']}) for {seats}: each flips one card to begin.")
        return state

    def _seat(self, state: State) -> int:
        return state.turn % state.seats

    def _round(self, state: State) -> int:
        return min(state.turn // state.seats + 1, ROUNDS)

    def active(self, state: State) -> list[int]:
        return [] if state.phase == "over" else [self._seat(state)]

    def legal(self, state: State, seat: int) -> list[Action]:
        if state.phase == "over" or seat != self._seat(state):
            return []
        if state.phase == "swap":
            return [{"type": "swap", "river": j, "slot": i}
                    for j in range(len(state.river)) for i in range(POND)]
        return [{"type": "flip", "slot": i} for i in range(POND) if not state.up[seat][i]]

    def result(self, state: State) -> Result | None:
        if state.scores is None:
            return None
        return self._result(state.scores, state.mode)

    @staticmethod
    def _result(scores: list[int], mode: str) -> SymbioseResult:
        """Ties share the victory: the rulebook names no tie-breaker."""
        if mode == "team":
            teams = [scores[0] + scores[2], scores[1] + scores[3]]
            best = max(teams)
            winners = [s for s in range(4) if teams[s % 2] == best]
            return {"winners": winners, "scores": list(scores), "teams": teams}
        best = max(scores)
        return {"winners": [s for s, v in enumerate(scores) if v == best], "scores": list(scores)}

    # -- actions -------------------------------------------------------------------------------

    def _parse(self, state: State, seat: Any, action: Any) -> tuple[str, int, int]:
        """Validate an action completely; returns (type, slot, river) or raises."""
        if state.phase == "over":
            raise IllegalAction("game_over", "the game is over")
        if not _is_int(seat) or seat != self._seat(state):
            raise IllegalAction("not_your_turn", "it is not your turn")
        if not isinstance(action, dict):
            raise IllegalAction("bad_message", "an action is a map")
        kind = action.get("type")
        if kind == "flip":
            if set(action) != {"type", "slot"}:
                raise IllegalAction("bad_message", "a flip is {type, slot}")
        elif kind == "swap":
            if set(action) != {"type", "river", "slot"}:
                raise IllegalAction("bad_message", "a swap is {type, river, slot}")
        else:
            raise IllegalAction("bad_message", "type must be 'flip' or 'swap'")
        slot = action["slot"]
        if not _is_int(slot):
            raise IllegalAction("bad_message", "slot must be an integer")
        if not 0 <= slot < POND:
            raise IllegalAction("illegal", f"slot must lie in 0..{POND - 1}")
        if kind == "flip":
            if state.phase == "swap":
                raise IllegalAction("illegal", "now is the time to swap with the River")
            if state.up[seat][slot]:
                raise IllegalAction("illegal", "that card is already face up")
            return kind, slot, -1
        river = action["river"]
        if not _is_int(river):
            raise IllegalAction("bad_message", "river must be an integer")
        if not 0 <= river < len(state.river):
            raise IllegalAction("illegal", f"river must lie in 0..{len(state.river) - 1}")
        if state.phase != "swap":
            raise IllegalAction("illegal", "flip a face-down card of your pond first")
        return kind, slot, river

    def apply(self, state: State, seat: int | None, action: Any) -> list[Event]:
        kind, slot, river = self._parse(state, seat, action)
        assert seat is not None
        if kind == "flip":
            state.up[seat][slot] = True
            self._log(state, f"Seat {seat} flipped slot {slot}: {card_text(state.ponds[seat][slot])}.")
            events: list[Event] = [{"type": "flip", "seat": seat, "slot": slot}]
            self._end_turn(state)
            return events
        taken, given = state.river[river], state.ponds[seat][slot]
        was_up, river_was_up = state.up[seat][slot], state.river_up[river]
        state.ponds[seat][slot], state.up[seat][slot] = taken, True
        state.river[river], state.river_up[river] = given, True
        where = "" if river_was_up else "face-down "
        face = "" if was_up else "face-down "
        self._log(state, f"Seat {seat} took {where}river {river}, {card_text(taken)}, for its "
                         f"{face}slot {slot}, {card_text(given)}.")
        events = [{"type": "swap", "seat": seat, "slot": slot, "river": river}]
        if was_up and not all(state.up[seat]):
            state.phase = "forced_flip"
        else:
            self._end_turn(state)
        return events

    def _end_turn(self, state: State) -> None:
        state.turn += 1
        if state.turn >= ROUNDS * state.seats:
            self._finish(state)
        else:
            state.phase = "flip" if state.turn < state.seats else "swap"

    def _finish(self, state: State) -> None:
        """All cards are revealed for scoring. Every Pond card is up by now anyway (each turn
        turns exactly one more face up); only duel's River may still hold face-down cards."""
        state.phase = "over"
        for ups in state.up:
            ups[:] = [True] * POND
        state.river_up[:] = [True] * len(state.river)
        state.slot_points = self.score(state.ponds, state.river, state.mode)
        state.scores = [sum(points) for points in state.slot_points]
        res = self._result(state.scores, state.mode)
        text = ", ".join(f"seat {s} {v}" for s, v in enumerate(state.scores))
        wins = " and ".join(str(s) for s in res["winners"])
        self._log(state, f"Scores: {text}. Winner: seat {wins}.")

    @staticmethod
    def score(ponds: Sequence[Sequence[int]], river: Sequence[int], mode: str) -> list[list[int]]:
        """Points of every slot of every Pond, all cards face up."""
        boards: dict[Target, list[Card | None]] = {s: [DECK[c] for c in p] for s, p in enumerate(ponds)}
        boards[RIVER] = [DECK[c] for c in river]
        sides = neighbours(len(ponds), mode)
        return [slot_scores(boards, s, sides[s]) for s in range(len(ponds))]

    @staticmethod
    def _log(state: State, line: str) -> None:
        state.log.append(line)
        del state.log[:-LOG_KEEP]

    # -- what a viewer sees --------------------------------------------------------------------

    def seat_view(self, public: View, state: State, seat: int | None) -> View:
        """Everything but `legal` is public."""
        view = dict(public)
        view["legal"] = [] if seat is None else self.legal(state, seat)
        return view

    @staticmethod
    def showing(state: State) -> list[int]:
        """Each seat's points as the table shows them now: face-up cards scored where they lie, a
        face-down card as nothing (its face is hidden from everyone, so this says nothing hidden)."""
        boards: dict[Target, list[Card | None]] = {
            s: [DECK[c] if up else None for c, up in zip(p, ups, strict=True)]
            for s, (p, ups) in enumerate(zip(state.ponds, state.up, strict=True))}
        boards[RIVER] = [DECK[c] if up else None for c, up in zip(state.river, state.river_up, strict=True)]
        sides = neighbours(state.seats, state.mode)
        return [sum(slot_scores(boards, s, sides[s])) for s in range(state.seats)]

    def public_view(self, state: State) -> View:
        sides = neighbours(state.seats, state.mode)
        over = state.scores is not None
        showing = None if over else self.showing(state)
        scoring = None
        if state.scores is not None and state.slot_points is not None:
            scoring = [self._scoring_entry(state, s, state.slot_points[s]) for s in range(state.seats)]
        return {
            "game": self.id,
            "mode": state.mode,
            "phase": state.phase,
            "round": self._round(state),
            "rounds": ROUNDS,
            "players": [
                {"seat": s, "left": sides[s][0], "right": sides[s][1], "team": team_of(s, state.mode),
                 "score": state.scores[s] if state.scores is not None else None,
                 "showing": showing[s] if showing is not None else None}
                for s in range(state.seats)
            ],
            "active": self.active(state),
            "legal": [],
            "deadline": None,
            "result": self.result(state) if over else None,
            "ponds": [[_slot_view(c, u) for c, u in zip(p, ups, strict=True)]
                      for p, ups in zip(state.ponds, state.up, strict=True)],
            "river": [_slot_view(c, u) for c, u in zip(state.river, state.river_up, strict=True)],
            "deck": len(state.deck),
            "scoring": scoring,
            "log": list(state.log),
        }

    @staticmethod
    def _scoring_entry(state: State, seat: int, points: list[int]) -> dict[str, Any]:
        fixed = sum(p for c, p in zip(state.ponds[seat], points, strict=True) if DECK[c].kind == "fixed")
        columns = [points[col] + points[col + COLUMNS] for col in range(COLUMNS)]
        return {"seat": seat, "fixed": fixed, "columns": columns, "total": sum(points),
                "slots": list(points)}

    # -- seats that time out, and bots ---------------------------------------------------------

    def timeout_action(self, state: State, seat: int) -> Action:
        """Flip the first face-down card; or swap for the best visible gain to oneself alone."""
        options = self.legal(state, seat)
        if not options or options[0]["type"] == "flip":
            return options[0]
        return _greedy(self.view(state, seat), None, rival_weight=0.0)

    def bot_action(self, view: View, rng: random.Random) -> Action | None:
        legal = view.get("legal") or []
        if not legal:
            return None
        if legal[0]["type"] == "flip":
            return dict(rng.choice(legal))
        return _greedy(view, rng, rival_weight=None)


def _slot_view(card: int, up: bool) -> dict[str, Any]:
    return {"up": True, "card": card_view(card)} if up else {"up": False}


def card_view(index: int) -> dict[str, Any]:
    """A face-up card. Its id is its place in the fixed deck table, so it says nothing about the
    shuffle; and a card never turns face down again, so following it leaks nothing."""
    card = DECK[index]
    value: dict[str, Any]
    if card.kind == "fixed":
        value = {"kind": "fixed", "points": card.points}
    elif card.kind == "per_animal":
        value = {"kind": "per_animal", "animal": card.counts, "points": card.points}
    else:
        value = {"kind": "per_colour", "colour": card.counts, "points": card.points}
    return {"id": f"s{index}", "colour": card.colour, "animal": card.animal, "value": value,
            "label": card.label}


# -- the greedy bot, from a view only -----------------------------------------------------------

#: What the bot guesses a face-down card is worth to its owner (about a card's mean in play).
HIDDEN_GUESS = 4.5
#: A face-down card matches a given animal or colour with this chance (9 of 36).
MATCH_CHANCE = 0.25


def _card_from_view(slot: Mapping[str, Any]) -> Card | None:
    if not slot.get("up"):
        return None
    return DECK[int(str(slot["card"]["id"])[1:])]


def _estimate(boards: Mapping[Target, Sequence[Card | None]], seat: int,
              sides: tuple[Target, Target]) -> float:
    """Expected score of a seat: known cards exactly, a face-down card as HIDDEN_GUESS and as a
    MATCH_CHANCE match for every condition that counts it."""
    total = 0.0
    for slot, card in enumerate(boards[seat]):
        if card is None:
            total += HIDDEN_GUESS
        elif card.kind == "fixed":
            total += card.points
        else:
            col = slot % COLUMNS
            target = sides[0] if col == 0 else sides[1] if col == COLUMNS - 1 else seat
            hits = 0.0
            for other in boards[target]:
                hits += MATCH_CHANCE if other is None else float(card.matches(other))
            total += card.points * hits
    return total


def _greedy(view: View, rng: random.Random | None, rival_weight: float | None) -> Action:
    """The swap that most raises (own side's estimate - rival_weight x rivals' estimate).

    rival_weight None means: a fair share, 1 / number of rivals. Ties go to the first listed
    swap without an rng, to a random one with it.
    """
    legal: list[Action] = view["legal"]
    players = view["players"]
    seats = len(players)
    me = _own_seat(view)
    sides: list[tuple[Target, Target]] = [(p["left"], p["right"]) for p in players]
    boards: dict[Target, list[Card | None]] = {
        s: [_card_from_view(slot) for slot in pond] for s, pond in enumerate(view["ponds"])}
    boards[RIVER] = [_card_from_view(slot) for slot in view["river"]]
    team = view.get("mode") == "team"
    friends = {s for s in range(seats) if s % 2 == me % 2} if team else {me}
    rivals = [s for s in range(seats) if s not in friends]
    weight = rival_weight if rival_weight is not None else 1.0 / max(1, len(rivals))
    river_cards = [_card_from_view(slot) for slot in view["river"]]

    best: list[Action] = []
    best_value = float("-inf")
    own = boards[me]
    for action in legal:
        j, i = action["river"], action["slot"]
        taken = river_cards[j]
        if taken is None:
            continue  # a face-down river card is a gamble the greedy bot declines while it can
        old_own, old_river = own[i], boards[RIVER][j]
        own[i] = taken
        boards[RIVER][j] = old_own
        value = sum(_estimate(boards, s, sides[s]) for s in friends)
        value -= weight * sum(_estimate(boards, s, sides[s]) for s in rivals)
        own[i], boards[RIVER][j] = old_own, old_river
        if value > best_value + 1e-9:
            best, best_value = [action], value
        elif abs(value - best_value) <= 1e-9:
            best.append(action)
    if not best:
        best = legal
    choice = best[0] if rng is None else rng.choice(best)
    return dict(choice)


def _own_seat(view: View) -> int:
    """The seat a view belongs to: the active seat, since only the active seat has legal actions."""
    active: list[int] = view["active"]
    return active[0]


GAME = Symbiose()
register(GAME)
