"""Reads of scenes and posts, and the one place that decides who may read and write them.

Permission rules (every surface — pages, htmx fragments, feeds, e-mails, search — goes through
``scene_get_for_user``/``scene_access`` for scenes and ``post_visible_to``/``posts_visible_q``
for posts, so each shows the same thing to the same person):

- **master** (membership role master): reads and writes every scene of the campaign, sees every
  post including whispers, deleted posts, notes to the master, hidden rolls and revisions.
- **story scene**: players whose character participates read and write; other players read
  when ``readers`` is *members* or *public*; non-members who may read the campaign (a public
  campaign: outsiders and anonymous visitors) read when ``readers`` is *public*.
- **off-topic**: every member reads and writes (out of character).
- **diary**: the character's player and the master.
- **master notes**: the master only.
- **posts** inside a readable scene: deleted posts only for the master; a whisper only for its
  author, its recipients and the master; the note to the master only for the post's author and
  the master; a hidden roll's dice only for the master.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import AnonymousUser
from django.core.paginator import Page, Paginator
from django.db.models import (
    Count,
    Exists,
    IntegerField,
    Max,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.http import Http404

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
from escenas.rendering import plain_text, snippet
from mundo.models import Campaign, Membership
from mundo.selectors import campaign_get_for_user
from nucleo.users import AnyUser
from personajes.mapping import condition_state
from personajes.models import Character, DiaryEntry, Roll, Trait, TraitValue
from reglas.characters import action_penalty
from reglas.core import breakdown_total
from reglas.dice import action_chance

if TYPE_CHECKING:
    from django.contrib.auth.models import User


PAGE_SIZE = 20
"""Posts per scene page."""
FEED_ITEMS = 30
"""Posts in a feed."""
SEARCH_RESULTS = 50
"""Most search results shown."""


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking at a campaign: the user, their role and their characters' ids.

    ``role`` is ``"master"``, ``"player"`` or None (not a member, anonymous included);
    ``character_ids`` the user's characters in the campaign (any status),
    ``living_character_ids`` those alive (draft, submitted or approved).
    """

    user: Any
    role: str | None
    character_ids: frozenset[int] = field(default_factory=frozenset)
    living_character_ids: frozenset[int] = field(default_factory=frozenset)

    @property
    def user_id(self) -> int | None:
        return self.user.pk if self.user is not None and self.user.is_authenticated else None

    @property
    def is_master(self) -> bool:
        return self.role == Membership.Role.MASTER

    @property
    def is_member(self) -> bool:
        return self.role is not None


def viewer_for(campaign: Campaign, user: AnyUser | None) -> Viewer:
    """The viewer of ``campaign`` for ``user`` (anonymous when None or not signed in).

    Two queries for a signed-in user (role, characters), none for anonymous.
    """
    if user is None or not user.is_authenticated:
        return Viewer(user=user or AnonymousUser(), role=None)
    role = (
        Membership.objects.filter(campaign=campaign, user=user)
        .values_list("role", flat=True)
        .first()
    )
    characters = list(
        Character.objects.filter(campaign=campaign, player=user).values_list("pk", "status")
    )
    return Viewer(
        user=user,
        role=role,
        character_ids=frozenset(pk for pk, _status in characters),
        living_character_ids=frozenset(
            pk for pk, status in characters if status in Character.LIVING_STATUSES
        ),
    )


def viewers_for_users(campaign: Campaign, users: Iterable[Any]) -> dict[int, Viewer]:
    """Viewers of ``campaign`` for many users at once (two queries), keyed by user id."""
    users = list(users)
    ids = [u.pk for u in users]
    roles = dict(
        Membership.objects.filter(campaign=campaign, user_id__in=ids).values_list("user_id", "role")
    )
    chars: dict[int, list[tuple[int, str]]] = {}
    for pk, player_id, status in Character.objects.filter(
        campaign=campaign, player_id__in=ids
    ).values_list("pk", "player_id", "status"):
        chars.setdefault(player_id, []).append((pk, status))
    return {
        u.pk: Viewer(
            user=u,
            role=roles.get(u.pk),
            character_ids=frozenset(pk for pk, _s in chars.get(u.pk, [])),
            living_character_ids=frozenset(
                pk for pk, s in chars.get(u.pk, []) if s in Character.LIVING_STATUSES
            ),
        )
        for u in users
    }


