"""Chance of meeting zombies on a path across a settlement.

The settlement is cut into cells of 2 × 2 m (the space one body takes). Each cell holds a
zombie with p = zombies / cells. Walking a path of L m, zombies within the detection radius d
notice you: the corridor is 2d wide and L + 2d long (d of margin at each end), so the number of
cells swept is ⌊2d·(L + 2d) / 4⌋, and the zombies met are Binomial(cells swept, p) — the
rulebook's "throw one die per cell at p %".

Rulebook arithmetic slip (RULES.md R18): for L = 20 m, d = 5 m it writes "(10 m de ancho × 20 m
de largo) + 10 m de margen largo = 210 m²… 420/4 = 52 espacios útiles". Its own words describe a
10 m × (20 + 10) m rectangle = 300 m² → 75 cells; 210 m² and 420/4 agree neither with that nor
with each other. We use the words: 75 cells at 5 m, and 20 × 40 / 4 = 200 cells at 10 m.

Source: RULES.md R18.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from reglas.errors import LABELS, RulesError
from reglas.tables import DEFAULT_ENCOUNTERS, DetectionMode, EncounterTable

__all__ = [
    "CORRIDOR_NOTE",
    "DetectionMode",
    "Encounter",
    "cells",
    "cells_swept",
    "detection_radius",
    "draw_zombies_met",
    "p_cell",
    "roll_encounter",
]


CORRIDOR_NOTE = (
    "Nota (R18): para 20 m a 5 m el reglamento escribe «210 m² … 420/4 = 52 espacios útiles»; "
    "sus propias palabras (10 m de ancho × 20 m de largo + 10 m de margen = 300 m²) dan 75, "
    "y usamos 75."
)
"""The reading we chose for the rulebook's corridor slip, for every place that shows a route
check (the calculator, the master's pages). Source: RULES.md R18."""


def _finite_non_negative(value: float, what: str) -> float:
    if isinstance(value, bool) or not math.isfinite(value) or value < 0:
        raise RulesError(
            "number_negative_given",
            f"{LABELS[what]} debe ser un número de 0 o más (se recibió {value}).",
            what=what,
            value=value,
        )
    return float(value)


def cells(area_m2: float, table: EncounterTable = DEFAULT_ENCOUNTERS) -> int:
    """Number of 2 × 2 m cells in an area: ⌊area / 4 m²⌋.

    ``area_m2`` in m² (≥ 0). Raises RulesError for a negative or non-finite area.
    Example: 100 × 100 m → 2500. Source: RULES.md R18.
    """
    area = _finite_non_negative(area_m2, "area_m2")
    # A tiny epsilon keeps 0.3 × 40 = 11.999999… from losing a cell to float noise.
    return math.floor(area / table.cell_area_m2 + 1e-9)


def p_cell(zombies: int, n_cells: int) -> float:
    """Probability (0..1) that a cell holds a zombie: zombies / cells, capped at 1.

    Raises RulesError if ``n_cells`` is 0 (an area smaller than one cell) or either count is
    negative. Example: 150 zombies in 2500 cells → 0.06. Source: RULES.md R18.
    """
    if zombies < 0:
        raise RulesError(
            "zombies_negative",
            f"El número de zombis no puede ser negativo (se recibió {zombies}).",
            zombies=zombies,
        )
    if n_cells < 0:
        raise RulesError(
            "cells_negative",
            f"El número de espacios útiles no puede ser negativo ({n_cells}).",
            cells=n_cells,
        )
    if n_cells == 0:
        raise RulesError(
            "area_under_one_cell", "El área es menor que un espacio útil (2 × 2 m): no hay celdas."
        )
    return min(1.0, zombies / n_cells)


def detection_radius(mode: DetectionMode, table: EncounterTable = DEFAULT_ENCOUNTERS) -> float:
    """Detection radius in metres: 5 m in normal mode, 10 m aggressive/hunting/chase.

    Source: RULES.md R18.
    """
    return table.radius_m(mode)


def cells_swept(path_m: float, radius_m: float, table: EncounterTable = DEFAULT_ENCOUNTERS) -> int:
    """Cells inside the detection corridor of a path: ⌊2d·(L + 2d) / 4⌋.

    ``path_m`` L in m, ``radius_m`` d in m (both ≥ 0). Raises RulesError for negative values.
    Examples: L 20, d 5 → 75; L 20, d 10 → 200. Source: RULES.md R18.
    """
    length = _finite_non_negative(path_m, "path_m")
    radius = _finite_non_negative(radius_m, "radius_m")
    return cells(2 * radius * (length + 2 * radius), table)


@dataclass(frozen=True, slots=True)
class Encounter:
    """A path across a settlement and the zombies met on it.

    ``area_m2`` (m²) → ``cells``; ``zombies`` there → ``p_cell`` (0..1); ``mode`` →
    ``radius_m`` (m); ``path_m`` (m) → ``cells_swept``; ``zombies_met`` drawn from
    Binomial(``cells_swept``, ``p_cell``), capped at the zombies that exist (``capped`` says
    whether the cap bit; ``drawn`` is the binomial draw before it). Source: RULES.md R18.
    """

    area_m2: float
    cells: int
    zombies: int
    p_cell: float
    mode: DetectionMode
    radius_m: float
    path_m: float
    cells_swept: int
    drawn: int
    zombies_met: int
    capped: bool

    @property
    def p_percent(self) -> float:
        """``p_cell`` as a percentage."""
        return self.p_cell * 100

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "area_m2": self.area_m2,
            "cells": self.cells,
            "zombies": self.zombies,
            "p_cell": self.p_cell,
            "mode": self.mode.value,
            "radius_m": self.radius_m,
            "path_m": self.path_m,
            "cells_swept": self.cells_swept,
            "drawn": self.drawn,
            "zombies_met": self.zombies_met,
            "capped": self.capped,
        }

    def describe(self) -> str:
        """Spanish text: "75 espacios útiles al 6 % → 4 zombis"."""
        cap = f" (se sacaron {self.drawn}, pero solo hay {self.zombies})" if self.capped else ""
        return (
            f"Zona de {_fmt(self.area_m2)} m² = {self.cells} espacios útiles; "
            f"{self.zombies} zombis → p = {_fmt(self.p_percent)} % por espacio. "
            f"Modo {self.mode.value}, detección a {_fmt(self.radius_m)} m; recorrido de "
            f"{_fmt(self.path_m)} m → {self.cells_swept} espacios útiles al "
            f"{_fmt(self.p_percent)} % → {self.zombies_met} zombis encontrados{cap}."
        )


