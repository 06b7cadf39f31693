"""The whole scene page of a signed-in reader, kept in the cache while nothing it read changed;
the campaign's scene list, the campaign's own page, the master's world page and character list
the same way (``list_key``, ``campaign_key``, ``world_key``, ``characters_key``).

A warm re-read of an unchanged scene (the common case: a player reloads, comes back from
another tab) costs the session and the user, as any signed-in page, and two cache round trips:
no scene query, no render. The scene list is the page a player goes back to between scenes:
with 500 diaries its render is a page of 50 rows, their unread counts and last posts (issue 14).

- **Key** (``page_key``, ``list_key``): the user (id, username, staff flag: the header), the
  full path (the cursor, reply and quote links), whether it is an htmx request, the active
  language and time zone, and the code's stamp (``nucleo.deploy.code_stamp``: a deploy with other
  templates, code or catalogues never serves a page the old one kept in a shared cache). Only
  for a GET with no pending message and no signed-out stash for the scene (both are consumed
  by the render).
- **Validity**: the page is stored with the write generation (``nucleo.table_writes``) of every
  table its render read, taken *before* the reads, plus the names generation
  (``escenas.fragments``; the post fragments it wrote out from the cache show names). Any
  write to one of those tables, by anyone, through any Django path (``save``, ``update()``,
  bulk writes, cascades), makes it a miss: a new post, an edit, a membership removed, a
  character renamed, the reader's own draft saved or read marker moved. Read markers and drafts
  are per-user tables (``nucleo.table_writes.per_user``, declared in ``escenas.apps``): the
  page reads only its viewer's rows of them, so another user's marker or draft keeps it.
- **Per-request values** are placeholders filled in on the way out (``fill``): the CSRF token,
  the CSP nonce, the poller's clock and the post form's fresh idempotency key. The page is kept
  already encoded (UTF-8) and cut at its placeholders, so a hit writes it out in one join: no
  search of the whole page per placeholder, no encoding of it (issue 14: on the last page those
  were a quarter of a hit's time).
- **Not kept**: scenes with fights (the combat panel follows the clock). A diary is kept: its
  table, chart and forecast are all read in the render (the tick's diary rows and posts, the
  character, its inventory and stash, today's weather, the campaign's day), so the tick's
  writes make it old as a post does. A render that moved the read marker (or, in the list,
  created the off-topic scene or a diary) is kept under the generations it started from,
  which the write made old (the next request renders and keeps).

A hit skips ``scene_mark_read``: a stored page's own request moved no marker (else it would not
match), so the same page now would move none either.

Off with ``settings.ESCENAS_VIEWER_PAGES = False``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.http import HttpRequest
from django.middleware.csp import get_nonce
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.templatetags.l10n import unlocalize
from django.utils import timezone, translation

from escenas import fragments, stash
from escenas.forms import new_idempotency_key
from nucleo import deploy, table_writes

IDEMPOTENCY_PLACEHOLDER = "\x00idempotency-key\x00"
"""Stands for the post form's fresh idempotency key (a new one on every request)."""
PAGE_TTL = 3600
"""Seconds a kept page lives (one per reader and address: this bounds the memory they take)."""
ALWAYS_READ = ("auth_user",)
"""Tables the page shows that are read before the view (the user, by the middleware)."""
PLACEHOLDERS = (
    fragments.CSRF_PLACEHOLDER,
    fragments.NONCE_PLACEHOLDER,
    fragments.NOW_PLACEHOLDER,
    IDEMPOTENCY_PLACEHOLDER,
)
"""What ``fill`` puts this request's values in place of, in a kept page."""
_CUT = re.compile("(" + "|".join(re.escape(p) for p in PLACEHOLDERS) + ")")


def enabled() -> bool:
    """Whether signed-in pages are kept (``settings.ESCENAS_VIEWER_PAGES``, default True)."""
    return bool(getattr(settings, "ESCENAS_VIEWER_PAGES", True))


def page_key(request: HttpRequest, scene_pk: int) -> str:
    """The cache key of the page for this request, or empty when it may not be kept: not
    enabled, not a GET, not signed in, a message waiting, or a stash for this scene."""
    return _key(request, str(scene_pk), stash_scene=scene_pk)


def list_key(request: HttpRequest, campaign_slug: str) -> str:
    """The cache key of a campaign's scene list for this request (``page_key``'s rules; the
    list takes back no stash), or empty when it may not be kept."""
    return _key(request, f"list:{campaign_slug}", stash_scene=None)


def world_key(request: HttpRequest, campaign_slug: str) -> str:
    """The cache key of a campaign's world page for this request (``page_key``'s rules: a GET
    only, so a posted form and its errors are never kept; the page takes back no stash), or
    empty when it may not be kept (``partida.world_views.world_page``)."""
    return _key(request, f"world:{campaign_slug}", stash_scene=None)


def campaign_key(request: HttpRequest, campaign_slug: str) -> str:
    """The cache key of a campaign's page for this request (``world_key``'s rules), or empty
    when it may not be kept (``partida.world_views.campaign_page``)."""
    return _key(request, f"campaign:{campaign_slug}", stash_scene=None)


