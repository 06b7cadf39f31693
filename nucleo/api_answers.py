"""Whole answers of API lists kept in the cache while no table they read changed: a campaign's
scenes and a character's rolls (``escenas``), a character's diary with its ETag, the
campaign's and my characters (``personajes``), a campaign's settlements (``mundo``). A client
polling an unchanged list costs the session, the throttle and two cache round trips, no list
query and no rows built (issue 14). It lives in ``nucleo`` so every app's API can keep its
lists; the setting keeps its first name.

The same rule as the scene page's (``escenas.viewer_pages``):

- **Key** (``answer_key``): the list's name, the user's id (what the access checks and the
  unread counts read of the viewer), the absolute URL (the page, the page size and the host
  of the ``next``/``previous`` links), the active language and time zone (the dates) and the
  code's stamp (``nucleo.deploy.code_stamp``: a deploy never serves an answer the old code
  kept in a shared cache). Only GETs.
- **Validity**: the answer is kept with the write generation (``nucleo.table_writes``) of every
  table the view read, access checks included, taken *before* the reads: any write to one of
  them, by anyone, through any Django path, makes it a miss (a new post, a read marker of the
  viewer moved, a membership removed, a character renamed, a roll made). Read markers are
  per-user (``nucleo.table_writes.per_user``): another user's marker keeps it. What happens
  before the view (authentication, throttling) runs on every request: a revoked token or a
  signed-out session never reaches a kept answer.
- Only answers (200) are kept: an error raised inside ``recording`` keeps nothing.

Off with ``settings.ESCENAS_API_ANSWERS = False``.
"""

from __future__ import annotations

import hashlib
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone, translation
from rest_framework.request import Request

from nucleo import deploy, table_writes

ANSWER_TTL = 3600
"""Seconds a kept answer lives (one per user, list and address: this bounds their memory)."""


def enabled() -> bool:
    """Whether API list answers are kept (``settings.ESCENAS_API_ANSWERS``, default True)."""
    return bool(getattr(settings, "ESCENAS_API_ANSWERS", True))


def answer_key(request: Request, name: str) -> str:
    """The cache key of this request's answer of the list ``name``, or empty when it may not
    be kept (not enabled, not a GET)."""
    if not enabled() or request.method != "GET":
        return ""
    user_id = request.user.pk
    parts = (
        name,
        user_id,
        request.build_absolute_uri(),
        translation.get_language() or "",
        timezone.get_current_timezone_name(),
        deploy.code_stamp(),
    )
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:40]
    return f"escenas:api-answer:{name}:{user_id}:{digest}"


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    """A kept answer: the response ``data`` and the ``generations`` it was read at."""

    data: Any
    generations: dict[str, str]


def stored_answer(key: str) -> Any:
    """The kept answer data under ``key`` when none of the tables it read changed, else None."""
    entry = table_writes.kept(key, StoredAnswer)
    return None if entry is None else entry.data


def recording(request: Request, key: str) -> AbstractContextManager[table_writes.Recording | None]:
    """Around the reads of an answer that may be kept under ``key`` (the access checks too):
    ``nucleo.table_writes.recording`` for the viewer (a per-user table read only for them by
    its per-user generations). Yields None (nothing recorded) when ``key`` is empty."""
    return table_writes.recording(key, request.user.pk)


def keep(rec: table_writes.Recording | None, data: Any) -> None:
    """Keep an answer's ``data`` under ``rec.key`` with the generations it was read at."""
    if rec is None:
        return
    kept = rec.generations()
    if kept is None:
        return
    cache.set(rec.key, StoredAnswer(data=data, generations=kept), ANSWER_TTL)
