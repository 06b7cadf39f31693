"""Reads of scenes and posts: pages, play aids, the roll widget, diaries.

The scene list is ``escenas.listing``, search ``escenas.search``, feeds ``escenas.feeds``.

Who may read and write which scene and post is decided in ``escenas.access`` (``access_scene``,
``access_post``, ``scene_access``, ``posts_visible_q``, ``post_visible_to``); the reads here
take a ``SceneAccess`` or a viewer from there and apply its filters. ``scene_access``,
``post_visible_to``, ``whisper_candidates``, ``scene_participant_users``,
``campaign_memberships`` and ``member_viewers`` are imported here for the services, which read
them through this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import (
    Exists,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)

from escenas.access import (
    SceneAccess,
    visible_posts,
)
from escenas.access import campaign_memberships as campaign_memberships  # read by the services
from escenas.access import post_visible_to as post_visible_to  # read by the services
from escenas.access import scene_access as scene_access  # read by the services
from escenas.access import scene_participant_users as scene_participant_users  # the services
from escenas.access import whisper_candidates as whisper_candidates  # read by the services
from escenas.models import (
    Draft,
    NotificationPreference,
    Post,
    PostRevision,
    PostRoll,
    RollRequest,
    Scene,
    SceneRead,
)
from escenas.post_queries import post_prefetches, reply_annotations, revision_count
from escenas.rendering import plain_text, snippet
from mundo.models import Campaign
from nucleo.users import AnyUser
from personajes.access import CharacterViewer
from personajes.access import member_viewers as member_viewers  # read by the services
from personajes.mapping import condition_state
from personajes.models import Character, DayRecord, DiaryEntry, Roll, Trait, TraitValue
from reglas.characters import action_penalty, is_dirt_sensitive
from reglas.core import breakdown_total
from reglas.dice import action_chance

PAGE_SIZE = 20
"""Posts per scene page."""

# --- Posts ------------------------------------------------------------------------------------


def scene_posts(scene: Scene, viewer: CharacterViewer) -> QuerySet[Post]:
    """The posts of ``scene`` that ``viewer`` may see, oldest first.

    select_related: character, author, deleted_by, npc; prefetch_related: the post's rolls
    (with the roll, its character and trait, and the request), whisper recipients; annotates
    ``revision_count``. A constant number of queries whatever the number of posts.
    """
    return (
        visible_posts(scene, viewer)
        .select_related("character", "author", "deleted_by", "campaign", "npc")
        .prefetch_related(*post_prefetches())
        .annotate(revision_count=revision_count(), **reply_annotations())
        .order_by("id")
    )


@dataclass(frozen=True, slots=True)
class RollView:
    """A roll as one viewer sees it: ``masked`` when hidden from them (dice not included)."""

    post_roll: PostRoll
    roll: Roll | None
    masked: bool
    hidden: bool
    can_set_threshold: bool

    @property
    def die_rows(self) -> list[tuple[int, bool | None]]:
        """Action/event: ``(die, succeeded or None when no threshold yet)`` for each die."""
        roll = self.roll
        if roll is None or roll.kind == Roll.Kind.EXPRESSION:
            return []
        t = roll.effective_threshold
        return [(int(d), None if t is None else int(d) <= t) for d in roll.dice]

    @property
    def penalty(self) -> int:
        return sum(int(m.get("points", 0)) for m in (self.roll.modifiers if self.roll else []))

    @property
    def dice_count(self) -> int:
        return len(self.roll.dice) if self.roll else 0


@dataclass(frozen=True, slots=True)
class ReplyView:
    """The post a post answers, as its reply line names it: its id (the link) and speaker."""

    post_id: int
    speaker_name: str


def reply_view(post: Post, *, is_master: bool, is_author: bool) -> ReplyView | None:
    """The reply line of ``post`` for a viewer, or None (no reply, or not to be shown).

    The line depends only on what the post's cached fragment is keyed by
    (``escenas.fragments``: the viewer's rights class, and ``updated_at``, which a deletion
    of the answered post bumps): the master always sees it; the reply's author too (they saw
    the answered post when replying) unless it was deleted since; anyone else only when the
    answered post is neither deleted nor a whisper (whose readers differ from reader to
    reader). Reads the ``reply_annotations`` of ``scene_posts``/``campaign_posts``.
    """
    speaker = getattr(post, "reply_speaker", None)
    if not post.reply_to_id or speaker is None:
        return None
    deleted = getattr(post, "reply_deleted_at", None) is not None
    whisper = bool(getattr(post, "reply_whisper", False))
    if is_master or (not deleted and (is_author or not whisper)):
        return ReplyView(post_id=post.reply_to_id, speaker_name=speaker)
    return None


@dataclass(frozen=True, slots=True)
class PostView:
    """A post as one viewer sees it (the same object feeds the page, the feed and e-mails).

    ``note_html`` is empty unless the viewer may read the note; ``whisper_names`` only for
    whispers; ``is_new`` after the viewer's last read post; ``deleted`` is only ever True for
    the master; ``reply`` the post it answers, when the viewer may be told (``reply_view``).
    """

    post: Post
    rolls: tuple[RollView, ...]
    note_html: str
    whisper_names: tuple[str, ...]
    is_new: bool
    can_edit: bool
    can_delete: bool
    can_see_revisions: bool
    reply: ReplyView | None = None

    @property
    def deleted(self) -> bool:
        return self.post.deleted_at is not None

    @property
    def preview(self) -> str:
        return snippet(plain_text(self.post.body_html))


def post_view(post: Post, viewer: CharacterViewer, *, last_read: int | None = None) -> PostView:
    """The ``PostView`` of a post the viewer may see (check ``post_visible_to`` first).

    No query when the post comes from ``scene_posts`` (rolls and recipients prefetched).
    """
    uid = viewer.user_id
    master = viewer.is_master
    is_author = uid is not None and post.author_id == uid
    rolls = tuple(
        RollView(
            post_roll=pr,
            roll=None if (pr.hidden and not master) else pr.roll,
            masked=pr.hidden and not master,
            hidden=pr.hidden,
            can_set_threshold=master
            and pr.roll.base_threshold is None
            and pr.roll.kind in (Roll.Kind.ACTION, Roll.Kind.EVENT),
        )
        for pr in post.post_rolls.all()
    )
    return PostView(
        post=post,
        rolls=rolls,
        note_html=post.note_html if (master or is_author) else "",
        whisper_names=tuple(u.get_username() for u in post.whisper_to.all())
        if post.is_whisper
        else (),
        is_new=last_read is not None and post.pk > last_read and not is_author,
        can_edit=is_author and post.deleted_at is None,
        can_delete=(is_author or master) and post.deleted_at is None,
        can_see_revisions=master,
        reply=reply_view(post, is_master=master, is_author=is_author),
    )


def last_read_post_id(scene: Scene, user: AnyUser | None) -> int | None:
    """The last post id the user has seen in the scene; None for anonymous, 0 if never."""
    if user is None or not user.is_authenticated:
        return None
    return (
        SceneRead.objects.filter(scene=scene, user=user)
        .values_list("last_post_id", flat=True)
        .first()
        or 0
    )


def posts_after(access: SceneAccess, *, after: int, last_read: int | None) -> list[PostView]:
    """Visible posts with id > ``after`` (for polling), at most one page."""
    newer = visible_posts(access.scene, access.viewer).filter(pk__gt=after).order_by("id")
    qs = scene_posts(access.scene, access.viewer).filter(pk__in=newer.values("id")[:PAGE_SIZE])
    return [post_view(p, access.viewer, last_read=last_read) for p in qs]


def unread_before(access: SceneAccess, *, last_read: int | None, before: int) -> bool:
    """True when the reader has an unread post (visible, not their own) with id < ``before``
    after their marker ``last_read``. No query when nothing lies between (the usual poll: the
    marker is at the page's last post), one otherwise; False for anonymous readers."""
    if last_read is None or last_read + 1 >= before:
        return False
    viewer = access.viewer
    return (
        visible_posts(access.scene, viewer)
        .filter(pk__gt=last_read, pk__lt=before)
        .exclude(author_id=viewer.user_id)
        .exists()
    )


def posts_changed(access: SceneAccess, *, up_to: int, since: Any) -> list[PostView]:
    """Visible posts with id ≤ ``up_to`` updated after ``since`` (edits, thresholds set)."""
    changed = visible_posts(access.scene, access.viewer).filter(pk__lte=up_to, updated_at__gt=since)
    ids = changed.order_by("id").values("id")[:PAGE_SIZE]
    qs = scene_posts(access.scene, access.viewer).filter(pk__in=ids)
    return [post_view(p, access.viewer) for p in qs]


# --- Play aids ----------------------------------------------------------------------------------


def waiting_on(scene: Scene) -> list[Character]:
    """Story scenes: the living participants who have not posted since the master's last post.

    Only posts everyone can know about count (not deleted, not whispers), so the line is the same
    for every reader and reveals no whisper. Empty when the master has not posted yet. Two
    queries.
    """
    if scene.kind != Scene.Kind.STORY:
        return []
    public = Q(deleted_at__isnull=True, is_whisper=False)
    last_master = (
        Post.objects.filter(scene=scene, by_master=True).filter(public).aggregate(m=Max("id"))["m"]
    )
    if last_master is None:
        return []
    participants = (
        scene.participants.filter(status__in=Character.LIVING_STATUSES)
        .annotate(
            last_post=Max(
                "posts__id",
                filter=Q(posts__scene=scene, posts__deleted_at__isnull=True)
                & Q(posts__is_whisper=False),
            )
        )
        .order_by("name")
    )
    return [c for c in participants if (c.last_post or 0) < last_master]


def pending_requests(access: SceneAccess) -> list[RollRequest]:
    """Pending roll requests of the scene the viewer should see: all for the master, those for
    their own characters for a player (one query, none when the version says there is none)."""
    if access.version is not None and not access.version.requests:
        return []
    qs = RollRequest.objects.filter(
        scene=access.scene, fulfilled_roll__isnull=True, cancelled_at__isnull=True
    ).select_related("trait", "character")
    if not access.is_master:
        ids = list(access.viewer.living_character_ids)
        if not ids:
            return []
        qs = qs.filter(character_id__in=ids)
    return list(qs)


def draft_for(access: SceneAccess, user: AnyUser | None) -> Draft | None:
    """The user's draft in the scene, if any: one query, none when the version says none."""
    if user is None or not user.is_authenticated:
        return None
    if access.version is not None and not access.version.draft:
        return None
    return Draft.objects.filter(scene=access.scene, user=user).first()


# --- The roll widget ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TraitOption:
    """A trait of a character for the roll widget: its value (dice = value + 1) and the R9
    penalty of a roll with it (points, with the dirt penalty when the trait is dirt-sensitive)."""

    trait: Trait
    value: int
    penalty: int

    @property
    def dice(self) -> int:
        return self.value + 1


def character_traits(
    campaign: Campaign,
    characters: Sequence[Character],
    traits: Sequence[Trait] | None = None,
) -> dict[int, list[TraitOption]]:
    """For each character, every campaign trait with its value and penalty (two queries; one
    when the campaign's ``traits`` are given).

    Source: RULES.md R3 (dice = 1 + trait), R9 (penalty).
    """
    if not characters:
        return {}
    if traits is None:
        traits = list(Trait.objects.filter(campaign=campaign).order_by("position", "id"))
    values: dict[tuple[int, int], int] = {
        (cid, tid): v
        for cid, tid, v in TraitValue.objects.filter(
            character__in=[c.pk for c in characters]
        ).values_list("character_id", "trait_id", "value")
    }
    rules = campaign.rules
    out: dict[int, list[TraitOption]] = {}
    for c in characters:
        state = condition_state(c)
        base = breakdown_total(action_penalty(state, False, rules))
        dirty = breakdown_total(action_penalty(state, True, rules))
        out[c.pk] = [
            TraitOption(
                trait=t,
                value=values.get((c.pk, t.pk), 0),
                penalty=dirty if is_dirt_sensitive(t.slug, rules) else base,
            )
            for t in traits
        ]
    return out


@dataclass(frozen=True, slots=True)
class Chance:
    """The exact chance of an action roll before rolling: dice, penalty, effective threshold
    (% clamped) and P(success) = 1 − (1 − T/100)^dice as a float 0..1 (None without threshold).

    Source: RULES.md R3, R9.
    """

    character: Character
    option: TraitOption
    base_threshold: int | None
    effective_threshold: int | None
    probability: float | None

    @property
    def percent(self) -> float | None:
        """P(success) in % (0..100), or None without a threshold."""
        return None if self.probability is None else 100.0 * self.probability


def roll_chance(
    access: SceneAccess, *, character_id: int | None, trait: str, threshold: int | None
) -> Chance | None:
    """The chance of an action roll the viewer may make in the scene; None when the character
    or trait is not theirs to roll. Two queries (traits, values)."""
    chars = [c for c in access.characters if c.pk == character_id] or (
        list(access.characters[:1]) if character_id is None else []
    )
    if not chars:
        return None
    character = chars[0]
    options = character_traits(access.scene.campaign, [character])[character.pk]
    option = next((o for o in options if o.trait.slug == trait), None)
    if option is None:
        return None
    if threshold is None:
        return Chance(character, option, None, None, None)
    chance = action_chance(option.value, threshold, option.penalty)
    return Chance(character, option, threshold, chance.effective, chance.p)


# --- Diaries -------------------------------------------------------------------------------------


def preference_for(user: AnyUser) -> NotificationPreference | None:
    """The user's notification preference (None for anonymous); not created here."""
    if not user.is_authenticated:
        return None
    return NotificationPreference.objects.filter(user=user).first()


@dataclass(frozen=True, slots=True)
class SceneChoices:
    """What a reader chose that a scene page shows: ``feed_token`` (their private feeds' key,
    "" for none), whether they ``follow`` or ``mute`` the scene (``notifications.scene_mode``)."""

    feed_token: str = ""
    follows: bool = False
    mutes: bool = False


def scene_choices(user: AnyUser, scene: Scene) -> SceneChoices:
    """``user``'s ``SceneChoices`` for ``scene``: one query (their preference with two
    ``EXISTS`` on its scene lists), none for an anonymous user; nothing chosen without a
    preference (it is not created here)."""
    if not user.is_authenticated:
        return SceneChoices()
    this = {"notificationpreference_id": OuterRef("pk"), "scene_id": scene.pk}
    lists = NotificationPreference.followed_scenes, NotificationPreference.muted_scenes
    follows, mutes = (Exists(m2m.through.objects.filter(**this)) for m2m in lists)
    row = (
        NotificationPreference.objects.filter(user_id=user.pk)
        .annotate(follows=follows, mutes=mutes)
        .values_list("feed_token", "follows", "mutes")
        .first()
    )
    return SceneChoices(row[0] or "", row[1], row[2]) if row else SceneChoices()


def diary_entries(character: Character, *, days: int = 14) -> list[DiaryEntry]:
    """The character's last ``days`` diary entries (R25, written by the daily tick), oldest
    first, each with ``sleep_reason`` and ``sleep_reason_label``: why the master marked a
    different sleep that day (guard duty, travel; "" unmarked), from its ``DayRecord``.
    The reason is informational: the tick reads the hours slept (R6, R15), not why. One
    query (the reason is a subquery). Source: RULES.md R6, R15, R25."""
    reason = DayRecord.objects.filter(character=OuterRef("character"), day=OuterRef("day"))
    rows: list[DiaryEntry] = list(
        DiaryEntry.objects.filter(character=character)
        .annotate(sleep_reason=Subquery(reason.values("sleep_reason")[:1]))
        .order_by("-day")[:days]
    )
    rows.reverse()
    labels = dict(DayRecord.SleepReason.choices)
    for row in rows:
        code = row.sleep_reason or ""  # type: ignore[attr-defined]
        row.sleep_reason = code  # type: ignore[attr-defined]
        row.sleep_reason_label = labels.get(code, "") if code else ""  # type: ignore[attr-defined]
    return rows


# --- Small permission-checked fetches for the views --------------------------------------------


def campaign_traits_for_rolls(access: SceneAccess) -> list[Trait]:
    """The campaign's traits in sheet order, when the viewer has characters to roll for in the
    scene (empty otherwise). One query at most."""
    if not access.characters:
        return []
    return list(
        Trait.objects.filter(campaign_id=access.scene.campaign_id).order_by("position", "id")
    )


def post_revisions(post: Post) -> QuerySet[PostRevision]:
    """A post's revisions, newest first, with who made them (master only: check first)."""
    return PostRevision.objects.filter(post=post).select_related("edited_by")
