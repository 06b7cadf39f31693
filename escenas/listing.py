"""The scene list: the scenes of a campaign a viewer may read, in list order, a page at a time
(the scene list page and the API's), with the viewer's unread counts and each row's newest
post.

A page's queries are each built and compiled once per shape (``nucleo.compiled``): how many
scenes, the page's scenes, their participants, and their newest posts (the page's rows) or
their diaries' characters (the API's). Built on every request, they were the most of a
rendered scene list's Python work (issue 14).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from django.db.models import (
    Case,
    Count,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce

from escenas.access import posts_visible_q, scenes_readable_q
from escenas.models import Post, Scene, SceneRead
from escenas.rendering import plain_text, snippet
from mundo.models import Campaign
from nucleo.compiled import MAX_IDS, CompiledQuery, prefetched
from nucleo.urls import url_maker
from personajes.access import CharacterViewer, viewer_by_id
from personajes.models import Character

SCENE_LIST_SIZE = 50
"""Scenes per page of the scene list (page and API)."""

SCENE_KIND_ORDER = (Scene.Kind.STORY, Scene.Kind.OFFTOPIC, Scene.Kind.DIARY, Scene.Kind.NOTES)


@dataclass(frozen=True, slots=True)
class SceneRow:
    """A scene of the list with its address, the viewer's unread count and the last post they
    may see (its id, speaker, time and HTML only: what the row shows)."""

    scene: Scene
    url: str
    unread: int
    last_post: Post | None

    @property
    def preview(self) -> str:
        return snippet(plain_text(self.last_post.body_html), length=100) if self.last_post else ""


def scene_list(campaign: Campaign, viewer: CharacterViewer) -> QuerySet[Scene]:
    """Every scene of the campaign the viewer may read, in list order (story, off-topic,
    diaries, notes; each most recently active first, then by title), with the campaign, the
    diary's character and the participants by name (prefetched) and, signed in, the unread
    count (``_listed``). Lazy; for a page, ``ScenePages`` reads the same rows in compiled
    queries."""
    return (
        _listed(viewer.role, campaign_id=campaign.pk, user_id=viewer.user_id)
        .select_related("campaign")
        .prefetch_related(
            "diary_character",
            Prefetch("participants", queryset=Character.objects.order_by("name")),
        )
    )


def _readable(role: str | None, *, campaign_id: int, user_id: int | None) -> QuerySet[Scene]:
    viewer = viewer_by_id(role, user_id)
    return Scene.objects.filter(campaign_id=campaign_id).filter(scenes_readable_q(viewer))


def _listed(role: str | None, *, campaign_id: int, user_id: int | None = None) -> QuerySet[Scene]:
    """The scenes of the campaign ``campaign_id`` that the viewer (``role``, signed in as
    ``user_id``; None: anonymous) may read, in list order, bare (no relation).

    "Most recently active" is a stored column (``Scene.last_post_id`` for the master, who sees
    every post; ``Scene.last_public_post_id`` for everyone else: a whisper to a player or a
    post deleted later does not move the scene), kept by the writers of posts
    (``escenas.models.scene_last_posts``): the order reads no post. Signed in, each scene has
    its unread count (``unread_count``: a subquery with the same post filter as the scene
    page) and, for a player, the id of their newest whisper there (``my_whisper_id``, on the
    ``post_whisper`` partial index), which ``scene_rows`` shows when it is newer: the
    database orders and limits first, so both are computed for a page's rows only and a page
    costs the same with 5 scenes or 500."""
    viewer = viewer_by_id(role, user_id)
    visible = posts_visible_q(viewer)
    kind_order = Case(
        *(When(kind=k, then=Value(i)) for i, k in enumerate(SCENE_KIND_ORDER)),
        default=Value(9),
        output_field=IntegerField(),
    )
    newest = "last_post_id" if viewer.is_master else "last_public_post_id"
    qs = (
        _readable(role, campaign_id=campaign_id, user_id=user_id)
        .annotate(kind_order=kind_order)
        .order_by("kind_order", F(newest).desc(), "title", "id")
    )
    if user_id is not None:
        # Nested inside the post subquery below: the scene is the outer query's outer row.
        read = SceneRead.objects.filter(scene=OuterRef(OuterRef("pk")), user_id=user_id).values(
            "last_post_id"
        )[:1]
        unread = (
            Post.objects.filter(scene=OuterRef("pk"))
            .filter(visible)
            .exclude(author_id=user_id)
            .filter(pk__gt=Coalesce(read, 0))
            .order_by()  # no ordering column in the GROUP BY
            .values("scene")
            .annotate(n=Count("id"))
            .values("n")[:1]
        )
        qs = qs.annotate(unread_count=Coalesce(unread, 0, output_field=IntegerField()))
        if not viewer.is_master:
            whispers = Post.objects.filter(
                scene=OuterRef("pk"), is_whisper=True, deleted_at__isnull=True
            ).filter(visible)
            qs = qs.annotate(my_whisper_id=Subquery(whispers.order_by("-id").values("id")[:1]))
    return qs


def _counted(
    role: str | None, *, campaign_id: int, user_id: int | None = None
) -> QuerySet[Scene, int]:
    """How many scenes ``_listed`` holds: one row (none when there is no scene)."""
    readable = _readable(role, campaign_id=campaign_id, user_id=user_id).order_by()
    return readable.values("campaign").annotate(n=Count("id")).values_list("n", flat=True)


def _participants(*, ids: list[int]) -> QuerySet[Any]:
    """The participants of the scenes ``ids`` by name, each as its link row with the
    character's id, name and status (what the rows and ``scene_access`` read of one)."""
    links = Scene.participants.through.objects.filter(scene_id__in=ids).select_related("character")
    shown = ("scene_id", "character__id", "character__name", "character__status")
    return links.only(*shown).order_by("character__name", "character_id")


