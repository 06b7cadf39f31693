"""Sheets: a character's creation, the player's draft and its submission, the master's review
and the master's logged edits of any sheet.

Every service is keyword-only, validates all its input before writing anything, runs inside
its campaign's lock (one transaction) and raises ``nucleo.errors.ServiceError`` (a Django
ValidationError) with a translated message: a dict ``{field: message}`` for field errors (a
trait's slug for its points, ``"__all__"`` for the total) or a plain message for permission and
state errors. Nothing is saved when it raises.

Locks (``nucleo.locks``): every write runs inside its campaign's lock, then locks the character
row it reads and writes (``lock_character``), so the check and the write see the same row, and
the daily tick, which holds the same campaign lock, never interleaves with it.

Source: RULES.md R5 (sheets), R6–R13 (the condition the master may set).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO

from django.db import models
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from mundo.access import is_master
from mundo.models import Campaign, Membership
from nucleo.errors import ServiceError
from nucleo.locks import campaign_locked
from nucleo.text import clean_line, clean_text
from nucleo.users import AnyUser
from personajes import signals
from personajes._helpers import INTEGER_TEXT, by_character, clean_reason, lock_character
from personajes.arrival import arrival_give
from personajes.mapping import CONDITION_FIELDS, trait_definitions
from personajes.models import Character, SheetChange, Trait, TraitValue
from personajes.portraits import portrait_assign, validate_portrait
from personajes.traits import (
    allocation_errors,
    campaign_traits,
    check_sheet_allocation,
    coerce_points,
    write_trait_values,
)
from reglas.characters import ConditionState, validate_allocation
from reglas.dice import MAX_ACTION_DICE

MAX_TRAIT_VALUE = MAX_ACTION_DICE - 1
"""Highest trait value the master may set (999): 1 + value dice must stay within the engine's
limit on dice in one roll, or the character could not roll that trait at all."""

MAX_COUNTER = 32767
"""Highest condition counter the database column holds (PositiveSmallIntegerField)."""

NAME_MAX_LENGTH = Character._meta.get_field("name").max_length or 80
"""Most characters of a character's name (the column's length)."""

_TRUE_TEXT = frozenset({"true", "1", "on", "yes", "si", "sí"})
_FALSE_TEXT = frozenset({"false", "0", "off", "no", ""})
_CONDITION_BOOLS = frozenset(
    name for name in CONDITION_FIELDS if isinstance(getattr(ConditionState(), name), bool)
)


def _clean_name(name: str) -> str:
    """The stripped name; raises ServiceError({"name": …}) when empty or too long."""
    text = clean_line(name).strip()
    if not text:
        raise ServiceError({"name": _("Give the character a name.")})
    if len(text) > NAME_MAX_LENGTH:
        raise ServiceError(
            {"name": _("The name can have at most %(max)d characters.") % {"max": NAME_MAX_LENGTH}}
        )
    return text


@campaign_locked(lambda campaign, **_: campaign.pk)
def character_create(
    *,
    campaign: Campaign,
    player: AnyUser,
    name: str,
    concept: str = "",
    portrait: IO[bytes] | None = None,
) -> Character:
    """Create a DRAFT character for ``player`` with 0 points in every campaign trait.

    ``player`` must be a member of the campaign (player or master role) and have fewer than
    ``campaign.living_characters_per_player`` living characters there (draft, submitted or
    approved; dead and risen ones do not count). ``name`` is stripped, 1..80 characters.
    Runs under the campaign lock, so two simultaneous creations cannot both pass the limit.
    Creates the campaign's default traits if it has none yet.
    Raises ServiceError: not a member, limit reached, or field errors (``name``, ``portrait``).
    Source: RULES.md R5.
    """
    clean_name = _clean_name(name)
    if portrait:
        validate_portrait(portrait)
    if (
        player is None
        or not player.is_authenticated
        or not Membership.objects.filter(campaign=campaign, user=player).exists()
    ):
        raise ServiceError(_("Only members of the campaign can create characters in it."))
    limit = campaign.living_characters_per_player
    living = Character.objects.filter(
        campaign=campaign, player=player, status__in=Character.LIVING_STATUSES
    ).count()
    if living >= limit:
        raise ServiceError(
            ngettext(
                "You already have %(count)d living character in this campaign, the most allowed.",
                "You already have %(count)d living characters in this campaign, the most allowed.",
                limit,
            )
            % {"count": limit}
        )
    traits = campaign_traits(campaign=campaign)
    character = Character(
        campaign=campaign,
        player=player,
        name=clean_name,
        concept=clean_text(concept).strip(),
        status=Character.Status.DRAFT,
    )
    if portrait:
        portrait_assign(character, portrait)
    character.save()
    TraitValue.objects.bulk_create(
        [TraitValue(character=character, trait=trait, value=0) for trait in traits]
    )
    return character


def _edit_refusal(status: str) -> str:
    # gettext at call time (not at import) so the message follows the request's language.
    if status == Character.Status.SUBMITTED:
        return _(
            "The sheet is with the master for review: it cannot be changed until the master "
            "returns it."
        )
    if status == Character.Status.APPROVED:
        return _("An approved sheet can only be changed by the master.")
    return _("This character is dead: the sheet can no longer be changed.")


@campaign_locked(by_character)
def sheet_save(
    *,
    character: Character,
    user: AnyUser,
    allocation: Mapping[str, object],
    submit: bool = False,
    name: str | None = None,
    concept: str | None = None,
    portrait: IO[bytes] | None = None,
) -> Character:
    """The player saves their DRAFT sheet, and with ``submit`` sends it to the master.

    ``allocation`` is the whole sheet ``{trait slug: points}``; values may be ints or form text
    ("3"); a trait left out (or an empty field) counts 0. Each value must be a whole number
    0..``trait_cap``; the total must not exceed ``creation_points`` (10) in a draft and must
    equal it when submitting. ``name``/``concept``/``portrait`` None = unchanged.
    A sheet the master returned is a draft again; its ``review_comment`` is kept for the
    player to read until the next review. Returns the saved character (a fresh instance).
    Raises ServiceError: a dict of field errors (trait slug, ``__all__`` for the total,
    ``name``, ``portrait``) with nothing saved; or a permission message when ``user`` is not
    the owner or the sheet is not a draft (submitted, approved, dead: the master edits those
    with ``sheet_master_edit``).
    Source: RULES.md R5.
    """
    locked = lock_character(character)
    if user is None or not user.is_authenticated or locked.player_id != user.pk:
        raise ServiceError(_("Only the character's player can edit this sheet."))
    if locked.status != Character.Status.DRAFT:
        raise ServiceError(_edit_refusal(locked.status))

    traits = campaign_traits(campaign=locked.campaign)
    values, errors = check_sheet_allocation(allocation, traits, locked.campaign, submitting=submit)
    new_name = None
    if name is not None:
        try:
            new_name = _clean_name(name)
        except ServiceError as exc:
            errors.update(exc.message_dict)
    if portrait:
        try:
            validate_portrait(portrait)
        except ServiceError as exc:
            errors.update(exc.message_dict)
    if errors:
        raise ServiceError(errors)

    write_trait_values(locked, traits, values)
    if new_name is not None:
        locked.name = new_name
    if concept is not None:
        locked.concept = clean_text(concept).strip()
    if portrait:
        portrait_assign(locked, portrait)
    if submit:
        locked.status = Character.Status.SUBMITTED
    locked.save()
    if submit:
        signals.sheet_submitted.send(sender=Character, character=locked, user=user)
    return locked


@campaign_locked(by_character)
def sheet_review(
    *, character: Character, master: AnyUser, approve: bool, comment: str = ""
) -> Character:
    """The campaign's master approves a SUBMITTED sheet, or returns it to the player.

    Approve → APPROVED (locked for the player), ``review_comment`` = ``comment`` (may be
    empty), and the arrival: the campaign's kit and default shelter (``personajes.arrival``).
    Return → DRAFT with ``review_comment`` = ``comment``, which is then required.
    Approval re-checks the sheet against the campaign's current ``creation_points`` and
    ``trait_cap`` (the master may have changed them, or added a trait, since submission).
    Raises ServiceError: not the master; the sheet is not submitted; no comment when
    returning (``{"comment": …}``); the points no longer add up.
    Sends ``personajes.signals.sheet_reviewed`` (the scenes open to newcomers, the player's
    notice). Source: RULES.md R5, R15.
    """
    text = (comment or "").strip()
    locked = lock_character(character)
    if not is_master(locked.campaign_id, master):
        raise ServiceError(_("Only the campaign's master can review sheets."))
    if locked.status != Character.Status.SUBMITTED:
        raise ServiceError(
            _("Only a submitted sheet can be reviewed; this one is “%(status)s”.")
            % {"status": locked.get_status_display()}
        )
    if not approve and not text:
        raise ServiceError(
            {"comment": _("Tell the player what to change when you return a sheet.")}
        )
    if approve:
        traits = campaign_traits(campaign=locked.campaign)
        values = dict(
            TraitValue.objects.filter(character=locked).values_list("trait__slug", "value")
        )
        _values, errors = check_sheet_allocation(values, traits, locked.campaign, submitting=True)
        if errors:
            raise ServiceError(
                _(
                    "This sheet no longer follows the campaign's creation rules; return it "
                    "to the player: %(problems)s"
                )
                % {"problems": " ".join(m for ms in errors.values() for m in ms)}
            )
    locked.status = Character.Status.APPROVED if approve else Character.Status.DRAFT
    locked.review_comment = text
    locked.save(update_fields=["status", "review_comment", "updated_at"])
    kit, shelter = arrival_give(character=locked, user=master) if approve else ([], None)
    signals.sheet_reviewed.send(
        sender=Character,
        character=locked,
        master=master,
        approved=approve,
        comment=text,
        kit=kit,
        shelter=shelter,
    )
    return locked


def _coerce_condition(name: str, value: object) -> tuple[object, str | None]:
    """A condition value from an int/bool or form text: ``(value, error message or None)``."""
    if name in _CONDITION_BOOLS:
        if isinstance(value, bool):
            return value, None
        if isinstance(value, int) and value in (0, 1):
            return bool(value), None
        if isinstance(value, str) and value.strip().lower() in _TRUE_TEXT | _FALSE_TEXT:
            return value.strip().lower() in _TRUE_TEXT, None
        return value, _("Must be yes or no.")
    if isinstance(value, str) and INTEGER_TEXT.fullmatch(value.strip()):
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        return value, _("Must be a whole number of days.")
    if value < 0:
        return value, _("Cannot be negative.")
    if value > MAX_COUNTER:
        return value, _("At most %(max)d.") % {"max": MAX_COUNTER}
    return value, None


def _field_label(name: str) -> str:
    field = Character._meta.get_field(name)
    assert isinstance(field, models.Field)  # CONDITION_FIELDS are the model's own columns
    return str(field.verbose_name)


def _display(value: object) -> str:
    """A value as the change log shows it (yes/no for flags)."""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    return str(value)


def _master_points(
    allocation: Mapping[str, object] | None, traits: list[Trait]
) -> tuple[dict[str, int], dict[str, list[str]]]:
    """The master's patch of points: ``({trait slug: points}, errors by trait slug)``.

    Whole numbers 0..``MAX_TRAIT_VALUE``; traits left out are not in the patch.
    """
    if not allocation:
        return {}, {}
    coerced = {str(slug): coerce_points(value) for slug, value in allocation.items()}
    problems = validate_allocation(
        coerced,
        trait_definitions(traits),
        # The creation total does not bind the master: totals are ignored below.
        creation_points=0,
        trait_cap=MAX_TRAIT_VALUE,
    )
    errors = allocation_errors(
        [p for p in problems if p.trait is not None], traits, MAX_TRAIT_VALUE
    )
    return {slug: v for slug, v in coerced.items() if isinstance(v, int)}, errors


def _master_condition(
    condition: Mapping[str, object] | None,
) -> tuple[dict[str, object], dict[str, list[str]]]:
    """The master's condition values, coerced: ``({field: value}, errors by field name)``."""
    values: dict[str, object] = {}
    errors: dict[str, list[str]] = {}
    for name, raw in (condition or {}).items():
        if name not in CONDITION_FIELDS:
            errors.setdefault(name, []).append(
                _("There is no condition field “%(field)s”.") % {"field": name}
            )
            continue
        value, problem = _coerce_condition(name, raw)
        if problem:
            errors.setdefault(name, []).append(problem)
        else:
            values[name] = value
    return values, errors


