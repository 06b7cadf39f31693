"""The benchmarks' one table and ``bench-results.json``.

Every benchmark adds its figures with ``record``; at the end of the run the table (measure,
figure, reference, ratio) is printed once and the keyed figures are written to
``bench-results.json`` at the project root (ignored by git; keys of an earlier run that this
run did not measure are kept, so one benchmark can be re-run alone).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench-results.json"


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the table: ``figure`` in ``unit``, beside ``reference`` (same unit) and
    their ``ratio`` (figure / reference unless given), with the ``target`` it is held to."""

    measure: str
    figure: float
    unit: str
    reference: float | None = None
    reference_name: str = ""
    ratio: float | None = None
    target: str = ""


ROWS: list[Row] = []
KEYED: dict[str, float] = {}


def record(
    measure: str,
    figure: float,
    unit: str,
    *,
    reference: float | None = None,
    reference_name: str = "",
    ratio: float | None = None,
    target: str = "",
    key: str | None = None,
    key_value: float | None = None,
) -> Row:
    """Add a row; ``key`` also stores ``key_value`` (default: the ratio when there is one, else
    the figure) under that name in ``bench-results.json``."""
    if ratio is None and reference:
        ratio = figure / reference
    row = Row(measure, figure, unit, reference, reference_name, ratio, target)
    ROWS.append(row)
    if key is not None:
        value = key_value if key_value is not None else (ratio if ratio is not None else figure)
        KEYED[key] = round(float(value), 4)
    return row


def earlier(key: str) -> float | None:
    """A figure of an earlier run from ``bench-results.json`` (None when there is none)."""
    try:
        value = json.loads(RESULTS.read_text()).get(key)
    except (OSError, ValueError):
        return None
    return float(value) if isinstance(value, int | float) else None


def _fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return ""
    text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.3g}"
    return f"{text} {unit}".strip()


def table() -> str:
    """The rows as an aligned text table."""
    head = ("measure", "figure", "reference", "ratio", "target")
    lines = [
        (
            r.measure,
            _fmt(r.figure, r.unit),
            f"{_fmt(r.reference, r.unit)} {r.reference_name}".strip(),
            "" if r.ratio is None else f"{r.ratio:.2f}",
            r.target,
        )
        for r in ROWS
    ]
    widths = [max(len(x[i]) for x in [head, *lines]) for i in range(len(head))]
    out = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))]
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines]
    return "\n".join(out)


def write() -> Path | None:
    """Merge this run's keyed figures into ``bench-results.json``; None when there were none."""
    if not KEYED:
        return None
    try:
        old = json.loads(RESULTS.read_text())
    except (OSError, ValueError):
        old = {}
    old.update(KEYED)
    old["_updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    old["_database"] = (
        "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    )
    RESULTS.write_text(json.dumps(old, indent=1, sort_keys=True) + "\n")
    return RESULTS
