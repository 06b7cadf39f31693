"""Project-level views: the health check used by docker-compose and load balancers."""

from django.db import connection
from django.http import HttpRequest, HttpResponse


def health(request: HttpRequest) -> HttpResponse:
    """``200 ok`` when the database answers; 503 otherwise."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:  # any database failure means "not healthy"
        return HttpResponse("database unavailable", status=503, content_type="text/plain")
    return HttpResponse("ok", content_type="text/plain")
