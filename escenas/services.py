"""Writes of posts: posting with rolls, editing, deleting, roll requests and thresholds, drafts
and read markers. Scenes are made in ``escenas.scenes``, e-mails sent by
``escenas.notifications``, the tick's diary posts written by ``escenas.diary``.

Services are keyword-only, run in one transaction under their campaign's lock, validate
everything before they write, and raise ``ServiceError`` (a Django ValidationError) with a
Spanish message — a dict ``{field: message}`` for a field, a plain message otherwise. Nothing
is half-saved: a roll made inside a post that then fails is rolled back with the post.

Locks (``nucleo.locks``), in its order: the campaign row (``campaign_lock``; a post takes it
shared: posts run side by side, never beside the tick), then rows in primary-key order.

Integrity (DESIGN.md "Randomness and the roll ledger"): rolls are made here, on the server, at
submit time; no argument carries a die or an outcome. An edit never touches rolls; a delete
hides the post from players and keeps it, with its rolls, for the master; a retried submit with
the same idempotency key returns the stored post.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F, Value
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone
from django.utils.translation import gettext as _

from escenas import notifications, selectors
from escenas.access import ReplyTarget, as_campaign_post, posts_visible_q
from escenas.mentions import render_with_mentions
from escenas.models import (
    BODY_MAX_CHARS,
    NOTE_MAX_CHARS,
    Draft,
    NonPlayerCharacter,
    Post,
    PostRevision,
    PostRoll,
    Scene,
    scene_last_posts,
)
from escenas.post_rolls import RollSpec as RollSpec  # re-exported: the post's roll vocabulary
from escenas.post_rolls import (
    pending_requests_for,
    post_rolls_create,
    rolls_asked,
)
from escenas.reading import author_read
from escenas.reading import scene_mark_read as scene_mark_read  # the pages call it from here
from escenas.rendering import render_markdown
from escenas.roll_requests import roll_request_cancel as roll_request_cancel  # re-exported
from escenas.roll_requests import roll_request_create as roll_request_create  # re-exported
from escenas.tasks import fan_out_after_commit, notify_posts
from mundo.access import require_master
from nucleo.errors import ServiceError
from nucleo.locks import campaign_lock, campaign_locked, key_lock, lock_row
from nucleo.mail import outbox_withdraw
from nucleo.text import clean_line, clean_text
from personajes import rolls as personajes_rolls
from personajes.models import Character, Roll

KEY_PATTERN = re.compile(r"[A-Za-z0-9_.-]{8,64}")
"""A client's idempotency key: 8–64 characters of letters, digits and ``_.-`` (a uuid4 hex
fits). No ``:``: keys with a colon are the server's own (``DIARY_KEY``), so a player cannot
take the key of a diary post the tick will write and make the tick skip it."""
NPC_NAME_MAX = 80


# --- Posts --------------------------------------------------------------------------------------


def _check_key(key: str) -> str:
    key = (key or "").strip()
    if not KEY_PATTERN.fullmatch(key):
        raise ServiceError(
            _("The form has expired or is incomplete: reload the page and send it again.")
        )
    return key


def _speaker(
    access: selectors.SceneAccess,
    *,
    author: Any,
    voice: str,
    character: Character | None,
    npc_name: str,
    npc: NonPlayerCharacter | None = None,
) -> tuple[str, Character | None]:
    """Check the voice is allowed and return (speaker name, character)."""
    if voice not in access.voices:
        raise ServiceError({"voice": _("You cannot write with that voice in this scene.")})
    if voice == Post.Voice.CHARACTER:
        if character is None or character.pk not in {c.pk for c in access.characters}:
            raise ServiceError({"voice": _("You cannot write as that character in this scene.")})
        if not access.is_master and character.player_id != author.pk:
            raise ServiceError({"voice": _("You cannot write as that character in this scene.")})
        return character.name, character
    if voice == Post.Voice.NPC and npc is not None:
        if npc.campaign_id != access.scene.campaign_id:
            raise ServiceError({"npc": _("Choose a non-player character of this campaign.")})
        return npc.name, None
    if voice == Post.Voice.NPC:
        name = clean_line(npc_name).strip()
        if not name:
            raise ServiceError({"npc_name": _("Write the name of the character who speaks.")})
        if len(name) > NPC_NAME_MAX:
            raise ServiceError({"npc_name": _("The name is too long (at most 80 characters).")})
        return name, None
    if voice == Post.Voice.NARRATOR:
        return _("Narrator"), None
    return author.get_username(), None


def _check_text(body: str, note: str) -> tuple[str, str]:
    body = clean_text(body).rstrip()
    note = clean_text(note).strip()
    if len(body) > BODY_MAX_CHARS:
        raise ServiceError(
            {"body": _("The post is too long (at most %(n)s characters).") % {"n": BODY_MAX_CHARS}}
        )
    if len(note) > NOTE_MAX_CHARS:
        raise ServiceError(
            {
                "note_to_master": _("The note is too long (at most %(n)s characters).")
                % {"n": NOTE_MAX_CHARS}
            }
        )
    return body, note


def post_create(
    *,
    access: selectors.SceneAccess,
    author: User,
    idempotency_key: str,
    body: str = "",
    voice: str = Post.Voice.PLAYER,
    character: Character | None = None,
    npc_name: str = "",
    npc: NonPlayerCharacter | None = None,
    note_to_master: str = "",
    whisper: bool = False,
    whisper_to: Sequence[Any] = (),
    roll: RollSpec | None = None,
    rolls: Sequence[RollSpec] = (),
    fulfil: Sequence[int] = (),
    reply_to: int | None = None,
) -> tuple[Post, bool]:
    """Write a post in the scene of ``access`` (``escenas.access.access_scene`` for ``author``),
    making its rolls on the server now.

    ``voice``/``character``/``npc_name`` choose who speaks (see ``SceneAccess.voices``; voice
    ``npc`` with ``npc``, one of the campaign's NPCs, speaks with its name and portrait);
    ``whisper`` (or any ``whisper_to`` users) makes it a whisper: only those users, the author
    and the master see it (a whisper to nobody is for the master's eyes only); ``rolls`` the
    rolls to make, in order (at most ``post_rolls.ROLLS_PER_POST_MAX``; a refusal is keyed
    ``rolls.<i>.<name>``), or ``roll`` for one (the same as ``rolls=[roll]`` with its errors
    keyed ``roll.<name>``; not both); ``fulfil`` ids of pending roll requests of the author's
    characters in this scene, each made now with the request's trait, threshold and reason. A
    post needs text or a roll. Returns ``(post, created)``: the new post, in
    ``escenas.post_queries.campaign_posts``'s shape (``as_campaign_post``: ``post_view`` shows
    it with no query), and True; for a retried submit with the same key the stored post and
    False (none of its rolls made again), decided under the campaign lock. Raises ServiceError
    (nothing saved) for any refusal, the characters service's included (dead character,
    unknown trait). ``reply_to``: the post it answers (of this scene, seen by the author).
    Members named with ``@`` are linked, stored and told if they may see the post
    (``escenas.mentions``).
    Source: RULES.md R2–R4, R9, DESIGN.md (idempotency, rolls).
    """
    if not access.can_post or author is None or not author.is_authenticated:
        raise ServiceError(_("You cannot write in this scene."))
    key = _check_key(idempotency_key)
    scene = access.scene
    # The campaign lock first (shared: the day cannot move), then the key's: a concurrent
    # retry with the same key waits there, then finds the post the first one stored.
    with campaign_lock(scene.campaign_id, shared=True) as campaign:
        if (existing := _retried(scene, key=key, author=author)) is not None:
            return existing, False
        body, note = _check_text(body, note_to_master)
        speaker, post_character = _speaker(
            access, author=author, voice=voice, character=character, npc_name=npc_name, npc=npc
        )
        asked = rolls_asked(roll, rolls)
        requests = pending_requests_for(access, author=author, ids=fulfil)
        if not body.strip() and not asked and not requests:
            raise ServiceError({"body": _("Write something or make a roll.")})
        recipients = _check_whisper(access, author=author, users=whisper_to)
        answered = _check_reply(access, reply_to)
        body_html, mentioned = render_with_mentions(body, campaign=campaign)
        post = _post_row(
            access,
            campaign,
            author=author,
            key=key,
            texts=(body, body_html, note),
            speaker=(voice, speaker, post_character, npc),
            whisper=whisper or bool(recipients),
            answered=answered,
        )
        links = post_rolls_create(
            access, post, asked=asked, requests=requests, character=post_character
        )
        _post_written(post, author=author, whisper_to=recipients, mentioned=mentioned)
    return as_campaign_post(post, post_rolls=links, whisper_to=recipients, reply=answered), True


def _post_row(
    access: selectors.SceneAccess,
    campaign: Any,
    *,
    author: Any,
    key: str,
    texts: tuple[str, str, str],
    speaker: tuple[str, str, Character | None, NonPlayerCharacter | None],
    whisper: bool,
    answered: ReplyTarget | None,
) -> Post:
    """The new post's row, saved (``post_create``'s checks done): ``texts`` is (body, its
    HTML, note to the master), ``speaker`` (voice, name shown, character, NPC); on the
    campaign's current day, its e-mails pending until the commit."""
    body, body_html, note = texts
    voice, name, character, npc = speaker
    now = timezone.now()
    return Post.objects.create(
        campaign=campaign,
        scene=access.scene,
        author=author,
        voice=voice,
        character=character,
        speaker_name=name[:80],
        npc=npc if voice == Post.Voice.NPC else None,
        by_master=access.is_master,
        body=body,
        body_html=body_html,
        note_to_master=note,
        note_html=render_markdown(note),
        is_whisper=whisper,
        reply_to_id=answered.pk if answered else None,
        day=campaign.current_day,
        idempotency_key=key,
        created_at=now,
        updated_at=now,
        fan_out_pending=True,  # its e-mails are queued after the commit
    )


