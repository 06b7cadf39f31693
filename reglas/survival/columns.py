"""Validated array columns shared by the survival steps, and their float tolerance.

Every step takes arrays of shape ``(n,)`` (scalars broadcast); these helpers check shape,
type and sign once, with the same Spanish messages for every column.

Source: RULES.md R6, R7, R15 (amounts in kcal, L, h and rolls).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from reglas.errors import RulesError

EPSILON = 1e-6
"""Float tolerance (kcal, L, h, rolls): an amount within it of the requirement meets it.

Only guards float rounding of sums such as ``carried + (need − carried)``; 1999 kcal is short.
"""


F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
B = NDArray[np.bool_]


def _floats(value: ArrayLike, n: int, name: str, *, allow_nan: bool = False) -> F64:
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise RulesError(f"«{name}» debe tener forma ({n},), no {arr.shape}.")
    bad = ~np.isfinite(arr) if not allow_nan else np.isinf(arr)
    if np.any(bad):
        raise RulesError(f"«{name}» debe contener números finitos.")
    if np.any(arr < 0):
        raise RulesError(f"«{name}» no puede ser negativo.")
    return arr


def _bools(value: ArrayLike, n: int, name: str) -> B:
    arr = np.asarray(value)
    if arr.ndim == 0:
        arr = np.full(n, bool(arr))
    if arr.shape != (n,):
        raise RulesError(f"«{name}» debe tener forma ({n},), no {arr.shape}.")
    return arr.astype(np.bool_)


def _ints(value: ArrayLike, n: int, name: str, *, minimum: int = 0) -> I64:
    arr = np.asarray(value)
    if arr.ndim == 0:
        arr = np.full(n, arr)
    if arr.shape != (n,):
        raise RulesError(f"«{name}» debe tener forma ({n},), no {arr.shape}.")
    if arr.size and arr.dtype.kind not in "iu":
        raise RulesError(f"«{name}» debe contener números enteros.")
    out = arr.astype(np.int64)
    if np.any(out < minimum):
        raise RulesError(f"«{name}» no puede ser menor que {minimum}.")
    return out
