"""Scenes and their posts: the play loop of a play-by-web campaign.

A campaign has story scenes (a list of participating characters; the master decides who else may
read), one off-topic scene (out of character, every member), one diary per character (its player
and the master) and master notes (the master only). Posts are written as a character, as the
player, or by the master as the narrator or an NPC; dice rolls live in the roll ledger
(``personajes.Roll``) and are attached to a post through ``PostRoll``, never changed afterwards.

Who may read and write what is decided in one place, ``escenas.selectors``.
Source: DESIGN.md ("Randomness and the roll ledger"), RULES.md R2–R4 (rolls), R25 (diaries).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import F, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce, Greatest
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from mundo.models import Campaign
from personajes.models import Character, Roll, Trait

BODY_MAX_CHARS = 20_000
"""Longest post body (characters of Markdown source)."""
NOTE_MAX_CHARS = 4_000
"""Longest note to the master (characters)."""


def new_feed_token() -> str:
    """A URL-safe, unguessable feed token (43 characters, 256 bits)."""
    return secrets.token_urlsafe(32)


class Scene(models.Model):
    """A scene of a campaign: story, off-topic, a character's diary, or master notes.

    ``readers`` (story scenes only) says who may read besides the participants and the master:
    nobody else, every player of the campaign, or anyone who may read the campaign (anonymous
    visitors of a public campaign included). ``last_post_at`` is the time of its newest post;
    ``last_post_id`` and ``last_public_post_id`` the ids of its newest post and of its newest
    post every reader sees (not deleted, not a whisper), 0 when there is none: the scene list's
    order for the master and for everyone else, kept by every writer of posts through
    ``scene_last_posts`` (no per-scene subquery when the list is read).
    """

    class Kind(models.TextChoices):
        STORY = "story", _("story")
        OFFTOPIC = "offtopic", _("off-topic")
        DIARY = "diary", _("diary")
        NOTES = "notes", _("master notes")

    class Readers(models.TextChoices):
        PARTICIPANTS = "participants", _("only the participants and the master")
        MEMBERS = "members", _("every player of the campaign")
        PUBLIC = "public", _("anyone who may read the campaign")

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="scenes", verbose_name=_("campaign")
    )
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.STORY)
    title = models.CharField(_("title"), max_length=120)
    summary = models.TextField(_("summary"), blank=True)
    readers = models.CharField(
        _("who else may read"),
        max_length=12,
        choices=Readers.choices,
        default=Readers.PARTICIPANTS,
        help_text=_("Story scenes: besides the participants and the master."),
    )
    participants = models.ManyToManyField(
        Character, blank=True, related_name="scenes", verbose_name=_("participants")
    )
    diary_character = models.OneToOneField(
        Character,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="diary_scene",
        verbose_name=_("diary of"),
    )
    open_to_new_characters = models.BooleanField(
        _("open to new characters"),
        default=False,
        help_text=_("Story scenes: each newly approved character joins it."),
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    last_post_at = models.DateTimeField(_("last post"), null=True, blank=True)
    last_post_id = models.BigIntegerField(default=0, editable=False)
    last_public_post_id = models.BigIntegerField(default=0, editable=False)

    class Meta:
        verbose_name = _("scene")
        verbose_name_plural = _("scenes")
        ordering = ["campaign", "-last_post_at", "-id"]
        indexes = [
            # The scene list's order within a campaign (``escenas.listing.scene_list``).
            models.Index(fields=["campaign", "-last_public_post_id"], name="scene_last_public"),
            models.Index(fields=["campaign", "-last_post_id"], name="scene_last_post"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign"],
                condition=Q(kind="offtopic"),
                name="scene_one_offtopic_per_campaign",
            ),
            models.CheckConstraint(
                condition=(Q(kind="diary") & Q(diary_character__isnull=False))
                | (~Q(kind="diary") & Q(diary_character__isnull=True)),
                name="scene_diary_has_character",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("escenas:scene", kwargs={"slug": self.campaign.slug, "pk": self.pk})


def scene_last_posts(*, exact: bool = False) -> dict[str, Any]:
    """The values that set ``Scene.last_post_id`` and ``Scene.last_public_post_id`` from the
    scene's posts, for ``Scene.objects.filter(...).update(**scene_last_posts())``: one UPDATE
    (two correlated index probes of ``post_scene_id`` per scene) in the same statement that
    moves ``last_post_at``. Only forwards by default (``Greatest`` with the stored id: a
    concurrent post committed first is never undone by a later statement's older snapshot);
    ``exact=True`` after a post is deleted (under the campaign lock), when the newest public
    post may be an older one."""
    newest = Post.objects.filter(scene=OuterRef("pk")).order_by("-id").values("id")[:1]
    public = (
        Post.objects.filter(scene=OuterRef("pk"), deleted_at__isnull=True, is_whisper=False)
        .order_by("-id")
        .values("id")[:1]
    )
    values: dict[str, Any] = {
        "last_post_id": Coalesce(Subquery(newest), Value(0)),
        "last_public_post_id": Coalesce(Subquery(public), Value(0)),
    }
    if not exact:
        values = {name: Greatest(F(name), value) for name, value in values.items()}
    return values


class NonPlayerCharacter(models.Model):
    """A non-player character of a campaign (PNJ) the master speaks as: a name and a portrait
    (with its thumbnails, ``personajes.portraits``), chosen as the voice of a master's post,
    which then shows its portrait beside the text. Written by ``escenas.npcs``; its portrait
    is served by ``escenas.npc_views.npc_portrait`` to whoever may read the campaign."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="npcs", verbose_name=_("campaign")
    )
    name = models.CharField(_("name"), max_length=80)
    description = models.TextField(_("description (the master's)"), blank=True)
    portrait = models.ImageField(_("portrait"), upload_to="portraits/npc/%Y/%m/", blank=True)
    portrait_thumb = models.ImageField(
        _("portrait thumbnail"), upload_to="portraits/npc/%Y/%m/", blank=True
    )
    portrait_thumb_2x = models.ImageField(
        _("portrait thumbnail (2x)"), upload_to="portraits/npc/%Y/%m/", blank=True
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        verbose_name = _("non-player character")
        verbose_name_plural = _("non-player characters")
        ordering = ["campaign", "name", "id"]
        constraints = [models.UniqueConstraint(fields=["campaign", "name"], name="npc_unique_name")]

    def __str__(self) -> str:
        return self.name


class Post(models.Model):
    """A post of a scene: its author and voice, Markdown body (source and sanitised HTML), an
    optional note to the master, whisper recipients, and its place in the integrity record.

    ``idempotency_key`` is generated when the post form is rendered; a retried or double submit
    with the same key returns the same post and makes no second roll. ``speaker_name`` is the
    name shown (character, NPC, player or narrator) as it was when posted; ``npc`` the master's
    NPC when one of the campaign's was chosen (its portrait is shown). ``day`` is the
    in-game day of posting. Deleted posts keep their rows and rolls (the master still sees
    them). ``edited_after_roll``: the post had rolls when it was edited. ``reply_to``: the post
    it answers (same scene); ``mentions``: the members its text names with ``@``
    (``escenas.mentions``), told about it when they may read it. ``fan_out_pending``: its
    readers' e-mails are still to be queued, after its commit (``escenas.post_fanout``).
    """

    class Voice(models.TextChoices):
        CHARACTER = "character", _("in character")
        PLAYER = "player", _("out of character")
        NARRATOR = "narrator", _("narrator")
        NPC = "npc", _("non-player character")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="posts")
    # No index of its own: ``post_scene_id`` (and the idempotency key's) lead with the scene.
    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="posts", db_index=False)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="scene_posts",
        help_text=_("Empty for posts written by the system (the daily diary)."),
    )
    voice = models.CharField(_("voice"), max_length=10, choices=Voice.choices)
    character = models.ForeignKey(
        Character, on_delete=models.SET_NULL, null=True, blank=True, related_name="posts"
    )
    speaker_name = models.CharField(_("speaker"), max_length=80)
    npc = models.ForeignKey(
        NonPlayerCharacter,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="posts",
        verbose_name=_("non-player character"),
        help_text=_("The master's NPC who speaks (voice: NPC), shown with its portrait."),
    )
    by_master = models.BooleanField(_("written by the master"), default=False)
    # On PostgreSQL the search vector ``body_search`` is generated from it (migration 0019):
    # altering this column's type there means dropping and re-adding that column.
    body = models.TextField(_("text"), blank=True)
    body_html = models.TextField(blank=True, editable=False)
    note_to_master = models.TextField(_("note to the master"), blank=True)
    note_html = models.TextField(blank=True, editable=False)
    is_whisper = models.BooleanField(_("whisper"), default=False)
    whisper_to = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="whispers_received"
    )
    reply_to = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="replies",
        verbose_name=_("in reply to"),
        help_text=_("A post of the same scene that its author could see when replying."),
    )
    mentions = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="post_mentions",
        verbose_name=_("mentioned members"),
        help_text=_("Members named with @ in the text (each is told if they may read the post)."),
    )
    day = models.PositiveIntegerField(_("in-game day"), default=0)
    idempotency_key = models.CharField(max_length=64)
    created_at = models.DateTimeField(_("posted"), default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(_("updated"), default=timezone.now)
    edited_at = models.DateTimeField(_("edited"), null=True, blank=True)
    edited_after_roll = models.BooleanField(_("edited after the roll"), default=False)
    deleted_at = models.DateTimeField(_("deleted"), null=True, blank=True)
    deleted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    fan_out_pending = models.BooleanField(default=False, editable=False)

    class Meta:
        verbose_name = _("post")
        verbose_name_plural = _("posts")
        ordering = ["id"]
        indexes = [
            # (scene, id), what unread counts filter on and what a page reads to find each
            # post's fragment (key columns: SQLite has no INCLUDE): the scene list's counts
            # and a page's ids come from the index alone (``escenas.access.visible_posts``).
            models.Index(
                fields=["scene", "id", "author", "deleted_at", "is_whisper", "updated_at"],
                name="post_scene_id",
            ),
            # A scene's newest public post by the master (``selectors.waiting_on``), which
            # PostgreSQL otherwise seeks backwards through every newer post of the campaign.
            models.Index(
                fields=["scene", "id"],
                condition=Q(by_master=True, deleted_at__isnull=True, is_whisper=False),
                name="post_master_public",
            ),
            # The sweep's list of posts whose fan-out has not run: few rows, never the table.
            models.Index(fields=["id"], condition=Q(fan_out_pending=True), name="post_fan_out"),
            # A reader's newest whisper in a page of the scene list: few rows, never the table.
            models.Index(fields=["scene", "id"], condition=Q(is_whisper=True), name="post_whisper"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["scene", "idempotency_key"], name="post_unique_idempotency_key"
            ),
            models.CheckConstraint(
                condition=~Q(voice="character") | Q(character__isnull=False),
                name="post_character_voice_has_character",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.speaker_name} · {self.scene_id} · #{self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("escenas:post", kwargs={"slug": self.campaign.slug, "pk": self.pk})

    @classmethod
    def from_db(
        cls, db: str | None, field_names: Any, values: Any, *, fetch_mode: Any = None
    ) -> Post:
        """A post read from the database. One that is no whisper has no recipients, and says
        so to Django's prefetching (an empty ``whisper_to``, already fetched, as a prefetch
        leaves it; built from ``none()``, so a filter or ``values_list`` on it stays empty):
        a page of posts then asks for recipients only when it holds a whisper, and no query
        at all otherwise (issue 14). Adding recipients (``whisper_to.set``) drops that
        answer, as it drops a prefetched one."""
        post = super().from_db(db, field_names, values, fetch_mode=fetch_mode)
        if post.__dict__.get("is_whisper") is False:
            empty: Any = get_user_model()._default_manager.none()
            empty._result_cache = []
            empty._prefetch_done = True
            post.__dict__.setdefault("_prefetched_objects_cache", {})["whisper_to"] = empty
        return post


class PostRevision(models.Model):
    """The text of a post before an edit: who edited, when, and whether it had rolls then."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="revisions")
    body = models.TextField(blank=True)
    note_to_master = models.TextField(blank=True)
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    edited_at = models.DateTimeField(default=timezone.now)
    after_roll = models.BooleanField(default=False)

    class Meta:
        verbose_name = _("post revision")
        verbose_name_plural = _("post revisions")
        ordering = ["post", "-edited_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.post_id} @ {self.edited_at:%Y-%m-%d %H:%M}"


class RollRequest(models.Model):
    """The master asks a character for an action roll (trait, threshold, reason).

    The player's next post in the scene shows it and fulfils it with one click; the roll is made
    by the server then. ``hidden``: the roll's dice and outcome are shown to the master only.
    ``base_threshold`` may be empty (the master sets it on the roll later).
    """

    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="roll_requests")
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="roll_requests")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    trait = models.ForeignKey(Trait, on_delete=models.PROTECT, related_name="+")
    base_threshold = models.PositiveSmallIntegerField(
        _("threshold (%)"), null=True, blank=True, validators=[MaxValueValidator(100)]
    )
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    hidden = models.BooleanField(_("hidden from players"), default=False)
    created_at = models.DateTimeField(default=timezone.now)
    fulfilled_roll = models.OneToOneField(
        Roll, on_delete=models.PROTECT, null=True, blank=True, related_name="fulfilled_request"
    )
    fulfilled_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("roll request")
        verbose_name_plural = _("roll requests")
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.character} · {self.trait}"

    @property
    def is_pending(self) -> bool:
        return self.fulfilled_roll_id is None and self.cancelled_at is None


class PostRoll(models.Model):
    """A roll of the ledger attached to the post it was made in (one post per roll).

    ``hidden``: a master-only roll; players see that a hidden roll was made, not its dice
    (until its dice period closes: then its dice, not its reason, ``secret_revealed`` aside).
    """

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="post_rolls")
    roll = models.OneToOneField(Roll, on_delete=models.PROTECT, related_name="post_roll")
    hidden = models.BooleanField(_("hidden from players"), default=False)
    # Once its dice period is closed a hidden roll is verifiable by every member; what it was
    # for (reason, character, threshold) stays hidden unless the master reveals it.
    secret_revealed = models.BooleanField(_("reason revealed"), default=False)
    request = models.ForeignKey(
        RollRequest, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        verbose_name = _("roll in a post")
        verbose_name_plural = _("rolls in posts")
        ordering = ["post", "position", "id"]

    def __str__(self) -> str:
        return f"#{self.post_id}: {self.roll}"


class Draft(models.Model):
    """What a user was writing in a scene, saved while typing; deleted when the post is sent.

    ``data`` holds the other form fields (voice, roll choices); ``idempotency_key`` is the key of
    the post being written, so the post (and its roll) is made once, whenever it is sent.
    """

    # No index of its own: ``draft_one_per_user_scene`` leads with the user.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="drafts")
    body = models.TextField(blank=True)
    note_to_master = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)
    idempotency_key = models.CharField(max_length=64)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("draft")
        verbose_name_plural = _("drafts")
        constraints = [
            models.UniqueConstraint(fields=["user", "scene"], name="draft_one_per_user_scene")
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.scene}"


class SceneRead(models.Model):
    """The last post (id) a user has seen in a scene: posts after it are unread; and the last
    post they were e-mailed about there (``escenas.first_notice``: no other e-mail while it
    is after ``last_post_id``)."""

    # No index of its own: ``scene_read_unique`` leads with the user.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="reads")
    last_post_id = models.BigIntegerField(default=0)
    notified_post_id = models.BigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "scene"], name="scene_read_unique")]

    def __str__(self) -> str:
        return f"{self.user} · {self.scene_id} · {self.last_post_id}"


class NotificationPreference(models.Model):
    """A user's notification setting and the secret of their private feeds.

    ``feed_token`` empty means revoked (no private feed answers); regenerating replaces it, so
    old URLs stop working. ``digest_sent_until``: posts up to this time are in a sent digest.
    ``muted_campaigns``: campaigns the user gets no e-mail about (the one-click unsubscribe link
    of each notification adds its campaign here; the notification settings page removes it).
    ``followed_campaigns``: campaigns the user still gets e-mail about when all their
    characters in it are dead (otherwise such a player is not e-mailed about its posts).
    ``followed_scenes`` / ``muted_scenes``: the per-scene choice, which wins over the campaign's
    and the user's mode (``escenas.notifications.scene_mode_set``): a followed scene's posts are
    e-mailed one by one to a reader who may see them (even in digest or no-e-mail mode, a muted
    campaign or with every character dead); a muted scene's never (nor in the digest).
    """

    class Mode(models.TextChoices):
        EACH = "each", _("an e-mail for each post")
        DIGEST = "digest", _("one daily digest")
        NONE = "none", _("no e-mail")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="scene_preference"
    )
    mode = models.CharField(
        _("e-mail notifications"), max_length=10, choices=Mode.choices, default=Mode.EACH
    )
    feed_token = models.CharField(max_length=64, blank=True, default=new_feed_token)
    digest_sent_until = models.DateTimeField(null=True, blank=True)
    muted_campaigns = models.ManyToManyField(
        Campaign, blank=True, related_name="+", verbose_name=_("muted campaigns")
    )
    followed_campaigns = models.ManyToManyField(
        Campaign, blank=True, related_name="+", verbose_name=_("followed campaigns")
    )
    followed_scenes = models.ManyToManyField(
        Scene, blank=True, related_name="+", verbose_name=_("followed scenes")
    )
    muted_scenes = models.ManyToManyField(
        Scene, blank=True, related_name="+", verbose_name=_("muted scenes")
    )

    class Meta:
        verbose_name = _("notification preference")
        verbose_name_plural = _("notification preferences")
        constraints = [
            models.UniqueConstraint(
                fields=["feed_token"], condition=~Q(feed_token=""), name="feed_token_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.mode}"


class PostNotification(models.Model):
    """An e-mail sent to a user about a post: written first, so a task run twice sends once."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    sent_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["post", "user"], name="post_notification_unique")
        ]

    def __str__(self) -> str:
        return f"#{self.post_id} → {self.user_id}"


class JoinRequest(models.Model):
    """A player's request that their character enter a story scene it does not take part in
    ("pedir entrar"), pending until the master lets it in or declines. At most one pending
    request per (scene, character). Written by ``escenas.joining``."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        ACCEPTED = "accepted", _("let in")
        DECLINED = "declined", _("declined")

    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="join_requests")
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="+")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    created_at = models.DateTimeField(_("asked"), auto_now_add=True)
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)

    class Meta:
        verbose_name = _("request to join a scene")
        verbose_name_plural = _("requests to join a scene")
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["scene", "character"],
                condition=Q(status="pending"),
                name="join_request_one_pending",
            )
        ]

    def __str__(self) -> str:
        return f"{self.character} → {self.scene}"


# Combat in scenes lives in its own module (R19–R21); imported here so Django registers it.
from escenas.combat_models import (  # noqa: E402
    Combat,
    Combatant,
    CombatTurn,
    CombatTurnRoll,
    Declaration,
    MedicineCure,
)

__all__ = [
    "Combat",
    "CombatTurn",
    "CombatTurnRoll",
    "Combatant",
    "Declaration",
    "Draft",
    "JoinRequest",
    "MedicineCure",
    "NonPlayerCharacter",
    "NotificationPreference",
    "Post",
    "PostNotification",
    "PostRevision",
    "PostRoll",
    "RollRequest",
    "Scene",
    "SceneRead",
]