def _retried(scene: Scene, *, key: str, author: Any) -> Post | None:
    """The post a first submit with ``key`` stored, taken under the key's lock (so a
    concurrent retry waits for the first), or None. Raises ServiceError when it is another
    user's key."""
    key_lock("post", scene.pk, key)
    existing = Post.objects.filter(scene=scene, idempotency_key=key).first()
    if existing is not None and existing.author_id != author.pk:
        raise ServiceError(_("The form has expired: reload the page and send it again."))
    return existing


def _post_written(
    post: Post,
    *,
    author: Any,
    whisper_to: Sequence[Any] = (),
    mentioned: frozenset[int] = frozenset(),
) -> None:
    """What follows a new post: its whisper recipients and mentioned members, the author's
    draft gone and read marker on it, its e-mails queued after the commit, off the request's
    locks (``escenas.post_fanout``), last the scene's last-post time and ids (only forwards,
    ``scene_last_posts``): its row lock, which every post of the scene waits for, is then held
    only until the commit."""
    if whisper_to:
        post.whisper_to.set(whisper_to)
    if mentioned - {author.pk}:
        post.mentions.set(mentioned - {author.pk})
    Draft.objects.filter(scene_id=post.scene_id, user=author).delete()
    author_read(scene=post.scene, user=author, post_id=post.pk)
    fan_out_after_commit([post.pk])
    when = Value(post.created_at)
    Scene.objects.filter(pk=post.scene_id).update(
        last_post_at=Greatest(Coalesce(F("last_post_at"), when), when), **scene_last_posts()
    )


