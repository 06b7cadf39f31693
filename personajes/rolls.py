"""Rolls: every kind a character, a player or the master makes, written by the roll ledger.

- action rolls (R3 with the R9 penalty): ``roll_action_for_character``, and the master's later
  threshold, ``roll_set_threshold``;
- event rolls (R2): ``event_roll_create`` and ``event_roll_set_probability``;
- free dice expressions (R4): ``expression_roll_create``.

One vocabulary for what a roll asks, the same in every service, form and the API (this
docstring is its reference): ``kind``, ``character``, ``trait`` (the trait's slug),
``threshold`` (the base threshold, %), ``probability`` (%), ``expression``, ``reason``,
``hidden``; errors are keyed by those names. A roll made from a post takes ``share``, the
player's share mixed into its dice (``nucleo.ledger.PlayerShare``, issue 16). Stored rows
keep ``base_threshold`` and ``effective_threshold`` (base − penalty, clamped) apart, since
they hold both.

Every roll is made under its campaign's lock (the three that make a roll take it shared, so
posts of different players roll side by side; ``nucleo.locks``) and written by
``nucleo.ledger.roll_record``
with its one key scheme ``[day, purpose, subject, sequence]``: purpose a ``RollPurpose``,
subject the character's id or, for a roll made without a character, the user's id + 10⁹. The
stored dice are the record; nothing a client sends reaches them. Rolls are append-only
(``Roll.save`` refuses updates); the one later change, a threshold the master left open, is a
compare-and-swap ``update``.

Source: RULES.md R1–R4, R8, R9; DESIGN.md "Randomness and the roll ledger".
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from django.contrib.auth.models import User
from django.utils.translation import gettext as _

from mundo.access import is_master, require_master
from mundo.models import Campaign
from nucleo.errors import ServiceError
from nucleo.ledger import USER_SUBJECT_OFFSET, PlayerShare, roll_record
from nucleo.locks import campaign_locked, lock_rows
from nucleo.rules_errors import rules_message
from nucleo.users import AnyUser
from personajes._helpers import (
    REASON_MAX_LENGTH,
    by_character,
    clean_reason,
    lock_character,
    parse_threshold,
)
from personajes.mapping import condition_state
from personajes.models import Character, Roll, Trait, TraitValue
from reglas.characters import action_penalty, is_dirt_sensitive
from reglas.core import Modifier, RollPurpose, clamp_threshold
from reglas.dice import D100, action_from_dice, event_from_die, roll_action, roll_dice, roll_event
from reglas.errors import RulesError
from reglas.expressions import parse_expression, roll_expression

THRESHOLD_SET = "threshold_set"
"""The code of the ServiceError for a threshold (or probability) already set: rolls never
change, and the API answers it with 409 Conflict."""
EXPRESSION_MAX_CHARS = 200
"""Most characters of a dice expression."""


def characters_lock(ids: Iterable[int], *, also: Character | None = None) -> None:
    """Lock the characters ``ids`` (and ``also``) a post is about to roll for, in one call in
    primary-key order, when there are several: in the campaign's shared lock other posts run
    beside, so rows go before the first roll, each model's in one call (``nucleo.locks``). One
    character is left to its roll service's lock. Raises ``LockOrderError`` outside the lock."""
    wanted = set(ids) | ({also.pk} if also is not None else set())
    if len(wanted) > 1:
        lock_rows(Character.objects.filter(pk__in=wanted))


def _check_may_roll(character: Character, made_by: AnyUser) -> None:
    """Refuse a roll for ``character`` (locked, with its campaign) unless ``made_by`` is its
    player or the campaign's master and the character is alive. Raises ServiceError."""
    is_owner = (
        made_by is not None and made_by.is_authenticated and made_by.pk == character.player_id
    )
    if not is_owner and not is_master(character.campaign_id, made_by):
        raise ServiceError(
            _("Only the character's player or the campaign's master can roll for it.")
        )
    if not character.is_alive:
        raise ServiceError(_("%(name)s is dead and cannot roll.") % {"name": character.name})


def _trait_and_value(character: Character, trait_slug: str) -> tuple[Trait, int]:
    """The campaign's trait by slug and the character's points in it (0 without a row).
    Raises ServiceError({"trait": …}) when the campaign has no such trait. Source: RULES.md R3."""
    trait = Trait.objects.filter(campaign_id=character.campaign_id, slug=trait_slug).first()
    if trait is None:
        raise ServiceError(
            {"trait": _("There is no trait “%(slug)s” in this campaign.") % {"slug": trait_slug}}
        )
    value = (
        TraitValue.objects.filter(character=character, trait=trait)
        .values_list("value", flat=True)
        .first()
    ) or 0
    return trait, value


