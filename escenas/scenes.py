"""Writes of scenes: the master's story and master-notes scenes, the campaign's off-topic scene
and each character's diary scene (made on first use).

Services are keyword-only, run under their campaign's lock (``nucleo.locks``), and raise
``ServiceError`` with a Spanish message — a dict ``{field: message}`` for a field — saving
nothing then.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils.translation import gettext as _

from escenas.models import (
    Scene,
)
from mundo.access import require_master
from mundo.models import Campaign
from nucleo.compiled import CompiledQuery
from nucleo.errors import ServiceError
from nucleo.locks import campaign_locked
from nucleo.text import clean_line, clean_text
from personajes.models import Character

# --- Scenes -----------------------------------------------------------------------------------


def _clean_title(title: str) -> str:
    title = clean_line(title).strip()
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
    master: User,
    title: str,
    kind: str = Scene.Kind.STORY,
    summary: str = "",
    readers: str = Scene.Readers.PARTICIPANTS,
    participants: Iterable[Character] = (),
    open_to_new_characters: bool = False,
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
        summary=clean_text(summary).strip(),
        readers=readers,
        open_to_new_characters=bool(open_to_new_characters) and kind == Scene.Kind.STORY,
    )
    if kind == Scene.Kind.STORY and chars:
        scene.participants.set(chars)
    return scene


@campaign_locked(lambda scene, **_: scene.campaign_id)
def scene_update(
    *,
    scene: Scene,
    master: User,
    title: str,
    summary: str = "",
    readers: str | None = None,
    participants: Iterable[Character] | None = None,
    open_to_new_characters: bool | None = None,
) -> Scene:
    """Change a scene's title, summary, readers, (story) participants and whether newly
    approved characters join it (``open_to_new_characters``, None = unchanged); the master
    only.

    Raises ServiceError as ``scene_create``.
    """
    require_master(scene.campaign_id, master)
    scene.title = _clean_title(title)
    scene.summary = clean_text(summary).strip()
    if readers is not None:
        if readers not in Scene.Readers.values:
            raise ServiceError({"readers": _("Choose who else may read the scene.")})
        scene.readers = readers
    if open_to_new_characters is not None:
        scene.open_to_new_characters = (
            bool(open_to_new_characters) and scene.kind == Scene.Kind.STORY
        )
    scene.save(update_fields=["title", "summary", "readers", "open_to_new_characters"])
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


def diary_title(character: Character) -> str:
    """The title of a character's diary scene."""
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
                title=diary_title(character)[:120],
                diary_character=character,
                readers=Scene.Readers.PARTICIPANTS,
            )
    except IntegrityError:
        return Scene.objects.get(diary_character=character)


def list_scenes_ensure(*, campaign: Campaign) -> None:
    """The scenes a member's scene list makes on first read: the off-topic scene
    (``offtopic_scene_for``) and the characters' missing diaries (``diaries_ensure``). One
    query when neither is missing (both checks in one SELECT, compiled once), the creators'
    own otherwise. Idempotent and safe to run twice at once, as they are."""
    found = _MISSING.rows(campaign_id=campaign.pk)
    has_offtopic, missing_diary = found[0] if found else (False, True)
    if not has_offtopic:
        offtopic_scene_for(campaign)
    if missing_diary:
        diaries_ensure(campaign=campaign)


def _missing(*, campaign_id: int) -> QuerySet[Campaign, tuple[bool, bool]]:
    """``list_scenes_ensure``'s query: whether the campaign has its off-topic scene, and
    whether a character of it has no diary."""
    offtopic = Scene.objects.filter(campaign=OuterRef("pk"), kind=Scene.Kind.OFFTOPIC)
    undiaried = Character.objects.filter(campaign=OuterRef("pk"), diary_scene__isnull=True)
    return (
        Campaign.objects.filter(pk=campaign_id)
        .annotate(has_offtopic=Exists(offtopic), missing_diary=Exists(undiaried))
        .values_list("has_offtopic", "missing_diary")[:1]
    )


_MISSING = CompiledQuery(_missing)


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
                title=diary_title(c)[:120],
                diary_character=c,
                readers=Scene.Readers.PARTICIPANTS,
            )
            for c in missing
        ],
        ignore_conflicts=True,
    )
    return len(missing)
