"""The ledger of supplies: one ``Movement`` row per change of what someone holds.

Kept apart from ``personajes.models`` so that module stays a readable size; re-exported there.
Source: RULES.md R15 (what a character carries, a shelter's stash), R23 (a shop's stock).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Movement(models.Model):
    """Units of one item that moved: from a character or a place (its stash or its stock) to a
    character or a place, by whom, why, on which in-game day. ``quantity`` > 0 (units of the
    item, 3 decimals); at least one side is set (the arrival kit comes from nowhere, a
    master's take goes nowhere). Written only by ``personajes.movements``, in the transaction
    of the stock change itself. The daily tick's consumption writes none (the diary row is its
    record: kcal eaten and litres drunk, RULES.md R25)."""

    class Reason(models.TextChoices):
        ARRIVAL = "arrival", _("arrival kit")
        GIVE = "give", _("given")
        STASH_LEAVE = "stash_leave", _("left in the stash")
        STASH_TAKE = "stash_take", _("taken from the stash")
        SHOP_TAKE = "shop_take", _("taken from a shop")
        FIND_TAKE = "find_take", _("taken from a search's finds")
        MASTER_GIVE = "master_give", _("given by the master")
        MASTER_TAKE = "master_take", _("taken by the master")
        MASTER_MOVE = "master_move", _("moved by the master between places")
        UNDO = "undo", _("undone")

    campaign = models.ForeignKey(
        "mundo.Campaign", on_delete=models.CASCADE, related_name="movements"
    )
    day = models.PositiveIntegerField(_("in-game day"))
    item_type = models.ForeignKey(
        "personajes.ItemType", on_delete=models.PROTECT, related_name="+", verbose_name=_("item")
    )
    quantity = models.DecimalField(_("quantity"), max_digits=12, decimal_places=3)
    from_character = models.ForeignKey(
        "personajes.Character",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="movements_out",
        verbose_name=_("from (character)"),
    )
    from_place = models.ForeignKey(
        "mundo.Location",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="movements_out",
        verbose_name=_("from (place)"),
    )
    to_character = models.ForeignKey(
        "personajes.Character",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="movements_in",
        verbose_name=_("to (character)"),
    )
    to_place = models.ForeignKey(
        "mundo.Location",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="movements_in",
        verbose_name=_("to (place)"),
    )
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reason = models.CharField(_("why"), max_length=20, choices=Reason.choices)
    # An undo is a movement the other way that names the one it reverts (once: one-to-one).
    reverses = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="reversal",
        verbose_name=_("undoes"),
    )
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        verbose_name = _("movement of supplies")
        verbose_name_plural = _("movements of supplies")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(quantity__gt=0), name="movement_quantity_gt_0"),
            models.CheckConstraint(
                condition=Q(from_character__isnull=True) | Q(from_place__isnull=True),
                name="movement_one_source",
            ),
            models.CheckConstraint(
                condition=Q(to_character__isnull=True) | Q(to_place__isnull=True),
                name="movement_one_destination",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} × {self.item_type_id} ({self.reason})"