def campaign_memberships(campaign_ids: Iterable[int]) -> dict[int, list[Membership]]:
    """The memberships of each campaign, with their users, keyed by campaign id. One query."""
    out: dict[int, list[Membership]] = {cid: [] for cid in campaign_ids}
    for m in Membership.objects.filter(campaign_id__in=list(out)).select_related("user"):
        out[m.campaign_id].append(m)
    return out


def member_viewers(memberships: dict[int, list[Membership]]) -> dict[tuple[int, int], Viewer]:
    """The viewer of every member of the given campaigns (``campaign_memberships``), keyed
    ``(campaign id, user id)``; the same viewers as ``viewer_for``. One query (characters)."""
    chars: dict[tuple[int, int], list[tuple[int, str]]] = {}
    rows = Character.objects.filter(
        campaign_id__in=list(memberships),
        player_id__in={m.user_id for ms in memberships.values() for m in ms},
    ).values_list("pk", "campaign_id", "player_id", "status")
    for pk, campaign_id, player_id, status in rows:
        chars.setdefault((campaign_id, player_id), []).append((pk, status))
    viewers = {}
    for campaign_id, ms in memberships.items():
        for m in ms:
            own = chars.get((campaign_id, m.user_id), [])
            viewers[(campaign_id, m.user_id)] = Viewer(
                user=m.user,
                role=m.role,
                character_ids=frozenset(pk for pk, _s in own),
                living_character_ids=frozenset(
                    pk for pk, s in own if s in Character.LIVING_STATUSES
                ),
            )
    return viewers


# --- Scenes -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SceneAccess:
    """What a viewer may do in a scene.

    ``can_read``/``can_post``; ``voices`` the voices they may post with (``Post.Voice`` values);
    ``characters`` the characters they may post as or roll for (participants the viewer plays,
    alive; for the master every living participant, or the diary's character).
    """

    scene: Scene
    viewer: Viewer
    can_read: bool
    can_post: bool
    voices: tuple[str, ...]
    characters: tuple[Character, ...]

    @property
    def is_master(self) -> bool:
        return self.viewer.is_master


def _scene_characters(scene: Scene) -> list[Character]:
    """The characters of a scene: its participants (story) or the diary's character."""
    if scene.kind == Scene.Kind.DIARY:
        return [scene.diary_character] if scene.diary_character else []
    if scene.kind == Scene.Kind.STORY:
        return list(scene.participants.all())
    return []


def scene_access(scene: Scene, viewer: Viewer) -> SceneAccess:
    """Decide what ``viewer`` may do in ``scene`` (see the module docstring for the rules).

    Uses ``scene.participants`` (prefetch it to avoid a query) and ``scene.diary_character``.
    """
    kind = scene.kind
    characters = _scene_characters(scene)
    own = [c for c in characters if c.pk in viewer.character_ids]
    own_living = [c for c in own if c.pk in viewer.living_character_ids]
    living = [c for c in characters if c.is_alive]
    voices: tuple[str, ...] = ()
    postable: list[Character] = []
    if viewer.is_master:
        can_read = can_post = True
        voices = (Post.Voice.NARRATOR, Post.Voice.NPC, Post.Voice.PLAYER)
        postable = living
    elif kind == Scene.Kind.STORY:
        # A former member whose character still takes part reads no more than any outsider
        # (the same rule as ``scenes_readable_q``, which lists scenes for members only).
        participant = bool(own) and viewer.is_member
        can_read = (
            participant
            or (scene.readers == Scene.Readers.MEMBERS and viewer.is_member)
            or (
                scene.readers == Scene.Readers.PUBLIC
                and (viewer.is_member or scene.campaign.is_public)
            )
        )
        can_post = participant
        if can_post:
            voices = ((Post.Voice.CHARACTER,) if own_living else ()) + (Post.Voice.PLAYER,)
            postable = own_living
    elif kind == Scene.Kind.OFFTOPIC:
        can_read = can_post = viewer.is_member
        voices = (Post.Voice.PLAYER,) if can_post else ()
    elif kind == Scene.Kind.DIARY:
        can_read = can_post = bool(own) and viewer.is_member
        if can_post:
            voices = ((Post.Voice.CHARACTER,) if own_living else ()) + (Post.Voice.PLAYER,)
            postable = own_living
    else:  # master notes
        can_read = can_post = False
    return SceneAccess(
        scene=scene,
        viewer=viewer,
        can_read=can_read,
        can_post=can_post,
        voices=voices,
        characters=tuple(postable),
    )


