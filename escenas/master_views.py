"""The master's pages of scenes: create and edit scenes, ask for and withdraw roll requests, set
a roll's threshold, read a post's revisions.

Thin, as ``escenas.views``: fetches through ``escenas.access`` with ``master=True`` (anyone else
gets the 404 page: master pages do not reveal themselves), writes through ``escenas.services``.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from escenas import access as scene_access
from escenas import forms, joining, scenes, selectors, services
from escenas.views import SCENE_TEMPLATE, is_htmx
from mundo.access import access_campaign
from nucleo.errors import ServiceError
from nucleo.forms import add_service_errors
from nucleo.users import AuthenticatedHttpRequest

# --- Posts and rolls (master) ------------------------------------------------------------------


@login_required
def post_revisions(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Every revision of a post, newest first: the master only."""
    campaign = access_campaign(request.user, slug=slug)[0]
    post, access = scene_access.access_post(request.user, pk, campaign=campaign, master=True)
    return render(
        request,
        "escenas/post_revisions.html",
        {
            "campaign": campaign,
            "scene": access.scene,
            "view": selectors.post_view(post, access.viewer),
            "revisions": selectors.post_revisions(post),
            "access": access,
        },
    )


@login_required
@require_POST
def roll_threshold(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master sets the threshold of a roll made without one (htmx: the post fragment)."""
    campaign = access_campaign(request.user, slug=slug)[0]
    post_roll = scene_access.access_post_roll(request.user, pk, campaign=campaign)
    post, access = scene_access.access_post(request.user, post_roll.post_id, campaign=campaign)
    form = forms.ThresholdForm(request.POST)
    if form.is_valid():
        try:
            services.roll_threshold_set(
                post_roll=post_roll,
                master=request.user,
                threshold=form.cleaned_data["threshold"],
            )
        except ServiceError as exc:
            messages.error(request, " ".join(exc.messages))
    else:
        messages.error(request, _("The threshold must be a whole number from 0 to 100 (%)."))
    if is_htmx(request):
        post, access = scene_access.access_post(request.user, post.pk, campaign=campaign)
        return render(
            request,
            SCENE_TEMPLATE + "#post",
            {
                "view": selectors.post_view(post, access.viewer),
                "campaign": campaign,
                "access": access,
            },
        )
    return redirect(post.get_absolute_url())


@login_required
@require_POST
def roll_request_create(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master asks a participant for a roll."""
    access = scene_access.access_scene(request.user, pk, slug=slug, master=True)
    traits = selectors.campaign_traits_for_rolls(access)
    form = forms.RollRequestForm(request.POST, access=access, traits=traits)
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.roll_request_create(
                access=access,
                master=request.user,
                character=form.characters[data["character"]],
                trait=form.traits[data["trait"]],
                threshold=data.get("threshold"),
                reason=data.get("reason") or "",
                hidden=bool(data.get("hidden")),
            )
        except ServiceError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, _("Roll requested."))
    else:
        messages.error(
            request, _("Check the roll request: %(errors)s") % {"errors": form.errors.as_text()}
        )
    return redirect(access.scene.get_absolute_url() + "#requests")


@login_required
@require_POST
def roll_request_cancel(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master withdraws a pending roll request."""
    campaign = access_campaign(request.user, slug=slug)[0]
    roll_request = scene_access.access_roll_request(pk, campaign=campaign)
    try:
        services.roll_request_cancel(request=roll_request, master=request.user)
    except ServiceError:
        raise Http404("No such request") from None
    messages.success(request, _("Roll request withdrawn."))
    return redirect(roll_request.scene.get_absolute_url() + "#requests")


# --- Scenes (master) -----------------------------------------------------------------------------


@login_required
def scene_create(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """The master creates a story scene or a master-notes scene."""
    campaign, _viewer = access_campaign(request.user, slug=slug, master=True)
    form = forms.SceneForm(request.POST or None, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            scene = scenes.scene_create(
                campaign=campaign,
                master=request.user,
                kind=data["kind"],
                title=data["title"],
                summary=data["summary"],
                readers=data["readers"],
                participants=data["participants"],
                open_to_new_characters=data["open_to_new_characters"],
            )
        except ServiceError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, _("Scene created."))
            return redirect(scene)
    return render(request, "escenas/scene_form.html", {"campaign": campaign, "form": form})


@login_required
def scene_edit(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master changes a scene's title, summary, readers and participants."""
    access = scene_access.access_scene(request.user, pk, slug=slug, master=True)
    scene = access.scene
    form = forms.SceneForm(
        request.POST or None,
        campaign=scene.campaign,
        editing=True,
        initial={
            "title": scene.title,
            "summary": scene.summary,
            "readers": scene.readers,
            "participants": list(scene.participants.all()),
            "open_to_new_characters": scene.open_to_new_characters,
        },
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            scenes.scene_update(
                scene=scene,
                master=request.user,
                title=data["title"],
                summary=data["summary"],
                readers=data["readers"],
                participants=data["participants"],
                open_to_new_characters=data["open_to_new_characters"],
            )
        except ServiceError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, _("Scene saved."))
            return redirect(scene)
    return render(
        request,
        "escenas/scene_form.html",
        {"campaign": scene.campaign, "form": form, "scene": scene},
    )


@login_required
@require_POST
def join_request_decide(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master lets a character into a scene, or declines (from the pending list)."""
    campaign, _viewer = access_campaign(request.user, slug=slug, master=True)
    accept = request.POST.get("decision") == "accept"
    try:
        decided = joining.join_request_decide(
            campaign=campaign, master=request.user, request_id=pk, accept=accept
        )
    except ServiceError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        words = _("%(name)s now takes part in “%(scene)s”.") if accept else _("Request declined.")
        messages.success(
            request, words % {"name": decided.character.name, "scene": decided.scene.title}
        )
    return redirect(campaign.get_absolute_url() + "#pending")
