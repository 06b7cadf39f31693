"""Dice drawn in bulk, recorded per term as a single roll would be (RULES.md R4).

``roll_totals`` returns every die of a row in term order; ``term_rolls`` splits such a row back
into the per-term records of ``roll_expression`` (``TermRoll``), so every expression roll is
stored in one shape whoever drew it (the daily tick's disease durations, a player's dice).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from reglas.errors import RulesError
from reglas.expressions import DiceExpression, DiceTerm, TermRoll, parse_expression, term_roll


def term_rolls(
    expression: str | DiceExpression, faces: Sequence[int] | NDArray[np.int64]
) -> tuple[TermRoll, ...]:
    """The per-term record of one row of ``roll_totals``' dice: ``faces`` holds every die in
    term order (as ``roll_totals`` returns them); each dice term takes its ``count`` faces.

    So a roll drawn in bulk is stored in the same shape as one drawn by ``roll_expression``
    (``[term.as_dict() for term in ...]``). Raises RulesError for a bad expression or when
    ``faces`` does not hold exactly the expression's dice. Source: RULES.md R4, R12.
    """
    parsed = expression if isinstance(expression, DiceExpression) else parse_expression(expression)
    values = [int(f) for f in faces]
    if len(values) != parsed.dice_count:
        raise RulesError(
            "expression_faces_mismatch",
            f"La tirada {parsed.expression} tiene {parsed.dice_count} dados, no {len(values)}.",
            expression=parsed.expression,
            expected=parsed.dice_count,
            given=len(values),
        )
    dice = [t for t in parsed.terms if isinstance(t, DiceTerm)]
    starts = np.cumsum([0] + [t.count for t in dice]).tolist()
    return tuple(
        term_roll(t, np.asarray(values[a : a + t.count], dtype=np.int64))
        for t, a in zip(dice, starts, strict=False)
    )
