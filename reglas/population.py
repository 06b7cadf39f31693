"""Zombies and survivors of a settlement: the rulebook's logistic curve plus the master's tally.

P(t) = K·P0·e^(r·t) / (K + P0·(e^(r·t) − 1)). We evaluate it divided through by e^(r·t),
P(t) = K·P0 / (K·e^(−r·t) + P0·(1 − e^(−r·t))), which never overflows: e^(−r·t) lies in (0, 1]
for t ≥ 0 and r > 0, so t = 1000 (e^1000 overflows a float) simply gives P = K.

Source: RULES.md R17.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from reglas.errors import LABELS, RulesError

__all__ = [
    "AdjustedPopulation",
    "Population",
    "PopulationArrays",
    "apply_adjustments",
    "apply_adjustments_many",
    "population",
    "population_curve",
    "population_many",
]

# P(t) is a float; ⌈P⌉ of a value that should be an integer but carries rounding noise
# (150.00000000000003) would add a phantom zombie. Rounding to 9 decimals first removes it.
_CEIL_DECIMALS = 9


def _check(k: int, t: float, r: float, p0: float) -> int:
    """Validate the scalar inputs; returns K as a Python int (numpy integers are accepted)."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
        raise RulesError(
            "population_k_invalid_given",
            f"La población (K) debe ser un entero no negativo (se recibió {k}).",
            k=k,
        )
    if not math.isfinite(t) or t < 0:
        raise RulesError(
            "population_t_invalid_given", f"El día (t) debe ser 0 o mayor (se recibió {t}).", t=t
        )
    if not math.isfinite(r) or r <= 0:
        raise RulesError(
            "population_r_invalid_given",
            f"La tasa de crecimiento (r) debe ser mayor que 0 (se recibió {r}).",
            r=r,
        )
    if not math.isfinite(p0) or p0 <= 0:
        raise RulesError(
            "population_p0_invalid_given", f"P0 debe ser mayor que 0 (se recibió {p0}).", p0=p0
        )
    return int(k)


@dataclass(frozen=True, slots=True)
class Population:
    """A settlement's population on day ``t`` by the formula alone.

    ``k`` pre-apocalypse inhabitants, ``p`` = P(t) unrounded (float), ``zombies`` = ⌈P(t)⌉
    (never more than ``k``), ``survivors`` = ``k`` − ``zombies``. Source: RULES.md R17.
    """

    k: int
    t: float
    r: float
    p0: float
    p: float
    zombies: int
    survivors: int

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "k": self.k,
            "t": self.t,
            "r": self.r,
            "p0": self.p0,
            "p": self.p,
            "zombies": self.zombies,
            "survivors": self.survivors,
        }


def _p_scalar(k: int, t: float, r: float, p0: float) -> float:
    if k == 0:
        return 0.0
    decay = math.exp(-r * t)  # in (0, 1]: no overflow whatever t is
    return k * p0 / (k * decay + p0 * (1.0 - decay))


def population(k: int, t: float, r: float = 1.0, p0: float = 1.0) -> Population:
    """Zombies and survivors of a settlement of ``k`` inhabitants ``t`` days after the apocalypse.

    ``r`` growth rate per day (> 0, default 1), ``p0`` initial zombies (> 0, default 1).
    Zombies are capped at ``k`` (P0 > K would otherwise give more zombies than people).
    Raises RulesError for K < 0 or not an integer, t < 0, r ≤ 0, p0 ≤ 0.
    Example: K 200, t 7 → p 169.28…, 170 zombies, 30 survivors. Source: RULES.md R17.
    """
    k = _check(k, t, r, p0)
    p = _p_scalar(k, t, r, p0)
    zombies = min(k, math.ceil(round(p, _CEIL_DECIMALS)))
    return Population(k=k, t=t, r=r, p0=p0, p=p, zombies=zombies, survivors=k - zombies)


def population_curve(
    k: int, days: Iterable[int], r: float = 1.0, p0: float = 1.0
) -> list[Population]:
    """:func:`population` for each day of ``days`` (e.g. ``range(0, 31)``), in that order.

    Raises RulesError as :func:`population`. Source: RULES.md R17.
    """
    return [population(k, t, r, p0) for t in days]


@dataclass(frozen=True, slots=True)
class AdjustedPopulation:
    """The formula's population with the master's running tally applied on top.

    ``zombies`` = max(0, base zombies − ``destroyed`` + ``risen``); ``survivors`` =
    max(0, base survivors − ``rescued`` − ``risen``). Rescued survivors leave the settlement's
    count (they now live with the characters); a risen character moves one person from the
    survivors to the zombies (R13), so the total stays K. Source: RULES.md R17.
    """

    base: Population
    destroyed: int
    rescued: int
    risen: int
    zombies: int
    survivors: int

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "base": self.base.as_dict(),
            "destroyed": self.destroyed,
            "rescued": self.rescued,
            "risen": self.risen,
            "zombies": self.zombies,
            "survivors": self.survivors,
        }


