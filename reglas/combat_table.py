"""The combat table (R19, R20): traits per roll, ranged bands, wound classes, calibers, weapons.

Its scalar thresholds (melee to hit, grab, bite, escape, the grabbed penalty, the bites that
kill) have one source, :class:`~reglas.settings.RuleSettings`; the table copies them in when it
is built so the combat functions read one object. Source: RULES.md R19, R20.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, TypedDict

from reglas.errors import RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.tablecheck import (
    check_bool,
    check_int,
    check_list,
    check_mapping,
    check_number,
    check_object,
    check_percent,
    check_text,
    fail,
    json_number,
)

JsonDict = dict[str, Any]

FIREARM = "firearm"
"""Weapon kind of every firearm (ranged, wound by caliber)."""

UNARMED = "unarmed"
"""Weapon kind (and wound class) of bare hands: to hit with Pelea."""


@dataclass(frozen=True, slots=True)
class RangeBand:
    """Ranged to-hit threshold (%) for distances up to ``max_m`` metres (inclusive)."""

    max_m: float
    threshold: int


@dataclass(frozen=True, slots=True)
class WoundClass:
    """Melee wound class: slug (also a weapon kind), Spanish label, Fuerza threshold (%)."""

    slug: str
    label: str
    threshold: int


@dataclass(frozen=True, slots=True)
class Caliber:
    """Caliber: slug, Spanish label, wound threshold of its one d100 (%)."""

    slug: str
    label: str
    threshold: int


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon as the rules see it.

    ``kind`` is ``"firearm"`` (ranged; ``caliber`` names a caliber, ``two_handed`` gets the
    long-range bonus) or a melee wound class (``"unarmed"`` hits with Pelea, any other with
    Armas cuerpo a cuerpo). Items of an inventory map to this; the combat table lists common
    ones by slug. Source: RULES.md R19.
    """

    slug: str
    label: str
    kind: str
    caliber: str | None = None
    two_handed: bool = False

    @property
    def is_firearm(self) -> bool:
        """True for ranged weapons (wound by caliber)."""
        return self.kind == FIREARM


