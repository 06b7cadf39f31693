"""API token authentication: ``Authorization: Token <key>`` or ``Authorization: Bearer <key>``.

The key is hashed (SHA-256) and looked up by its hash; a revoked or unknown token, or a
malformed header, is refused with 401 and a message saying which. A request without an
``Authorization`` header falls through to the next class (the browser session). Failed
attempts are counted per client IP (``partida.throttling.BadTokenThrottle``); past the limit
every token from that IP gets 429 before its key is looked up.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from partida.models import ApiToken
from partida.services import hash_key, token_touch
from partida.throttling import BadTokenThrottle

KEYWORDS = ("token", "bearer")


class ApiTokenAuthentication(BaseAuthentication):
    """DRF authentication by a user's API token (``partida.models.ApiToken``).

    ``request.user`` is the token's user and ``request.auth`` the ``ApiToken`` (the throttles
    key on it). One query to find the token with its user, plus at most one UPDATE a minute for
    ``last_used``.
    """

    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].decode(errors="replace").lower() not in KEYWORDS:
            return None
        throttle = BadTokenThrottle()
        throttle.check(request)
        try:
            if len(parts) != 2:
                raise exceptions.AuthenticationFailed(
                    _("Malformed Authorization header: send “Token <key>” or “Bearer <key>”.")
                )
            try:
                key = parts[1].decode("ascii")
            except UnicodeDecodeError:
                raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
            return self.authenticate_credentials(key)
        except exceptions.AuthenticationFailed:
            throttle.failed(request)
            raise

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        """The (user, token) of this key; AuthenticationFailed (401) when it is unknown,
        revoked, or its user is inactive."""
        token = ApiToken.objects.select_related("user").filter(key_hash=hash_key(key)).first()
        if token is None:
            raise exceptions.AuthenticationFailed(_("Unknown token: check the key."))
        if token.revoked_at is not None:
            raise exceptions.AuthenticationFailed(_("This token has been revoked."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("This token's user is inactive."))
        token_touch(token)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) to unauthenticated requests that need a user.
        return 'Token realm="api"'


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """The token as an OpenAPI security scheme (HTTP bearer; ``Token <key>`` works too)."""

    target_class = "partida.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token from the profile page (/cuentas/perfil/): "
            "`Authorization: Bearer <key>` or `Authorization: Token <key>`.",
        }
