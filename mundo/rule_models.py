"""A campaign's own rule numbers and tables: their validators and the log of the master's edits.

The values live on ``Campaign`` (``rule_overrides`` for the scalars of ``RuleSettings``,
``rule_tables`` for the tables the master replaced); ``RuleChange`` records who changed what and
when. Kept apart from ``mundo.models`` so that module stays a readable size.

Source: RULES.md principle 1 (every number is a campaign setting, and every setting is live).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from nucleo.rules_errors import rules_message
from reglas.errors import RulesError
from reglas.settings import RuleSettings
from reglas.tables import Tables


def validate_rule_overrides(value: object) -> None:
    """Raise ValidationError unless ``value`` is a dict of valid rule overrides.

    Source: RULES.md, principle 1 (every number is a campaign setting).
    """
    if not isinstance(value, dict):
        raise ValidationError(_("Rule settings must be a JSON object."))
    try:
        RuleSettings.from_dict(value)
    except RulesError as exc:
        raise ValidationError(rules_message(exc)) from None


def validate_rule_tables(value: object) -> None:
    """Raise ValidationError unless ``value`` maps table names to valid whole tables.

    Source: RULES.md, principle 1.
    """
    if not isinstance(value, dict):
        raise ValidationError(_("Rule tables must be a JSON object."))
    try:
        Tables.from_overrides(value)
    except RulesError as exc:
        raise ValidationError(rules_message(exc)) from None


class RuleChange(models.Model):
    """One save of the master's rules page: who, when, which group, and each value's old and
    new form (``changes``: a list of ``{"name", "old", "new"}``; ``name`` is a setting's field
    name or a table cell such as ``combat.calibers.9mm.threshold``)."""

    campaign = models.ForeignKey(
        "mundo.Campaign",
        on_delete=models.CASCADE,
        related_name="rule_changes",
        verbose_name=_("campaign"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("changed by"),
    )
    changed_at = models.DateTimeField(_("changed at"), default=timezone.now)
    group = models.CharField(_("group"), max_length=40)
    changes = models.JSONField(_("changes"), default=list)

    class Meta:
        verbose_name = _("rule change")
        verbose_name_plural = _("rule changes")
        ordering = ["-changed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.campaign} · {self.group} · {self.changed_at:%Y-%m-%d %H:%M}"


class Arrival(models.Model):
    """Where a campaign's new characters arrive: the shelter (and so its settlement) a sheet's
    approval gives a character that has none. The kit they carry is rule settings
    (``arrival_food_days``, ``arrival_water_days``, ``arrival_toilet_paper_rolls``).
    One row per campaign at most; none = no default shelter. Edited on the master's rules page
    (``mundo.rules.arrival_shelter_set``)."""

    campaign = models.OneToOneField(
        "mundo.Campaign",
        on_delete=models.CASCADE,
        related_name="arrival",
        verbose_name=_("campaign"),
    )
    shelter = models.ForeignKey(
        "mundo.Location",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("default shelter"),
        limit_choices_to={"kind": "shelter"},
    )

    class Meta:
        verbose_name = _("arrival of new characters")
        verbose_name_plural = _("arrivals of new characters")

    def __str__(self) -> str:
        return f"{self.campaign} · {self.shelter or '—'}"
