"""Celery tasks of scenes: they take ids, call one service, and are safe to run twice."""

from __future__ import annotations

from celery import shared_task

from escenas import services


@shared_task(name="escenas.send_post_notifications")
def send_post_notifications(post_ids: list[int]) -> int:
    """E-mail the participants about new posts (each post once per user). Returns how many."""
    return services.post_notifications_send(post_ids=post_ids)


@shared_task(name="escenas.send_digests")
def send_digests() -> int:
    """Send the daily digests that are due. Returns how many were sent."""
    return services.digests_send()
