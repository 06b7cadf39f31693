"""Validated array columns shared by the survival steps, and their float tolerance.

Every step takes arrays of shape ``(n,)`` (scalars broadcast); ``float_column``,
``bool_column`` and ``int_column`` check shape, type and sign once, with the same Spanish
messages for every column.

Source: RULES.md R6, R7, R15 (amounts in kcal, L, h and rolls).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from reglas.core import column
from reglas.errors import RulesError

EPSILON = 1e-6
"""Float tolerance (kcal, L, h, rolls): an amount within it of the requirement meets it.

Only guards float rounding of sums such as ``carried + (need − carried)``; 1999 kcal is short.
"""

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
B = NDArray[np.bool_]


def float_column(value: ArrayLike, n: int, name: str, *, allow_nan: bool = False) -> F64:
    """``value`` as a float64 column of shape ``(n,)`` (a scalar broadcasts), finite (NaN too
    with ``allow_nan``) and never negative. ``name`` labels the message. Raises RulesError
    for a wrong shape, an infinite (or NaN) or a negative value. Source: RULES.md R6, R15."""
    arr = column(np.asarray(value, dtype=np.float64), n, name)
    bad = ~np.isfinite(arr) if not allow_nan else np.isinf(arr)
    if np.any(bad):
        raise RulesError("column_not_finite", f"«{name}» debe contener números finitos.", name=name)
    if np.any(arr < 0):
        raise RulesError("column_negative", f"«{name}» no puede ser negativo.", name=name)
    return arr


def bool_column(value: ArrayLike, n: int, name: str) -> B:
    """``value`` as a bool column of shape ``(n,)`` (a scalar broadcasts). ``name`` labels the
    message. Raises RulesError for a wrong shape. Source: RULES.md R7 (the day's marks)."""
    return column(value, n, name, np.bool_)


def int_column(value: ArrayLike, n: int, name: str, *, minimum: int = 0) -> I64:
    """``value`` as an int64 column of shape ``(n,)`` (a scalar broadcasts), every value an
    integer ≥ ``minimum`` (counters of days; −1 allowed as "no shelter" with ``minimum=-1``).
    ``name`` labels the message. Raises RulesError for a wrong shape, a non-integer dtype or a
    value under ``minimum``. Source: RULES.md R6, R7."""
    arr = column(value, n, name)
    if arr.size and arr.dtype.kind not in "iu":
        raise RulesError("column_not_int", f"«{name}» debe contener números enteros.", name=name)
    out = arr.astype(np.int64)
    if np.any(out < minimum):
        raise RulesError(
            "column_below_minimum",
            f"«{name}» no puede ser menor que {minimum}.",
            name=name,
            minimum=minimum,
        )
    return out
