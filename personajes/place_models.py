"""Where characters go: one ``CharacterMove`` row per change of a character's place or shelter.

Kept apart from ``personajes.models`` so that module stays a readable size; re-exported there.
Source: RULES.md R18 (the route check on the way), R7/R10/R15 (the shelter it lives in).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class CharacterMove(models.Model):
    """A character went from one place to another, or the master gave it another shelter.

    ``from_*``/``to_*`` are the settlement, the place in it (empty: the streets) and the
    shelter it lives in (R7 hygiene, R15 stash, R10 cohabitants read ``Character.shelter``),
    before and after. ``route_check`` is the master's R18 roll made for the move (None: no
    route crossed, e.g. a shelter assigned); ``zombies_met`` its result, and ``outcome`` what
    the master made of them (a fight, narrated). ``reverses`` points at the move an undo
    reverted (each move is undone at most once). Written only by ``personajes.places``.
    """

    class Outcome(models.TextChoices):
        NONE = "none", _("no zombies met")
        PENDING = "pending", _("zombies met: to be played")
        COMBAT = "combat", _("zombies met: a fight")
        NARRATED = "narrated", _("zombies met: narrated")

    campaign = models.ForeignKey(
        "mundo.Campaign", on_delete=models.CASCADE, related_name="character_moves"
    )
    character = models.ForeignKey(
        "personajes.Character", on_delete=models.CASCADE, related_name="moves"
    )
    day = models.PositiveIntegerField(_("in-game day"))
    from_settlement = models.ForeignKey(
        "mundo.Settlement", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    from_location = models.ForeignKey(
        "mundo.Location", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    from_shelter = models.ForeignKey(
        "mundo.Location", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    to_settlement = models.ForeignKey(
        "mundo.Settlement", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    to_location = models.ForeignKey(
        "mundo.Location", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    to_shelter = models.ForeignKey(
        "mundo.Location", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    route_check = models.ForeignKey(
        "mundo.WorldRoll",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="moves",
        verbose_name=_("route check"),
    )
    zombies_met = models.PositiveIntegerField(_("zombies met"), default=0)
    outcome = models.CharField(
        _("outcome"), max_length=10, choices=Outcome.choices, default=Outcome.NONE
    )
    reverses = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="reversal",
        verbose_name=_("undoes"),
    )
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        verbose_name = _("character's move")
        verbose_name_plural = _("characters' moves")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.character_id} · {self.day}"
