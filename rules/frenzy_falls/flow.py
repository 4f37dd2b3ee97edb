"""How a round of Frenzy Falls runs: playing cards, the reveal machine, spillovers, round end.

The reveal is a loop that runs by itself until a player must choose (a PROXY's replacement, a
BUMP's side, a PULL's card, the card a spillover moves); it then parks a `Pending` and returns,
and the chosen action resumes it. Why the loop ends: a card's action fires only as the card
turns face up, cards only turn face up (PROXY replacements come up face up), and every
spillover puts its Score card in a player's stack for good; each pass over the Pools either
reveals a card or spills a Pool, or it is the last one. So a round's reveal takes at most
(face-down cards + Score cards + 1) passes, however the cascades loop.
"""
from __future__ import annotations

import random

from rules.frenzy_falls.components import (
    BUMP,
    FALLS,
    HAND_SIZE,
    PROXY,
    PULL,
    SCORE_CARDS,
    SCORE_DECK_SIZE,
    SPILL_AT,
    WATERFALL_DECK,
    face_id,
    plays_per_round,
    pool_count,
    score_id,
)
from rules.frenzy_falls.state import Pending, Player, Pool, PoolCard, Spill, State


def shown_id(pc: PoolCard) -> int | None:
    """A pool card's kind as every viewer may see it: None for a face-down card (its back only)."""
    return face_id(pc.card) if pc.up else None


# --- setup -----------------------------------------------------------------------------------

def setup(seats: int, seed: int) -> State:
    rng = random.Random(seed)
    score_deck = list(SCORE_CARDS)
    rng.shuffle(score_deck)
    score_deck = score_deck[: SCORE_DECK_SIZE[seats]]
    pools = [Pool(score_deck.pop(0)) for _ in range(pool_count(seats))]
    players = []
    for seat in range(seats):
        deck = list(WATERFALL_DECK)
        rng.shuffle(deck)
        players.append(Player(FALLS[seat], deck))
    # The rulebook gives the First Player card to whoever went swimming last; a table of
    # strangers has no such fact, so the seeded RNG picks (seat 0 is just the room's creator).
    first = rng.randrange(seats)
    state = State(seats, rng, players, pools, score_deck, first)
    for seat in range(seats):
        draw_up(state, seat)
    state.note("begins", first)
    start_round(state)
    return state


def draw_up(state: State, seat: int) -> int:
    """Draw to a full hand, reshuffling the player's own discards when their deck runs out."""
    player = state.players[seat]
    drawn = 0
    while len(player.hand) < HAND_SIZE:
        if not player.deck:
            if not player.discard:
                break
            player.deck = player.discard
            player.discard = []
            state.rng.shuffle(player.deck)
            state.note("reshuffles", seat)
        player.hand.append(player.deck.pop())
        drawn += 1
    return drawn


# --- playing cards ---------------------------------------------------------------------------

def start_round(state: State) -> None:
    n = state.seats
    state.turns = [(state.first + k) % n for _ in range(plays_per_round(n)) for k in range(n)]
    state.spills_by_round.append(0)
    state.note("round", state.round, state.first)
    next_turn(state)


def next_turn(state: State) -> None:
    """Pass the turn on; a player with an empty hand has nothing to play and is passed over."""
    while state.turns and not state.players[state.turns[0]].hand:
        seat = state.turns.pop(0)
        state.note("no_card", seat)
    if state.turns:
        state.phase = "play"
        return
    state.cursor = 0
    state.passes = 1
    state.note("reveal_begins")
    advance(state)


def play(state: State, seat: int, hand_index: int, pool: int) -> None:
    card = state.players[seat].hand.pop(hand_index)
    state.pools[pool].cards.append(PoolCard(seat, card, up=False))
    state.turns.pop(0)
    state.note("plays", seat, pool)
    next_turn(state)


# --- the reveal machine ----------------------------------------------------------------------

def advance(state: State) -> None:
    """Reveal, resolve and spill until a player must choose or every Pool is settled."""
    while state.pending is None:
        if state.spill is not None:
            continue_spill(state)
            continue
        if state.cursor >= len(state.pools):
            if not unsettled(state):
                end_reveal(state)
                return
            state.cursor = 0
            state.passes += 1
            state.note("pass", state.passes)
            continue
        pool = state.pools[state.cursor]
        down = next((i for i, pc in enumerate(pool.cards) if not pc.up), None)
        if down is not None:
            reveal(state, state.cursor, down)
            continue
        if pool.score is not None and pool.water() >= SPILL_AT:
            start_spill(state, state.cursor)
            continue
        state.cursor += 1
    state.phase = state.pending.kind


