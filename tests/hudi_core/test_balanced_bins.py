"""`hudi_core.parallel.balanced_bins`: items of known cost spread over a fixed number of tasks."""

from __future__ import annotations

from hudi_core.parallel import balanced_bins


def _totals(costs: dict[str, int], assigned: dict[str, int], bins: int) -> list[int]:
    totals = [0] * bins
    for item, number in assigned.items():
        totals[number] += costs[item]
    return totals


def test_equal_items_fill_every_bin_equally() -> None:
    costs = {f"city_{i:02d}": 100 for i in range(20)}
    assigned = balanced_bins(costs, 4)
    assert set(assigned) == set(costs)
    assert _totals(costs, assigned, 4) == [500] * 4


def test_costliest_items_first_each_to_the_lightest_bin() -> None:
    costs = {"a": 7, "b": 6, "c": 5, "d": 4, "e": 3, "f": 2}
    assigned = balanced_bins(costs, 2)
    # a, b open the bins; c joins b (6), d joins a (7), e joins the tie's lower bin, f the other.
    assert assigned == {"a": 0, "b": 1, "c": 1, "d": 0, "e": 0, "f": 1}
    assert _totals(costs, assigned, 2) == [14, 13]


def test_skewed_items_keep_the_largest_alone() -> None:
    costs = {"big": 90, **{f"small_{i}": 10 for i in range(9)}}
    assigned = balanced_bins(costs, 2)
    assert [item for item, number in assigned.items() if number == assigned["big"]] == ["big"]
    assert sorted(_totals(costs, assigned, 2)) == [90, 90]


def test_more_bins_than_items_and_degenerate_counts() -> None:
    assert balanced_bins({"a": 1, "b": 1}, 8) == {"a": 0, "b": 1}
    assert balanced_bins({"a": 1, "b": 1}, 0) == {"a": 0, "b": 0}
    assert balanced_bins({}, 3) == {}


def test_the_same_costs_give_the_same_assignment() -> None:
    costs = {f"p{i}": (i * 37) % 11 for i in range(50)}
    assert balanced_bins(costs, 7) == balanced_bins(dict(costs), 7)