def scenes_readable_q(viewer: Viewer) -> Q:
    """The scenes ``viewer`` may read, as a filter on Scene (same rules as ``scene_access``)."""
    if viewer.is_master:
        return Q()
    public_story = Q(kind=Scene.Kind.STORY, readers=Scene.Readers.PUBLIC)
    if not viewer.is_member:
        # Participation counts for members only: a former member whose character still takes
        # part reads what an outsider reads (as in ``scene_access``).
        return public_story & Q(campaign__is_public=True)
    ids = list(viewer.character_ids)
    participating = Exists(
        Scene.participants.through.objects.filter(scene_id=OuterRef("pk"), character_id__in=ids)
    )
    return (
        public_story
        | Q(kind=Scene.Kind.STORY, readers=Scene.Readers.MEMBERS)
        | (Q(kind=Scene.Kind.STORY) & participating)
        | Q(kind=Scene.Kind.OFFTOPIC)
        | Q(kind=Scene.Kind.DIARY, diary_character_id__in=ids)
    )


def scene_get_for_user(*, campaign: Campaign, pk: int, user: AnyUser | None) -> SceneAccess:
    """The scene ``pk`` of ``campaign`` with what ``user`` may do there; Http404 when it does not
    exist or the user may not read it (its existence is not revealed).

    Call after ``campaign_get_for_user`` (the campaign must be readable). Queries: the viewer
    (2), the scene with its diary character (1), its participants (1).
    """
    viewer = viewer_for(campaign, user)
    return scene_get_for_viewer(campaign=campaign, pk=pk, viewer=viewer)


def scene_get_for_viewer(*, campaign: Campaign, pk: int, viewer: Viewer) -> SceneAccess:
    """``scene_get_for_user`` for an already built viewer."""
    scene = (
        Scene.objects.select_related("campaign", "diary_character", "diary_character__player")
        .prefetch_related(Prefetch("participants", queryset=Character.objects.order_by("name")))
        .filter(campaign=campaign, pk=pk)
        .first()
    )
    if scene is None:
        raise Http404("No such scene")
    access = scene_access(scene, viewer)
    if not access.can_read:
        raise Http404("No such scene")
    return access


def scene_for_slug_and_user(*, slug: str, pk: int, user: AnyUser | None) -> SceneAccess:
    """Campaign by slug (``campaign_get_for_user``) then ``scene_get_for_user``; Http404 if
    either is not readable by ``user``."""
    campaign = campaign_get_for_user(slug=slug, user=user or AnonymousUser())
    return scene_get_for_user(campaign=campaign, pk=pk, user=user)


# --- Posts ------------------------------------------------------------------------------------


def posts_visible_q(viewer: Viewer) -> Q:
    """The posts ``viewer`` may see inside a scene they may read, as a filter on Post."""
    if viewer.is_master:
        return Q()
    if viewer.user_id is None:
        return Q(deleted_at__isnull=True, is_whisper=False)
    recipient = Exists(
        Post.whisper_to.through.objects.filter(post_id=OuterRef("pk"), user_id=viewer.user_id)
    )
    return Q(deleted_at__isnull=True) & (
        Q(is_whisper=False) | Q(author_id=viewer.user_id) | recipient
    )


