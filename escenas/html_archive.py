"""A scene, or a whole campaign, as one self-contained HTML file to keep or print: the site's
stylesheet inline (its ``@media print`` rules included), no script, no other request needed.

It holds exactly what its reader may see, decided by ``escenas.access`` as on the pages: the
scenes of ``scenes_readable_q``, their posts of ``posts_visible_q`` (a whisper for its author,
its recipients and the master; a deleted post for the master), each as ``post_view`` shows it
(the note to the master for its author and the master; a hidden roll's dice for the master
only). Written in the reader's language and time zone (the request's, see
``partida.middleware.LanguageMiddleware``).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils import timezone

from escenas.access import (
    SceneAccess,
    posts_visible_q,
    scene_access,
)
from escenas.listing import scene_list
from escenas.models import Post, Scene
from escenas.post_queries import post_prefetches, revision_count
from escenas.selectors import PostView, post_view, scene_posts
from mundo.models import Campaign
from personajes.access import CharacterViewer

STYLESHEET = "css/partida.css"


@dataclass(frozen=True, slots=True)
class ArchivedScene:
    """One scene of an archive and its posts as the reader sees them, oldest first."""

    scene: Scene
    posts: list[PostView]


@functools.cache
def _stylesheet() -> str:
    """The site's stylesheet, to inline (read once per process)."""
    path = finders.find(STYLESHEET)
    return Path(str(path)).read_text(encoding="utf-8") if path else ""


def scene_archive(access: SceneAccess) -> list[ArchivedScene]:
    """The scene of ``access`` (already checked readable) with its visible posts. A constant
    number of queries (``scene_posts``)."""
    posts = scene_posts(access.scene, access.viewer)
    return [ArchivedScene(access.scene, [post_view(p, access.viewer) for p in posts])]


def campaign_archive(campaign: Campaign, viewer: CharacterViewer) -> list[ArchivedScene]:
    """Every scene of ``campaign`` that ``viewer`` may read, in the scene list's order, each
    with its visible posts. A constant number of queries whatever the number of scenes and
    posts: the scenes (1) with their participants (1), the posts (1) with their rolls and
    whisper recipients (``post_prefetches``)."""
    readable = [s for s in scene_list(campaign, viewer) if scene_access(s, viewer).can_read]
    by_scene: dict[int, list[PostView]] = defaultdict(list)
    posts = (
        Post.objects.filter(scene__in=readable)
        .filter(posts_visible_q(viewer))
        .select_related("character", "author", "deleted_by", "campaign")
        .prefetch_related(*post_prefetches())
        .annotate(revision_count=revision_count())
        .order_by("id")
    )
    for post in posts if readable else []:
        by_scene[post.scene_id].append(post_view(post, viewer))
    return [ArchivedScene(s, by_scene.get(s.pk, [])) for s in readable]


def archive_html(
    *, campaign: Campaign, viewer: CharacterViewer, scenes: list[ArchivedScene], title: str
) -> str:
    """The archive as one HTML document (a string), with the stylesheet inline."""
    return render_to_string(
        "escenas/archive.html",
        {
            "campaign": campaign,
            "viewer": viewer,
            "scenes": scenes,
            "title": title,
            "made_at": timezone.now(),
            "stylesheet": _stylesheet(),
        },
    )
