"""The face that every game engine shows the hub.

Engines are sans-I/O state machines: plain data in, plain data out, no clock, no sockets, no
asyncio. Everything that depends on time (deadlines, the fastest hand) reaches an engine as an
action that the hub applies, so the same seed and the same actions always give the same game.
That one property carries replays, fail-over from an action log, and reproducible bug reports.

A game is an object with the methods of `Game`; `BaseGame` supplies the defaults that most
games share. State objects are each game's own, but every one must be plain data that `rules.snapshot`
writes and reads back (the hub snapshots rooms that way) and must keep its randomness in its own
`random.Random`, seeded by `setup`.
"""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict

Action = dict[str, Any]
View = dict[str, Any]
Event = dict[str, Any]
#: A log entry: `[kind, *args]`, its arguments seats, numbers, card kinds (ids of the game's
#: catalogue) and locations, never sentences: the client puts it into words in the reader's language.
#: A room stored before entries were data may still hold sentences (str), shown as they were.
Entry = list[Any]
LogKinds = Mapping[str, tuple[str, ...]]

#: A log holds up to LOG_KEEP entries, then drops the oldest LOG_TRIM at once, so that most moves
#: only append to it (small JSON Patch diffs); `log_from` counts what was dropped.
LOG_KEEP = 40
LOG_TRIM = 20

#: The seat that the hub itself acts as, for results of timed contests.
HUB = None


def entry(kinds: LogKinds, kind: str, args: tuple[Any, ...]) -> Entry:
    """`[kind, *args]`. An entry of a kind the game does not declare, or with another count of
    arguments, is a bug of the engine."""
    names = kinds.get(kind)
    if names is None or len(names) != len(args):
        raise ValueError(f"log entry {kind!r} with {len(args)} arguments is not one of the game's kinds")
    return [kind, *args]


def log_entry(log: list[Any], kinds: LogKinds, kind: str, args: tuple[Any, ...]) -> int:
    """Append `[kind, *args]` to a log; how many of its oldest entries were dropped."""
    log.append(entry(kinds, kind, args))
    if len(log) > LOG_KEEP:
        del log[:LOG_TRIM]
        return LOG_TRIM
    return 0


class IllegalAction(Exception):
    """Refusal of an action; raised before anything in the state has changed.

    `code` is one of the protocol's error codes: `illegal`, `not_your_turn`, `bad_message`,
    `game_over`, `unauthorized`.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Option(TypedDict, total=False):
    default: Any
    choices: list[Any]
    min: int
    max: int
    doc: str
    #: Per seat count ("2", "3", ...): a `default` and `choices` that replace the ones above for
    #: that many seats, so a lobby can offer only what a table of that size may play.
    by_seats: dict[str, dict[str, Any]]
    #: The option means something only while another option has one of these values (Frenetic
    #: Village's `battles`, for the variants that count battles): a lobby offers it only then.
    when: dict[str, list[Any]]
    #: Per choice, what it means in a sentence; `{name}` stands for the value of option `name`
    #: ("After {battles} battles, ..."), so a lobby can say it with the numbers chosen.
    choice_docs: dict[str, str]


def option_for(spec: Option, seats: int) -> dict[str, Any]:
    """An option's description for a table of `seats`: its `by_seats` entry laid over it."""
    out: dict[str, Any] = {k: v for k, v in spec.items() if k != "by_seats"}
    out.update(spec.get("by_seats", {}).get(str(seats), {}))
    return out


class Result(TypedDict, total=False):
    winners: list[int]
    scores: list[int]


@dataclass(frozen=True)
class Contest:
    """A timed contest the hub must run, as the engine declares it.

    The hub opens it when `contest(state)` starts returning it, judges the fastest fair hand
    among `eligible` seats, and answers by applying, as seat `HUB`,
    `{"type": "contest_result", "key": key, "winner": seat or None}`.
    """

    key: str
    kind: str
    eligible: tuple[int, ...]
    info: Mapping[str, Any] = field(default_factory=dict)


class Game(Protocol):
    id: str
    name: str
    description: str
    min_players: int
    max_players: int
    options: Mapping[str, Option]
    #: Every kind of log entry the game writes, with its arguments' names (docs/protocol.md lists them).
    log_kinds: LogKinds
    #: Kinds of engine events the hub relays as `event` frames to every connection of a room, in
    #: every process: only kinds whose every field is public (docs/protocol.md).
    relayed_events: frozenset[str]

    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> Any: ...
    def active(self, state: Any) -> list[int]: ...
    def legal(self, state: Any, seat: int) -> list[Action]: ...
    def apply(self, state: Any, seat: int | None, action: Any) -> list[Event]: ...
    def view(self, state: Any, seat: int | None) -> View: ...
    def views(self, state: Any, seats: Sequence[int | None]) -> list[View]: ...
    def result(self, state: Any) -> Result | None: ...
    def timeout_action(self, state: Any, seat: int) -> Action: ...
    def contest(self, state: Any) -> Contest | None: ...
    def bot_action(self, view: View, rng: random.Random) -> Action | None: ...
    def bot_wants(self, view: View, info: Mapping[str, Any]) -> bool: ...
    def check_options(self, seats: int, options: Mapping[str, Any]) -> dict[str, Any]: ...
    def catalogue(self) -> dict[str, Any]:
        """What each kind of card (or other piece) the views and the log name by id shows and means:
        fetched once by a client (GET /api/games/<id>/catalogue), never part of a view."""
        ...


