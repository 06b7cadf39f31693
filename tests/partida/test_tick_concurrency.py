"""Two ticks of the same campaign at the same moment advance it by one day (PostgreSQL).

Real row locks need a real server: on SQLite the test is skipped (with the reason). Each thread
has its own database connection (Django's connections are per thread); the first tick is slowed
down while it holds the campaign row so that the second one really waits on the lock.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from mundo.models import Campaign, DayTick
from partida.tick import advance_day
from partida.tick import run as tick_run
from personajes.models import DiaryEntry
from tests.factories import CampaignFactory, SettlementFactory
from tests.partida.tick_helpers import good_shelter, survivor

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def needs_postgres():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite has no row locks (set DATABASE_URL; CI does)")


def test_two_concurrent_ticks_advance_one_day(monkeypatch):
    campaign = CampaignFactory(current_day=7)
    shelter = good_shelter(SettlementFactory(campaign=campaign))
    for _ in range(5):
        survivor(campaign, shelter=shelter)
    real = tick_run.close_characters_day

    def slow(**kwargs):
        time.sleep(0.5)  # hold the campaign lock a while: the other thread must wait
        return real(**kwargs)

    monkeypatch.setattr(tick_run, "close_characters_day", slow)
    barrier = threading.Barrier(2)
    results, errors = [], []

    def run() -> None:
        try:
            barrier.wait()
            results.append(advance_day(campaign.pk, expected_day=7))
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert sorted(r.advanced for r in results) == [False, True]
    assert results[0].tick_id == results[1].tick_id
    assert Campaign.objects.get(pk=campaign.pk).current_day == 8
    assert DayTick.objects.filter(campaign=campaign).count() == 1
    assert DiaryEntry.objects.filter(character__campaign=campaign).count() == 5
