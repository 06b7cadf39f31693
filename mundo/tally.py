"""The master records zombies destroyed and survivors rescued in a settlement (R17), and
undoes a record.

The settlement keeps the running tally (``Settlement.zombies_destroyed`` …, applied on top of
the curve); each record adds to it with an ``F()`` update under the campaign lock and is
logged in the world ledger as a ``tally`` roll (no dice; ``result`` holds the counts added).
An undo is a record of the opposite counts that names the one it reverts (``undoes``), made
once. Source: RULES.md R17.
"""

from __future__ import annotations

from typing import Any

from django.db.models import F
from django.utils.translation import gettext as _

from mundo.access import require_master
from mundo.models import Settlement, WorldRoll
from mundo.services import _world_roll
from nucleo import bounds
from nucleo.errors import NotFound, ServiceError
from nucleo.locks import campaign_lock, lock_row
from nucleo.users import AnyUser
from reglas.core import RollPurpose


def _count(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ServiceError({field: _("A count cannot be negative.")})
    if value > bounds.COUNT_MAX:
        limit = {"limit_value": bounds.COUNT_MAX}
        raise ServiceError({field: _("At most %(limit_value)s.") % limit})
    return value


def _write(
    settlement: Settlement, user: AnyUser, destroyed: int, rescued: int, undoes: int | None
) -> WorldRoll:
    locked = lock_row(Settlement.objects, settlement.pk)
    if locked.zombies_destroyed + destroyed < 0 or locked.survivors_rescued + rescued < 0:
        raise ServiceError(_("The tally would go below zero."))
    Settlement.objects.filter(pk=locked.pk).update(
        zombies_destroyed=F("zombies_destroyed") + destroyed,
        survivors_rescued=F("survivors_rescued") + rescued,
    )
    result: dict[str, object] = {"destroyed": destroyed, "rescued": rescued}
    if undoes is not None:
        result["undoes"] = undoes
    text = (
        f"Recuento de {locked.name}: {destroyed:+d} zombis destruidos, "
        f"{rescued:+d} supervivientes rescatados."
    )
    return _world_roll(
        campaign=settlement.campaign,
        kind=WorldRoll.Kind.TALLY,
        purpose=RollPurpose.TALLY,
        subject_id=locked.pk,
        user=user,  # type: ignore[arg-type]
        roller=lambda _rng: ([], result, text),
        settlement=locked,
    )


def tally_record(
    *, settlement: Settlement, user: AnyUser, destroyed: Any = 0, rescued: Any = 0
) -> WorldRoll:
    """Add ``destroyed`` zombies destroyed and ``rescued`` survivors rescued (counts ≥ 0, not
    both 0) to a settlement's tally; returns the ledger row. Raises ServiceError: not the
    master; a negative, non-integer or too large count; nothing to record. Source: RULES.md R17."""
    destroyed = _count(destroyed, "destroyed")
    rescued = _count(rescued, "rescued")
    if destroyed == 0 and rescued == 0:
        raise ServiceError(_("Say how many zombies were destroyed or survivors rescued."))
    with campaign_lock(settlement.campaign_id) as campaign:
        require_master(campaign, user)
        return _write(settlement, user, destroyed, rescued, None)


def tally_undo(*, campaign_id: int, user: AnyUser, roll_id: Any) -> WorldRoll:
    """Undo a tally record: its counts are taken off again, logged as a record that names it.
    Raises NotFound for another campaign's or a non-tally roll; ServiceError: not the master,
    an undo, already undone, or the tally would go below zero. Source: RULES.md R17."""
    with campaign_lock(campaign_id) as campaign:
        require_master(campaign, user)
        roll = (
            WorldRoll.objects.filter(
                pk=roll_id if isinstance(roll_id, int) else 0,
                campaign_id=campaign.pk,
                kind=WorldRoll.Kind.TALLY,
            )
            .select_related("settlement")
            .first()
        )
        if roll is None or roll.settlement is None:
            raise NotFound("No such tally")
        if "undoes" in roll.result:
            raise ServiceError(_("An undo is not undone: record the counts again instead."))
        if WorldRoll.objects.filter(
            campaign_id=campaign.pk, kind=WorldRoll.Kind.TALLY, result__undoes=roll.pk
        ).exists():
            raise ServiceError(_("This record was already undone."))
        return _write(
            roll.settlement,
            user,
            -int(roll.result.get("destroyed", 0)),
            -int(roll.result.get("rescued", 0)),
            roll.pk,
        )
