"""The project's plumbing: database in use, layering, compose file, calculator entry points."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_the_suite_uses_the_database_of_database_url():
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        assert connection.vendor == "postgresql"
        with connection.cursor() as cursor:
            cursor.execute("SELECT version()")
            assert cursor.fetchone()[0].startswith("PostgreSQL")
    else:
        assert connection.vendor == "sqlite"


def test_redis_is_the_cache_and_broker_when_redis_url_is_set():
    # The settings module as configured from the environment (tests run tasks in-process on
    # top of it: see tests/conftest.py).
    from partida import settings as configured

    if os.environ.get("REDIS_URL"):
        assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
        assert configured.CELERY_BROKER_URL.startswith("redis://")
        assert configured.CELERY_TASK_ALWAYS_EAGER is False
    else:
        assert configured.CELERY_TASK_ALWAYS_EAGER is True


def test_import_contracts_are_kept():
    # reglas <- mundo <- personajes <- escenas <- partida, and no Django in reglas.
    result = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def test_no_module_of_the_rules_engine_imports_django():
    # A second, independent check of the contract above, over the source text itself.
    for path in (ROOT / "reglas").rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top not in {"django", "celery", "rest_framework", "random"}, (path, name)


def test_compose_file_names_every_service_with_a_healthcheck():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "redis", "mailpit", "web", "worker", "beat"}
    for name, service in services.items():
        assert "healthcheck" in service, name
    assert "gunicorn" in services["web"]["command"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "partida", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "partida", "beat"]
    assert "pgdata" in compose["volumes"]
    assert "pgdata:/var/lib/postgresql/data" in services["postgres"]["volumes"]
    for app in ("web", "worker", "beat"):
        env = services[app]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://")
        assert env["REDIS_URL"].startswith("redis://")
        assert services[app]["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert env["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_calculator_acceptance_population():
    result = run("-m", "reglas", "poblacion", "--habitantes", "200", "--dia", "7", "--json")
    assert result.returncode == 0, result.stderr
    import json

    data = json.loads(result.stdout)
    assert (data["zombies"], data["survivors"]) == (170, 30)
    assert data["p"] == pytest.approx(169.28, abs=0.01)


def test_calculator_acceptance_encounter():
    import json

    result = run(
        "-m", "reglas", "encuentro", "--ancho", "100", "--largo", "100",
        "--zombis", "150", "--recorrido", "20", "--json", "--seed", "7",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["cells"], data["p_cell"], data["cells_swept"]) == (2500, 0.06, 75)
    assert 0 <= data["zombies_met"] <= 75


def test_manage_py_reglas_is_the_same_calculator():
    import json

    result = run("manage.py", "reglas", "poblacion", "--habitantes", "200", "--dia", "7", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["zombies"] == 170


def test_calculator_bad_arguments_exit_2_with_one_line():
    result = run("manage.py", "reglas", "tirada", "2d")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_health_check_answers_ok(client, db):
    response = client.get("/salud/")
    assert response.status_code == 200
    assert response.content == b"ok"


@pytest.mark.parametrize(
    "url",
    [
        "/personajes/99999999999999999999999/",
        "/partidas/x/mensajes/99999999999999999999999/",
        "/api/v1/characters/99999999999999999999999/",
    ],
)
def test_ids_too_large_for_the_database_are_404_not_500(client, db, url):
    assert client.get(url).status_code == 404
