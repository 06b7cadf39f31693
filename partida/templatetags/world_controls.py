"""The master's world controls on the world page (``mundo/world_master.html``): the forms,
the latest moves and supply movements (windowed: the full lists are their history pages), and
the route checks whose zombies wait to be played.

A template tag because the world page is ``mundo``'s and these pieces are ``personajes``'s:
``partida`` composes both. Source: RULES.md R15, R17, R18.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.db.models import Q
from django.utils.functional import SimpleLazyObject

from mundo.models import Campaign, WorldRoll
from mundo.world_page import WorldScope
from partida.world_forms import control_forms
from personajes import places
from personajes.models import CharacterMove, Movement

register = template.Library()

WINDOW = 10
"""Rows of each list on the world page; the rest are on the history pages."""

_PENDING_COLUMNS = (
    "route_check",
    *(f"route_check__{f.name}" for f in WorldRoll._meta.concrete_fields),
    "route_check__settlement__name",
    "character__name",
)
_MOVEMENT_COLUMNS = tuple(f.name for f in Movement._meta.concrete_fields)
_MOVEMENT_JOINED = (
    "item_type__name",
    "from_place__name",
    "to_place__name",
    "made_by__username",
    "reversal__id",
)


@register.simple_tag
def world_controls(
    campaign: Campaign, query: Any = None, scope: WorldScope | None = None
) -> dict[str, Any]:
    """The controls of the world page's sections, each read when a section first shows it:
    ``forms`` by action, offering the ``scope``'s rows (``mundo.world_page``; ``query``, the
    page's GET, may preset the give form: see ``partida.world_forms.control_forms``),
    ``moves`` and ``movements`` (latest ``WINDOW``; one query each, and a few more for the
    rows' characters and settlements when there are any). Each section that shows one calls
    this tag: the rows the forms offer are read once per page (``WorldScope.rows``)."""
    return {
        "forms": control_forms(campaign, query, scope),
        "moves": SimpleLazyObject(lambda: places.recent_moves(campaign.pk, WINDOW)),
        "movements": SimpleLazyObject(lambda: _movements(campaign)),
    }


@register.simple_tag
def pending_routes(campaign: Campaign) -> list[tuple[WorldRoll, list[Any]]]:
    """Each route check with zombies met not yet played, as ``(route_check, [characters])``:
    the ``route_check`` (a ``WorldRoll``) is the hook the combat pages use to open a fight
    with those zombies. One query."""
    pending: dict[int, tuple[WorldRoll, list[Any]]] = {}
    for move in (
        CharacterMove.objects.filter(campaign=campaign, outcome=CharacterMove.Outcome.PENDING)
        .select_related("route_check", "route_check__settlement", "character")
        # The route check whole, its settlement's and the characters' names only.
        .only(*_PENDING_COLUMNS)
        .order_by("-route_check_id", "character__name")
    ):
        if move.route_check is None:
            continue
        pending.setdefault(move.route_check.pk, (move.route_check, []))[1].append(move.character)
    return list(pending.values())


def _movements(campaign: Campaign) -> list[Movement]:
    """The latest ``WINDOW`` movements of places' supplies, newest first."""
    return list(
        Movement.objects.filter(Q(from_place__isnull=False) | Q(to_place__isnull=False))
        .filter(campaign=campaign)
        # The characters apart (two small queries when there are rows): with them, seven
        # joins cost PostgreSQL ~15× more to plan than five (see places.recent_moves).
        .select_related("item_type", "from_place", "to_place", "made_by", "reversal")
        # Of the joined rows only what the list shows: their other columns cost more to
        # build than the query takes to run.
        .only(*_MOVEMENT_COLUMNS, *_MOVEMENT_JOINED)
        .prefetch_related("from_character", "to_character")
        .order_by("-created_at", "-id")[:WINDOW]
    )
