"""Settings of the scene-page benchmark's server: the project's, plus one bench-only URL."""

from partida.settings import *  # noqa: F403

ROOT_URLCONF = "tests.bench.urls"
