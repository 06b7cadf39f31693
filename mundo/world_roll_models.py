"""The daily tick's record and the master's world rolls: kept apart from ``mundo.models`` so
that module stays a readable size (it re-exports ``DayTick`` and ``WorldRoll``).
Source: RULES.md R16, R18, R22, R23, R24.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class DayTick(models.Model):
    """The record that day ``day`` of a campaign was reached by the daily tick (R24).

    Unique (campaign, day): the exactly-once guard. A second attempt at the same day finds
    this row and returns its summary instead of advancing again.
    """

    class Trigger(models.TextChoices):
        SCHEDULE = "schedule", _("schedule")
        MASTER = "master", _("master")
        ADMIN = "admin", _("admin")
        COMMAND = "command", _("command")

    campaign = models.ForeignKey("mundo.Campaign", on_delete=models.CASCADE, related_name="ticks")
    day = models.PositiveIntegerField(_("day reached"))
    trigger = models.CharField(_("trigger"), max_length=10, choices=Trigger.choices)
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    duration_ms = models.PositiveIntegerField(_("duration (ms)"), default=0)
    characters = models.PositiveIntegerField(_("characters"), default=0)
    deaths = models.PositiveIntegerField(_("deaths"), default=0)
    risen = models.PositiveIntegerField(_("risen"), default=0)
    message = models.CharField(_("message"), max_length=300, blank=True)
    summary = models.JSONField(_("summary"), default=dict, blank=True)

    class Meta:
        verbose_name = _("day tick")
        verbose_name_plural = _("day ticks")
        ordering = ["campaign", "-day"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "day"], name="day_tick_unique_day")
        ]

    def __str__(self) -> str:
        return f"{self.campaign} → {self.day}"


class WorldRoll(models.Model):
    """An append-only record of a roll the master made on the world: a shop discovered (R23), a
    place searched (R22), a route checked (R18); restorations of power or water are written here
    too (no dice), and so are the master's tallies (zombies destroyed, survivors rescued,
    R17: ``result`` holds the counts added, negative for an undo).
    ``generator_key`` = ``[day, purpose, subject id, sequence]`` of
    ``reglas.core.make_rng`` (purposes 10+; 1..3 are character and post rolls); the stored
    ``dice`` are the record, ``result`` the engine's outcome (JSON), ``description`` its text;
    ``period`` the dice period and ``commitment`` its commitment, ``draws`` the generator
    calls that made ``dice``.
    """

    class Kind(models.TextChoices):
        SHOP = "shop", _("shop discovered")
        SEARCH = "search", _("weapon search")
        ROUTE = "route", _("route checked")
        RESTORE = "restore", _("supply restored")
        TALLY = "tally", _("tally recorded")

    campaign = models.ForeignKey(
        "mundo.Campaign", on_delete=models.CASCADE, related_name="world_rolls"
    )
    day = models.PositiveIntegerField(_("in-game day"))
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    settlement = models.ForeignKey(
        "mundo.Settlement", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    location = models.ForeignKey(
        "mundo.Location", on_delete=models.SET_NULL, null=True, blank=True, related_name="rolls"
    )
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    generator_key = models.JSONField(_("generator key"), default=list)
    engine_version = models.CharField(_("engine version"), max_length=10)
    period = models.PositiveIntegerField(_("dice period"), default=1)
    commitment = models.CharField(_("period commitment (SHA-256)"), max_length=64, blank=True)
    # The engine's generator calls, ``[[low, high, count], …]`` (``reglas.verify``), recorded
    # as it rolled: a world roll's dice bounds come from the campaign's tables.
    draws = models.JSONField(_("draws"), default=list, blank=True)
    dice = models.JSONField(_("dice"), default=list)
    result = models.JSONField(_("result"), default=dict)
    description = models.TextField(_("description"))

    class Meta:
        verbose_name = _("world roll")
        verbose_name_plural = _("world rolls")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "generator_key"], name="world_roll_unique_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} · {self.day}"

    def save(self, *args: object, **kwargs: object) -> None:
        # Append-only, as personajes.Roll: the dice are the record.
        if self.pk is not None and not self._state.adding:
            raise ValueError("World rolls are immutable.")
        super().save(*args, **kwargs)  # type: ignore[arg-type]
