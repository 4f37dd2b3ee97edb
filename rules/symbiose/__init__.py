"""Symbiose: eight turns of swapping cards between your Pond and the River, scored by column.

The game's face: what the hub calls, each answered by the module that owns the concern.
`components` (the cards chosen here and the boards each column faces), `state`, `actions`,
`scoring`, `view`, `bot`. docs/symbiose.md gives every point where the rulebook is silent.
"""
from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import rules.symbiose.actions as actions
import rules.symbiose.bot as bot
import rules.symbiose.view as view
from rules.engine import Action, Event, IllegalAction, Option, PublicViews, Result, View
from rules.symbiose.components import MODES
from rules.symbiose.scoring import outcome
from rules.symbiose.state import LOG_KINDS, State


class Symbiose(PublicViews):
    id = view.GAME_ID
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

    log_kinds = LOG_KINDS

    def catalogue(self) -> dict[str, Any]:
        return view.catalogue()

    def check_options(self, seats: int, options: Mapping[str, Any]) -> dict[str, Any]:
        mode = options.get("mode")
        if mode == "duel" and seats != 2:
            raise IllegalAction("bad_message", "duel mode is for 2 players")
        if mode == "team" and seats != 4:
            raise IllegalAction("bad_message", "team mode is for 4 players")
        return super().check_options(seats, options)

    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> State:
        return actions.setup(seats, seed, self.check_options(seats, options)["mode"])

    def active(self, state: State) -> list[int]:
        return actions.active(state)

    def legal(self, state: State, seat: int) -> list[Action]:
        return actions.legal(state, seat)

    def apply(self, state: State, seat: int | None, action: Any) -> list[Event]:
        return actions.apply(state, seat, action)

    def result(self, state: State) -> Result | None:
        return None if state.scores is None else outcome(state.scores, state.mode)

    def public_view(self, state: State) -> View:
        return view.public_view(state)

    def seat_view(self, public: View, state: State, seat: int | None) -> View:
        return view.seat_view(public, state, seat)

    def timeout_action(self, state: State, seat: int) -> Action:
        """Flip the first face-down card; or swap for the best visible gain to oneself alone."""
        options = actions.legal(state, seat)
        if not options or options[0]["type"] == "flip":
            return options[0]
        return bot.greedy(self.view(state, seat), None, rival_weight=0.0)

    def bot_action(self, view: View, rng: random.Random) -> Action | None:
        return bot.bot_action(view, rng)


GAME = Symbiose()