def _duration_errors(character: Character, condition: Mapping[str, object]) -> dict[str, list[str]]:
    """Errors for a disease or infection day past its duration once ``condition`` applies."""
    merged = {f: condition.get(f, getattr(character, f)) for f in CONDITION_FIELDS}
    errors: dict[str, list[str]] = {}
    for day, duration in (
        ("disease_day", "disease_duration"),
        ("infection_day", "infection_duration"),
    ):
        if merged[day] > merged[duration]:  # type: ignore[operator]
            errors[day] = [
                _("Day %(day)s cannot be past the duration (%(duration)s days).")
                % {"day": merged[day], "duration": merged[duration]}
            ]
    return errors


def _apply_points(
    character: Character, traits: list[Trait], points: Mapping[str, int], **log: object
) -> list[SheetChange]:
    """Write the points that differ from the character's and return their (unsaved) log rows;
    ``log`` is the rows' ``changed_by`` and ``reason``."""
    current = dict(TraitValue.objects.filter(character=character).values_list("trait_id", "value"))
    changes: list[SheetChange] = []
    changed: dict[str, int] = {}
    for trait in traits:
        old = current.get(trait.pk, 0)
        if trait.slug in points and points[trait.slug] != old:
            changed[trait.slug] = points[trait.slug]
            changes.append(
                SheetChange(
                    character=character,
                    field=trait.name,
                    old_value=str(old),
                    new_value=str(points[trait.slug]),
                    **log,
                )
            )
    write_trait_values(character, traits, changed)
    return changes


