"""Power and water grids: each day, while on, each is cut with probability = day number (%).

Source: RULES.md R16.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from reglas.core import clamp_threshold
from reglas.errors import RulesError

__all__ = [
    "UtilitiesRoll",
    "UtilitiesRolls",
    "cut_probability",
    "roll_utilities",
    "roll_utilities_many",
]


def cut_probability(day: int) -> int:
    """Probability (%) that a grid still on is cut on in-game ``day``: the day number, 0..100.

    Raises RulesError for a negative day. Source: RULES.md R16 (day 10 → 10 %).
    """
    if day < 0:
        raise RulesError(
            "day_negative_given", f"El día no puede ser negativo (se recibió {day}).", day=day
        )
    return clamp_threshold(day)


@dataclass(frozen=True, slots=True)
class UtilitiesRoll:
    """One grid's day: the probability (%), each die (None when that supply was already cut
    and nothing was rolled), whether each was cut today, and the state after the roll.

    Source: RULES.md R16.
    """

    day: int
    probability: int
    power_die: int | None
    water_die: int | None
    power_cut_today: bool
    water_cut_today: bool
    power_on: bool
    water_on: bool

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "day": self.day,
            "probability": self.probability,
            "power_die": self.power_die,
            "water_die": self.water_die,
            "power_cut_today": self.power_cut_today,
            "water_cut_today": self.water_cut_today,
            "power_on": self.power_on,
            "water_on": self.water_on,
        }

    def describe(self) -> str:
        """Spanish text with the dice."""

        def one(name: str, die: int | None, cut: bool) -> str:
            if die is None:
                return f"{name}: ya estaba cortada"
            verdict = "se corta" if cut else "sigue"
            return f"{name}: d100 = {die} → {verdict}"

        return (
            f"Día {self.day}, probabilidad de corte {self.probability} %. "
            f"{one('Luz', self.power_die, self.power_cut_today)}; "
            f"{one('Agua', self.water_die, self.water_cut_today)}."
        )


def roll_utilities(
    day: int, power_on: bool, water_on: bool, rng: np.random.Generator
) -> UtilitiesRoll:
    """Roll one grid's power and water for ``day``.

    Each supply still on rolls its own d100 (power first, then water) and is cut if the die
    ≤ the day number (clamped to 100: day 0 never cuts, day ≥ 100 always does). A supply
    already cut stays cut and rolls nothing (only the master restores it).
    Raises RulesError for a negative day. Source: RULES.md R16.
    """
    probability = cut_probability(day)
    power_die = int(rng.integers(1, 101)) if power_on else None
    water_die = int(rng.integers(1, 101)) if water_on else None
    power_cut = power_die is not None and power_die <= probability
    water_cut = water_die is not None and water_die <= probability
    return UtilitiesRoll(
        day=day,
        probability=probability,
        power_die=power_die,
        water_die=water_die,
        power_cut_today=power_cut,
        water_cut_today=water_cut,
        power_on=power_on and not power_cut,
        water_on=water_on and not water_cut,
    )


@dataclass(frozen=True, slots=True)
class UtilitiesRolls:
    """Many grids at once (arrays of shape ``(n,)``).

    Dice are int arrays with 0 where the supply was already cut (nothing rolled); ``day`` is the
    in-game day and ``probability`` the cut probability (%) of each grid. Source: RULES.md R16.
    """

    day: npt.NDArray[np.int64]
    probability: npt.NDArray[np.int64]
    power_die: npt.NDArray[np.int64]
    water_die: npt.NDArray[np.int64]
    power_cut_today: npt.NDArray[np.bool_]
    water_cut_today: npt.NDArray[np.bool_]
    power_on: npt.NDArray[np.bool_]
    water_on: npt.NDArray[np.bool_]

    def __len__(self) -> int:
        return int(self.power_on.shape[0])

    def row(self, i: int) -> UtilitiesRoll:
        """Grid ``i`` as a :class:`UtilitiesRoll`."""
        power_die = int(self.power_die[i])
        water_die = int(self.water_die[i])
        return UtilitiesRoll(
            day=int(self.day[i]),
            probability=int(self.probability[i]),
            power_die=power_die or None,
            water_die=water_die or None,
            power_cut_today=bool(self.power_cut_today[i]),
            water_cut_today=bool(self.water_cut_today[i]),
            power_on=bool(self.power_on[i]),
            water_on=bool(self.water_on[i]),
        )


def roll_utilities_many(
    day: int | npt.ArrayLike,
    power_on: npt.ArrayLike,
    water_on: npt.ArrayLike,
    rng: np.random.Generator,
) -> UtilitiesRolls:
    """Vectorised :func:`roll_utilities` over ``n`` grids.

    ``power_on`` and ``water_on`` are boolean arrays of shape ``(n,)``; ``day`` a scalar or an
    int array broadcastable to ``(n,)``. Draws one ``(2, n)`` block of d100 (row 0 power,
    row 1 water); dice of supplies already cut are reported as 0 and ignored.
    Raises RulesError for a negative day or mismatched shapes. Source: RULES.md R16.
    """
    power = np.atleast_1d(np.asarray(power_on, dtype=bool))
    water = np.atleast_1d(np.asarray(water_on, dtype=bool))
    if power.ndim != 1 or power.shape != water.shape:
        raise RulesError(
            "utilities_lengths", "power_on y water_on deben ser listas de la misma longitud."
        )
    days = np.asarray(day, dtype=np.int64)
    if np.any(days < 0):
        raise RulesError("day_negative", "El día no puede ser negativo.")
    try:
        days = np.broadcast_to(days, power.shape).astype(np.int64)
    except ValueError as exc:
        raise RulesError(
            "day_shape", "El día debe ser un número o una lista tan larga como la de redes."
        ) from exc
    probability = np.clip(days, 0, 100)
    dice = rng.integers(1, 101, size=(2, power.shape[0]), dtype=np.int64)
    power_die = np.where(power, dice[0], 0)
    water_die = np.where(water, dice[1], 0)
    power_cut = power & (power_die <= probability)
    water_cut = water & (water_die <= probability)
    return UtilitiesRolls(
        day=days,
        probability=probability,
        power_die=power_die,
        water_die=water_die,
        power_cut_today=power_cut,
        water_cut_today=water_cut,
        power_on=power & ~power_cut,
        water_on=water & ~water_cut,
    )
