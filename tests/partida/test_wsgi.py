"""The WSGI module loads at start what a first request would, without touching the database."""

import json
import os
import subprocess
import sys

# Run in a fresh interpreter: the suite's own process imported all of it long ago.
PROBE = """
import json, socket, sys, threading
connects = []
real_connect = socket.socket.connect
def spy(self, address):
    connects.append(str(address))
    return real_connect(self, address)
socket.socket.connect = spy
before = set(sys.modules)
import partida.wsgi
from django.db import connections
from django.test import Client
loaded = set(sys.modules) - before
opened = [alias for alias in connections if connections[alias].connection is not None]
opened += connects + [t.name for t in threading.enumerate() if t is not threading.main_thread()]
response = Client(SERVER_NAME="127.0.0.1").get("/salud/")
first_request = sorted(set(sys.modules) - before - loaded)
print(json.dumps({"loaded": sorted(loaded), "opened": opened, "status": response.status_code,
                  "first_request": first_request}))
"""


def test_importing_the_wsgi_module_loads_the_views_and_back_ends_and_opens_no_connection():
    # The first request of each gunicorn process cost ~0.5 s of imports (make load's p99 of
    # 2-3 s after a restart); the module now pays it at start, with no query.
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "partida.settings"}
    env.pop("DATABASE_URL", None)  # SQLite: the check below holds on either database
    env["REDIS_URL"] = "redis://127.0.0.1:1/0"  # the Redis back end, at a port nothing serves
    result = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    wanted = (
        "partida.urls",
        "partida.api",
        "escenas.api",
        "mundo.views",
        "django.contrib.sessions.serializers",
        "django.contrib.messages.storage.fallback",
    )
    assert [m for m in wanted if m not in out["loaded"]] == []
    assert out["opened"] == []  # no database, no socket, no thread before the first request
    assert out["status"] == 200
    # What the first request still imports: none of the project's modules and none of Django's.
    assert [m for m in out["first_request"] if m.split(".")[0] in {
        "partida", "escenas", "mundo", "personajes", "nucleo", "django", "rest_framework"
    }] == []  # fmt: skip