def apply_adjustments(
    pop: Population, destroyed: int = 0, rescued: int = 0, risen: int = 0
) -> AdjustedPopulation:
    """Apply the master's cumulative adjustments to a formula population, never below 0.

    ``destroyed`` zombies killed, ``rescued`` survivors taken out, ``risen`` characters turned
    (all cumulative counts since the apocalypse, ≥ 0). Raises RulesError for a negative count.
    Source: RULES.md R17.
    """
    for name, value in (("destroyed", destroyed), ("rescued", rescued), ("risen", risen)):
        if value < 0:
            raise RulesError(
                "population_count_negative",
                f"El número de {LABELS[name]} no puede ser negativo (se recibió {value}).",
                what=name,
                value=value,
            )
    return AdjustedPopulation(
        base=pop,
        destroyed=destroyed,
        rescued=rescued,
        risen=risen,
        zombies=max(0, pop.zombies - destroyed + risen),
        survivors=max(0, pop.survivors - rescued - risen),
    )


@dataclass(frozen=True, slots=True)
class PopulationArrays:
    """Vectorised populations: float ``p`` and int ``zombies``/``survivors``, all of the
    broadcast shape of the inputs. Source: RULES.md R17."""

    p: npt.NDArray[np.float64]
    zombies: npt.NDArray[np.int64]
    survivors: npt.NDArray[np.int64]


def population_many(
    k: npt.ArrayLike, t: npt.ArrayLike, r: npt.ArrayLike = 1.0, p0: npt.ArrayLike = 1.0
) -> PopulationArrays:
    """:func:`population` over arrays (e.g. every settlement of a campaign in the tick).

    ``k`` integer array (inhabitants), ``t`` days, ``r`` and ``p0`` scalars or arrays; they
    broadcast together. Raises RulesError for K < 0 or non-integer, t < 0, r ≤ 0, p0 ≤ 0, or
    shapes that do not broadcast. Source: RULES.md R17.
    """
    k_arr = np.asarray(k)
    if k_arr.dtype.kind not in "iu":
        if (
            k_arr.dtype.kind == "f"
            and np.all(np.isfinite(k_arr))
            and np.all(k_arr == np.round(k_arr))
        ):
            k_arr = k_arr.astype(np.int64)
        else:
            raise RulesError(
                "population_k_invalid", "La población (K) debe ser un entero no negativo."
            )
    k_i = k_arr.astype(np.int64)
    t_f = np.asarray(t, dtype=np.float64)
    r_f = np.asarray(r, dtype=np.float64)
    p0_f = np.asarray(p0, dtype=np.float64)
    if np.any(k_i < 0):
        raise RulesError("population_k_invalid", "La población (K) debe ser un entero no negativo.")
    if not np.all(np.isfinite(t_f)) or np.any(t_f < 0):
        raise RulesError("population_t_invalid", "El día (t) debe ser 0 o mayor.")
    if not np.all(np.isfinite(r_f)) or np.any(r_f <= 0):
        raise RulesError("population_r_invalid", "La tasa de crecimiento (r) debe ser mayor que 0.")
    if not np.all(np.isfinite(p0_f)) or np.any(p0_f <= 0):
        raise RulesError("population_p0_invalid", "P0 debe ser mayor que 0.")
    try:
        k_b, t_b, r_b, p0_b = np.broadcast_arrays(k_i, t_f, r_f, p0_f)
    except ValueError as exc:
        raise RulesError(
            "population_shapes", "K, t, r y P0 deben tener formas compatibles."
        ) from exc
    k_f = k_b.astype(np.float64)
    decay = np.exp(-r_b * t_b)
    denominator = k_f * decay + p0_b * (1.0 - decay)
    # K = 0 → P = 0 (and 0/0 at t = 0): avoid the division where K is 0.
    p = np.divide(k_f * p0_b, denominator, out=np.zeros_like(k_f), where=k_b > 0)
    zombies = np.minimum(np.ceil(np.round(p, _CEIL_DECIMALS)).astype(np.int64), k_b)
    return PopulationArrays(p=p, zombies=zombies, survivors=k_b - zombies)


def apply_adjustments_many(
    zombies: npt.ArrayLike,
    survivors: npt.ArrayLike,
    destroyed: npt.ArrayLike = 0,
    rescued: npt.ArrayLike = 0,
    risen: npt.ArrayLike = 0,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Vectorised :func:`apply_adjustments`: returns ``(zombies, survivors)`` int arrays,
    never below 0; a risen character is one survivor fewer and one zombie more. Raises
    RulesError for a negative adjustment. Source: RULES.md R17."""
    d = np.asarray(destroyed, dtype=np.int64)
    s = np.asarray(rescued, dtype=np.int64)
    u = np.asarray(risen, dtype=np.int64)
    if np.any(d < 0) or np.any(s < 0) or np.any(u < 0):
        raise RulesError(
            "population_adjustments_negative", "Los ajustes de población no pueden ser negativos."
        )
    z = np.maximum(0, np.asarray(zombies, dtype=np.int64) - d + u)
    v = np.maximum(0, np.asarray(survivors, dtype=np.int64) - s - u)
    return z, v
