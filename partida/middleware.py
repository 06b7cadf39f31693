"""Language and time zone selection, bodies over the size limit, and the pages' handler of the
access errors."""

import zoneinfo
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.handlers.exception import response_for_exception
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import render
from django.utils import timezone, translation

from nucleo import readers
from nucleo.bodies import (
    KEEPS_TEXT_ATTRIBUTE,
    TOO_BIG_ATTRIBUTE,
    too_large_body,
    too_large_message,
)
from nucleo.errors import Forbidden, NotFound


class LanguageMiddleware:
    """Activate the reader's language and time zone for the request.

    Language: a signed-in user's own setting (``nucleo.models.UserSettings``, copied into the
    session at sign-in and on each change: ``nucleo.readers.session_store``), else the language
    cookie (set by the footer's switch), else ``settings.LANGUAGE_CODE``. Time zone: the
    user's, else ``settings.TIME_ZONE`` (Europe/Madrid); every time a page shows carries its
    zone's label (the formats in ``partida.formats``).

    Unlike Django's LocaleMiddleware it ignores the browser's Accept-Language: the game is
    Spanish, and an English-configured phone should still get the Spanish pages unless its
    owner picks English (in the footer or on the profile page). The settings come from the
    session, so an anonymous visitor without a session cookie costs no query here.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.supported = {code for code, _name in settings.LANGUAGES}

    def __call__(self, request: HttpRequest) -> HttpResponse:
        reader = None
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            reader = readers.session_reader(request.session)
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
        if reader is not None and reader.language in self.supported:
            language = reader.language
        else:
            language = chosen if chosen in self.supported else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = language
        if reader is not None:
            try:
                timezone.activate(zoneinfo.ZoneInfo(reader.time_zone))
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.deactivate()
        else:
            timezone.deactivate()
        try:
            response = self.get_response(request)
        finally:
            # The zone is the request's only: the thread's next work (another request, a task
            # run eagerly, a test) starts from the site's zone again.
            timezone.deactivate()
        response.headers.setdefault("Content-Language", language)
        return response


def _form_head(request: HttpRequest, limit: int) -> QueryDict:
    """The fields of the first ``limit`` bytes of an urlencoded body: the last one cut where the
    limit fell (without a half escape sequence or a half character)."""
    head = request.read(limit)
    if head.endswith(b"%"):
        head = head[:-1]
    elif head[-2:-1] == b"%":
        head = head[:-2]
    fields = QueryDict(head, mutable=True, encoding=request.encoding or settings.DEFAULT_CHARSET)
    if fields:
        last = list(fields)[-1]
        values = fields.getlist(last)
        fields.setlist(last, [*values[:-1], values[-1].rstrip("\ufffd")])
    fields._mutable = False
    return fields


class RequestSizeMiddleware:
    """Bodies over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (by their ``Content-Length``), before anything
    reads them (Django would answer its bare English 400 and the text would be lost):

    - the API (``/api/``): a 413 in JSON, ``{"detail": …, "non_field_errors": [...]}``;
    - a form (``application/x-www-form-urlencoded``) to a view marked
      ``nucleo.bodies.keeps_text_when_too_big`` (escenas' post form and draft): the first
      ``limit`` bytes are read and parsed into ``request.POST`` (the CSRF token comes first in
      the site's forms) and ``request.body_too_big`` is True; the view re-renders its form with
      that text and a message instead of acting;
    - any other body: a 413 page with the message. Multipart bodies (portraits) are left to
      Django, which counts their files apart.

    Runs in ``process_view`` (it needs the view) and stands before ``CsrfViewMiddleware`` in
    ``MIDDLEWARE``, whose ``process_view`` reads ``request.POST``.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view_func: Callable[..., Any], *args: Any
    ) -> HttpResponse | None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if limit is None or length <= limit:
            return None
        if request.path.startswith("/api/"):
            return JsonResponse(too_large_body(), status=413)
        if request.content_type == "multipart/form-data":
            return None
        if request.content_type == "application/x-www-form-urlencoded" and getattr(
            view_func, KEEPS_TEXT_ATTRIBUTE, False
        ):
            request._post = _form_head(request, limit)  # type: ignore[attr-defined]
            request._files = QueryDict()  # type: ignore[attr-defined]
            setattr(request, TOO_BIG_ATTRIBUTE, True)
            return None
        return render(request, "413.html", {"message": too_large_message()}, status=413)


class AccessErrorMiddleware:
    """The pages' and feeds' one handler of the access errors: ``nucleo.errors.NotFound`` is the
    404 page and ``Forbidden`` the 403 page, as if the view had raised ``Http404`` or
    ``PermissionDenied`` (the API maps them in ``partida.api.exception_handler``).

    The 404 carries no detail from the error, so a hidden thing and a missing one answer alike.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, NotFound):
            return response_for_exception(request, Http404())
        if isinstance(exception, Forbidden):
            return response_for_exception(request, PermissionDenied(*exception.args))
        return None
