"""Income: the most a player's tiles can earn, split into attractions as the rulebook allows.

"To determine the size of your attractions, always choose the distribution of tiles that benefits
you the most." A group of identical adjacent tiles may be cut into several attractions, each a
connected part no larger than the type's maximum size, complete (and paid from the complete table)
exactly at that size. The best cut is found exactly, not greedily: a memoised search over the
subsets that remain, where each step picks the part holding the lowest remaining tile (every
partition has exactly one such part) and remainders that fall apart are solved piece by piece.
A type has at most 10 tiles, so a group is small and the search takes well under a millisecond;
results are cached by the group's shape, which repeats across rounds, seats and bot look-aheads.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache

from rules.waterfall_park.components import COMPLETE_INCOME, INCOMPLETE_INCOME, SIZES

Cell = tuple[int, int]


def part_income(tiles: int, size: int) -> int:
    """Income of one attraction of `tiles` tiles whose maximum size is `size`."""
    if tiles == size:
        return COMPLETE_INCOME[size]
    if 1 <= tiles < size:
        return INCOMPLETE_INCOME[tiles]
    raise ValueError(f"an attraction of maximum size {size} cannot hold {tiles} tiles")


def _neighbours(cell: Cell) -> tuple[Cell, ...]:
    x, y = cell
    return ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))


def groups(cells: Iterable[Cell]) -> list[frozenset[Cell]]:
    """The orthogonally connected groups of `cells`, in a deterministic order."""
    todo = set(cells)
    out: list[frozenset[Cell]] = []
    for start in sorted(todo):
        if start not in todo:
            continue
        todo.discard(start)
        group = {start}
        stack = [start]
        while stack:
            for n in _neighbours(stack.pop()):
                if n in todo:
                    todo.discard(n)
                    group.add(n)
                    stack.append(n)
        out.append(frozenset(group))
    return out


def _normalise(group: frozenset[Cell]) -> frozenset[Cell]:
    mx = min(x for x, _ in group)
    my = min(y for _, y in group)
    return frozenset((x - mx, y - my) for x, y in group)


def best_income(cells: Iterable[Cell], size: int) -> int:
    """The exact best income of one player's tiles of one type, placed on `cells`."""
    return sum(_group_best(_normalise(g), size)[0] for g in groups(cells))


def best_split(cells: Iterable[Cell], size: int) -> list[frozenset[Cell]]:
    """The attractions of a split that earns `best_income`: connected parts of at most `size` tiles.

    The split is what the table shows ("which groups are complete"); among equally paying splits
    the search keeps the first it meets, so the same tiles always show the same split."""
    out: list[frozenset[Cell]] = []
    for g in groups(cells):
        mx = min(x for x, _ in g)
        my = min(y for _, y in g)
        for part in _group_best(_normalise(g), size)[1]:
            out.append(frozenset((x + mx, y + my) for x, y in part))
    return out


@lru_cache(maxsize=1 << 16)
def _group_best(group: frozenset[Cell], size: int) -> tuple[int, tuple[tuple[Cell, ...], ...]]:
    """The best income of one connected group and the parts of a split that earns it."""
    cells = sorted(group)
    index = {c: i for i, c in enumerate(cells)}
    nbr = [0] * len(cells)
    for c, i in index.items():
        for n in _neighbours(c):
            j = index.get(n)
            if j is not None:
                nbr[i] |= 1 << j
    values = [0] + [part_income(k, size) for k in range(1, size + 1)]
    memo: dict[int, int] = {0: 0}
    cut: dict[int, int] = {}  # a mask that falls apart -> the component solved on its own
    take: dict[int, int] = {}  # a connected mask -> the best part holding its lowest tile

    def spread(seed: int, mask: int) -> int:
        """The connected component of `mask` holding the bits of `seed`."""
        comp = seed
        frontier = seed
        while frontier:
            grown = 0
            m = frontier
            while m:
                low = m & -m
                grown |= nbr[low.bit_length() - 1]
                m ^= low
            frontier = grown & mask & ~comp
            comp |= frontier
        return comp

    def parts(start: int, mask: int) -> list[int]:
        """Every connected subset of `mask` that holds bit `start` and has at most `size` tiles."""
        seen = {start}
        stack = [start]
        while stack:
            s = stack.pop()
            if s.bit_count() >= size:
                continue
            grown = 0
            m = s
            while m:
                low = m & -m
                grown |= nbr[low.bit_length() - 1]
                m ^= low
            grown &= mask & ~s
            while grown:
                low = grown & -grown
                grown ^= low
                t = s | low
                if t not in seen:
                    seen.add(t)
                    stack.append(t)
        return sorted(seen)

    def best(mask: int) -> int:
        got = memo.get(mask)
        if got is not None:
            return got
        low = mask & -mask
        comp = spread(low, mask)
        if comp != mask:
            value = best(comp) + best(mask & ~comp)
            cut[mask] = comp
        else:
            value = -1
            for p in parts(low, mask):
                v = values[p.bit_count()] + best(mask & ~p)
                if v > value:
                    value, take[mask] = v, p
        memo[mask] = value
        return value

    full = (1 << len(cells)) - 1
    total = best(full)
    split: list[tuple[Cell, ...]] = []
    todo = [full]
    while todo:
        mask = todo.pop()
        if not mask:
            continue
        if mask in cut:
            todo += [cut[mask], mask & ~cut[mask]]
            continue
        part = take[mask]
        split.append(tuple(c for i, c in enumerate(cells) if part >> i & 1))
        todo.append(mask & ~part)
    return total, tuple(sorted(split))


def player_income(built: Mapping[Cell, str]) -> int:
    """A player's income from its built tiles, given as cell -> attraction."""
    by_type: dict[str, list[Cell]] = {}
    for cell, name in built.items():
        by_type.setdefault(name, []).append(cell)
    return sum(best_income(cells, SIZES[name]) for name, cells in sorted(by_type.items()))
