"""Waterfall Park income: the rulebook's examples, hand-made shapes, and exactness against brute force."""
from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.waterfall_park.components import (
    CIRCUS,
    GHOST_TRAIN,
    GIFT_SHOP,
    ICE_CREAM_STAND,
    SIZES,
    THEATER,
)
from rules.waterfall_park.income import Cell, best_income, best_split, groups, part_income, player_income


def line(n: int, y: int = 0) -> list[Cell]:
    return [(x, y) for x in range(n)]


def block(w: int, h: int) -> list[Cell]:
    return [(x, y) for x in range(w) for y in range(h)]


def test_income_tables() -> None:
    assert [part_income(k, 5) for k in range(1, 5)] == [1, 3, 5, 7]
    assert [part_income(k, k) for k in (3, 4, 5)] == [6, 9, 12]
    assert part_income(3, 4) == 5 and part_income(4, 5) == 7


def test_rulebook_income_examples() -> None:
    # Blue receives 3 coins for their Circus of size 2 (incomplete).
    assert best_income(line(2), SIZES[CIRCUS]) == 3
    # Yellow receives 6 coins for their Gift Shop of size 3 (complete).
    assert best_income(line(3), SIZES[GIFT_SHOP]) == 6


def test_rulebook_construction_example_two_adjacent_ice_cream_stands() -> None:
    # Red constructs 2 adjacent Ice Cream Stands: 1 of size 3 (complete) and 1 of size 2 (incomplete).
    assert SIZES[ICE_CREAM_STAND] == 3
    assert best_income(line(5), SIZES[ICE_CREAM_STAND]) == 6 + 3


def test_rulebook_reshaping_example() -> None:
    # Round 2: a complete Ice Cream Stand of size 3 earns 6. Round 3: two more tiles are added and the
    # group is reshaped into 1 complete and 1 incomplete of size 2: 6 + 3 = 9.
    round2 = [(0, 0), (1, 0), (1, 1)]
    assert player_income({c: ICE_CREAM_STAND for c in round2}) == 6
    round3 = [*round2, (2, 1), (2, 0)]  # one complete of 3 and one incomplete of 2
    assert player_income({c: ICE_CREAM_STAND for c in round3}) == 9


def test_a_line() -> None:
    assert best_income(line(4), 4) == 9
    assert best_income(line(4), 3) == 6 + 1
    assert best_income(line(7), 3) == 6 + 6 + 1
    assert best_income(line(6), 5) == 12 + 1
    assert best_income(line(8), 5) == 12 + 5  # 5 + 3 beats 4 + 4 (7 + 7)


def test_an_l() -> None:
    ell = [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)]
    assert best_income(ell, 5) == 12
    assert best_income(ell, 4) == 9 + 1
    assert best_income(ell, 3) == 6 + 3


def test_a_2x3_block() -> None:
    assert best_income(block(2, 3), 3) == 12  # two complete trominoes
    assert best_income(block(2, 3), 4) == 9 + 3
    assert best_income(block(2, 3), 5) == 12 + 1


def test_a_plus_where_parts_must_stay_connected() -> None:
    plus = [(1, 0), (0, 1), (1, 1), (2, 1), (1, 2)]
    assert best_income(plus, 4) == 9 + 1  # the T holds the centre; the last arm stands alone
    assert best_income(plus, 3) == 6 + 1 + 1  # only one tromino can use the centre


def test_a_group_larger_than_two_attractions() -> None:
    assert best_income(block(3, 3), 3) == 18  # three complete Gift Shops
    assert best_income(block(3, 4), 4) == 27
    assert best_income(block(4, 5), 5) == 48
    assert best_income(line(11), 5) == 12 + 12 + 1


def test_owners_and_types_keep_attractions_apart() -> None:
    mixed = {(0, 0): THEATER, (1, 0): THEATER, (2, 0): GHOST_TRAIN, (3, 0): THEATER}
    assert player_income(mixed) == 3 + 1 + 1
    found = groups([(0, 0), (2, 0), (1, 0), (5, 5)])
    assert found == [frozenset({(0, 0), (1, 0), (2, 0)}), frozenset({(5, 5)})]


def partitions(items: list[Cell]) -> Iterator[list[list[Cell]]]:
    """Every set partition of `items` (Bell-number many)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for p in partitions(rest):
        yield [[first], *p]
        for i in range(len(p)):
            yield [*p[:i], [first, *p[i]], *p[i + 1 :]]


def connected(part: list[Cell]) -> bool:
    return len(groups(part)) == 1


def brute_force(cells: list[Cell], size: int) -> int:
    return max(
        sum(part_income(len(p), size) for p in partition)
        for partition in partitions(cells)
        if all(len(p) <= size and connected(p) for p in partition)
    )


shapes = st.sets(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(cells=shapes, size=st.sampled_from([3, 4, 5]))
def test_optimum_is_exact_against_brute_force(cells: set[Cell], size: int) -> None:
    ordered = sorted(cells)
    assert best_income(ordered, size) == brute_force(ordered, size)


def test_brute_force_on_every_connected_shape_of_a_3x3() -> None:
    cells = block(3, 3)
    for mask in range(1, 1 << 9):
        chosen = [c for i, c in enumerate(cells) if mask >> i & 1]
        if len(chosen) <= 6 and connected(chosen):
            for size in (3, 4, 5):
                assert best_income(chosen, size) == brute_force(chosen, size), (chosen, size)


def assert_split_is_the_best(cells: list[Cell], size: int) -> list[frozenset[Cell]]:
    """The split the view shows: connected attractions of at most `size` tiles, covering every tile
    once, paying exactly the best income."""
    split = best_split(cells, size)
    assert sorted(c for part in split for c in part) == sorted(cells)
    assert all(1 <= len(part) <= size and connected(list(part)) for part in split)
    assert sum(part_income(len(part), size) for part in split) == best_income(cells, size)
    assert best_split(list(reversed(cells)), size) == split, "the same tiles show the same split"
    return split


@settings(max_examples=150, deadline=None)
@given(cells=shapes, size=st.sampled_from([3, 4, 5]), dx=st.integers(0, 10), dy=st.integers(0, 5))
def test_the_split_shown_earns_the_best_income(cells: set[Cell], size: int, dx: int, dy: int) -> None:
    assert_split_is_the_best(sorted((x + dx, y + dy) for x, y in cells), size)


def test_the_split_of_the_rulebook_examples() -> None:
    # "Red constructs 2 adjacent Ice Cream Stands: 1 of size 3 (complete) and 1 of size 2 (incomplete)."
    split = assert_split_is_the_best(line(5, y=3), SIZES[ICE_CREAM_STAND])
    assert sorted(len(p) for p in split) == [2, 3]
    # Ten Theater tiles in a 5 x 2 block: two complete Theaters.
    split = assert_split_is_the_best(block(5, 2), SIZES[THEATER])
    assert sorted(len(p) for p in split) == [5, 5]
