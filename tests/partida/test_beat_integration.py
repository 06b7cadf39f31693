"""A real Celery beat and a real worker advance a due campaign exactly one day.

Needs ``REDIS_URL`` (a real broker) and PostgreSQL (the processes share the test database,
which an in-memory SQLite test database cannot); skipped with the reason otherwise. CI has both.
Beat runs with a 2-second schedule (``PARTIDA_BEAT_INTERVAL_S``) and a temporary schedule
file; both processes use their own Redis database number, so nothing else consumes the tasks.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

from mundo.models import Campaign, DayTick
from tests.factories import CampaignFactory

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.redis,
    pytest.mark.postgres,
    pytest.mark.skipif(
        not os.environ.get("REDIS_URL"),
        reason="needs REDIS_URL: a real Redis broker for real beat and worker processes (CI)",
    ),
]


def _database_url() -> str:
    s = connection.settings_dict
    auth = quote(s["USER"] or "")
    if s.get("PASSWORD"):
        auth += ":" + quote(s["PASSWORD"])
    host = s["HOST"] or "localhost"
    port = f":{s['PORT']}" if s.get("PORT") else ""
    return f"postgres://{auth}@{host}{port}/{s['NAME']}"


def _isolated_redis(url: str) -> str:
    # Same server, database 14: this test's queue is its own.
    base = url.rsplit("/", 1)[0] if url.count("/") > 2 else url
    return f"{base}/14"


def test_beat_and_a_worker_advance_a_due_campaign_exactly_once(transactional_db, tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the worker process must see the test database")
    campaign = CampaignFactory(current_day=7, is_public=True)
    # Due: its last scheduled run was two days ago, so the latest 06:00 slot has passed.
    Campaign.objects.filter(pk=campaign.pk).update(
        last_scheduled_run=datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=2)
    )
    redis_url = _isolated_redis(os.environ["REDIS_URL"])
    subprocess.run(
        [sys.executable, "-c", f"import redis; redis.Redis.from_url({redis_url!r}).flushdb()"],
        check=True,
    )
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "REDIS_URL": redis_url,
        "PARTIDA_BEAT_INTERVAL_S": "2",
    }
    celery = [sys.executable, "-m", "celery", "-A", "partida"]
    worker = subprocess.Popen(
        [
            *celery,
            "worker",
            "--pool=solo",
            "--loglevel=info",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
            "--hostname",
            f"beat-test-{os.getpid()}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    beat = subprocess.Popen(
        [*celery, "beat", "--loglevel=info", "--schedule", str(tmp_path / "beat-schedule")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if Campaign.objects.get(pk=campaign.pk).current_day > 7:
                break
            time.sleep(0.5)
        # Let beat fire a few more times: the campaign is not due again until tomorrow.
        time.sleep(6)
        day = Campaign.objects.get(pk=campaign.pk).current_day
    finally:
        for process in (beat, worker):
            process.terminate()
        outputs = [p.communicate(timeout=30)[0] for p in (beat, worker)]
    assert day == 8, "\n".join(outputs)
    tick = DayTick.objects.get(campaign=campaign)
    assert tick.trigger == DayTick.Trigger.SCHEDULE
    assert "partida.advance_due_campaigns" in outputs[0]  # beat sent it, more than once
    assert outputs[0].count("partida.advance_due_campaigns") >= 2
    assert "partida.advance_campaign_day" in outputs[1]  # the worker ran the tick
