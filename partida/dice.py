"""Verifiable dice across the apps: a closed period's archive (every roll of the ledger drawn
from its entropy, as JSON) and its verification, for the period page and the download.

The archive is ``reglas.verify.ARCHIVE_FORMAT`` version 1; ``python -m reglas verificar``
checks it offline. Secret rolls (``PostRoll.hidden``) are in it with their key, draws, faces
and share only, unless the master revealed them; world rolls carry their kind and day, not what
the master was looking for. Source: issue 16 items 3, 4.
"""

from __future__ import annotations

import datetime
from typing import Any

import numpy as np
from django.contrib.auth.models import User
from django.utils.translation import gettext as _

from escenas.models import PostRoll
from mundo.access import require_master
from mundo.models import EntropyPeriod, WorldRoll
from nucleo.errors import ServiceError
from personajes.models import Roll
from reglas.errors import RulesError
from reglas.verify import ARCHIVE_FORMAT, Verification, flat_faces, kind_draws, verify_archive


def _stamp(when: datetime.datetime) -> str:
    """A fixed-width UTC time, so the verifier can compare stamps as text."""
    return when.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _roll_entry(roll: Roll, link: PostRoll | None) -> dict[str, Any]:
    secret = link is not None and link.hidden and not link.secret_revealed
    try:
        draws: list[Any] | None = [list(d) for d in kind_draws(roll.kind, roll.dice)]
    except RulesError:
        draws = None
    entry: dict[str, Any] = {
        "id": f"roll:{roll.pk}",
        "key": roll.generator_key,
        "engine_version": roll.engine_version,
        "day": roll.day,
        "created_at": _stamp(roll.created_at),
        "draws": draws,
        "dice": flat_faces(roll.dice) if secret else roll.dice,
        "secret": bool(link is not None and link.hidden),
    }
    if roll.post_sha256:
        entry["share"] = {"post_sha256": roll.post_sha256, "seed_sha256": roll.seed_sha256}
    if not secret:
        entry.update(
            kind=roll.kind,
            reason=roll.reason,
            character=roll.character.name if roll.character else None,
            expression=roll.expression,
            trait=roll.trait_name,
            base_threshold=roll.base_threshold,
            effective_threshold=roll.effective_threshold,
            total=roll.total,
            success=roll.success,
        )
    return entry


def _world_entry(roll: WorldRoll) -> dict[str, Any]:
    # World rolls made before verifiable dice recorded no draws: unverifiable, not different.
    recorded = bool(roll.draws) or not roll.dice
    return {
        "id": f"world:{roll.pk}",
        "key": roll.generator_key,
        "engine_version": roll.engine_version,
        "day": roll.day,
        "created_at": _stamp(roll.created_at),
        "draws": roll.draws if recorded else None,
        "dice": roll.dice,
        "secret": False,
        "kind": roll.kind,
    }


def period_archive(period: EntropyPeriod) -> dict[str, Any]:
    """The archive of a closed ``period``: its commitment, revealed entropy, times, and every
    roll (``personajes.Roll`` and ``mundo.WorldRoll``) drawn from it, in key order.
    Queries: 3 (rolls with their characters, their post links, world rolls).
    Raises ServiceError for an open period (its entropy is secret)."""
    if period.is_open:
        raise ServiceError(_("This dice period is still open: its secret is not revealed."))
    rolls = list(
        Roll.objects.filter(campaign_id=period.campaign_id, period=period.number)
        .select_related("character")
        .order_by("day", "pk")
    )
    links = {
        link.roll_id: link for link in PostRoll.objects.filter(roll_id__in=[r.pk for r in rolls])
    }
    world = WorldRoll.objects.filter(campaign_id=period.campaign_id, period=period.number)
    entries = [_roll_entry(r, links.get(r.pk)) for r in rolls]
    entries += [_world_entry(w) for w in world.order_by("day", "pk")]
    assert period.closed_at is not None
    return {
        "format": ARCHIVE_FORMAT,
        "version": 1,
        "campaign": period.campaign.slug,
        "period": period.number,
        "first_day": period.first_day,
        "last_day": period.last_day,
        "commitment": period.commitment,
        "entropy": period.entropy,
        "opened_at": _stamp(period.opened_at),
        "closed_at": _stamp(period.closed_at),
        "numpy": np.__version__,
        "rolls": entries,
    }


def period_verify(period: EntropyPeriod) -> Verification:
    """``reglas.verify.verify_archive`` of the period's archive, as the period page shows it.
    Raises ServiceError for an open period or an archive the verifier refuses."""
    try:
        return verify_archive(period_archive(period))
    except RulesError as exc:
        raise ServiceError(str(exc)) from None


def secret_roll_reveal(*, link: PostRoll, master: User) -> PostRoll:
    """The master reveals what a secret roll was for (in the archive and on the period page),
    once its period is closed. Raises ServiceError: not the master; not a secret roll; its
    period still open. Source: issue 16 item 4."""
    roll = link.roll
    require_master(roll.campaign_id, master)
    if not link.hidden:
        raise ServiceError(_("This roll is not secret."))
    closed = EntropyPeriod.objects.filter(
        campaign_id=roll.campaign_id, number=roll.period, closed_at__isnull=False
    ).exists()
    if not closed:
        raise ServiceError(_("A secret roll is revealed only after its dice period closes."))
    PostRoll.objects.filter(pk=link.pk).update(secret_revealed=True)
    link.secret_revealed = True
    return link