def characters_key(request: HttpRequest, campaign_slug: str) -> str:
    """The cache key of the master's character list of a campaign for this request
    (``world_key``'s rules), or empty when it may not be kept
    (``partida.world_views.characters_page``)."""
    return _key(request, f"characters:{campaign_slug}", stash_scene=None)


def _key(request: HttpRequest, place: str, *, stash_scene: int | None) -> str:
    """The cache key of the page at ``place`` (a scene's id, ``list:<slug>``) for this request,
    or empty: not enabled, not a GET, not signed in, a message waiting, or a stash for
    ``stash_scene``."""
    user = request.user
    if not enabled() or request.method != "GET" or not user.is_authenticated:
        return ""
    if len(get_messages(request)):
        return ""
    if stash_scene is not None and _has_stash(request, stash_scene):
        return ""
    parts = (
        user.pk,
        user.get_username(),
        int(user.is_staff),
        place,
        request.get_full_path(),
        int(bool(getattr(request, "htmx", False))),
        translation.get_language() or "",
        timezone.get_current_timezone_name(),
        deploy.code_stamp(),
    )
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:40]
    return f"escenas:viewer-page:{user.pk}:{place}:{digest}"


def _has_stash(request: HttpRequest, scene_pk: int) -> bool:
    kept = request.session.get(stash.SESSION_KEY)
    return isinstance(kept, dict) and kept.get("scene") == int(scene_pk)


@dataclass(frozen=True, slots=True)
class StoredPage:
    """A kept page: ``chunks``, its UTF-8 bytes cut at the placeholders (one more than
    ``holes``), ``holes`` the placeholder between each two chunks (one of ``PLACEHOLDERS``),
    and the ``generations`` it was read at (``nucleo.table_writes.generations`` plus the names
    generation; empty: not kept)."""

    chunks: tuple[bytes, ...]
    holes: tuple[str, ...]
    generations: dict[str, str] = field(default_factory=dict)


def cut(html: str, generations: dict[str, str] | None = None) -> StoredPage:
    """The ``StoredPage`` of a rendered page (placeholders in it)."""
    pieces = _CUT.split(html)
    return StoredPage(
        chunks=tuple(p.encode() for p in pieces[::2]),
        holes=tuple(pieces[1::2]),
        generations=generations or {},
    )


def stored_page(key: str) -> StoredPage | None:
    """The kept page under ``key`` when none of the tables it read changed since, else None."""
    return table_writes.kept(key, StoredPage)


Recording = table_writes.Recording
"""What a kept page was read at (``nucleo.table_writes.Recording``, with the names generation)."""


@contextmanager
def recording(request: HttpRequest, key: str) -> Iterator[Recording | None]:
    """Around a render that may be kept under ``key``: ``nucleo.table_writes.recording`` for
    the signed-in viewer (their read markers and drafts by their per-user generations), with
    the names generation too (the post fragments the page takes from the cache show names).
    Yields None (nothing recorded) when ``key`` is empty."""
    with table_writes.recording(key, request.user.pk) as rec:
        if rec is not None:
            rec.extra[fragments.NAMES_KEY] = fragments.names_generation()
        yield rec


def render_and_keep(
    request: HttpRequest,
    rec: Recording,
    template: str,
    context: dict[str, Any],
    fresh_key: str | None,
) -> StoredPage:
    """Render the page with placeholders (``fresh_key``, the post form's fresh idempotency key,
    replaced by one), keep it under ``rec.key`` with the generations it was read at, and return
    it (to be written out by ``fill``)."""
    placeholders = {
        "csrf_token": fragments.CSRF_PLACEHOLDER,
        "csp_nonce": fragments.NONCE_PLACEHOLDER,
        "now_ts": fragments.NOW_PLACEHOLDER,
    }
    html: str = render_to_string(template, context | placeholders, request=request)
    if fresh_key:
        html = html.replace(fresh_key, IDEMPOTENCY_PLACEHOLDER)
    kept = rec.generations(also=ALWAYS_READ)
    if kept is None:
        return cut(html)
    page = cut(html, kept)
    cache.set(rec.key, page, PAGE_TTL)
    return page


def _nonce(request: HttpRequest) -> str:
    nonce = get_nonce(request)  # lazy: false until read, so no ``or`` here
    return "" if nonce is None else str(nonce)


def fill(request: HttpRequest, page: StoredPage) -> bytes:
    """A kept page's bytes with this request's CSRF token (which also sets the cookie), CSP
    nonce, time and a fresh idempotency key (the same one wherever the page names it)."""
    token = get_token(request)  # always: it also sets the cookie
    makers = {
        fragments.CSRF_PLACEHOLDER: lambda: str(token) if token else "",
        fragments.NONCE_PLACEHOLDER: lambda: _nonce(request),
        fragments.NOW_PLACEHOLDER: lambda: str(unlocalize(timezone.now().timestamp())),
        IDEMPOTENCY_PLACEHOLDER: new_idempotency_key,
    }
    # Only what the page holds (reading the nonce puts it in the CSP header).
    filled = {hole: makers[hole]().encode() for hole in set(page.holes)}
    out = [page.chunks[0]]
    for hole, chunk in zip(page.holes, page.chunks[1:], strict=True):
        out += (filled[hole], chunk)
    return b"".join(out)