def post_visible_to(post: Post, viewer: Viewer, access: SceneAccess | None = None) -> bool:
    """True when ``viewer`` may see ``post`` (scene readable and the post rules of the module
    docstring). Uses ``post.whisper_to`` (prefetch it) for whispers and ``post.scene``.
    """
    if access is None or access.scene.pk != post.scene_id:
        access = scene_access(post.scene, viewer)
    if not access.can_read:
        return False
    if viewer.is_master:
        return True
    if post.deleted_at is not None:
        return False
    if not post.is_whisper:
        return True
    uid = viewer.user_id
    if uid is None:
        return False
    return post.author_id == uid or any(u.pk == uid for u in post.whisper_to.all())


def scene_posts(scene: Scene, viewer: Viewer) -> QuerySet[Post]:
    """The posts of ``scene`` that ``viewer`` may see, oldest first.

    select_related: character, author, deleted_by; prefetch_related: the post's rolls (with the
    roll, its character and trait, and the request), whisper recipients; annotates
    ``revision_count``. A constant number of queries whatever the number of posts.
    """
    return (
        Post.objects.filter(scene=scene)
        .filter(posts_visible_q(viewer))
        .select_related("character", "author", "deleted_by", "campaign")
        .prefetch_related(*_post_prefetches())
        .annotate(revision_count=_revision_count())
        .order_by("id")
    )


def _post_prefetches() -> tuple[Prefetch, Prefetch]:
    """What ``post_view`` reads of each post: its rolls in order (with the roll, its character
    and trait, and the request) and its whisper recipients by username."""
    return (
        Prefetch(
            "post_rolls",
            queryset=PostRoll.objects.select_related(
                "roll", "roll__character", "roll__trait", "request"
            ).order_by("position", "id"),
        ),
        Prefetch("whisper_to", queryset=_user_model().objects.order_by("username")),
    )


def _revision_count() -> Coalesce:
    # A correlated subquery, not Count() over a join: a join would GROUP BY every column of
    # the post (its whole text) on every page.
    counted = (
        PostRevision.objects.filter(post=OuterRef("pk"))
        .order_by()
        .values("post")
        .annotate(n=Count("id"))
        .values("n")[:1]
    )
    return Coalesce(Subquery(counted), 0, output_field=IntegerField())


def _user_model() -> type[User]:
    from django.contrib.auth import get_user_model

    return get_user_model()  # type: ignore[return-value]


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
class PostView:
    """A post as one viewer sees it (the same object feeds the page, the feed and e-mails).

    ``note_html`` is empty unless the viewer may read the note; ``whisper_names`` only for
    whispers; ``is_new`` after the viewer's last read post; ``deleted`` is only ever True for
    the master.
    """

    post: Post
    rolls: tuple[RollView, ...]
    note_html: str
    whisper_names: tuple[str, ...]
    is_new: bool
    can_edit: bool
    can_delete: bool
    can_see_revisions: bool

    @property
    def deleted(self) -> bool:
        return self.post.deleted_at is not None

    @property
    def preview(self) -> str:
        return snippet(plain_text(self.post.body_html))


def post_view(post: Post, viewer: Viewer, *, last_read: int | None = None) -> PostView:
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


@dataclass(frozen=True, slots=True)
class ScenePage:
    """One page of a scene: the page object, its posts as the viewer sees them, and the id of
    the last post on it."""

    page: Page[Post]
    posts: list[PostView]
    last_post_id: int
    is_last_page: bool


