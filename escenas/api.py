"""REST API of scenes: the scene list, posts (cursor-paginated, with their rolls and dice),
writing a post with a roll (idempotent), diary posts. Rolls, thresholds and roll requests are in
``escenas.api_rolls``.

Every scene goes through ``escenas.access.access_scene`` (its campaign through
``mundo.access.access_campaign``), every post list through ``scene_posts`` and ``post_view``,
every write through ``escenas.services``: the pages' own checks, so the API shows and allows
exactly what the pages do. ``NotFound``/``Forbidden`` become 404/403 in
``partida.api.exception_handler``.

Source: RULES.md R2–R4 (rolls in posts), R25 (diaries); DESIGN.md (idempotency).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import prefetch_related_objects
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import generics, pagination, serializers, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.exceptions import ValidationError as DrfValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from escenas import api_pages, listing, selectors, services
from escenas.access import (
    SceneAccess,
    access_campaign_viewer,
    access_scene,
    post_visible_to,
    scene_access,
    scene_characters,
    visible_posts,
)
from escenas.api_post_data import post_data
from escenas.api_roll_spec import PostCreateSerializer
from escenas.models import NonPlayerCharacter, Post, Scene
from escenas.post_queries import campaign_posts
from mundo.api import PageNumberPagination, errors
from nucleo import api_answers
from nucleo.errors import Forbidden, NotFound
from personajes import api as personajes_api
from personajes import api_rolls as roll_api
from personajes.models import Character

# --- fetching through the pages' checks --------------------------------------------------------


def scene_access_for_api(pk: int | str, user: Any) -> SceneAccess:
    """The scene ``pk`` with what ``user`` may do there (``escenas.access.access_scene``, its
    campaign through ``access_campaign``); ``NotFound`` (the API's 404) when either is not
    readable: a hidden scene's existence is not revealed. One query and the participants'
    (``one_query``): no ``SceneVersion``, which no API view reads (its pages are kept by
    ``escenas.api_pages``'s own range check), so no count over the scene's posts."""
    return access_scene(user, pk, one_query=True)


def as_drf(exc: DjangoValidationError, fields: dict[str, str]) -> DrfValidationError:
    """A service's ServiceError as a DRF 400 whose keys are the request's own field names
    (``fields`` maps the service's names to them; dotted paths nest: ``roll.threshold``, and
    ``rolls.1.expression`` is ``{"rolls": {"1": {"expression": […]}}}``, as DRF reports a
    list's items)."""
    detail: dict[str, Any] = {}
    if hasattr(exc, "error_dict"):
        for name, problems in exc.message_dict.items():
            path = fields.get(name, "non_field_errors" if name == "__all__" else name).split(".")
            target = detail
            for part in path[:-1]:  # an index too: DRF's own shape, {"rolls": {"1": {…}}}
                target = target.setdefault(part, {})
            target.setdefault(path[-1], []).extend(problems)
    else:
        detail["non_field_errors"] = exc.messages
    return DrfValidationError(detail)


# --- scenes ------------------------------------------------------------------------------------


class SceneSerializer(serializers.Serializer):
    """A scene I may read, with my unread count and what I may do in it."""

    id = serializers.IntegerField(source="scene.pk", read_only=True)
    kind = serializers.ChoiceField(
        source="scene.kind",
        choices=Scene.Kind.choices,
        read_only=True,
        help_text=gettext_lazy(
            "story, offtopic (out of character), diary (a character's) or notes (the master's)."
        ),
    )
    title = serializers.CharField(source="scene.title", read_only=True)
    summary = serializers.CharField(
        source="scene.summary", read_only=True, help_text=gettext_lazy("The master's summary.")
    )
    readers = serializers.ChoiceField(
        source="scene.readers",
        choices=Scene.Readers.choices,
        read_only=True,
        help_text=gettext_lazy("Story scenes: who reads besides the participants and the master."),
    )
    participants = serializers.SerializerMethodField(
        help_text=gettext_lazy("Ids of the participating characters (story scenes).")
    )
    diary_character = serializers.IntegerField(
        source="scene.diary_character_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("The diary's character id (diary scenes), else null."),
    )
    last_post_at = serializers.DateTimeField(
        source="scene.last_post_at",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("When the last post was written (ISO 8601), or null."),
    )
    unread = serializers.IntegerField(
        read_only=True, help_text=gettext_lazy("Posts I have not read yet (0 for anonymous).")
    )
    can_post = serializers.SerializerMethodField(
        help_text=gettext_lazy("Whether I may write in it.")
    )

    @extend_schema_field({"type": "array", "items": {"type": "integer"}})
    def get_participants(self, row: listing.SceneRow) -> list[int]:
        return [c.pk for c in row.scene.participants.all()]

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_can_post(self, row: listing.SceneRow) -> bool:
        return scene_access(row.scene, self.context["viewer"]).can_post


@extend_schema(
    tags=["scenes"],
    summary="A campaign's scenes",
    description="The scenes I may read (story, off-topic, diaries, the master's notes), story "
    "scenes first, most recently active first, with my unread counts.",
    responses={200: SceneSerializer(many=True), **errors(404)},
)
class SceneListView(generics.ListAPIView):
    """GET /api/v1/campaigns/{slug}/scenes/ — ``escenas.listing.scene_list``, a page at a time
    (``listing.ScenePages``)."""

    serializer_class = SceneSerializer
    pagination_class = PageNumberPagination
    queryset = Scene.objects.none()  # for the schema; rows come from listing.ScenePages

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # Kept while nothing it read changed (``nucleo.api_answers``). The database limits
        # the scenes to one page; only that page becomes rows, as plain dicts (``scene_data``:
        # the serializer's answer without DRF's per-field calls).
        key = api_answers.answer_key(request, "scenes")
        if (kept := api_answers.stored_answer(key)) is not None:
            return Response(kept)
        with api_answers.recording(request, key) as rec:
            campaign, viewer = access_campaign_viewer(request.user, slug=self.kwargs["slug"])
            # What ``scene_access`` reads of the characters (id, status): the list shows no
            # preview, so no last post either (``scene_rows`` is the page's).
            scenes = listing.ScenePages(campaign, viewer, diaries=True)
            page = self.paginate_queryset(scenes)
            assert page is not None  # pagination_class is set
            response = self.get_paginated_response([scene_data(s, viewer) for s in page])
            api_answers.keep(rec, response.data)
        return response


_DATETIME = serializers.DateTimeField()


def scene_data(scene: Scene, viewer: Any) -> dict[str, Any]:
    """``SceneSerializer``'s answer for a ``scene_list`` row: the same keys in the same order
    and the same values (``tests/api/test_api_lists.py`` holds the two equal)."""
    return {
        "id": scene.pk,
        "kind": scene.kind,
        "title": scene.title,
        "summary": scene.summary,
        "readers": scene.readers,
        "participants": [c.pk for c in scene.participants.all()],
        "diary_character": scene.diary_character_id,
        "last_post_at": (
            None if scene.last_post_at is None else _DATETIME.to_representation(scene.last_post_at)
        ),
        "unread": getattr(scene, "unread_count", 0) or 0,
        "can_post": scene_access(scene, viewer).can_post,
    }


# --- posts -------------------------------------------------------------------------------------


class PostRollSerializer(serializers.Serializer):
    """A roll of a post. ``roll`` is null when it is hidden from me (``masked``)."""

    id = serializers.SerializerMethodField(
        help_text=gettext_lazy("The roll's id; null when it is hidden from me (``masked``).")
    )
    hidden = serializers.BooleanField(
        read_only=True, help_text=gettext_lazy("Hidden from players: its dice are the master's.")
    )
    masked = serializers.BooleanField(
        read_only=True, help_text=gettext_lazy("Hidden from me: no dice shown.")
    )
    request = serializers.IntegerField(
        source="post_roll.request_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("The master's roll request it answers, or null."),
    )
    roll = roll_api.RollSerializer(read_only=True, allow_null=True)

    @extend_schema_field({"type": "integer", "nullable": True})
    def get_id(self, view: selectors.RollView) -> int | None:
        # A masked roll is a whole secret: not even its id (its kind is in ``roll``, null).
        return None if view.masked else view.post_roll.roll_id


class PostSerializer(serializers.Serializer):
    """A post as I may see it: the text, who speaks, its rolls with every die."""

    id = serializers.IntegerField(source="post.pk", read_only=True)
    scene = serializers.IntegerField(
        source="post.scene_id", read_only=True, help_text=gettext_lazy("Id of its scene.")
    )
    author = serializers.SerializerMethodField(help_text=gettext_lazy("Username of who wrote it."))
    voice = serializers.ChoiceField(
        source="post.voice",
        choices=Post.Voice.choices,
        read_only=True,
        help_text=gettext_lazy("Who speaks: character, player, narrator or npc."),
    )
    character = serializers.IntegerField(
        source="post.character_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("Id of the character speaking, or null."),
    )
    speaker_name = serializers.CharField(
        source="post.speaker_name", read_only=True, help_text=gettext_lazy("The name shown.")
    )
    by_master = serializers.BooleanField(
        source="post.by_master", read_only=True, help_text=gettext_lazy("Written by the master.")
    )
    body = serializers.CharField(
        source="post.body", read_only=True, help_text=gettext_lazy("Markdown source.")
    )
    body_html = serializers.CharField(
        source="post.body_html", read_only=True, help_text=gettext_lazy("Sanitised HTML.")
    )
    note_html = serializers.CharField(
        read_only=True,
        help_text=gettext_lazy("The note to the master (HTML): for its author and the master."),
    )
    is_whisper = serializers.BooleanField(
        source="post.is_whisper",
        read_only=True,
        help_text=gettext_lazy("Only its author, its recipients and the master see it."),
    )
    whisper_to = serializers.ListField(
        source="whisper_names",
        child=serializers.CharField(),
        read_only=True,
        help_text=gettext_lazy("Usernames a whisper is for."),
    )
    day = serializers.IntegerField(
        source="post.day", read_only=True, help_text=gettext_lazy("In-game day it was written.")
    )
    created_at = serializers.DateTimeField(
        source="post.created_at", read_only=True, help_text=gettext_lazy("ISO 8601.")
    )
    edited_at = serializers.DateTimeField(
        source="post.edited_at",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("Last edit (ISO 8601), or null."),
    )
    edited_after_roll = serializers.BooleanField(
        source="post.edited_after_roll",
        read_only=True,
        help_text=gettext_lazy("The text changed after its dice were rolled."),
    )
    deleted = serializers.BooleanField(
        read_only=True, help_text=gettext_lazy("Deleted (only the master sees deleted posts).")
    )
    rolls = PostRollSerializer(
        many=True, read_only=True, help_text=gettext_lazy("Its rolls, in order.")
    )
    reply_to = serializers.IntegerField(
        source="reply.post_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy(
            "Id of the post it answers, or null (also when I may not be told which: a whisper "
            "or a deleted post)."
        ),
    )
    reply_to_speaker = serializers.CharField(
        source="reply.speaker_name",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("The name shown on the post it answers, or null."),
    )

    @extend_schema_field({"type": "string", "nullable": True})
    def get_author(self, view: selectors.PostView) -> str | None:
        return view.post.author.get_username() if view.post.author else None


class PostCursorPagination(pagination.CursorPagination):
    """``?cursor=`` links: oldest first, 20 a page (``?page_size=`` up to 100); stable while
    posts are added."""

    ordering = "id"
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100


def with_rolls(posts: list[Post], access: SceneAccess) -> None:
    """What ``RollSerializer`` reads of the posts' rolls beyond ``scene_posts``'s prefetches:
    their makers (one query for the page) and their campaign (the scene's: no query)."""
    rolls = [link.roll for post in posts for link in post.post_rolls.all()]
    prefetch_related_objects(rolls, "made_by")
    for roll in rolls:
        roll.campaign = access.scene.campaign


class _PostListMixin(generics.GenericAPIView):
    """Lists the visible posts of a scene (``post_page``'s access) as ``post_view`` shows
    them."""

    serializer_class = PostSerializer
    pagination_class = PostCursorPagination
    filter_backends = []

    def post_page(
        self, name: str, pk: int, find_access: Callable[[], SceneAccess | None]
    ) -> Response:
        """The page of posts of the list ``name`` of ``pk`` (``api_pages.page_key``); a
        closed page is kept and served from the cache while nothing it shows changed, what
        ``find_access`` (the access check, raising the API's 404; None: no scene yet, an
        empty list) read included (``escenas.api_pages``). No read marker: the list has no
        "new"."""
        key = api_pages.page_key(self.request, name, pk)
        if (kept := api_pages.stored_page(key)) is not None:
            return Response(kept)
        with api_pages.recording(key) as rec:
            access = find_access()
            if access is None:
                self.paginate_queryset(Post.objects.none())
                return self.get_paginated_response([])
            with api_pages.one_snapshot(rec):
                # The page's ids first, on the scene's index (``visible_posts`` says why),
                # then their rows.
                visible = visible_posts(access.scene, access.viewer)
                ids = self.paginate_queryset(visible.values("id"))
                assert ids is not None  # pagination_class is set
                posts = selectors.scene_posts(access.scene, access.viewer)
                page = list(posts.filter(pk__in=[row["id"] for row in ids]))
                with_rolls(page, access)
                views = [selectors.post_view(p, access.viewer) for p in page]
                # Plain dicts, the serializer's answer (``escenas.api_post_data``).
                response = self.get_paginated_response([post_data(v) for v in views])
                data = {**response.data, "results": list(response.data["results"])}
                api_pages.keep(rec, access.scene, data, self.paginator)
        return response


@extend_schema(tags=["scenes"])
class ScenePostListView(_PostListMixin, generics.GenericAPIView):
    """GET: the scene's posts I may see (cursor-paginated). POST: write one, with a roll."""

    @extend_schema(
        summary="A scene's posts",
        description="The posts I may see, oldest first, with their rolls and every die "
        "(whispers only for their author, recipients and the master; a hidden roll's dice "
        "only for the master). Cursor pagination: follow ``next``.",
        parameters=[
            OpenApiParameter("cursor", OpenApiTypes.STR, description="From ``next``/``previous``.")
        ],
        responses={200: PostSerializer(many=True), **errors(400, 404)},
    )
    def get(self, request: Request, pk: int) -> Response:
        return self.post_page("scene", pk, lambda: scene_access_for_api(pk, request.user))

    @extend_schema(
        summary="Write a post (with a roll)",
        description="Writes a post as the request's user; its roll is made on the server now "
        "(dice, outcomes and authors cannot be sent: such keys are refused with 400). Send an "
        "``Idempotency-Key`` header (or ``idempotency_key``): a retry with the same key returns "
        "the post already written, with 200 instead of 201, and rolls nothing again. 404 when I "
        "may not read the scene, 403 when I may read but not write in it.",
        request=PostCreateSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="8–64 characters of letters, digits and _.:-",
            )
        ],
        responses={
            201: PostSerializer,
            200: OpenApiResponse(PostSerializer, description="A retry: the same post."),
            **errors(400, 403, 404),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        access = scene_access_for_api(pk, request.user)
        if not access.can_post:
            raise Forbidden(_("You cannot write in this scene."))
        form = PostCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        key = data.get("idempotency_key")
        header = request.headers.get("Idempotency-Key")
        if header is not None:
            try:  # the header is checked like the field
                key = form.fields["idempotency_key"].run_validation(header)
            except DrfValidationError as exc:
                raise DrfValidationError({"idempotency_key": exc.detail}) from None
        if not key:
            raise DrfValidationError(
                {"idempotency_key": [_("Send an Idempotency-Key header or this field.")]}
            )
        try:
            made, created = services.post_create(
                access=access,
                author=request.user,
                idempotency_key=key,
                body=data.get("body", ""),
                voice=data.get("voice", Post.Voice.PLAYER),
                character=self._character(access, data.get("character"), "character"),
                npc_name=data.get("npc_name", ""),
                npc=self._npc(access, data.get("npc")),
                note_to_master=data.get("note_to_master", ""),
                roll=self._roll_spec(access, data.get("roll"), "roll"),
                rolls=[
                    spec
                    for i, one in enumerate(data.get("rolls") or [])
                    if (spec := self._roll_spec(access, one, "rolls", i)) is not None
                ],
                whisper=data.get("whisper", False),
                whisper_to=self._users(data.get("whisper_to", [])),
                fulfil=data.get("fulfil", []),
                reply_to=data.get("reply_to"),
            )
        except DjangoValidationError as exc:
            raise as_drf(exc, {"voice": "as"} if "as" in request.data else {}) from None
        # A new post comes back in the list's shape (``services.post_create``: no query); a
        # retry is read back under the access checked above (issue 13: no second access check),
        # and one of a post deleted since is not shown, as before.
        post = made if created else campaign_posts(access.scene.campaign).get(pk=made.pk)
        if not post_visible_to(post, access.viewer, access):
            raise NotFound()
        with_rolls([post], access)
        body = PostSerializer(selectors.post_view(post, access.viewer)).data
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @staticmethod
    def _users(usernames: list[str]) -> list[int]:
        """User ids for usernames; an unknown name becomes 0, which the service refuses under
        ``whisper_to`` like any user who may not read the whisper."""
        if not usernames:
            return []
        ids = dict(
            get_user_model().objects.filter(username__in=usernames).values_list("username", "pk")
        )
        return [ids.get(name, 0) for name in usernames]

    @staticmethod
    def _character(access: SceneAccess, pk: int | None, *path: str | int) -> Character | None:
        """A character of the scene's campaign by id (the service decides whether it may speak
        or roll here); 400 under ``path`` when there is none (an int is a list's index)."""
        if pk is None:
            return None
        campaign_id = access.scene.campaign_id
        # The scene's own characters are fetched with its access already (no query); any
        # other character of the campaign is looked up (the service then refuses it).
        found = (
            next(
                (
                    c
                    for c in scene_characters(access.scene)
                    if c.pk == pk and c.campaign_id == campaign_id
                ),
                None,
            )
            or Character.objects.filter(pk=pk, campaign_id=campaign_id).first()
        )
        if found is None:
            message: Any = [_("That character is not in this scene.")]
            for part in reversed(path):
                message = {str(part): message}
            raise DrfValidationError(message)
        return found

    @staticmethod
    def _npc(access: SceneAccess, pk: int | None) -> NonPlayerCharacter | None:
        """One of the campaign's NPCs by id; 400 under ``npc`` when there is none."""
        if pk is None:
            return None
        found = NonPlayerCharacter.objects.filter(pk=pk, campaign_id=access.scene.campaign_id)
        if (npc := found.first()) is None:
            raise DrfValidationError(
                {"npc": [_("Choose a non-player character of this campaign.")]}
            )
        return npc

    def _roll_spec(
        self, access: SceneAccess, spec: dict[str, Any] | None, *path: str | int
    ) -> services.RollSpec | None:
        if not spec:
            return None
        # The roll object's keys are the service's RollSpec fields (one vocabulary).
        character = self._character(access, spec.get("character"), *path, "character")
        return services.RollSpec(**{**spec, "character": character})


@extend_schema(
    tags=["characters"],
    summary="A character's diary posts",
    description="The posts of the character's diary scene (its player and the master), "
    "cursor-paginated like a scene's.",
    parameters=[
        OpenApiParameter("cursor", OpenApiTypes.STR, description="From ``next``/``previous``.")
    ],
    responses={200: PostSerializer(many=True), **errors(400, 403, 404)},
)
class DiaryPostListView(_PostListMixin, generics.GenericAPIView):
    """GET /api/v1/characters/{id}/diary/posts/."""

    def get(self, request: Request, pk: int) -> Response:
        def find_access() -> SceneAccess | None:
            character = personajes_api.private_character_for_api(pk, request.user)
            scene_id = (
                Scene.objects.filter(kind=Scene.Kind.DIARY, diary_character=character)
                .values_list("pk", flat=True)
                .first()
            )
            if scene_id is None:  # no diary scene yet: an empty diary
                return None
            return access_scene(request.user, scene_id, campaign=character.campaign)

        return self.post_page("diary", pk, find_access)


__all__ = [
    "DiaryPostListView",
    "SceneListView",
    "ScenePostListView",
    "scene_access_for_api",
]
