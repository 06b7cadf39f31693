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

Above the per-post fragments, two larger pieces are cached the same way (``versioned_key``):

- the **post list** of a page (pagination, posts, poller) for every viewer, keyed on the scene's
  ``escenas.scene_version.SceneVersion`` (count, newest id and newest ``updated_at`` of all its
  posts, read in the access query), the viewer (master or not, user id), the cursor and the read
  marker: a re-read of an unchanged scene runs no post query and renders no post;
- the **whole page** for an anonymous visitor without cookies of a public scene with no fights,
  keyed on the same version, the scene's, campaign's and participants' rows (a digest of their
  fields) and the full path.

Per-request values never enter a stored piece: the CSRF token, the CSP nonce and the poller's
``since`` time are placeholders filled in on the way out (``fill``).

**What a new piece of the post partial (or of the post list) must do to stay correct**: show only
facts that the key already covers, or make every write that changes it bump one of them:
  - a fact stored on the post row, or on rows written with the post (rolls, whisper recipients,
    revisions): the write must set ``Post.updated_at = now`` (as edits, deletions and thresholds
    do; a bulk ``update()`` too), which changes the post's key and the scene's version;
  - a name or picture of a character or a user (renames, portraits): the save must go through
    ``Model.save`` (the ``names_changed`` receiver in ``escenas.apps``) or call ``names_changed()``
    itself after a bulk ``update()``;
  - something that depends on the viewer: it must follow from the rights class (per post) or the
    viewer part of the list key (master or not, user id); anything else must go into the key;
  - something that depends on the request or the clock (a token, a relative time): a placeholder
    filled in ``fill``, never the stored HTML.
Pieces outside the post list (roll requests, the post form, the combat panel, the diary table)
are rendered on every request and need none of this, except on the two whole pages: the
anonymous one, only cached for scenes without fights and keyed on every row it shows, and a
signed-in reader's (``escenas.viewer_pages``), kept with the write generation of every table its
render read (``nucleo.table_writes``). For that one, a new piece of the page must read what it
shows from the database through Django (any such read is recorded, any write to it seen) or
from this module's keyed pieces; what follows the clock or the session is a placeholder, or
keeps the page from being kept (fights, diaries, messages, a stash).

Backend: the ``default`` cache (Redis with ``REDIS_URL``, else local memory; see settings).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from django.core.cache import cache
from django.utils import timezone, translation

from nucleo import deploy

FRAGMENT_TTL = 7 * 24 * 3600
"""Seconds a post fragment is kept (stale keys are never read again; this only frees memory)."""
NAMES_KEY = "escenas:names-generation"
CSRF_PLACEHOLDER = "\x00csrf-token\x00"
"""Stands for the request's CSRF token inside a stored fragment (never valid HTML text)."""
NOW_PLACEHOLDER = "\x00now-ts\x00"
"""Stands for the request's time (the poller's ``since``, seconds since the epoch)."""
NONCE_PLACEHOLDER = "\x00csp-nonce\x00"
"""Stands for the response's CSP nonce (whole pages only)."""


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
    flags = f"{int(is_new)}{int(oob)}"
    code = deploy.code_stamp()
    return f"escenas:post:{post_id}:{stamp}:{rights}:{flags}:{_locale()}:{slug}:{generation}:{code}"


def cached_fragments(keys: Iterable[str]) -> dict[str, str]:
    """The stored fragments among ``keys`` (one cache round trip)."""
    wanted = list(keys)
    return cache.get_many(wanted) if wanted else {}


def store_fragment(key: str, html: str) -> None:
    """Keep one rendered fragment (with the CSRF placeholder in it)."""
    cache.set(key, html, FRAGMENT_TTL)


def store_fragments(fragments: dict[str, str]) -> None:
    """Keep several rendered fragments (key → HTML) in one cache round trip."""
    if fragments:
        cache.set_many(fragments, FRAGMENT_TTL)


def fill_csrf(html: str, token: Any) -> str:
    """A stored fragment with the request's CSRF token in place of the placeholder."""
    if CSRF_PLACEHOLDER not in html:
        return html
    return html.replace(CSRF_PLACEHOLDER, str(token) if token else "")


def versioned_key(kind: str, *parts: object) -> str:
    """The cache key of a larger cached piece (``kind``: ``list``, ``page``): its own ``parts``
    (the scene's version, the viewer, the cursor…) plus what every piece depends on, the active
    language and time zone, the names generation and the code's stamp."""
    joined = ":".join(str(p) for p in parts)
    return f"escenas:{kind}:{joined}:{_locale()}:{names_generation()}:{deploy.code_stamp()}"


def render_context() -> str:
    """What every rendered piece depends on besides its own values: the active language and
    time zone and the code's stamp (no cache read: call it once for many keys)."""
    return f"{_locale()}:{deploy.code_stamp()}"


def _locale() -> str:
    """The active language and time zone, ``es:Europe/Madrid`` (labels and dates follow them)."""
    return f"{translation.get_language() or ''}:{timezone.get_current_timezone_name()}"


def cached_value(key: str) -> Any:
    """The stored value under ``key`` or None (one cache round trip)."""
    return cache.get(key)


def store_value(key: str, value: Any, ttl: int = FRAGMENT_TTL) -> None:
    """Keep a rendered piece (HTML with placeholders, and what it needs to be written out) for
    ``ttl`` seconds (``FRAGMENT_TTL`` unless told)."""
    cache.set(key, value, ttl)


def fill(html: str, *, csrf_token: Any = None, now_ts: Any = None, nonce: Any = None) -> str:
    """A stored piece with the request's values in place of the placeholders (each given one;
    the CSRF token always, empty when there is none, as ``fill_csrf``)."""
    html = fill_csrf(html, csrf_token)
    if now_ts is not None and NOW_PLACEHOLDER in html:
        html = html.replace(NOW_PLACEHOLDER, str(now_ts))
    if nonce is not None and NONCE_PLACEHOLDER in html:
        html = html.replace(NONCE_PLACEHOLDER, str(nonce))
    return html
