"""The Redis cache backend with one Redis client per connection pool.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` for every cache call
(``django/core/cache/backends/redis.py``): about 0.3 ms of CPU each (its response-callback
tables), more than the round trip itself, and a post through the API makes 13 cache calls
(throttles, the table-write generations of ``nucleo.table_writes``; issue 13, load test). A
``redis.Redis`` is safe to share between threads (each command takes a connection from the
pool), so one per pool is kept and reused; the pools are Django's own, one per server.

``settings.CACHES`` names ``nucleo.cache.RedisCache`` where Django's would be.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends import redis as django_redis


class RedisCacheClient(django_redis.RedisCacheClient):
    """Django's client, keeping the ``redis.Redis`` of each connection pool."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        """The pool's one ``redis.Redis`` (made on first use), as Django's would be."""
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
            client = self._clients[index] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class RedisCache(django_redis.RedisCache):
    """Django's Redis cache (``LOCATION``, ``OPTIONS`` as there) with ``RedisCacheClient``."""

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient
