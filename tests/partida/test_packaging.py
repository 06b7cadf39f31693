"""Packaging: two hashed locks (runtime for the image, dev for the venv), the Django pin, the
image's non-root user, and models without migrations left to write."""

from __future__ import annotations

import re
import tomllib
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PIN = re.compile(r"^([A-Za-z0-9_.-]+)==(\S+)")


def pins(name: str) -> dict[str, str]:
    """Package → version of a lock file, checking that every pin carries its hashes."""
    lines = (ROOT / name).read_text().splitlines()
    found = {}
    for number, line in enumerate(lines):
        match = PIN.match(line)
        if not match:
            continue
        assert line.endswith("\\"), (name, line)
        assert lines[number + 1].strip().startswith("--hash=sha256:"), (name, line)
        found[match[1].lower().replace("_", "-")] = match[2]
    return found


def canonical(requirement: str) -> str:
    return re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


RUNTIME = pins("requirements.lock")
DEV = pins("requirements-dev.lock")


def test_django_is_pinned_to_the_series_the_settings_need():
    assert "Django>=6.1,<6.2" in PYPROJECT["project"]["dependencies"]
    assert RUNTIME["django"].startswith("6.1.")


def test_the_runtime_lock_holds_the_runtime_and_none_of_the_tools():
    for requirement in PYPROJECT["project"]["dependencies"]:
        assert canonical(requirement) in RUNTIME, requirement
    for tool in ("pytest", "pytest-django", "mypy", "ruff", "playwright", "schemathesis"):
        assert tool not in RUNTIME, tool


def test_the_dev_lock_is_the_runtime_lock_plus_the_tools_at_the_same_versions():
    for package, version in RUNTIME.items():
        assert DEV.get(package) == version, package
    for requirement in PYPROJECT["project"]["optional-dependencies"]["dev"]:
        assert canonical(requirement) in DEV, requirement
    assert len(DEV) > len(RUNTIME)


def test_the_image_installs_the_runtime_lock_with_hashes_as_a_non_root_user():
    dockerfile = (ROOT / "Dockerfile").read_text()
    lines = [line for line in dockerfile.splitlines() if line and not line.startswith("#")]
    assert "RUN pip install --require-hashes -r requirements.lock" in lines
    assert not any("requirements-dev" in line for line in lines)
    users = [line for line in lines if line.startswith("USER ")]
    assert users == ["USER partida"]
    assert lines.index(users[0]) < next(i for i, line in enumerate(lines) if line.startswith("CMD"))


def test_make_install_uses_the_hashed_dev_lock_and_make_lock_writes_both():
    makefile = (ROOT / "Makefile").read_text()
    assert "--require-hashes -r requirements-dev.lock" in makefile
    assert "--generate-hashes" in makefile
    assert "-o requirements.lock" in makefile and "-o requirements-dev.lock" in makefile


@pytest.mark.django_db
def test_every_model_change_has_its_migration():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exit_:  # --check exits 1 when a migration is missing
        pytest.fail(f"makemigrations --check exited {exit_.code}:\n{out.getvalue()}")
    assert "No changes detected" in out.getvalue()


def configuration_table() -> list[str]:
    """The variable names of README's configuration table, in order, repeats kept."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    names = []
    for line in section.splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`([A-Z][A-Z0-9_]+)`", line.split("|")[1])
    return names


def variables_read() -> set[str]:
    """Every environment variable the settings, the apps and scripts/run read."""
    found = set()
    for path in [*ROOT.glob("*/*.py"), *ROOT.glob("partida/**/*.py")]:
        if path.parts[len(ROOT.parts)] in {"tests", ".venv"}:
            continue
        text = path.read_text()
        found |= set(re.findall(r"env_(?:str|bool|int|list)\(\s*\"([A-Z0-9_]+)\"", text))
        found |= set(re.findall(r"os\.environ(?:\.get)?[\[(]\"([A-Z0-9_]+)\"", text))
    script = (ROOT / "scripts" / "run").read_text()
    found |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]+)", script))
    found |= set(re.findall(r"os\.environ(?:\.get)?[\[(]\"([A-Z0-9_]+)\"", script))
    return found - {"DJANGO_SETTINGS_MODULE"}


def test_the_readme_configuration_table_is_complete_without_repeats():
    names = configuration_table()
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    read = variables_read()
    assert {"DATABASE_URL", "WEB_THREADS", "BEAT_HEARTBEAT_MAX_AGE_S", "EMAIL_HOST"} <= read
    assert read - set(names) == set(), "read but not documented"
    assert set(names) - read == set(), "documented but never read"
