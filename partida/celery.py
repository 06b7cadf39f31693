"""The Celery app, configured from Django's settings (``CELERY_*``).

Broker and result backend come from ``REDIS_URL``; without it tasks run eagerly in-process
(the embedded demo only).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "partida.settings")

app = Celery("partida")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