def unsettled(state: State) -> bool:
    """Whether another pass is needed: a card still face down, or a Pool at 10 or more."""
    for pool in state.pools:
        if any(not pc.up for pc in pool.cards):
            return True
        if pool.score is not None and pool.water() >= SPILL_AT:
            return True
    return False


def below(state: State, pool: int) -> int | None:
    """The Pool below, looping from the bottom to the top, skipping Pools without a Score card.

    None when no other Pool has a Score card (only possible once the game's end is triggered).
    """
    # chosen here: the rulebook skips Pools without a Score card only "when cascading cards from
    # spillovers"; a BUMP after the end is triggered skips them too (docs/frenzy_falls.md, Readings).
    n = len(state.pools)
    for step in range(1, n):
        target = (pool + step) % n
        if state.pools[target].score is not None:
            return target
    return None


def reveal(state: State, pool: int, pos: int) -> None:
    pc = state.pools[pool].cards[pos]
    pc.up = True
    state.note("reveals", pool, pc.seat, face_id(pc.card))
    resolve(state, pool, pos)


def resolve(state: State, pool: int, pos: int) -> None:
    """Resolve the action of the card that just came face up, or park the owner's choice."""
    pc = state.pools[pool].cards[pos]
    action, seat = pc.card.action, pc.seat
    if action == PROXY:
        hand = state.players[seat].hand
        if not hand:
            # chosen here: the rulebook does not say what a PROXY does with an empty hand; it stays,
            # face up, with its own water and influence (docs/frenzy_falls.md, Readings).
            state.note("proxy_stays", seat)
        elif len(hand) == 1:
            do_proxy(state, pool, pos, 0)
        else:
            state.pending = Pending("proxy", seat, pool, pos)
    elif action == BUMP:
        sides = bump_sides(state, pool, pos)
        if not sides:
            state.note("bump_nothing")
        elif len(sides) == 1:
            do_bump(state, pool, pos, sides[0])
        else:
            state.pending = Pending("bump", seat, pool, pos)
    elif action == PULL:
        options = pull_options(state, pool)
        if not options:
            state.note("pull_nothing")
        elif len(options) == 1:
            do_pull(state, pool, *options[0])
        else:
            state.pending = Pending("pull", seat, pool, pos)


def do_proxy(state: State, pool: int, pos: int, hand_index: int) -> None:
    pc = state.pools[pool].cards[pos]
    player = state.players[pc.seat]
    player.discard.append(pc.card)
    card = player.hand.pop(hand_index)
    state.pools[pool].cards[pos] = PoolCard(pc.seat, card, up=True)
    state.note("proxy", pc.seat, face_id(card))
    resolve(state, pool, pos)


def bump_sides(state: State, pool: int, pos: int) -> list[str]:
    if below(state, pool) is None:
        return []
    sides = []
    if pos > 0:
        sides.append("left")
    if pos + 1 < len(state.pools[pool].cards):
        sides.append("right")
    return sides


def do_bump(state: State, pool: int, pos: int, side: str) -> None:
    target = below(state, pool)
    assert target is not None
    moved = state.pools[pool].cards.pop(pos - 1 if side == "left" else pos + 1)
    state.pools[target].cards.append(moved)
    state.note("bump", moved.seat, shown_id(moved), target)


def pull_options(state: State, pool: int) -> list[tuple[int, int]]:
    return [(p, i) for p, other in enumerate(state.pools) if p != pool for i in range(len(other.cards))]


def do_pull(state: State, pool: int, source: int, pos: int) -> None:
    moved = state.pools[source].cards.pop(pos)
    state.pools[pool].cards.append(moved)
    state.note("pull", moved.seat, shown_id(moved), source, pool)


# --- spillovers ------------------------------------------------------------------------------

def influence(pool: Pool) -> dict[int, int]:
    """Influence per player with cards in the Pool, in the order of their earliest card."""
    out: dict[int, int] = {}
    for pc in pool.cards:
        out[pc.seat] = out.get(pc.seat, 0) + pc.card.influence
    return out


