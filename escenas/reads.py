"""Read markers: the last post each user has seen in a scene (posts after it are unread).
Written by the scene page, the polling and a new post's author (``escenas.services``)."""

from __future__ import annotations

from typing import Any

from escenas.models import Scene, SceneRead


def mark_read(*, scene: Scene, user: Any, post_id: int) -> None:
    """Move ``user``'s marker in ``scene`` forward to ``post_id`` (made when missing)."""
    # Only forwards: a stale page never marks newer posts unread again.
    updated = SceneRead.objects.filter(scene=scene, user=user, last_post_id__lt=post_id).update(
        last_post_id=post_id
    )
    if not updated:
        SceneRead.objects.get_or_create(scene=scene, user=user, defaults={"last_post_id": post_id})


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
    mark_read(scene=scene, user=user, post_id=post_id)
