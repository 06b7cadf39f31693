"""Event rolls (R2) and free dice expressions (R4) written into the roll ledger.

Action rolls are the characters service's (``personajes.services.roll_action_for_character``);
this module makes the other two kinds. All three are written by the ledger
(``nucleo.ledger.roll_record``) under the campaign lock, with its one key scheme
``[day, purpose, subject, sequence]``: purpose ``RollPurpose.EVENT`` or ``EXPRESSION``, subject the
character's id or, for a roll made without a character, the user's id + 10⁹. The stored dice
are the record; nothing a client sends reaches them.
"""

from __future__ import annotations

import numpy as np
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from mundo.models import Campaign
from nucleo.errors import ServiceError
from nucleo.ledger import USER_SUBJECT_OFFSET, roll_record
from nucleo.locks import campaign_locked
from personajes.models import Character, Roll
from reglas.core import RollPurpose, clamp_threshold
from reglas.dice import event_from_die, roll_event
from reglas.errors import RulesError
from reglas.expressions import parse_expression, roll_expression

REASON_MAX_CHARS = 200
EXPRESSION_MAX_CHARS = 200


def roll_subject(*, character: Character | None, user: AbstractBaseUser | None) -> int:
    """The subject of a roll's generator key: the character's id, else user id + 10⁹
    (``nucleo.ledger.USER_SUBJECT_OFFSET``). Raises ServiceError with neither."""
    if character is not None:
        return int(character.pk)
    if user is None or user.pk is None:
        raise ServiceError(_("A roll needs a character or a user."))
    return USER_SUBJECT_OFFSET + int(user.pk)


def by_campaign(*, campaign: Campaign, **_kwargs: object) -> int:
    """The campaign id whose lock a roll service takes (``nucleo.locks.campaign_locked``)."""
    return int(campaign.pk)


def _clean_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if len(reason) > REASON_MAX_CHARS:
        raise ServiceError(
            {"reason": _("The reason is too long (at most %(n)s characters).") % {"n": 200}}
        )
    return reason


@campaign_locked(by_campaign)
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

    def roller(rng: np.random.Generator) -> dict[str, object]:
        if probability is None:
            die = roll_event(0, rng).die  # the die is the same whatever the probability
            return {"dice": [die], "total": die}
        event = roll_event(probability, rng)
        return {
            "dice": [event.die],
            "total": event.die,
            "effective_threshold": event.threshold,
            "success": event.success,
            "successes": int(event.success),
        }

    return roll_record(
        Roll,
        campaign=campaign,
        purpose=RollPurpose.EVENT,
        subject=roll_subject(character=character, user=made_by),
        roller=roller,
        character=character,
        made_by=made_by,
        kind=Roll.Kind.EVENT,
        reason=reason,
        base_threshold=probability,
    )


@campaign_locked(by_campaign)
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

    def roller(rng: np.random.Generator) -> dict[str, object]:
        result = roll_expression(parsed, rng)
        constant = [{"source": "constant", "label": _("Constant"), "points": result.modifier}]
        return {
            "modifiers": constant if result.modifier else [],
            "dice": [term.as_dict() for term in result.dice],
            "total": result.total,
            "successes": result.successes,
        }

    return roll_record(
        Roll,
        campaign=campaign,
        purpose=RollPurpose.EXPRESSION,
        subject=roll_subject(character=character, user=made_by),
        roller=roller,
        character=character,
        made_by=made_by,
        kind=Roll.Kind.EXPRESSION,
        reason=reason,
        expression=parsed.expression,
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
