"""Writing aids of the scene page: the live preview, the quote of a post, and what a reply or
a quote link (``?reply=<id>``, ``?quote=<id>``, for readers without JavaScript) puts in the post
form. Thin, like ``escenas.views``: fetches through ``escenas.access``, text through
``escenas.mentions`` and ``escenas.quoting``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from escenas import access as scene_access
from escenas.mentions import render_with_mentions
from escenas.models import BODY_MAX_CHARS, Post
from escenas.quoting import quote_markdown
from mundo.access import access_campaign
from nucleo.bodies import body_too_big, keeps_text_when_too_big, too_large_form_message
from nucleo.bounds import row_id
from nucleo.errors import NotFound
from nucleo.text import clean_text

PREVIEW_TEMPLATE = "escenas/_preview.html"


@keeps_text_when_too_big
@login_required
@require_POST
def post_preview(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The post's text (``body``) as it will look: the same Markdown, mentions and sanitiser
    as a saved post (htmx fragment, while typing; the post form and the edit page). Anyone
    signed in who may read the scene; nothing is saved."""
    access = scene_access.access_scene(request.user, pk, slug=slug)
    body = clean_text(request.POST.get("body", ""))
    problem = ""
    html = ""
    if body_too_big(request):
        problem = too_large_form_message()
    elif len(body) > BODY_MAX_CHARS:
        problem = _("The post is too long (at most %(n)s characters).") % {"n": BODY_MAX_CHARS}
    else:
        html, _mentioned = render_with_mentions(body, campaign=access.scene.campaign)
    return render(request, PREVIEW_TEMPLATE, {"preview_html": html, "problem": problem})


@login_required
@require_GET
def post_quote(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The Markdown quote of a post the reader may see (``escenas.quoting``), as plain text
    for the quote button's script; 404 for a post they may not see."""
    campaign = access_campaign(request.user, slug=slug)[0]
    post, _access = scene_access.access_post(request.user, pk, campaign=campaign)
    if post.deleted_at is not None:  # the master sees deleted posts; nobody quotes them
        raise NotFound("No such post")
    return HttpResponse(quote_markdown(post), content_type="text/plain; charset=utf-8")


def reply_target(access: scene_access.SceneAccess, pk: Any) -> Post | None:
    """The post ``pk`` of the scene if the viewer may see it and it is not deleted (the one a
    reply names), with its campaign; None otherwise. One query (none without ``pk``)."""
    number = row_id(pk)
    if number is None:
        return None
    return (
        Post.objects.filter(pk=number, scene=access.scene, deleted_at__isnull=True)
        .filter(scene_access.posts_visible_q(access.viewer))
        .select_related("campaign")
        .first()
    )


def reply_initial(request: HttpRequest, access: scene_access.SceneAccess) -> dict[str, Any]:
    """What a reply link (``?reply=<id>``) or a quote link (``?quote=<id>``) puts in a new post
    form: ``reply_to`` and, for a quote, the quote at the start of ``body``. Empty for a post
    the viewer may not see (or no such link)."""
    quote = "quote" in request.GET
    target = reply_target(access, request.GET.get("quote" if quote else "reply"))
    if target is None:
        return {}
    initial: dict[str, Any] = {"reply_to": target.pk}
    if quote:
        initial["quote"] = quote_markdown(target)
    return initial
