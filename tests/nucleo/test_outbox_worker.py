"""A real Celery worker process delivers the outbox through the real Redis and PostgreSQL.

Skipped without ``REDIS_URL`` and PostgreSQL (the embedded default delivers in-process); CI
sets both. The worker reads the test database and writes the e-mails to files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from celery.result import allow_join_result
from django.db import connection

from nucleo.mail import deliver_outbox, message_new
from nucleo.models import OutboxMessage

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.redis,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not os.environ.get("REDIS_URL"),
        reason="needs REDIS_URL: a real Redis broker for a real worker process (CI sets it)",
    ),
]


def test_a_real_worker_delivers_the_outbox_once(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the worker process reads the test database")
    db = connection.settings_dict
    OutboxMessage.objects.bulk_create(  # not outbox_enqueue: no delivery in this process
        [
            message_new(to="ana@example.com", subject="Día\u20287", body_text="Hola"),
            message_new(to="eva@example.com", subject="Día 7", body_text="Hola"),
        ]
    )
    queue = f"partida-test-{uuid.uuid4().hex[:8]}"
    env = os.environ.copy()
    env["DATABASE_URL"] = (
        f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT'] or 5432}/"
        f"{db['NAME']}"
    )
    env["EMAIL_BACKEND"] = "django.core.mail.backends.filebased.EmailBackend"
    env["EMAIL_FILE_PATH"] = str(tmp_path)
    command = [sys.executable, "-m", "celery", "-A", "partida", "worker", "--pool=solo"]
    command += ["--queues", queue, "--hostname", f"{queue}@%h", "--loglevel=info"]
    command += ["--without-heartbeat", "--without-gossip", "--without-mingle"]
    worker = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        with allow_join_result():
            first = deliver_outbox.apply_async(queue=queue).get(timeout=90)
            second = deliver_outbox.apply_async(queue=queue).get(timeout=90)
    finally:
        worker.terminate()
        output, _ = worker.communicate(timeout=30)
    assert first == {"sent": 2, "retrying": 0, "failed": 0}, output
    assert second == {"sent": 0, "retrying": 0, "failed": 0}
    assert set(OutboxMessage.objects.values_list("state", flat=True)) == {"sent"}
    written = "".join(p.read_text() for p in tmp_path.iterdir())
    assert written.count("Subject:") == 2
    assert "Subject: =?utf-8?" in written or "Subject: Día 7" in written
    assert "\u2028" not in written
