"""Project-level models: the users' API tokens.

A token's key is shown once, when it is made (``partida.services.token_create``); only its
SHA-256 hash is stored, with the first 8 characters (``prefix``) so the user can tell their
tokens apart on the profile page. A revoked token stays listed (``revoked_at``) and is refused
with 401 by ``partida.authentication.ApiTokenAuthentication``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

KEY_PREFIX_LENGTH = 8
"""Characters of the key kept in clear (``ApiToken.prefix``) to recognise a token."""


class ApiToken(models.Model):
    """A named API token of one user: ``Authorization: Token <key>`` (or ``Bearer <key>``)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        verbose_name=_("user"),
    )
    name = models.CharField(
        _("name"), max_length=60, help_text=_("What the token is for, e.g. “diary bot”.")
    )
    prefix = models.CharField(
        _("prefix"),
        max_length=KEY_PREFIX_LENGTH,
        db_index=True,
        help_text=_("The first 8 characters of the key, to recognise it."),
    )
    key_hash = models.CharField(
        _("key hash"), max_length=64, unique=True, help_text=_("SHA-256 of the key, in hex.")
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)
    last_used = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        """True until the token is revoked."""
        return self.revoked_at is None
