"""What a signed-out writer sent is kept in their (anonymous) session until they sign in again.

A session expires while a player types (finding 6): the autosave and the "send" that follow it
come without a user. Their text is not thrown away: ``stash_post`` keeps the post form's text
fields (cleaned, at most the post's length) in the session, keyed by scene — Django keeps a
session's data across the sign-in (``login`` cycles the key, not the data) — and the scene's
post form takes it back, once, for the user who then opens the scene and may write there
(``take_stash``). One stash per session, for the last scene: a second one replaces it.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from escenas.models import BODY_MAX_CHARS, NOTE_MAX_CHARS
from escenas.services import DRAFT_DATA_KEYS
from nucleo.text import clean_line, clean_text

SESSION_KEY = "escenas_stash"
_LIMITS = {"body": BODY_MAX_CHARS, "note_to_master": NOTE_MAX_CHARS}


def stash_post(request: HttpRequest, scene_pk: int) -> bool:
    """Keep the post form's text fields of ``request.POST`` for scene ``scene_pk`` in the
    session; True when there was text to keep (nothing is stored otherwise)."""
    post = request.POST
    kept: dict[str, str] = {}
    for name, limit in _LIMITS.items():
        kept[name] = clean_text(post.get(name, "")).rstrip()[: limit * 2]
    for name in ("idempotency_key", *DRAFT_DATA_KEYS):
        kept[name] = clean_line(post.get(name, ""))[:200]
    if not (kept["body"].strip() or kept["note_to_master"].strip()):
        return False
    request.session[SESSION_KEY] = {"scene": int(scene_pk), "fields": kept}
    return True


def take_stash(request: HttpRequest, scene_pk: int) -> dict[str, Any] | None:
    """The fields kept for scene ``scene_pk`` (removed from the session), or None."""
    session = getattr(request, "session", None)
    stash = session.get(SESSION_KEY) if session is not None else None
    if not isinstance(stash, dict) or stash.get("scene") != int(scene_pk):
        return None
    del session[SESSION_KEY]  # type: ignore[union-attr]
    fields = stash.get("fields")
    if not isinstance(fields, dict):
        return None
    return {k: v for k, v in fields.items() if isinstance(v, str) and v}
