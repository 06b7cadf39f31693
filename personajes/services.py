"""Writes of characters: sheets, their review, the master's edits, inventory and action rolls.

Every service is keyword-only, validates all its input before writing anything, runs inside
its campaign's lock (one transaction) and raises ``nucleo.errors.ServiceError`` (a Django
ValidationError) with a Spanish message: a dict ``{field: message}`` for field errors (a trait's
slug for its points, ``"__all__"`` for the total) or a plain message for permission and state
errors. Nothing is saved when it raises.

Locks (``nucleo.locks``): every write runs inside its campaign's lock, then locks the character
row it reads and writes (``lock_row``), so the check and the write see the same row, and the
daily tick, which holds the same campaign lock, never interleaves with it. Rolls are written by
the ledger (``nucleo.ledger.roll_record``).
Rolls are append-only (``Roll.save`` refuses updates); the one later change, the master's
threshold, is a compare-and-swap ``update``.

Source: RULES.md R3 (action rolls), R5 (sheets), R8 (dirt), R9 (penalty), DESIGN.md
"Randomness and the roll ledger".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import IO

from django.core.exceptions import NON_FIELD_ERRORS
from django.db.models import F
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from PIL import Image

from mundo.access import is_master
from mundo.models import Campaign, Membership
from nucleo.errors import ServiceError
from nucleo.locks import campaign_locked, lock_row
from nucleo.users import AnyUser
from personajes.mapping import CONDITION_FIELDS, trait_definitions
from personajes.models import (
    PORTRAIT_MAX_BYTES,
    Character,
    InventoryItem,
    ItemType,
    SheetChange,
    Trait,
    TraitValue,
)
from reglas.characters import (
    AllocationProblem,
    ConditionState,
    is_dirt_sensitive,
    validate_allocation,
)
from reglas.dice import D100, MAX_ACTION_DICE

MAX_TRAIT_VALUE = MAX_ACTION_DICE - 1
"""Highest trait value the master may set (999): 1 + value dice must stay within the engine's
limit on dice in one roll, or the character could not roll that trait at all."""

MAX_COUNTER = 32767
"""Highest condition counter the database column holds (PositiveSmallIntegerField)."""

PORTRAIT_FORMATS = frozenset({"JPEG", "PNG", "WEBP", "GIF"})
"""Pillow format names of the accepted portrait images."""

PORTRAIT_MAX_PIXELS = 40_000_000
"""A 2 MB file can still declare a huge canvas (a decompression bomb); 40 Mpx is plenty."""

NAME_MAX_LENGTH = Character._meta.get_field("name").max_length or 80
REASON_MAX_LENGTH = 200
"""Most characters of a roll's (or an edit's) reason."""

_INTEGER_TEXT = re.compile(r"[+-]?[0-9]{1,12}")
_TRUE_TEXT = frozenset({"true", "1", "on", "yes", "si", "sí"})
_FALSE_TEXT = frozenset({"false", "0", "off", "no", ""})
_CONDITION_BOOLS = frozenset(
    name for name in CONDITION_FIELDS if isinstance(getattr(ConditionState(), name), bool)
)


# --- helpers -----------------------------------------------------------------------------------


def _lock_character(character: Character) -> Character:
    """The character re-read under a row lock, with its campaign (read under the campaign lock
    the service holds: ``by_character``)."""
    return lock_row(Character.objects.select_related("campaign"), character.pk)


def by_character(*, character: Character, **_kwargs: object) -> int:
    """The campaign id whose lock a service about ``character`` takes (``campaign_locked``)."""
    return int(character.campaign_id)


def _clean_name(name: str) -> str:
    """The stripped name; raises ServiceError({"name": …}) when empty or too long."""
    text = (name or "").strip()
    if not text:
        raise ServiceError({"name": _("Give the character a name.")})
    if len(text) > NAME_MAX_LENGTH:
        raise ServiceError(
            {"name": _("The name can have at most %(max)d characters.") % {"max": NAME_MAX_LENGTH}}
        )
    return text


def _coerce_points(value: object) -> object:
    """Form text to an int where it is one ("3" → 3, "-1" → −1, "" → 0); anything else is
    returned as it is so that ``validate_allocation`` reports it (``"3.5"``, ``"x"``, 2.5).

    An empty form field counts as 0 points, like a trait left out of the allocation.
    """
    if value is None:
        return 0
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0
        if _INTEGER_TEXT.fullmatch(text):
            return int(text)
    return value


def _allocation_errors(
    problems: list[AllocationProblem], traits: list[Trait], cap: int
) -> dict[str, list[str]]:
    """The engine's per-trait problems as form errors keyed by trait slug.

    The engine's own messages are Spanish only; these go through gettext so the English UI
    reads English too. Totals are handled by ``_total_message``.
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