def start_spill(state: State, index: int) -> None:
    """Steps 1 and 2 of a spillover: the Score card to the winner, the winner's cards discarded."""
    pool = state.pools[index]
    assert pool.score is not None
    totals = influence(pool)
    best = max(totals.values())
    # Ties go to the tied player whose card lies earliest; dicts keep that order.
    winner = next(seat for seat, value in totals.items() if value == best)
    won = pool.score
    state.players[winner].won.append(won)
    state.spills_by_round[-1] += 1
    state.note("spills", index, pool.water(), winner, score_id(won), best)
    if state.score_deck:
        pool.score = state.score_deck.pop(0)
        state.note("new_score", index, score_id(pool.score))
    else:
        pool.score = None
        if not state.end_triggered:
            state.note("last_round")
        state.end_triggered = True
    mine = [pc for pc in pool.cards if pc.seat == winner]
    state.players[winner].discard.extend(pc.card for pc in mine)
    pool.cards = [pc for pc in pool.cards if pc.seat != winner]
    if mine:
        state.note("winner_discards", winner, len(mine), index)
    state.spill = Spill(index, winner, [seat for seat in totals if seat != winner])


def spill_options(state: State, seat: int) -> list[int]:
    assert state.spill is not None
    return [i for i, pc in enumerate(state.pools[state.spill.pool].cards) if pc.seat == seat]


def continue_spill(state: State) -> None:
    """Step 3 one mover at a time (a choice only where their cards differ), then step 4."""
    spill = state.spill
    assert spill is not None
    while spill.movers:
        seat = spill.movers[0]
        options = spill_options(state, seat)
        cards = state.pools[spill.pool].cards
        if len({cards[i].card for i in options}) > 1:
            state.pending = Pending("spill", seat, spill.pool)
            return
        do_spill_move(state, options[0])
    pool = state.pools[spill.pool]
    for pc in pool.cards:
        state.players[pc.seat].discard.append(pc.card)
    if pool.cards:
        n = len(pool.cards)
        state.note("rest_discarded", n, spill.pool)
    pool.cards = []
    state.spill = None
    state.cursor = spill.pool + 1


def do_spill_move(state: State, pos: int) -> None:
    spill = state.spill
    assert spill is not None
    seat = spill.movers.pop(0)
    target = below(state, spill.pool)
    moved = state.pools[spill.pool].cards.pop(pos)
    if target is None:
        state.players[seat].discard.append(moved.card)
        state.note("cascade_discards", seat, face_id(moved.card))
        return
    state.pools[target].cards.append(moved)
    state.note("cascade", seat, face_id(moved.card), target)


# --- round end and game end ------------------------------------------------------------------

def end_reveal(state: State) -> None:
    state.pending = None
    if state.end_triggered:
        finish(state)
        return
    state.phase = "discard"
    state.discards = {}
    for seat, player in enumerate(state.players):
        if not player.hand:
            state.discards[seat] = []
    state.note("round_ends", state.round, HAND_SIZE)
    if len(state.discards) == state.seats:
        end_round(state)


def choose_discards(state: State, seat: int, indices: list[int]) -> None:
    state.discards[seat] = sorted(indices)
    if len(state.discards) == state.seats:
        end_round(state)


def end_round(state: State) -> None:
    for seat in range(state.seats):
        player = state.players[seat]
        chosen = set(state.discards.get(seat, []))
        player.discard.extend(c for i, c in enumerate(player.hand) if i in chosen)
        player.hand = [c for i, c in enumerate(player.hand) if i not in chosen]
        drawn = draw_up(state, seat)
        state.note("refills", seat, len(chosen), drawn)
    state.discards = {}
    state.first = (state.first + 1) % state.seats
    state.round += 1
    start_round(state)


def finish(state: State) -> None:
    """Most points wins; then most Score cards; a tie after that is a shared victory."""
    state.phase = "over"
    state.turns = []
    points = [p.points() for p in state.players]
    counts = [len(p.won) for p in state.players]
    best = max(zip(points, counts, strict=True))
    winners = [s for s in range(state.seats) if (points[s], counts[s]) == best]
    state.result = {"winners": winners, "scores": points, "score_cards": counts}
    state.note("over", state.round, list(winners))