def _fmt(value: float) -> str:
    """A number the Spanish way, without useless decimals (6 → "6", 0.5 → "0,5")."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return text.replace(".", ",")


def draw_zombies_met(
    n_swept: npt.ArrayLike, p: npt.ArrayLike, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """Vectorised draw of zombies met: Binomial(``n_swept``, ``p``) elementwise.

    ``n_swept`` int array (cells swept), ``p`` array or scalar in 0..1; they broadcast.
    Raises RulesError for negative counts or p outside 0..1. Source: RULES.md R18.
    """
    n = np.asarray(n_swept, dtype=np.int64)
    prob = np.asarray(p, dtype=np.float64)
    if np.any(n < 0):
        raise RulesError(
            "cells_walked_negative", "El número de espacios recorridos no puede ser negativo."
        )
    if not np.all(np.isfinite(prob)) or np.any(prob < 0) or np.any(prob > 1):
        raise RulesError(
            "cell_probability_range", "La probabilidad por espacio debe estar entre 0 y 1."
        )
    return np.asarray(rng.binomial(n, prob), dtype=np.int64)


def roll_encounter(
    area_m2: float,
    zombies: int,
    path_m: float,
    mode: DetectionMode | str,
    rng: np.random.Generator,
    table: EncounterTable = DEFAULT_ENCOUNTERS,
) -> Encounter:
    """Zombies met crossing ``path_m`` metres of a settlement of ``area_m2`` m² with ``zombies``.

    ``mode`` is a :class:`DetectionMode` or its name (``normal``/``agresivo``). One binomial
    draw. The result is capped at ``zombies`` (a long path in a small place cannot meet more
    zombies than there are). Raises RulesError for negative values, an area under one cell or
    an unknown mode. Example: 100 × 100 m, 150 zombies, 20 m, normal → 75 cells at 6 %.
    Source: RULES.md R18.
    """
    detection = mode if isinstance(mode, DetectionMode) else DetectionMode.parse(mode)
    n_cells = cells(area_m2, table)
    p = p_cell(zombies, n_cells)
    radius = detection_radius(detection, table)
    swept = cells_swept(path_m, radius, table)
    drawn = int(rng.binomial(swept, p))
    met = min(drawn, zombies)
    return Encounter(
        area_m2=float(area_m2),
        cells=n_cells,
        zombies=zombies,
        p_cell=p,
        mode=detection,
        radius_m=radius,
        path_m=float(path_m),
        cells_swept=swept,
        drawn=drawn,
        zombies_met=met,
        capped=met < drawn,
    )
