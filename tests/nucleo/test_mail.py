"""The e-mail outbox (``nucleo.mail``): one connection a batch, marked sent only once the
server accepted it, each failure retried with backoff and logged, never stopping the others."""

from __future__ import annotations

import datetime
import logging
import threading

import pytest
from django.db import connection
from django.utils import timezone

from nucleo import mail
from nucleo.mail import message_new, outbox_claim, outbox_deliver, outbox_enqueue
from nucleo.models import OutboxMessage
from tests.mail_backends import RefusingBackend

pytestmark = pytest.mark.django_db

REFUSING = {"default": {"BACKEND": "tests.mail_backends.RefusingBackend"}}
DOWN = {"default": {"BACKEND": "tests.mail_backends.DownBackend"}}


def queue(*addresses: str) -> list[OutboxMessage]:
    outbox_enqueue(
        message_new(to=a, subject=f"Hola {a}", body_text="cuerpo", headers={"X-Partida": "1"})
        for a in addresses
    )
    return list(OutboxMessage.objects.order_by("pk"))


def test_a_refused_address_is_retried_later_and_the_others_are_sent(settings, mailoutbox, caplog):
    settings.MAILERS = REFUSING
    RefusingBackend.opened = 0
    queue("ana@example.com", "rebota@example.com", "eva@example.com")
    with caplog.at_level(logging.WARNING, logger="nucleo.mail"):
        delivery = outbox_deliver()
    assert (delivery.sent, delivery.retrying, delivery.failed) == (2, 1, 0)
    assert RefusingBackend.opened == 1  # one connection for the whole batch
    assert sorted(m.to[0] for m in mailoutbox) == ["ana@example.com", "eva@example.com"]
    bad = OutboxMessage.objects.get(recipient="rebota@example.com")
    assert (bad.state, bad.attempts, bad.sent_at) == ("pending", 1, None)
    assert "SMTPRecipientsRefused" in bad.last_error and "no such user" in bad.last_error
    wait = bad.next_attempt_at - timezone.now()
    assert datetime.timedelta(seconds=50) < wait <= datetime.timedelta(seconds=60)
    (record,) = caplog.records
    assert "rebota@example.com" in record.getMessage() and "no such user" in record.getMessage()
    assert "attempt 1" in record.getMessage()
    # Not due yet: nothing is sent again; after the backoff it is tried again (attempt 2,
    # twice the wait), and once the address works it is sent exactly once.
    assert outbox_deliver() == mail.Delivery()
    later = timezone.now() + datetime.timedelta(seconds=61)
    assert outbox_deliver(now=later).retrying == 1
    bad.refresh_from_db()
    assert bad.attempts == 2
    assert datetime.timedelta(seconds=110) < bad.next_attempt_at - timezone.now()
    OutboxMessage.objects.filter(pk=bad.pk).update(recipient="buena@example.com")
    assert outbox_deliver(now=later + datetime.timedelta(seconds=121)).sent == 1
    assert outbox_deliver(now=later + datetime.timedelta(days=1)) == mail.Delivery()
    bad.refresh_from_db()
    assert (bad.state, bad.attempts, bad.last_error) == ("sent", 3, "")
    assert len(mailoutbox) == 3
    assert OutboxMessage.objects.filter(state="sent").count() == 3


def test_a_message_that_cannot_be_built_does_not_stop_the_others(mailoutbox, caplog):
    queue("ana@example.com", "eva@example.com")
    # A header written around message_new (e.g. by hand): the e-mail package refuses it.
    OutboxMessage.objects.filter(recipient="ana@example.com").update(headers={"X-Bad": "uno\ndos"})
    assert outbox_deliver().sent == 1
    assert [m.to for m in mailoutbox] == [["eva@example.com"]]
    bad = OutboxMessage.objects.get(recipient="ana@example.com")
    assert bad.state == "pending" and "ValueError" in bad.last_error


def test_a_server_that_cannot_be_reached_puts_the_whole_batch_back(settings, mailoutbox):
    settings.MAILERS = DOWN
    queue("ana@example.com", "eva@example.com")
    assert outbox_deliver() == mail.Delivery(retrying=2)
    assert set(OutboxMessage.objects.values_list("state", "attempts")) == {("pending", 1)}
    assert "Connection refused" in OutboxMessage.objects.first().last_error


def test_given_up_after_max_attempts_and_logged_as_an_error(settings, caplog):
    settings.MAILERS = REFUSING
    queue("rebota@example.com")
    OutboxMessage.objects.update(attempts=mail.MAX_ATTEMPTS - 1)
    with caplog.at_level(logging.WARNING, logger="nucleo.mail"):
        assert outbox_deliver() == mail.Delivery(failed=1)
    assert OutboxMessage.objects.get().state == "failed"
    assert caplog.records[0].levelno == logging.ERROR
    assert outbox_deliver(now=timezone.now() + datetime.timedelta(days=2)) == mail.Delivery()


def test_a_claimed_message_is_nobody_elses_until_its_lease_ends(mailoutbox):
    queue("ana@example.com", "eva@example.com")
    token, first = outbox_claim(limit=1)
    _other, second = outbox_claim()
    assert [m.recipient for m in first] == ["ana@example.com"]
    assert [m.recipient for m in second] == ["eva@example.com"]
    assert outbox_claim()[1] == []
    # The first worker died: after the lease another takes it (at least once), and the dead
    # worker's late mark (its old claim) changes nothing.
    after_lease = timezone.now() + mail.CLAIM_LEASE + datetime.timedelta(seconds=1)
    assert outbox_deliver(now=after_lease).sent == 2
    mail._mark_failed(first[0], token, RuntimeError("late"))
    assert OutboxMessage.objects.get(recipient="ana@example.com").state == "sent"
    assert len(mailoutbox) == 2


def test_the_embedded_default_delivers_right_after_the_commit(
    mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        queue("ana@example.com")
        assert mailoutbox == []
    assert [m.to for m in mailoutbox] == [["ana@example.com"]]
    assert mailoutbox[0].extra_headers == {"X-Partida": "1"}
    assert OutboxMessage.objects.get().state == "sent"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_never_send_one_message_twice(mailoutbox):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SKIP LOCKED (set DATABASE_URL; CI does)")
    # Saved without outbox_enqueue: its delivery after the commit would send them all now.
    OutboxMessage.objects.bulk_create(
        message_new(to=f"p{i}@example.com", subject="s", body_text="b") for i in range(40)
    )
    barrier = threading.Barrier(2)
    claimed: list[list[int]] = []

    def worker() -> None:
        try:
            barrier.wait()
            claimed.append([m.pk for m in outbox_claim(limit=25)[1]])
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    first, second = claimed
    assert not set(first) & set(second)
    assert len(first) + len(second) == 40


def test_the_task_goes_on_while_batches_come_back_full(monkeypatch, mailoutbox):
    monkeypatch.setattr(mail, "BATCH_SIZE", 3)
    monkeypatch.setattr(mail, "BATCHES_PER_RUN", 2)
    OutboxMessage.objects.bulk_create(
        message_new(to=f"p{i}@example.com", subject="s", body_text="b") for i in range(8)
    )
    # 3 + 3 in this run, then it queues itself (eager here): 2 more.
    assert mail.deliver_outbox.apply().get() == {"sent": 6, "retrying": 0, "failed": 0}
    assert len(mailoutbox) == 8
    assert set(OutboxMessage.objects.values_list("state", flat=True)) == {"sent"}
