"""The scene's e-mail button: follow it, mute it, or back to the default
(``escenas.notifications.scene_mode_set``)."""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from escenas import access as scene_access
from escenas import notifications


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
