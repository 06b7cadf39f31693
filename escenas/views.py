"""Pages of scenes and posts. Thin: every fetch goes through ``escenas.access`` (which owns the
permission rules; its ``NotFound`` is the 404 page through ``partida.middleware``), every read
through ``escenas.selectors``, every write through ``escenas.services``.

htmx: one page template (``escenas/scene_detail.html``) owns its fragments as partials; an htmx
request gets ``scene_detail.html#<fragment>``. Every page also works without JavaScript (real
links and forms; the htmx attributes only avoid the reload).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from escenas import access as scene_access
from escenas import (
    combat,
    diary_page,
    forms,
    joining,
    list_rows,
    listing,
    notifications,
    npcs,
    page_cache,
    scene_pages,
    scenes,
    selectors,
    services,
    stash,
    viewer_pages,
    writing_views,
)
from escenas.combat_selectors import combat_views
from escenas.combat_views import panel_context, post_amputation, post_declaration
from escenas.models import RollRequest, Scene
from mundo.access import access_campaign
from nucleo.bodies import body_too_big, keeps_text_when_too_big, too_large_form_message
from nucleo.errors import ServiceError
from nucleo.forms import add_service_errors
from nucleo.users import AuthenticatedHttpRequest
from personajes.models import Trait

SCENE_TEMPLATE = "escenas/scene_detail.html"


def is_htmx(request: HttpRequest) -> bool:
    return bool(getattr(request, "htmx", False))


def _post_form(
    request: HttpRequest,
    access: scene_access.SceneAccess,
    *,
    data: Any = None,
    draft: Any = None,
    traits: list[Trait] | None = None,
    requests: list[RollRequest] | None = None,
) -> forms.PostForm:
    """The post form of the scene for the viewer, bound to ``data`` or filled from the draft."""
    traits = selectors.campaign_traits_for_rolls(access) if traits is None else traits
    requests = selectors.pending_requests(access) if requests is None else requests
    # One-click answers are for the character's player (the master withdraws or waits).
    own_requests = [r for r in requests if r.character.player_id == access.viewer.user_id]
    fresh_key = forms.new_idempotency_key()
    initial: dict[str, Any] = {"idempotency_key": fresh_key}
    if draft is not None:
        initial |= {
            "idempotency_key": draft.idempotency_key,
            "body": draft.body,
            "note_to_master": draft.note_to_master,
            **{k: v for k, v in draft.data.items() if v not in ("", None)},
        }
    kept = stash.take_stash(request, access.scene.pk) if data is None else None
    if kept:
        initial |= kept  # what was sent while signed out wins over the older draft
    if data is None and request.method == "GET":  # a reply or quote link without JavaScript
        replying = writing_views.reply_initial(request, access)
        quote = replying.pop("quote", "")
        initial |= replying | ({"body": quote + initial.get("body", "")} if quote else {})
    form = forms.PostForm(
        data,
        access=access,
        traits=traits,
        requests=own_requests,
        whisper_candidates=selectors.whisper_candidates(access),
        npcs=list(npcs.campaign_npcs(access.scene.campaign_id)) if access.is_master else (),
        initial=initial,
    )
    form.stash_restored = bool(kept)  # type: ignore[attr-defined]
    # A key made for this render only (no draft, no stash): a kept page puts a new one in.
    fresh = form.initial.get("idempotency_key") == fresh_key and data is None
    form.fresh_idempotency_key = fresh_key if fresh else None  # type: ignore[attr-defined]
    replying_to = data.get("reply_to") if data is not None else initial.get("reply_to")
    form.reply_target = writing_views.reply_target(access, replying_to)  # type: ignore[attr-defined]
    return form


def _scene_context(
    request: HttpRequest,
    access: scene_access.SceneAccess,
    *,
    page: scene_pages.ScenePage,
    form: forms.PostForm | None = None,
) -> dict[str, Any]:
    scene = access.scene
    show_form = form is not None or (access.can_post and page.is_last_page)
    requests = selectors.pending_requests(access) if access.can_post else []
    traits = selectors.campaign_traits_for_rolls(access) if (show_form or access.is_master) else []
    if form is None and show_form:
        form = _post_form(
            request,
            access,
            draft=selectors.draft_for(access, request.user),
            traits=traits,
            requests=requests,
        )
    # The reader's feed token and e-mail mode for the scene: one query.
    choices = selectors.scene_choices(request.user, scene)
    request_form = None
    if access.is_master and access.characters and traits:
        request_form = forms.RollRequestForm(access=access, traits=traits)
    trait_options = (
        selectors.character_traits(scene.campaign, list(access.characters), traits)
        if form is not None
        else {}
    )
    return {
        "campaign": scene.campaign,
        "scene": scene,
        "access": access,
        "page": page,
        "posts": page.posts,
        "form": form,
        "request_form": request_form,
        "requests": requests,
        "trait_options": trait_options,
        "post_block": None if show_form else joining.post_block(access),
        "waiting_on": page_cache.waiting_on(access),
        "now_ts": timezone.now().timestamp(),
        "feed_url": _feed_url(scene, choices),
        "scene_mode": notifications.scene_mode(choices),
        **diary_page.diary_context(scene),
        **(panel_context(access) if scene.kind == Scene.Kind.STORY else {}),
    }


def _feed_url(scene: Scene, choices: selectors.SceneChoices) -> str | None:
    """The scene's Atom feed: public, or the viewer's private token URL (None without one)."""
    kwargs = {"slug": scene.campaign.slug, "pk": scene.pk}
    if scene_access.scene_is_public(scene):
        return reverse("escenas:scene_feed", kwargs=kwargs)
    if not choices.feed_token:
        return None
    return reverse("escenas:private_feed", kwargs=kwargs | {"token": choices.feed_token})


# --- Scene list and scene pages -----------------------------------------------------------------


def scene_list(request: HttpRequest, slug: str) -> HttpResponse:
    """The campaign's scenes the visitor may read, with unread counts and the last post, a page
    of ``SCENE_LIST_SIZE`` at a time (``?page=<n>``; a bad number is the nearest page).

    The off-topic scene and the characters' missing diaries are created here on first read
    (create-on-read; idempotent). A signed-in reader's page is kept whole while nothing it read
    changed (``escenas.viewer_pages``, as the scene page): a hit costs no query beyond the
    user's; a render that created a scene is kept under the generations it started from, so
    the next request renders again."""
    list_key = viewer_pages.list_key(request, slug)
    kept = viewer_pages.stored_page(list_key)
    if kept is not None:
        return HttpResponse(viewer_pages.fill(request, kept))
    with viewer_pages.recording(request, list_key) as rec:
        campaign, viewer = scene_access.access_campaign_viewer(request.user, slug=slug)
        if viewer.is_member:
            scenes.list_scenes_ensure(campaign=campaign)
        # The page shows the participants' names, and no diary's character.
        paginator = Paginator(listing.ScenePages(campaign, viewer), listing.SCENE_LIST_SIZE)
        page = paginator.get_page(request.GET.get("page"))
        rows = listing.scene_rows(page.object_list, viewer, campaign)
        context = {
            "campaign": campaign,
            "viewer": viewer,
            "rows": rows,
            "row_html": list_rows.rows_html(rows),  # each row kept under what it shows
            "page": page,
            "search_form": forms.SearchForm(),
        }
        if rec is None:
            return render(request, SCENE_LIST_TEMPLATE, context)
        kept_page = viewer_pages.render_and_keep(request, rec, SCENE_LIST_TEMPLATE, context, None)
        return HttpResponse(viewer_pages.fill(request, kept_page))


SCENE_LIST_TEMPLATE = "escenas/scene_list.html"


@vary_on_headers("HX-Request")
def scene_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A scene: a page of posts (oldest first), the waiting-on line, pending roll requests and,
    on the last page, the post form. A diary shows its R25 table and chart above the posts.

    A signed-in reader's page is kept whole while nothing it read changed
    (``escenas.viewer_pages``): a hit costs no query beyond the user's."""
    viewer_key = viewer_pages.page_key(request, pk)
    kept = viewer_pages.stored_page(viewer_key)
    if kept is not None:
        return HttpResponse(viewer_pages.fill(request, kept))
    with viewer_pages.recording(request, viewer_key) as rec:
        return _scene_detail(request, slug, pk, rec)


