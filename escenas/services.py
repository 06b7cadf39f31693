"""Writes of scenes and posts: creating scenes, posting with rolls, editing, deleting, drafts,
roll requests, thresholds, read markers, notification settings and the daily diary posts.

Services are keyword-only, run in one transaction under their campaign's lock, validate
everything before they write, and raise ``ServiceError`` (a Django ValidationError) with a
Spanish message — a dict ``{field: message}`` for a field, a plain message otherwise. Nothing
is half-saved: a roll made inside a post that then fails is rolled back with the post.

Locks (``nucleo.locks``), always in this order: the campaign row (``campaign_lock``; it
serialises rolls and posts of a campaign so roll sequences and idempotency keys are checked
without a race), then the rows each service locks in primary-key order (``lock_row``).

Integrity (DESIGN.md "Randomness and the roll ledger"): rolls are made here, on the server, at
submit time; no argument carries a die or an outcome. An edit never touches rolls; a delete
hides the post from players and keeps it, with its rolls, for the master; a retried submit with
the same idempotency key returns the stored post.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.db.models import Prefetch, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from escenas import selectors
from escenas.models import (
    BODY_MAX_CHARS,
    NOTE_MAX_CHARS,
    Draft,
    NotificationPreference,
    Post,
    PostNotification,
    PostRevision,
    PostRoll,
    RollRequest,
    Scene,
    SceneRead,
    new_feed_token,
)
from escenas.rendering import render_markdown
from mundo.access import require_master
from mundo.models import Campaign, Membership
from nucleo.errors import ServiceError
from nucleo.locks import campaign_lock, campaign_locked, lock_row
from personajes import rolls as personajes_rolls
from personajes.models import Character, Roll, Trait

KEY_PATTERN = re.compile(r"[A-Za-z0-9_.-]{8,64}")
"""A client's idempotency key: 8–64 characters of letters, digits and ``_.-`` (a uuid4 hex
fits). No ``:``: keys with a colon are the server's own (``DIARY_KEY``), so a player cannot
take the key of a diary post the tick will write and make the tick skip it."""
NPC_NAME_MAX = 80
DIARY_KEY = "diario:{day}"
"""Idempotency key of the tick's diary post of a day (one per diary scene and day)."""


# --- Scenes -----------------------------------------------------------------------------------


def _clean_title(title: str) -> str:
    title = (title or "").strip()
    if not title:
        raise ServiceError({"title": _("Give the scene a title.")})
    if len(title) > 120:
        raise ServiceError({"title": _("The title is too long (at most 120 characters).")})
    return title


def _check_participants(campaign: Campaign, participants: Iterable[Character]) -> list[Character]:
    chars = list(participants)
    if any(c.campaign_id != campaign.pk for c in chars):
        raise ServiceError({"participants": _("Every participant must belong to this campaign.")})
    return chars


@campaign_locked(lambda campaign, **_: campaign.pk)
def scene_create(
    *,
    campaign: Campaign,
    master: AbstractBaseUser,
    title: str,
    kind: str = Scene.Kind.STORY,
    summary: str = "",
    readers: str = Scene.Readers.PARTICIPANTS,
    participants: Iterable[Character] = (),
) -> Scene:
    """A new story scene (with its participants) or master-notes scene; the master only.

    Off-topic and diary scenes are made by ``offtopic_scene_for``/``diary_scene_for``.
    Raises ServiceError: not the master, empty title, unknown kind or readers, a participant
    from another campaign.
    """
    require_master(campaign, master)
    if kind not in (Scene.Kind.STORY, Scene.Kind.NOTES):
        raise ServiceError({"kind": _("Choose a story scene or master notes.")})
    if readers not in Scene.Readers.values:
        raise ServiceError({"readers": _("Choose who else may read the scene.")})
    chars = _check_participants(campaign, participants)
    scene = Scene.objects.create(
        campaign=campaign,
        kind=kind,
        title=_clean_title(title),
        summary=(summary or "").strip(),
        readers=readers,
    )
    if kind == Scene.Kind.STORY and chars:
        scene.participants.set(chars)
    return scene


