"""Project-level views: the liveness and readiness checks used by compose and load balancers,
the web-app manifest and the favicon."""

from __future__ import annotations

import datetime
import time
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Max
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from mundo.models import Campaign
from partida import heartbeats


def health(request: HttpRequest) -> HttpResponse:
    """Liveness: ``200 ok`` when the database answers; 503 otherwise."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:  # any database failure means "not healthy"
        return HttpResponse("database unavailable", status=503, content_type="text/plain")
    return HttpResponse("ok", content_type="text/plain")


def _iso(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).isoformat()


def _database_check() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:  # any database failure means "not ready"
        return {"ok": False}
    return {"ok": True}


def _background_checks(now: float) -> dict[str, dict[str, Any]]:
    """Redis, and each heartbeat's time and age (s); eager tasks (no Redis) need neither."""
    if not settings.REDIS_URL:
        eager = {"ok": True, "mode": "eager"}
        return {"redis": {"ok": True, "configured": False}, "worker": eager, "beat": eager}
    try:
        beats = heartbeats.heartbeats_read()
    except Exception:  # Redis down or unreachable: no heartbeats can be read either
        down = {"ok": False, "last_heartbeat": None, "age_s": None}
        return {"redis": {"ok": False, "configured": True}, "worker": down, "beat": dict(down)}
    checks: dict[str, dict[str, Any]] = {"redis": {"ok": True, "configured": True}}
    for role, at in beats.items():
        age = None if at is None else round(max(0.0, now - at), 1)
        ok = age is not None and age <= settings.READY_HEARTBEAT_MAX_AGE_S
        checks[role] = {"ok": ok, "last_heartbeat": _iso(at), "age_s": age}
    return checks


def _campaign_ticks() -> list[dict[str, Any]]:
    rows = Campaign.objects.annotate(last_tick=Max("ticks__created_at")).order_by("pk")
    return [
        {
            "id": row["pk"],
            "current_day": row["current_day"],
            "last_tick": row["last_tick"].isoformat() if row["last_tick"] else None,
        }
        for row in rows.values("pk", "current_day", "last_tick")
    ]


def readiness(request: HttpRequest) -> JsonResponse:
    """Readiness (``/salud/listo/``): 200 when the database, Redis and fresh (≤
    ``READY_HEARTBEAT_MAX_AGE_S`` s) worker and beat heartbeats are there, 503 otherwise.

    JSON ``{"ready": bool, "checks": {"database", "redis", "worker", "beat"}, "campaigns":
    [{"id", "current_day", "last_tick"}]}``; times are ISO 8601 UTC, ages in s. No names,
    addresses or credentials; the campaigns are informational and do not decide readiness.
    """
    checks = {"database": _database_check(), **_background_checks(time.time())}
    ready = all(check["ok"] for check in checks.values())
    campaigns = _campaign_ticks() if checks["database"]["ok"] else []
    body = {"ready": ready, "checks": checks, "campaigns": campaigns}
    response = JsonResponse(body, status=200 if ready else 503)
    response["Cache-Control"] = "no-store"
    return response


def web_manifest(request: HttpRequest) -> JsonResponse:
    """The web-app manifest (``/manifest.webmanifest``): name, colours and the icon, so a phone
    can put Partida on its home screen. A view rather than a static file because the icon's
    address is the hashed static one."""
    icon = static("img/favicon.svg")
    manifest = {
        "name": "Partida",
        "short_name": "Partida",
        "description": _("Play-by-post campaigns of a zombie-survival role-playing game."),
        "lang": get_language(),
        "start_url": "/",
        "display": "standalone",
        "background_color": "#fbfaf7",
        "theme_color": "#8a1c1c",
        "icons": [{"src": icon, "sizes": "any", "type": "image/svg+xml", "purpose": "any"}],
    }
    response = JsonResponse(manifest, json_dumps_params={"ensure_ascii": False})
    response["Content-Type"] = "application/manifest+json"
    response["Cache-Control"] = "public, max-age=86400"
    return response


def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``, which browsers ask for without reading the page: the SVG icon."""
    return redirect(static("img/favicon.svg"), permanent=True)