class BaseGame:
    """Defaults shared by the four games; each game overrides what its rules need."""

    id = ""
    name = ""
    description = ""
    min_players = 2
    max_players = 2
    options: Mapping[str, Option] = {}
    log_kinds: LogKinds = {}
    relayed_events: frozenset[str] = frozenset()

    def catalogue(self) -> dict[str, Any]:
        return {}

    def check_options(self, seats: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Fill defaults and refuse unknown names or values outside their choices."""
        if not self.min_players <= seats <= self.max_players:
            raise IllegalAction(
                "bad_message", f"{self.name} seats {self.min_players} to {self.max_players} players"
            )
        out: dict[str, Any] = {}
        for key in options:
            if key not in self.options:
                raise IllegalAction("bad_message", f"unknown option {key!r}")
        for key, given in self.options.items():
            spec = option_for(given, seats)
            value = options.get(key, spec.get("default"))
            choices = spec.get("choices")
            if choices is not None and value not in choices:
                raise IllegalAction("bad_message", f"option {key!r} must be one of {choices}")
            if "min" in spec or "max" in spec:
                if not isinstance(value, int) or isinstance(value, bool):
                    raise IllegalAction("bad_message", f"option {key!r} must be an integer")
                if value < spec.get("min", value) or value > spec.get("max", value):
                    raise IllegalAction(
                        "bad_message", f"option {key!r} must lie in {spec.get('min')}..{spec.get('max')}"
                    )
            out[key] = value
        return out

    def contest(self, state: Any) -> Contest | None:
        return None

    def views(self, state: Any, seats: Sequence[int | None]) -> list[View]:
        """Every asked audience's view of one state, each equal to `view(state, seat)`.

        A game may build what every audience sees alike once and put the same maps and lists in
        each of these views: the hub makes every audience's view after every change, and then
        encodes and diffs what they share once instead of once per audience. They never share a
        map or list with the state or with another call's views (tests/rules/test_views.py), and
        nothing changes a view once it is made.
        """
        return [self.view(state, seat) for seat in seats]

    def timeout_action(self, state: Any, seat: int) -> Action:
        return self.legal(state, seat)[0]

    def legal(self, state: Any, seat: int) -> list[Action]:  # pragma: no cover - every game overrides
        raise NotImplementedError

    def view(self, state: Any, seat: int | None) -> View:  # pragma: no cover - every game overrides
        raise NotImplementedError

    def bot_action(self, view: View, rng: random.Random) -> Action | None:
        """A bot sees only its own seat's view, so it can never cheat; the default plays at random."""
        legal = view.get("legal") or []
        return rng.choice(legal) if legal else None

    def bot_wants(self, view: View, info: Mapping[str, Any]) -> bool:
        """Whether a bot seeing `view` tries for a contest the engine declared with `info`; by
        default it tries for every one."""
        return True


class PublicViews(BaseGame):
    """A game whose views are one public part that every audience sees, and a seat's own keys
    put over it: `views` builds the public part once for every audience of a change."""

    def view(self, state: Any, seat: int | None) -> View:
        return self.seat_view(self.public_view(state), state, seat)

    def views(self, state: Any, seats: Sequence[int | None]) -> list[View]:
        public = self.public_view(state)
        return [self.seat_view(public, state, seat) for seat in seats]

    def public_view(self, state: Any) -> View:  # pragma: no cover - every such game overrides
        """The view of a spectator, with every seat-own key present (empty) in its place."""
        raise NotImplementedError

    def seat_view(self, public: View, state: Any, seat: int | None) -> View:  # pragma: no cover
        """A copy of the public map (its values shared) with `seat`'s own keys set."""
        raise NotImplementedError


def json_copy(value: Any) -> Any:
    """A fresh copy of a JSON-like value that the state keeps (a result, the last battle).

    A view never shares a map or a list with the state, nor with another view: the hub keeps each
    audience's last view to diff the next one against, without copying it (tests/rules/test_views.py).
    """
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_copy(v) for v in value]
    return value


def declares_contests(game: Game) -> bool:
    """True for games that override `contest`: the hub runs arbitration only for those."""
    return getattr(type(game), "contest", None) is not BaseGame.contest
