"""Event rolls (R2) and free dice expressions (R4) written into the roll ledger.

Action rolls are the characters service's (``personajes.services.roll_action_for_character``,
purpose 1); this module makes the other two kinds with the same generator key scheme
(DESIGN.md "Randomness and the roll ledger")::

    make_rng(int(campaign.entropy, 16), [day, purpose, subject, sequence])

``purpose`` is 2 for event rolls and 3 for expressions; ``subject`` the character's id, or for a
roll made without a character the user's id + 1 000 000 000; ``sequence`` how many rolls with that
(day, purpose, subject) already exist, counted while the campaign row is locked
(``select_for_update``), so two concurrent rolls never share a key (and the ledger's unique
(campaign, generator_key) constraint would refuse it if they did). The stored dice are the
record; nothing a client sends reaches them.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from mundo.models import Campaign
from nucleo.errors import ServiceError
from personajes.models import Character, Roll
from reglas import ENGINE_VERSION
from reglas.core import RollPurpose, clamp_threshold, make_rng
from reglas.dice import event_from_die, roll_event
from reglas.errors import RulesError
from reglas.expressions import parse_expression, roll_expression

PURPOSE_ACTION = RollPurpose.ACTION
"""Generator purpose of action rolls (made by ``personajes.services``)."""
PURPOSE_EVENT = RollPurpose.EVENT
"""Generator purpose of event rolls (R2)."""
PURPOSE_EXPRESSION = RollPurpose.EXPRESSION
"""Generator purpose of free dice expressions (R4)."""
USER_SUBJECT_OFFSET = 1_000_000_000
"""Added to a user's id to make the subject of a roll made without a character."""
REASON_MAX_CHARS = 200
EXPRESSION_MAX_CHARS = 200


def roll_subject(*, character: Character | None, user: AbstractBaseUser | None) -> int:
    """The subject of a roll's generator key: the character's id, else user id + 10⁹."""
    if character is not None:
        return int(character.pk)
    if user is None or user.pk is None:
        raise ServiceError(_("A roll needs a character or a user."))
    return USER_SUBJECT_OFFSET + int(user.pk)


def _lock_campaign(campaign: Campaign) -> Campaign:
    # The campaign row is the lock every roll of the campaign takes first (consistent order:
    # campaign, then the rows of the roll), so sequences are counted without a race.
    return Campaign.objects.select_for_update().get(pk=campaign.pk)


def next_generator_key(*, campaign: Campaign, purpose: int, subject: int) -> list[int]:
    """``[day, purpose, subject, sequence]`` for the next roll; call with the campaign locked.

    ``day`` is the campaign's current in-game day; ``sequence`` counts the rolls already stored
    with the same first three numbers (one query).
    """
    day = int(campaign.current_day)
    sequence = Roll.objects.filter(
        campaign=campaign,
        generator_key__0=day,
        generator_key__1=purpose,
        generator_key__2=subject,
    ).count()
    return [day, purpose, subject, sequence]


def _clean_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if len(reason) > REASON_MAX_CHARS:
        raise ServiceError(
            {"reason": _("The reason is too long (at most %(n)s characters).") % {"n": 200}}
        )
    return reason


@transaction.atomic
def event_roll_create(
    *,
    campaign: Campaign,
    made_by: AbstractBaseUser,
    probability: int | None,
    character: Character | None = None,
    reason: str = "",
) -> Roll:
    """Roll one d100 for an event and store it (kind ``event``).

    ``probability`` in % (0..100) or None when the master will set it later: the die is fixed
    now either way, and ``success`` is filled when the probability is known. Raises ServiceError
    for a probability outside 0..100 or a too long reason; nothing is rolled then.
    Source: RULES.md R2.
    """
    if probability is not None and not 0 <= probability <= 100:
        raise ServiceError({"probability": _("The probability must be between 0 and 100 %.")})
    reason = _clean_reason(reason)
    locked = _lock_campaign(campaign)
    key = next_generator_key(
        campaign=locked,
        purpose=PURPOSE_EVENT,
        subject=roll_subject(character=character, user=made_by),
    )
    rng = make_rng(locked.entropy_int, key)
    if probability is None:
        die = roll_event(0, rng).die  # the die is the same whatever the probability
        threshold, success, successes = None, None, None
    else:
        event = roll_event(probability, rng)
        die, threshold, success = event.die, event.threshold, event.success
        successes = int(success)
    return Roll.objects.create(
        campaign=locked,
        character=character,
        made_by=made_by,
        day=key[0],
        kind=Roll.Kind.EVENT,
        reason=reason,
        base_threshold=probability,
        effective_threshold=threshold,
        dice=[die],
        total=die,
        successes=successes,
        success=success,
        generator_key=key,
        engine_version=ENGINE_VERSION,
    )


