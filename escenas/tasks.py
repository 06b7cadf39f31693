"""Celery tasks of scenes: they take ids, call one service, and are safe to run twice."""

from __future__ import annotations

from collections.abc import Iterable

from celery import shared_task
from django.db import transaction

from escenas import notifications, post_fanout


@shared_task(name="escenas.send_post_notifications")
def send_post_notifications(post_ids: list[int]) -> int:
    """Put the e-mails about these posts in the outbox (each post once per user; nothing for
    posts already queued). New posts are fanned out by ``fan_out_posts``; this task stays for
    messages queued by an older release. Returns how many were queued."""
    return notifications.post_notifications_queue(post_ids=post_ids)


@shared_task(name="escenas.fan_out_posts")
def fan_out_posts(post_ids: list[int]) -> int:
    """Queue the e-mails of these new posts, after their commit (``fan_out_after_commit``),
    with those of every other pending post (up to ``post_fanout.BATCH``): under load the first
    task to run fans out the posts whose tasks wait behind it, in one batch of a constant
    number of queries, and those tasks find nothing left to do (``posts_fan_out`` skips what
    was done). Returns how many e-mails were queued."""
    del post_ids  # a hint: the pending posts include them
    return post_fanout.posts_fan_out()[1]


@shared_task(name="escenas.fan_out_pending_posts")
def fan_out_pending_posts() -> int:
    """Beat's sweep: fan out every post whose ``fan_out_posts`` never ran (a broker down at
    its commit, a worker killed mid-task), batch after batch. Returns how many posts."""
    total = 0
    while True:
        posts, _mails = post_fanout.posts_fan_out()
        total += posts
        if posts < post_fanout.BATCH:
            return total


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


def fan_out_after_commit(post_ids: Iterable[int]) -> None:
    """After the caller's transaction commits, queue ``fan_out_posts`` for these posts (written
    with ``fan_out_pending``): their readers' e-mails leave the request and its locks. A task
    that never runs is made up for by beat's ``fan_out_pending_posts``."""
    ids = [int(i) for i in post_ids]
    if ids:
        transaction.on_commit(lambda: fan_out_posts.delay(ids))
