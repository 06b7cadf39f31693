"""Benchmark: the e-mail outbox (``make bench``, not ``make test``). Prints figures, never fails
on time.

1. Queueing: diary posts for N characters (each told to its player and the master) with and
   without their e-mails (``post_notifications_queue``, in the posts' transaction), per post.
2. Delivery: ``outbox_deliver`` of those 2·N messages with the local mailer, per message, and
   its queries (3 a batch for the claim, then 1 a message).
"""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from escenas import diary
from mundo.models import Membership
from nucleo import mail
from nucleo.models import OutboxMessage
from personajes.models import Character, DiaryEntry
from tests.escenas.factories import diary_entry
from tests.factories import CharacterFactory, MembershipFactory

N = 200


def _entries(campaign, day):
    characters = []
    for _ in range(N):
        member = MembershipFactory(campaign=campaign, role=Membership.Role.PLAYER)
        characters.append(
            CharacterFactory(
                campaign=campaign, player=member.user, status=Character.Status.APPROVED
            )
        )
    DiaryEntry.objects.bulk_create([diary_entry(c, day) for c in characters])
    return list(DiaryEntry.objects.filter(day=day).select_related("character"))


@pytest.mark.django_db
def test_outbox_figures(campaign, master, mailoutbox, monkeypatch):
    quiet = _entries(campaign, 7)
    with monkeypatch.context() as m:
        m.setattr(diary, "notify_posts", lambda ids: None)
        start = time.perf_counter()
        diary.diary_posts_create(entries=quiet)
        without = (time.perf_counter() - start) / N
    loud = _entries(campaign, 8)
    start = time.perf_counter()
    diary.diary_posts_create(entries=loud)
    with_mail = (time.perf_counter() - start) / N
    queued = OutboxMessage.objects.count()
    assert queued == 2 * N
    with CaptureQueriesContext(connection) as ctx:
        start = time.perf_counter()
        sent = 0
        while delivery := mail.outbox_deliver():
            if delivery == mail.Delivery():
                break
            sent += delivery.sent
        per_message = (time.perf_counter() - start) / queued
    assert sent == queued == len(mailoutbox)
    print(
        f"\ndiary posts: {without * 1000:.2f} ms/post without e-mail, "
        f"{with_mail * 1000:.2f} ms/post with its 2 e-mails queued "
        f"(+{(with_mail - without) * 1000:.2f} ms)"
        f"\ndelivery: {per_message * 1000:.2f} ms/message (locmem), "
        f"{len(ctx.captured_queries)} queries for {queued} messages "
        f"in batches of {mail.BATCH_SIZE}"
    )
