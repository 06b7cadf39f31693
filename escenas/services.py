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

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from escenas import notifications, selectors
from escenas.models import (
    BODY_MAX_CHARS,
    NOTE_MAX_CHARS,
    Draft,
    Post,
    PostRevision,
    PostRoll,
    RollRequest,
    Scene,
    SceneRead,
)
from escenas.rendering import render_markdown
from escenas.tasks import notify_posts
from mundo.access import require_master
from mundo.periods import player_share
from nucleo.errors import ServiceError
from nucleo.ledger import PlayerShare
from nucleo.locks import campaign_lock, campaign_locked, key_lock, lock_row
from nucleo.mail import outbox_withdraw
from nucleo.text import clean_line, clean_text
from personajes import rolls as personajes_rolls
from personajes.models import Character, Roll, Trait

KEY_PATTERN = re.compile(r"[A-Za-z0-9_.-]{8,64}")
"""A client's idempotency key: 8–64 characters of letters, digits and ``_.-`` (a uuid4 hex
fits). No ``:``: keys with a colon are the server's own (``DIARY_KEY``), so a player cannot
take the key of a diary post the tick will write and make the tick skip it."""
NPC_NAME_MAX = 80


# --- Posts --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RollSpec:
    """What roll a post asks for — never its dice or outcome, which the server makes.

    ``kind``: ``action`` (``character`` + ``trait`` slug, optional base ``threshold`` in %),
    ``event`` (optional ``probability`` in %) or ``expression`` (``expression`` text).
    ``hidden``: master-only roll (only the master may ask for it). The names are the roll
    vocabulary of ``personajes.rolls``; the post's errors about its roll are keyed
    ``roll.<name>`` (the API's nesting; a form flattens it to ``roll_<name>``).
    """

    kind: str
    character: Character | None = None
    trait: str = ""
    threshold: int | None = None
    probability: int | None = None
    expression: str = ""
    reason: str = ""
    hidden: bool = False


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


def _make_roll(
    access: selectors.SceneAccess,
    *,
    spec: RollSpec,
    author: Any,
    post_character: Character | None,
    share: PlayerShare,
) -> Roll:
    """Make one roll of a post (the campaign row is already locked); a refusal's field keys
    are under ``roll.`` (``roll.trait``), as the post's request names them."""
    try:
        return _roll_of_spec(
            access, spec=spec, author=author, post_character=post_character, share=share
        )
    except ServiceError as exc:
        raise exc.nested("roll") from None


def _roll_of_spec(
    access: selectors.SceneAccess,
    *,
    spec: RollSpec,
    author: Any,
    post_character: Character | None,
    share: PlayerShare,
) -> Roll:
    campaign = access.scene.campaign
    if spec.hidden and not access.is_master:
        raise ServiceError(_("Only the master can make hidden rolls."))
    allowed = {c.pk: c for c in access.characters}
    if spec.kind == Roll.Kind.ACTION:
        character = spec.character or post_character
        if character is None or character.pk not in allowed:
            raise ServiceError({"character": _("Choose a character of this scene to roll.")})
        if not spec.trait:
            raise ServiceError({"trait": _("Choose the trait to roll.")})
        return personajes_rolls.roll_action_for_character(
            character=allowed[character.pk],
            trait=spec.trait,
            threshold=spec.threshold,
            made_by=author,
            reason=spec.reason,
            share=share,
        )
    character = spec.character or post_character
    if character is not None and (
        character.pk not in allowed
        or (not access.is_master and allowed[character.pk].player_id != author.pk)
    ):
        # Named, not silently dropped: a player rolls for their own characters only.
        raise ServiceError(
            {"character": _("You can only roll for your own characters in this scene.")}
        )
    if spec.kind == Roll.Kind.EVENT:
        return personajes_rolls.event_roll_create(
            campaign=campaign,
            made_by=author,
            probability=spec.probability,
            character=character,
            reason=spec.reason,
            share=share,
        )
    if spec.kind == Roll.Kind.EXPRESSION:
        return personajes_rolls.expression_roll_create(
            campaign=campaign,
            made_by=author,
            expression=spec.expression,
            character=character,
            reason=spec.reason,
            share=share,
        )
    raise ServiceError({"kind": _("Unknown kind of roll.")})


