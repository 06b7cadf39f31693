"""WSGI entry point (gunicorn partida.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "partida.settings")
application = get_wsgi_application()
