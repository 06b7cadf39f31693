"""The e-mail preference pages: the scene's e-mail button (follow it, mute it, or back to the
default: ``escenas.notifications.scene_mode_set``), the user's e-mail settings and feeds, and
the one-click unsubscribe link."""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from escenas import access as scene_access
from escenas import forms, notifications
from nucleo.bounds import row_id


@login_required
@require_POST
def scene_follow(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """POST ``mode`` (``default``, ``follow`` or ``mute``) for a scene the user may read (404
    otherwise); back to the scene with a message. Another mode changes nothing and says so."""
    access = scene_access.access_scene(request.user, pk, slug=slug)
    mode = request.POST.get("mode", "")
    if mode not in notifications.SCENE_MODES:
        messages.error(request, _("Choose one of the options."))
    else:
        user = cast(User, request.user)  # login_required
        notifications.scene_mode_set(user=user, scene=access.scene, mode=mode)
        messages.success(
            request,
            {
                notifications.FOLLOW: _("You follow this scene: an e-mail for each post."),
                notifications.MUTE: _("Scene muted: no e-mail about it."),
            }.get(mode, _("This scene's e-mails follow your usual settings again.")),
        )
    return redirect(access.scene.get_absolute_url())


@login_required
def notification_settings(request: HttpRequest) -> HttpResponse:
    """The user's e-mail setting and the secret of their private feeds (regenerate, revoke)."""
    user = cast(User, request.user)  # login_required
    pref = notifications.preference_get_or_create(user=user)
    form = forms.NotificationForm(request.POST or None, initial={"mode": pref.mode})
    if request.method == "POST":
        if "regenerate" in request.POST:
            notifications.feed_token_regenerate(user=user)
            messages.success(request, _("New feed address made: the old ones no longer work."))
            return redirect("escenas:notifications")
        if "revoke" in request.POST:
            notifications.feed_token_revoke(user=user)
            messages.success(request, _("Private feeds switched off."))
            return redirect("escenas:notifications")
        if "unmute" in request.POST:
            campaign_id = row_id(request.POST["unmute"])
            if campaign_id is not None:
                notifications.campaign_unmute(user=user, campaign_id=campaign_id)
                messages.success(request, _("You will get e-mails about that campaign again."))
            return redirect("escenas:notifications")
        for action in ("follow", "unfollow"):
            raw = request.POST.get(action, "")
            if raw:
                if (campaign_id := row_id(raw)) is not None:
                    notifications.campaign_follow(
                        user=user, campaign_id=campaign_id, follow=action == "follow"
                    )
                    messages.success(request, _("Notification settings saved."))
                return redirect("escenas:notifications")
        if form.is_valid():
            notifications.preference_set_mode(user=user, mode=form.cleaned_data["mode"])
            messages.success(request, _("Notification settings saved."))
            return redirect("escenas:notifications")
    muted = pref.muted_campaigns.order_by("name")
    context = {"form": form, "pref": pref, "muted": muted, **notifications.follow_lists(pref)}
    return render(request, "escenas/notifications.html", context)


@csrf_exempt  # RFC 8058: mail clients POST the link with no session; the token is the proof
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """A one-click unsubscribe link (``notifications.unsubscribe_token``): GET asks to
    confirm, POST (the page's button, or the mail client's ``List-Unsubscribe-Post``) mutes
    the link's campaign for its user. A bad token is a 404."""
    if request.method == "POST":
        leave = notifications.unsubscribe_apply(token)
        return render(request, "escenas/unsubscribe.html", {"leave": leave, "done": True})
    leave = notifications.unsubscribe_read(token)
    return render(request, "escenas/unsubscribe.html", {"leave": leave, "done": False})
