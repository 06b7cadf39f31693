"""The portrait beside a post: the speaking character's or NPC's thumbnail (96 px, and 192 px
for 2x screens), or a placeholder with the speaker's initials.

The URLs carry the thumbnail's file stem (``?v=``): a new portrait has a new stem, so a
browser's cached copy (an hour, ``private``) is never shown for it; a post fragment's cache key
changes when a portrait does (``escenas.fragments.names_changed``).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from django import template
from django.urls import reverse

register = template.Library()


def initials(name: str) -> str:
    """Up to two capital initials of ``name`` ("Ana Forastera" → "AF", "máster" → "M")."""
    words = [w for w in name.replace("-", " ").split() if w[:1].isalnum()]
    return "".join(w[0] for w in words[:2]).upper() or "?"


def _urls(owner: Any, small: str, large: str, **kwargs: Any) -> dict[str, str]:
    version = PurePosixPath(owner.portrait_thumb.name).stem
    src = f"{reverse(small, kwargs=kwargs)}?v={version}"
    if not owner.portrait_thumb_2x:
        return {"src": src, "src2x": ""}
    return {"src": src, "src2x": f"{reverse(large, kwargs=kwargs)}?v={version}"}


@register.inclusion_tag("escenas/_post_portrait.html")
def post_portrait(post: Any) -> dict[str, Any]:
    """The context of ``escenas/_post_portrait.html`` for ``post`` (its ``character`` and
    ``npc`` select_related): ``src``/``src2x`` of the thumbnail, or ``initials``."""
    context: dict[str, Any] = {"initials": initials(post.speaker_name), "src": ""}
    character = post.character if post.voice == "character" else None
    if character is not None and character.portrait_thumb:
        context |= _urls(
            character, "personajes:portrait_thumb", "personajes:portrait_thumb_2x", pk=character.pk
        )
    elif post.voice == "npc" and post.npc is not None and post.npc.portrait_thumb:
        context |= _urls(
            post.npc,
            "escenas:npc_portrait_thumb",
            "escenas:npc_portrait_thumb_2x",
            slug=post.campaign.slug,
            pk=post.npc_id,
        )
    return context
