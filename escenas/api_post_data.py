"""A page of posts for the API as plain dicts (issue 14: "API scene posts, rendered" spent
most of its time in DRF's per-field calls for 20 posts and their rolls).

``escenas.api.PostSerializer`` stays the schema and the answer of a single post (a write's);
``post_data`` gives the same keys in the same order and the same values for the lists
(``tests/api/test_api_lists.py`` holds the two equal on posts that reach every branch).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from escenas.selectors import PostView, RollView
from personajes.api_rolls import roll_data

_DATETIME = serializers.DateTimeField()


def post_data(view: PostView) -> dict[str, Any]:
    """``PostSerializer(view).data`` without the serializer: the post as ``view`` shows it
    (ISO 8601 dates in the current time zone, each roll through ``roll_link_data``). The
    post comes from ``selectors.scene_posts`` with its rolls' makers loaded
    (``escenas.api.with_rolls``): no query."""
    post = view.post
    as_iso = _DATETIME.to_representation
    return {
        "id": post.pk,
        "scene": post.scene_id,
        "author": post.author.get_username() if post.author else None,
        "voice": post.voice,
        "character": post.character_id,
        "speaker_name": post.speaker_name,
        "by_master": post.by_master,
        "body": post.body,
        "body_html": post.body_html,
        "note_html": view.note_html,
        "is_whisper": post.is_whisper,
        "whisper_to": list(view.whisper_names),
        "day": post.day,
        "created_at": as_iso(post.created_at),
        "edited_at": None if post.edited_at is None else as_iso(post.edited_at),
        "edited_after_roll": post.edited_after_roll,
        "deleted": view.deleted,
        "rolls": [roll_link_data(roll) for roll in view.rolls],
        "reply_to": None if view.reply is None else view.reply.post_id,
        "reply_to_speaker": None if view.reply is None else view.reply.speaker_name,
    }


def roll_link_data(view: RollView) -> dict[str, Any]:
    """``PostRollSerializer``'s answer for one of a post's rolls: a masked one (hidden from
    the viewer) shows neither its id nor its roll."""
    link = view.post_roll
    return {
        "id": None if view.masked else link.roll_id,
        "hidden": view.hidden,
        "masked": view.masked,
        "request": link.request_id,
        "roll": None if view.roll is None else roll_data(view.roll),
    }
