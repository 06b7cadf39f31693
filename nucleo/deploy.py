"""The code's stamp: what every kept piece's cache key ends with, so a deploy never serves a
piece the old code kept in a shared cache (issue 14)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from django.conf import settings

CODE_FOLDERS = (
    "escenas",
    "personajes",
    "mundo",
    "nucleo",
    "partida",
    "reglas",  # the tables pieces show (a sky's name: reglas.tables.DEFAULT_WEATHER)
    "templates",
    "locale",
)
"""The folders under ``settings.BASE_DIR`` whose files ``code_stamp`` digests."""


@functools.cache
def code_stamp() -> str:
    """A digest (16 hex characters) of the names and modification times of the project's
    files (apps, templates, catalogues: ``.py``, ``.html``, ``.mo``, ``.json`` under
    ``CODE_FOLDERS``; read once per process): it changes with every deploy that changes one,
    so no piece a shared cache kept for the old code (a post fragment without a link the new
    template has) is served by the new one, and a deploy needs no cache flush."""
    root = Path(settings.BASE_DIR)
    stamps = sorted(
        (str(path.relative_to(root)), path.stat().st_mtime_ns)
        for folder in CODE_FOLDERS
        for path in (root / folder).rglob("*")
        if path.is_file() and path.suffix in (".py", ".html", ".mo", ".json")
    )
    return hashlib.sha256(repr(stamps).encode()).hexdigest()[:16]
