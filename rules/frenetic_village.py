"""Frenetic Village: collect five army cards in a row or of one value before anyone else does.

Each turn a player draws, then puts one card away: face up on their own discard pile, or, if it is
an action card, onto another player's pile, where its effect strikes that player. The moment the
player whose turn it is puts a card on their own pile, every other player may grab it; the rulebook
settles that by "the fastest to cover it", so the engine declares a timed contest (`contest`) and
waits, with nobody active, until the hub applies the arbitrated winner as seat `HUB`. The engine
itself never reads a clock.

The flow of one turn, precisely (docs/frenetic_village.md says why):

- `draw`: the player whose turn it is draws one card (six in hand).
- `play`: they `discard` a card onto their own pile, `play` an action card onto another pile, or,
  if the five cards they held before the draw form a combination, `declare` by putting the drawn
  card face down (no contest: the battle ends).
- Only a card put on its owner's own pile is contested (`grab`); an action card played onto another
  player's pile is not ("Nor may a player take the card from another player's discard pile when it
  is not that player's turn"). A contest with no winner leaves the card lying for good. A winner
  takes it, becomes the player whose turn it is, and must `discard` another card onto their own
  pile (no action card, no declaring), which is contested in turn.
- When no card is left to contest, every player holding fewer than five cards (victims of "Two/
  Three cards to the deck") must draw back up to five (`refill`); then the turn passes to the
  player after the one who put away the last card.
"""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rules import frenetic_village_cards as fc
from rules.engine import HUB, Action, Contest, Event, IllegalAction, Option, PublicViews, Result, View, json_copy
from rules.registry import register

GAME_ID = "frenetic_village"
VARIANTS: tuple[str, ...] = ("single", "five_wins", "lowest_total", "battle_points")
FIVE_WINS = 5  # the rulebook's "whoever wins 5 battles"
LOG_KEEP = 40  # the log grows to this many entries, then drops the oldest half at once,
LOG_TRIM = 20  # so that most moves only append to it (small JSON Patch diffs)

# Where an attacker's "play" lands and what it does, for the log.
EFFECTS: dict[str, str] = {
    "skulls": "sends their whole hand under the draw pile; they draw 5 new cards",
    "palla_paca_card": "exchanges one card with them",
    "palla_paca_hand": "exchanges hands with them",
    "two_cards": "sends 2 of their cards back into the deck",
    "three_cards": "sends 3 of their cards back into the deck",
    "one_card": "takes one of their cards",
}
SENT_BACK = {"two_cards": 2, "three_cards": 3}
PLAY_ORDER: tuple[str, ...] = ("skulls", "three_cards", "two_cards", "one_card", "palla_paca_card",
                               "palla_paca_hand")


@dataclass
class OpenContest:
    key: str
    pile: int
    placer: int
    eligible: tuple[int, ...]


@dataclass
class State:
    seats: int
    variant: str
    battles: int
    rng: random.Random
    hands: list[list[int]] = field(default_factory=list)
    draw: list[int] = field(default_factory=list)  # the top is the end of the list
    piles: list[list[int]] = field(default_factory=list)  # the top is the end of each list
    phase: str = "draw"  # draw | play | discard | grab | refill | over
    turn: int = 0
    exclude_slot: int | None = None  # the card just grabbed, which cannot be put away at once
    actions_allowed: bool = True  # False while an attacker discards after "One card"
    queue: list[tuple[int, int]] = field(default_factory=list)  # (pile, placer) waiting a contest
    contest: OpenContest | None = None
    contest_seq: int = 0
    battle: int = 1
    wins: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    last_battle: dict[str, Any] | None = None
    face_down: int | None = None  # the seat whose pile top is the face-down declaring card
    log: list[str] = field(default_factory=list)
    log_from: int = 0
    result: Result | None = None


def _seat(s: int) -> str:
    return f"Seat {s}"


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


class FreneticVillage(PublicViews):
    id = GAME_ID
    name = "Frenetic Village"
    description = ("Draw, discard, strike with action cards and grab cards the instant they land: "
                   "the first to hold a run, five of a value or an invincible ladder wins the battle.")
    min_players = 2
    max_players = 8
    options: Mapping[str, Option] = {
        "variant": {"default": "single", "choices": list(VARIANTS),
                    "doc": "single battle; first to 5 battles; lowest total of cards left in hand "
                           "after `battles` battles; most points from winning hands after `battles`",
                    "choice_docs": {
                        "single": "One battle: the first to declare a winning combination wins the game.",
                        "five_wins": "Battle after battle: the first to win 5 battles wins the game.",
                        "lowest_total": "{battles} battles: after each, every player but its winner adds "
                                        "up the cards left in hand; the lowest total wins.",
                        "battle_points": "{battles} battles: each winner scores the cards of the winning "
                                         "hand; the most points wins.",
                    }},
        "battles": {"default": 5, "min": 1, "max": 20,
                    "doc": "number of battles for lowest_total and battle_points",
                    "when": {"variant": ["lowest_total", "battle_points"]}},
    }

    # --- setup and helpers ----------------------------------------------------------------------

    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> State:
        opts = self.check_options(seats, options)
        state = State(seats=seats, variant=opts["variant"], battles=opts["battles"],
                      rng=random.Random(seed), wins=[0] * seats, scores=[0] * seats)
        # chosen here: the hub cannot see hair on ears, so the first starter is drawn by lot.
        self._start_battle(state, state.rng.randrange(seats))
        return state

    def _start_battle(self, state: State, starter: int) -> None:
        deck = list(range(fc.DECK_SIZE))
        state.rng.shuffle(deck)
        state.hands = [[deck.pop() for _ in range(fc.HAND)] for _ in range(state.seats)]
        state.draw = deck
        state.piles = [[] for _ in range(state.seats)]
        state.queue = []
        state.contest = None
        state.face_down = None
        self._begin_turn(state, starter)
        self._log(state, f"Battle {state.battle} begins; {_seat(starter)} starts.")

    def _begin_turn(self, state: State, seat: int) -> None:
        state.turn = seat
        state.phase = "draw"
        state.exclude_slot = None
        state.actions_allowed = True

    def _log(self, state: State, text: str) -> None:
        state.log.append(text)
        if len(state.log) > LOG_KEEP:
            del state.log[:LOG_TRIM]
            state.log_from += LOG_TRIM

    def _draw_one(self, state: State, seat: int) -> None:
        if not state.draw:
            cards = [c for pile in state.piles for c in pile]
            state.rng.shuffle(cards)
            state.draw = cards
            state.piles = [[] for _ in range(state.seats)]
            state.queue = []
            self._log(state, "The draw pile ran out: every discard pile is shuffled into a new one.")
        if state.draw:  # always true: at most 41 of the 62 cards are ever in hands
            state.hands[seat].append(state.draw.pop())

    def _at_least(self, state: State, n: int) -> None:
        """Make sure the draw pile holds n cards: if not, every discard pile is shuffled in under it.

        The rulebook refills the pile from the discard piles when it runs out; a Skulls or "cards to
        the deck" victim must draw cards that are new, so the refill comes before their own cards go
        in. At most 41 of the 62 cards are in hands, so the piles always have enough.
        """
        if len(state.draw) >= n:
            return
        cards = [c for pile in state.piles for c in pile]
        state.rng.shuffle(cards)
        state.draw[0:0] = cards
        state.piles = [[] for _ in range(state.seats)]
        state.queue = []
        state.face_down = None
        self._log(state, "The draw pile runs short: every discard pile is shuffled in under it.")

    def _short(self, state: State) -> list[int]:
        return [s for s in range(state.seats) if len(state.hands[s]) < fc.HAND]

    # --- the Game face --------------------------------------------------------------------------

    def active(self, state: State) -> list[int]:
        if state.result is not None or state.phase in ("grab", "over"):
            return []
        if state.phase == "refill":
            return self._short(state)
        return [state.turn]

    def legal(self, state: State, seat: int) -> list[Action]:
        if state.result is not None or seat not in self.active(state):
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

    def contest(self, state: State) -> Contest | None:
        c = state.contest
        if c is None:
            return None
        top = state.piles[c.pile][-1]
        return Contest(c.key, "grab", c.eligible, {"pile": c.pile, "placer": c.placer, "card": fc.face(top)})

    def result(self, state: State) -> Result | None:
        return state.result

    def timeout_action(self, state: State, seat: int) -> Action:
        """A seat out of time draws, declares when it can, else puts away its least useful card."""
        legal = self.legal(state, seat)
        if not legal:
            raise IllegalAction("not_your_turn", "this seat has nothing to do")
        if legal[0]["type"] in ("draw", "declare"):
            return legal[0]
        faces = [fc.face(c) for c in state.hands[seat]]
        return _least_useful(faces, [a for a in legal if a["type"] == "discard"])

    def bot_action(self, view: View, rng: random.Random) -> Action | None:
        return bot_action(view, rng)

    @staticmethod
    def wants(view: View, card: Any) -> bool:
        return wants(view, card)

    # --- apply ----------------------------------------------------------------------------------

    def apply(self, state: State, seat: int | None, action: Any) -> list[Event]:
        if seat is HUB:
            return self._contest_result(state, action)
        if not _is_int(seat) or not 0 <= seat < state.seats:
            raise IllegalAction("unauthorized", "no such seat")
        if state.result is not None:
            raise IllegalAction("game_over", "the game is over")
        if isinstance(action, dict) and action.get("type") == "contest_result":
            raise IllegalAction("unauthorized", "only the hub settles contests")
        _check_shape(action)
        if state.phase == "grab":
            raise IllegalAction("not_your_turn", "a grab contest is open; the hub settles it")
        if seat not in self.active(state):
            raise IllegalAction("not_your_turn", f"the game waits for {self.active(state)}")
        if action not in self.legal(state, seat):
            raise IllegalAction("illegal", "that move is not allowed now")
        kind = action["type"]
        if kind == "draw":
            return self._do_draw(state, seat)
        if kind == "declare":
            return self._declare(state, seat, action["slot"])
        if kind == "discard":
            return self._discard(state, seat, action["slot"])
        return self._play(state, seat, action)

    def _do_draw(self, state: State, seat: int) -> list[Event]:
        if state.phase == "draw":
            self._draw_one(state, seat)
            state.phase = "play"
            self._log(state, f"{_seat(seat)} draws a card.")
            return [{"type": "draw", "seat": seat, "cards": 1}]
        n = fc.HAND - len(state.hands[seat])
        for _ in range(n):
            self._draw_one(state, seat)
        self._log(state, f"{_seat(seat)} draws {n} card{'s' if n > 1 else ''}.")
        if not self._short(state):
            self._begin_turn(state, (state.turn + 1) % state.seats)
        return [{"type": "draw", "seat": seat, "cards": n}]

    def _discard(self, state: State, seat: int, slot: int) -> list[Event]:
        card = state.hands[seat].pop(slot)
        state.piles[seat].append(card)
        state.queue.append((seat, seat))
        self._log(state, f"{_seat(seat)} discards {fc.name(card)}.")
        self._after_placement(state)
        return [{"type": "discard", "seat": seat, "card": fc.face(card)}]

    def _play(self, state: State, seat: int, action: Action) -> list[Event]:
        hand = state.hands[seat]
        slot, target = action["slot"], action["target"]
        card = hand.pop(slot)
        state.exclude_slot = None
        k = fc.kind(card)
        victim = state.hands[target]
        self._log(state, f"{_seat(seat)} plays {fc.name(card)} on {_seat(target)}'s pile and "
                         f"{EFFECTS[k]}.")
        if k == "skulls":
            # "They must then draw 5 new cards": with fewer than five above the bottom, where the
            # victim's own cards go, the discard piles refill the pile first (as when it runs out).
            self._at_least(state, fc.HAND)
            state.draw[0:0] = victim  # face down at the bottom of the draw pile
            state.hands[target] = []
            for _ in range(fc.HAND):
                self._draw_one(state, target)
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
            self._at_least(state, n)
            for _ in range(n):
                back = victim.pop(state.rng.randrange(len(victim)))
                state.draw.insert(state.rng.randint(0, len(state.draw) - n), back)  # unseen
        else:  # one_card: the attacker keeps one card at random; the victim draws back to five
            hand.append(victim.pop(state.rng.randrange(len(victim))))
            self._draw_one(state, target)
        # "Nor may a player take the card from another player's discard pile when it is not that
        # player's turn": an action card lands on someone else's pile, so nobody may grab it.
        state.piles[target].append(card)
        event: Event = {"type": "play", "seat": seat, "target": target, "card": fc.face(card)}
        if k == "one_card":  # "... and you discard one card" before anyone may grab
            state.phase = "discard"
            state.exclude_slot = None
            state.actions_allowed = False
            return [event]
        self._after_placement(state)
        return [event]

    def _after_placement(self, state: State) -> None:
        state.exclude_slot = None
        while state.queue:
            pile, placer = state.queue[0]
            eligible = tuple(s for s in range(state.seats) if s != placer and state.hands[s])
            if eligible:
                state.contest_seq += 1
                state.contest = OpenContest(f"grab-{state.contest_seq}", pile, placer, eligible)
                state.phase = "grab"
                return
            state.queue.pop(0)  # nobody could put another card away after a grab
        self._end_chain(state)

    def _end_chain(self, state: State) -> None:
        state.contest = None
        state.exclude_slot = None
        if self._short(state):
            state.phase = "refill"
            state.actions_allowed = True
            return
        self._begin_turn(state, (state.turn + 1) % state.seats)

    def _contest_result(self, state: State, action: Any) -> list[Event]:
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
            self._log(state, f"Nobody grabs {fc.name(top)}.")
            self._after_placement(state)
            return [{"type": "grab", "contest": key, "winner": None}]
        state.piles[c.pile].pop()
        state.hands[winner].append(top)
        state.queue.clear()  # play continues from the grabber; older cards are left lying
        state.turn = winner
        state.phase = "discard"
        state.exclude_slot = len(state.hands[winner]) - 1
        state.actions_allowed = False  # "must discard another card": a discard, not an action play
        self._log(state, f"{_seat(winner)} grabs {fc.name(top)} from {_seat(c.pile)}'s pile.")
        return [{"type": "grab", "contest": key, "winner": winner, "card": fc.face(top)}]

    def _declare(self, state: State, seat: int, slot: int) -> list[Event]:
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
            "hand": [fc.face(c) for c in hand],
            "hands": [[fc.face(c) for c in h] if s != seat else [] for s, h in enumerate(state.hands)],
            "added": added,
        }
        cards = ", ".join(fc.name(c) for c in hand)
        self._log(state, f"{_seat(seat)} places a card face down: {fc.COMBINATION_NAMES[combo]} "
                         f"({cards}). {_seat(seat)} wins battle {state.battle}!")
        events: list[Event] = [{"type": "declare", "seat": seat, "combination": combo,
                                "hand": state.last_battle["hand"]}]
        if self._over(state, seat):
            state.phase = "over"
            best = min(state.scores) if state.variant == "lowest_total" else max(state.scores)
            winners = [s for s in range(state.seats) if state.scores[s] == best]
            state.result = {"winners": winners, "scores": list(state.scores)}
            self._log(state, "The game is over: " + ", ".join(_seat(s) for s in winners) + " won.")
            return events
        state.battle += 1
        self._start_battle(state, seat)  # the winner of a battle starts the next
        return events

    def _over(self, state: State, winner: int) -> bool:
        if state.variant == "single":
            return True
        if state.variant == "five_wins":
            return state.wins[winner] >= FIVE_WINS
        return state.battle >= state.battles

    # --- view -----------------------------------------------------------------------------------

    def seat_view(self, public: View, state: State, seat: int | None) -> View:
        """All but a seat's hand, legal actions and grabbed slot is public."""
        view = dict(public)
        own = seat if seat is not None and _is_int(seat) and 0 <= seat < state.seats else None
        if own is not None:
            view["legal"] = self.legal(state, own)
            view["hand"] = [fc.face(x) for x in state.hands[own]]
            view["grabbed_slot"] = state.exclude_slot if own == state.turn else None
        return view

    def public_view(self, state: State) -> View:
        players = []
        for s in range(state.seats):
            pile = state.piles[s]
            down = state.face_down == s
            players.append({
                "seat": s, "hand": len(state.hands[s]), "pile": len(pile),
                "top": fc.face(pile[-1]) if pile and not down else None, "face_down": down,
                "wins": state.wins[s], "score": state.scores[s],
            })
        c = state.contest
        contest = None if c is None else {
            "key": c.key, "pile": c.pile, "placer": c.placer, "eligible": list(c.eligible),
            "card": fc.face(state.piles[c.pile][-1]),
        }
        return {
            "game": GAME_ID,
            "phase": state.phase,
            "variant": state.variant,
            "battle": state.battle,
            "battles": state.battles if state.variant in ("lowest_total", "battle_points") else None,
            "players": players,
            "active": self.active(state),
            "legal": [],
            "deadline": None,
            "result": json_copy(state.result),
            "turn": state.turn,
            "hand": [],
            "grabbed_slot": None,
            "draw_pile": len(state.draw),
            "contest": contest,
            "grabbable": [p for p, _ in state.queue],
            "last_battle": json_copy(state.last_battle),
            "log": list(state.log),
            "log_from": state.log_from,
        }


# --- action shapes ------------------------------------------------------------------------------

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


# --- the bot ------------------------------------------------------------------------------------

Parsed = tuple[str, int, int]


def _parse(face: Any) -> Parsed | None:
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


def _least_useful(faces: Sequence[Any], discards: Sequence[Action]) -> Action:
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
    return dict(_least_useful(view.get("hand", []), discards))


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


GAME = register(FreneticVillage())
