"""Heartbeats of the background processes, for the readiness check (``/salud/listo/``).

Beat records one on every scheduler loop (``partida.beat.HeartbeatScheduler``) and the worker
one each time it runs ``partida.heartbeat`` (queued by beat every minute), so a fresh worker
heartbeat also proves beat → Redis → worker works. Kept in Redis (``REDIS_URL``) as Unix times
(s) under ``partida:heartbeat:<role>``; without Redis (the embedded demo, tasks run in-process)
nothing is recorded and the readiness check does not ask for them.
"""

from __future__ import annotations

import time

from django.conf import settings

ROLES = ("worker", "beat")
KEY = "partida:heartbeat:{role}"
# A heartbeat key outlives any sensible alert threshold, then disappears (s).
TTL_S = 24 * 3600


def _client():
    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)


def heartbeat_record(role: str, *, now: float | None = None) -> bool:
    """Record that ``role`` (``worker`` or ``beat``) is alive now (Unix time, s).

    Returns False, recording nothing, when there is no ``REDIS_URL`` or Redis does not answer
    (a heartbeat must never stop the process that beats). Raises ValueError for another role.
    """
    if role not in ROLES:
        raise ValueError(f"unknown heartbeat role {role!r}")
    if not settings.REDIS_URL:
        return False
    import redis

    try:
        _client().set(KEY.format(role=role), f"{now or time.time():.3f}", ex=TTL_S)
    except redis.RedisError:
        return False
    return True


def heartbeats_read() -> dict[str, float | None]:
    """Each role's last heartbeat as a Unix time (s), ``None`` when never recorded.

    Raises redis.RedisError when Redis does not answer (the caller reports Redis as down).
    """
    if not settings.REDIS_URL:
        return dict.fromkeys(ROLES)
    values = _client().mget([KEY.format(role=role) for role in ROLES])
    return {
        role: float(v) if v is not None else None for role, v in zip(ROLES, values, strict=True)
    }
