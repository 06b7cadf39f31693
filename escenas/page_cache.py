"""The scene page's larger cached pieces that are not the post list (``escenas.fragments``
explains the keys and what keeps them correct): the waiting-on line and the whole page of an
anonymous reader of a public scene.

The anonymous page is stored rendered with placeholders for the CSRF token, the CSP nonce and
the poller's clock, and written out with this request's (``filled_page``); on a hit the page
costs the access query and the participants, and renders nothing.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.middleware.csp import get_nonce
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.templatetags.l10n import unlocalize
from django.utils import timezone

from escenas import fragments
from escenas.access import SceneAccess, scene_is_public
from escenas.models import Scene
from escenas.selectors import waiting_on as waiting_on_query
from personajes.models import Character


def rows_digest(*rows: Any) -> str:
    """A short digest of model rows' concrete field values (secrets left out): a key part that
    changes whenever any field of one of them does."""
    values = [
        (
            type(row).__name__,
            [
                (f.attname, getattr(row, f.attname))
                for f in row._meta.concrete_fields
                if f.attname not in SECRET_FIELDS
            ],
        )
        for row in rows
    ]
    return hashlib.sha256(repr(values).encode()).hexdigest()[:32]


SECRET_FIELDS = frozenset({"entropy", "password"})
ALLOWED_ANONYMOUS_COOKIES = frozenset({settings.CSRF_COOKIE_NAME, settings.LANGUAGE_COOKIE_NAME})


def _scene_rows_digest(access: SceneAccess) -> str:
    scene = access.scene
    # A story's participants (read with the access); the other kinds have none.
    participants = scene.participants.all() if scene.kind == Scene.Kind.STORY else ()
    return rows_digest(scene, scene.campaign, *participants)


def waiting_on(access: SceneAccess) -> list[Character]:
    """``selectors.waiting_on`` through the cache when the access has a version: the line
    follows from the posts (the version) and the participants (their rows), both in the key.
    The participants are the prefetched ones (no query on a hit). Only a story scene waits on
    anyone (``selectors.waiting_on``): the others answer [] with no cache read."""
    if access.scene.kind != Scene.Kind.STORY:
        return []
    version = access.version
    if version is None:
        return waiting_on_query(access.scene)
    key = fragments.versioned_key(
        "waiting", access.scene.pk, version.token, _scene_rows_digest(access)
    )
    ids = fragments.cached_value(key)
    if not isinstance(ids, list):
        ids = [c.pk for c in waiting_on_query(access.scene)]
        fragments.store_value(key, ids)
    by_pk = {c.pk: c for c in access.scene.participants.all()}
    return [by_pk[pk] for pk in ids if pk in by_pk]


def anonymous_page_key(request: Any, access: SceneAccess) -> str:
    """The cache key of the whole page for an anonymous visitor, or empty when it may not be
    cached: only a GET without a session or messages cookie (the CSRF and language cookies
    may be there: the token is filled in, the language is in the key) of a public scene
    (``escenas.access.scene_is_public``) without fights, fetched with its version. The key holds
    the version, the scene's, campaign's and participants' rows, the full path and whether it is
    an htmx request (``#post_list`` only)."""
    version = access.version
    if (
        version is None
        or version.fights
        or access.viewer.user_id is not None
        or request.method != "GET"
        or not set(request.COOKIES) <= ALLOWED_ANONYMOUS_COOKIES
        or not scene_is_public(access.scene)
    ):
        return ""
    path = hashlib.sha256(request.get_full_path().encode()).hexdigest()[:32]
    return fragments.versioned_key(
        "page",
        access.scene.pk,
        version.token,
        _scene_rows_digest(access),
        path,
        int(bool(getattr(request, "htmx", False))),
    )


def anonymous_page(key: str) -> str | None:
    """The stored anonymous page under ``key`` (placeholders in it), or None."""
    stored = fragments.cached_value(key) if key else None
    return stored if isinstance(stored, str) else None


def render_anonymous_page(
    request: HttpRequest, key: str, template: str, context: dict[str, Any]
) -> str:
    """Render the page with placeholders for the per-request values, store it under ``key``
    and return it (still with the placeholders: ``filled_page``)."""
    placeholders = {
        "csrf_token": fragments.CSRF_PLACEHOLDER,
        "csp_nonce": fragments.NONCE_PLACEHOLDER,
        "now_ts": fragments.NOW_PLACEHOLDER,
    }
    html = render_to_string(template, context | placeholders, request=request)
    fragments.store_value(key, html)
    return html


def filled_page(request: HttpRequest, html: str) -> str:
    """A stored whole page with this request's CSRF token (which also sets the cookie, as a
    rendered page does), CSP nonce and time."""
    return fragments.fill(
        html,
        csrf_token=get_token(request),
        now_ts=unlocalize(timezone.now().timestamp()),
        nonce=get_nonce(request),
    )
