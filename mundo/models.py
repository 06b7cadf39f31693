"""The world: campaigns, their members and their settlements.

Source: RULES.md R17 (settlement population), R18 (cells), DESIGN.md (Time, Randomness).
"""

from __future__ import annotations

import datetime
import secrets
import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from reglas.errors import RulesError
from reglas.settings import RuleSettings


def new_invitation_token() -> str:
    """A URL-safe, unguessable invitation token (32 characters)."""
    return secrets.token_urlsafe(24)


def new_entropy() -> str:
    """A fresh 128-bit campaign secret as 32 hex digits (made once, with ``secrets``)."""
    return secrets.token_hex(16)


def validate_time_zone(value: str) -> None:
    """Raise ValidationError unless ``value`` is an IANA time zone name (``Europe/Madrid``)."""
    if value not in zoneinfo.available_timezones():
        raise ValidationError(_("“%(value)s” is not a known time zone."), params={"value": value})


def validate_rule_overrides(value: object) -> None:
    """Raise ValidationError unless ``value`` is a dict of valid rule overrides.

    Source: RULES.md, principle 1 (every number is a campaign setting).
    """
    if not isinstance(value, dict):
        raise ValidationError(_("Rule settings must be a JSON object."))
    try:
        RuleSettings.from_dict(value)
    except RulesError as exc:
        raise ValidationError(str(exc)) from None


class Campaign(models.Model):
    """A play-by-web campaign: its calendar, its rule settings and its secret entropy.

    In-game day 0 is the apocalypse; ``current_day`` maps to the date
    ``apocalypse_date + current_day``.
    """

    name = models.CharField(_("name"), max_length=120)
    slug = models.SlugField(_("slug"), max_length=120, unique=True)
    description = models.TextField(_("description"), blank=True)
    apocalypse_date = models.DateField(
        _("apocalypse date"), help_text=_("The calendar date of day 0.")
    )
    current_day = models.PositiveIntegerField(
        _("current day"), default=0, help_text=_("Days since the apocalypse.")
    )
    time_zone = models.CharField(
        _("time zone"), max_length=64, default="Europe/Madrid", validators=[validate_time_zone]
    )
    is_public = models.BooleanField(
        _("public"),
        default=False,
        help_text=_("Anyone may read a public campaign's pages without signing in."),
    )
    rule_overrides = models.JSONField(
        _("rule settings"),
        default=dict,
        blank=True,
        validators=[validate_rule_overrides],
        help_text=_('Only the numbers that differ from RULES.md, e.g. {"trait_cap": 5}.'),
    )
    entropy = models.CharField(
        _("secret entropy"), max_length=64, default=new_entropy, editable=False
    )
    living_characters_per_player = models.PositiveSmallIntegerField(
        _("living characters per player"),
        default=1,
        validators=[MinValueValidator(1)],
        help_text=_("How many living characters a player may have at once in this campaign."),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("campaign")
        verbose_name_plural = _("campaigns")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("mundo:campaign", kwargs={"slug": self.slug})

    @property
    def current_date(self) -> datetime.date:
        """The calendar date of the current in-game day."""
        return self.apocalypse_date + datetime.timedelta(days=self.current_day)

    @property
    def rules(self) -> RuleSettings:
        """The campaign's rule settings: RULES.md defaults with its overrides applied."""
        return RuleSettings.from_dict(self.rule_overrides)

    @property
    def entropy_int(self) -> int:
        """The secret entropy as an integer, for ``reglas.core.make_rng``."""
        return int(self.entropy, 16)


class Membership(models.Model):
    """A user's role in a campaign: master or player."""

    class Role(models.TextChoices):
        MASTER = "master", _("master")
        PLAYER = "player", _("player")

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("campaign")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="memberships",
        verbose_name=_("user"),
    )
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.PLAYER)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="membership_unique_user")
        ]

    def __str__(self) -> str:
        return f"{self.user} — {self.campaign} ({self.get_role_display()})"


class Settlement(models.Model):
    """A settlement whose zombie population follows the logistic curve of R17.

    ``population`` is K (pre-apocalypse inhabitants), ``area_m2`` its populated area in m²,
    ``growth_rate`` r per day. Source: RULES.md R17, R18.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="settlements", verbose_name=_("campaign")
    )
    name = models.CharField(_("name"), max_length=120)
    slug = models.SlugField(_("slug"), max_length=120)
    population = models.PositiveIntegerField(
        _("pre-apocalypse population (K)"), validators=[MinValueValidator(1)]
    )
    area_m2 = models.FloatField(
        _("area (m²)"),
        validators=[MinValueValidator(4.0)],
        help_text=_("Populated area; cells of 2 × 2 m = area / 4."),
    )
    growth_rate = models.FloatField(
        _("growth rate (r)"), default=1.0, validators=[MinValueValidator(0.001)]
    )

    class Meta:
        verbose_name = _("settlement")
        verbose_name_plural = _("settlements")
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "slug"], name="settlement_unique_slug"),
            models.CheckConstraint(
                condition=models.Q(population__gte=1), name="settlement_population_positive"
            ),
            models.CheckConstraint(
                condition=models.Q(area_m2__gte=4), name="settlement_area_at_least_one_cell"
            ),
            models.CheckConstraint(
                condition=models.Q(growth_rate__gt=0), name="settlement_growth_rate_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse(
            "mundo:settlement", kwargs={"slug": self.campaign.slug, "settlement": self.slug}
        )


class Invitation(models.Model):
    """A link the master shares so that someone joins the campaign as a player.

    Single use (consumed by the first person who accepts it) or reusable until it expires;
    the master may revoke it at any time.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("campaign")
    )
    token = models.CharField(
        _("token"), max_length=64, unique=True, default=new_invitation_token, editable=False
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"), null=True, blank=True)
    single_use = models.BooleanField(_("single use"), default=True)
    uses = models.PositiveIntegerField(_("uses"), default=0)
    revoked = models.BooleanField(_("revoked"), default=False)

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.campaign} · {self.token[:8]}…"

    def get_absolute_url(self) -> str:
        return reverse("mundo:invitation", kwargs={"token": self.token})
