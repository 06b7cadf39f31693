"""Project-level Celery tasks (the tick's diary-posts task lives with the tick and the campaign
export's build with the exports, imported here so workers register them)."""

import dataclasses
import datetime

from celery import shared_task
from celery.signals import worker_ready
from django.db import connection
from django.utils import timezone

from mundo.models import DayTick
from mundo.selectors import campaigns_due
from partida.exports import build_campaign_export
from partida.heartbeats import heartbeat_record
from partida.tick import advance_day
from partida.tick.posts import create_diary_posts
from reglas import ENGINE_VERSION

__all__ = [
    "advance_campaign_day",
    "advance_due_campaigns",
    "build_campaign_export",
    "create_diary_posts",
    "heartbeat",
    "worker_health",
]


@shared_task(name="partida.heartbeat", ignore_result=True)
def heartbeat() -> bool:
    """Record the worker's heartbeat (``partida.heartbeats``); beat queues it every minute, so
    a fresh one proves beat, Redis and a worker all work. Returns whether it was recorded."""
    return heartbeat_record("worker")


@worker_ready.connect
def _heartbeat_on_start(**_kwargs: object) -> None:
    # A worker that just started is alive before beat's next heartbeat task reaches it.
    heartbeat_record("worker")


@shared_task(name="partida.worker_health")
def worker_health() -> dict[str, object]:
    """What a worker sees: the rules engine version and whether the database answers.

    Used by operators (``celery call partida.worker_health``) and the integration test.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        database_ok = cursor.fetchone() == (1,)
    return {"engine": ENGINE_VERSION, "database": database_ok, "vendor": connection.vendor}


@shared_task(name="partida.advance_due_campaigns")
def advance_due_campaigns() -> list[int]:
    """Beat's one entry (every few minutes): queue one ``advance_campaign_day`` per campaign
    whose local tick time has passed since it last advanced for the schedule.

    Safe to run twice, concurrently or not: each queued task carries the day it expects and the
    slot, and the tick advances a (campaign, day) once. Returns the campaign ids queued.
    """
    queued = []
    for campaign, slot in campaigns_due(timezone.now()):
        advance_campaign_day.delay(
            campaign.pk, campaign.current_day, DayTick.Trigger.SCHEDULE, slot.isoformat()
        )
        queued.append(campaign.pk)
    return queued


@shared_task(name="partida.advance_campaign_day")
def advance_campaign_day(
    campaign_id: int,
    expected_day: int,
    trigger: str = "schedule",
    scheduled_slot: str | None = None,
) -> dict[str, object]:
    """Advance one campaign from ``expected_day`` by one day (``partida.tick.advance_day``).

    Safe to run twice: if the campaign already left ``expected_day`` the first run's result is
    returned (``advanced`` False). ``scheduled_slot`` (ISO datetime) marks the schedule's slot
    as used. Returns the tick's result as a dict.
    """
    slot = datetime.datetime.fromisoformat(scheduled_slot) if scheduled_slot else None
    result = advance_day(
        campaign_id, expected_day=expected_day, trigger=trigger, scheduled_slot=slot
    )
    return dataclasses.asdict(result)