def scene_page(access: SceneAccess, *, page: str | int | None, last_read: int | None) -> ScenePage:
    """Page ``page`` of the scene's visible posts (``PAGE_SIZE`` a page).

    ``"last"`` is the last page. Without a page number: the page of the first unread post, or
    the last page when everything was read (page 1 for someone who never opened the scene).
    Constant queries: a count, maybe a count of read posts, the page with its prefetches (3).
    """
    qs = scene_posts(access.scene, access.viewer)
    paginator = Paginator(qs, PAGE_SIZE)
    if page in (None, ""):
        if not last_read:
            number = 1
        else:
            read = (
                Post.objects.filter(scene=access.scene, pk__lte=last_read)
                .filter(posts_visible_q(access.viewer))
                .count()
            )
            number = min(read // PAGE_SIZE + 1, paginator.num_pages)
    elif page == "last":
        number = paginator.num_pages
    else:
        number = page  # type: ignore[assignment]
    page_obj = paginator.get_page(number)
    posts = [post_view(p, access.viewer, last_read=last_read) for p in page_obj.object_list]
    return ScenePage(
        page=page_obj,
        posts=posts,
        last_post_id=posts[-1].post.pk if posts else 0,
        is_last_page=not page_obj.has_next(),
    )


def posts_after(access: SceneAccess, *, after: int, last_read: int | None) -> list[PostView]:
    """Visible posts with id > ``after`` (for polling), at most one page."""
    qs = scene_posts(access.scene, access.viewer).filter(pk__gt=after)[:PAGE_SIZE]
    return [post_view(p, access.viewer, last_read=last_read) for p in qs]


def posts_changed(access: SceneAccess, *, up_to: int, since: Any) -> list[PostView]:
    """Visible posts with id ≤ ``up_to`` updated after ``since`` (edits, thresholds set)."""
    qs = scene_posts(access.scene, access.viewer).filter(pk__lte=up_to, updated_at__gt=since)[
        :PAGE_SIZE
    ]
    return [post_view(p, access.viewer) for p in qs]


def post_get_for_user(
    *, campaign: Campaign, pk: int, user: AnyUser | None
) -> tuple[Post, SceneAccess]:
    """The post ``pk`` of the campaign and the scene access, if ``user`` may see it; Http404
    otherwise (same answer whether it does not exist or is not visible)."""
    viewer = viewer_for(campaign, user)
    post = scene_posts_any(campaign).filter(pk=pk).first()
    if post is None:
        raise Http404("No such post")
    access = scene_get_for_viewer(campaign=campaign, pk=post.scene_id, viewer=viewer)
    if not post_visible_to(post, viewer, access):
        raise Http404("No such post")
    return post, access


def scene_posts_any(campaign: Campaign) -> QuerySet[Post]:
    """Every post of the campaign with what ``post_view`` needs (no visibility filter: callers
    check ``post_visible_to``)."""
    return (
        Post.objects.filter(campaign=campaign)
        .select_related("character", "author", "scene", "campaign", "deleted_by")
        .prefetch_related(*_post_prefetches())
        .annotate(revision_count=_revision_count())
    )


def post_page_number(post: Post, viewer: Viewer) -> int:
    """The scene page (1-based) on which ``post`` appears for ``viewer`` (one query)."""
    before = (
        Post.objects.filter(scene_id=post.scene_id, pk__lt=post.pk)
        .filter(posts_visible_q(viewer))
        .count()
    )
    return before // PAGE_SIZE + 1


# --- Scene list -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SceneRow:
    """A scene of the list with the viewer's unread count and the last post they may see."""

    scene: Scene
    unread: int
    last_post: Post | None

    @property
    def preview(self) -> str:
        return snippet(plain_text(self.last_post.body_html), length=100) if self.last_post else ""


def scene_list(campaign: Campaign, viewer: Viewer) -> list[SceneRow]:
    """Every scene of the campaign the viewer may read, with unread counts and last visible post.

    Three queries whatever the number of scenes: the scenes (with their campaign) annotated
    with the last visible post id and the unread count (subqueries with the same post filter as
    the scene page), the participants, and the last posts.
    """
    visible = posts_visible_q(viewer)
    last_visible = (
        Post.objects.filter(scene=OuterRef("pk")).filter(visible).order_by("-id").values("id")[:1]
    )
    qs = (
        Scene.objects.filter(campaign=campaign)
        .filter(scenes_readable_q(viewer))
        .select_related("campaign", "diary_character")
        .prefetch_related(Prefetch("participants", queryset=Character.objects.order_by("name")))
        .annotate(last_visible_id=last_visible)
    )
    if viewer.user_id is not None:
        # Nested inside the post subquery below: the scene is the outer query's outer row.
        read = SceneRead.objects.filter(
            scene=OuterRef(OuterRef("pk")), user_id=viewer.user_id
        ).values("last_post_id")[:1]
        unread = (
            Post.objects.filter(scene=OuterRef("pk"))
            .filter(visible)
            .exclude(author_id=viewer.user_id)
            .filter(pk__gt=Coalesce(read, 0))
            .order_by()  # no ordering column in the GROUP BY
            .values("scene")
            .annotate(n=Count("id"))
            .values("n")[:1]
        )
        qs = qs.annotate(unread_count=Coalesce(unread, 0, output_field=IntegerField()))
    scenes = list(qs)
    last_ids = [s.last_visible_id for s in scenes if s.last_visible_id]
    last_posts = {p.pk: p for p in Post.objects.filter(pk__in=last_ids)} if last_ids else {}
    order = {Scene.Kind.STORY: 0, Scene.Kind.OFFTOPIC: 1, Scene.Kind.DIARY: 2, Scene.Kind.NOTES: 3}
    rows = [
        SceneRow(
            scene=s,
            unread=getattr(s, "unread_count", 0) or 0,
            last_post=last_posts.get(s.last_visible_id),
        )
        for s in scenes
    ]
    rows.sort(
        key=lambda r: (
            order.get(r.scene.kind, 9),
            -(r.last_post.pk if r.last_post else 0),
            r.scene.title,
        )
    )
    return rows


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
    the viewer's own characters for a player (one query; trait and character selected)."""
    qs = RollRequest.objects.filter(
        scene=access.scene, fulfilled_roll__isnull=True, cancelled_at__isnull=True
    ).select_related("trait", "character")
    if not access.is_master:
        ids = list(access.viewer.living_character_ids)
        if not ids:
            return []
        qs = qs.filter(character_id__in=ids)
    return list(qs)


def draft_for(scene: Scene, user: AnyUser | None) -> Draft | None:
    """The user's draft in the scene, if any (one query)."""
    if user is None or not user.is_authenticated:
        return None
    return Draft.objects.filter(scene=scene, user=user).first()


def whisper_candidates(access: SceneAccess) -> list[Any]:
    """Members who may read the scene and could receive a whisper (not the viewer), by name.

    One query for the memberships and, for a participants-only story scene, the participants
    (already prefetched).
    """
    scene = access.scene
    members = list(
        Membership.objects.filter(campaign_id=scene.campaign_id)
        .select_related("user")
        .order_by("user__username")
    )
    out = []
    participant_players = {c.player_id for c in _scene_characters(scene)}
    for m in members:
        if m.user_id == access.viewer.user_id or m.role == Membership.Role.MASTER:
            continue  # the master reads every whisper anyway
        if scene.kind == Scene.Kind.STORY and scene.readers == Scene.Readers.PARTICIPANTS:
            if m.user_id not in participant_players:
                continue
        elif scene.kind in (Scene.Kind.DIARY, Scene.Kind.NOTES):
            continue
        out.append(m.user)
    return out


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
                penalty=dirty if t.dirt_sensitive else base,
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
    access: SceneAccess, *, character_id: int | None, trait_slug: str, base_threshold: int | None
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
    option = next((o for o in options if o.trait.slug == trait_slug), None)
    if option is None:
        return None
    if base_threshold is None:
        return Chance(character, option, None, None, None)
    chance = action_chance(option.value, base_threshold, option.penalty)
    return Chance(character, option, base_threshold, chance.effective, chance.p)


# --- Search, feeds, diaries -----------------------------------------------------------------------


def post_search(campaign: Campaign, viewer: Viewer, query: str) -> list[Post]:
    """Posts of the campaign whose text contains ``query`` (any case), newest first, among the
    scenes and posts the viewer may read; at most ``SEARCH_RESULTS``. Empty query → nothing.

    One query (scene and campaign selected). ``icontains`` works on SQLite and PostgreSQL alike.
    """
    query = query.strip()
    if len(query) < 2:
        return []
    readable = Scene.objects.filter(campaign=campaign).filter(scenes_readable_q(viewer))
    return list(
        Post.objects.filter(campaign=campaign, scene__in=readable)
        .filter(posts_visible_q(viewer))
        .filter(body__icontains=query)
        .select_related("scene", "campaign")
        .order_by("-id")[:SEARCH_RESULTS]
    )


def feed_user(token: str) -> Any:
    """The user whose private feed token is ``token``; Http404 for an unknown or revoked one."""
    if not token:
        raise Http404("No such feed")
    pref = NotificationPreference.objects.select_related("user").filter(feed_token=token).first()
    if pref is None or not pref.user.is_active:
        raise Http404("No such feed")
    return pref.user


def feed_posts(access: SceneAccess) -> list[PostView]:
    """The last ``FEED_ITEMS`` visible posts of the scene, newest first, as the viewer sees them."""
    qs = scene_posts(access.scene, access.viewer).order_by("-id")[:FEED_ITEMS]
    return [post_view(p, access.viewer) for p in qs]


def preference_for(user: AnyUser) -> NotificationPreference | None:
    """The user's notification preference (None for anonymous); not created here."""
    if not user.is_authenticated:
        return None
    return NotificationPreference.objects.filter(user=user).first()


def scene_is_public(scene: Scene) -> bool:
    """True when anonymous visitors may read the scene (its feed needs no token)."""
    return (
        scene.campaign.is_public
        and scene.kind == Scene.Kind.STORY
        and scene.readers == Scene.Readers.PUBLIC
    )


def diary_entries(character: Character, *, days: int = 14) -> list[DiaryEntry]:
    """The character's last ``days`` diary entries (R25, written by the daily tick), oldest
    first. One query. Source: RULES.md R25."""
    rows = list(DiaryEntry.objects.filter(character=character).order_by("-day")[:days])
    rows.reverse()
    return rows


def scene_participant_users(
    scene: Scene, memberships: Sequence[Membership] | None = None
) -> list[Any]:
    """The users a new post in the scene notifies: those who may post in it (story: master and
    players of participating characters; off-topic: every member; diary: its player and the
    master; notes: the master). One query for members (none when ``memberships``, the
    campaign's memberships with their users, is given) plus the participants (prefetched)."""
    if memberships is None:
        memberships = list(
            Membership.objects.filter(campaign_id=scene.campaign_id).select_related("user")
        )
    masters = [m.user for m in memberships if m.role == Membership.Role.MASTER]
    if scene.kind == Scene.Kind.OFFTOPIC:
        return [m.user for m in memberships]
    if scene.kind == Scene.Kind.NOTES:
        return masters
    players = {c.player_id for c in _scene_characters(scene)}
    member_ids = {m.user_id for m in memberships}
    return masters + [
        m.user
        for m in memberships
        if m.user_id in players and m.user_id in member_ids and m.role != Membership.Role.MASTER
    ]


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


def post_roll_get_for_master(*, campaign: Campaign, pk: int, user: AnyUser) -> PostRoll:
    """A roll of a post of the campaign (with roll and post) if ``user`` is the master;
    Http404 otherwise (players do not learn which rolls exist)."""
    post_roll = (
        PostRoll.objects.select_related("roll", "post")
        .filter(pk=pk, post__campaign=campaign)
        .first()
    )
    if post_roll is None or not viewer_for(campaign, user).is_master:
        raise Http404("No such roll")
    return post_roll


def roll_request_get(*, campaign: Campaign, pk: int) -> RollRequest:
    """A roll request of the campaign with its scene; Http404 if there is none (the service
    checks who may withdraw it)."""
    found = (
        RollRequest.objects.select_related("scene", "scene__campaign")
        .filter(pk=pk, scene__campaign=campaign)
        .first()
    )
    if found is None:
        raise Http404("No such request")
    return found


def diary_character_get(*, campaign: Campaign, pk: int, user: AnyUser) -> Character:
    """The campaign's character ``pk`` if ``user`` may read its diary (its player or the
    master); Http404 otherwise."""
    viewer = viewer_for(campaign, user)
    character = Character.objects.filter(campaign=campaign, pk=pk).first()
    if character is None or not (viewer.is_master or character.pk in viewer.character_ids):
        raise Http404("No such diary")
    return character
