"""The scene page's per-post HTML cache: each post's rendered fragment is kept under a key made
of everything that changes it, so a hit is the same bytes as a fresh render.

The key (``post_key``): the post's id and ``updated_at`` (bumped by every write that changes
what a post shows: edits, deletions, thresholds set), the viewer's *rights class* for that post
(master, the post's author, both, or any other reader: the only viewer facts the fragment
shows), the new-flag, the active language and time zone, the campaign's slug (in the links) and
a *names generation* bumped whenever a character, an NPC or a user may have been renamed or
given a new portrait (the fragment shows their names and portrait URLs, which the post row does
not store).

The CSRF token of the delete form differs per request: fragments are stored with a placeholder
in its place and the request's token goes in when they are written out (``fill_csrf``).

Backend: the ``default`` cache (Redis with ``REDIS_URL``, else local memory; see settings).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from django.core.cache import cache
from django.utils import timezone, translation

FRAGMENT_TTL = 7 * 24 * 3600
"""Seconds a post fragment is kept (stale keys are never read again; this only frees memory)."""
NAMES_KEY = "escenas:names-generation"
CSRF_PLACEHOLDER = "\x00csrf-token\x00"
"""Stands for the request's CSRF token inside a stored fragment (never valid HTML text)."""


def rights_class(*, is_master: bool, is_author: bool) -> str:
    """The viewer's rights class for one post: ``"m"`` the master, ``"a"`` its author, ``"ma"``
    both, ``"r"`` anyone else (whatever they read, a post's fragment differs only by these)."""
    return ("m" if is_master else "") + ("a" if is_author else "") or "r"


def names_generation() -> str:
    """The current names generation (made when missing: an evicted value never comes back)."""
    value = cache.get(NAMES_KEY)
    if value is None:
        value = str(time.time_ns())
        cache.add(NAMES_KEY, value, None)
        value = cache.get(NAMES_KEY) or value
    return str(value)


SHOWN_FIELDS = frozenset({"name", "username", "portrait", "portrait_thumb", "portrait_thumb_2x"})
"""Fields of characters, NPCs and users a post fragment shows (names, portrait URLs)."""


def names_changed(**_kwargs: Any) -> None:
    """A character, an NPC or a user was saved (maybe renamed, maybe a new portrait): every
    fragment key changes. Signal receiver; saves with ``update_fields`` that name no shown
    field are ignored."""
    fields = _kwargs.get("update_fields")
    if fields is not None and not SHOWN_FIELDS & set(fields):
        return
    cache.set(NAMES_KEY, str(time.time_ns()), None)


def post_key(
    *,
    post_id: int,
    updated_at: Any,
    rights: str,
    is_new: bool,
    slug: str,
    generation: str,
    oob: bool = False,
) -> str:
    """The cache key of one post's fragment as seen with these facts (see the module
    docstring)."""
    stamp = int(updated_at.timestamp() * 1_000_000)
    lang = translation.get_language() or ""
    zone = timezone.get_current_timezone_name()
    flags = f"{int(is_new)}{int(oob)}"
    return f"escenas:post:{post_id}:{stamp}:{rights}:{flags}:{lang}:{zone}:{slug}:{generation}"


def cached_fragments(keys: Iterable[str]) -> dict[str, str]:
    """The stored fragments among ``keys`` (one cache round trip)."""
    wanted = list(keys)
    return cache.get_many(wanted) if wanted else {}


def store_fragment(key: str, html: str) -> None:
    """Keep one rendered fragment (with the CSRF placeholder in it)."""
    cache.set(key, html, FRAGMENT_TTL)


def fill_csrf(html: str, token: Any) -> str:
    """A stored fragment with the request's CSRF token in place of the placeholder."""
    if CSRF_PLACEHOLDER not in html:
        return html
    return html.replace(CSRF_PLACEHOLDER, str(token) if token else "")
