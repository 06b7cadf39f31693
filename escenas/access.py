"""Who may read and write scenes and posts: the one place that decides it, built on
``personajes.access`` (the viewer with their characters) and ``mundo.access`` (the role).

Every surface (pages, htmx fragments, feeds, e-mails, search, the API) fetches through
``access_scene``/``access_post`` and filters lists with ``scenes_readable_q``/``posts_visible_q``,
so each shows the same thing to the same person. A fetch that fails raises
``nucleo.errors.NotFound`` (missing and hidden alike); one handler per surface maps it to 404.

The campaign role comes from membership alone; a superuser who is not a member is an outsider.

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
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import (
    CharField,
    Exists,
    F,
    OuterRef,
    Q,
    QuerySet,
    StringAgg,
    Subquery,
    Value,
)
from django.db.models.functions import Cast, Concat

from escenas import scene_version
from escenas.models import (
    Post,
    PostRoll,
    RollRequest,
    Scene,
)
from escenas.post_audience import CampaignMembers, scene_participant_ids
from escenas.post_queries import campaign_posts
from escenas.scene_version import SceneVersion
from mundo.access import access_campaign, is_master_role
from mundo.models import Campaign, Membership
from nucleo.bounds import row_id
from nucleo.compiled import CompiledQuery, prefetched
from nucleo.errors import NotFound
from nucleo.users import AnyUser
from personajes.access import (
    CharacterViewer,
    character_viewer_for,
    character_viewer_from_rows,
    with_characters,
)
from personajes.access import access_roll as character_roll
from personajes.models import Character, Roll


def access_campaign_viewer(user: AnyUser | None, *, slug: str) -> tuple[Campaign, CharacterViewer]:
    """``mundo.access.access_campaign`` with the viewer's characters: the campaign with this
    slug and its ``CharacterViewer``, or ``NotFound``. Three queries signed in (campaign,
    role, characters), one anonymous."""
    campaign, viewer = access_campaign(user, slug=slug)
    return campaign, with_characters(campaign, viewer)


# --- Scenes -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SceneAccess:
    """What a viewer may do in a scene.

    ``can_read``/``can_post``; ``voices`` the voices they may post with (``Post.Voice`` values);
    ``characters`` the characters they may post as or roll for (participants the viewer plays,
    alive; for the master every living participant, or the diary's character); ``version`` the
    scene's ``SceneVersion`` when fetched ``with_version`` (else None).
    """

    scene: Scene
    viewer: CharacterViewer
    can_read: bool
    can_post: bool
    voices: tuple[str, ...]
    characters: tuple[Character, ...]
    version: SceneVersion | None = None

    @property
    def is_master(self) -> bool:
        return self.viewer.is_master


def scene_characters(scene: Scene) -> list[Character]:
    """The characters of a scene: its participants (story) or the diary's character."""
    if scene.kind == Scene.Kind.DIARY:
        return [scene.diary_character] if scene.diary_character else []
    if scene.kind == Scene.Kind.STORY:
        return list(scene.participants.all())
    return []


def scene_access(scene: Scene, viewer: CharacterViewer) -> SceneAccess:
    """Decide what ``viewer`` may do in ``scene`` (see the module docstring for the rules).

    Uses ``scene.participants`` (prefetch it to avoid a query) and ``scene.diary_character``.
    """
    kind = scene.kind
    characters = scene_characters(scene)
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


def scenes_readable_q(viewer: CharacterViewer) -> Q:
    """The scenes ``viewer`` may read, as a filter on Scene (same rules as ``scene_access``)."""
    if viewer.is_master:
        return Q()
    public_story = Q(kind=Scene.Kind.STORY, readers=Scene.Readers.PUBLIC)
    if not viewer.is_member:
        # Participation counts for members only: a former member whose character still takes
        # part reads what an outsider reads (as in ``scene_access``).
        return public_story & Q(campaign__is_public=True)
    # By player and campaign, not ``character_ids``: 500 ids would bind 1 000 parameters.
    uid = viewer.user_id
    mine = {"character__player_id": uid, "character__campaign_id": OuterRef("campaign_id")}
    joined = Scene.participants.through.objects.filter(scene_id=OuterRef("pk"), **mine)
    own_diary = Q(diary_character__player_id=uid, diary_character__campaign_id=F("campaign_id"))
    return (
        public_story
        | Q(kind=Scene.Kind.STORY, readers=Scene.Readers.MEMBERS)
        | (Q(kind=Scene.Kind.STORY) & Exists(joined))
        | Q(kind=Scene.Kind.OFFTOPIC)
        | (Q(kind=Scene.Kind.DIARY) & own_diary)
    )


def _scene_campaign_slug(pk: int | str) -> str:
    scene_id = row_id(pk)
    found = (
        Scene.objects.filter(pk=scene_id).values_list("campaign__slug", flat=True).first()
        if scene_id is not None
        else None
    )
    if found is None:
        raise NotFound("No such scene")
    return found


def _signed_in(user: AnyUser | None) -> bool:
    return user is not None and user.is_authenticated


def _viewer_annotations(user_id: int | None) -> dict[str, Any]:
    """The viewer's membership role and their characters in the scene's campaign (``"id:status"``
    joined by commas) as subqueries on Scene: what ``access_campaign_viewer`` reads in three
    queries. Nothing for anonymous visitors (``user_id`` None)."""
    if user_id is None:
        return {}
    role = Membership.objects.filter(campaign=OuterRef("campaign_id"), user_id=user_id)
    pairs = Concat(Cast("id", CharField()), Value(":"), "status", output_field=CharField())
    characters = (
        Character.objects.filter(campaign=OuterRef("campaign_id"), player_id=user_id)
        .order_by()
        .values("player")
        .annotate(s=StringAgg(pairs, delimiter=Value(",")))
        .values("s")
    )
    return {
        "viewer_role": Subquery(role.values("role")[:1]),
        "viewer_characters": Subquery(characters[:1]),
    }


def _scene_viewer(scene: Scene, user: AnyUser | None) -> CharacterViewer:
    """The ``CharacterViewer`` from ``_viewer_annotations``; ``NotFound`` when the campaign is
    not readable by the user (``mundo.access.campaigns_visible_to``: public, or a member)."""
    role = getattr(scene, "viewer_role", None)
    if not (scene.campaign.is_public or role is not None):
        raise NotFound("No such scene")
    rows = []
    for pair in (getattr(scene, "viewer_characters", None) or "").split(","):
        if pair:
            pk, status = pair.split(":", 1)
            rows.append((int(pk), status))
    return character_viewer_from_rows(user if _signed_in(user) else AnonymousUser(), role, rows)


def access_scene(
    user: AnyUser | None,
    pk: int | str,
    *,
    campaign: Campaign | None = None,
    slug: str | None = None,
    viewer: CharacterViewer | None = None,
    master: bool = False,
    with_version: bool = False,
    page_state: bool = False,
    one_query: bool = False,
) -> SceneAccess:
    """The scene ``pk`` of a campaign with what ``user`` may do there.

    The campaign is ``campaign`` (already fetched through ``mundo.access.access_campaign``), the
    one with ``slug``, or (neither given, as in the API's /scenes/{id}/) the scene's own, both
    fetched here through ``access_campaign``; ``viewer`` is an already built viewer of that
    campaign. Raises ``NotFound`` when the campaign or the scene is not readable by the
    user or does not exist (its existence is not revealed), and with ``master`` when the user
    is not the campaign's master (master pages do not reveal themselves). Queries: the viewer
    (2), the scene with its diary character (1), its participants (1); the campaign (1) with
    ``slug`` (or with neither, one more for the scene's campaign).

    ``with_version`` (no ``campaign``; ``slug`` or, in the API, the scene's own): the scene
    page's and the poll's one query instead, the scene with its campaign, the viewer's role and
    characters, the posts' ``SceneVersion`` and the read marker (``access.version``), then the
    participants (1). With ``page_state`` too (the scene page, not the poll), the version
    also says whether the scene has a pending roll request and the viewer a draft there (the
    page reads them only then: ``SceneVersion.requests``, ``SceneVersion.draft``).
    ``one_query`` (no ``campaign``): the same two queries without the version (its post counts
    are subqueries over the scene's posts), ``access.version`` None: the API, which keeps its
    pages by its own check (``escenas.api_pages``), the combat panel's refresh, and writes.
    """
    if (with_version or one_query) and campaign is None:
        return _access_scene_one_query(
            user, pk, slug=slug, master=master, version=with_version, page=page_state
        )
    if campaign is None:
        if slug is None:
            slug = _scene_campaign_slug(pk)
        campaign, viewer = access_campaign_viewer(user, slug=slug)
    if viewer is None:
        viewer = character_viewer_for(campaign, user)
    try:
        scene = _scene_queryset().filter(campaign=campaign, pk=int(pk)).order_by("pk").first()
    except (ValueError, TypeError):
        scene = None
    if scene is None:
        raise NotFound("No such scene")
    _campaign_read_once(scene)
    _story_participants(scene)
    access = scene_access(scene, viewer)
    if not access.can_read or (master and not access.is_master):
        raise NotFound("No such scene")
    return access


def _access_scene_one_query(
    user: AnyUser | None,
    pk: int | str,
    *,
    slug: str | None,
    master: bool,
    version: bool,
    page: bool = False,
) -> SceneAccess:
    """``access_scene(..., with_version=True)`` or ``one_query=True``: see there."""
    values: dict[str, int | str] = {"pk": row_id(pk) or 0}
    if slug is not None:
        values["slug"] = slug
    if user is not None and user.is_authenticated:
        values["user_id"] = int(user.pk)
    found = _SCENE_WITH_VIEWER.rows(version, version and page, **values)
    if not found:
        raise NotFound("No such scene")
    scene = found[0]
    _campaign_read_once(scene)
    _story_participants(scene)
    viewer = _scene_viewer(scene, user)
    access = scene_access(scene, viewer)
    if not access.can_read or (master and not access.is_master):
        raise NotFound("No such scene")
    return replace(access, version=scene_version.scene_version(scene, user)) if version else access


def _scene_with_viewer(
    version: bool, page: bool, *, pk: int, slug: str | None = None, user_id: int | None = None
) -> QuerySet[Scene]:
    """The scene ``pk`` (of the campaign ``slug`` when given) with its campaign, diary
    character, the viewer's role and characters (``_viewer_annotations``) and, with
    ``version``, its ``SceneVersion`` columns (``page``: the scene page's too): at most one
    row, ordered by its key alone (the scenes' list order would be compiled and sorted for
    nothing)."""
    scenes = _scene_queryset() if slug is None else _scene_queryset().filter(campaign__slug=slug)
    versions = scene_version.version_annotations(user_id, page=page) if version else {}
    annotations = _viewer_annotations(user_id) | versions
    return scenes.filter(pk=pk).annotate(**annotations).order_by("pk")[:1]


# Built and compiled once per shape: every scene page, poll, API read and combat panel asks it.
_SCENE_WITH_VIEWER = CompiledQuery(_scene_with_viewer)


def _campaign_read_once(scene: Scene) -> None:
    """A diary's character is of the scene's campaign: it gets the row already read, so what
    reads ``character.campaign`` (the diary page's forecast) asks for it no second time."""
    character = scene.diary_character
    if character is not None and character.campaign_id == scene.campaign_id:
        character.campaign = scene.campaign


def _scene_queryset() -> QuerySet[Scene]:
    """Scenes with what ``scene_access`` and the scene page read: the campaign and the diary's
    character (the participants apart: ``_story_participants``)."""
    return Scene.objects.select_related("campaign", "diary_character")


def _story_participants(scene: Scene) -> None:
    """A story scene's participants by name, read into it (one query, compiled once), as the
    scene page and ``scene_access`` read them; none for the other kinds, whose characters are
    not participants (``scene_characters``): a diary or the off-topic scene asks for none."""
    if scene.kind == Scene.Kind.STORY:
        prefetched(scene, "participants", _PARTICIPANTS.rows(scene_id=scene.pk))


def _participants(*, scene_id: int) -> QuerySet[Character]:
    return Character.objects.filter(scenes=scene_id).order_by("name")


_PARTICIPANTS = CompiledQuery(_participants)


def campaign_memberships(campaign_ids: Iterable[int]) -> dict[int, list[Membership]]:
    """The memberships of each campaign, with their users (and the users' reader settings, the
    language and time zone of their e-mails), keyed by campaign id. One query."""
    out: dict[int, list[Membership]] = {cid: [] for cid in campaign_ids}
    for m in Membership.objects.filter(campaign_id__in=list(out)).select_related(
        "user", "user__reader_settings"
    ):
        out[m.campaign_id].append(m)
    return out


def whisper_candidates(access: SceneAccess) -> list[Any]:
    """Members who may read the scene and could receive a whisper (not the viewer), by name.

    One query for the memberships and, for a participants-only story scene, the participants
    (already prefetched); none in a diary or notes scene, where nobody else may be whispered.
    """
    scene = access.scene
    if scene.kind in (Scene.Kind.DIARY, Scene.Kind.NOTES):
        return []
    members = list(
        Membership.objects.filter(campaign_id=scene.campaign_id)
        .select_related("user")
        .order_by("user__username")
    )
    out = []
    participant_players = {c.player_id for c in scene_characters(scene)}
    only_participants = (
        scene.kind == Scene.Kind.STORY and scene.readers == Scene.Readers.PARTICIPANTS
    )
    for m in members:
        if m.user_id == access.viewer.user_id or is_master_role(m.role):
            continue  # the master reads every whisper anyway
        if only_participants and m.user_id not in participant_players:
            continue
        out.append(m.user)
    return out


def scene_is_public(scene: Scene) -> bool:
    """True when anonymous visitors may read the scene (its feed needs no token)."""
    return (
        scene.campaign.is_public
        and scene.kind == Scene.Kind.STORY
        and scene.readers == Scene.Readers.PUBLIC
    )


def scene_participant_users(
    scene: Scene, memberships: Sequence[Membership] | None = None
) -> list[Any]:
    """The users a new post in the scene notifies (``scene_participant_ids``), in that order.
    One query for members (none when ``memberships``, the campaign's memberships with their
    users, is given) plus the participants (prefetched)."""
    if memberships is None:
        memberships = list(
            Membership.objects.filter(campaign_id=scene.campaign_id).select_related("user")
        )
    users = {m.user_id: m.user for m in memberships}
    players = {c.player_id for c in scene_characters(scene)}
    members = CampaignMembers.of([(m.user_id, m.role) for m in memberships])
    return [users[pk] for pk in scene_participant_ids(scene.kind, players, members)]


# --- Posts ------------------------------------------------------------------------------------


def posts_visible_q(viewer: CharacterViewer) -> Q:
    """The posts ``viewer`` may see inside a scene they may read, as a filter on Post."""
    if viewer.is_master:
        return Q()
    if viewer.user_id is None:
        return Q(deleted_at__isnull=True, is_whisper=False)
    recipient = Exists(
        Post.whisper_to.through.objects.filter(post_id=OuterRef("pk"), user_id=viewer.user_id)
    )
    return Q(deleted_at__isnull=True) & (
        Q(is_whisper=False) | Q(author_id=viewer.user_id) | Q(recipient)
    )


def visible_posts(scene: Scene, viewer: CharacterViewer) -> QuerySet[Post]:
    """The posts of ``scene`` that ``viewer`` may see, bare: no join, no order.

    It filters only on columns of the ``post_scene_id`` index (scene, id, author, deleted_at,
    is_whisper), so a page of its ids in id order is an index-only read of this scene's posts
    alone. Page by these ids, then fetch the page's rows by pk (``pk__in``): asked for the full
    rows ``ORDER BY id LIMIT n``, PostgreSQL walks the primary key instead and filters out every
    post of the campaign's other scenes written before (or, newest first, after) this scene's,
    a cost that grows with the campaign's history (6 900 rows and 3–4 ms at the list
    benchmark's size for a scene's first API page; issue 14)."""
    return Post.objects.filter(scene=scene).filter(posts_visible_q(viewer))


def post_visible_to(post: Post, viewer: CharacterViewer, access: SceneAccess | None = None) -> bool:
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


@dataclass(frozen=True, slots=True)
class ReplyTarget:
    """What a post's reply line reads of the post it answers (``reply_annotations``)."""

    pk: int
    speaker_name: str
    is_whisper: bool
    deleted_at: Any


def as_campaign_post(
    post: Post,
    *,
    post_rolls: Sequence[PostRoll],
    whisper_to: Iterable[Any],
    reply: ReplyTarget | None,
) -> Post:
    """Give ``post``, written just now with its ``character``, ``author``, ``scene``,
    ``campaign`` and ``npc`` objects, the shape ``campaign_posts`` reads back: its roll links
    (each with its roll, the roll's character and trait, and its request) and whisper
    recipients as prefetched, in the prefetches' order, no revisions, the reply's annotations.
    ``escenas.selectors.post_view`` then shows it as it shows the stored row, with no query
    (the API's answer to a post: 4 queries fewer, issue 13). Returns ``post``."""
    prefetched(post, "post_rolls", sorted(post_rolls, key=lambda link: (link.position, link.pk)))
    prefetched(post, "whisper_to", sorted(whisper_to, key=lambda user: user.get_username()))
    post.revision_count = 0  # type: ignore[attr-defined]
    post.reply_speaker = reply.speaker_name if reply else None  # type: ignore[attr-defined]
    post.reply_whisper = reply.is_whisper if reply else None  # type: ignore[attr-defined]
    post.reply_deleted_at = reply.deleted_at if reply else None  # type: ignore[attr-defined]
    return post


def access_post(
    user: AnyUser | None, pk: int, *, campaign: Campaign, master: bool = False
) -> tuple[Post, SceneAccess]:
    """The post ``pk`` of the campaign (``campaign_posts`` shape) and its scene access, if
    ``user`` may see it (and, with ``master``, is the campaign's master); ``NotFound``
    otherwise (same answer whether it does not exist or is not visible)."""
    viewer = character_viewer_for(campaign, user)
    post = campaign_posts(campaign).filter(pk=pk).first()
    if post is None:
        raise NotFound("No such post")
    access = access_scene(user, post.scene_id, campaign=campaign, viewer=viewer)
    if not post_visible_to(post, viewer, access) or (master and not viewer.is_master):
        raise NotFound("No such post")
    return post, access


def access_post_roll(user: AnyUser | None, pk: int, *, campaign: Campaign) -> PostRoll:
    """A roll of a post of the campaign (with roll and post) if ``user`` is the master;
    ``NotFound`` otherwise (players do not learn which rolls exist)."""
    post_roll = (
        PostRoll.objects.select_related("roll", "post")
        .filter(pk=pk, post__campaign=campaign)
        .first()
    )
    if post_roll is None or not character_viewer_for(campaign, user).is_master:
        raise NotFound("No such roll")
    return post_roll


def access_roll(user: AnyUser | None, pk: int | str) -> tuple[Roll, PostRoll | None]:
    """The roll ``pk`` (``campaign``, ``character``, ``made_by``, ``trait`` select_related) and
    its post link, if ``user`` may see it.

    A roll in a post: whoever may see the post (``access_post``), and a hidden roll only the
    master. A roll made outside posts (from the sheet): ``personajes.access.access_roll`` (its
    character's player and the master). ``NotFound`` otherwise.
    """
    roll_id = row_id(pk)
    link = (
        PostRoll.objects.select_related("post__campaign", "roll").filter(roll_id=roll_id).first()
        if roll_id is not None
        else None
    )
    if link is None:
        return character_roll(user, pk), None
    campaign, _viewer = access_campaign(user, slug=link.post.campaign.slug)
    _post, access = access_post(user, link.post_id, campaign=campaign)
    if link.hidden and not access.is_master:
        raise NotFound("No such roll")
    roll = Roll.objects.select_related("campaign", "character", "made_by", "trait").get(
        pk=link.roll_id
    )
    return roll, link


def access_roll_request(pk: int, *, campaign: Campaign) -> RollRequest:
    """A roll request of the campaign with its scene; ``NotFound`` if there is none (the
    service checks who may withdraw it)."""
    found = (
        RollRequest.objects.select_related("scene", "scene__campaign")
        .filter(pk=pk, scene__campaign=campaign)
        .first()
    )
    if found is None:
        raise NotFound("No such request")
    return found


def access_diary(user: AnyUser | None, pk: int, *, campaign: Campaign) -> Character:
    """The campaign's character ``pk`` if ``user`` may read its diary (its player or the
    master); ``NotFound`` otherwise."""
    viewer = character_viewer_for(campaign, user)
    character = Character.objects.filter(campaign=campaign, pk=pk).first()
    if character is None or not (viewer.is_master or character.pk in viewer.character_ids):
        raise NotFound("No such diary")
    return character
