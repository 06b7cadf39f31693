"""API throttles: per token, per session user, per anonymous IP, and per user overall.

``ApiClientThrottle`` keys on the credential: the token's id when a token is used (scope
``token``), else the signed-in user (scope ``session``), else the client IP (scope ``anon``).
``ApiUserThrottle`` adds a ceiling for everything one user does, whatever token or session
(scope ``user``), so many tokens do not multiply a user's rate. Rates are read from
``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` at each request (settings overrides apply).
A throttled request gets 429 with ``Retry-After``.

``BadTokenThrottle`` counts failed token authentications per client IP (scope ``bad_token``):
authentication runs before DRF's throttles, so it is called from
``partida.authentication.ApiTokenAuthentication`` itself.
"""

from __future__ import annotations

import time
from typing import Any, cast

from django.core.cache import cache
from django.utils.translation import gettext as _
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from partida.models import ApiToken

_Rates = dict[str | None, str | None]
"""The rates setting as it is ("120/min"; drf-stubs types its values as numbers)."""


class _DynamicRateThrottle(SimpleRateThrottle):
    """A SimpleRateThrottle whose scope is chosen per request and whose rate is read then."""

    def __init__(self) -> None:  # the rate depends on the request: see allow_request
        pass

    def get_rate(self) -> str | None:
        rates = cast(_Rates, api_settings.DEFAULT_THROTTLE_RATES)
        return rates.get(self.scope)

    def scope_for(self, request: Request) -> str | None:
        raise NotImplementedError

    def allow_request(self, request: Request, view: Any) -> bool:
        self.scope = self.scope_for(request)
        if self.scope is None:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)


class ApiClientThrottle(_DynamicRateThrottle):
    """Per token (``token``), else per signed-in user (``session``), else per IP (``anon``)."""

    def scope_for(self, request: Request) -> str:
        if isinstance(request.auth, ApiToken):
            return "token"
        if request.user and request.user.is_authenticated:
            return "session"
        return "anon"

    def get_cache_key(self, request: Request, view: Any) -> str:
        if isinstance(request.auth, ApiToken):
            ident = f"t{request.auth.pk}"
        elif request.user and request.user.is_authenticated:
            ident = f"u{request.user.pk}"
        else:
            ident = f"ip{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}


class ApiUserThrottle(_DynamicRateThrottle):
    """Everything one signed-in user does, through any token or session (``user``)."""

    def scope_for(self, request: Request) -> str | None:
        if request.user and request.user.is_authenticated:
            return "user"
        return None

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class BadTokenThrottle:
    """Failed API-token attempts per client IP, in fixed windows (rate ``bad_token``, e.g.
    ``10/min``): once an IP has failed that many times in the current window, every token it
    sends is refused with 429 (``Retry-After``: seconds to the window's end) before the key is
    looked up, the right key included. Requests without a token are not counted. The IP is
    DRF's (``NUM_PROXIES`` and ``X-Forwarded-For`` as for the other throttles).
    """

    scope = "bad_token"

    def _window(self, request: Request) -> tuple[str, int, float] | None:
        rates = cast(_Rates, api_settings.DEFAULT_THROTTLE_RATES)
        rate = rates.get(self.scope)
        if not rate:
            return None
        num, period = rate.split("/")
        amount, duration = int(num), {"s": 1, "m": 60, "h": 3600, "d": 86400}[period[0]]
        now = time.time()
        window = int(now // duration)
        ident = BaseThrottle().get_ident(request)
        wait = (window + 1) * duration - now
        return f"throttle_{self.scope}_{ident}_{window}", amount, wait

    def check(self, request: Request) -> None:
        """Raise Throttled (429) when this IP has used its failed attempts in this window."""
        window = self._window(request)
        if window is not None and cache.get(window[0], 0) >= window[1]:
            raise Throttled(
                wait=window[2],
                detail=_("Too many requests with a bad token from your address."),
            )

    def failed(self, request: Request) -> None:
        """Count one failed token attempt from this IP."""
        window = self._window(request)
        if window is None:
            return
        key, _amount, wait = window
        if cache.add(key, 1, timeout=int(wait) + 1):
            return
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=int(wait) + 1)
