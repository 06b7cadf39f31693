"""Shared data of the character page tests (test_pages.py, test_pages_matrix.py)."""

from __future__ import annotations

from django.test import Client

SHEET = {"fuerza": 2, "agilidad": 2, "resistencia": 2, "percepcion": 2, "sigilo": 2}
"""A complete sheet: 10 points (R5)."""

TRAIT_SLUGS = (
    "fuerza",
    "agilidad",
    "resistencia",
    "percepcion",
    "sigilo",
    "pelea",
    "armas_cac",
    "armas_distancia",
    "medicina",
    "supervivencia",
)
"""The default ten traits of R5, in sheet order."""


def client_for(user) -> Client:
    """A test client signed in as ``user`` (None: anonymous)."""
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def sheet_data(name: str = "Ana", action: str = "draft", **points: object) -> dict[str, object]:
    """A builder POST: name, the button pressed and ``slug=points`` for some traits."""
    data: dict[str, object] = {"name": name, "concept": "", "action": action}
    data |= {f"trait_{slug}": value for slug, value in points.items()}
    return data


def master_edit_data(
    allocation: dict[str, int] | None = None, **changes: object
) -> dict[str, object]:
    """A full master-edit POST: every trait and condition field, as the page sends them."""
    from personajes.mapping import CONDITION_FIELDS
    from personajes.models import Character

    allocation = SHEET if allocation is None else allocation
    data: dict[str, object] = {f"trait_{s}": allocation.get(s, 0) for s in TRAIT_SLUGS}
    for name in CONDITION_FIELDS:
        if Character._meta.get_field(name).get_internal_type() != "BooleanField":
            data[name] = 0  # an unticked checkbox is simply absent
    data["reason"] = ""
    return data | changes
