"""Celery beat's scheduler with a heartbeat: ``scripts/run beat`` starts beat with it.

Every scheduler loop (at most ``CELERY_BEAT_MAX_LOOP_INTERVAL`` s apart) touches the file
``BEAT_HEARTBEAT_FILE`` (compose's health check, ``scripts/run beat-alive``, fails when it is
older than 120 s) and records the beat heartbeat in Redis (``partida.heartbeats``), at most
once every ``WRITE_EVERY_S`` seconds.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from celery.beat import PersistentScheduler

WRITE_EVERY_S = 10.0


class HeartbeatScheduler(PersistentScheduler):
    """``PersistentScheduler`` (the schedule in the ``--schedule`` file) that beats each loop."""

    _last_beat = 0.0

    def tick(self, *args: Any, **kwargs: Any) -> float:
        """Run the due entries (Celery's tick), then beat. Returns the seconds to sleep."""
        delay: float = super().tick(*args, **kwargs)
        now = time.time()
        if now - self._last_beat >= WRITE_EVERY_S:
            self._last_beat = now
            beat_heartbeat_write(now)
        return delay


def beat_heartbeat_write(now: float) -> None:
    """Touch ``BEAT_HEARTBEAT_FILE`` (if set) and record the Redis heartbeat at ``now`` (s)."""
    from partida.heartbeats import heartbeat_record

    path = os.environ.get("BEAT_HEARTBEAT_FILE")
    if path:
        heartbeat = Path(path)
        heartbeat.touch()
        os.utime(heartbeat, (now, now))
    heartbeat_record("beat", now=now)
