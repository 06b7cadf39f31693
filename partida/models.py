"""Project-level models: the users' API tokens, and the campaign exports masters download.

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


class CampaignExport(models.Model):
    """One campaign archive (``partida.archive.campaign_export``) a master asked for on the
    campaign's export page, built by the ``partida.build_campaign_export`` task.

    ``progress`` is 0–100 % (the models written so far); ``file`` is the zip in the default
    storage under ``exports/`` (never served by path: only ``partida.export_views.download``
    serves it, to the campaign's masters). Old ones are deleted (``partida.exports``).
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting")
        BUILDING = "building", _("being built")
        READY = "ready", _("ready")
        FAILED = "failed", _("failed")

    campaign = models.ForeignKey(
        "mundo.Campaign",
        on_delete=models.CASCADE,
        related_name="exports",
        verbose_name=_("campaign"),
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("requested by"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    progress = models.PositiveSmallIntegerField(_("progress (%)"), default=0)
    file = models.FileField(_("file"), upload_to="exports/", blank=True)
    size = models.PositiveBigIntegerField(_("size (bytes)"), default=0)
    error = models.CharField(_("error"), max_length=300, blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    finished = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("campaign export")
        verbose_name_plural = _("campaign exports")
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.campaign_id} · {self.created:%Y-%m-%d %H:%M} · {self.status}"

    @property
    def in_progress(self) -> bool:
        """Still waiting or being built (the page polls)."""
        return self.status in (self.Status.PENDING, self.Status.BUILDING)
