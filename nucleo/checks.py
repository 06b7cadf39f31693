"""System checks of the kernel (``manage.py check``; the deploy ones with ``--deploy``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks

LOCAL_CACHE = "django.core.cache.backends.locmem.LocMemCache"


@checks.register(checks.Tags.caches, deploy=True)
def shared_cache(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """``nucleo.W001`` when the default cache is one process's memory: the cached pieces of
    the pages (``escenas.fragments``, the kept scene pages of ``escenas.viewer_pages``) and the
    table write generations they are checked against (``nucleo.table_writes``) live there, so
    with several server processes a write in one is not seen by the others and they serve
    stale pages. The embedded default (``make demo``: one process) is right; a deployment with
    more than one process sets ``REDIS_URL``."""
    backend = settings.CACHES.get("default", {}).get("BACKEND", "")
    if backend != LOCAL_CACHE:
        return []
    return [
        checks.Warning(
            "The default cache is local memory (no REDIS_URL): with more than one server "
            "process, cached scene pages and fragments go stale.",
            hint="Set REDIS_URL to a shared Redis (as docker-compose.yml does), or run one "
            "process.",
            id="nucleo.W001",
        )
    ]