def _diary_characters(*, ids: list[int]) -> QuerySet[Character]:
    return Character.objects.filter(pk__in=ids).only("id", "status")


def _newest_posts(*, ids: list[int]) -> QuerySet[Post]:
    return Post.objects.filter(pk__in=ids).only("id", "speaker_name", "created_at", "body_html")


_COUNTED = CompiledQuery(_counted)
_LISTED = CompiledQuery(_listed)
_PARTICIPANTS = CompiledQuery(_participants)
_DIARY_CHARACTERS = CompiledQuery(_diary_characters)
_NEWEST_POSTS = CompiledQuery(_newest_posts)


class ScenePages(Sequence[Scene]):
    """``scene_list``'s scenes as Django's ``Paginator`` (and DRF's page-number pagination,
    which uses it) pages them: ``len()`` and ``[start:stop]``, one compiled query each (the
    bounds are parameters: one query for every page and page size); a page's scenes come with
    the campaign given, their participants by name (one more query) and, with ``diaries``,
    their diary's character (id and status: one more, for the API's ``scene_access``).
    Any slice reads them ``_CHUNK`` at a time."""

    def __init__(self, campaign: Campaign, viewer: CharacterViewer, *, diaries: bool = False):
        self._campaign = campaign
        self._role = viewer.role
        self._values = {"campaign_id": campaign.pk}
        if viewer.user_id is not None:  # the unread counts are the user's
            self._values["user_id"] = viewer.user_id
        # Which scenes are readable depends on the user for a player only (the master reads
        # all, an outsider the public ones): the count passes the user's id only then.
        self._counted = dict(self._values)
        if viewer.is_master or not viewer.is_member:
            self._counted.pop("user_id", None)
        self._diaries = diaries

    def __len__(self) -> int:
        """How many scenes the list holds (a query each time: the paginator asks once)."""
        found = _COUNTED.rows(self._role, **self._counted)
        return found[0] if found else 0

    def __iter__(self) -> Iterator[Scene]:
        return iter(self._window(0, len(self)))

    @overload
    def __getitem__(self, index: int) -> Scene: ...

    @overload
    def __getitem__(self, index: slice) -> list[Scene]: ...

    def __getitem__(self, index: int | slice) -> Scene | list[Scene]:
        """The scene at ``index`` (negative: from the end), or the scenes of a slice of
        non-negative bounds and no step, as the paginator asks; ``IndexError`` past the end,
        ``ValueError`` for another slice."""
        if isinstance(index, int):
            at = index + len(self) if index < 0 else index
            found = self._window(at, at + 1) if at >= 0 else []
            if not found:
                raise IndexError(index)
            return found[0]
        start, stop = index.start or 0, index.stop
        if index.step is not None or start < 0 or (stop is not None and stop < 0):
            raise ValueError("ScenePages takes a slice of non-negative bounds and no step")
        return self._window(start, len(self) if stop is None else stop)

    def _window(self, start: int, stop: int) -> list[Scene]:
        """The scenes ``start`` to ``stop``, ``_CHUNK`` at a time (their ids are one list)."""
        scenes: list[Scene] = []
        for at in range(start, stop, _CHUNK):
            chunk = self._chunk(at, min(stop, at + _CHUNK))
            scenes += chunk
            if len(chunk) < min(stop, at + _CHUNK) - at:  # the list ended
                break
        return scenes

    def _chunk(self, start: int, stop: int) -> list[Scene]:
        scenes: list[Scene] = _LISTED.window(start, stop, self._role, **self._values)
        if not scenes:
            return scenes
        found: defaultdict[int, list[Character]] = defaultdict(list)
        for link in _PARTICIPANTS.rows(ids=[s.pk for s in scenes]):
            found[link.scene_id].append(link.character)
        diaries = {}
        if self._diaries and (
            ids := [s.diary_character_id for s in scenes if s.diary_character_id]
        ):
            diaries = {c.pk: c for c in _DIARY_CHARACTERS.rows(ids=ids)}
        for scene in scenes:
            scene.campaign = self._campaign
            prefetched(scene, "participants", found[scene.pk])
            if self._diaries and scene.diary_character_id:
                scene.diary_character = diaries.get(scene.diary_character_id)
        return scenes


_CHUNK = MAX_IDS
"""Scenes read at a time by ``ScenePages``: their ids are one list value of a compiled query
(a page of the API's, 500 at most, is one chunk)."""


def _last_visible_id(scene: Scene, viewer: CharacterViewer) -> int:
    """The id of the newest post of a ``scene_list`` row that ``viewer`` may see (0: none)."""
    if viewer.is_master:
        return scene.last_post_id
    return max(scene.last_public_post_id, getattr(scene, "my_whisper_id", None) or 0)


def scene_rows(
    scenes: Iterable[Scene], viewer: CharacterViewer, campaign: Campaign
) -> list[SceneRow]:
    """The rows of a page of ``scene_list`` (scenes of ``campaign``): each scene with its
    address (one ``reverse`` for the page), its unread count and the newest post ``viewer``
    may see (one compiled query for those posts, the columns a row shows)."""
    scenes = list(scenes)
    last_ids = {s.pk: _last_visible_id(s, viewer) for s in scenes}
    wanted = [pk for pk in last_ids.values() if pk]
    last_posts = {p.pk: p for p in _NEWEST_POSTS.rows(ids=wanted)} if wanted else {}
    url_of = url_maker("escenas:scene", "pk", slug=campaign.slug)
    return [
        SceneRow(
            scene=s,
            url=url_of(s.pk),
            unread=getattr(s, "unread_count", 0) or 0,
            last_post=last_posts.get(last_ids[s.pk]),
        )
        for s in scenes
    ]
