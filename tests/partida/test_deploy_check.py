"""Production settings pass ``manage.py check --deploy --fail-level WARNING`` (issue 12) with the
compose file's environment, as served there (plain HTTP) and behind HTTPS (``HTTPS=1``).

Each run is a fresh process whose environment is only the compose file's ``x-app`` variables
(``${VAR:-default}`` as compose fills them, a real-looking SECRET_KEY for the required one).
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose_environment(**given: str) -> dict[str, str]:
    """The ``x-app`` environment of docker-compose.yml, interpolated as compose does with
    ``given`` as the shell's variables."""
    app = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["x-app"]

    def fill(match: re.Match[str]) -> str:
        name, op, arg = match.group(1), match.group(2), match.group(3) or ""
        if name in given and (given[name] or op in ("-", "?")):
            return given[name]
        if op in (":?", "?"):
            raise AssertionError(f"compose needs {name}: {arg}")
        return arg

    pattern = re.compile(r"\$\{(\w+)(?:(:?[-?])([^}]*))?\}")
    return {key: pattern.sub(fill, str(value)) for key, value in app["environment"].items()}


def deploy_check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("https", ["", "1"], ids=["compose-http", "https"])
def test_check_deploy_passes_with_the_compose_environment(https):
    given = {"SECRET_KEY": secrets.token_urlsafe(50)}
    if https:
        given["HTTPS"] = https
    env = compose_environment(**given)
    assert env["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    result = deploy_check(env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_the_check_still_fails_on_a_real_problem():
    # Not a check that cannot fail: the console mailer in production is an error.
    env = compose_environment(SECRET_KEY=secrets.token_urlsafe(50))
    env["EMAIL_BACKEND"] = "django.core.mail.backends.console.EmailBackend"
    result = deploy_check(env)
    assert result.returncode != 0 and "mail.E001" in result.stderr + result.stdout


def test_check_deploy_warns_when_the_cache_is_one_process_memory():
    """Without ``REDIS_URL`` the cache is local memory, where several processes would each keep
    their own page caches and write generations: ``nucleo.W001`` says so."""
    env = compose_environment(SECRET_KEY=secrets.token_urlsafe(50))
    del env["REDIS_URL"]
    result = deploy_check(env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "nucleo.W001" in result.stderr + result.stdout
    assert "REDIS_URL" in result.stderr + result.stdout
