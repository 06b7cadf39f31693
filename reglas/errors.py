"""Errors raised by the rules engine."""

from __future__ import annotations


class RulesError(ValueError):
    """Bad input to a rule, as a stable code, a Spanish sentence and the values that word it.

    ``code`` is a slug the apps look up to word the refusal in the reader's language
    (``nucleo.rules_errors``); ``message`` is the complete Spanish sentence the CLI prints and
    ``str(exc)`` returns; ``params`` are the JSON-able values (numbers, strings) the sentence
    names, one keyword per placeholder of the worded message. Nothing has been rolled when this
    is raised.
    """

    def __init__(self, code: str, message: str, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params

    def __str__(self) -> str:
        return self.message


LABELS: dict[str, str] = {
    # dice.py
    "trait_value": "El valor del rasgo",
    "die": "El dado",
    "threshold": "El umbral",
    "dice_count": "El número de dados",
    "faces_count": "El número de caras",
    "probability": "La probabilidad",
    # encounters.py (metres)
    "area_m2": "El área (m²)",
    "path_m": "El recorrido (m)",
    "radius_m": "El radio de detección (m)",
    # population.py: the master's adjustments
    "destroyed": "destruidos",
    "rescued": "rescatados",
    "risen": "alzados",
    # survival/consumption.py: a food's amounts
    "kcal_per_unit": "kcal por unidad",
    "units": "unidades",
    # combat/odds: the calculator's counts and numbers
    "simulations": "El número de simulaciones",
    "zombies": "El número de zombis",
    "turns": "El número de turnos",
    "members": "El número de personas del grupo",
    "rivals": "El número de rivales",
    "days": "El número de días",
    "penalty": "La penalización",
}
"""The Spanish name of each quantity a shared check names, by the slug it passes as ``what``.

A check used for several quantities raises with ``what=<slug>``, so the apps can word the
quantity too (``nucleo.rules_errors.LABELS``)."""
