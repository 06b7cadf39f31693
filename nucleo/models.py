"""The kernel's models: the outbox of e-mails (``nucleo.mail`` writes and delivers it) and each
user's reading settings, language and time zone (``nucleo.readers`` reads and saves them)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class OutboxMessage(models.Model):
    """One e-mail to one recipient, written in the same transaction as what causes it and
    delivered by the worker (``nucleo.outbox.outbox_deliver``), at least once.

    ``state``: pending (due at ``next_attempt_at``), sending (claimed by a worker under
    ``claim`` until ``next_attempt_at``, after which another worker may take it again), sent
    (``sent_at``: the server accepted it) or failed (given up after ``MAX_ATTEMPTS``).
    ``attempts``: how many times a worker claimed it. ``headers``: extra header values, already
    cleaned by ``nucleo.mail.header_text``. ``last_error``: the reason of the last failure.
    ``topic``: what the message is about (e.g. ``post:<id>``), so a sender can withdraw the
    messages not sent yet (``nucleo.mail.outbox_withdraw``: a deleted post).
    """

    class State(models.TextChoices):
        PENDING = "pending", _("pending")
        SENDING = "sending", _("sending")
        SENT = "sent", _("sent")
        FAILED = "failed", _("failed")

    recipient = models.CharField(_("recipient"), max_length=254)
    subject = models.CharField(_("subject"), max_length=255)
    body_text = models.TextField(_("text body"))
    body_html = models.TextField(_("HTML body"), blank=True, default="")
    headers = models.JSONField(_("headers"), default=dict, blank=True)
    topic = models.CharField(_("topic"), max_length=64, blank=True, default="", db_index=True)
    state = models.CharField(
        _("state"), max_length=10, choices=State.choices, default=State.PENDING
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(_("next attempt"), default=timezone.now)
    claim = models.CharField(max_length=32, blank=True, default="")
    last_error = models.TextField(_("last error"), blank=True, default="")
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)

    class Meta:
        verbose_name = _("outgoing e-mail")
        verbose_name_plural = _("outgoing e-mails")
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=models.Q(state__in=["pending", "sending"]),
                name="outbox_due",
            )
        ]

    def __str__(self) -> str:
        return f"#{self.pk} → {self.recipient} · {self.state}"


class UserSettings(models.Model):
    """How one user reads the site and its e-mails: ``language`` (a code of
    ``settings.LANGUAGES``; empty: the site's, or the footer's choice) and ``time_zone`` (an IANA
    name, e.g. ``Europe/Madrid``, ``America/Mexico_City``; every time shown to them, on pages
    and in e-mails, is in it and carries its zone label). No row: the site's defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reader_settings",
        verbose_name=_("user"),
    )
    language = models.CharField(
        _("language"), max_length=10, blank=True, default="", choices=settings.LANGUAGES
    )
    time_zone = models.CharField(_("time zone"), max_length=64, default=settings.TIME_ZONE)

    class Meta:
        verbose_name = _("user settings")
        verbose_name_plural = _("user settings")

    def __str__(self) -> str:
        return f"{self.user_id} · {self.language or '-'} · {self.time_zone}"
