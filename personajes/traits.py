"""A campaign's traits and a sheet's points in them: the default ten, the checks of an
allocation against the creation rules, and the write of the points.

The sheet actions (``personajes.sheets``) use these; ``campaign_traits`` is also what pages,
the demo and tests call to get a campaign's traits in sheet order.

Source: RULES.md R5 (sheets), R8 (dirt-sensitive traits).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import NON_FIELD_ERRORS
from django.utils.translation import gettext as _

from mundo.models import Campaign
from personajes._helpers import INTEGER_TEXT
from personajes.mapping import trait_definitions
from personajes.models import Character, Trait, TraitValue
from reglas.characters import AllocationProblem, validate_allocation


def campaign_traits(*, campaign: Campaign) -> list[Trait]:
    """The campaign's traits in sheet order; the first call creates the default ten.

    Defaults come from the campaign's traits table (``campaign.tables.traits``: the shipped
    ``reglas/data/traits.json`` unless the campaign replaced it; positions 10, 20, … so the master
    can slot new traits between them). Idempotent and safe to run twice at once:
    ``bulk_create(ignore_conflicts=True)`` on the (campaign, slug) unique constraint, then a
    re-read, so a concurrent first call's rows are returned instead of duplicated. A campaign
    that already has traits (the master's own list) is never touched.
    Source: RULES.md R5, R8.
    """
    traits = list(Trait.objects.filter(campaign=campaign))
    if traits:
        return traits
    Trait.objects.bulk_create(
        [
            Trait(
                campaign=campaign,
                slug=definition.slug,
                name=definition.name,
                position=10 * (i + 1),
            )
            for i, definition in enumerate(campaign.tables.traits.traits)
        ],
        ignore_conflicts=True,
    )
    return list(Trait.objects.filter(campaign=campaign))


def coerce_points(value: object) -> object:
    """Form text to an int where it is one ("3" → 3, "-1" → −1, "" → 0); anything else is
    returned as it is so that ``validate_allocation`` reports it (``"3.5"``, ``"x"``, 2.5).

    An empty form field counts as 0 points, like a trait left out of the allocation.
    Source: RULES.md R5.
    """
    if value is None:
        return 0
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0
        if INTEGER_TEXT.fullmatch(text):
            return int(text)
    return value


def allocation_errors(
    problems: list[AllocationProblem], traits: list[Trait], cap: int
) -> dict[str, list[str]]:
    """The engine's per-trait problems as form errors keyed by trait slug.

    The engine's own messages are Spanish only; these go through gettext so the English UI
    reads English too. Totals are handled by ``_total_message``. ``cap`` is the most points
    one trait may hold (the campaign's ``trait_cap``, or ``MAX_TRAIT_VALUE`` for the master).
    Returns ``{trait slug or "__all__": [message, …]}``. Source: RULES.md R5.
    """
    names = {t.slug: t.name for t in traits}
    errors: dict[str, list[str]] = {}
    for problem in problems:
        name = names.get(problem.trait or "", problem.trait or "")
        if problem.code == "unknown_trait":
            message = _("There is no trait “%(slug)s” in this campaign.") % {"slug": problem.trait}
        elif problem.code == "not_int":
            message = _("%(trait)s: the points must be a whole number.") % {"trait": name}
        elif problem.code == "negative":
            message = _("%(trait)s: the points cannot be negative.") % {"trait": name}
        else:  # over_cap
            message = _("%(trait)s: at most %(cap)d points in one trait.") % {
                "trait": name,
                "cap": cap,
            }
        errors.setdefault(problem.trait or NON_FIELD_ERRORS, []).append(message)
    return errors


def _total_message(code: str, points: int, total: int) -> str:
    if code == "total_mismatch":
        return _("You must distribute exactly %(points)d points (you have %(total)d).") % {
            "points": points,
            "total": total,
        }
    return _("There are only %(points)d points to distribute (you have %(total)d).") % {
        "points": points,
        "total": total,
    }


def check_sheet_allocation(
    allocation: Mapping[str, object], traits: list[Trait], campaign: Campaign, *, submitting: bool
) -> tuple[dict[str, int], dict[str, list[str]]]:
    """Validate a player's whole-sheet allocation (R5): ``(values for every trait, errors)``.

    Traits left out count 0. Uses the campaign's ``creation_points`` and ``trait_cap``;
    ``submitting`` asks for the exact total, a draft only for no more than it. Errors are
    ``{trait slug or "__all__": [message, …]}``, empty when the sheet is valid; nothing raised.
    Source: RULES.md R5.
    """
    rules = campaign.rules
    coerced = {str(slug): coerce_points(value) for slug, value in allocation.items()}
    problems = validate_allocation(
        coerced,
        trait_definitions(traits),
        creation_points=rules.creation_points,
        trait_cap=rules.trait_cap,
        submitting=submitting,
    )
    errors = allocation_errors(
        [p for p in problems if p.trait is not None], traits, rules.trait_cap
    )
    totals = [p for p in problems if p.trait is None]
    if totals and not errors:
        # Only meaningful once every value is a valid number.
        total = sum(int(v) for v in coerced.values() if isinstance(v, int))
        errors[NON_FIELD_ERRORS] = [_total_message(totals[0].code, rules.creation_points, total)]
    values = {t.slug: int(v) if isinstance(v := coerced.get(t.slug, 0), int) else 0 for t in traits}
    return values, errors


def write_trait_values(
    character: Character, traits: list[Trait], values: Mapping[str, int]
) -> None:
    """Set the character's points for the given trait slugs (update or create rows).

    ``values`` ``{trait slug: points}``; traits whose slug is missing keep their row. One read
    of the character's rows, then at most one bulk update and one bulk insert.
    Source: RULES.md R5.
    """
    rows = {row.trait_id: row for row in TraitValue.objects.filter(character=character)}
    to_update, to_create = [], []
    for trait in traits:
        if trait.slug not in values:
            continue
        new = values[trait.slug]
        row = rows.get(trait.pk)
        if row is None:
            to_create.append(TraitValue(character=character, trait=trait, value=new))
        elif row.value != new:
            row.value = new
            to_update.append(row)
    if to_update:
        TraitValue.objects.bulk_update(to_update, ["value"])
    if to_create:
        TraitValue.objects.bulk_create(to_create)


__all__ = [
    "allocation_errors",
    "campaign_traits",
    "check_sheet_allocation",
    "coerce_points",
    "write_trait_values",
]