@campaign_locked(lambda scene, **_: scene.campaign_id)
def scene_update(
    *,
    scene: Scene,
    master: AbstractBaseUser,
    title: str,
    summary: str = "",
    readers: str | None = None,
    participants: Iterable[Character] | None = None,
) -> Scene:
    """Change a scene's title, summary, readers and (story) participants; the master only.

    Raises ServiceError as ``scene_create``.
    """
    require_master(scene.campaign_id, master)
    scene.title = _clean_title(title)
    scene.summary = (summary or "").strip()
    if readers is not None:
        if readers not in Scene.Readers.values:
            raise ServiceError({"readers": _("Choose who else may read the scene.")})
        scene.readers = readers
    scene.save(update_fields=["title", "summary", "readers"])
    if participants is not None and scene.kind == Scene.Kind.STORY:
        scene.participants.set(_check_participants(scene.campaign, participants))
    return scene


def offtopic_scene_for(campaign: Campaign) -> Scene:
    """The campaign's off-topic scene, created on first use (safe to call twice at once: the
    partial unique constraint lets one creation win, the other reads it)."""
    scene = Scene.objects.filter(campaign=campaign, kind=Scene.Kind.OFFTOPIC).first()
    if scene is not None:
        return scene
    try:
        with transaction.atomic():
            return Scene.objects.create(
                campaign=campaign,
                kind=Scene.Kind.OFFTOPIC,
                title=_("Off-topic"),
                summary=_("Out of character: talk about the game, the rules and everything else."),
                readers=Scene.Readers.MEMBERS,
            )
    except IntegrityError:
        return Scene.objects.get(campaign=campaign, kind=Scene.Kind.OFFTOPIC)


def _diary_title(character: Character) -> str:
    return _("Diary of %(name)s") % {"name": character.name}


def diary_scene_for(character: Character) -> Scene:
    """The character's diary scene, created when missing (its player and the master read it).

    Idempotent and safe to run twice at once (the one-to-one column is unique). Source: RULES.md
    R25 (one diary per character).
    """
    scene = Scene.objects.filter(diary_character=character).first()
    if scene is not None:
        return scene
    try:
        with transaction.atomic():
            return Scene.objects.create(
                campaign_id=character.campaign_id,
                kind=Scene.Kind.DIARY,
                title=_diary_title(character)[:120],
                diary_character=character,
                readers=Scene.Readers.PARTICIPANTS,
            )
    except IntegrityError:
        return Scene.objects.get(diary_character=character)


def diaries_ensure(*, campaign: Campaign) -> int:
    """Create the missing diary scenes of the campaign's characters; returns how many.

    Two queries when nothing is missing, three otherwise (bulk insert ignoring conflicts, so a
    concurrent call creates nothing twice). Called by the scene list (create-on-read).
    """
    missing = list(
        Character.objects.filter(campaign=campaign, diary_scene__isnull=True).only("pk", "name")
    )
    if not missing:
        return 0
    Scene.objects.bulk_create(
        [
            Scene(
                campaign=campaign,
                kind=Scene.Kind.DIARY,
                title=_diary_title(c)[:120],
                diary_character=c,
                readers=Scene.Readers.PARTICIPANTS,
            )
            for c in missing
        ],
        ignore_conflicts=True,
    )
    return len(missing)


# --- Posts --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RollSpec:
    """What roll a post asks for — never its dice or outcome, which the server makes.

    ``kind``: ``action`` (``character`` + ``trait_slug``, optional ``base_threshold`` in %),
    ``event`` (optional ``probability`` in %) or ``expression`` (``expression`` text).
    ``hidden``: master-only roll (only the master may ask for it).
    """

    kind: str
    character: Character | None = None
    trait_slug: str = ""
    base_threshold: int | None = None
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
        name = (npc_name or "").strip()
        if not name:
            raise ServiceError({"npc_name": _("Write the name of the character who speaks.")})
        if len(name) > NPC_NAME_MAX:
            raise ServiceError({"npc_name": _("The name is too long (at most 80 characters).")})
        return name, None
    if voice == Post.Voice.NARRATOR:
        return _("Narrator"), None
    return author.get_username(), None


