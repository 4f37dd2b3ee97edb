"""How a Symbiose Pond scores: fixed cards wherever they lie, a conditional card by the matching
cards of the board its column faces; and who wins (ties share the victory)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules.symbiose.components import COLUMNS, DECK, RIVER, Card, Target, neighbours
from rules.symbiose.state import State, SymbioseResult


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


def score(ponds: Sequence[Sequence[int]], river: Sequence[int], mode: str) -> list[list[int]]:
    """Points of every slot of every Pond, all cards face up."""
    boards: dict[Target, list[Card | None]] = {s: [DECK[c] for c in p] for s, p in enumerate(ponds)}
    boards[RIVER] = [DECK[c] for c in river]
    sides = neighbours(len(ponds), mode)
    return [slot_scores(boards, s, sides[s]) for s in range(len(ponds))]


def showing(state: State) -> list[int]:
    """Each seat's points as the table shows them now: face-up cards scored where they lie, a
    face-down card as nothing (its face is hidden from everyone, so this says nothing hidden)."""
    boards: dict[Target, list[Card | None]] = {
        s: [DECK[c] if up else None for c, up in zip(p, ups, strict=True)]
        for s, (p, ups) in enumerate(zip(state.ponds, state.up, strict=True))}
    boards[RIVER] = [DECK[c] if up else None for c, up in zip(state.river, state.river_up, strict=True)]
    sides = neighbours(state.seats, state.mode)
    return [sum(slot_scores(boards, s, sides[s])) for s in range(state.seats)]


def outcome(scores: list[int], mode: str) -> SymbioseResult:
    """Ties share the victory: the rulebook names no tie-breaker."""
    if mode == "team":
        teams = [scores[0] + scores[2], scores[1] + scores[3]]
        best = max(teams)
        winners = [s for s in range(4) if teams[s % 2] == best]
        return {"winners": winners, "scores": list(scores), "teams": teams}
    best = max(scores)
    return {"winners": [s for s, v in enumerate(scores) if v == best], "scores": list(scores)}
