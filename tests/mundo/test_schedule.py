"""The daily schedule: 06:00 local wall-clock time, across daylight saving and downtime.

Europe/Madrid in 2026: summer time starts on Sunday 29 March (02:00 → 03:00, a 23 h day) and
ends on Sunday 25 October (03:00 → 02:00, a 25 h day). A campaign on the daily schedule must
advance exactly once per local day at 06:00 on each side of both changes.
"""

import datetime
import zoneinfo

import pytest
import time_machine

from mundo.models import Campaign
from mundo.schedule import due_slot, latest_slot, next_slot
from mundo.selectors import campaigns_due
from tests.factories import CampaignFactory

MADRID = zoneinfo.ZoneInfo("Europe/Madrid")
UTC = datetime.UTC
SIX = datetime.time(6, 0)


def madrid(y, mo, d, h, mi=0):
    return datetime.datetime(y, mo, d, h, mi, tzinfo=MADRID)


@pytest.mark.parametrize(
    ("now", "slot_utc"),
    [
        # Winter time (UTC+1): 06:00 local = 05:00 UTC.
        (madrid(2026, 3, 28, 7), datetime.datetime(2026, 3, 28, 5, tzinfo=UTC)),
        # The spring-forward Sunday: 06:00 CEST = 04:00 UTC, the night was 23 h long.
        (madrid(2026, 3, 29, 7), datetime.datetime(2026, 3, 29, 4, tzinfo=UTC)),
        (madrid(2026, 3, 29, 5, 59), datetime.datetime(2026, 3, 28, 5, tzinfo=UTC)),
        # The fall-back Sunday: 06:00 CET = 05:00 UTC, the night was 25 h long.
        (madrid(2026, 10, 25, 6), datetime.datetime(2026, 10, 25, 5, tzinfo=UTC)),
        (madrid(2026, 10, 25, 5, 59), datetime.datetime(2026, 10, 24, 4, tzinfo=UTC)),
    ],
)
def test_latest_slot_is_six_local_whatever_the_offset(now, slot_utc):
    assert latest_slot(now, "Europe/Madrid", SIX) == slot_utc
    assert latest_slot(now, "Europe/Madrid", SIX).astimezone(MADRID).time() == SIX


@pytest.mark.parametrize(
    ("start", "days"),
    [(madrid(2026, 3, 26, 12), 6), (madrid(2026, 10, 22, 12), 6)],
)
def test_walking_every_five_minutes_across_a_change_fires_once_a_day(start, days):
    # Simulate beat: every 5 minutes ask whether the campaign is due; when it is, "advance"
    # (remember the slot). Each local day gets exactly one advance, at 06:00 local.
    created = start.astimezone(UTC)
    last = None
    fired = []
    now = created
    end = created + datetime.timedelta(days=days)
    while now < end:
        slot = due_slot(now=now, tz_name="Europe/Madrid", at=SIX, last_run=last, created_at=created)
        if slot is not None:
            fired.append((now.astimezone(MADRID), slot))
            last = slot
        now += datetime.timedelta(minutes=5)
    local_days = [f.date() for f, _slot in fired]
    assert local_days == sorted(set(local_days))  # never twice on a day
    assert len(local_days) == days  # none skipped (a 23 h and a 25 h night included)
    assert all(f.time() == SIX for f, _slot in fired)


def test_next_slot_after_the_spring_change():
    assert next_slot(madrid(2026, 3, 28, 7), "Europe/Madrid", SIX) == madrid(2026, 3, 29, 6)


def test_a_campaign_created_after_the_slot_waits_for_the_next_one():
    created = madrid(2026, 5, 1, 9).astimezone(UTC)
    assert (
        due_slot(
            now=madrid(2026, 5, 1, 12),
            tz_name="Europe/Madrid",
            at=SIX,
            last_run=None,
            created_at=created,
        )
        is None
    )
    assert due_slot(
        now=madrid(2026, 5, 2, 6, 1),
        tz_name="Europe/Madrid",
        at=SIX,
        last_run=None,
        created_at=created,
    ) == madrid(2026, 5, 2, 6)


@pytest.mark.django_db
def test_downtime_makes_a_campaign_due_once_not_once_per_missed_day():
    with time_machine.travel(madrid(2026, 5, 1, 9), tick=False):
        campaign = CampaignFactory()
    Campaign.objects.filter(pk=campaign.pk).update(last_scheduled_run=madrid(2026, 5, 2, 6))
    # The worker was down on 3, 4 and 5 May; it is back on the 5th at 10:00.
    now = madrid(2026, 5, 5, 10)
    due = campaigns_due(now)
    assert [(c.pk, slot) for c, slot in due] == [(campaign.pk, madrid(2026, 5, 5, 6))]
    Campaign.objects.filter(pk=campaign.pk).update(last_scheduled_run=due[0][1])
    assert campaigns_due(now + datetime.timedelta(minutes=5)) == []


@pytest.mark.django_db
def test_manual_campaigns_are_never_due():
    with time_machine.travel(madrid(2026, 5, 1, 9), tick=False):
        CampaignFactory(schedule=Campaign.Schedule.MANUAL)
    assert campaigns_due(madrid(2026, 5, 9, 9)) == []