def _check_reply(access: selectors.SceneAccess, reply_to: int | None) -> ReplyTarget | None:
    """The post being answered (what the new post's reply line shows of it), if it is one of
    the scene that the author sees."""
    if not reply_to:
        return None
    found = (
        Post.objects.filter(pk=reply_to, scene=access.scene)
        .filter(posts_visible_q(access.viewer))
        .values_list("pk", "speaker_name", "is_whisper", "deleted_at")
        .first()
    )
    if found is None:
        raise ServiceError(
            {"reply_to": _("You can only reply to a post of this scene you can see.")}
        )
    return ReplyTarget(*found)


def _check_whisper(
    access: selectors.SceneAccess, *, author: Any, users: Sequence[Any]
) -> list[Any]:
    if not users:
        return []
    allowed = {u.pk: u for u in selectors.whisper_candidates(access)}
    chosen = []
    for u in users:
        pk = getattr(u, "pk", u)
        if pk not in allowed:
            raise ServiceError(
                {"whisper_to": _("You can only whisper to members who read this scene.")}
            )
        chosen.append(allowed[pk])
    return chosen


@campaign_locked(lambda post, **_: post.campaign_id)
def post_edit(*, post: Post, editor: User, body: str, note_to_master: str = "") -> Post:
    """Change a post's text and note; its author only, while it is not deleted.

    The previous text is stored as a ``PostRevision`` (the master sees every revision); the
    post is marked edited, and ``edited_after_roll`` when it has rolls. Rolls are never
    touched. Raises ServiceError: not the author, deleted post, text too long, empty post
    without rolls.
    """
    locked = lock_row(Post.objects, post.pk)
    if editor is None or not editor.is_authenticated or locked.author_id != editor.pk:
        raise ServiceError(_("Only the author can edit a post."))
    if locked.deleted_at is not None:
        raise ServiceError(_("This post has been deleted."))
    body, note = _check_text(body, note_to_master)
    has_rolls = PostRoll.objects.filter(post=locked).exists()
    if not body.strip() and not has_rolls:
        raise ServiceError({"body": _("Write something or make a roll.")})
    if body == locked.body and note == locked.note_to_master:
        return locked
    now = timezone.now()
    PostRevision.objects.create(
        post=locked,
        body=locked.body,
        note_to_master=locked.note_to_master,
        edited_by=editor,
        edited_at=now,
        after_roll=has_rolls,
    )
    body_html, mentioned = render_with_mentions(body, campaign=post.campaign)
    locked.body = body
    locked.body_html = body_html
    locked.note_to_master = note
    locked.note_html = render_markdown(note)
    locked.edited_at = now
    locked.updated_at = now
    locked.edited_after_roll = locked.edited_after_roll or has_rolls
    locked.save(
        update_fields=[
            "body",
            "body_html",
            "note_to_master",
            "note_html",
            "edited_at",
            "updated_at",
            "edited_after_roll",
        ]
    )
    _mentions_added(locked, mentioned - {editor.pk})
    return locked


