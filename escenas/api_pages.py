"""The API's pages of a scene's posts (``GET /api/v1/scenes/<id>/posts/`` and a diary's), kept
in the cache while nothing they show changed: a warm re-read of a full page costs two cache
round trips and one aggregate query, no access query, no post query and no serializer.

- **Only closed pages**: a forward page (no cursor, or a forward cursor without offset) that
  has a ``next`` link. Its posts lie between the cursor's position (exclusive) and the post
  after the page, the one that proved ``next`` (inclusive): a new post lands after them and
  changes nothing on it. The open last page is never kept.
- **Key** (``page_key``): the list (a scene's or a character's diary) and its id in the URL,
  the viewer's user id, the absolute URL (the cursor, the page size, and the host of the
  ``next``/``previous`` links), the active language and time zone (the dates), the names
  generation and the code's stamp (``escenas.fragments``, ``nucleo.deploy``: usernames and a
  deploy). Taken before the access check, which runs inside the recording like the page's
  own reads, as ``nucleo.api_answers`` does: what the viewer may see (a master or not, a
  member, the scene's readers) is read from tables whose writes make the page old, and a
  viewer who loses the scene gets the 404 of a fresh check. The scene row's part of the
  version is taken from the row that check read (``scene_state``), so a change made between
  the check and the page's snapshot makes the next read a fresh one too. Authentication runs
  before on every request.
- **The page's own content version** (``range_version``): the scene row's columns but the
  ones every new post moves (``NEWEST_POST_COLUMNS``), then the count, id sum and newest
  ``updated_at`` of every post row (deleted ones and whispers too) in that id range: one
  query, the scene by its key joined to the range of its posts. Every write that changes what
  a post shows (edits, deletions, thresholds, recipients, rolls written with it) bumps
  ``Post.updated_at`` (``escenas.fragments`` states that rule), so the version changes with
  any of them; a change of the scene's readers, kind or campaign changes it too.
- **Other tables the page read** (memberships, participants, characters, users, NPCs, traits,
  the campaign): their write generations (``nucleo.table_writes``) taken before the reads, as
  for the viewer pages; the post tables whose changes the content version covers
  (``COVERED``) are left out, else every new post anywhere in the scene would throw the page
  away.

Off with ``settings.ESCENAS_API_PAGES = False``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, FilteredRelation, Max, Q, Sum
from django.utils import timezone, translation
from rest_framework import pagination
from rest_framework.request import Request

from escenas import fragments
from escenas.models import Scene
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
        "escenas_scene",
    }
)
"""Tables whose changes to a page the content version sees (``range_version``): the posts'
(``Post.updated_at``) and the scene row's (its columns but ``NEWEST_POST_COLUMNS``)."""
NEWEST_POST_COLUMNS = frozenset({"last_post_at", "last_post_id", "last_public_post_id"})
"""The scene's columns every new post moves (``services.post_create``): the scene list reads
them, no post page does; left out of the scene's part of the version, else a new post would
make every kept page of its scene old."""


def enabled() -> bool:
    """Whether API post pages are kept (``settings.ESCENAS_API_PAGES``, default True)."""
    return bool(getattr(settings, "ESCENAS_API_PAGES", True))


def page_key(request: Request, name: str, pk: int | str) -> str:
    """The cache key of this request's page of the list ``name`` (``"scene"``, ``"diary"``)
    of the object ``pk`` in the URL, or empty when it may not be kept: not enabled, not a
    GET, or a reverse or offset cursor (see the module docstring)."""
    if not enabled() or request.method != "GET" or not _forward(request):
        return ""
    user_id = request.user.pk
    parts = (
        name,
        str(pk),
        user_id,
        request.build_absolute_uri(),
        translation.get_language() or "",
        timezone.get_current_timezone_name(),
        fragments.names_generation(),
        deploy.code_stamp(),
    )
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:40]
    return f"escenas:api-page:{name}:{pk}:{user_id}:{digest}"


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


def _scene_columns() -> list[str]:
    """The scene's columns in a page's version: all but its key and ``NEWEST_POST_COLUMNS``."""
    return [
        f.attname
        for f in Scene._meta.concrete_fields
        if f.attname not in NEWEST_POST_COLUMNS and not f.primary_key
    ]


def scene_state(scene: Scene) -> tuple[str, ...]:
    """The scene part of a page's version (``range_version``) from a scene already read: the
    one the access check read, so a change made after that check (before the page's
    snapshot) is a change against the kept version, and the next read is a fresh one."""
    return tuple(str(getattr(scene, name)) for name in _scene_columns())


