"""Searching a dwelling (or a shop) for things to fight with.

Source: RULES.md R22 (seed: "Sistema, búsqueda y encuentro de armamento").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reglas.tables import DEFAULT_SEARCH, SearchTable

__all__ = ["SearchResult", "roll_search"]


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found, with every die.

    ``kind_die`` (1d``kind_faces``, 1d3 by default) picks ``kind``: ``utensils`` (nothing more
    is rolled), ``pseudo_weapons`` or ``weapons``. ``subtype_die`` (1d3) picks ``subtype``, or is
    None when the kind has none. ``quantity_die`` (1d``quantity_faces``: 1d6 pseudo-weapons,
    1d3 weapons) is the number of items found; None with ``quantity`` None means "no limit a
    priori" (ordinary utensils). Labels are Spanish. Source: RULES.md R22.
    """

    kind_die: int
    kind_faces: int
    kind: str
    kind_label: str
    kind_examples: str
    subtype_die: int | None
    subtype_faces: int | None
    subtype: str | None
    subtype_label: str | None
    subtype_examples: str | None
    quantity_die: int | None
    quantity_faces: int | None
    quantity: int | None

    @property
    def dice(self) -> tuple[int, ...]:
        """Every die rolled, in order."""
        return tuple(
            d for d in (self.kind_die, self.subtype_die, self.quantity_die) if d is not None
        )

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "kind_die": self.kind_die,
            "kind_faces": self.kind_faces,
            "kind": self.kind,
            "kind_label": self.kind_label,
            "kind_examples": self.kind_examples,
            "subtype_die": self.subtype_die,
            "subtype_faces": self.subtype_faces,
            "subtype": self.subtype,
            "subtype_label": self.subtype_label,
            "subtype_examples": self.subtype_examples,
            "quantity_die": self.quantity_die,
            "quantity_faces": self.quantity_faces,
            "quantity": self.quantity,
            "dice": list(self.dice),
        }

    def describe(self) -> str:
        """Spanish text showing every die."""
        parts = [f"Tipo 1d{self.kind_faces} = {self.kind_die}: {self.kind_label}"]
        if self.subtype_die is not None:
            examples = f" ({self.subtype_examples})" if self.subtype_examples else ""
            parts.append(
                f"1d{self.subtype_faces} = {self.subtype_die}: {self.subtype_label}{examples}"
            )
        elif self.kind_examples:
            parts.append(self.kind_examples)
        if self.quantity_die is not None:
            parts.append(f"cantidad 1d{self.quantity_faces} = {self.quantity_die}")
        else:
            parts.append("cantidad sin límite a priori")
        return "; ".join(parts) + "."


def roll_search(rng: np.random.Generator, table: SearchTable = DEFAULT_SEARCH) -> SearchResult:
    """Roll a weapon search: kind die, then (if the kind has subtypes) subtype die, then (if the
    kind has a quantity die) quantity die, in that order. Each (kind, subtype) cell of the
    default 1d3 × 1d3 has probability 1/9. Source: RULES.md R22.
    """
    kind_faces = len(table.kinds)
    kind_die = int(rng.integers(1, kind_faces + 1))
    kind = table.kinds[kind_die - 1]
    subtype_die: int | None = None
    subtype_faces: int | None = None
    subtype = None
    if kind.subtypes:
        subtype_faces = len(kind.subtypes)
        subtype_die = int(rng.integers(1, subtype_faces + 1))
        subtype = kind.subtypes[subtype_die - 1]
    quantity_die: int | None = None
    if kind.quantity_die is not None:
        quantity_die = int(rng.integers(1, kind.quantity_die + 1))
    return SearchResult(
        kind_die=kind_die,
        kind_faces=kind_faces,
        kind=kind.slug,
        kind_label=kind.label,
        kind_examples=kind.examples,
        subtype_die=subtype_die,
        subtype_faces=subtype_faces,
        subtype=None if subtype is None else subtype.slug,
        subtype_label=None if subtype is None else subtype.label,
        subtype_examples=None if subtype is None else subtype.examples,
        quantity_die=quantity_die,
        quantity_faces=kind.quantity_die,
        quantity=quantity_die,
    )
