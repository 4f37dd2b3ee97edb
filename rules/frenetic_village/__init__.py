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

This module is the game's face: `components` (the deck chosen here), `state`, `flow` (battles and
turns), `actions`, `view`, `bot`.
"""
from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import rules.frenetic_village.actions as actions
import rules.frenetic_village.bot as bot
import rules.frenetic_village.components as components
import rules.frenetic_village.flow as flow
import rules.frenetic_village.view as view
from rules.engine import Action, Contest, Event, Option, PublicViews, Result, View
from rules.frenetic_village.components import GAME_ID, VARIANTS
from rules.frenetic_village.state import LOG_KINDS, State


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

    log_kinds = LOG_KINDS

    def catalogue(self) -> dict[str, Any]:
        return {"cards": components.catalogue()}

    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> State:
        opts = self.check_options(seats, options)
        state = State(seats=seats, variant=opts["variant"], battles=opts["battles"],
                      rng=random.Random(seed), wins=[0] * seats, scores=[0] * seats)
        # chosen here: the hub cannot see hair on ears, so the first starter is drawn by lot.
        flow.start_battle(state, state.rng.randrange(seats))
        return state

    def active(self, state: State) -> list[int]:
        return actions.active(state)

    def legal(self, state: State, seat: int) -> list[Action]:
        return actions.legal(state, seat)

    def contest(self, state: State) -> Contest | None:
        return actions.contest(state)

    def apply(self, state: State, seat: int | None, action: Any) -> list[Event]:
        return actions.apply(state, seat, action)

    def result(self, state: State) -> Result | None:
        return state.result

    def timeout_action(self, state: State, seat: int) -> Action:
        return actions.timeout_action(state, seat)

    def public_view(self, state: State) -> View:
        return view.public_view(state)

    def seat_view(self, public: View, state: State, seat: int | None) -> View:
        return view.seat_view(public, state, seat)

    def bot_action(self, view: View, rng: random.Random) -> Action | None:
        return bot.bot_action(view, rng)

    def bot_wants(self, view: View, info: Mapping[str, Any]) -> bool:
        return bot.wants(view, info.get("card"))


GAME = FreneticVillage()