def _scene_detail(
    request: HttpRequest, slug: str, pk: int, rec: viewer_pages.Recording | None
) -> HttpResponse:
    access = scene_access.access_scene(
        request.user, pk, slug=slug, with_version=True, page_state=True
    )
    assert access.version is not None
    last_read = access.version.last_read
    cursor = scene_pages.cursor_from(request.GET)
    page_key = page_cache.anonymous_page_key(request, access)
    stored = page_cache.anonymous_page(page_key)
    if stored is not None:
        return HttpResponse(page_cache.filled_page(request, stored))
    page = scene_pages.scene_page(access, cursor=cursor, last_read=last_read)
    services.scene_mark_read(
        scene=access.scene, user=request.user, post_id=page.read_up_to, known=last_read
    )
    context = _scene_context(request, access, page=page)
    context["scroll_to_unread"] = cursor.kind == "unread"
    template = (
        SCENE_TEMPLATE + "#post_list"
        if is_htmx(request) and cursor.kind not in ("unread",)
        else SCENE_TEMPLATE
    )
    if rec is not None and _keepable(access):
        form = context.get("form")
        fresh = getattr(form, "fresh_idempotency_key", None)
        kept_page = viewer_pages.render_and_keep(request, rec, template, context, fresh)
        return HttpResponse(viewer_pages.fill(request, kept_page))
    if not page_key:
        return render(request, template, context)
    html = page_cache.render_anonymous_page(request, page_key, template, context)
    return HttpResponse(page_cache.filled_page(request, html))