@campaign_locked(by_character, shared=True)
def roll_action_for_character(
    *,
    character: Character,
    trait: str,
    threshold: int | None,
    made_by: AnyUser,
    dirt_sensitive: bool | None = None,
    reason: str = "",
    share: PlayerShare | None = None,
) -> Roll:
    """Roll ``1 + trait value`` d100 for the character now, and store every die (R3).

    The R9 penalty comes from the character's condition at this moment
    (``reglas.characters.action_penalty``) and is stored as ``modifiers`` (source, label,
    points); ``dirt_sensitive`` None = the campaign's flag for the trait (R8,
    ``dirt_sensitive_traits``). ``threshold`` (the base
    threshold) an int 0..100 (%) gives the effective threshold, the successes and the outcome
    at once; None leaves them empty for the master (``roll_set_threshold``) while the dice are
    rolled now.
    The roll is written by the ledger (``nucleo.ledger.roll_record``): key ``(day,
    RollPurpose.ACTION, character id, sequence)``, counted under the campaign lock.
    ``made_by`` must be the character's player or the campaign's master; ``share`` the player's
    share of a roll made from a post (``nucleo.ledger.PlayerShare``).
    Raises ServiceError: no permission; the character is dead or risen; unknown trait
    (``{"trait": …}``); bad threshold (``{"threshold": …}``); reason over 200 characters.
    Source: RULES.md R3, R8, R9; DESIGN.md "Randomness and the roll ledger".
    """
    base = parse_threshold(threshold, required=False)
    reason_text = clean_reason(reason)
    if dirt_sensitive is not None and not isinstance(dirt_sensitive, bool):
        raise ServiceError({"dirt_sensitive": _("Must be yes or no.")})
    locked = lock_character(character)
    campaign = locked.campaign
    _check_may_roll(locked, made_by)
    trait_row, value = _trait_and_value(locked, trait)
    own = is_dirt_sensitive(trait_row.slug, campaign.rules)
    sensitive = own if dirt_sensitive is None else dirt_sensitive
    try:
        penalty = action_penalty(condition_state(locked), sensitive, campaign.rules)
    except RulesError as exc:
        raise ServiceError(rules_message(exc)) from None

    def roller(rng: np.random.Generator) -> dict[str, object]:
        try:
            if base is None:
                # Same draw as roll_action (one rng.integers(1, 101, size=1 + value)), so the
                # faces are the ones a threshold given up front would have met.
                return {"dice": list(roll_dice(1 + value, D100, rng))}
            result = roll_action(value, base, rng, penalty)
        except RulesError as exc:
            raise ServiceError(rules_message(exc)) from None
        return {
            "dice": list(result.dice),
            "effective_threshold": result.threshold,
            "successes": result.successes,
            "success": result.success,
        }

    return roll_record(
        Roll,
        campaign=campaign,
        purpose=RollPurpose.ACTION,
        subject=locked.pk,
        roller=roller,
        share=share,
        character=locked,
        made_by=made_by,
        kind=Roll.Kind.ACTION,
        reason=reason_text,
        trait=trait_row,
        trait_name=trait_row.name,
        trait_value=value,
        dirt_sensitive=sensitive,
        base_threshold=base,
        modifiers=[m.as_dict() for m in penalty],
    )


