"""Encounters with zombies. Source: RULES.md R18."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reglas.core import make_rng
from reglas.encounters import (
    DetectionMode,
    cells,
    cells_swept,
    detection_radius,
    draw_zombies_met,
    p_cell,
    roll_encounter,
)
from reglas.errors import RulesError


def test_rulebook_example_cells_and_probability() -> None:
    assert cells(100 * 100) == 2500
    assert p_cell(150, 2500) == pytest.approx(0.06)


def test_cells_round_down_and_edge_cases() -> None:
    assert cells(7.9) == 1
    assert cells(3.99) == 0
    assert cells(0) == 0
    assert cells(0.3 * 40) == 3  # 11.999… of float noise must still give ⌊12/4⌋
    with pytest.raises(RulesError):
        cells(-4)


def test_p_cell_is_capped_and_zero_cells_raise() -> None:
    assert p_cell(300, 100) == 1.0
    assert p_cell(0, 100) == 0.0
    with pytest.raises(RulesError):
        p_cell(5, 0)
    with pytest.raises(RulesError):
        p_cell(-1, 10)


def test_detection_radius() -> None:
    assert detection_radius(DetectionMode.NORMAL) == 5
    assert detection_radius(DetectionMode.AGGRESSIVE) == 10


def test_cells_swept_uses_the_rulebook_words_not_its_arithmetic() -> None:
    # "(10 m de ancho * 20 m de largo) + 10 m de margen largo": 10 × 30 = 300 m² → 75 cells.
    # The rulebook prints 210 m² and 420/4 = 52; see RULES.md R18.
    assert cells_swept(20, 5) == 75
    assert cells_swept(20, 5) != 52
    assert cells_swept(20, 10) == 200
    assert cells_swept(0, 5) == 25  # standing still still watches a 10 × 10 m square
    with pytest.raises(RulesError):
        cells_swept(-1, 5)


def test_roll_encounter_example() -> None:
    enc = roll_encounter(100 * 100, 150, 20, "normal", make_rng(7, (18,)))
    assert (enc.cells, enc.cells_swept, enc.radius_m) == (2500, 75, 5)
    assert enc.p_cell == pytest.approx(0.06)
    assert 0 <= enc.zombies_met <= 75
    assert "75 espacios útiles al 6 %" in enc.describe()
    aggressive = roll_encounter(100 * 100, 150, 20, DetectionMode.AGGRESSIVE, make_rng(7))
    assert aggressive.cells_swept == 200
    assert aggressive.as_dict()["mode"] == "agresivo"


def test_roll_encounter_errors() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(RulesError):
        roll_encounter(3, 1, 20, "normal", rng)
    with pytest.raises(RulesError):
        roll_encounter(100, 1, 20, "sigiloso", rng)
    with pytest.raises(RulesError):
        roll_encounter(100, -1, 20, "normal", rng)


def test_zombies_met_never_exceed_the_zombies_there() -> None:
    # 25 cells full of zombies, a 100 m path sweeps 275 cells: at most the 25 zombies.
    enc = roll_encounter(100, 25, 100, "normal", make_rng(1))
    assert enc.p_cell == 1.0 and enc.cells_swept == 275
    assert enc.drawn == 275 and enc.zombies_met == 25 and enc.capped


@pytest.mark.parametrize(("n", "p"), [(75, 0.06), (200, 0.06), (52, 0.5), (10, 0.0)])
def test_binomial_mean_matches_n_p(n: int, p: float) -> None:
    trials = 20_000
    met = draw_zombies_met(np.full(trials, n), p, make_rng(3, (n,)))
    sigma = math.sqrt(n * p * (1 - p) / trials)
    assert abs(met.mean() - n * p) <= 4 * sigma + 1e-12
    assert met.min() >= 0 and met.max() <= n


def test_draw_validation() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(RulesError):
        draw_zombies_met([-1], 0.5, rng)
    with pytest.raises(RulesError):
        draw_zombies_met([1], 1.5, rng)
