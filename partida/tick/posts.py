"""The diary posts of a closed day, made after the tick's commit (R24 steps 6–7).

The tick's record is the ``DiaryEntry`` rows, written in its transaction; the posts in each
character's diary scene are made from them by a task once the tick has committed: rendering
thousands of posts would otherwise hold the campaign's lock for seconds (benchmark: ~3 ms a
post), and the posts function is idempotent, so a retried task adds nothing. With eager Celery
(the demo) it runs right after the commit.
"""

from __future__ import annotations

from celery import shared_task

from escenas.diary import diary_posts_create
from personajes.models import DiaryEntry


def diary_posts_for_day(campaign_id: int, day: int) -> int:
    """Make the diary posts of ``day``'s entries with ``escenas.diary.diary_posts_create``
    (which also queues their notifications); returns how many posts were made now. Safe to
    run twice. Queries: the entries with their characters (one), then the scenes app's.
    Source: RULES.md R25."""
    entries = list(
        DiaryEntry.objects.filter(character__campaign_id=campaign_id, day=day).select_related(
            "character"
        )
    )
    return len(diary_posts_create(entries=entries))


@shared_task(name="partida.create_diary_posts")
def create_diary_posts(campaign_id: int, day: int) -> int:
    """The diary posts of a closed day (queued by the tick after its commit). Safe to run
    twice: the posts are keyed per diary scene and day. Returns how many were made now."""
    return diary_posts_for_day(campaign_id, day)
