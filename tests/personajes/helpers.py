"""Helpers for the characters' tests: build sheets, read them back, make small images.

Plain functions rather than fixtures in a conftest, so the pages' tests in this folder keep
their own fixtures without clashing.
"""

from __future__ import annotations

import io
import os
import threading

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from PIL import Image

from personajes.mapping import allocation
from personajes.models import Character
from tests.factories import CharacterFactory

# Two 10-point builds (RULES.md R5).
BRAWLER = {"fuerza": 3, "agilidad": 2, "resistencia": 2, "pelea": 3}
SCOUT = {"percepcion": 2, "sigilo": 3, "armas_distancia": 3, "supervivencia": 2}


def make_character(campaign, player, *, status=Character.Status.DRAFT, points=None, **fields):
    """A character with a TraitValue row for every campaign trait (``points`` or 0)."""
    return CharacterFactory(
        campaign=campaign, player=player, status=status, allocation=points or {}, **fields
    )


def sheet(character) -> dict[str, int]:
    """The character's points as stored, every campaign trait (0 when missing)."""
    return allocation(character)


def image_file(fmt: str = "PNG", name: str = "retrato.png", size=(8, 8)) -> SimpleUploadedFile:
    """A real, small image made in memory with Pillow."""
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buffer, fmt)
    return SimpleUploadedFile(name, buffer.getvalue(), content_type=f"image/{fmt.lower()}")


ON_POSTGRES = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))

_POSTGRES_MARKS = (
    pytest.mark.postgres,
    pytest.mark.skipif(
        not ON_POSTGRES,
        reason="needs PostgreSQL: SQLite has no row locks and runs one writer at a time",
    ),
    # Real transactions: each thread commits on its own connection.
    pytest.mark.django_db(transaction=True),
)


def postgres_only(test):
    """Mark a concurrency test: it runs on PostgreSQL (CI) and says so when skipped."""
    for mark in _POSTGRES_MARKS:
        test = mark(test)
    return test


def run_concurrently(fn, n: int = 2) -> tuple[list, list[Exception]]:
    """Run ``fn()`` in ``n`` threads released together; ``(results, exceptions)``."""
    barrier = threading.Barrier(n)
    results, errors = [], []

    def worker():
        try:
            barrier.wait()
            results.append(fn())
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors
