"""E-mail at least once: header values made safe, the outbox written in the caller's
transaction, and its delivery by the worker over one connection per batch.

- ``header_text``: the ONE way a header value is made from text (names, titles, subjects):
  line separators and control characters become spaces, so no user text can break a header
  (Python's e-mail package refuses ``\\r``, ``\\n`` and every other line separator).
- ``message_new`` / ``outbox_enqueue``: the messages, saved in the current transaction (a rolled
  back cause sends nothing); the delivery task is queued for after the commit (eager Celery,
  the embedded default: delivered right then).
- ``outbox_deliver`` (the worker's task ``nucleo.deliver_outbox``, also run by beat every
  minute): claims the due messages (``SELECT … FOR UPDATE SKIP LOCKED`` where the database has
  it, and a compare-and-swap on the due time everywhere, so two workers never take one message),
  sends them over one connection of the default mailer (``MAILERS``), marks each sent only after
  the server accepted it, and puts each failure back with a backoff, its reason stored and
  logged; one bad message never stops the others. A worker that dies mid-batch leaves its
  messages claimed until ``CLAIM_LEASE`` has passed; then they are due again (at least once).
"""

from __future__ import annotations

import datetime
import logging
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMultiAlternatives, mailers
from django.db import connection as db_connection
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from nucleo.models import OutboxMessage

logger = logging.getLogger("nucleo.mail")

BATCH_SIZE = 100
"""Messages claimed and sent over one connection per run."""
BATCHES_PER_RUN = 20
"""Batches one task run sends before it queues itself again (a full batch means more due)."""
CLAIM_LEASE = datetime.timedelta(minutes=10)
"""How long a claimed message is a worker's before another may take it again."""
MAX_ATTEMPTS = 8
"""Claims after which a failing message is given up (state failed), about 4 h of retries."""
BACKOFF_FIRST_S = 60
BACKOFF_MAX_S = 6 * 3600

_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
"""Control characters (C0, DEL, C1 — among them \\r \\n \\v \\f \\x1c-\\x1e \\x85) and the
Unicode line and paragraph separators."""
_SPACES = re.compile(r"\s+")


def header_text(value: object, *, max_length: int = 200) -> str:
    """``value`` as a one-line header value: every line separator and control character
    (``\\r \\n \\v \\f \\x1c-\\x1e \\x85 \\u2028 \\u2029``, the rest of C0/C1, DEL) becomes a
    space, runs of spaces become one, the ends are trimmed, and it is cut to ``max_length``
    characters. Never raises."""
    text = _SPACES.sub(" ", _BREAKS.sub(" ", str(value))).strip()
    return text[:max_length].rstrip()


def message_new(
    *,
    to: str,
    subject: str,
    body_text: str,
    body_html: str = "",
    headers: Mapping[str, str] | None = None,
    topic: str = "",
) -> OutboxMessage:
    """An unsaved outbox message to one address; the subject and every header value go
    through ``header_text``. ``topic``: see ``outbox_withdraw``. Save it with
    ``outbox_enqueue``."""
    return OutboxMessage(
        topic=topic[:64],
        recipient=header_text(to, max_length=254),
        subject=header_text(subject),
        body_text=body_text,
        body_html=body_html,
        headers={
            header_text(k, max_length=60): header_text(v, max_length=900)
            for k, v in (headers or {}).items()
        },
    )


def outbox_enqueue(messages: Iterable[OutboxMessage]) -> int:
    """Save ``messages`` in the current transaction (one insert) and queue their delivery for
    after the commit. Returns how many were saved."""
    rows = list(messages)
    if not rows:
        return 0
    now = timezone.now()
    for row in rows:
        row.created_at = row.next_attempt_at = now
    OutboxMessage.objects.bulk_create(rows)
    transaction.on_commit(deliver_outbox.delay)
    return len(rows)


def outbox_withdraw(topics: Iterable[str]) -> int:
    """Delete the messages of these topics that no worker has taken yet (pending, never
    tried): e.g. the e-mails about a post deleted before they went out. A message being sent
    or retried is left alone. Returns how many were withdrawn. One query."""
    deleted, _by_model = OutboxMessage.objects.filter(
        topic__in=list(topics), state=OutboxMessage.State.PENDING, attempts=0
    ).delete()
    return deleted


@dataclass(frozen=True)
class Delivery:
    """What one ``outbox_deliver`` run did: messages ``sent`` (accepted by the server),
    ``retrying`` (failed, due again later) and ``failed`` (given up)."""

    sent: int = 0
    retrying: int = 0
    failed: int = 0


