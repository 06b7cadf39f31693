"""Celery tasks of scenes: they take ids, call one service, and are safe to run twice."""

from __future__ import annotations

from collections.abc import Iterable

from celery import shared_task
from django.db import transaction

from escenas import notifications


@shared_task(name="escenas.send_post_notifications")
def send_post_notifications(post_ids: list[int]) -> int:
    """E-mail the participants about new posts (each post once per user). Returns how many."""
    return notifications.post_notifications_send(post_ids=post_ids)


@shared_task(name="escenas.send_digests")
def send_digests() -> int:
    """Send the daily digests that are due. Returns how many were sent."""
    return notifications.digests_send()


def notify_posts(post_ids: Iterable[int]) -> None:
    """Queue the e-mails about new posts for after the current transaction commits (a rolled
    back post sends nothing). The Celery task calls ``post_notifications_send``."""
    ids = [int(i) for i in post_ids]
    if not ids:
        return
    transaction.on_commit(lambda: send_post_notifications.delay(ids))