def _keepable(access: scene_access.SceneAccess) -> bool:
    """Whether a signed-in reader's page may be kept (``escenas.viewer_pages``): story,
    off-topic and diary scenes without fights. A diary's table, chart and forecast are read
    from the database in the render (the tick's rows, the character, its stash, today's
    weather), so the tick's writes make the kept page old like a post does; the combat panel
    follows the clock, hence no fights."""
    fights = access.version is None or access.version.fights
    return not fights and access.scene.kind in KEPT_KINDS


KEPT_KINDS = (Scene.Kind.STORY, Scene.Kind.OFFTOPIC, Scene.Kind.DIARY)


@require_GET
def scene_poll(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """htmx polling: the posts after ``after`` (appended) and the posts changed since ``since``
    (replaced out of band), then a new poller. Only what the viewer may see. With nothing new
    in the scene (its version: no newer id, no later edit) no post is read: three queries for
    a signed-in reader (the user, the access, the participants), two for an anonymous one,
    and the read marker's update when it moves."""
    # The next poll's ``since``, taken before the version is read: an edit committed after
    # that read (so not in it) is later than this, and the next poll finds it.
    started = timezone.now()
    # The access and the scene's version in one query: the version says when nothing is new
    # (every 15 s, from every open tab: the usual answer), and then no post is read.
    access = scene_access.access_scene(request.user, pk, slug=slug, with_version=True)
    assert access.version is not None
    try:
        after = max(0, int(request.GET.get("after", "0")))
        if after >= 2**63:  # beyond any id: the database would overflow, not answer
            raise OverflowError
        since = datetime.datetime.fromtimestamp(
            float(request.GET.get("since", "0")), tz=datetime.UTC
        )
    except (ValueError, OverflowError, OSError):
        raise Http404("Bad poll") from None
    last_read = access.version.last_read
    if access.version.unchanged_since(after=after, since=since):
        new, changed = [], []
    else:
        new = selectors.posts_after(access, after=after, last_read=last_read)
        changed = selectors.posts_changed(access, up_to=after, since=since) if after else []
    last = new[-1].post.pk if new else after
    # The poller sits on a page whose posts were shown: the marker follows it only when no
    # unread post before that page was skipped (``selectors.unread_before``: a query only then).
    if not selectors.unread_before(access, last_read=last_read, before=after + 1):
        services.scene_mark_read(
            scene=access.scene, user=request.user, post_id=last, known=last_read
        )
    return render(
        request,
        SCENE_TEMPLATE + "#poll",
        {
            "campaign": access.scene.campaign,
            "scene": access.scene,
            "access": access,
            "new_posts": new,
            "changed_posts": changed,
            "poll_after": last,
            "now_ts": started.timestamp(),
        },
    )


@keeps_text_when_too_big
@require_POST
def post_create(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Send a post (its rolls are made now, on the server), or save it as a draft.

    htmx: answers the fresh form fragment and triggers ``posted`` (the poller then fetches the
    new post); without JavaScript: redirects to the post. Errors re-render the form with the
    message; nothing is saved then. A signed-out visitor (an expired session) is sent to sign
    in and back to the scene, where the draft saved while typing is waiting."""
    if not request.user.is_authenticated:
        return _to_login(request, slug, pk)
    access = scene_access.access_scene(request.user, pk, slug=slug)
    if not access.can_post:
        return HttpResponseForbidden(_("You cannot write in this scene."))
    form = _post_form(request, access, data=request.POST)
    if body_too_big(request):
        form.is_valid()  # the fields' own errors too, next to the text kept
        form.add_error(None, too_large_form_message())
    elif "save_draft" in request.POST:
        return _draft_save(request, access)
    elif form.is_valid():
        try:
            declaration = post_declaration(request.POST, access)
            amputation = post_amputation(request.POST, access)
            if declaration is None and amputation is None:
                post, _created = services.post_create(
                    access=access, author=request.user, **form.service_kwargs()
                )
            else:
                post, _created = combat.post_with_declaration(
                    access=access,
                    author=request.user,
                    post_kwargs=form.service_kwargs(),
                    declaration=declaration,
                    amputation=amputation,
                )
        except ServiceError as exc:
            add_service_errors(form, exc, form.error_fields)
        else:
            if is_htmx(request):
                fresh = _post_form(request, access)
                response = render(
                    request,
                    SCENE_TEMPLATE + "#post_form",
                    _form_context(request, access, fresh),
                )
                response["HX-Trigger"] = "posted"
                return response
            return redirect(post.get_absolute_url())
    if is_htmx(request):
        return render(request, SCENE_TEMPLATE + "#post_form", _form_context(request, access, form))
    last_read = selectors.last_read_post_id(access.scene, request.user)
    page = scene_pages.scene_page(access, cursor=scene_pages.Cursor("unread"), last_read=last_read)
    context = _scene_context(request, access, page=page, form=form)
    return render(request, SCENE_TEMPLATE, context, status=400)


def _to_login(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A post or an autosave without a user (the session expired while typing): the text is
    kept (``escenas.stash``: the scene's form takes it back after the sign-in).

    htmx: a 401 with the draft status saying so and a sign-in link opening in a new tab; the
    page stays, with the text in its box (base.html lets htmx swap a 401). Without
    JavaScript: to the sign-in, then back to the scene, where the form holds the text."""
    scene_url = reverse("escenas:scene", kwargs={"slug": slug, "pk": pk})
    kept = stash.stash_post(request, pk)
    login_url = f"{reverse('login')}?next={scene_url}%23post-form"
    if is_htmx(request):
        response = render(
            request,
            SCENE_TEMPLATE + "#draft_status",
            {"draft": None, "session_expired": True, "login_url": login_url},
            status=401,
        )
        response["HX-Retarget"] = "#draft-status"
        response["HX-Reswap"] = "outerHTML"
        return response
    if kept:
        messages.info(
            request, _("Your session had expired: sign in and your text will be back in the form.")
        )
    return redirect_to_login(scene_url + "#post-form")


def _form_context(
    request: HttpRequest, access: scene_access.SceneAccess, form: forms.PostForm
) -> dict[str, Any]:
    return {
        "campaign": access.scene.campaign,
        "scene": access.scene,
        "access": access,
        "form": form,
        "requests": selectors.pending_requests(access),
        "trait_options": selectors.character_traits(access.scene.campaign, list(access.characters)),
        "combats": combat_views(access) if access.scene.kind == Scene.Kind.STORY else [],
    }


def _draft_save(request: HttpRequest, access: scene_access.SceneAccess) -> HttpResponse:
    assert request.user.is_authenticated  # both callers send signed-out visitors to sign in
    data = request.POST
    if body_too_big(request):
        too_big = too_large_form_message()
        if is_htmx(request):
            return render(
                request, SCENE_TEMPLATE + "#draft_status", {"draft": None, "draft_problem": too_big}
            )
        messages.error(request, too_big)
        return redirect(access.scene.get_absolute_url() + "#post-form")
    try:
        draft = services.draft_save(
            access=access,
            user=request.user,
            idempotency_key=data.get("idempotency_key", ""),
            body=data.get("body", ""),
            note_to_master=data.get("note_to_master", ""),
            data={k: data.get(k, "") for k in services.DRAFT_DATA_KEYS},
        )
        problem = None
    except ServiceError as exc:
        draft, problem = None, " ".join(exc.messages)
    if is_htmx(request):
        return render(
            request,
            SCENE_TEMPLATE + "#draft_status",
            {"draft": draft, "draft_problem": problem},
        )
    if problem:
        messages.error(request, problem)
    else:
        messages.success(request, _("Draft saved."))
    return redirect(access.scene.get_absolute_url() + "#post-form")


@keeps_text_when_too_big
@require_POST
def draft_save(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Save the post being written (htmx, while typing). Answers the small status fragment."""
    if not request.user.is_authenticated:
        return _to_login(request, slug, pk)
    access = scene_access.access_scene(request.user, pk, slug=slug)
    if not access.can_post:
        return HttpResponseForbidden(_("You cannot write in this scene."))
    return _draft_save(request, access)


@require_GET
def roll_chance(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The exact chance of the action roll being prepared (htmx fragment). Source: RULES.md R3,
    R9."""
    access = scene_access.access_scene(request.user, pk, slug=slug)
    if not access.can_post:
        return HttpResponseForbidden(_("You cannot write in this scene."))

    def number(name: str) -> int | None:
        try:
            value = int(request.GET.get(name, ""))
        except ValueError:
            return None
        return value if 0 <= value <= 100 else None

    character_id: int | None
    try:
        character_id = int(request.GET.get("roll_character", "") or 0) or None
    except ValueError:
        character_id = None
    voice = request.GET.get("voice", "")
    if character_id is None and voice.startswith("character:"):
        try:
            character_id = int(voice.split(":", 1)[1])
        except ValueError:
            character_id = None
    chance = selectors.roll_chance(
        access,
        character_id=character_id,
        trait=request.GET.get("roll_trait", ""),
        threshold=number("roll_threshold"),
    )
    return render(request, SCENE_TEMPLATE + "#chance", {"chance": chance})


# --- Posts ---------------------------------------------------------------------------------------


def post_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A post's permanent link: the scene page that starts with it (a keyset cursor: no
    count, no OFFSET), scrolled to it."""
    campaign = access_campaign(request.user, slug=slug)[0]
    post, access = scene_access.access_post(request.user, pk, campaign=campaign)
    return redirect(f"{access.scene.get_absolute_url()}?after={post.pk - 1}#post-{post.pk}")


@login_required
def post_edit(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Edit a post's text (its author); the rolls stay, a revision is kept."""
    campaign = access_campaign(request.user, slug=slug)[0]
    post, access = scene_access.access_post(request.user, pk, campaign=campaign)
    view = selectors.post_view(post, access.viewer)
    if not view.can_edit:
        return HttpResponseForbidden(_("Only the author can edit a post."))
    form = forms.PostEditForm(
        request.POST or None,
        initial={"body": post.body, "note_to_master": post.note_to_master},
    )
    if access.is_master:
        del form.fields["note_to_master"]
    if request.method == "POST" and form.is_valid():
        try:
            services.post_edit(
                post=post,
                editor=request.user,
                body=form.cleaned_data["body"],
                note_to_master=form.cleaned_data.get("note_to_master", post.note_to_master),
            )
        except ServiceError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, _("Post edited. Its rolls have not changed."))
            return redirect(post.get_absolute_url())
    return render(
        request,
        "escenas/post_edit.html",
        {"campaign": campaign, "scene": access.scene, "view": view, "form": form, "access": access},
    )


@login_required
@require_POST
def post_delete(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Delete a post (author or master): hidden from players, kept for the master with its
    rolls."""
    campaign = access_campaign(request.user, slug=slug)[0]
    post, access = scene_access.access_post(request.user, pk, campaign=campaign)
    try:
        services.post_delete(post=post, user=request.user)
    except ServiceError as exc:
        return HttpResponseForbidden(" ".join(exc.messages))
    messages.success(request, _("Post deleted."))
    return redirect(access.scene.get_absolute_url())


def diary(request: HttpRequest, slug: str, character: int) -> HttpResponse:
    """A character's diary (its player and the master): created if missing, then shown."""
    campaign = access_campaign(request.user, slug=slug)[0]
    target = scene_access.access_diary(request.user, character, campaign=campaign)
    return redirect(scenes.diary_scene_for(target))


@login_required
@require_POST
def join_request_create(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A player asks that their character enter the scene ("pedir entrar")."""
    access = scene_access.access_scene(request.user, pk, slug=slug)
    try:
        character_id = int(request.POST.get("character", ""))
    except ValueError:
        character_id = 0
    try:
        joining.join_request_create(access=access, user=request.user, character_id=character_id)
    except ServiceError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, _("Asked. The master will see it in the pending list."))
    return redirect(access.scene.get_absolute_url() + "#join")