def _check_text(body: str, note: str) -> tuple[str, str]:
    body = (body or "").replace("\r\n", "\n").rstrip()
    note = (note or "").replace("\r\n", "\n").strip()
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
) -> Roll:
    """Make one roll of a post (the campaign row is already locked)."""
    campaign = access.scene.campaign
    if spec.hidden and not access.is_master:
        raise ServiceError(_("Only the master can make hidden rolls."))
    allowed = {c.pk: c for c in access.characters}
    if spec.kind == Roll.Kind.ACTION:
        character = spec.character or post_character
        if character is None or character.pk not in allowed:
            raise ServiceError({"roll_character": _("Choose a character of this scene to roll.")})
        if not spec.trait_slug:
            raise ServiceError({"trait": _("Choose the trait to roll.")})
        return personajes_rolls.roll_action_for_character(
            character=allowed[character.pk],
            trait_slug=spec.trait_slug,
            base_threshold=spec.base_threshold,
            made_by=author,
            reason=spec.reason,
        )
    character = spec.character or post_character
    if character is not None and character.pk not in allowed:
        character = None
    if spec.kind == Roll.Kind.EVENT:
        return personajes_rolls.event_roll_create(
            campaign=campaign,
            made_by=author,
            probability=spec.probability,
            character=character,
            reason=spec.reason,
        )
    if spec.kind == Roll.Kind.EXPRESSION:
        return personajes_rolls.expression_roll_create(
            campaign=campaign,
            made_by=author,
            expression=spec.expression,
            character=character,
            reason=spec.reason,
        )
    raise ServiceError({"roll_kind": _("Unknown kind of roll.")})


