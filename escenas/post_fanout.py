"""A new post's e-mails, queued after its commit and off its request (issue 13: the load test's
p95): telling a scene's 49 other readers cost half of a post's CPU inside its transaction.

``escenas.services.post_create`` writes the post with ``fan_out_pending`` set and, after the
commit, queues the task ``escenas.fan_out_posts`` with its id (``escenas.tasks.
fan_out_after_commit``); with tasks in-process (the embedded default) it runs right after the
commit, still in the request but with every lock released. Beat runs ``escenas.
fan_out_pending_posts`` every minute: it fans out every post whose task never ran (the broker
down at the commit, a worker killed mid-task), so no post is forgotten.

Once per post: a campaign's pending posts are fanned out in one transaction under its shared
lock (the tick's exclusive lock waits, like for a post) and its fan-out key lock (one fan-out
of a campaign at a time), their rows locked with SKIP LOCKED (a post being fanned out is
left), their e-mails queued (``notifications.post_notifications_queue``, idempotent through
``PostNotification`` too) and the flag cleared together: a failure rolls it all back and the
sweep tries again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from escenas import notifications
from escenas.models import Post
from nucleo.locks import campaign_lock, key_lock, lock_rows

BATCH = 200
"""Posts taken by one ``posts_fan_out`` call (the sweep calls it again while batches are full)."""


def posts_fan_out(*, post_ids: Iterable[int] | None = None, limit: int = BATCH) -> tuple[int, int]:
    """Queue the e-mails of the pending posts among ``post_ids`` (None: the oldest ``limit``
    pending posts of any campaign) and clear their ``fan_out_pending``; posts already fanned
    out, or being fanned out by another worker, are skipped; deleted ones tell nobody.
    Returns ``(posts, e-mails)``: how many posts this call fanned out and how many e-mails it
    queued. Queries: 1 for the list, then per campaign its locks (3), the rows' lock (1),
    ``post_notifications_queue``'s constant number and 1 update."""
    pending = Post.objects.filter(fan_out_pending=True)
    if post_ids is not None:
        pending = pending.filter(pk__in=[int(i) for i in post_ids])
    by_campaign: dict[int, list[int]] = defaultdict(list)
    for pk, campaign_id in pending.order_by("pk").values_list("pk", "campaign_id")[:limit]:
        by_campaign[campaign_id].append(pk)
    posts = queued = 0
    for campaign_id, ids in by_campaign.items():
        done, mails = _fan_out_campaign(campaign_id, ids)
        posts += done
        queued += mails
    return posts, queued


def _fan_out_campaign(campaign_id: int, ids: list[int]) -> tuple[int, int]:
    """Fan out the posts ``ids`` of one campaign that are still pending and not locked by
    another worker, in one transaction. Returns ``(posts, e-mails)``."""
    with campaign_lock(campaign_id, shared=True):
        # One fan-out of the campaign at a time (its posts' first notices read and write the
        # readers' markers: two at once could both tell a reader); posts still run beside.
        key_lock("fan-out")
        mine = lock_rows(Post.objects.filter(pk__in=ids, fan_out_pending=True), skip_locked=True)
        if not mine:
            return 0, 0
        # A post deleted before its fan-out ran tells nobody (its e-mails would be withdrawn).
        live = [post.pk for post in mine if post.deleted_at is None]
        queued = notifications.post_notifications_queue(post_ids=live) if live else 0
        Post.objects.filter(pk__in=[post.pk for post in mine]).update(fan_out_pending=False)
    return len(mine), queued
