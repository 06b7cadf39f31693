"""docker-compose.yml, parsed (PyYAML) and checked service by service: the topology for real use.

Also runs ``check --deploy`` with compose's environment (its ``${VAR:-default}`` defaults) and
the start script's probes, so what compose starts is what CI starts (scripts/run).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
APPS = ("web", "worker", "beat")
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]


def resolved_environment(service: str, **given: str) -> dict[str, str]:
    """The service's environment as compose would pass it with only ``given`` set."""

    def resolve(match: re.Match[str]) -> str:
        name, kind, default = match[1], match[2], match[3] or ""
        if name in given:
            return given[name]
        assert kind != ":?", f"{name} is required by compose"
        return default

    pattern = re.compile(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}")
    return {k: pattern.sub(resolve, str(v)) for k, v in SERVICES[service]["environment"].items()}


def test_the_services_are_the_topology():
    assert set(SERVICES) == {"postgres", "redis", "migrate", "web", "worker", "beat"}
    assert set(COMPOSE["volumes"]) == {"pgdata", "redisdata", "media", "beat"}


def test_every_long_running_service_restarts_and_has_a_health_check():
    for name in ("postgres", "redis", *APPS):
        assert SERVICES[name]["restart"] == "unless-stopped", name
        assert SERVICES[name]["healthcheck"]["test"], name
    assert SERVICES["migrate"]["restart"] == "no"  # one-shot: exits 0 and stays down


def test_migrate_runs_once_before_web_worker_and_beat():
    assert SERVICES["migrate"]["command"] == ["scripts/run", "migrate"]
    assert SERVICES["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for app in APPS:
        depends = SERVICES[app]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully", app
        assert depends["postgres"]["condition"] == "service_healthy", app
        assert depends["redis"]["condition"] == "service_healthy", app
        assert SERVICES[app]["command"] == ["scripts/run", app], app
        assert "migrate" not in " ".join(SERVICES[app]["command"])  # only the one-shot migrates


def test_volumes_keep_the_database_media_redis_and_beat_schedule():
    assert "pgdata:/var/lib/postgresql/data" in SERVICES["postgres"]["volumes"]
    assert "redisdata:/data" in SERVICES["redis"]["volumes"]
    for app in APPS:
        assert "media:/app/media" in SERVICES[app]["volumes"], app
    assert "beat:/var/lib/partida/beat" in SERVICES["beat"]["volumes"]
    env = resolved_environment("beat", SECRET_KEY="k")
    assert env["BEAT_SCHEDULE_FILE"].startswith("/var/lib/partida/beat/")
    assert env["BEAT_HEARTBEAT_FILE"].startswith("/var/lib/partida/beat/")


def test_redis_keeps_the_queue_across_restarts():
    command = SERVICES["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert "--save" not in command or command[command.index("--save") + 1] != ""
    assert command[command.index("--dir") + 1] == "/data"


def test_health_checks_probe_what_they_name():
    assert SERVICES["web"]["healthcheck"]["test"] == ["CMD", "scripts/run", "web-alive"]
    assert SERVICES["beat"]["healthcheck"]["test"] == ["CMD", "scripts/run", "beat-alive"]
    assert "inspect ping" in SERVICES["worker"]["healthcheck"]["test"][1]
    assert "pg_isready" in SERVICES["postgres"]["healthcheck"]["test"][1]


def test_the_environment_holds_every_production_variable():
    for app in APPS:
        env = resolved_environment(app, SECRET_KEY="k")
        assert env["DATABASE_URL"].startswith("postgres://"), app
        assert env["REDIS_URL"].startswith("redis://"), app
        assert env["DEBUG"] == "0"
        assert env["HTTPS"] == "1"
        assert env["SITE_URL"].startswith("https://")
        assert env["ALLOWED_HOSTS"]
        assert env["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
        for name in ("EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD"):
            assert name in env, (app, name)
        assert int(env["WEB_WORKERS"]) >= 1 and int(env["WEB_THREADS"]) >= 2
        assert env["WEB_KEEPALIVE"] == "0" and env["WORKER_NICE"] == "0"
        assert int(env["WORKER_CONCURRENCY"]) >= 1
    # SECRET_KEY has no default: compose refuses to start without it.
    assert SERVICES["web"]["environment"]["SECRET_KEY"].startswith("${SECRET_KEY:?")


def test_the_start_script_runs_threaded_gunicorn_sized_from_the_environment():
    script = (ROOT / "scripts" / "run").read_text()
    assert os.access(ROOT / "scripts" / "run", os.X_OK)
    assert "--worker-class gthread" in script
    assert '--workers "${WEB_WORKERS:-4}"' in script
    assert '--threads "${WEB_THREADS:-2}"' in script
    assert '--keep-alive "${WEB_KEEPALIVE:-0}"' in script  # one busy process keeps no client
    assert "--preload" in script  # loaded and warmed once, before the fork: every process ready
    # Not niced unless asked: the tick and the fan-out hold campaign locks requests wait on.
    assert 'exec nice -n "${WORKER_NICE:-0}"' in script
    assert "--scheduler partida.beat:HeartbeatScheduler" in script


def test_check_deploy_passes_with_composes_environment():
    env = resolved_environment("web", SECRET_KEY="k3y-" + "x" * 40 + "-Zq9_8Tr5Wn2")
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={"PATH": os.environ.get("PATH", ""), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def run_probe(role: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ROOT / "scripts" / "run"), role],
        env={"PATH": os.environ.get("PATH", ""), "PYTHON": sys.executable, **env},
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.mark.parametrize(("age_s", "alive"), [(5, True), (119, True), (121, False)])
def test_beats_health_check_fails_when_beat_stops_ticking(tmp_path, age_s, alive):
    heartbeat = tmp_path / "heartbeat"
    heartbeat.touch()
    then = time.time() - age_s
    os.utime(heartbeat, (then, then))
    result = run_probe("beat-alive", BEAT_HEARTBEAT_FILE=str(heartbeat))
    assert (result.returncode == 0) is alive, result.stderr


def test_beats_health_check_fails_without_a_heartbeat_file(tmp_path):
    result = run_probe("beat-alive", BEAT_HEARTBEAT_FILE=str(tmp_path / "none"))
    assert result.returncode == 1
    assert "no heartbeat file" in result.stderr


def test_an_unknown_role_is_refused():
    result = run_probe("dance")
    assert result.returncode == 2
    assert "usage: scripts/run" in result.stderr