def post_create(
    *,
    access: selectors.SceneAccess,
    author: AbstractBaseUser,
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
    # The campaign lock first: a concurrent retry with the same key waits here, then finds
    # the post the first one stored.
    with campaign_lock(scene.campaign_id) as campaign:
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
        links: list[PostRoll] = []
        for request in requests:
            made = personajes_rolls.roll_action_for_character(
                character=request.character,
                trait_slug=request.trait.slug,
                base_threshold=request.base_threshold,
                made_by=author,
                reason=request.reason,
            )
            done = RollRequest.objects.filter(
                pk=request.pk, fulfilled_roll__isnull=True, cancelled_at__isnull=True
            ).update(fulfilled_roll=made, fulfilled_at=now)
            if done != 1:
                raise ServiceError(_("That roll request has already been answered."))
            links.append(PostRoll(post=post, roll=made, hidden=request.hidden, request=request))
        if roll is not None:
            made = _make_roll(access, spec=roll, author=author, post_character=post_character)
            links.append(PostRoll(post=post, roll=made, hidden=roll.hidden))
        for i, link in enumerate(links):
            link.position = i
        PostRoll.objects.bulk_create(links)
        Scene.objects.filter(pk=scene.pk).update(last_post_at=now)
        Draft.objects.filter(scene=scene, user=author).delete()
        _mark_read(scene=scene, user=author, post_id=post.pk)
        notify_posts([post.pk])
    return post, True


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
def post_edit(*, post: Post, editor: AbstractBaseUser, body: str, note_to_master: str = "") -> Post:
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
def post_delete(*, post: Post, user: AbstractBaseUser) -> Post:
    """Hide a post from players (its author or the master); the master still sees it with its
    rolls, which stay in the ledger. Deleting twice changes nothing. Raises ServiceError for
    anyone else."""
    is_author = user is not None and user.is_authenticated and post.author_id == user.pk
    if not is_author:
        require_master(post.campaign_id, user)
    now = timezone.now()
    Post.objects.filter(pk=post.pk, deleted_at__isnull=True).update(
        deleted_at=now, deleted_by=user, updated_at=now
    )
    return Post.objects.get(pk=post.pk)


@campaign_locked(lambda post_roll, **_: post_roll.roll.campaign_id)
def roll_threshold_set(
    *, post_roll: PostRoll, master: AbstractBaseUser, base_threshold: int
) -> Roll:
    """The master sets the threshold of a roll made without one: action rolls through the
    characters service (``roll_set_threshold``), event rolls here. The stored dice decide the
    outcome; the post is marked updated so open pages refresh it. Raises ServiceError: not the
    master, already set, bad value. Source: RULES.md R2, R3.
    """
    roll = post_roll.roll
    require_master(roll.campaign_id, master)
    if roll.kind == Roll.Kind.ACTION:
        updated = personajes_rolls.roll_set_threshold(
            roll=roll, master=master, base_threshold=base_threshold
        )
    else:
        updated = personajes_rolls.event_roll_set_probability(roll=roll, probability=base_threshold)
    Post.objects.filter(pk=post_roll.post_id).update(updated_at=timezone.now())
    return updated


@campaign_locked(lambda access, **_: access.scene.campaign_id)
def roll_request_create(
    *,
    access: selectors.SceneAccess,
    master: AbstractBaseUser,
    character: Character,
    trait: Trait,
    base_threshold: int | None = None,
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
    if base_threshold is not None and not 0 <= base_threshold <= 100:
        raise ServiceError(
            {"base_threshold": _("The threshold must be a whole number from 0 to 100 (%).")}
        )
    reason = (reason or "").strip()
    if len(reason) > 200:
        raise ServiceError({"reason": _("The reason is too long (at most 200 characters).")})
    return RollRequest.objects.create(
        scene=access.scene,
        character=character,
        requested_by=master,
        trait=trait,
        base_threshold=base_threshold,
        reason=reason,
        hidden=hidden,
    )


@campaign_locked(lambda request, **_: request.scene.campaign_id)
def roll_request_cancel(*, request: RollRequest, master: AbstractBaseUser) -> None:
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
    "trait",
    "threshold",
    "probability",
    "expression",
    "reason",
)


def draft_save(
    *,
    access: selectors.SceneAccess,
    user: AbstractBaseUser,
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
    clean = {k: str(v)[:200] for k, v in (data or {}).items() if k in DRAFT_DATA_KEYS}
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


# --- Notifications ------------------------------------------------------------------------------


def preference_get_or_create(*, user: AbstractBaseUser) -> NotificationPreference:
    """The user's notification preference, created with the defaults (each post, a feed
    token) on first use."""
    pref, _created = NotificationPreference.objects.get_or_create(user=user)
    return pref


def preference_set_mode(*, user: AbstractBaseUser, mode: str) -> NotificationPreference:
    """Choose e-mails for each post, a daily digest, or none. Raises ServiceError for another
    value."""
    if mode not in NotificationPreference.Mode.values:
        raise ServiceError({"mode": _("Choose one of the options.")})
    pref = preference_get_or_create(user=user)
    if pref.mode != mode:
        pref.mode = mode
        if mode == NotificationPreference.Mode.DIGEST and pref.digest_sent_until is None:
            pref.digest_sent_until = timezone.now()
        pref.save(update_fields=["mode", "digest_sent_until"])
    return pref


def feed_token_regenerate(*, user: AbstractBaseUser) -> NotificationPreference:
    """A new secret for the user's private feeds: every old feed URL stops working."""
    pref = preference_get_or_create(user=user)
    pref.feed_token = new_feed_token()
    pref.save(update_fields=["feed_token"])
    return pref


def feed_token_revoke(*, user: AbstractBaseUser) -> NotificationPreference:
    """Switch the user's private feeds off (until a new token is made)."""
    pref = preference_get_or_create(user=user)
    pref.feed_token = ""
    pref.save(update_fields=["feed_token"])
    return pref


def notify_posts(post_ids: Iterable[int]) -> None:
    """Queue the e-mails about new posts for after the current transaction commits (a rolled
    back post sends nothing). The Celery task calls ``post_notifications_send``."""
    ids = [int(i) for i in post_ids]
    if not ids:
        return
    from escenas.tasks import send_post_notifications

    transaction.on_commit(lambda: send_post_notifications.delay(ids))


def _absolute(path: str) -> str:
    """``path`` on the site's public address (setting ``SITE_URL``)."""
    base = getattr(settings, "SITE_URL", "") or "http://127.0.0.1:8000"
    return base.rstrip("/") + path


def post_recipients(post: Post) -> list[tuple[Any, selectors.PostView]]:
    """Who is told about a new post and what each may see of it: the scene's participants (see
    ``selectors.scene_participant_users``) other than the author, with an e-mail address, for
    whom ``post_visible_to`` holds — each with the ``PostView`` they would see on the page.
    Ignores notification settings. A constant number of queries (see ``_recipients_by_post``).
    """
    return _recipients_by_post([post])[post.pk]


def _recipients_by_post(posts: Sequence[Post]) -> dict[int, list[tuple[Any, selectors.PostView]]]:
    """``post_recipients`` of many posts at once, keyed by post id. Two queries whatever the
    number of posts (the campaigns' members with their users, and their characters); the posts
    come from ``_posts_for_mail`` (scene, campaign, participants and whisper recipients
    loaded). The permission check is the page's: ``scene_access`` and ``post_visible_to``."""
    memberships = selectors.campaign_memberships({p.scene.campaign_id for p in posts})
    viewers = selectors.member_viewers(memberships)
    out: dict[int, list[tuple[Any, selectors.PostView]]] = {}
    for post in posts:
        scene = post.scene
        recipients = out[post.pk] = []
        for user in selectors.scene_participant_users(scene, memberships[scene.campaign_id]):
            if user.pk == post.author_id or not user.is_active or not user.email:
                continue
            viewer = viewers[(scene.campaign_id, user.pk)]
            access = selectors.scene_access(scene, viewer)
            if selectors.post_visible_to(post, viewer, access):
                recipients.append((user, selectors.post_view(post, viewer)))
    return out


def _posts_for_mail(post_ids: Iterable[int]) -> list[Post]:
    """The posts with what the recipients and the e-mails read, in a constant number of
    queries: posts with scene, campaign and diary character (1), whisper recipients (1), scene
    participants (1), rolls with their roll and character (1)."""
    return list(
        Post.objects.filter(pk__in=list(post_ids))
        .select_related(
            "scene", "scene__campaign", "scene__diary_character", "campaign", "character"
        )
        .prefetch_related(
            Prefetch("whisper_to", queryset=get_user_model().objects.order_by("username")),
            "scene__participants",
            Prefetch(
                "post_rolls",
                queryset=PostRoll.objects.select_related("roll", "roll__character").order_by(
                    "position", "id"
                ),
            ),
        )
        .order_by("id")
    )


def post_notifications_send(*, post_ids: Iterable[int]) -> int:
    """Send one e-mail per (post, participant who wants each post), at most once each.

    The ``PostNotification`` rows (unique per post and user) are written, in one transaction,
    before anything is sent, so a task run twice sends nothing twice. Returns how many e-mails
    were sent. A constant number of queries whatever the number of posts (the daily tick sends
    one diary post per character): see ``_posts_for_mail`` and ``_recipients_by_post``, then
    the recipients' settings (1) and the claim (lock, read, insert: 3).
    """
    posts = _posts_for_mail(post_ids)
    recipients = _recipients_by_post(posts)
    user_ids = {u.pk for rows in recipients.values() for u, _v in rows}
    if not user_ids:
        return 0
    modes = dict(
        NotificationPreference.objects.filter(user_id__in=user_ids).values_list("user_id", "mode")
    )
    each = NotificationPreference.Mode.EACH
    wanted = [
        (post, user, view)
        for post in posts
        for user, view in recipients[post.pk]
        if modes.get(user.pk, each) == each
    ]
    if not wanted:
        return 0
    with transaction.atomic():
        # Claim before sending. Locking the posts (in id order, so two runs over overlapping
        # posts wait for each other rather than deadlock) makes a concurrent run of the same
        # posts wait here and then see this run's rows; ``ignore_conflicts`` covers rows
        # written without the lock (``notifications_mark_sent``).
        wanted_post_ids = sorted({post.pk for post, _u, _v in wanted})
        list(
            Post.objects.select_for_update()
            .filter(pk__in=wanted_post_ids)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        done = set(
            PostNotification.objects.filter(
                post_id__in=wanted_post_ids, user_id__in={u.pk for _p, u, _v in wanted}
            ).values_list("post_id", "user_id")
        )
        todo = [(p, u, v) for p, u, v in wanted if (p.pk, u.pk) not in done]
        PostNotification.objects.bulk_create(
            [PostNotification(post=p, user=u) for p, u, _v in todo], ignore_conflicts=True
        )
    for post, user, view in todo:
        _send_post_mail(user, post, view)
    return len(todo)


def notifications_mark_sent(*, post_ids: Iterable[int]) -> int:
    """Record posts as already e-mailed to everyone who would be told about them, without
    sending anything (for history loaded in bulk, e.g. the demo). Returns the rows written."""
    posts = _posts_for_mail(post_ids)
    recipients = _recipients_by_post(posts)
    rows = [
        PostNotification(post=post, user=user)
        for post in posts
        for user, _view in recipients[post.pk]
    ]
    PostNotification.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def _send_post_mail(user: Any, post: Post, view: selectors.PostView) -> None:
    context = {
        "user": user,
        "post": post,
        "view": view,
        "scene": post.scene,
        "campaign": post.scene.campaign,
        "url": _absolute(post.get_absolute_url()),
        "settings_url": _absolute(reverse("escenas:notifications")),
    }
    subject = _("[%(campaign)s] %(scene)s: %(speaker)s") % {
        "campaign": post.scene.campaign.name,
        "scene": post.scene.title,
        "speaker": post.speaker_name,
    }
    message = EmailMultiAlternatives(
        subject=subject.replace("\n", " ")[:200],
        body=render_to_string("escenas/email/post.txt", context),
        to=[user.email],
    )
    message.attach_alternative(render_to_string("escenas/email/post.html", context), "text/html")
    message.send()


def digests_send(*, now: datetime.datetime | None = None) -> int:
    """Send each digest reader one e-mail with the posts they would have been told about since
    their last digest. A compare-and-swap on ``digest_sent_until`` makes a second run at the
    same time send nothing. Returns how many digests were sent."""
    now = now or timezone.now()
    sent = 0
    prefs = list(
        NotificationPreference.objects.filter(
            mode=NotificationPreference.Mode.DIGEST
        ).select_related("user")
    )
    for pref in prefs:
        since = pref.digest_sent_until or (now - datetime.timedelta(days=1))
        claimed = NotificationPreference.objects.filter(
            pk=pref.pk, digest_sent_until=pref.digest_sent_until
        ).update(digest_sent_until=now)
        if claimed != 1:
            continue
        user = pref.user
        if not user.is_active or not user.email:
            continue
        campaign_ids = Membership.objects.filter(user=user).values("campaign_id")
        candidates = _posts_for_mail(
            Post.objects.filter(
                campaign_id__in=campaign_ids, created_at__gt=since, created_at__lte=now
            )
            .exclude(author=user)
            .values_list("pk", flat=True)
        )
        recipients = _recipients_by_post(candidates)
        items = [
            (post, view, _absolute(post.get_absolute_url()))
            for post in candidates
            for recipient, view in recipients[post.pk]
            if recipient.pk == user.pk
        ]
        if not items:
            continue
        context = {
            "user": user,
            "items": items,
            "settings_url": _absolute(reverse("escenas:notifications")),
        }
        EmailMultiAlternatives(
            subject=_("Partida: %(n)s new posts") % {"n": len(items)},
            body=render_to_string("escenas/email/digest.txt", context),
            to=[user.email],
        ).send()
        sent += 1
    return sent


# --- The daily diary ------------------------------------------------------------------------------


def _num(value: Any, digits: int = 1) -> str:
    """A number with a Spanish decimal comma and no trailing ``,0``."""
    if value is None:
        return "—"
    text = f"{float(value):.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.replace(".", ",")


def diary_entry_markdown(entry: Any) -> str:
    """A short Markdown summary (Spanish by default) of one R25 diary row.

    Source: RULES.md R25 (day, date, weather, needs, hygiene, counters, dirt, disease,
    infection, penalty with breakdown, disease roll, status).
    """
    lines = [
        _("**Day %(day)s** (%(date)s) · %(weather)s, minimum %(temp)s °C")
        % {
            "day": entry.day,
            "date": entry.date.strftime("%d/%m/%Y") if entry.date else "—",
            "weather": entry.weather_label or "—",
            "temp": _num(entry.min_temp_c),
        },
        "",
        _(
            "- Food: %(kcal)s / %(kcal_needed)s kcal · water: %(water)s / %(water_needed)s L · "
            "sleep: %(sleep)s / %(sleep_needed)s h · hygiene: %(hygiene)s"
        )
        % {
            "kcal": _num(entry.kcal_eaten, 0),
            "kcal_needed": _num(entry.kcal_needed, 0),
            "water": _num(entry.water_l),
            "water_needed": _num(entry.water_needed_l),
            "sleep": _num(entry.sleep_h),
            "sleep_needed": _num(entry.sleep_needed_h),
            "hygiene": _("yes") if entry.hygiene_ok else _("no"),
        },
        _(
            "- Days of hunger %(hunger)s · thirst %(thirst)s · fatigue %(fatigue)s · "
            "without hygiene %(unhygienic)s"
        )
        % {
            "hunger": entry.hunger_days,
            "thirst": entry.thirst_days,
            "fatigue": entry.fatigue_days,
            "unhygienic": entry.unhygienic_days,
        },
    ]
    if entry.dirty:
        lines.append(_("- Dirty") + (_(" (extra dirt)") if entry.extra_dirt else ""))
    if entry.disease_day:
        lines.append(
            _("- Disease: day %(x)s of %(y)s")
            % {"x": entry.disease_day, "y": entry.disease_duration}
        )
    if entry.infection_day:
        lines.append(
            _("- Infection: day %(x)s of %(y)s")
            % {"x": entry.infection_day, "y": entry.infection_duration}
        )
    breakdown = ", ".join(
        f"{item.get('label', item.get('source', ''))} {int(item.get('points', 0))}"
        for item in (entry.penalty_breakdown or [])
    )
    lines.append(
        _("- Action penalty: %(points)s") % {"points": entry.penalty_total}
        + (f" ({breakdown})" if breakdown else "")
    )
    if entry.disease_p is not None and entry.disease_die is not None:
        lines.append(
            _("- Disease roll: d100 = %(die)s against %(p)s %% → %(result)s")
            % {
                "die": entry.disease_die,
                "p": entry.disease_p,
                "result": _("falls ill") if entry.fell_ill else _("stays healthy"),
            }
        )
    status_labels = {
        "alive": _("alive"),
        "sick": _("sick"),
        "infected": _("infected"),
        "dead": _("dead"),
        "risen": _("risen as a zombie"),
    }
    status = status_labels.get(entry.status, entry.status)
    if entry.death_cause:
        status += f" ({entry.death_cause})"
    lines.append(_("- Status: %(status)s") % {"status": status})
    return "\n".join(lines) + "\n"


def diary_posts_create(*, entries: Sequence[Any]) -> list[Post]:
    """One narrator post per diary entry in that character's diary scene (R25), in a constant
    number of queries whatever the number of entries; queues their notifications after commit.

    ``entries``: ``personajes.DiaryEntry`` objects of one campaign and day. A diary scene is
    created for a character that has none. Running twice for the same day adds nothing (the
    posts are keyed ``diario:<day>`` per diary scene). Returns the posts created now.
    Queries: characters (1), scenes (1), missing scenes (0–2), existing keys (1), insert (1),
    scene times (1). Source: RULES.md R24 step 6–7, R25.
    """
    entries = list(entries)
    if not entries:
        return []
    character_ids = [e.character_id for e in entries]
    characters = {
        c.pk: c for c in Character.objects.filter(pk__in=character_ids).select_related("campaign")
    }
    scenes = {
        s.diary_character_id: s
        for s in Scene.objects.filter(kind=Scene.Kind.DIARY, diary_character_id__in=character_ids)
    }
    missing = [characters[cid] for cid in character_ids if cid not in scenes]
    if missing:
        Scene.objects.bulk_create(
            [
                Scene(
                    campaign_id=c.campaign_id,
                    kind=Scene.Kind.DIARY,
                    title=_diary_title(c)[:120],
                    diary_character=c,
                )
                for c in missing
            ],
            ignore_conflicts=True,
        )
        scenes = {
            s.diary_character_id: s
            for s in Scene.objects.filter(
                kind=Scene.Kind.DIARY, diary_character_id__in=character_ids
            )
        }
    keys = {(scenes[e.character_id].pk, DIARY_KEY.format(day=e.day)) for e in entries}
    taken = set(
        Post.objects.filter(
            Q(scene_id__in=[s for s, _k in keys]), Q(idempotency_key__in=[k for _s, k in keys])
        ).values_list("scene_id", "idempotency_key")
    )
    now = timezone.now()
    new_posts = []
    for entry in entries:
        scene = scenes[entry.character_id]
        key = DIARY_KEY.format(day=entry.day)
        if (scene.pk, key) in taken:
            continue
        taken.add((scene.pk, key))
        body = diary_entry_markdown(entry)
        new_posts.append(
            Post(
                campaign_id=scene.campaign_id,
                scene=scene,
                author=None,
                voice=Post.Voice.NARRATOR,
                speaker_name=_("Diary"),
                by_master=False,
                body=body,
                body_html=render_markdown(body),
                day=entry.day,
                idempotency_key=key,
                created_at=now,
                updated_at=now,
            )
        )
    if not new_posts:
        return []
    with transaction.atomic():
        created = Post.objects.bulk_create(new_posts)
        Scene.objects.filter(pk__in={p.scene_id for p in created}).update(last_post_at=now)
        if all(p.pk for p in created):
            notify_posts([p.pk for p in created])
        else:  # a back end that does not return ids from a bulk insert
            notify_posts(
                Post.objects.filter(
                    scene_id__in={p.scene_id for p in created},
                    idempotency_key__in={p.idempotency_key for p in created},
                ).values_list("pk", flat=True)
            )
    return created
