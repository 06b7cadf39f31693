"""Beat's task and the schedule, end to end with the clock moved by time-machine.

``advance_due_campaigns`` runs every few minutes; a campaign on the daily schedule advances
once per local day at 06:00 Europe/Madrid — across the last Sundays of March and October 2026
(a 23 h and a 25 h night) no day is skipped or doubled — and after downtime it advances once.
Tasks run eagerly here (in-process), whatever the environment's broker.
"""

from __future__ import annotations

import datetime
import io
import zoneinfo

import pytest
import time_machine
from django.core.management import CommandError, call_command

from mundo.models import Campaign, DayTick
from partida.celery import app as celery_app
from partida.tasks import advance_campaign_day, advance_due_campaigns
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db
MADRID = zoneinfo.ZoneInfo("Europe/Madrid")


@pytest.fixture(autouse=True)
def eager():
    before = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.update(task_always_eager=True, task_eager_propagates=True)
    yield
    celery_app.conf.update(task_always_eager=before[0], task_eager_propagates=before[1])


def madrid(y, mo, d, h, mi=0):
    return datetime.datetime(y, mo, d, h, mi, tzinfo=MADRID)


@pytest.mark.parametrize(
    "start",
    [madrid(2026, 3, 27, 12), madrid(2026, 10, 23, 12)],
    ids=["spring-forward-29-march", "fall-back-25-october"],
)
def test_beat_advances_once_a_local_day_across_daylight_saving(start):
    with time_machine.travel(start, tick=False):
        campaign = CampaignFactory(current_day=7)
    now = start
    with time_machine.travel(now, tick=False) as clock:
        for _ in range(4 * 24 * 4):  # four days, every 15 minutes
            now += datetime.timedelta(minutes=15)
            clock.move_to(now)
            advance_due_campaigns()
    ticks = list(DayTick.objects.filter(campaign=campaign).order_by("day"))
    local = [t.created_at.astimezone(MADRID) for t in ticks]
    assert [t.day for t in ticks] == [8, 9, 10, 11]  # one per local day, none skipped
    assert [d.date() for d in local] == [
        (start + datetime.timedelta(days=i)).date() for i in (1, 2, 3, 4)
    ]
    # Each at the first beat at or after 06:00 local, whatever the UTC offset that day.
    assert all(datetime.time(6, 0) <= d.time() < datetime.time(6, 16) for d in local)
    assert all(t.trigger == DayTick.Trigger.SCHEDULE for t in ticks)


def test_after_downtime_a_campaign_advances_once():
    with time_machine.travel(madrid(2026, 5, 1, 9), tick=False):
        campaign = CampaignFactory(current_day=7)
    Campaign.objects.filter(pk=campaign.pk).update(last_scheduled_run=madrid(2026, 5, 2, 6))
    with time_machine.travel(madrid(2026, 5, 6, 10), tick=False):  # back after 3 missed days
        assert advance_due_campaigns() == [campaign.pk]
        assert advance_due_campaigns() == []
    campaign.refresh_from_db()
    assert campaign.current_day == 8
    # The master may still advance further by hand.
    call_command("avanzar_dia", "--partida", campaign.slug, stdout=io.StringIO())
    campaign.refresh_from_db()
    assert campaign.current_day == 9


def test_manual_campaigns_only_move_by_hand():
    with time_machine.travel(madrid(2026, 5, 1, 9), tick=False):
        campaign = CampaignFactory(current_day=7, schedule=Campaign.Schedule.MANUAL)
    with time_machine.travel(madrid(2026, 5, 9, 9), tick=False):
        assert advance_due_campaigns() == []
    campaign.refresh_from_db()
    assert campaign.current_day == 7


def test_the_task_is_safe_to_run_twice():
    campaign = CampaignFactory(current_day=7)
    first = advance_campaign_day(campaign.pk, 7, "schedule")
    second = advance_campaign_day(campaign.pk, 7, "schedule")
    assert (first["advanced"], second["advanced"]) == (True, False)
    assert first["tick_id"] == second["tick_id"]
    assert Campaign.objects.get(pk=campaign.pk).current_day == 8


def test_a_scheduled_run_after_a_manual_advance_uses_up_the_slot():
    # The master advanced by hand between beat's check and the task: the task does not add a
    # second day, and the slot counts as done (the next beat does not advance again).
    with time_machine.travel(madrid(2026, 5, 1, 9), tick=False):
        campaign = CampaignFactory(current_day=7)
    from partida.tick import advance_day

    advance_day(campaign)
    slot = madrid(2026, 5, 2, 6)
    result = advance_campaign_day(campaign.pk, 7, "schedule", slot.isoformat())
    assert result["advanced"] is False
    campaign.refresh_from_db()
    assert (campaign.current_day, campaign.last_scheduled_run) == (8, slot)
    with time_machine.travel(madrid(2026, 5, 2, 7), tick=False):
        assert advance_due_campaigns() == []


def test_the_command_advances_one_or_all_campaigns():
    a = CampaignFactory(current_day=7)
    b = CampaignFactory(current_day=3)
    out = io.StringIO()
    call_command("avanzar_dia", "--partida", str(a.pk), stdout=out)
    assert f"{a.slug}: día 8" in out.getvalue()
    # A second run right after the first would be taken for the same one (finding 3's
    # guard): --ventana 0 asks for another day on purpose.
    call_command("avanzar_dia", "--todas", "--ventana", "0", stdout=out)
    assert [c.current_day for c in Campaign.objects.order_by("id")] == [9, 4]
    assert b.pk
    with pytest.raises(CommandError, match="No existe"):
        call_command("avanzar_dia", "--partida", "no-existe", stdout=out)
