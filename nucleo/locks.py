"""The one way to take locks: the campaign row first, then rows in primary-key order, then the
roll ledger's sequences.

Every write path that changes a campaign's state (posts, rolls, sheets, day records, world
actions, the daily tick) enters ``campaign_lock`` first, in one of two modes:

- **exclusive** (the default; ``SELECT … FOR UPDATE``): the tick, the master's world actions,
  sheets, combat, every service that is not a post. Nothing else of the campaign runs beside it.
- **shared** (``shared=True``; ``SELECT … FOR SHARE``): a post and the rolls made in it. Many
  shared holders run at once; none beside an exclusive one. The campaign row, and so the
  in-game day, the rules and the dice period's entropy, cannot change under a shared holder: a
  post never lands on a day the tick is closing, because the tick's exclusive lock waits for
  every shared holder and every later post waits for the tick. A shared holder never updates
  the campaign row (that would need the exclusive lock, and two shared holders asking for it
  would deadlock): ``campaign_lock`` inside a shared hold refuses to upgrade.

The order, inside either mode, that keeps PostgreSQL free of deadlocks:

1. the campaign row (``campaign_lock``);
2. a named lock for a uniqueness check without a row, at most one per transaction
   (``key_lock``: a post's idempotency key);
3. rows of one model, always ordered by primary key and in one call per model
   (``lock_rows``/``lock_row``; in a shared hold every row the transaction will lock, before
   its first roll: ``escenas.services.post_create`` locks its characters up front);
4. the ledger's sequence of one (model, day, purpose, subject) (``ledger_lock``, taken by
   ``nucleo.ledger.next_key``), a no-op under the exclusive lock, which already serialises it.
   In a shared hold it makes two concurrent rolls of one subject count their sequence one
   after the other, while rolls of other subjects (other characters) do not wait at all.

Out of order raises ``LockOrderError``: rows before their campaign, a second campaign, an
exclusive lock inside a shared one, a batch of ledger keys (``require_campaign_lock(…,
exclusive=True)``) in a shared hold. On SQLite ``select_for_update``, ``FOR SHARE`` and the
named locks are no-ops (the database serialises writers); the order checks still run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.db import connection, transaction
from django.db.models import Manager, Model, QuerySet

CAMPAIGN_MODEL = "mundo.Campaign"
"""The model whose row is every campaign write's first lock (looked up by label: the kernel
sits below the apps and imports none of them)."""


@dataclass(frozen=True, slots=True)
class _Hold:
    campaign_id: int
    shared: bool


_held: ContextVar[_Hold | None] = ContextVar("nucleo_campaign_lock", default=None)


class LockOrderError(RuntimeError):
    """A lock taken out of order: rows before the campaign, or a second campaign."""


def held_campaign_id() -> int | None:
    """The id of the campaign whose lock the current code runs under, or None."""
    hold = _held.get()
    return None if hold is None else hold.campaign_id


def require_campaign_lock(campaign_id: int, *, exclusive: bool = False) -> None:
    """Raise ``LockOrderError`` unless the caller runs inside ``campaign_lock(campaign_id)``
    (in its exclusive mode when ``exclusive``)."""
    hold = _held.get()
    if hold is None or hold.campaign_id != int(campaign_id):
        raise LockOrderError(
            f"This write needs the lock of campaign {campaign_id}; "
            f"held: {None if hold is None else hold.campaign_id}. "
            "Enter nucleo.locks.campaign_lock first."
        )
    if exclusive and hold.shared:
        raise LockOrderError(
            f"This write needs the exclusive lock of campaign {campaign_id}; "
            "it runs under the shared one."
        )


def _read_locked(model: type[Model], campaign_id: int, *, shared: bool) -> Any:
    """The campaign row, read under ``FOR UPDATE`` or ``FOR SHARE`` (one query)."""
    if not shared:
        return model.objects.select_for_update().get(pk=campaign_id)  # type: ignore[attr-defined]
    if not connection.features.has_select_for_update:  # SQLite: the database serialises
        return model.objects.get(pk=campaign_id)  # type: ignore[attr-defined]
    table = connection.ops.quote_name(model._meta.db_table)
    pk = connection.ops.quote_name(str(model._meta.pk.column))
    rows = list(
        model.objects.raw(  # type: ignore[attr-defined]
            f"SELECT * FROM {table} WHERE {pk} = %s FOR SHARE", [campaign_id]
        )
    )
    if not rows:
        raise model.DoesNotExist(f"No campaign {campaign_id}")  # type: ignore[attr-defined]
    return rows[0]


@contextmanager
def campaign_lock(campaign_id: int, *, shared: bool = False) -> Iterator[Any]:
    """Open a transaction, lock the campaign row and yield the campaign read under the lock.

    ``shared``: the post's mode (``FOR SHARE``; see the module docstring), else exclusive
    (``FOR UPDATE``). Re-entrant for the same campaign (a service that calls another one):
    the inner block runs in a savepoint under the outer lock and re-reads the row; a shared
    inner block inside an exclusive hold runs under the exclusive lock. Raises
    ``LockOrderError`` when another campaign's lock is held (one campaign per transaction) or
    an exclusive lock is asked inside a shared hold (no upgrade), and the model's
    ``DoesNotExist`` when there is no such campaign.
    """
    with _entered(int(campaign_id), shared=shared, read=True) as campaign:
        yield campaign


@contextmanager
def _entered(campaign_id: int, *, shared: bool, read: bool) -> Iterator[Any]:
    hold = _held.get()
    if hold is not None and hold.campaign_id != campaign_id:
        raise LockOrderError(
            f"Campaign {hold.campaign_id} is locked already; a transaction locks one campaign."
        )
    if hold is not None and hold.shared and not shared:
        raise LockOrderError(
            f"Campaign {campaign_id} is held shared; an exclusive lock inside it could deadlock "
            "with the other shared holders. Take the exclusive lock first."
        )
    model = apps.get_model(CAMPAIGN_MODEL)
    with transaction.atomic():
        if hold is not None:  # re-entered: the outer lock stands
            yield _read_locked(model, campaign_id, shared=hold.shared) if read else None
            return
        campaign = _read_locked(model, campaign_id, shared=shared)
        token = _held.set(_Hold(campaign_id, shared))
        try:
            yield campaign
        finally:
            _held.reset(token)


def campaign_locked[**P, R](
    campaign_id_of: Callable[..., int], *, shared: bool = False
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Run the decorated service inside ``campaign_lock``: ``campaign_id_of(**kwargs)`` names
    the campaign from the service's keyword arguments (services are keyword-only), e.g.
    ``@campaign_locked(lambda character, **_: character.campaign_id)``. ``shared``: the service
    is safe under the shared lock (it locks rows and ledger sequences only), so a post may call
    it; else it takes the exclusive lock. Called inside its campaign's lock, it runs in a
    savepoint under it without reading the campaign row again.
    """

    def decorate(service: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(service)
        def locked(*args: P.args, **kwargs: P.kwargs) -> R:
            with _entered(int(campaign_id_of(**kwargs)), shared=shared, read=False):
                return service(*args, **kwargs)

        return locked

    return decorate


def _advisory(name: str) -> None:
    """A transaction-scoped PostgreSQL advisory lock on ``name`` (64-bit hash); a no-op
    elsewhere."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [name])


def key_lock(scope: str, *parts: object) -> None:
    """Lock the name ``scope:parts…`` until the transaction ends, for a uniqueness check that
    has no row to lock yet (``escenas.services.post_create``: a post's idempotency key, so a
    concurrent retry waits and then finds the first post). Inside ``campaign_lock``, at most
    one per transaction, before any row lock (the module docstring's order). One query on
    PostgreSQL, none elsewhere. Raises ``LockOrderError`` outside a campaign lock.
    """
    hold = _held.get()
    if hold is None:
        raise LockOrderError(f"key_lock({scope!r}) outside a campaign lock.")
    _advisory(":".join([scope, str(hold.campaign_id), *map(str, parts)]))


def ledger_lock(model: type[Model], campaign_id: int, prefix: Sequence[int]) -> None:
    """Serialise the roll ledger's sequence of ``prefix`` (``[day, purpose, subject]``) of
    ``model`` in this campaign until the transaction ends: needed in a shared hold only, where
    two rolls of one subject could otherwise count the same sequence number (the unique
    generator key would then refuse the second); under the exclusive lock, no query. Raises
    ``LockOrderError`` outside ``campaign_lock(campaign_id)``.
    """
    require_campaign_lock(campaign_id)
    hold = _held.get()
    if hold is not None and hold.shared:
        _advisory(
            ":".join(["ledger", model._meta.label_lower, str(campaign_id), *map(str, prefix)])
        )


def lock_rows[M: Model](
    queryset: QuerySet[M], *, account: bool = False, skip_locked: bool = False
) -> list[M]:
    """Lock the rows of ``queryset`` (its own table only) in primary-key order and return them.

    Campaign data: call inside ``campaign_lock``; raises ``LockOrderError`` otherwise. Lock each
    model's rows in one call: two calls for one model could interleave with another
    transaction's (in a shared hold, where other posts run beside, lock them before the first
    roll too). ``account=True`` is for rows that belong to no campaign (a user, their API
    tokens): those are locked in a transaction of their own, never inside a campaign's lock
    (``LockOrderError`` then), so the two kinds of lock never wait on each other. Needs an open
    transaction (``transaction.atomic``) either way. ``skip_locked=True``: rows another
    transaction holds are left out instead of waited for (``SKIP LOCKED`` where the database
    has it), for work another worker is doing already (``escenas.post_fanout``).
    """
    held = _held.get()
    if account and held is not None:
        raise LockOrderError(
            f"{queryset.model.__name__} is account data: "
            f"lock it outside campaign {held.campaign_id}'s lock."
        )
    if not account and held is None:
        raise LockOrderError(
            f"{queryset.model.__name__} rows locked before their campaign: "
            "enter nucleo.locks.campaign_lock first."
        )
    skip = skip_locked and connection.features.has_select_for_update_skip_locked
    return list(queryset.select_for_update(of=("self",), skip_locked=skip).order_by("pk"))


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