def outbox_claim(
    *, now: datetime.datetime | None = None, limit: int | None = None
) -> tuple[str, list[OutboxMessage]]:
    """Claim up to ``limit`` (default ``BATCH_SIZE``) due messages (pending or with an
    expired claim, oldest due first) for this run: a claim token, the messages. Each claimed
    message's ``attempts`` goes up by one and it is not due again before ``CLAIM_LEASE`` has
    passed. Queries: 3 (select, update, read back) in one transaction."""
    now = now or timezone.now()
    limit = BATCH_SIZE if limit is None else limit
    token = uuid.uuid4().hex
    due = OutboxMessage.objects.filter(
        state__in=[OutboxMessage.State.PENDING, OutboxMessage.State.SENDING],
        next_attempt_at__lte=now,
    )
    with transaction.atomic():
        candidates = due.order_by("next_attempt_at", "pk")
        if db_connection.features.has_select_for_update_skip_locked:
            candidates = candidates.select_for_update(skip_locked=True)
        ids = list(candidates.values_list("pk", flat=True)[:limit])
        if not ids:
            return token, []
        # The compare-and-swap (still due) keeps a second worker off them where the database
        # has no row locks (SQLite).
        due.filter(pk__in=ids).update(
            state=OutboxMessage.State.SENDING,
            claim=token,
            attempts=F("attempts") + 1,
            next_attempt_at=now + CLAIM_LEASE,
        )
        claimed = list(OutboxMessage.objects.filter(claim=token).order_by("pk"))
    return token, claimed


def _email(message: OutboxMessage) -> EmailMultiAlternatives:
    email = EmailMultiAlternatives(
        subject=message.subject,
        body=message.body_text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[message.recipient],
        headers=dict(message.headers),
    )
    if message.body_html:
        email.attach_alternative(message.body_html, "text/html")
    return email


def _mark_sent(message: OutboxMessage, token: str) -> None:
    OutboxMessage.objects.filter(pk=message.pk, claim=token).update(
        state=OutboxMessage.State.SENT, sent_at=timezone.now(), last_error="", claim=""
    )


def _mark_failed(message: OutboxMessage, token: str, error: BaseException) -> bool:
    """Put a failed message back with a backoff, or give it up after ``MAX_ATTEMPTS``;
    logs the reason. True when it will be retried."""
    reason = f"{type(error).__name__}: {error}"[:2000]
    retry = message.attempts < MAX_ATTEMPTS
    delay = min(BACKOFF_FIRST_S * 2 ** max(message.attempts - 1, 0), BACKOFF_MAX_S)
    OutboxMessage.objects.filter(pk=message.pk, claim=token).update(
        state=OutboxMessage.State.PENDING if retry else OutboxMessage.State.FAILED,
        next_attempt_at=timezone.now() + datetime.timedelta(seconds=delay),
        last_error=reason,
        claim="",
    )
    log = logger.warning if retry else logger.error
    log(
        "outbox message %s to %s failed (attempt %s, %s): %s",
        message.pk,
        message.recipient,
        message.attempts,
        f"retry in {delay} s" if retry else "given up",
        reason,
    )
    return retry


def outbox_deliver(*, now: datetime.datetime | None = None, limit: int | None = None) -> Delivery:
    """Claim the due messages (``outbox_claim``) and send them over one connection of the
    default mailer, each marked sent right after the server accepted it; a message the
    server refused, or that could not even be built, is put back with a backoff (see
    ``_mark_failed``) and the others go on. If the connection cannot be opened, every claimed
    message is put back. Returns a ``Delivery``. Queries: 3 for the claim, then 1 a message.
    """
    token, batch = outbox_claim(now=now, limit=limit)
    if not batch:
        return Delivery()
    sent = retrying = failed = 0
    mailer = mailers.default
    try:
        mailer.open()
    except Exception as error:
        for message in batch:
            if _mark_failed(message, token, error):
                retrying += 1
            else:
                failed += 1
        return Delivery(sent, retrying, failed)
    try:
        for message in batch:
            try:
                if mailer.send_messages([_email(message)]) != 1:
                    raise RuntimeError("the mail server did not accept the message")
            except Exception as error:
                if _mark_failed(message, token, error):
                    retrying += 1
                else:
                    failed += 1
                continue
            _mark_sent(message, token)
            sent += 1
    finally:
        try:
            mailer.close()
        except Exception:
            logger.warning("closing the mail connection failed", exc_info=True)
    return Delivery(sent, retrying, failed)


@shared_task(name="nucleo.deliver_outbox")
def deliver_outbox() -> dict[str, int]:
    """The worker's task: ``outbox_deliver`` batch after batch while batches come back full
    (up to ``BATCHES_PER_RUN``, then it queues itself again), so a tick's thousands of diary
    e-mails do not wait for beat. Queued after each commit that writes messages, and run by
    beat every minute for the retries. Safe to run twice or concurrently: a message is claimed
    by one run. Returns the counts ``sent``, ``retrying`` and ``failed``."""
    total = {"sent": 0, "retrying": 0, "failed": 0}
    for _batch in range(BATCHES_PER_RUN):
        delivery = outbox_deliver()
        total["sent"] += delivery.sent
        total["retrying"] += delivery.retrying
        total["failed"] += delivery.failed
        if delivery.sent + delivery.retrying + delivery.failed < BATCH_SIZE:
            return total
    deliver_outbox.delay()
    return total