@dataclass(frozen=True, slots=True)
class CombatTable:
    """Combat thresholds (R19, R20) and the traits each roll uses (percentages, metres).

    ``melee_to_hit`` … ``consecutive_bites_to_die`` come from the campaign's RuleSettings.

    Source: RULES.md R19, R20.
    """

    trait_ranged: str
    trait_melee: str
    trait_unarmed: str
    trait_wound: str
    escape_traits: tuple[str, ...]
    melee_to_hit: int
    ranged_to_hit: tuple[RangeBand, ...]
    out_of_range_to_hit: int
    two_handed_bonus: int
    two_handed_bonus_beyond_m: float
    wound_classes: tuple[WoundClass, ...]
    calibers: tuple[Caliber, ...]
    weapons: tuple[Weapon, ...]
    grab: int
    bite: int
    escape: int
    grabbed_to_hit_penalty: int
    bites_same_turn_to_die: int
    consecutive_bites_to_die: int

    def wound_class(self, slug: str) -> WoundClass:
        """A melee wound class. Raises RulesError if unknown."""
        for row in self.wound_classes:
            if row.slug == slug:
                return row
        known = ", ".join(w.slug for w in self.wound_classes)
        raise RulesError(
            "weapon_class_unknown",
            f"Clase de arma desconocida «{slug}»: usa una de {known}.",
            slug=slug,
            known=known,
        )

    def caliber(self, slug: str) -> Caliber:
        """A caliber. Raises RulesError if unknown."""
        for row in self.calibers:
            if row.slug == slug:
                return row
        known = ", ".join(c.slug for c in self.calibers)
        raise RulesError(
            "caliber_unknown",
            f"Calibre desconocido «{slug}»: usa uno de {known}.",
            slug=slug,
            known=known,
        )

    def weapon(self, slug: str) -> Weapon:
        """A listed weapon by slug. Raises RulesError if unknown."""
        for row in self.weapons:
            if row.slug == slug:
                return row
        known = ", ".join(w.slug for w in self.weapons)
        raise RulesError(
            "weapon_unknown",
            f"Arma desconocida «{slug}»: usa una de {known}.",
            slug=slug,
            known=known,
        )

    def check_weapon(self, weapon: Weapon) -> None:
        """Raise RulesError unless the weapon's kind and caliber exist in this table."""
        if weapon.is_firearm:
            if weapon.caliber is None:
                raise RulesError(
                    "firearm_without_caliber",
                    f"El arma de fuego «{weapon.label}» no tiene calibre.",
                    weapon=weapon.label,
                )
            self.caliber(weapon.caliber)
        else:
            self.wound_class(weapon.kind)

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        path: str = "combat",
        settings: RuleSettings = DEFAULT_SETTINGS,
    ) -> CombatTable:
        """Validate and build from the JSON shape of ``reglas/data/combat.json``.

        Range bands must have increasing ``max_m``; wound classes must include ``unarmed``;
        every listed weapon must name a known class or caliber. Raises RulesError naming the
        first bad field. The scalar thresholds (melee to hit, grab, bite, escape, the grabbed
        penalty and the bites that kill) are not in the table: they are ``settings`` fields,
        their one source, copied in here so the combat functions find them beside the table.
        """
        top = check_object(data, path, ("traits", "to_hit", "wound", "weapons"))
        classes, calibers = _wound(top["wound"], f"{path}.wound")
        return cls(
            **_traits(top["traits"], f"{path}.traits"),
            **_to_hit(top["to_hit"], f"{path}.to_hit"),
            wound_classes=classes,
            calibers=calibers,
            weapons=_weapons(top["weapons"], path, classes, calibers),
            **_scalars(settings),
        )

    def with_settings(self, settings: RuleSettings) -> CombatTable:
        """This table with the scalar thresholds of ``settings`` (R19, R20)."""
        return replace(self, **_scalars(settings))

    def to_dict(self) -> JsonDict:
        """The JSON shape read by :meth:`from_dict`."""
        return {
            "traits": {
                "ranged": self.trait_ranged,
                "melee": self.trait_melee,
                "unarmed": self.trait_unarmed,
                "wound": self.trait_wound,
                "escape": list(self.escape_traits),
            },
            "to_hit": {
                "ranged": [
                    {"max_m": json_number(b.max_m), "threshold": b.threshold}
                    for b in self.ranged_to_hit
                ],
                "out_of_range": self.out_of_range_to_hit,
                "two_handed_bonus": self.two_handed_bonus,
                "two_handed_bonus_beyond_m": json_number(self.two_handed_bonus_beyond_m),
            },
            "wound": {
                "classes": {
                    c.slug: {"label": c.label, "threshold": c.threshold} for c in self.wound_classes
                },
                "calibers": {
                    c.slug: {"label": c.label, "threshold": c.threshold} for c in self.calibers
                },
            },
            "weapons": {
                w.slug: {
                    "label": w.label,
                    "kind": w.kind,
                    "caliber": w.caliber,
                    "two_handed": w.two_handed,
                }
                for w in self.weapons
            },
        }


class _Scalars(TypedDict):
    melee_to_hit: int
    grab: int
    bite: int
    escape: int
    grabbed_to_hit_penalty: int
    bites_same_turn_to_die: int
    consecutive_bites_to_die: int


def _scalars(settings: RuleSettings) -> _Scalars:
    return {
        "melee_to_hit": settings.melee_to_hit,
        "grab": settings.grab_threshold,
        "bite": settings.bite_threshold,
        "escape": settings.escape_threshold,
        "grabbed_to_hit_penalty": settings.grabbed_to_hit_penalty,
        "bites_same_turn_to_die": settings.bites_same_turn_to_die,
        "consecutive_bites_to_die": settings.consecutive_bites_to_die,
    }


def _traits(data: object, tp: str) -> dict[str, Any]:
    traits = check_object(data, tp, ("ranged", "melee", "unarmed", "wound", "escape"))
    escape = tuple(
        check_text(t, f"{tp}.escape[{i}]")
        for i, t in enumerate(check_list(traits["escape"], f"{tp}.escape"))
    )
    return {
        "trait_ranged": check_text(traits["ranged"], f"{tp}.ranged"),
        "trait_melee": check_text(traits["melee"], f"{tp}.melee"),
        "trait_unarmed": check_text(traits["unarmed"], f"{tp}.unarmed"),
        "trait_wound": check_text(traits["wound"], f"{tp}.wound"),
        "escape_traits": escape,
    }


