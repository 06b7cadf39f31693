"""WSGI entry point (gunicorn partida.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "partida.settings")
application = get_wsgi_application()

# The API settings that name classes: DRF imports each on first use.
_API_CLASSES = (
    "DEFAULT_AUTHENTICATION_CLASSES",
    "DEFAULT_PERMISSION_CLASSES",
    "DEFAULT_THROTTLE_CLASSES",
    "DEFAULT_RENDERER_CLASSES",
    "DEFAULT_PARSER_CLASSES",
    "DEFAULT_FILTER_BACKENDS",
    "DEFAULT_PAGINATION_CLASS",
    "EXCEPTION_HANDLER",
)


def warm_up() -> None:
    """Load, as the process starts, what its first request would load: the URLconf with every
    view module it imports, the API's authentication, throttle, parser and renderer classes, the
    cache back ends' client libraries (Redis; Django keeps its cache objects per thread, so the
    request threads make their own, and nothing connects here), the session and message back
    ends, and each language's translation catalogue. No query is made, no connection opened and
    nothing cached.

    Without it the first request of every gunicorn process paid about 0.5 s of imports on this
    2-core machine: with four or more processes started together, the first players after a
    restart waited 2 s (``make load``'s p99). gunicorn loads this module in each worker before
    it accepts a connection, so the cost moves to the start.
    """
    from importlib import import_module

    from django.conf import settings
    from django.core.cache import caches
    from django.urls import get_resolver
    from django.utils import translation
    from django.utils.module_loading import import_string
    from rest_framework.settings import api_settings

    get_resolver().url_patterns  # noqa: B018 (the property imports the URLconf)
    for name in _API_CLASSES:
        getattr(api_settings, name)
    for alias in settings.CACHES:
        getattr(caches[alias], "_cache", None)  # Django's Redis back end builds its client here
    import_module(settings.SESSION_ENGINE)
    import_string(settings.SESSION_SERIALIZER)
    import_string(settings.MESSAGE_STORAGE)
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Scenes")


warm_up()
