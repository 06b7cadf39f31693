"""The API's pages of a scene's posts (``GET /api/v1/scenes/<id>/posts/`` and a diary's), kept
in the cache while nothing they show changed: a warm re-read of a full page costs the access
check, two cache round trips and one aggregate query, no post query and no serializer.

- **Only closed pages**: a forward page (no cursor, or a forward cursor without offset) that
  has a ``next`` link. Its posts lie between the cursor's position (exclusive) and the post
  after the page, the one that proved ``next`` (inclusive): a new post lands after them and
  changes nothing on it. The open last page is never kept.
- **Key** (``page_key``): the scene, the viewer (user id and master or not: what
  ``posts_visible_q`` and ``post_view`` read of them), the absolute URL (the cursor, the
  page size, and the host of the ``next``/``previous`` links), the campaign's slug (in every
  roll), the active language and time zone (the dates), the names generation and the code's
  stamp (``escenas.fragments``: usernames and a deploy).
- **The page's own content version** (``range_version``): the count, id sum and newest
  ``updated_at`` of every post row (deleted ones and whispers too) in that id range, one
  index-range aggregate. Every write that changes what a post shows (edits, deletions,
  thresholds, recipients, rolls written with it) bumps ``Post.updated_at``
  (``escenas.fragments`` states that rule), so the version changes with any of them.
- **Other tables the page read** (characters, users, NPCs, traits, the campaign): their write
  generations (``nucleo.table_writes``) taken before the reads, as for the viewer pages; the
  post tables whose changes the content version covers (``COVERED``) are left out, else every
  new post anywhere in the scene would throw the page away.

Off with ``settings.ESCENAS_API_PAGES = False``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, Max, Sum
from django.utils import timezone, translation
from rest_framework import pagination
from rest_framework.request import Request

from escenas import fragments
from escenas.access import SceneAccess
from escenas.models import Post
from nucleo import deploy, table_writes

PAGE_TTL = 3600
"""Seconds a kept page lives (one per reader, scene and address: this bounds their memory)."""
COVERED = frozenset(
    {
        "escenas_post",
        "escenas_postroll",
        "escenas_post_whisper_to",
        "escenas_postrevision",
        "personajes_roll",
    }
)
"""Tables whose changes to a post the range's content version sees (``Post.updated_at``)."""


def enabled() -> bool:
    """Whether API post pages are kept (``settings.ESCENAS_API_PAGES``, default True)."""
    return bool(getattr(settings, "ESCENAS_API_PAGES", True))


def page_key(request: Request, access: SceneAccess) -> str:
    """The cache key of this request's page of ``access.scene``, or empty when it may not be
    kept: not enabled, or a reverse or offset cursor (see the module docstring)."""
    if not enabled() or request.method != "GET" or not _forward(request):
        return ""
    viewer = access.viewer
    parts = (
        access.scene.pk,
        viewer.user_id,
        int(viewer.is_master),
        request.build_absolute_uri(),
        access.scene.campaign.slug,
        translation.get_language() or "",
        timezone.get_current_timezone_name(),
        fragments.names_generation(),
        deploy.code_stamp(),
    )
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:40]
    return f"escenas:api-page:{access.scene.pk}:{viewer.user_id}:{digest}"


def _forward(request: Request) -> bool:
    """True without a cursor or with a forward one at offset 0 (a malformed one: False, and
    the paginator answers it as usual)."""
    raw = request.query_params.get("cursor")
    if not raw:
        return True
    cursor = _decode(request)
    return cursor is not None and not cursor.reverse and not cursor.offset


def _decode(request: Request) -> Any:
    try:  # the API's ``PostCursorPagination`` reads ``?cursor=`` as DRF's does
        return pagination.CursorPagination().decode_cursor(request)
    except Exception:  # DRF's NotFound for a malformed cursor: not kept, answered as usual
        return None


def range_version(scene_id: int, after: int, up_to: int) -> tuple[int, int, str]:
    """``(count, sum of ids, newest updated_at)`` of the scene's post rows with
    ``after < id <= up_to`` (every row, deleted or whispered). One query."""
    row = (
        Post.objects.filter(scene_id=scene_id, pk__gt=after, pk__lte=up_to)
        .order_by()
        .aggregate(n=Count("id"), s=Sum("id"), u=Max("updated_at"))
    )
    updated = row["u"].isoformat() if row["u"] else ""
    return int(row["n"] or 0), int(row["s"] or 0), updated


@dataclass(frozen=True, slots=True)
class StoredPage:
    """A kept page: the response ``data``, the id range it covers (``after`` exclusive, ``up_to``
    inclusive), that range's ``version`` and the other tables' ``generations``."""

    data: dict[str, Any]
    after: int
    up_to: int
    version: tuple[int, int, str]
    generations: dict[str, str]


def stored_page(key: str, scene_id: int) -> dict[str, Any] | None:
    """The kept page data under ``key`` when nothing it shows changed since, else None."""
    entry = table_writes.kept(key, StoredPage)
    if entry is None:
        return None
    if range_version(scene_id, entry.after, entry.up_to) != entry.version:
        return None
    return entry.data


@contextmanager
def recording(key: str) -> Iterator[table_writes.Recording | None]:
    """Around the reads of a page that may be kept under ``key`` and its ``keep``:
    ``nucleo.table_writes.recording`` (no viewer: the page's rows are the same for every
    reader of its rights class), all in one transaction that sees one snapshot of the
    database (REPEATABLE READ on PostgreSQL; SQLite's transactions are), so the content
    version ``keep`` reads is the one of the rows the page shows, whatever commits meanwhile.
    The generations are taken inside the transaction, before its first read (which is what
    fixes PostgreSQL's snapshot). Yields None (nothing recorded, no transaction) when ``key``
    is empty."""
    if not key:
        yield None
        return
    conn = transaction.get_connection()
    outermost = not conn.in_atomic_block  # inside a test's transaction the level is set
    with transaction.atomic(savepoint=False):
        if outermost and conn.vendor == "postgresql":
            with conn.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        with table_writes.recording(key) as rec:
            yield rec


def keep(
    rec: table_writes.Recording | None, scene_id: int, data: dict[str, Any], paginator: Any
) -> None:
    """Keep a page's response ``data`` when it is closed (the paginator, a
    ``PostCursorPagination`` after ``paginate_queryset``, found a post after it)."""
    if rec is None or not paginator.has_next:
        return
    up_to = int(paginator.next_position)  # a forward page: the post after it (``_forward``)
    cursor = getattr(paginator, "cursor", None)
    after = int(cursor.position) if cursor is not None and cursor.position else 0
    kept = rec.generations(without=COVERED)
    if kept is None:
        return
    version = range_version(scene_id, after, up_to)
    entry = StoredPage(data=data, after=after, up_to=up_to, version=version, generations=kept)
    cache.set(rec.key, entry, PAGE_TTL)
