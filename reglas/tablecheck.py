"""Checks shared by the rule tables' ``from_dict``: each names the bad field by its dotted path.

A failed check raises :class:`~reglas.errors.RulesError` "Tabla no válida: el campo «path» …", so
an edit made by the master never passes silently. Source: RULES.md principle 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from reglas.errors import RulesError


def fail(path: str, problem: str) -> NoReturn:
    """Raise RulesError naming the field at ``path``."""
    raise RulesError(f"Tabla no válida: el campo «{path}» {problem}.")


def check_object(
    value: object, path: str, required: Sequence[str], optional: Sequence[str] = ()
) -> Mapping[str, Any]:
    """Check ``value`` is a JSON object with exactly the allowed keys."""
    if not isinstance(value, Mapping):
        fail(path, "debe ser un objeto JSON")
    for key in required:
        if key not in value:
            fail(f"{path}.{key}" if path else key, "falta")
    allowed = set(required) | set(optional)
    for key in value:
        if key not in allowed:
            fail(f"{path}.{key}" if path else str(key), "no existe (¿errata?)")
    return value


def check_mapping(value: object, path: str, *, nonempty: bool = True) -> Mapping[str, Any]:
    """A JSON object with free (slug) keys."""
    if not isinstance(value, Mapping):
        fail(path, "debe ser un objeto JSON")
    if nonempty and not value:
        fail(path, "no puede estar vacío")
    for key in value:
        if not isinstance(key, str) or not key.strip():
            fail(path, "tiene una clave vacía o que no es texto")
    return value


def check_list(value: object, path: str, *, nonempty: bool = True) -> list[Any]:
    """A JSON list (a tuple is accepted), non-empty unless ``nonempty`` is False."""
    if not isinstance(value, list | tuple):
        fail(path, "debe ser una lista")
    if nonempty and not value:
        fail(path, "no puede estar vacío")
    return list(value)


def check_int(value: object, path: str, lo: int | None = None, hi: int | None = None) -> int:
    """A whole number (not a bool) within ``lo..hi`` when given."""
    # bool is an int in Python; a table never means True by 1.
    if isinstance(value, bool) or not isinstance(value, int):
        fail(path, f"debe ser un número entero (se recibió {value!r})")
    if lo is not None and value < lo:
        fail(path, f"debe ser como mínimo {lo} (se recibió {value})")
    if hi is not None and value > hi:
        fail(path, f"debe ser como máximo {hi} (se recibió {value})")
    return value


def check_percent(value: object, path: str) -> int:
    """A whole percentage 0..100."""
    return check_int(value, path, 0, 100)


def check_number(value: object, path: str, *, positive: bool = False) -> float:
    """A finite number ≥ 0 (> 0 when ``positive``), as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        fail(path, f"debe ser un número (se recibió {value!r})")
    number = float(value)
    if not math.isfinite(number):
        fail(path, "debe ser un número finito")
    if positive and number <= 0:
        fail(path, f"debe ser mayor que 0 (se recibió {value})")
    if not positive and number < 0:
        fail(path, f"no puede ser negativo (se recibió {value})")
    return number


def check_bool(value: object, path: str) -> bool:
    """A JSON true/false."""
    if not isinstance(value, bool):
        fail(path, f"debe ser true o false (se recibió {value!r})")
    return value


def check_text(value: object, path: str, *, allow_empty: bool = False) -> str:
    """A string, non-blank unless ``allow_empty``."""
    if not isinstance(value, str):
        fail(path, f"debe ser un texto (se recibió {value!r})")
    if not allow_empty and not value.strip():
        fail(path, "no puede estar vacío")
    return value


def json_number(value: float) -> int | float:
    """Write whole floats as ints so a round trip keeps the file's look (5, not 5.0)."""
    return int(value) if float(value).is_integer() else value
