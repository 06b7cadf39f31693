"""The read markers (``SceneRead``): how far each user has read each scene. Writes only.

A marker is one post id: the posts after it are unread. It only moves forwards, and only over
posts that were shown to the reader (issue 15 item 4): a page moves it to its last post when no
unread post comes before the page (``scene_pages.ScenePage.read_up_to``), a poll when the page
it sits on was read in order, and an author's own new post only when nobody else wrote between
the marker and it (what others wrote meanwhile was not shown yet, so it stays unread).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef

from escenas.models import Post, Scene, SceneRead


def author_read(*, scene: Scene, user: Any, post_id: int) -> None:
    """The author of the new post ``post_id`` has read up to it, when no post by someone else
    lies between their marker and it (one UPDATE; a first marker starts at 0 then)."""
    _mark_read(scene=scene, user=user, post_id=post_id, over_others=False)


def _mark_read(*, scene: Scene, user: Any, post_id: int, over_others: bool = True) -> None:
    # Only forwards: a stale page never marks newer posts unread again.
    marker = SceneRead.objects.filter(scene=scene, user=user, last_post_id__lt=post_id)
    if not over_others:
        marker = marker.exclude(
            Exists(
                Post.objects.filter(
                    scene=scene, pk__gt=OuterRef("last_post_id"), pk__lt=post_id
                ).exclude(author_id=user.pk)
            )
        )
    updated = marker.update(last_post_id=post_id)
    if not updated:
        # A first marker for an author who never opened the scene starts at 0: what others
        # wrote before their post is unread (their own posts never count as unread).
        first = post_id if over_others else 0
        SceneRead.objects.get_or_create(scene=scene, user=user, defaults={"last_post_id": first})


def scene_mark_read(*, scene: Scene, user: Any, post_id: int, known: int | None = None) -> None:
    """Remember that ``user`` has seen the scene up to post ``post_id`` (never backwards).

    ``known``: the last read id the caller already read (``selectors.last_read_post_id``); when
    it is positive the marker row exists and this is one conditional UPDATE, so a page costs the
    same queries whether or not it showed new posts. Nothing for anonymous visitors or
    ``post_id`` 0.
    """
    if user is None or not user.is_authenticated or not post_id:
        return
    if known:
        SceneRead.objects.filter(scene=scene, user=user, last_post_id__lt=post_id).update(
            last_post_id=post_id
        )
        return
    _mark_read(scene=scene, user=user, post_id=post_id)
