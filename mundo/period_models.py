"""Entropy periods: a campaign's dice secret per period, committed before it is used and
revealed when the period closes (kept apart from ``mundo.models``, which re-exports it).

Source: issue 16 (verifiable dice); ``reglas.verify`` (the scheme).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


def new_dice_seed() -> str:
    """A member's first dice seed: 16 random hex digits (they may set their own)."""
    return secrets.token_hex(8)


class EntropyPeriod(models.Model):
    """One period of a campaign's dice: ``number`` 1, 2…, from in-game day ``first_day`` to
    ``last_day`` (empty while open). ``commitment`` (SHA-256 of the entropy's hex text,
    ``reglas.verify.commitment_of``) is public from ``opened_at``; ``entropy`` is empty until
    the period closes (the open period's secret lives only in ``Campaign.entropy``), then it is
    the revealed secret every roll of the period was drawn from.
    """

    campaign = models.ForeignKey(
        "mundo.Campaign", on_delete=models.CASCADE, related_name="entropy_periods"
    )
    number = models.PositiveIntegerField(_("period"))
    first_day = models.PositiveIntegerField(_("first day"))
    last_day = models.PositiveIntegerField(_("last day"), null=True, blank=True)
    commitment = models.CharField(_("commitment (SHA-256)"), max_length=64)
    entropy = models.CharField(_("revealed entropy"), max_length=64, blank=True)
    opened_at = models.DateTimeField(_("commitment published"), default=timezone.now)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = _("dice period")
        verbose_name_plural = _("dice periods")
        ordering = ["campaign", "number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="period_unique_number"),
            models.UniqueConstraint(
                fields=["campaign"],
                condition=Q(closed_at__isnull=True),
                name="period_one_open_per_campaign",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.campaign} · {self.number}"

    @property
    def is_open(self) -> bool:
        """True while the period's entropy is secret."""
        return self.closed_at is None