def _apply_condition(
    character: Character, condition: Mapping[str, object], **log: object
) -> list[SheetChange]:
    """Save the condition values that differ from the character's and return their (unsaved)
    log rows, in ``CONDITION_FIELDS`` order; ``log`` is the rows' ``changed_by`` and ``reason``."""
    changes: list[SheetChange] = []
    changed_fields = []
    for name in CONDITION_FIELDS:
        if name in condition and condition[name] != getattr(character, name):
            changes.append(
                SheetChange(
                    character=character,
                    field=_field_label(name),
                    old_value=_display(getattr(character, name)),
                    new_value=_display(condition[name]),
                    **log,
                )
            )
            setattr(character, name, condition[name])
            changed_fields.append(name)
    if changed_fields:
        character.save(update_fields=[*changed_fields, "updated_at"])
    return changes


@campaign_locked(by_character)
def sheet_master_edit(
    *,
    character: Character,
    master: AnyUser,
    allocation: Mapping[str, object] | None = None,
    condition: Mapping[str, object] | None = None,
    reason: str = "",
) -> list[SheetChange]:
    """The campaign's master changes any sheet (approved, dead… included); every changed value
    is logged as a SheetChange (field, old → new, who, ``reason``).

    ``allocation`` ``{trait slug: points}`` is a patch: traits left out keep their points.
    Points are whole numbers 0..999 (the engine's dice limit); the creation total and
    ``trait_cap`` do not bind the master. ``condition`` ``{field: value}`` uses the names of
    ``reglas.characters.ConditionState`` (counters in days, flags yes/no); ``disease_day``
    and ``infection_day`` cannot pass their duration. Unchanged values write no row.
    Returns the changes written, trait changes first. ``field`` is the trait's name or the
    condition field's verbose name.
    Raises ServiceError: not the campaign's master (plain message); field errors keyed by
    trait slug or condition field name (nothing saved).
    Source: RULES.md R5 ("the master can still edit, and the change is logged"), R6–R13.
    """
    reason_text = clean_reason(reason)
    locked = lock_character(character)
    if not is_master(locked.campaign_id, master):
        raise ServiceError(_("Only the campaign's master can change this sheet."))

    traits = campaign_traits(campaign=locked.campaign)
    points, errors = _master_points(allocation, traits)
    new_condition, condition_errors = _master_condition(condition)
    for name, messages in condition_errors.items():
        errors.setdefault(name, []).extend(messages)
    if not errors:
        errors = _duration_errors(locked, new_condition)
    if errors:
        raise ServiceError(errors)

    log = {"changed_by": master, "reason": reason_text}
    changes = _apply_points(locked, traits, points, **log)
    changes += _apply_condition(locked, new_condition, **log)
    if changes:
        SheetChange.objects.bulk_create(changes)
    return changes


__all__ = [
    "MAX_TRAIT_VALUE",
    "character_create",
    "sheet_master_edit",
    "sheet_review",
    "sheet_save",
]
