"""What is left in a shop when the characters discover it.

Computed once, at discovery: d100 + 3 × day picks a band, the band gives a share range, the
exact share is drawn uniformly (whole percent) within it, and each supply of the shop type's
base stock is that share of it, rounded down.

Source: RULES.md R23 (the rulebook announces this table but does not include it; the default
is ours and lives in ``reglas/data/supplies.json``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reglas.errors import RulesError
from reglas.settings import RuleSettings
from reglas.tables import DEFAULT_SUPPLIES, SuppliesTable, SupplyBand

__all__ = ["SHOP_TYPES", "ShopSupplies", "band_for", "roll_shop_supplies"]

SHOP_TYPES: tuple[str, ...] = tuple(s.shop_type for s in DEFAULT_SUPPLIES.shops)
"""Default shop types: supermercado, comercio_alimenticio, tienda, gasolinera, farmacia."""


def band_for(total: int, table: SuppliesTable = DEFAULT_SUPPLIES) -> tuple[int, SupplyBand]:
    """Index and band of a d100 + 3 × day total (≤ 30 first band … > 120 the empty one).

    Source: RULES.md R23.
    """
    for i, band in enumerate(table.bands):
        if band.upto is None or total <= band.upto:
            return i, band
    raise AssertionError("validated tables end with an open band")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class ShopSupplies:
    """A shop's remaining supplies and the rolls that decided them.

    ``die`` d100, ``day_modifier`` = 3 × ``day``, ``total`` = die + modifier → band
    ``band_index`` (``band_min_pct``..``band_max_pct`` %). ``share_roll`` is the uniform draw of
    the exact share within the band (None when the band is a single value, e.g. empty, and
    nothing was drawn); ``share_pct`` the share in % (0..100). Stock = ⌊share × base⌋: food
    (kcal), water (L), toilet paper (rolls), medicine (doses). Source: RULES.md R23.
    """

    shop_type: str
    shop_label: str
    day: int
    die: int
    day_modifier: int
    total: int
    band_index: int
    band_upto: int | None
    band_min_pct: int
    band_max_pct: int
    share_roll: int | None
    share_pct: int
    food_kcal: int
    water_l: int
    toilet_paper_rolls: int
    medicine_doses: int

    @property
    def empty(self) -> bool:
        """True when nothing at all is left."""
        return self.share_pct == 0

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "shop_type": self.shop_type,
            "shop_label": self.shop_label,
            "day": self.day,
            "die": self.die,
            "day_modifier": self.day_modifier,
            "total": self.total,
            "band_index": self.band_index,
            "band_upto": self.band_upto,
            "band_min_pct": self.band_min_pct,
            "band_max_pct": self.band_max_pct,
            "share_roll": self.share_roll,
            "share_pct": self.share_pct,
            "food_kcal": self.food_kcal,
            "water_l": self.water_l,
            "toilet_paper_rolls": self.toilet_paper_rolls,
            "medicine_doses": self.medicine_doses,
        }

    def describe(self) -> str:
        """Spanish text showing the die, the band and the share draw."""
        band = f"{self.band_min_pct}–{self.band_max_pct} %" if self.band_max_pct > 0 else "vacía"
        if self.share_roll is not None:
            share = f"reparto al azar en la banda: {self.share_roll} %"
        else:
            share = f"queda un {self.share_pct} %"
        return (
            f"{self.shop_label}, día {self.day}: d100 = {self.die} + {self.day_modifier} "
            f"(3 × día) = {self.total} → banda {band}; {share}. "
            f"Quedan {_thousands(self.food_kcal)} kcal de comida, "
            f"{_thousands(self.water_l)} L de agua, "
            f"{_thousands(self.toilet_paper_rolls)} rollos de papel higiénico y "
            f"{_thousands(self.medicine_doses)} dosis de medicinas."
        )


def _thousands(n: int) -> str:
    """Spanish grouping with a no-break space: 150 000."""
    return f"{n:,}".replace(",", "\u00a0")


def roll_shop_supplies(
    shop_type: str,
    day: int,
    rng: np.random.Generator,
    table: SuppliesTable = DEFAULT_SUPPLIES,
) -> ShopSupplies:
    """Roll what remains in a newly discovered shop of ``shop_type`` on in-game ``day``.

    Dice: one d100, then (if the band spans several values) one uniform integer share in
    ``min_pct..max_pct``. Stock amounts are ⌊base × share / 100⌋ (exact integer arithmetic),
    never negative. Raises RulesError for an unknown shop type or a negative day.
    Source: RULES.md R23.
    """
    shop = table.shop(shop_type)
    if day < 0:
        raise RulesError(
            "day_negative_given", f"El día no puede ser negativo (se recibió {day}).", day=day
        )
    die = int(rng.integers(1, 101))
    modifier = table.day_factor * day
    total = die + modifier
    index, band = band_for(total, table)
    share_roll: int | None = None
    if band.max_pct > band.min_pct:
        share_roll = int(rng.integers(band.min_pct, band.max_pct + 1))
        share = share_roll
    else:
        share = band.min_pct
    return ShopSupplies(
        shop_type=shop.shop_type,
        shop_label=shop.label,
        day=day,
        die=die,
        day_modifier=modifier,
        total=total,
        band_index=index,
        band_upto=band.upto,
        band_min_pct=band.min_pct,
        band_max_pct=band.max_pct,
        share_roll=share_roll,
        share_pct=share,
        food_kcal=shop.food_kcal * share // 100,
        water_l=shop.water_l * share // 100,
        toilet_paper_rolls=shop.toilet_paper_rolls * share // 100,
        medicine_doses=shop.medicine_doses * share // 100,
    )


@dataclass(frozen=True, slots=True)
class ArrivalKit:
    """What a new character carries when its sheet is approved: ``food_kcal`` (kcal),
    ``water_l`` (L) and ``toilet_paper_rolls`` (rolls)."""

    food_kcal: float
    water_l: float
    toilet_paper_rolls: float


def arrival_kit(settings: RuleSettings) -> ArrivalKit:
    """The arrival kit of ``settings``: ``arrival_food_days`` × ``daily_kcal`` kcal,
    ``arrival_water_days`` × ``daily_water_l`` L and ``arrival_toilet_paper_rolls`` rolls
    (defaults: 4 000 kcal, 4 L, 1 roll). Not in the rulebook: our reading of how a character
    enters play with something to eat. Source: RULES.md R6, R15."""
    return ArrivalKit(
        food_kcal=round(settings.arrival_food_days * settings.daily_kcal, 3),
        water_l=round(settings.arrival_water_days * settings.daily_water_l, 3),
        toilet_paper_rolls=round(settings.arrival_toilet_paper_rolls, 3),
    )