def _check_sheet_allocation(
    allocation: Mapping[str, object], traits: list[Trait], campaign: Campaign, *, submitting: bool
) -> tuple[dict[str, int], dict[str, list[str]]]:
    """Validate a player's whole-sheet allocation (R5): ``(values for every trait, errors)``.

    Traits left out count 0. Uses the campaign's ``creation_points`` and ``trait_cap``.
    """
    rules = campaign.rules
    coerced = {str(slug): _coerce_points(value) for slug, value in allocation.items()}
    problems = validate_allocation(
        coerced,
        trait_definitions(traits),
        creation_points=rules.creation_points,
        trait_cap=rules.trait_cap,
        submitting=submitting,
    )
    errors = _allocation_errors(
        [p for p in problems if p.trait is not None], traits, rules.trait_cap
    )
    totals = [p for p in problems if p.trait is None]
    if totals and not errors:
        # Only meaningful once every value is a valid number.
        total = sum(int(v) for v in coerced.values() if isinstance(v, int))
        errors[NON_FIELD_ERRORS] = [_total_message(totals[0].code, rules.creation_points, total)]
    values = {t.slug: int(v) if isinstance(v := coerced.get(t.slug, 0), int) else 0 for t in traits}
    return values, errors


def _write_trait_values(
    character: Character, traits: list[Trait], values: Mapping[str, int]
) -> None:
    """Set the character's points for the given trait slugs (update or create rows)."""
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


def clean_reason(reason: str) -> str:
    """The stripped reason of a roll or an edit; raises ServiceError({"reason": …}) over
    ``REASON_MAX_LENGTH`` (200) characters."""
    text = (reason or "").strip()
    if len(text) > REASON_MAX_LENGTH:
        raise ServiceError(
            {
                "reason": _("The reason can have at most %(max)d characters.")
                % {"max": REASON_MAX_LENGTH}
            }
        )
    return text


def parse_threshold(value: object, *, required: bool) -> int | None:
    """A base threshold: an int 0..100 (%, digits text accepted), or None when not required;
    raises ServiceError({"base_threshold": …}) otherwise."""
    if value is None and not required:
        return None
    if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value.strip()):
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= D100:
        raise ServiceError(
            {"base_threshold": _("The threshold must be a whole number from 0 to 100 (%).")}
        )
    return value


# --- traits ------------------------------------------------------------------------------------


def campaign_traits(*, campaign: Campaign) -> list[Trait]:
    """The campaign's traits in sheet order; the first call creates the default ten.

    Defaults come from the campaign's traits table (``campaign.tables.traits``: the shipped
    ``reglas/data/traits.json`` unless the campaign replaced it; positions 10, 20, … so the master
    can slot new traits between them), dirt-sensitive per the campaign's
    ``dirt_sensitive_traits`` (Sigilo by default). Idempotent and safe to run twice at once:
    ``bulk_create(ignore_conflicts=True)`` on the (campaign, slug) unique constraint, then a
    re-read, so a concurrent first call's rows are returned instead of duplicated. A campaign
    that already has traits (the master's own list) is never touched.
    Source: RULES.md R5, R8.
    """
    traits = list(Trait.objects.filter(campaign=campaign))
    if traits:
        return traits
    rules = campaign.rules
    Trait.objects.bulk_create(
        [
            Trait(
                campaign=campaign,
                slug=definition.slug,
                name=definition.name,
                position=10 * (i + 1),
                dirt_sensitive=is_dirt_sensitive(definition.slug, rules),
            )
            for i, definition in enumerate(campaign.tables.traits.traits)
        ],
        ignore_conflicts=True,
    )
    return list(Trait.objects.filter(campaign=campaign))


# --- portraits ---------------------------------------------------------------------------------


