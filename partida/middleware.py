"""Language selection, and the pages' handler of the access errors."""

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.handlers.exception import response_for_exception
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import translation

from nucleo.errors import Forbidden, NotFound


class LanguageMiddleware:
    """Activate the language of the language cookie (set by Django's ``set_language`` view),
    else ``settings.LANGUAGE_CODE``.

    Unlike Django's LocaleMiddleware it ignores the browser's Accept-Language: the game is
    Spanish, and an English-configured phone should still get the Spanish pages unless its
    owner picks English in the footer.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.supported = {code for code, _name in settings.LANGUAGES}

    def __call__(self, request: HttpRequest) -> HttpResponse:
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
        language = chosen if chosen in self.supported else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = language  # type: ignore[attr-defined]
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        return response


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