def _to_hit(data: object, hp: str) -> dict[str, Any]:
    to_hit = check_object(
        data, hp, ("ranged", "out_of_range", "two_handed_bonus", "two_handed_bonus_beyond_m")
    )
    bands: list[RangeBand] = []
    previous = -1.0
    for i, raw in enumerate(check_list(to_hit["ranged"], f"{hp}.ranged")):
        bp = f"{hp}.ranged[{i}]"
        row = check_object(raw, bp, ("max_m", "threshold"))
        max_m = check_number(row["max_m"], f"{bp}.max_m")
        if max_m <= previous:
            fail(
                f"{bp}.max_m",
                "table_band_not_increasing",
                "debe ser mayor que el de la banda anterior",
            )
        previous = max_m
        threshold = check_percent(row["threshold"], f"{bp}.threshold")
        bands.append(RangeBand(max_m=max_m, threshold=threshold))
    return {
        "ranged_to_hit": tuple(bands),
        "out_of_range_to_hit": check_percent(to_hit["out_of_range"], f"{hp}.out_of_range"),
        "two_handed_bonus": check_int(
            to_hit["two_handed_bonus"], f"{hp}.two_handed_bonus", -100, 100
        ),
        "two_handed_bonus_beyond_m": check_number(
            to_hit["two_handed_bonus_beyond_m"], f"{hp}.two_handed_bonus_beyond_m"
        ),
    }


def _wound(data: object, wp: str) -> tuple[tuple[WoundClass, ...], tuple[Caliber, ...]]:
    wound = check_object(data, wp, ("classes", "calibers"))
    classes = tuple(
        WoundClass(
            slug=slug,
            label=check_text(row["label"], f"{wp}.classes.{slug}.label"),
            threshold=check_percent(row["threshold"], f"{wp}.classes.{slug}.threshold"),
        )
        for slug, raw in check_mapping(wound["classes"], f"{wp}.classes").items()
        for row in [check_object(raw, f"{wp}.classes.{slug}", ("label", "threshold"))]
    )
    if UNARMED not in {c.slug for c in classes}:
        fail(
            f"{wp}.classes",
            "table_unarmed_missing",
            f"debe incluir «{UNARMED}» (desarmado)",
            unarmed=UNARMED,
        )
    if FIREARM in {c.slug for c in classes}:
        fail(
            f"{wp}.classes.{FIREARM}",
            "table_firearm_reserved",
            "es un nombre reservado para las armas de fuego",
        )
    calibers = tuple(
        Caliber(
            slug=slug,
            label=check_text(row["label"], f"{wp}.calibers.{slug}.label"),
            threshold=check_percent(row["threshold"], f"{wp}.calibers.{slug}.threshold"),
        )
        for slug, raw in check_mapping(wound["calibers"], f"{wp}.calibers").items()
        for row in [check_object(raw, f"{wp}.calibers.{slug}", ("label", "threshold"))]
    )
    return classes, calibers


def _weapons(
    data: object,
    path: str,
    classes: tuple[WoundClass, ...],
    calibers: tuple[Caliber, ...],
) -> tuple[Weapon, ...]:
    class_slugs = {c.slug for c in classes}
    caliber_slugs = {c.slug for c in calibers}
    weapons: list[Weapon] = []
    for slug, raw in check_mapping(data, f"{path}.weapons", nonempty=False).items():
        p = f"{path}.weapons.{slug}"
        row = check_object(raw, p, ("label", "kind", "caliber", "two_handed"))
        kind = check_text(row["kind"], f"{p}.kind")
        caliber: str | None = None
        if kind == FIREARM:
            caliber = check_text(row["caliber"], f"{p}.caliber")
            if caliber not in caliber_slugs:
                fail(
                    f"{p}.caliber",
                    "table_caliber_unknown",
                    f"nombra un calibre que no existe ({caliber})",
                    caliber=caliber,
                )
        else:
            if kind not in class_slugs:
                fail(
                    f"{p}.kind",
                    "table_weapon_kind",
                    f"debe ser «{FIREARM}» o una clase de «{path}.wound.classes»",
                    firearm=FIREARM,
                    table=path,
                )
            if row["caliber"] is not None:
                fail(
                    f"{p}.caliber",
                    "table_caliber_not_null",
                    "debe ser null en un arma que no es de fuego",
                )
        weapons.append(
            Weapon(
                slug=slug,
                label=check_text(row["label"], f"{p}.label"),
                kind=kind,
                caliber=caliber,
                two_handed=check_bool(row["two_handed"], f"{p}.two_handed"),
            )
        )
    return tuple(weapons)