def validate_portrait(file: IO[bytes]) -> None:
    """Refuse a portrait over 2 MB (``PORTRAIT_MAX_BYTES``), over 40 Mpx, or that is not a real
    JPEG, PNG, WebP or GIF image.

    The bytes are checked with Pillow (``Image.open(…).verify()``): a text file named ``.png``
    or sent as ``image/png`` is refused. The file is rewound afterwards.
    Raises ServiceError({"portrait": …}).
    """
    size = getattr(file, "size", None)
    if size is None:
        file.seek(0, 2)
        size = file.tell()
    if size > PORTRAIT_MAX_BYTES:
        raise ServiceError(
            {
                "portrait": _("The portrait is too large: at most %(mb)d MB.")
                % {"mb": PORTRAIT_MAX_BYTES // (1024 * 1024)}
            }
        )
    not_an_image = ServiceError(
        {"portrait": _("The portrait must be a JPEG, PNG, WebP or GIF image.")}
    )
    try:
        file.seek(0)
        with Image.open(file) as image:
            image_format = image.format
            width, height = image.size
            image.verify()
    except Exception:
        # Pillow raises many types for a broken or foreign file (UnidentifiedImageError,
        # SyntaxError, struct.error, DecompressionBombError…): all mean "not an image we take".
        raise not_an_image from None
    finally:
        file.seek(0)
    if image_format not in PORTRAIT_FORMATS:
        raise not_an_image
    if width * height > PORTRAIT_MAX_PIXELS:
        raise ServiceError({"portrait": _("The portrait has too many pixels.")})


# --- sheets ------------------------------------------------------------------------------------


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
    membership = (
        Membership.objects.filter(campaign=campaign, user=player).first()
        if player is not None and player.is_authenticated
        else None
    )
    if membership is None:
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
        concept=(concept or "").strip(),
        status=Character.Status.DRAFT,
    )
    if portrait:
        character.portrait = portrait
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
    locked = _lock_character(character)
    if user is None or not user.is_authenticated or locked.player_id != user.pk:
        raise ServiceError(_("Only the character's player can edit this sheet."))
    if locked.status != Character.Status.DRAFT:
        raise ServiceError(_edit_refusal(locked.status))

    traits = campaign_traits(campaign=locked.campaign)
    values, errors = _check_sheet_allocation(allocation, traits, locked.campaign, submitting=submit)
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

    _write_trait_values(locked, traits, values)
    if new_name is not None:
        locked.name = new_name
    if concept is not None:
        locked.concept = concept.strip()
    if portrait:
        locked.portrait = portrait
    if submit:
        locked.status = Character.Status.SUBMITTED
    locked.save()
    return locked


@campaign_locked(by_character)
def sheet_review(
    *, character: Character, master: AnyUser, approve: bool, comment: str = ""
) -> Character:
    """The campaign's master approves a SUBMITTED sheet, or returns it to the player.

    Approve → APPROVED (locked for the player), ``review_comment`` = ``comment`` (may be
    empty). Return → DRAFT with ``review_comment`` = ``comment``, which is then required.
    Approval re-checks the sheet against the campaign's current ``creation_points`` and
    ``trait_cap`` (the master may have changed them, or added a trait, since submission).
    Raises ServiceError: not the master; the sheet is not submitted; no comment when
    returning (``{"comment": …}``); the points no longer add up.
    Source: RULES.md R5.
    """
    text = (comment or "").strip()
    locked = _lock_character(character)
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
        _values, errors = _check_sheet_allocation(values, traits, locked.campaign, submitting=True)
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
    if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value.strip()):
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        return value, _("Must be a whole number of days.")
    if value < 0:
        return value, _("Cannot be negative.")
    if value > MAX_COUNTER:
        return value, _("At most %(max)d.") % {"max": MAX_COUNTER}
    return value, None


def _display(value: object) -> str:
    """A value as the change log shows it (yes/no for flags)."""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    return str(value)


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
    locked = _lock_character(character)
    if not is_master(locked.campaign_id, master):
        raise ServiceError(_("Only the campaign's master can change this sheet."))

    traits = campaign_traits(campaign=locked.campaign)
    errors: dict[str, list[str]] = {}
    points: dict[str, int] = {}
    if allocation:
        coerced = {str(slug): _coerce_points(value) for slug, value in allocation.items()}
        problems = validate_allocation(
            coerced,
            trait_definitions(traits),
            # The creation total does not bind the master: totals are ignored below.
            creation_points=0,
            trait_cap=MAX_TRAIT_VALUE,
        )
        errors.update(
            _allocation_errors(
                [p for p in problems if p.trait is not None], traits, MAX_TRAIT_VALUE
            )
        )
        points = {slug: v for slug, v in coerced.items() if isinstance(v, int)}

    new_condition: dict[str, object] = {}
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
            new_condition[name] = value
    if not errors:
        merged = {f: new_condition.get(f, getattr(locked, f)) for f in CONDITION_FIELDS}
        for day, duration in (
            ("disease_day", "disease_duration"),
            ("infection_day", "infection_duration"),
        ):
            if merged[day] > merged[duration]:  # type: ignore[operator]
                errors[day] = [
                    _("Day %(day)s cannot be past the duration (%(duration)s days).")
                    % {"day": merged[day], "duration": merged[duration]}
                ]
    if errors:
        raise ServiceError(errors)

    changes: list[SheetChange] = []
    current = dict(TraitValue.objects.filter(character=locked).values_list("trait_id", "value"))
    changed_points: dict[str, int] = {}
    for trait in traits:
        if trait.slug in points and points[trait.slug] != current.get(trait.pk, 0):
            changed_points[trait.slug] = points[trait.slug]
            changes.append(
                SheetChange(
                    character=locked,
                    changed_by=master,
                    field=trait.name,
                    old_value=str(current.get(trait.pk, 0)),
                    new_value=str(points[trait.slug]),
                    reason=reason_text,
                )
            )
    _write_trait_values(locked, traits, changed_points)

    changed_fields = []
    for name in CONDITION_FIELDS:
        if name in new_condition and new_condition[name] != getattr(locked, name):
            changes.append(
                SheetChange(
                    character=locked,
                    changed_by=master,
                    field=str(Character._meta.get_field(name).verbose_name),
                    old_value=_display(getattr(locked, name)),
                    new_value=_display(new_condition[name]),
                    reason=reason_text,
                )
            )
            setattr(locked, name, new_condition[name])
            changed_fields.append(name)
    if changed_fields:
        locked.save(update_fields=[*changed_fields, "updated_at"])
    if changes:
        SheetChange.objects.bulk_create(changes)
    return changes


