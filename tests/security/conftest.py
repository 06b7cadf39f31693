"""Fixtures of the security regression tests (issue 12's findings, one file per finding)."""

from __future__ import annotations

import pytest
from django.core.cache.backends.locmem import LocMemCache
from django.db import connection


@pytest.fixture(autouse=True)
def fresh_throttle_cache(monkeypatch):
    """The API throttles count in memory, from zero, in each test."""
    from partida.throttling import ApiClientThrottle, ApiUserThrottle

    cache = LocMemCache("security-throttle-test", {})
    cache.clear()
    monkeypatch.setattr(ApiClientThrottle, "cache", cache)
    monkeypatch.setattr(ApiUserThrottle, "cache", cache)
    return cache


@pytest.fixture
def needs_postgres():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL; CI does)")


# The scene cast of tests/escenas (char_a, char_b, the story scene).
from tests.escenas.conftest import char_a, char_b, story  # noqa: E402, F401
