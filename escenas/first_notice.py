"""One e-mail until you visit again (issue 13, item 3; the forum standard of phpBB's and
Discourse's "no more notices until you visit"): a reader e-mailed about a post of a scene gets
no e-mail about its later posts until their read marker (``SceneRead.last_post_id``) reaches
the post they were told about (the scene page moves it; see ``escenas.reading``).

So a busy scene sends each reader one e-mail per visit, not one per post: better to read, and
what made a post cost 49 rendered e-mails in the load test. The reader's marker row keeps the
last post they were e-mailed about (``SceneRead.notified_post_id``). Neither held back nor
counted: a member the post mentions (``@name``), a scene the reader follows (an e-mail for
each post, by their choice: ``notifications.scene_mode_set``) and diaries (one post a day,
the day's report). Nobody is e-mailed about a post they have read already (an edit that
re-queues an old post).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from escenas.models import Post, Scene, SceneRead

Markers = dict[tuple[int, int], tuple[int, int]]
"""The readers' markers: ``{(user id, scene id): (last post read, last post told about)}``."""


def notice_markers(user_ids: Iterable[int], scene_ids: Iterable[int]) -> Markers:
    """The markers of these users in these scenes (a pair without a row is absent: (0, 0)).
    One query."""
    return {
        (user_id, scene_id): (read, notified)
        for user_id, scene_id, read, notified in SceneRead.objects.filter(
            scene_id__in=set(scene_ids), user_id__in=set(user_ids)
        ).values_list("user_id", "scene_id", "last_post_id", "notified_post_id")
    }


def may_be_told(post_id: int, key: tuple[int, int], always: bool, markers: Markers) -> bool:
    """False when ``first_notices`` surely drops the row of post ``post_id`` for the reader
    whose marker is ``markers[key]`` (key: (user id, scene id)): they have read the post
    already, or were told about an earlier post and has not read it. ``always``: the post is a
    diary's, mentions the reader or they follow the scene (kept). True does not mean
    kept: an earlier post of the same call may be the reader's notice. No query."""
    if always:
        return True
    read, notified = markers.get(key, (0, 0))
    return read < post_id and notified <= read


def first_notices[V](
    todo: Sequence[tuple[Post, Any, V]],
    followed: set[tuple[int, int]],
    markers: Markers | None = None,
) -> list[tuple[Post, Any, V]]:
    """The (post, user, view) rows of ``todo`` to e-mail, in post order.

    A row is dropped when its user has read the post already, or was e-mailed about an
    earlier post of the scene (before this call, or by an earlier row of ``todo``) that they
    have not read yet. Always kept, and not counted as a notice: the post mentions the user,
    they follow the scene (``followed``: (user id, scene id) pairs, see
    ``notifications.scene_modes_of``), or it is a diary's. The other kept rows become each
    user's last notice in their scene. The posts come with ``mentions`` prefetched;
    ``markers`` are read (``notice_markers``) when not given, in the caller's transaction.
    Two queries (the markers, one upsert), one with ``markers``, none for an empty ``todo``.
    """
    if not todo:
        return []
    rows = sorted(todo, key=lambda row: row[0].pk)
    if markers is None:
        markers = notice_markers({u.pk for _p, u, _v in rows}, {p.scene_id for p, _u, _v in rows})
    kept: list[tuple[Post, Any, V]] = []
    told: dict[tuple[int, int], int] = {}
    for post, user, view in rows:
        key = (user.pk, post.scene_id)
        if (
            post.scene.kind == Scene.Kind.DIARY
            or key in followed
            or any(m.pk == user.pk for m in post.mentions.all())
        ):
            kept.append((post, user, view))
            continue
        read, notified = markers.get(key, (0, 0))
        if read >= post.pk or told.get(key, notified) > read:
            continue
        kept.append((post, user, view))
        told[key] = post.pk
    if told:
        SceneRead.objects.bulk_create(
            [SceneRead(user_id=u, scene_id=s, notified_post_id=p) for (u, s), p in told.items()],
            update_conflicts=True,
            unique_fields=["user", "scene"],
            update_fields=["notified_post_id"],
        )
    return kept