def post_create(
    *,
    access: selectors.SceneAccess,
    author: User,
    idempotency_key: str,
    body: str = "",
    voice: str = Post.Voice.PLAYER,
    character: Character | None = None,
    npc_name: str = "",
    note_to_master: str = "",
    whisper: bool = False,
    whisper_to: Sequence[Any] = (),
    roll: RollSpec | None = None,
    fulfil: Sequence[int] = (),
) -> tuple[Post, bool]:
    """Write a post in the scene of ``access`` (``escenas.access.access_scene`` for ``author``),
    making its rolls on the server now.

    ``voice``/``character``/``npc_name`` choose who speaks (see ``SceneAccess.voices``);
    ``whisper`` (or any ``whisper_to`` users) makes it a whisper: only those users, the author
    and the master see it (a whisper to nobody is for the master's eyes only);
    ``roll`` one roll to make; ``fulfil`` ids of pending roll requests of the author's
    characters in this scene, each made now with the request's trait, threshold and reason.
    A post needs text or a roll. Returns ``(post, created)``: a retried submit with the same
    ``idempotency_key`` returns the stored post and False (no second roll), decided under the
    campaign lock. Raises ServiceError (nothing saved) for any refusal, including
    the characters service's (dead character, unknown trait, bad threshold).
    Source: RULES.md R2–R4, R9 (rolls), DESIGN.md (idempotency, append-only rolls).
    """
    if not access.can_post or author is None or not author.is_authenticated:
        raise ServiceError(_("You cannot write in this scene."))
    key = _check_key(idempotency_key)
    scene = access.scene
    # The campaign lock first (shared: the day cannot move), then the key's: a concurrent
    # retry with the same key waits there, then finds the post the first one stored.
    with campaign_lock(scene.campaign_id, shared=True) as campaign:
        key_lock("post", scene.pk, key)
        existing = Post.objects.filter(scene=scene, idempotency_key=key).first()
        if existing is not None:
            if existing.author_id != author.pk:
                raise ServiceError(_("The form has expired: reload the page and send it again."))
            return existing, False
        body, note = _check_text(body, note_to_master)
        speaker, post_character = _speaker(
            access, author=author, voice=voice, character=character, npc_name=npc_name
        )
        requests = _pending_requests_for(access, author=author, ids=fulfil)
        if not body.strip() and roll is None and not requests:
            raise ServiceError({"body": _("Write something or make a roll.")})
        recipients = _check_whisper(access, author=author, users=whisper_to)
        now = timezone.now()
        post = Post.objects.create(
            campaign=campaign,
            scene=scene,
            author=author,
            voice=voice,
            character=post_character,
            speaker_name=speaker[:80],
            by_master=access.is_master,
            body=body,
            body_html=render_markdown(body),
            note_to_master=note,
            note_html=render_markdown(note),
            is_whisper=whisper or bool(recipients),
            day=campaign.current_day,
            idempotency_key=key,
            created_at=now,
            updated_at=now,
        )
        if recipients:
            post.whisper_to.set(recipients)
        links = _post_rolls(access, post, author, roll, requests, post_character, now)
        for i, link in enumerate(links):
            link.position = i
        PostRoll.objects.bulk_create(links)
        _post_written(post, author=author)
    return post, True


def _post_written(post: Post, *, author: Any) -> None:
    """What follows a new post: the author's draft gone and read marker on it, its e-mails in
    the outbox (sent after the commit), last the scene's last-post time (only forwards): its row
    lock, which every post of the scene waits for, is then held only until the commit."""
    Draft.objects.filter(scene_id=post.scene_id, user=author).delete()
    _mark_read(scene=post.scene, user=author, post_id=post.pk)
    notify_posts([post.pk])
    later = Scene.objects.filter(pk=post.scene_id).exclude(last_post_at__gte=post.created_at)
    later.update(last_post_at=post.created_at)


def _post_rolls(
    access: selectors.SceneAccess,
    post: Post,
    author: Any,
    roll: RollSpec | None,
    requests: Sequence[RollRequest],
    post_character: Character | None,
    now: datetime.datetime,
) -> list[PostRoll]:
    """The post's rolls (the requests it answers, then its own), each with the player's share
    (not saved)."""
    if roll is None and not requests:
        return []
    own = None if roll is None else roll.character or post_character
    personajes_rolls.characters_lock([r.character_id for r in requests], also=own)
    share = player_share(campaign_id=post.campaign_id, user=author, text=post.body)
    links = _answer_requests(requests, post=post, author=author, now=now, share=share)
    if roll is not None:
        made = _make_roll(
            access, spec=roll, author=author, post_character=post_character, share=share
        )
        links.append(PostRoll(post=post, roll=made, hidden=roll.hidden))
    return links


