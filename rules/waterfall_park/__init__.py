"""Waterfall Park (Repos Production, 2023): negotiate locations and attractions over four rounds.

The game's face: what the hub calls, each answered by the module that owns the concern.
`components` (the park, the cards, the tiles, the incomes), `state`, `flow` (the rounds' phases),
`actions` (what a seat may do and doing it), `trade` (offers), `income` (the exact best split of
attractions), `view`, `bot` (a player that reads only its own view).
"""
from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import rules.waterfall_park.actions as actions
import rules.waterfall_park.bot as bot
import rules.waterfall_park.flow as flow
import rules.waterfall_park.view as view
from rules.engine import Action, Event, Option, PublicViews, Result, View
from rules.waterfall_park.components import DEFAULT_MAX_OFFERS, GAME_ID, MAX_PLAYERS, MIN_PLAYERS
from rules.waterfall_park.state import LOG_KINDS, State


class WaterfallPark(PublicViews):
    id = GAME_ID
    name = "Waterfall Park"
    description = "Negotiate locations and attractions, build the biggest attractions soonest, earn the most."
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    options: Mapping[str, Option] = {
        "max_offers": {
            "default": DEFAULT_MAX_OFFERS,
            "min": 1,
            "max": 20,
            "doc": "open offers a player may have at once",
        },
    }
    #: Offers are public, and an author must learn at once that an offer was declined, withdrawn,
    #: traded or voided: these events reach every connection of the room, in every process.
    relayed_events = frozenset({"declined", "withdrawn", "trade", "void", "failed"})
    log_kinds = LOG_KINDS

    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> State:
        opts = self.check_options(seats, options)
        return flow.setup(seats, seed, opts["max_offers"])

    def active(self, state: State) -> list[int]:
        return actions.active(state)

    def legal(self, state: State, seat: int) -> list[Action]:
        return actions.legal(state, seat)

    def timeout_action(self, state: State, seat: int) -> Action:
        return actions.timeout_action(state, seat)

    def decision_weight(self, state: State) -> float:
        return actions.decision_weight(state)

    def apply(self, state: State, seat: int | None, action: Any) -> list[Event]:
        return actions.apply(state, seat, action)

    def result(self, state: State) -> Result | None:
        return view.result(state)

    def public_view(self, state: State) -> View:
        return view.public_view(state)

    def seat_view(self, public: View, state: State, seat: int | None) -> View:
        return view.seat_view(public, state, seat)

    def bot_action(self, view: View, rng: random.Random) -> Action | None:
        return bot.decide(view, rng)


GAME = WaterfallPark()

__all__ = ["GAME", "WaterfallPark"]
