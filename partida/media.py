"""Uploaded media (portraits) served by Django, in production too (``SERVE_MEDIA``).

Why Django and not a separate nginx/caddy container: a group's site serves a few portraits
per page, gunicorn's threads stream them with the WSGI file wrapper, and one place (this view)
will decide who may fetch a file when portraits move behind an access check: the URL stays.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.http import Http404, HttpRequest, HttpResponseBase
from django.views.static import serve

PRIVATE_PREFIXES = ("portraits/", "exports/")
"""Media served only through an access-checked view, never by path (portraits: the character's
view; campaign exports: ``partida.export_views.download``)."""


def media_file(request: HttpRequest, path: str) -> HttpResponseBase:
    """The file ``MEDIA_ROOT/path`` (404 when missing or outside ``MEDIA_ROOT``), cached by the
    browser for an hour (``Cache-Control: private, max-age=3600``)."""
    if path.startswith(PRIVATE_PREFIXES):
        # Portraits go through personajes.views.character_portrait, which checks who may see
        # the character: their files are not served by path.
        raise Http404(path)
    try:
        response = serve(request, path, document_root=str(settings.MEDIA_ROOT))
    except SuspiciousFileOperation:  # "../": outside MEDIA_ROOT is simply not found
        raise Http404(path) from None
    response["Cache-Control"] = "private, max-age=3600"
    return response
