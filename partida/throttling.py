"""API throttles: per token, per session user, per anonymous IP, and per user overall.

``ApiClientThrottle`` keys on the credential: the token's id when a token is used (scope
``token``), else the signed-in user (scope ``session``), else the client IP (scope ``anon``).
``ApiUserThrottle`` adds a ceiling for everything one user does, whatever token or session
(scope ``user``), so many tokens do not multiply a user's rate. Rates are read from
``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` at each request (settings overrides apply).
A throttled request gets 429 with ``Retry-After``.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from partida.models import ApiToken


class _DynamicRateThrottle(SimpleRateThrottle):
    """A SimpleRateThrottle whose scope is chosen per request and whose rate is read then."""

    def __init__(self) -> None:  # the rate depends on the request: see allow_request
        pass

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

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