def range_version(scene_id: int, after: int, up_to: int) -> tuple[Any, ...]:
    """The content version of a page: the scene row's columns but ``NEWEST_POST_COLUMNS``
    (its readers, kind, campaign…: what the access check and the page read of it; as
    ``scene_state``), then the count, sum of ids and newest ``updated_at`` (ISO 8601, or "") of
    the scene's post rows with ``after < id <= up_to`` (every row, deleted or whispered). One
    query: the scene by its key, its posts of the range joined on the index
    (``FilteredRelation``); ``(None,)`` for a scene deleted since."""
    columns = _scene_columns()
    in_range = Q(posts__pk__gt=after, posts__pk__lte=up_to)
    row = (
        Scene.objects.filter(pk=scene_id)
        .annotate(in_range=FilteredRelation("posts", condition=in_range))
        .values(*columns)
        .annotate(n=Count("in_range__id"), s=Sum("in_range__id"), u=Max("in_range__updated_at"))
        .order_by()
        .first()
    )
    if row is None:
        return (None,)
    updated = row["u"].isoformat() if row["u"] else ""
    scene = tuple(str(row[name]) for name in columns)
    return (*scene, int(row["n"] or 0), int(row["s"] or 0), updated)


@dataclass(frozen=True, slots=True)
class StoredPage:
    """A kept page: the response ``data``, the scene (``scene_id``) and the id range of its
    posts it covers (``after`` exclusive, ``up_to`` inclusive), that range's ``version`` and
    the other tables' ``generations``."""

    data: dict[str, Any]
    scene_id: int
    after: int
    up_to: int
    version: tuple[Any, ...]
    generations: dict[str, str]


def stored_page(key: str) -> dict[str, Any] | None:
    """The kept page data under ``key`` when nothing it shows changed since, else None (an
    empty key too). One query on a kept entry (``range_version``)."""
    entry = table_writes.kept(key, StoredPage)
    if entry is None:
        return None
    if range_version(entry.scene_id, entry.after, entry.up_to) != entry.version:
        return None
    return entry.data


def recording(key: str) -> AbstractContextManager[table_writes.Recording | None]:
    """Around the reads of a page that may be kept under ``key`` (the access check too) and
    its ``keep``: ``nucleo.table_writes.recording``, whose generations are taken before the
    first read. The page's own reads go in ``one_snapshot``. Yields None (nothing recorded)
    when ``key`` is empty."""
    return table_writes.recording(key)


@contextmanager
def one_snapshot(rec: table_writes.Recording | None) -> Iterator[None]:
    """Around the page's reads of posts and its ``keep``, inside ``recording``: one
    transaction that sees one snapshot of the database (REPEATABLE READ on PostgreSQL;
    SQLite's transactions are), so the posts' part of the version ``keep`` reads is the one of
    the rows the page shows, whatever commits meanwhile (the scene's part is the access
    check's: ``scene_state``). The access check runs before it, outside: its
    404 is raised outside any transaction of ours. No transaction when ``rec`` is None."""
    if rec is None:
        yield
        return
    conn = transaction.get_connection()
    outermost = not conn.in_atomic_block  # inside a test's transaction the level is set
    with transaction.atomic(savepoint=False):
        if outermost and conn.vendor == "postgresql":
            with conn.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def keep(
    rec: table_writes.Recording | None, scene: Scene, data: dict[str, Any], paginator: Any
) -> None:
    """Keep a page's response ``data`` when it is closed (the paginator, a
    ``PostCursorPagination`` after ``paginate_queryset``, found a post after it). ``scene``
    is the one the access check read: the version's scene part is taken from it
    (``scene_state``), its posts' part from the page's snapshot."""
    if rec is None or not paginator.has_next:
        return
    up_to = int(paginator.next_position)  # a forward page: the post after it (``_forward``)
    cursor = getattr(paginator, "cursor", None)
    after = int(cursor.position) if cursor is not None and cursor.position else 0
    kept = rec.generations(without=COVERED)
    if kept is None:
        return
    state = scene_state(scene)
    posts = range_version(scene.pk, after, up_to)[len(state) :]
    entry = StoredPage(
        data=data,
        scene_id=scene.pk,
        after=after,
        up_to=up_to,
        version=(*state, *posts),
        generations=kept,
    )
    cache.set(rec.key, entry, PAGE_TTL)