# --- inventory ---------------------------------------------------------------------------------


def _parse_quantity(quantity: object) -> Decimal:
    """A positive quantity of units with at most 3 decimals (the column's precision)."""
    bad = ServiceError({"quantity": _("The quantity must be a number greater than zero.")})
    if isinstance(quantity, bool):
        raise bad
    if isinstance(quantity, Decimal):
        value = quantity
    elif isinstance(quantity, int):
        value = Decimal(quantity)
    elif isinstance(quantity, float):
        value = Decimal(str(quantity))
    elif isinstance(quantity, str):
        try:
            # Spanish forms write a decimal comma ("1,5").
            value = Decimal(quantity.strip().replace(",", "."))
        except InvalidOperation:
            raise bad from None
    else:
        raise bad
    if not value.is_finite() or value <= 0:
        raise bad
    if value >= 10**9:
        raise ServiceError({"quantity": _("The quantity is too large.")})
    if value != value.quantize(Decimal("0.001")):
        raise ServiceError({"quantity": _("The quantity can have at most 3 decimals.")})
    return value


def _quantity_text(value: Decimal) -> str:
    return f"{value.normalize():f}"


def _check_item_type(character: Character, item_type: ItemType) -> None:
    if item_type.campaign_id != character.campaign_id:
        raise ServiceError({"item_type": _("That item is not in this campaign's catalogue.")})


@campaign_locked(by_character)
def inventory_add(
    *, character: Character, item_type: ItemType, quantity: Decimal | int | str
) -> InventoryItem:
    """Add ``quantity`` units (Decimal > 0, up to 3 decimals; "1,5" accepted) of an item of
    the character's campaign to what the character carries; returns the row, refreshed.

    The addition is an ``F()`` update, so two simultaneous additions both count.
    Raises ServiceError({"quantity": …}) for zero, negative or non-numbers, and
    ({"item_type": …}) for another campaign's item.
    Source: RULES.md R15 (what a character carries).
    """
    amount = _parse_quantity(quantity)
    _check_item_type(character, item_type)
    item, _created = InventoryItem.objects.get_or_create(character=character, item_type=item_type)
    InventoryItem.objects.filter(pk=item.pk).update(quantity=F("quantity") + amount)
    item.refresh_from_db(fields=["quantity"])
    return item


@campaign_locked(by_character)
def inventory_remove(
    *, character: Character, item_type: ItemType, quantity: Decimal | int | str
) -> InventoryItem:
    """Take ``quantity`` units of an item from the character; returns the row, refreshed.

    The row stays (at 0) when everything is taken. The subtraction is one conditional
    ``F()`` update (``quantity >= amount``), so two simultaneous removals can never take more
    than there is; the database's ``quantity >= 0`` constraint stays the last line of defence.
    Raises ServiceError({"quantity": …}) for a bad quantity or more than the character has,
    ({"item_type": …}) for another campaign's item.
    Source: RULES.md R15.
    """
    amount = _parse_quantity(quantity)
    _check_item_type(character, item_type)
    taken = InventoryItem.objects.filter(
        character=character, item_type=item_type, quantity__gte=amount
    ).update(quantity=F("quantity") - amount)
    if not taken:
        have = (
            InventoryItem.objects.filter(character=character, item_type=item_type)
            .values_list("quantity", flat=True)
            .first()
        ) or Decimal(0)
        raise ServiceError(
            {
                "quantity": _("%(item)s: there are only %(have)s; %(want)s cannot be taken.")
                % {
                    "item": item_type.name,
                    "have": _quantity_text(have),
                    "want": _quantity_text(amount),
                }
            }
        )
    return InventoryItem.objects.get(character=character, item_type=item_type)


__all__ = [
    "MAX_TRAIT_VALUE",
    "campaign_traits",
    "character_create",
    "inventory_add",
    "inventory_remove",
    "sheet_master_edit",
    "sheet_review",
    "sheet_save",
    "validate_portrait",
]
