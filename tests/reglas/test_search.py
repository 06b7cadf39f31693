"""Weapon search. Source: RULES.md R22."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from reglas.core import make_rng
from reglas.search import roll_search

from .world_helpers import ScriptedRng

TRIALS = 18_000


@pytest.fixture(scope="module")
def results() -> list:
    rng = make_rng(22, (1,))
    return [roll_search(rng) for _ in range(TRIALS)]


def test_utensils_roll_nothing_more() -> None:
    result = roll_search(ScriptedRng([1]))
    assert (result.kind, result.subtype, result.quantity) == ("utensils", None, None)
    assert result.dice == (1,)
    assert "sin límite" in result.describe()


@pytest.mark.parametrize(
    ("faces", "kind", "subtype", "quantity_faces"),
    [
        ([2, 1, 6], "pseudo_weapons", "construction_tools", 6),
        ([2, 2, 1], "pseudo_weapons", "sports_gear", 6),
        ([2, 3, 4], "pseudo_weapons", "kitchen_utensils", 6),
        ([3, 1, 3], "weapons", "blades", 3),
        ([3, 2, 1], "weapons", "one_handed_firearms", 3),
        ([3, 3, 2], "weapons", "two_handed_firearms", 3),
    ],
)
def test_every_cell_of_the_table(
    faces: list[int], kind: str, subtype: str, quantity_faces: int
) -> None:
    result = roll_search(ScriptedRng(faces))
    assert (result.kind, result.subtype) == (kind, subtype)
    assert result.quantity_faces == quantity_faces
    assert result.quantity == faces[2]
    assert result.dice == tuple(faces)
    assert result.kind_faces == 3 and result.subtype_faces == 3
    assert result.subtype_label and result.kind_label  # Spanish labels are there
    text = result.describe()
    assert all(str(f) in text for f in faces)


def test_nine_cells_of_1d3_by_1d3_are_one_ninth_each(results: list) -> None:
    # Utensils take the three cells of kind 1 (no subtype rolled), so 3/9; the other six
    # (kind, subtype) cells 1/9 each. Chi-square with 6 degrees of freedom: the 0.1 % critical
    # value is 22.46; each cell is also held within 4σ.
    counts = Counter((r.kind, r.subtype) for r in results)
    expected = {("utensils", None): 3 / 9}
    for kind in ("pseudo_weapons", "weapons"):
        for sub in {r.subtype for r in results if r.kind == kind}:
            expected[(kind, sub)] = 1 / 9
    assert len(expected) == 7
    assert set(counts) == set(expected)
    chi2 = sum((counts[c] - TRIALS * p) ** 2 / (TRIALS * p) for c, p in expected.items())
    assert chi2 < 22.46
    for cell, p in expected.items():
        assert abs(counts[cell] - TRIALS * p) < 4 * math.sqrt(TRIALS * p * (1 - p))
    # And the kind die alone: each kind 1/3.
    kinds = Counter(r.kind_die for r in results)
    for face in (1, 2, 3):
        assert abs(kinds[face] - TRIALS / 3) < 4 * math.sqrt(TRIALS * (1 / 3) * (2 / 3))


@pytest.mark.parametrize(("kind", "faces"), [("pseudo_weapons", 6), ("weapons", 3)])
def test_quantities_are_uniform(results: list, kind: str, faces: int) -> None:
    quantities = Counter(r.quantity for r in results if r.kind == kind)
    n = sum(quantities.values())
    assert set(quantities) == set(range(1, faces + 1))
    p = 1 / faces
    for value in range(1, faces + 1):
        assert abs(quantities[value] - n * p) < 4 * math.sqrt(n * p * (1 - p))
