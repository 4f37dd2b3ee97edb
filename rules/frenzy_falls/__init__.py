"""Frenzy Falls: play cards face down into Pools, reveal them in order, and win the Score cards
of the Pools that spill over. See docs/frenzy_falls.md for every rule interpretation."""
from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, cast

import rules.frenzy_falls.actions as actions
import rules.frenzy_falls.bot as bot
import rules.frenzy_falls.components as components
import rules.frenzy_falls.flow as flow
import rules.frenzy_falls.view as view
from rules.engine import Action, Event, IllegalAction, PublicViews, Result, View
from rules.frenzy_falls.state import LOG_KINDS, State


class FrenzyFalls(PublicViews):
    id = "frenzy_falls"
    name = "Frenzy Falls"
    description = "Play Waterfall cards into Pools; the most influence wins each Pool that spills over."
    min_players = 2
    max_players = 6
    options: Mapping[str, Any] = {}
    log_kinds = LOG_KINDS

    def catalogue(self) -> dict[str, Any]:
        return components.catalogue()

    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> State:
        self.check_options(seats, options)
        state = flow.setup(seats, seed)
        state.trim_log()
        return state

    def active(self, state: State) -> list[int]:
        return actions.active(state)

    def legal(self, state: State, seat: int) -> list[Action]:
        return actions.legal(state, seat)

    def apply(self, state: State, seat: int | None, action: Any) -> list[Event]:
        change = actions.check(state, seat, action)
        before = state.log_total
        change()
        fresh = state.log_total - before
        # Log lines are public by construction, so they double as the action's events. The trim
        # comes after they are read, so a long cascade returns every line it wrote.
        events: list[Event] = [{"kind": "log", "entry": e} for e in state.log[len(state.log) - fresh:]]
        state.trim_log()
        return events

    def public_view(self, state: State) -> View:
        return view.public_view(state, self.id)

    def seat_view(self, public: View, state: State, seat: int | None) -> View:
        return view.seat_view(public, state, seat)

    def result(self, state: State) -> Result | None:
        return cast(Result, state.result) if state.result is not None else None

    def timeout_action(self, state: State, seat: int) -> Action:
        """A seat out of time plays its first card into Pool 1, keeps its hand at round end,
        and otherwise takes the first listed choice (the left card, the leftmost own card)."""
        legal = actions.legal(state, seat)
        if not legal:
            raise IllegalAction("not_your_turn", "the game is not waiting for this seat")
        return legal[0]

    def bot_action(self, view: View, rng: random.Random) -> Action | None:
        return bot.bot_action(view, rng)


GAME = FrenzyFalls()
