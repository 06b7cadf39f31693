"""Checks shared by the rule tables' ``from_dict``: each names the bad field by its dotted path.

A failed check raises :class:`~reglas.errors.RulesError` "Tabla no válida: el campo «path» …", so
an edit made by the master never passes silently. Source: RULES.md principle 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from reglas.errors import RulesError


def fail(path: str, code: str, problem: str, **params: object) -> NoReturn:
    """Raise RulesError ``code`` naming the field at ``path`` (a dotted path, param ``path``).

    ``problem`` is the Spanish clause after the field's name; ``params`` are its values.
    """
    raise RulesError(code, f"Tabla no válida: el campo «{path}» {problem}.", path=path, **params)


def check_object(
    value: object, path: str, required: Sequence[str], optional: Sequence[str] = ()
) -> Mapping[str, Any]:
    """Check ``value`` is a JSON object with exactly the allowed keys."""
    if not isinstance(value, Mapping):
        fail(path, "table_not_object", "debe ser un objeto JSON")
    for key in required:
        if key not in value:
            fail(f"{path}.{key}" if path else key, "table_missing", "falta")
    allowed = set(required) | set(optional)
    for key in value:
        if key not in allowed:
            fail(
                f"{path}.{key}" if path else str(key), "table_unknown_field", "no existe (¿errata?)"
            )
    return value


def check_mapping(value: object, path: str, *, nonempty: bool = True) -> Mapping[str, Any]:
    """A JSON object with free (slug) keys."""
    if not isinstance(value, Mapping):
        fail(path, "table_not_object", "debe ser un objeto JSON")
    if nonempty and not value:
        fail(path, "table_empty", "no puede estar vacío")
    for key in value:
        if not isinstance(key, str) or not key.strip():
            fail(path, "table_bad_key", "tiene una clave vacía o que no es texto")
    return value


def check_list(value: object, path: str, *, nonempty: bool = True) -> list[Any]:
    """A JSON list (a tuple is accepted), non-empty unless ``nonempty`` is False."""
    if not isinstance(value, list | tuple):
        fail(path, "table_not_list", "debe ser una lista")
    if nonempty and not value:
        fail(path, "table_empty", "no puede estar vacío")
    return list(value)


def check_int(value: object, path: str, lo: int | None = None, hi: int | None = None) -> int:
    """A whole number (not a bool) within ``lo..hi`` when given."""
    # bool is an int in Python; a table never means True by 1.
    if isinstance(value, bool) or not isinstance(value, int):
        fail(
            path,
            "table_not_int",
            f"debe ser un número entero (se recibió {value!r})",
            value=repr(value),
        )
    if lo is not None and value < lo:
        fail(
            path,
            "table_below_minimum",
            f"debe ser como mínimo {lo} (se recibió {value})",
            minimum=lo,
            value=value,
        )
    if hi is not None and value > hi:
        fail(
            path,
            "table_above_maximum",
            f"debe ser como máximo {hi} (se recibió {value})",
            maximum=hi,
            value=value,
        )
    return value


def check_percent(value: object, path: str) -> int:
    """A whole percentage 0..100."""
    return check_int(value, path, 0, 100)


def check_number(value: object, path: str, *, positive: bool = False) -> float:
    """A finite number ≥ 0 (> 0 when ``positive``), as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        fail(
            path,
            "table_not_number",
            f"debe ser un número (se recibió {value!r})",
            value=repr(value),
        )
    number = float(value)
    if not math.isfinite(number):
        fail(path, "table_not_finite", "debe ser un número finito")
    if positive and number <= 0:
        fail(path, "table_not_positive", f"debe ser mayor que 0 (se recibió {value})", value=value)
    if not positive and number < 0:
        fail(path, "table_negative", f"no puede ser negativo (se recibió {value})", value=value)
    return number


def check_bool(value: object, path: str) -> bool:
    """A JSON true/false."""
    if not isinstance(value, bool):
        fail(
            path,
            "table_not_bool",
            f"debe ser true o false (se recibió {value!r})",
            value=repr(value),
        )
    return value


def check_text(value: object, path: str, *, allow_empty: bool = False) -> str:
    """A string, non-blank unless ``allow_empty``."""
    if not isinstance(value, str):
        fail(path, "table_not_text", f"debe ser un texto (se recibió {value!r})", value=repr(value))
    if not allow_empty and not value.strip():
        fail(path, "table_empty", "no puede estar vacío")
    return value


def json_number(value: float) -> int | float:
    """Write whole floats as ints so a round trip keeps the file's look (5, not 5.0)."""
    return int(value) if float(value).is_integer() else value
