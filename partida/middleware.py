"""Language selection: Spanish unless the visitor chose another language."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation


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
