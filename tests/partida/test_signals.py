"""What a maintainer watches: readiness (/salud/listo/), heartbeats, request ids in log lines,
static files hashed and compressed, media served."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import OperationalError
from django.test import RequestFactory

from mundo.models import DayTick
from partida import beat, heartbeats, request_id, views
from tests.factories import CampaignFactory

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def with_redis(settings, monkeypatch):
    """Settings as with REDIS_URL; the heartbeats come from ``beats`` (role → Unix time)."""
    settings.REDIS_URL = "redis://127.0.0.1:6379/15"
    settings.READY_HEARTBEAT_MAX_AGE_S = 180
    beats: dict[str, float | None] = {"worker": time.time() - 5, "beat": time.time() - 2}
    monkeypatch.setattr(heartbeats, "heartbeats_read", lambda: dict(beats))
    return beats


def ready(client) -> tuple[int, dict]:
    response = client.get("/salud/listo/")
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    return response.status_code, json.loads(response.content)


def test_readiness_lists_each_campaigns_last_tick_without_names(client, db, settings):
    settings.REDIS_URL = ""  # the embedded default: tasks in-process, no heartbeats to ask for
    ticked = CampaignFactory(name="Secreta", slug="secreta", current_day=9)
    tick = DayTick.objects.create(campaign=ticked, day=9, trigger=DayTick.Trigger.MASTER)
    DayTick.objects.create(campaign=ticked, day=8, trigger=DayTick.Trigger.MASTER)
    never = CampaignFactory(current_day=0)
    status, body = ready(client)
    assert status == 200
    assert body["ready"] is True
    assert body["checks"] == {
        "database": {"ok": True},
        "redis": {"ok": True, "configured": False},
        "worker": {"ok": True, "mode": "eager"},
        "beat": {"ok": True, "mode": "eager"},
    }
    last = max(DayTick.objects.filter(campaign=ticked).values_list("created_at", flat=True))
    assert last >= tick.created_at
    assert body["campaigns"] == [
        {"id": ticked.pk, "current_day": 9, "last_tick": last.isoformat()},
        {"id": never.pk, "current_day": 0, "last_tick": None},
    ]
    assert "Secreta" not in json.dumps(body) and "secreta" not in json.dumps(body)


def test_readiness_is_two_queries_whatever_the_number_of_campaigns(
    client, db, settings, django_assert_num_queries
):
    settings.REDIS_URL = ""
    for _ in range(5):
        CampaignFactory()
    with django_assert_num_queries(2):  # SELECT 1, then the campaigns with their last tick
        status, body = ready(client)
    assert status == 200 and len(body["campaigns"]) == 5


def test_ready_with_fresh_heartbeats(client, db, with_redis):
    status, body = ready(client)
    assert status == 200, body
    assert body["checks"]["redis"] == {"ok": True, "configured": True}
    for role, age in (("worker", 5), ("beat", 2)):
        check = body["checks"][role]
        assert check["ok"] is True
        assert check["age_s"] == pytest.approx(age, abs=1.5)
        assert check["last_heartbeat"].endswith("+00:00")


@pytest.mark.parametrize("role", ["worker", "beat"])
def test_a_stale_or_missing_heartbeat_is_not_ready(client, db, with_redis, role):
    with_redis[role] = time.time() - 181
    status, body = ready(client)
    assert status == 503
    assert body["ready"] is False
    assert body["checks"][role]["ok"] is False
    assert body["checks"][role]["age_s"] == pytest.approx(181, abs=1.5)
    with_redis[role] = None
    status, body = ready(client)
    assert status == 503
    assert body["checks"][role] == {"ok": False, "last_heartbeat": None, "age_s": None}


def test_redis_down_is_not_ready(client, db, with_redis, monkeypatch):
    import redis

    def down():
        raise redis.ConnectionError("Connection refused")

    monkeypatch.setattr(heartbeats, "heartbeats_read", down)
    status, body = ready(client)
    assert status == 503
    assert body["checks"]["redis"] == {"ok": False, "configured": True}
    assert body["checks"]["worker"]["ok"] is False and body["checks"]["beat"]["ok"] is False
    assert "refused" not in json.dumps(body)  # no error text, no addresses


def test_database_down_is_not_ready(db, settings, monkeypatch):
    settings.REDIS_URL = ""

    class Broken:
        def cursor(self):
            raise OperationalError("could not connect to server: 10.0.0.5")

    monkeypatch.setattr(views, "connection", Broken())
    response = views.readiness(RequestFactory().get("/salud/listo/"))
    body = json.loads(response.content)
    assert response.status_code == 503
    assert body == {
        "ready": False,
        "checks": {
            "database": {"ok": False},
            "redis": {"ok": True, "configured": False},
            "worker": {"ok": True, "mode": "eager"},
            "beat": {"ok": True, "mode": "eager"},
        },
        "campaigns": [],
    }


def test_readiness_reveals_no_configuration(client, db, with_redis, settings):
    text = json.dumps(ready(client)[1])
    for secret in (settings.SECRET_KEY, settings.REDIS_URL, "6379", "postgres"):
        assert secret not in text


def test_heartbeats_need_redis_and_a_known_role(settings):
    settings.REDIS_URL = ""
    assert heartbeats.heartbeat_record("worker") is False
    assert heartbeats.heartbeats_read() == {"worker": None, "beat": None}
    with pytest.raises(ValueError, match="unknown heartbeat role"):
        heartbeats.heartbeat_record("web")


def test_a_heartbeat_never_breaks_the_process_when_redis_is_down(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    assert heartbeats.heartbeat_record("beat") is False


@pytest.mark.redis
@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL: a real Redis")
def test_heartbeats_round_trip_through_redis(settings):
    import redis

    redis.Redis.from_url(settings.REDIS_URL).delete(
        *(heartbeats.KEY.format(role=r) for r in heartbeats.ROLES)
    )
    assert heartbeats.heartbeats_read() == {"worker": None, "beat": None}
    assert heartbeats.heartbeat_record("worker", now=1_800_000_000.25) is True
    assert heartbeats.heartbeats_read() == {"worker": 1_800_000_000.25, "beat": None}
    ttl = redis.Redis.from_url(settings.REDIS_URL).ttl(heartbeats.KEY.format(role="worker"))
    assert 0 < ttl <= heartbeats.TTL_S


def test_beats_scheduler_touches_the_heartbeat_file_at_most_every_ten_seconds(
    tmp_path, monkeypatch, settings
):
    settings.REDIS_URL = ""
    path = tmp_path / "heartbeat"
    monkeypatch.setenv("BEAT_HEARTBEAT_FILE", str(path))
    monkeypatch.setattr(beat.PersistentScheduler, "tick", lambda self, *a, **k: 7.5)
    clock = iter([1_000.0, 1_004.0, 1_011.0])
    monkeypatch.setattr(beat.time, "time", lambda: next(clock))
    scheduler = object.__new__(beat.HeartbeatScheduler)  # no schedule file: only tick() matters
    assert scheduler.tick() == 7.5
    assert os.path.getmtime(path) == 1_000.0
    assert scheduler.tick() == 7.5
    assert os.path.getmtime(path) == 1_000.0  # 4 s later: not written again
    scheduler.tick()
    assert os.path.getmtime(path) == 1_011.0


@pytest.mark.parametrize(
    ("sent", "kept"),
    [("abc-123_X.9", True), ("x" * 64, True), ("x" * 65, False), ("a b", False), ("é", False)],
)
def test_request_id_is_honoured_when_well_formed_and_echoed(client, db, sent, kept):
    response = client.get("/salud/", HTTP_X_REQUEST_ID=sent)
    echoed = response["X-Request-ID"]
    if kept:
        assert echoed == sent
    else:
        assert re.fullmatch(r"[0-9a-f]{32}", echoed)


def test_each_request_without_an_id_gets_a_new_one(client, db):
    first = client.get("/salud/")["X-Request-ID"]
    second = client.get("/salud/")["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", first) and first != second


def test_log_lines_carry_time_level_logger_and_the_request_id():
    seen = []

    def view(request):
        record = logging.LogRecord("partida.test", logging.INFO, __file__, 1, "hola", None, None)
        request_id.RequestIdFilter().filter(record)
        seen.append(record)
        from django.http import HttpResponse

        return HttpResponse("ok")

    middleware = request_id.RequestIdMiddleware(view)
    response = middleware(RequestFactory().get("/", HTTP_X_REQUEST_ID="req-42"))
    assert response["X-Request-ID"] == "req-42"
    assert request_id.request_id_current() == "-"  # reset after the request
    (handler,) = logging.getLogger().handlers[:1]
    line = handler.format(seen[0])
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO partida\.test \[req-42\] hola", line
    )
    assert any(isinstance(f, request_id.RequestIdFilter) for f in handler.filters)


def test_media_is_served_outside_debug_and_never_outside_media_root(client, db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "retratos").mkdir()
    (tmp_path / "retratos" / "ana.png").write_bytes(b"\x89PNG fake")
    assert settings.DEBUG is False
    response = client.get("/media/retratos/ana.png")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == b"\x89PNG fake"
    assert response["Cache-Control"] == "private, max-age=3600"
    assert client.get("/media/retratos/nadie.png").status_code == 404
    assert client.get("/media/../partida/settings.py").status_code == 404
    assert client.get("/media/%2e%2e/partida/settings.py").status_code == 404


def test_static_files_are_hashed_and_compressed_by_collectstatic(tmp_path):
    from partida import settings as configured

    backend = configured.STORAGES["staticfiles"]["BACKEND"]
    assert backend == "whitenoise.storage.CompressedManifestStaticFilesStorage"
    assert configured.WHITENOISE_MAX_AGE >= 3600
    result = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT,
        env={**os.environ, "STATIC_ROOT": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
    used = set()
    # The project's own templates (not the virtualenv's: allauth's name files of apps not
    # installed here, such as allauth.mfa).
    ours = [p for p in ROOT.rglob("templates/**/*.html") if ".venv" not in p.parts]
    for template in ours:
        used |= set(re.findall(r"\{% static ['\"]([^'\"]+)['\"]", template.read_text()))
    assert "css/partida.css" in used
    for name in used | {"django_htmx/htmx-2.min.js"}:
        hashed = manifest[name]
        assert re.search(r"\.[0-9a-f]{12}\.", hashed), hashed
        assert (tmp_path / f"{hashed}.gz").stat().st_size < (tmp_path / hashed).stat().st_size
