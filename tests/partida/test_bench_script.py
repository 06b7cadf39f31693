"""``scripts/bench`` (``make bench``) names its database from ``BENCH_DB`` (default
``partida_bench``), as ``scripts/load`` does with ``LOAD_DB``, so two runs at once do not drop
each other's; a name that is not a plain PostgreSQL identifier is refused before any database
is touched."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench"


@pytest.mark.parametrize("name", ["x;DROP DATABASE postgres", "Mayúsculas", "1abc", "a-b"])
def test_a_bad_bench_db_is_refused_before_any_database_is_touched(name):
    env = {**os.environ, "BENCH_DB": name, "BENCH_PG": "127.0.0.1:1"}
    done = subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "BENCH_DB must be a plain PostgreSQL name" in done.stderr
    assert done.stdout == ""
