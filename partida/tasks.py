"""Project-level Celery tasks."""

from celery import shared_task
from django.db import connection

from reglas import ENGINE_VERSION


@shared_task(name="partida.worker_health")
def worker_health() -> dict[str, object]:
    """What a worker sees: the rules engine version and whether the database answers.

    Used by operators (``celery call partida.worker_health``) and the integration test.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        database_ok = cursor.fetchone() == (1,)
    return {"engine": ENGINE_VERSION, "database": database_ok, "vendor": connection.vendor}