def _answer_requests(
    requests: Sequence[RollRequest],
    *,
    post: Post,
    author: Any,
    now: datetime.datetime,
    share: PlayerShare,
) -> list[PostRoll]:
    """Make the roll each request asks for (its trait, threshold and reason) and mark it
    answered by a compare-and-swap update, so a request is answered once; the post's links to
    those rolls (not saved). Raises ServiceError when one was answered meanwhile."""
    links = []
    for request in requests:
        made = personajes_rolls.roll_action_for_character(
            character=request.character,
            trait=request.trait.slug,
            threshold=request.base_threshold,
            made_by=author,
            reason=request.reason,
            share=share,
        )
        done = RollRequest.objects.filter(
            pk=request.pk, fulfilled_roll__isnull=True, cancelled_at__isnull=True
        ).update(fulfilled_roll=made, fulfilled_at=now)
        if done != 1:
            raise ServiceError(_("That roll request has already been answered."))
        links.append(PostRoll(post=post, roll=made, hidden=request.hidden, request=request))
    return links


def _pending_requests_for(
    access: selectors.SceneAccess, *, author: Any, ids: Sequence[int]
) -> list[RollRequest]:
    if not ids:
        return []
    wanted = {int(i) for i in ids}
    requests = list(
        RollRequest.objects.filter(
            pk__in=wanted,
            scene=access.scene,
            fulfilled_roll__isnull=True,
            cancelled_at__isnull=True,
        ).select_related("trait", "character")
    )
    allowed = {c.pk for c in access.characters}
    if len(requests) != len(wanted) or any(
        r.character_id not in allowed
        or (not access.is_master and r.character.player_id != author.pk)
        for r in requests
    ):
        raise ServiceError(_("That roll request is not yours to answer, or was already answered."))
    return requests


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
    locked.body = body
    locked.body_html = render_markdown(body)
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
    return locked


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


@campaign_locked(lambda access, **_: access.scene.campaign_id)
def roll_request_create(
    *,
    access: selectors.SceneAccess,
    master: User,
    character: Character,
    trait: Trait,
    threshold: int | None = None,
    reason: str = "",
    hidden: bool = False,
) -> RollRequest:
    """The master asks a living participant of the scene for an action roll.

    Raises ServiceError: not the master, character not in the scene, trait of another
    campaign, threshold outside 0..100, reason over 200 characters.
    """
    if not access.is_master:
        raise ServiceError(_("Only the campaign's master can do this."))
    if character.pk not in {c.pk for c in access.characters}:
        raise ServiceError({"character": _("That character is not in this scene.")})
    if trait.campaign_id != access.scene.campaign_id:
        raise ServiceError({"trait": _("Choose a trait of this campaign.")})
    base = personajes_rolls.parse_threshold(threshold, required=False)
    reason = personajes_rolls.clean_reason(reason)
    return RollRequest.objects.create(
        scene=access.scene,
        character=character,
        requested_by=master,
        trait=trait,
        base_threshold=base,
        reason=reason,
        hidden=hidden,
    )


@campaign_locked(lambda request, **_: request.scene.campaign_id)
def roll_request_cancel(*, request: RollRequest, master: User) -> None:
    """The master withdraws a pending roll request (an answered one stays as it is)."""
    require_master(request.scene.campaign_id, master)
    RollRequest.objects.filter(pk=request.pk, fulfilled_roll__isnull=True).update(
        cancelled_at=timezone.now()
    )


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
    draft, _created = Draft.objects.update_or_create(
        user=user,
        scene=access.scene,
        defaults={
            "body": body,
            "note_to_master": note,
            "data": clean,
            "idempotency_key": key,
            "updated_at": timezone.now(),
        },
    )
    return draft


def _mark_read(*, scene: Scene, user: Any, post_id: int) -> None:
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
    _mark_read(scene=scene, user=user, post_id=post_id)