def _mentions_added(post: Post, mentioned: frozenset[int]) -> None:
    """Members newly named by an edit are stored and told (once: ``PostNotification``); a
    name removed by an edit stays stored (they were told already)."""
    new = mentioned - set(post.mentions.values_list("pk", flat=True)) if mentioned else set()
    if new:
        post.mentions.add(*new)
        notify_posts([post.pk])


@campaign_locked(lambda post, **_: post.campaign_id)
def post_delete(*, post: Post, user: User) -> Post:
    """Hide a post from players (its author or the master); the master still sees it with its
    rolls, which stay in the ledger; its e-mails not sent yet are withdrawn. Deleting twice
    changes nothing. Raises ServiceError for anyone else."""
    is_author = user is not None and user.is_authenticated and post.author_id == user.pk
    if not is_author:
        require_master(post.campaign_id, user)
    now = timezone.now()
    with transaction.atomic():
        Post.objects.filter(pk=post.pk, deleted_at__isnull=True).update(
            deleted_at=now, deleted_by=user, updated_at=now
        )
        # A reply names the post it answers: its cached fragments change too.
        Post.objects.filter(reply_to=post).update(updated_at=now)
        # The scene list's order for players: its newest public post may now be an older one.
        Scene.objects.filter(pk=post.scene_id).update(**scene_last_posts(exact=True))
        outbox_withdraw([notifications.post_topic(post.pk)])  # its e-mails not yet sent
    return Post.objects.get(pk=post.pk)


@campaign_locked(lambda post_roll, **_: post_roll.roll.campaign_id)
def roll_threshold_set(*, post_roll: PostRoll, master: User, threshold: int) -> Roll:
    """The master sets the threshold of a roll in a post made without one
    (``personajes.rolls.threshold_set``: its checks and errors); the stored dice decide the
    outcome; the post is marked updated so open pages refresh it. Source: RULES.md R2, R3.
    """
    updated = personajes_rolls.threshold_set(
        roll=post_roll.roll, master=master, threshold=threshold
    )
    Post.objects.filter(pk=post_roll.post_id).update(updated_at=timezone.now())
    return updated


# --- Drafts and read markers -------------------------------------------------------------------


DRAFT_DATA_KEYS = (
    "voice",
    "npc_name",
    "roll_kind",
    "roll_character",
    "roll_trait",
    "roll_threshold",
    "roll_probability",
    "roll_expression",
    "roll_reason",
    "reply_to",
    # The post form's further roll slots (``escenas.forms.EXTRA_ROLL_SLOTS``).
    *(
        f"rolls_{slot}_{name}"
        for slot in (1, 2)
        for name in (
            "kind",
            "character",
            "trait",
            "threshold",
            "probability",
            "expression",
            "reason",
        )
    ),
)


def draft_save(
    *,
    access: selectors.SceneAccess,
    user: User,
    idempotency_key: str,
    body: str = "",
    note_to_master: str = "",
    data: dict[str, Any] | None = None,
) -> Draft:
    """Save what the user is writing in the scene (one draft per user and scene).

    Keeps the post's idempotency key, so the post and its roll are made once when it is finally
    sent. ``data`` keeps only the form fields of ``DRAFT_DATA_KEYS`` (short strings). Raises
    ServiceError when the user may not post here or the text is too long.
    """
    if not access.can_post or user is None or not user.is_authenticated:
        raise ServiceError(_("You cannot write in this scene."))
    key = _check_key(idempotency_key)
    body, note = _check_text(body, note_to_master)
    clean = {k: clean_line(v)[:200] for k, v in (data or {}).items() if k in DRAFT_DATA_KEYS}
    draft = Draft(
        user=user,
        scene=access.scene,
        body=body,
        note_to_master=note,
        data=clean,
        idempotency_key=key,
        updated_at=timezone.now(),
    )
    # One upsert on (user, scene): the write names its user, so only this user's kept pages
    # change (nucleo.table_writes.per_user); a save by primary key would not say whose row.
    Draft.objects.bulk_create(
        [draft],
        update_conflicts=True,
        unique_fields=["user", "scene"],
        update_fields=["body", "note_to_master", "data", "idempotency_key", "updated_at"],
    )
    return draft
