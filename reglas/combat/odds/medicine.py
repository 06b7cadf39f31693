"""The odds of a bite's amputation (R13) and of the Medicina cure of a disease (R12).

Both are action rolls with Medicina (R3), so their exact chance is 1 − (1 − T/100)^(1+M); the
calculator simulates them as it does the fights (one uniform per try, numpy over the
patients) and prints the exact value beside, as a check and for the master's reading.
Source: RULES.md R3, R12, R13.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reglas.combat.odds.base import (
    DEFAULT_SIMULATIONS,
    MAX_SIMULATIONS,
    Estimate,
    check_count,
    chunk_sizes,
    intervals,
    percent,
)
from reglas.core import clamp_threshold
from reglas.dice import action_success_probability
from reglas.errors import LABELS, RulesError
from reglas.health.disease import _check_medicine
from reglas.settings import DEFAULT_SETTINGS, RuleSettings

MAX_CURE_DAYS = 365
"""Most days of daily cure tries in one calculation."""


@dataclass(frozen=True, slots=True)
class BiteOdds:
    """After a bite, the one amputation try with Medicina ``medicina`` against ``threshold``
    (%, after the penalty): ``amputated`` (the infection removed) and ``infected`` (it stays;
    with no cure, the character dies and rises within 1d6+2 days, so ``p_dead`` = p_infected),
    over ``simulations`` bites; ``exact`` the chance of the try. Source: RULES.md R13."""

    medicina: int
    threshold: int
    simulations: int
    amputated: Estimate
    infected: Estimate
    exact: float

    def as_dict(self) -> dict[str, object]:
        """One JSON object: ``simulations``, ``p_amputated``, ``p_infected``, ``p_dead``,
        ``ci``, ``exact`` (the amputation's chance), ``threshold``, ``medicina``."""
        main = {"p_amputated": self.amputated, "p_infected": self.infected}
        return {
            "kind": "bite",
            "simulations": self.simulations,
            "medicina": self.medicina,
            "threshold": self.threshold,
            "p_bitten": 1.0,
            "p_amputated": self.amputated.p,
            "p_infected": self.infected.p,
            "p_dead": self.infected.p,
            "ci": {**intervals(main), "p_dead": intervals(main)["p_infected"]},
            "confidence": 0.95,
            "exact": {
                "p_amputated": self.exact,
                "p_infected": 1 - self.exact,
                "p_dead": 1 - self.exact,
            },
        }

    def describe(self) -> str:
        """Spanish text."""
        return "\n".join(
            [
                f"Mordisco: amputación inmediata con Medicina {self.medicina} "
                f"({1 + self.medicina}d100 contra {self.threshold} %), "
                f"{self.simulations} mordiscos simulados.",
                f"Amputación con éxito (sin infección): {self.amputated.describe()}",
                f"Queda infectado (muere y se levanta como zombi): {self.infected.describe()}",
                f"Valor exacto: {percent(self.exact)} de amputar.",
            ]
        )


@dataclass(frozen=True, slots=True)
class CureOdds:
    """The Medicina cure of a disease (R12): one try a day for ``days`` days with Medicina
    ``medicina`` against ``threshold`` (%, after the penalty); ``cured`` within those days over
    ``simulations`` patients, ``first_try`` the first day's; ``exact`` and ``exact_one_try``
    their exact values. Source: RULES.md R12."""

    medicina: int
    threshold: int
    days: int
    simulations: int
    cured: Estimate
    first_try: Estimate
    exact: float
    exact_one_try: float

    def as_dict(self) -> dict[str, object]:
        """One JSON object: ``simulations``, ``p_cure`` (within ``days``), ``p_cure_first``,
        ``ci``, ``exact`` and ``exact_one_try``, ``threshold``, ``medicina``, ``days``."""
        main = {"p_cure": self.cured, "p_cure_first": self.first_try}
        return {
            "kind": "cure",
            "simulations": self.simulations,
            "medicina": self.medicina,
            "threshold": self.threshold,
            "days": self.days,
            "p_cure": self.cured.p,
            "p_cure_first": self.first_try.p,
            "ci": intervals(main),
            "confidence": 0.95,
            "exact": {"p_cure": self.exact, "p_cure_first": self.exact_one_try},
        }

    def describe(self) -> str:
        """Spanish text."""
        lines = [
            f"Curar con Medicina {self.medicina} ({1 + self.medicina}d100 contra "
            f"{self.threshold} %), un intento al día durante {self.days} día(s): "
            f"{self.simulations} enfermos simulados.",
            f"Cura al primer intento: {self.first_try.describe()}",
        ]
        if self.days > 1:
            lines.append(f"Cura en {self.days} días: {self.cured.describe()}")
        lines.append(
            f"Valor exacto: {percent(self.exact_one_try)} por intento"
            + (f", {percent(self.exact)} en {self.days} días." if self.days > 1 else ".")
        )
        return "\n".join(lines)


def _threshold(base: float, penalty: float) -> int:
    for value, what in ((base, "threshold"), (penalty, "penalty")):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise RulesError(
                "number_invalid",
                f"{LABELS[what]} debe ser un número ({value!r}).",
                what=what,
                value=repr(value),
            )
    return clamp_threshold(base - penalty)


def _successes(p: float, simulations: int, tries: int, rng: np.random.Generator) -> tuple[int, int]:
    """(patients cured on the first try, cured within ``tries`` daily tries)."""
    first = within = 0
    for n in chunk_sizes(simulations):
        cured = rng.random(n) < p
        first += int(cured.sum())
        for _ in range(tries - 1):
            cured |= rng.random(n) < p
        within += int(cured.sum())
    return first, within


def bite_odds(
    medicina: int,
    rng: np.random.Generator,
    *,
    penalty: int = 0,
    simulations: int = DEFAULT_SIMULATIONS,
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> BiteOdds:
    """The amputation try after ``simulations`` (1..10⁶) bites: Medicina ``medicina`` against
    clamp(``settings.amputation_threshold`` − ``penalty``). Raises RulesError as
    ``amputation_roll`` or for an out-of-range count. Source: RULES.md R13.
    """
    value = _check_medicine(medicina, settings)
    check_count(simulations, "simulations", 1, MAX_SIMULATIONS)
    threshold = _threshold(settings.amputation_threshold, penalty)
    exact = action_success_probability(value, threshold)
    first, _ = _successes(exact, simulations, 1, rng)
    return BiteOdds(
        medicina=value,
        threshold=threshold,
        simulations=simulations,
        amputated=Estimate.of(first, simulations),
        infected=Estimate.of(simulations - first, simulations),
        exact=exact,
    )


def cure_odds(
    medicina: int,
    rng: np.random.Generator,
    *,
    threshold: float | None = None,
    penalty: int = 0,
    days: int = 1,
    simulations: int = DEFAULT_SIMULATIONS,
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> CureOdds:
    """The Medicina cure (R12) tried once a day for ``days`` (1..365) days on
    ``simulations`` (1..10⁶) patients: Medicina ``medicina`` against clamp(``threshold``
    (default ``settings.medicine_cure_threshold``, 30 %) − ``penalty``). Raises RulesError as
    ``roll_medicine_cure`` or for an out-of-range count. Source: RULES.md R12.
    """
    value = _check_medicine(medicina, settings)
    check_count(days, "days", 1, MAX_CURE_DAYS)
    check_count(simulations, "simulations", 1, MAX_SIMULATIONS)
    base = settings.medicine_cure_threshold if threshold is None else threshold
    t = _threshold(base, penalty)
    one = action_success_probability(value, t)
    first, within = _successes(one, simulations, days, rng)
    return CureOdds(
        medicina=value,
        threshold=t,
        days=days,
        simulations=simulations,
        cured=Estimate.of(within, simulations),
        first_try=Estimate.of(first, simulations),
        exact=1 - (1 - one) ** days,
        exact_one_try=one,
    )
