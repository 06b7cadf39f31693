"""Download a scene, or a whole campaign, as one self-contained HTML file
(``escenas.html_archive``): what the reader may see only, as an attachment."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from escenas import access as scene_access
from escenas import html_archive, scenes


def _attachment(html: str, filename: str) -> HttpResponse:
    response = HttpResponse(html, content_type="text/html; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    # It holds what this reader may see: never in a shared cache.
    response["Cache-Control"] = "private, no-store"
    return response


@require_GET
def scene_archive(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The scene as an HTML file (404 for a scene the visitor may not read)."""
    access = scene_access.access_scene(request.user, pk, slug=slug)
    scene = access.scene
    html = html_archive.archive_html(
        campaign=scene.campaign,
        viewer=access.viewer,
        scenes=html_archive.scene_archive(access),
        title=f"{scene.title} · {scene.campaign.name}",
    )
    return _attachment(html, f"{scene.campaign.slug}-{scene.pk}.html")


@require_GET
def campaign_archive(request: HttpRequest, slug: str) -> HttpResponse:
    """Every scene of the campaign the visitor may read, as one HTML file (404 for a campaign
    they may not see). Like the scene list, it makes a member's campaign's off-topic scene and
    missing diaries on first read."""
    campaign, viewer = scene_access.access_campaign_viewer(request.user, slug=slug)
    if viewer.is_member:  # as the scene list: the off-topic scene and the diaries exist
        scenes.list_scenes_ensure(campaign=campaign)
    html = html_archive.archive_html(
        campaign=campaign,
        viewer=viewer,
        scenes=html_archive.campaign_archive(campaign, viewer),
        title=_("%(campaign)s: archive") % {"campaign": campaign.name},
    )
    return _attachment(html, f"{campaign.slug}.html")