@campaign_locked(lambda roll, **_: roll.campaign_id)
def roll_set_threshold(*, roll: Roll, master: AnyUser, threshold: int) -> Roll:
    """The master sets the base threshold (int 0..100, %) of an action roll made without one.

    The outcome is computed from the STORED dice and modifiers (``reglas.dice.action_from_dice``
    with the penalty as it was when the dice were rolled); the dice never change. Written with
    a compare-and-swap ``update(…)`` on ``base_threshold IS NULL``, so of two masters setting it
    at once only the first wins. Returns the roll re-read.
    Raises ServiceError: not the campaign's master; not an action roll; bad threshold
    (``{"threshold": …}``); the threshold is already set.
    Source: RULES.md R3, R9.
    """
    base = parse_threshold(threshold, required=True)
    assert base is not None
    stored = Roll.objects.get(pk=roll.pk)
    if not is_master(stored.campaign_id, master):
        raise ServiceError(_("Only the campaign's master can set a roll's threshold."))
    if stored.kind != Roll.Kind.ACTION or stored.trait_value is None:
        raise ServiceError(_("Only an action roll takes a threshold."))
    already = ServiceError(_("This roll's threshold has already been set."), code=THRESHOLD_SET)
    if stored.base_threshold is not None:
        raise already
    penalty = [
        Modifier(m["source"], m["label"], int(m["points"]), m.get("params") or {})
        for m in stored.modifiers
    ]
    try:
        result = action_from_dice(stored.trait_value, base, stored.dice, penalty)
    except RulesError as exc:
        raise ServiceError(rules_message(exc)) from None
    updated = Roll.objects.filter(pk=stored.pk, base_threshold__isnull=True).update(
        base_threshold=base,
        effective_threshold=result.threshold,
        successes=result.successes,
        success=result.success,
    )
    if updated != 1:
        raise already
    return Roll.objects.get(pk=stored.pk)


def threshold_set(*, roll: Roll, master: AnyUser, threshold: int) -> Roll:
    """The master sets what a roll made without it waits for: an action roll's base threshold
    (R3, ``roll_set_threshold``) or an event roll's probability (R2,
    ``event_roll_set_probability``), both in % (0..100); a dice expression takes none. Every
    surface (the scene page, the sheet, the API) sets thresholds through this one check.
    Raises ServiceError: not the campaign's master; an expression or a bad value
    (``{"threshold": …}``); already set (``code=THRESHOLD_SET``, which the API answers
    with 409). Source: RULES.md R2, R3.
    """
    require_master(
        roll.campaign_id, master, _("Only the campaign's master can set a roll's threshold.")
    )
    if roll.kind == Roll.Kind.EXPRESSION:
        raise ServiceError({"threshold": _("A dice expression takes no threshold.")})
    if roll.base_threshold is not None:
        raise ServiceError(_("This roll's threshold has already been set."), code=THRESHOLD_SET)
    parse_threshold(threshold, required=True)  # one message for both kinds, under "threshold"
    if roll.kind == Roll.Kind.ACTION:
        return roll_set_threshold(roll=roll, master=master, threshold=threshold)
    return event_roll_set_probability(roll=roll, probability=threshold)


def roll_subject(*, character: Character | None, user: User | None) -> int:
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


@campaign_locked(by_campaign, shared=True)
def event_roll_create(
    *,
    campaign: Campaign,
    made_by: User,
    probability: int | None,
    character: Character | None = None,
    reason: str = "",
    share: PlayerShare | None = None,
) -> Roll:
    """Roll one d100 for an event and store it (kind ``event``).

    ``probability`` in % (0..100) or None when the master will set it later: the die is fixed
    now either way, and ``success`` is filled when the probability is known. Raises ServiceError
    for a probability outside 0..100 or a too long reason; nothing is rolled then.
    Source: RULES.md R2.
    """
    if probability is not None and not 0 <= probability <= 100:
        raise ServiceError({"probability": _("The probability must be between 0 and 100 %.")})
    reason = clean_reason(reason)

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
        share=share,
        character=character,
        made_by=made_by,
        kind=Roll.Kind.EVENT,
        reason=reason,
        base_threshold=probability,
    )


@campaign_locked(by_campaign, shared=True)
def expression_roll_create(
    *,
    campaign: Campaign,
    made_by: User,
    expression: str,
    character: Character | None = None,
    reason: str = "",
    share: PlayerShare | None = None,
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
        raise ServiceError({"expression": rules_message(exc)}) from None
    reason = clean_reason(reason) or parsed.reason[:REASON_MAX_LENGTH]

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
        share=share,
        character=character,
        made_by=made_by,
        kind=Roll.Kind.EXPRESSION,
        reason=reason,
        expression=parsed.expression,
    )


@campaign_locked(lambda roll, **_: roll.campaign_id)
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
        raise ServiceError({"probability": _("The probability must be between 0 and 100 %.")})
    event = event_from_die(probability, int(roll.dice[0]))
    changed = Roll.objects.filter(pk=roll.pk, base_threshold__isnull=True).update(
        base_threshold=probability,
        effective_threshold=clamp_threshold(probability),
        success=event.success,
        successes=int(event.success),
    )
    if changed != 1:
        raise ServiceError(
            _("This roll already has its threshold: rolls are never changed."), code=THRESHOLD_SET
        )
    return Roll.objects.get(pk=roll.pk)
