"""Celery tasks of scenes: they take ids, call one service, and are safe to run twice."""

from __future__ import annotations

from collections.abc import Iterable

from celery import shared_task

from escenas import notifications


@shared_task(name="escenas.send_post_notifications")
def send_post_notifications(post_ids: list[int]) -> int:
    """Put the e-mails about these posts in the outbox (each post once per user; nothing for
    posts already queued). New posts queue theirs in their own transaction (``notify_posts``);
    this task stays for messages queued by an older release. Returns how many were queued."""
    return notifications.post_notifications_queue(post_ids=post_ids)


@shared_task(name="escenas.send_digests")
def send_digests() -> int:
    """Queue the daily digests that are due (delivered by the outbox). Returns how many."""
    return notifications.digests_send()


def notify_posts(post_ids: Iterable[int]) -> None:
    """Put the e-mails about new posts in the outbox now, in the caller's transaction (the one
    that writes the posts): a rolled back post sends nothing, a committed one is delivered
    after the commit (``nucleo.mail``), at least once."""
    ids = [int(i) for i in post_ids]
    if ids:
        notifications.post_notifications_queue(post_ids=ids)
