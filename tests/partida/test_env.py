"""Typed environment helpers fail loudly on bad values."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from partida.env import env_bool, env_int, env_list


def test_env_bool(monkeypatch):
    monkeypatch.setenv("X_FLAG", "yes")
    assert env_bool("X_FLAG") is True
    monkeypatch.setenv("X_FLAG", "0")
    assert env_bool("X_FLAG", default=True) is False
    monkeypatch.setenv("X_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG"):
        env_bool("X_FLAG")
    monkeypatch.delenv("X_FLAG")
    assert env_bool("X_FLAG", default=True) is True


def test_env_int(monkeypatch):
    monkeypatch.setenv("X_NUM", "42")
    assert env_int("X_NUM", 1) == 42
    monkeypatch.setenv("X_NUM", "cuarenta")
    with pytest.raises(ImproperlyConfigured, match="X_NUM"):
        env_int("X_NUM", 1)


def test_env_list(monkeypatch):
    monkeypatch.setenv("X_HOSTS", "a.example, b.example,,")
    assert env_list("X_HOSTS", []) == ["a.example", "b.example"]


def test_a_deployment_without_secret_key_refuses_to_start():
    # With a DATABASE_URL (a real deployment) the built-in development key is refused.
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}}
    env["DATABASE_URL"] = "postgres://nobody@127.0.0.1:1/none"
    result = subprocess.run(
        [sys.executable, "-c", "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = "
         "'partida.settings'; django.setup()"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DATABASE_URL is" in result.stderr


@pytest.mark.parametrize(
    ("database_url", "expected"),
    [("postgres://u@127.0.0.1:5432/x", 60), (None, 0)],
)
def test_database_connections_persist_with_a_database_url(database_url, expected):
    # One PostgreSQL connection per request cost more than the pages; SQLite keeps 0.
    import json
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CONN_MAX_AGE"}}
    env["SECRET_KEY"] = "x" * 50
    if database_url:
        env["DATABASE_URL"] = database_url
    code = (
        "import json, django; django.setup(); from django.conf import settings; "
        "d = settings.DATABASES['default']; "
        "print(json.dumps([d['CONN_MAX_AGE'], d['CONN_HEALTH_CHECKS']]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, "DJANGO_SETTINGS_MODULE": "partida.settings"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [expected, True]
