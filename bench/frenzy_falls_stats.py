"""How Frenzy Falls plays with the chosen card faces: rounds per game and spillovers per round.

    python -m bench.frenzy_falls_stats [games per player count, default 200]

Plays whole games for 2 to 6 players, once by random legal moves and once by the bots (each
seat deciding from its own view), and prints the figures that docs/frenzy_falls.md reports;
then seats one bot among random players to show that the bot plays better than chance.
"""
from __future__ import annotations

import random
import statistics
import sys
from dataclasses import dataclass

from rules.engine import Action
from rules.frenzy_falls import GAME
from rules.frenzy_falls.state import State


@dataclass
class Figures:
    rounds: list[int]
    spills: list[int]

    def line(self) -> str:
        spilled = sum(1 for s in self.spills if s > 0) / len(self.spills)
        return (f"rounds/game mean {statistics.mean(self.rounds):4.1f} "
                f"(min {min(self.rounds)}, max {max(self.rounds)}); "
                f"rounds with a spill {100 * spilled:3.0f}%; "
                f"spills/round {statistics.mean(self.spills):3.1f}")


def play_game(seats: int, seed: int, bot_seats: set[int], max_steps: int = 20000) -> State:
    state: State = GAME.setup(seats, seed, {})
    rng = random.Random(seed ^ 0x5EED)
    for _ in range(max_steps):
        if GAME.result(state) is not None:
            return state
        seat = GAME.active(state)[0]
        action: Action | None = rng.choice(GAME.legal(state, seat))
        if seat in bot_seats:
            action = GAME.bot_action(GAME.view(state, seat), rng)
        assert action is not None
        GAME.apply(state, seat, action)
    raise RuntimeError(f"game {seats}/{seed} did not end in {max_steps} steps")


def measure(seats: int, games: int, bots: bool) -> Figures:
    rounds: list[int] = []
    spills: list[int] = []
    for seed in range(games):
        state = play_game(seats, seed, set(range(seats)) if bots else set())
        rounds.append(state.round)
        spills.extend(state.spills_by_round)
    return Figures(rounds, spills)


def bot_win_share(seats: int, games: int) -> float:
    """Share of games one bot wins (a shared victory counts by its share) among random players."""
    won = 0.0
    for seed in range(games):
        bot = seed % seats
        result = GAME.result(play_game(seats, seed, {bot}))
        assert result is not None
        if bot in result["winners"]:
            won += 1 / len(result["winners"])
    return won / games


def main(argv: list[str]) -> None:
    games = int(argv[1]) if len(argv) > 1 else 200
    for bots in (False, True):
        print("bots" if bots else "random legal play", f"({games} games per player count)")
        for seats in range(2, 7):
            print(f"  {seats} players: {measure(seats, games, bots).line()}")
    print("one bot among random players: share of games it wins (chance would be 1/players)")
    for seats in range(2, 7):
        print(f"  {seats} players: {100 * bot_win_share(seats, games):3.0f}%")


if __name__ == "__main__":
    main(sys.argv)
