"""The one way to take row locks: the campaign row first, then rows in primary-key order.

Every write path that changes a campaign's state (posts, rolls, sheets, day records, world
actions, the daily tick) enters ``campaign_lock`` first. Inside it, ``lock_rows`` locks further
rows of one model, always ordered by primary key, so two transactions never wait on each other
in opposite orders (no deadlock on PostgreSQL), and a write never lands on a day the tick is
closing: the tick holds the same campaign lock while it closes the day.

``lock_rows`` outside ``campaign_lock`` raises ``LockOrderError``: the order is enforced, not
just written down. On SQLite ``select_for_update`` is a no-op (the database serialises writers);
the order checks still run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.apps import apps
from django.db import transaction
from django.db.models import Manager, Model, QuerySet

CAMPAIGN_MODEL = "mundo.Campaign"
"""The model whose row is every campaign write's first lock (looked up by label: the kernel
sits below the apps and imports none of them)."""

_held: ContextVar[int | None] = ContextVar("nucleo_campaign_lock", default=None)


class LockOrderError(RuntimeError):
    """A lock taken out of order: rows before the campaign, or a second campaign."""


def held_campaign_id() -> int | None:
    """The id of the campaign whose lock the current code runs under, or None."""
    return _held.get()


def require_campaign_lock(campaign_id: int) -> None:
    """Raise ``LockOrderError`` unless the caller runs inside ``campaign_lock(campaign_id)``."""
    held = _held.get()
    if held != int(campaign_id):
        raise LockOrderError(
            f"This write needs the lock of campaign {campaign_id}; held: {held}. "
            "Enter nucleo.locks.campaign_lock first."
        )


@contextmanager
def campaign_lock(campaign_id: int) -> Iterator[Any]:
    """Open a transaction, lock the campaign row and yield the campaign read under the lock.

    Re-entrant for the same campaign (a service that calls another one): the inner block re-reads
    the row in the same transaction. Raises ``LockOrderError`` when another campaign's lock is
    held (one campaign per transaction), and the model's ``DoesNotExist`` when there is no such
    campaign.
    """
    held = _held.get()
    if held is not None and held != int(campaign_id):
        raise LockOrderError(
            f"Campaign {held} is locked already; a transaction locks one campaign."
        )
    model = apps.get_model(CAMPAIGN_MODEL)
    with transaction.atomic():
        campaign = model.objects.select_for_update().get(pk=campaign_id)
        token = _held.set(int(campaign_id))
        try:
            yield campaign
        finally:
            _held.reset(token)


def campaign_locked[**P, R](
    campaign_id_of: Callable[..., int],
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Run the decorated service inside ``campaign_lock``: ``campaign_id_of(**kwargs)`` names
    the campaign from the service's keyword arguments (services are keyword-only), e.g.
    ``@campaign_locked(lambda character, **_: character.campaign_id)``.
    """

    def decorate(service: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(service)
        def locked(*args: P.args, **kwargs: P.kwargs) -> R:
            with campaign_lock(campaign_id_of(**kwargs)):
                return service(*args, **kwargs)

        return locked

    return decorate


def lock_rows[M: Model](queryset: QuerySet[M], *, account: bool = False) -> list[M]:
    """Lock the rows of ``queryset`` (its own table only) in primary-key order and return them.

    Campaign data: call inside ``campaign_lock``; raises ``LockOrderError`` otherwise. Lock each
    model's rows in one call: two calls for one model could interleave with another
    transaction's. ``account=True`` is for rows that belong to no campaign (a user, their API
    tokens): those are locked in a transaction of their own, never inside a campaign's lock
    (``LockOrderError`` then), so the two kinds of lock never wait on each other. Needs an open
    transaction (``transaction.atomic``) either way.
    """
    held = _held.get()
    if account and held is not None:
        raise LockOrderError(
            f"{queryset.model.__name__} is account data: lock it outside campaign {held}'s lock."
        )
    if not account and held is None:
        raise LockOrderError(
            f"{queryset.model.__name__} rows locked before their campaign: "
            "enter nucleo.locks.campaign_lock first."
        )
    return list(queryset.select_for_update(of=("self",)).order_by("pk"))


def lock_row[M: Model](queryset: QuerySet[M] | Manager[M], pk: int) -> M:
    """Lock one row of ``queryset`` (inside ``campaign_lock``) and return it.

    Raises the model's ``DoesNotExist`` when the queryset has no row with that ``pk``, and
    ``LockOrderError`` outside ``campaign_lock``.
    """
    rows = lock_rows(queryset.filter(pk=pk))
    if not rows:
        raise queryset.model.DoesNotExist(  # type: ignore[attr-defined]
            f"No {queryset.model.__name__} {pk}"
        )
    return rows[0]
