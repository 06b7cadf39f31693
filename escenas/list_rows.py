"""The scene list's rows as HTML, each kept in the cache under what it shows.

A page of the list is kept whole while nothing it read changed (``escenas.viewer_pages``); but
any post in the campaign changes some row's unread count or last post, so in a campaign being
played the list is mostly rendered afresh, and its 50 rows were most of that render. A row
changes far less often than its page: each is kept under a digest of every value it shows
(address, kind, title, unread count, the participants' names, the last post's speaker, time
and text) with the language, time zone and code's stamp (``fragments.render_context``), so a
render after one new post renders one row and reads the other 49 in one cache round trip.
"""

from __future__ import annotations

import hashlib

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from escenas import fragments
from escenas.listing import SceneRow
from escenas.models import Scene

SCENE_ROW_TEMPLATE = "escenas/_scene_row.html"


def _shown(row: SceneRow) -> tuple[object, ...]:
    """Every value ``SCENE_ROW_TEMPLATE`` reads of ``row`` (labels and dates come from the
    language and time zone, which the key holds)."""
    scene, post = row.scene, row.last_post
    names = (
        tuple((c.pk, c.name) for c in scene.participants.all())
        if scene.kind == Scene.Kind.STORY
        else ()
    )
    last = (post.pk, post.speaker_name, post.created_at, post.body_html) if post else None
    return (row.url, scene.kind, scene.title, row.unread, names, last)


def row_key(row: SceneRow, context: str) -> str:
    """The cache key of ``row``'s HTML: a digest of what it shows (``_shown``) and the
    ``context`` it is rendered in (``fragments.render_context``). The names are in the digest
    (the participants' and the post's stored speaker), so no names generation: renaming
    someone elsewhere keeps the rows that do not show them."""
    digest = hashlib.sha256(repr(_shown(row)).encode()).hexdigest()[:32]
    return f"escenas:scene-row:{digest}:{context}"


def rows_html(rows: list[SceneRow]) -> list[SafeString]:
    """The HTML of each of ``rows`` (``listing.scene_rows``), in order: the kept ones read
    in one cache round trip, the others rendered from ``SCENE_ROW_TEMPLATE`` and kept (one
    more). Raises nothing of its own."""
    context = fragments.render_context()
    keys = [row_key(row, context) for row in rows]
    found = fragments.cached_fragments(keys)
    made: dict[str, str] = {}
    out = []
    for row, key in zip(rows, keys, strict=True):
        html = found.get(key)
        if html is None:
            html = made[key] = render_to_string(SCENE_ROW_TEMPLATE, {"row": row})
        out.append(mark_safe(html))  # rendered by our own autoescaping template
    if made:
        fragments.store_fragments(made)
    return out
