"""Settings of the scene-page benchmark's server: the project's, plus one bench-only URL."""

from partida.settings import *  # noqa: F403

ROOT_URLCONF = "tests.bench.urls"

# Pages render {% static %} without a collectstatic run: plain storage, as the test suite
# (tests/conftest.py) does. The benchmark measures views, not static files.
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
