"""Template helpers of the character pages: percentages, dice marks, a campaign's cast."""

from __future__ import annotations

from django import template
from django.core.paginator import Page, Paginator
from django.db.models import Q
from django.utils.formats import number_format

from mundo.models import Campaign
from personajes.models import Character, Movement, Roll

register = template.Library()


@register.filter
def percent(p: float | None, decimals: int = 0) -> str:
    """A probability 0..1 as localised percent text: ``0.657`` → ``"66 %"`` (``"65,7 %"``
    with ``decimals=1``); ``"—"`` when unknown."""
    if p is None:
        return "—"
    return f"{number_format(round(100 * p, decimals), decimals)} %"


@register.filter
def dice_marks(roll: Roll) -> list[tuple[int, bool | None]]:
    """Each die of a stored roll with whether it succeeded (R1: die ≤ effective threshold);
    None while the master has not set the threshold, and for the faces of a free dice
    expression (R4), which are stored per term as ``{"expression", "faces", …}``."""
    if roll.kind == Roll.Kind.EXPRESSION:
        return [(int(face), None) for term in roll.dice for face in term.get("faces", ())]
    threshold = roll.effective_threshold
    return [(int(d), None if threshold is None else int(d) <= threshold) for d in roll.dice]


@register.filter
def modifier_total(modifiers: object) -> int:
    """Sum of the points of a breakdown: Modifier objects or their stored dicts."""
    total = 0
    for m in modifiers or ():  # type: ignore[attr-defined]
        total += int(m["points"] if isinstance(m, dict) else m.points)
    return total


CAST_PAGE_SIZE = 50
"""Characters per page of a campaign page's cast."""


@register.simple_tag
def approved_characters(campaign: Campaign, number: int | str | None = 1) -> Page[Character]:
    """Page ``number`` (``?cast=``; a bad number is the nearest page) of the campaign's
    approved characters by name, ``CAST_PAGE_SIZE`` a page, with their players: two queries
    (the count, the page) however many there are.

    Shown on the campaign page to whoever may read it: an approved sheet is public within the
    campaign (RULES.md R5).
    """
    approved = (
        Character.objects.filter(campaign=campaign, status=Character.Status.APPROVED)
        .select_related("player")
        .order_by("name", "pk")
    )
    return Paginator(approved, CAST_PAGE_SIZE).get_page(number)


@register.simple_tag
def place_movements(campaign: Campaign, limit: int = 50) -> list[Movement]:
    """The latest movements from or to the campaign's places (stashes, shops), newest first:
    one query. For the master's world page. Source: RULES.md R15, R23."""
    involving_place = Q(from_place__isnull=False) | Q(to_place__isnull=False)
    return list(
        Movement.objects.filter(involving_place, campaign=campaign)
        .select_related(
            "item_type", "from_character", "to_character", "from_place", "to_place", "made_by"
        )
        .order_by("-created_at", "-id")[:limit]
    )