@transaction.atomic
def expression_roll_create(
    *,
    campaign: Campaign,
    made_by: AbstractBaseUser,
    expression: str,
    character: Character | None = None,
    reason: str = "",
) -> Roll:
    """Roll a free dice expression (``2d6+1``, ``3d100<=40``) and store every die.

    ``dice`` holds one entry per dice term (``expression``, ``sign``, ``faces``, ``successes``,
    ``value``); ``total`` the total; ``successes`` the compared terms' success count (None
    without a comparison); a constant part is stored in ``modifiers``. A comment written after
    the expression becomes the reason when none is given. Raises ServiceError with the parser's
    Spanish message for a bad expression (over R4's limits included); nothing is rolled then.
    Source: RULES.md R4.
    """
    text = (expression or "").strip()
    if len(text) > EXPRESSION_MAX_CHARS:
        raise ServiceError(
            {"expression": _("The expression is too long (at most %(n)s characters).") % {"n": 200}}
        )
    try:
        parsed = parse_expression(text)
    except RulesError as exc:
        raise ServiceError({"expression": str(exc)}) from None
    reason = _clean_reason(reason) or parsed.reason[:REASON_MAX_CHARS]
    locked = _lock_campaign(campaign)
    key = next_generator_key(
        campaign=locked,
        purpose=PURPOSE_EXPRESSION,
        subject=roll_subject(character=character, user=made_by),
    )
    result = roll_expression(parsed, make_rng(locked.entropy_int, key))
    modifiers = (
        [{"source": "constant", "label": _("Constant"), "points": result.modifier}]
        if result.modifier
        else []
    )
    return Roll.objects.create(
        campaign=locked,
        character=character,
        made_by=made_by,
        day=key[0],
        kind=Roll.Kind.EXPRESSION,
        reason=reason,
        expression=parsed.expression,
        modifiers=modifiers,
        dice=[term.as_dict() for term in result.dice],
        total=result.total,
        successes=result.successes,
        generator_key=key,
        engine_version=ENGINE_VERSION,
    )


@transaction.atomic
def event_roll_set_probability(*, roll: Roll, probability: int) -> Roll:
    """Set the probability (%) of an event roll made without one; the stored die decides.

    A compare-and-swap update (only while ``base_threshold`` is empty), so a probability once
    set is never changed and two masters pressing at once set it once. The caller checks that
    the user is the master. Raises ServiceError when the roll is not an event roll, already has
    a probability, or the value is outside 0..100. Source: RULES.md R2.
    """
    if roll.kind != Roll.Kind.EVENT:
        raise ServiceError(_("Only event rolls take a probability."))
    if not 0 <= probability <= 100:
        raise ServiceError({"base_threshold": _("The probability must be between 0 and 100 %.")})
    event = event_from_die(probability, int(roll.dice[0]))
    changed = Roll.objects.filter(pk=roll.pk, base_threshold__isnull=True).update(
        base_threshold=probability,
        effective_threshold=clamp_threshold(probability),
        success=event.success,
        successes=int(event.success),
    )
    if changed != 1:
        raise ServiceError(_("This roll already has its threshold: rolls are never changed."))
    return Roll.objects.get(pk=roll.pk)
