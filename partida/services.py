"""Writes of the project level: users' API tokens.

Tokens: several per user, named, revocable, only a hash stored, the key shown once.
Source: DESIGN.md ("REST client … with a token").
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from nucleo.errors import ServiceError
from nucleo.locks import lock_rows
from partida.models import KEY_PREFIX_LENGTH, ApiToken

MAX_ACTIVE_TOKENS = 20
"""Active (unrevoked) tokens one user may have at once."""

NAME_MAX_LENGTH = ApiToken._meta.get_field("name").max_length or 60


def hash_key(key: str) -> str:
    """SHA-256 of a token key, 64 hex digits: what is stored and looked up.

    A plain (unsalted, fast) hash is enough: keys are 256-bit random strings, not passwords.
    """
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    """A fresh key: 43 URL-safe characters (256 random bits, ``secrets``)."""
    return secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class NewToken:
    """A token just made and its key in clear: the only time the key exists outside the
    client."""

    token: ApiToken
    key: str


@transaction.atomic
def token_create(*, user: User, name: str) -> NewToken:
    """Make a named API token for ``user``; the key is returned once and never stored.

    ``name`` is stripped; 1..60 characters. Raises ServiceError ``{"name": …}`` when it is empty
    or too long, or (``{"__all__": …}``) when the user already has ``MAX_ACTIVE_TOKENS`` active
    tokens. The user's row is locked so two requests cannot both pass the limit.
    """
    clean = (name or "").strip() if isinstance(name, str) else ""
    if not clean:
        raise ServiceError({"name": _("Give the token a name, e.g. “diary bot”.")})
    if len(clean) > NAME_MAX_LENGTH:
        raise ServiceError({"name": _("At most %(max)d characters.") % {"max": NAME_MAX_LENGTH}})
    lock_rows(get_user_model().objects.filter(pk=user.pk), account=True)
    active = ApiToken.objects.filter(user=user, revoked_at__isnull=True).count()
    if active >= MAX_ACTIVE_TOKENS:
        raise ServiceError(
            _("You already have %(max)d active tokens: revoke one first.")
            % {"max": MAX_ACTIVE_TOKENS}
        )
    key = new_key()
    token = ApiToken.objects.create(
        user=user, name=clean, prefix=key[:KEY_PREFIX_LENGTH], key_hash=hash_key(key)
    )
    return NewToken(token=token, key=key)


def token_revoke(*, token: ApiToken, user: User) -> ApiToken:
    """Revoke one of ``user``'s tokens: it gets 401 from now on. Revoking twice is a no-op
    (the first ``revoked_at`` stays). Raises ServiceError when the token is someone else's.
    """
    if token.user_id != user.pk:
        raise ServiceError(_("This token is not yours."))
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token.refresh_from_db(fields=["revoked_at"])
    return token


def token_touch(token: ApiToken, *, every_seconds: int = 60) -> None:
    """Record that the token was used now, at most once a minute (one UPDATE, none while the
    last one is fresher than ``every_seconds``), so polling clients do not write every time.
    """
    now = timezone.now()
    if token.last_used is not None and (now - token.last_used).total_seconds() < every_seconds:
        return
    ApiToken.objects.filter(pk=token.pk).update(last_used=now)
    token.last_used = now


__all__ = ["NewToken", "hash_key", "token_create", "token_revoke", "token_touch"]
