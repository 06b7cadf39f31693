"""Rule tables: the rulebook's numbers as validated, frozen data.

Every number is a campaign setting (RULES.md, principle 1). The defaults ship as JSON files in
``reglas/data/`` and are read with :mod:`importlib.resources`; a campaign stores its own copy as
JSON (``Tables.to_dict()``) and gets it back with ``Tables.from_dict()``. ``from_dict`` checks
every field and raises :class:`~reglas.errors.RulesError` naming the bad one (a dotted path such
as ``combat.to_hit.ranged[2].threshold``); unknown keys are rejected too, so a typo made in the
admin never passes silently.

Tables: weather (R11), weapon search (R22), shop supplies (R23), encounters (R18), combat (R19,
R20). Source: RULES.md R11, R18, R19, R20, R22, R23.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib.resources import files
from typing import Any, NoReturn

from reglas.errors import RulesError

JsonDict = dict[str, Any]
"""A JSON object as Python sees it."""

DATA_PACKAGE = "reglas"
DATA_DIR = "data"


# --------------------------------------------------------------------------- validation helpers


def _fail(path: str, problem: str) -> NoReturn:
    raise RulesError(f"Tabla no válida: el campo «{path}» {problem}.")


def _object(
    value: object, path: str, required: Sequence[str], optional: Sequence[str] = ()
) -> Mapping[str, Any]:
    """Check ``value`` is a JSON object with exactly the allowed keys."""
    if not isinstance(value, Mapping):
        _fail(path, "debe ser un objeto JSON")
    for key in required:
        if key not in value:
            _fail(f"{path}.{key}" if path else key, "falta")
    allowed = set(required) | set(optional)
    for key in value:
        if key not in allowed:
            _fail(f"{path}.{key}" if path else str(key), "no existe (¿errata?)")
    return value


def _mapping(value: object, path: str, *, nonempty: bool = True) -> Mapping[str, Any]:
    """A JSON object with free (slug) keys."""
    if not isinstance(value, Mapping):
        _fail(path, "debe ser un objeto JSON")
    if nonempty and not value:
        _fail(path, "no puede estar vacío")
    for key in value:
        if not isinstance(key, str) or not key.strip():
            _fail(path, "tiene una clave vacía o que no es texto")
    return value


def _list(value: object, path: str, *, nonempty: bool = True) -> list[Any]:
    if not isinstance(value, list | tuple):
        _fail(path, "debe ser una lista")
    if nonempty and not value:
        _fail(path, "no puede estar vacío")
    return list(value)


def _int(value: object, path: str, lo: int | None = None, hi: int | None = None) -> int:
    # bool is an int in Python; a table never means True by 1.
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(path, f"debe ser un número entero (se recibió {value!r})")
    if lo is not None and value < lo:
        _fail(path, f"debe ser como mínimo {lo} (se recibió {value})")
    if hi is not None and value > hi:
        _fail(path, f"debe ser como máximo {hi} (se recibió {value})")
    return value


def _percent(value: object, path: str) -> int:
    return _int(value, path, 0, 100)


def _number(value: object, path: str, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        _fail(path, f"debe ser un número (se recibió {value!r})")
    number = float(value)
    if not math.isfinite(number):
        _fail(path, "debe ser un número finito")
    if positive and number <= 0:
        _fail(path, f"debe ser mayor que 0 (se recibió {value})")
    if not positive and number < 0:
        _fail(path, f"no puede ser negativo (se recibió {value})")
    return number


def _bool(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        _fail(path, f"debe ser true o false (se recibió {value!r})")
    return value


def _text(value: object, path: str, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        _fail(path, f"debe ser un texto (se recibió {value!r})")
    if not allow_empty and not value.strip():
        _fail(path, "no puede estar vacío")
    return value


def _json_number(value: float) -> int | float:
    """Write whole floats as ints so a round trip keeps the file's look (5, not 5.0)."""
    return int(value) if float(value).is_integer() else value


# --------------------------------------------------------------------------------- weather (R11)


class Season(StrEnum):
    """Meteorological season of the northern hemisphere; the value is the Spanish name.

    Source: RULES.md R11 (DJF winter, MAM spring, JJA summer, SON autumn).
    """

    WINTER = "invierno"
    SPRING = "primavera"
    SUMMER = "verano"
    AUTUMN = "otoño"

    @property
    def label(self) -> str:
        """Spanish name with a capital letter, e.g. ``"Otoño"``."""
        return self.value.capitalize()

    @classmethod
    def parse(cls, text: str) -> Season:
        """Season from its Spanish name (``otono`` without ñ is accepted) or English name.

        Raises RulesError for anything else.
        """
        key = text.strip().lower()
        aliases = {
            "otono": cls.AUTUMN,
            "winter": cls.WINTER,
            "spring": cls.SPRING,
            "summer": cls.SUMMER,
            "autumn": cls.AUTUMN,
            "fall": cls.AUTUMN,
        }
        if key in aliases:
            return aliases[key]
        for season in cls:
            if season.value == key:
                return season
        raise RulesError(f"Estación desconocida «{text}»: usa invierno, primavera, verano u otoño.")


@dataclass(frozen=True, slots=True)
class SkyKind:
    """A kind of sky: ``slug`` (English, stored), Spanish ``label``, whether it counts as
    precipitation for disease (R10) and the cap it puts on the day's minimum (°C, or None)."""

    slug: str
    label: str
    precipitation: bool
    min_cap_c: int | None


@dataclass(frozen=True, slots=True)
class SkyBand:
    """A band of the sky d100: faces from the previous band's ``upto`` + 1 to ``upto``."""

    upto: int
    sky: str


@dataclass(frozen=True, slots=True)
class SeasonWeather:
    """One season's row: sky bands over 1..100 and minimum = ``min_base_c`` + 1d``min_die`` °C."""

    season: Season
    bands: tuple[SkyBand, ...]
    min_base_c: int
    min_die: int

    def sky_for(self, die: int) -> str:
        """Sky slug for a d100 face (1..100). Raises RulesError outside 1..100."""
        if not 1 <= die <= 100:
            raise RulesError(f"El dado de cielo debe estar entre 1 y 100 (se recibió {die}).")
        for band in self.bands:
            if die <= band.upto:
                return band.sky
        raise AssertionError("validated bands end at 100")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class WeatherTable:
    """Weather table (R11): kinds of sky, one row per season, maximum = min + offset + 1dN.

    Source: RULES.md R11 (the rulebook's own table is missing; these are our defaults).
    """

    skies: tuple[SkyKind, ...]
    seasons: tuple[SeasonWeather, ...]
    max_offset_c: int
    max_die: int

    def sky(self, slug: str) -> SkyKind:
        """The sky kind with this slug. Raises RulesError if unknown."""
        for sky in self.skies:
            if sky.slug == slug:
                return sky
        raise RulesError(f"Tipo de cielo desconocido «{slug}».")

    def season(self, season: Season) -> SeasonWeather:
        """The row of a season (every season has one)."""
        for row in self.seasons:
            if row.season == season:
                return row
        raise RulesError(f"La tabla de clima no tiene la estación «{season}».")  # pragma: no cover

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "weather") -> WeatherTable:
        """Validate and build from the JSON shape of ``reglas/data/weather.json``.

        Raises RulesError naming the first bad field.
        """
        top = _object(data, path, ("skies", "seasons", "max_offset_c", "max_die"))
        skies_raw = _mapping(top["skies"], f"{path}.skies")
        skies: list[SkyKind] = []
        for slug, raw in skies_raw.items():
            p = f"{path}.skies.{slug}"
            row = _object(raw, p, ("label", "precipitation", "min_cap_c"))
            cap = row["min_cap_c"]
            skies.append(
                SkyKind(
                    slug=slug,
                    label=_text(row["label"], f"{p}.label"),
                    precipitation=_bool(row["precipitation"], f"{p}.precipitation"),
                    min_cap_c=None if cap is None else _int(cap, f"{p}.min_cap_c"),
                )
            )
        sky_slugs = {s.slug for s in skies}
        seasons_raw = _object(top["seasons"], f"{path}.seasons", [s.value for s in Season])
        seasons: list[SeasonWeather] = []
        for season in Season:
            p = f"{path}.seasons.{season.value}"
            row = _object(seasons_raw[season.value], p, ("min_base_c", "min_die", "sky"))
            bands: list[SkyBand] = []
            previous = 0
            for i, band_raw in enumerate(_list(row["sky"], f"{p}.sky")):
                bp = f"{p}.sky[{i}]"
                band = _object(band_raw, bp, ("upto", "sky"))
                upto = _int(band["upto"], f"{bp}.upto", previous + 1, 100)
                sky = _text(band["sky"], f"{bp}.sky")
                if sky not in sky_slugs:
                    _fail(f"{bp}.sky", f"nombra un cielo que no está en «{path}.skies» ({sky})")
                bands.append(SkyBand(upto=upto, sky=sky))
                previous = upto
            if previous != 100:
                _fail(f"{p}.sky", "debe cubrir el d100 hasta 100 (la última banda acaba en 100)")
            seasons.append(
                SeasonWeather(
                    season=season,
                    bands=tuple(bands),
                    min_base_c=_int(row["min_base_c"], f"{p}.min_base_c"),
                    min_die=_int(row["min_die"], f"{p}.min_die", 1, 1000),
                )
            )
        return cls(
            skies=tuple(skies),
            seasons=tuple(seasons),
            max_offset_c=_int(top["max_offset_c"], f"{path}.max_offset_c", 0),
            max_die=_int(top["max_die"], f"{path}.max_die", 1, 1000),
        )

    def to_dict(self) -> JsonDict:
        """The JSON shape read by :meth:`from_dict`."""
        return {
            "skies": {
                s.slug: {
                    "label": s.label,
                    "precipitation": s.precipitation,
                    "min_cap_c": s.min_cap_c,
                }
                for s in self.skies
            },
            "seasons": {
                row.season.value: {
                    "min_base_c": row.min_base_c,
                    "min_die": row.min_die,
                    "sky": [{"upto": b.upto, "sky": b.sky} for b in row.bands],
                }
                for row in self.seasons
            },
            "max_offset_c": self.max_offset_c,
            "max_die": self.max_die,
        }


# ---------------------------------------------------------------------------------- search (R22)


@dataclass(frozen=True, slots=True)
class SearchSubtype:
    """A subtype row (second 1d3 of R22): slug, Spanish label, examples."""

    slug: str
    label: str
    examples: str


@dataclass(frozen=True, slots=True)
class SearchKind:
    """A kind row (first 1d3 of R22). ``subtypes`` may be empty (nothing more is rolled);
    ``quantity_die`` is the faces of the quantity die, or None (no limit a priori)."""

    slug: str
    label: str
    examples: str
    quantity_die: int | None
    subtypes: tuple[SearchSubtype, ...]


@dataclass(frozen=True, slots=True)
class SearchTable:
    """Weapon search table (R22). The kind die has as many faces as there are kinds (1d3 by
    default), the subtype die as many as the kind has subtypes.

    Source: RULES.md R22.
    """

    kinds: tuple[SearchKind, ...]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "search") -> SearchTable:
        """Validate and build from the JSON shape of ``reglas/data/search.json``.

        Raises RulesError naming the first bad field.
        """
        top = _object(data, path, ("kinds",))
        kinds: list[SearchKind] = []
        seen: set[str] = set()
        for i, raw in enumerate(_list(top["kinds"], f"{path}.kinds")):
            p = f"{path}.kinds[{i}]"
            row = _object(raw, p, ("slug", "label", "examples", "quantity_die", "subtypes"))
            slug = _text(row["slug"], f"{p}.slug")
            if slug in seen:
                _fail(f"{p}.slug", f"repite «{slug}»")
            seen.add(slug)
            subtypes: list[SearchSubtype] = []
            for j, sub_raw in enumerate(_list(row["subtypes"], f"{p}.subtypes", nonempty=False)):
                sp = f"{p}.subtypes[{j}]"
                sub = _object(sub_raw, sp, ("slug", "label", "examples"))
                subtypes.append(
                    SearchSubtype(
                        slug=_text(sub["slug"], f"{sp}.slug"),
                        label=_text(sub["label"], f"{sp}.label"),
                        examples=_text(sub["examples"], f"{sp}.examples", allow_empty=True),
                    )
                )
            qty = row["quantity_die"]
            kinds.append(
                SearchKind(
                    slug=slug,
                    label=_text(row["label"], f"{p}.label"),
                    examples=_text(row["examples"], f"{p}.examples", allow_empty=True),
                    quantity_die=None if qty is None else _int(qty, f"{p}.quantity_die", 1, 1000),
                    subtypes=tuple(subtypes),
                )
            )
        return cls(kinds=tuple(kinds))

    def to_dict(self) -> JsonDict:
        """The JSON shape read by :meth:`from_dict`."""
        return {
            "kinds": [
                {
                    "slug": k.slug,
                    "label": k.label,
                    "examples": k.examples,
                    "quantity_die": k.quantity_die,
                    "subtypes": [
                        {"slug": s.slug, "label": s.label, "examples": s.examples}
                        for s in k.subtypes
                    ],
                }
                for k in self.kinds
            ]
        }


# -------------------------------------------------------------------------------- supplies (R23)


@dataclass(frozen=True, slots=True)
class SupplyBand:
    """A band of d100 + ``day_factor`` × day: totals up to ``upto`` (None = no upper limit)
    leave between ``min_pct`` and ``max_pct`` % of the base stock."""

    upto: int | None
    min_pct: int
    max_pct: int


@dataclass(frozen=True, slots=True)
class ShopStock:
    """Base stock of a shop type: food (kcal), water (L), toilet paper (rolls), medicine (doses)."""

    shop_type: str
    label: str
    food_kcal: int
    water_l: int
    toilet_paper_rolls: int
    medicine_doses: int


@dataclass(frozen=True, slots=True)
class SuppliesTable:
    """Shop supplies table (R23): the bands and each shop type's base stock.

    Source: RULES.md R23 (the rulebook's own table is missing; these are our defaults).
    """

    day_factor: int
    bands: tuple[SupplyBand, ...]
    shops: tuple[ShopStock, ...]

    def shop(self, shop_type: str) -> ShopStock:
        """Base stock of a shop type. Raises RulesError for an unknown type."""
        for shop in self.shops:
            if shop.shop_type == shop_type:
                return shop
        known = ", ".join(s.shop_type for s in self.shops)
        raise RulesError(f"Tipo de tienda desconocido «{shop_type}»: usa uno de {known}.")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "supplies") -> SuppliesTable:
        """Validate and build from the JSON shape of ``reglas/data/supplies.json``.

        Bands must have increasing ``upto`` and end with ``upto: null``. Raises RulesError
        naming the first bad field.
        """
        top = _object(data, path, ("day_factor", "bands", "shops"))
        bands: list[SupplyBand] = []
        raw_bands = _list(top["bands"], f"{path}.bands")
        previous: int | None = None
        for i, raw in enumerate(raw_bands):
            p = f"{path}.bands[{i}]"
            row = _object(raw, p, ("upto", "min_pct", "max_pct"))
            last = i == len(raw_bands) - 1
            upto: int | None
            if row["upto"] is None:
                if not last:
                    _fail(f"{p}.upto", "solo puede ser null en la última banda")
                upto = None
            else:
                if last:
                    _fail(f"{p}.upto", "debe ser null en la última banda (sin límite)")
                upto = _int(row["upto"], f"{p}.upto", None if previous is None else previous + 1)
                previous = upto
            lo = _percent(row["min_pct"], f"{p}.min_pct")
            hi = _percent(row["max_pct"], f"{p}.max_pct")
            if hi < lo:
                _fail(f"{p}.max_pct", f"no puede ser menor que min_pct ({hi} < {lo})")
            bands.append(SupplyBand(upto=upto, min_pct=lo, max_pct=hi))
        shops: list[ShopStock] = []
        for shop_type, raw in _mapping(top["shops"], f"{path}.shops").items():
            p = f"{path}.shops.{shop_type}"
            row = _object(
                raw, p, ("label", "food_kcal", "water_l", "toilet_paper_rolls", "medicine_doses")
            )
            shops.append(
                ShopStock(
                    shop_type=shop_type,
                    label=_text(row["label"], f"{p}.label"),
                    food_kcal=_int(row["food_kcal"], f"{p}.food_kcal", 0),
                    water_l=_int(row["water_l"], f"{p}.water_l", 0),
                    toilet_paper_rolls=_int(
                        row["toilet_paper_rolls"], f"{p}.toilet_paper_rolls", 0
                    ),
                    medicine_doses=_int(row["medicine_doses"], f"{p}.medicine_doses", 0),
                )
            )
        return cls(
            day_factor=_int(top["day_factor"], f"{path}.day_factor", 0),
            bands=tuple(bands),
            shops=tuple(shops),
        )

    def to_dict(self) -> JsonDict:
        """The JSON shape read by :meth:`from_dict`."""
        return {
            "day_factor": self.day_factor,
            "bands": [
                {"upto": b.upto, "min_pct": b.min_pct, "max_pct": b.max_pct} for b in self.bands
            ],
            "shops": {
                s.shop_type: {
                    "label": s.label,
                    "food_kcal": s.food_kcal,
                    "water_l": s.water_l,
                    "toilet_paper_rolls": s.toilet_paper_rolls,
                    "medicine_doses": s.medicine_doses,
                }
                for s in self.shops
            },
        }


# ------------------------------------------------------------------------------ encounters (R18)


class DetectionMode(StrEnum):
    """How alert the zombies are: ``normal`` or ``agresivo`` (aggressive, hunting, chasing).

    Source: RULES.md R18.
    """

    NORMAL = "normal"
    AGGRESSIVE = "agresivo"

    @classmethod
    def parse(cls, text: str) -> DetectionMode:
        """Mode from ``normal`` / ``agresivo`` (``caza``, ``persecucion`` are aliases).

        Raises RulesError for anything else.
        """
        key = text.strip().lower()
        if key in {"agresivo", "aggressive", "caza", "persecucion", "persecución"}:
            return cls.AGGRESSIVE
        if key == "normal":
            return cls.NORMAL
        raise RulesError(f"Modo desconocido «{text}»: usa normal o agresivo.")


@dataclass(frozen=True, slots=True)
class EncounterTable:
    """Encounter constants (R18): the area of one cell (m²) and the detection radius per mode (m).

    Source: RULES.md R18.
    """

    cell_area_m2: float
    radius_normal_m: float
    radius_aggressive_m: float

    def radius_m(self, mode: DetectionMode) -> float:
        """Detection radius in metres for a mode."""
        return (
            self.radius_aggressive_m if mode is DetectionMode.AGGRESSIVE else self.radius_normal_m
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "encounters") -> EncounterTable:
        """Validate and build from the JSON shape of ``reglas/data/encounters.json``.

        Raises RulesError naming the first bad field.
        """
        top = _object(data, path, ("cell_area_m2", "detection_radius_m"))
        radii = _object(
            top["detection_radius_m"],
            f"{path}.detection_radius_m",
            [m.value for m in DetectionMode],
        )
        return cls(
            cell_area_m2=_number(top["cell_area_m2"], f"{path}.cell_area_m2", positive=True),
            radius_normal_m=_number(radii["normal"], f"{path}.detection_radius_m.normal"),
            radius_aggressive_m=_number(radii["agresivo"], f"{path}.detection_radius_m.agresivo"),
        )

    def to_dict(self) -> JsonDict:
        """The JSON shape read by :meth:`from_dict`."""
        return {
            "cell_area_m2": _json_number(self.cell_area_m2),
            "detection_radius_m": {
                "normal": _json_number(self.radius_normal_m),
                "agresivo": _json_number(self.radius_aggressive_m),
            },
        }


# ---------------------------------------------------------------------------- combat (R19, R20)

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
        raise RulesError(f"Clase de arma desconocida «{slug}»: usa una de {known}.")

    def caliber(self, slug: str) -> Caliber:
        """A caliber. Raises RulesError if unknown."""
        for row in self.calibers:
            if row.slug == slug:
                return row
        known = ", ".join(c.slug for c in self.calibers)
        raise RulesError(f"Calibre desconocido «{slug}»: usa uno de {known}.")

    def weapon(self, slug: str) -> Weapon:
        """A listed weapon by slug. Raises RulesError if unknown."""
        for row in self.weapons:
            if row.slug == slug:
                return row
        known = ", ".join(w.slug for w in self.weapons)
        raise RulesError(f"Arma desconocida «{slug}»: usa una de {known}.")

    def check_weapon(self, weapon: Weapon) -> None:
        """Raise RulesError unless the weapon's kind and caliber exist in this table."""
        if weapon.is_firearm:
            if weapon.caliber is None:
                raise RulesError(f"El arma de fuego «{weapon.label}» no tiene calibre.")
            self.caliber(weapon.caliber)
        else:
            self.wound_class(weapon.kind)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "combat") -> CombatTable:
        """Validate and build from the JSON shape of ``reglas/data/combat.json``.

        Range bands must have increasing ``max_m``; wound classes must include ``unarmed``;
        every listed weapon must name a known class or caliber. Raises RulesError naming the
        first bad field.
        """
        top = _object(data, path, ("traits", "to_hit", "wound", "weapons", "zombies"))
        tp = f"{path}.traits"
        traits = _object(top["traits"], tp, ("ranged", "melee", "unarmed", "wound", "escape"))
        escape = tuple(
            _text(t, f"{tp}.escape[{i}]")
            for i, t in enumerate(_list(traits["escape"], f"{tp}.escape"))
        )
        hp = f"{path}.to_hit"
        to_hit = _object(
            top["to_hit"],
            hp,
            ("melee", "ranged", "out_of_range", "two_handed_bonus", "two_handed_bonus_beyond_m"),
        )
        bands: list[RangeBand] = []
        previous = -1.0
        for i, raw in enumerate(_list(to_hit["ranged"], f"{hp}.ranged")):
            bp = f"{hp}.ranged[{i}]"
            row = _object(raw, bp, ("max_m", "threshold"))
            max_m = _number(row["max_m"], f"{bp}.max_m")
            if max_m <= previous:
                _fail(f"{bp}.max_m", "debe ser mayor que el de la banda anterior")
            previous = max_m
            bands.append(
                RangeBand(max_m=max_m, threshold=_percent(row["threshold"], f"{bp}.threshold"))
            )
        wp = f"{path}.wound"
        wound = _object(top["wound"], wp, ("classes", "calibers"))
        classes = tuple(
            WoundClass(
                slug=slug,
                label=_text(row["label"], f"{wp}.classes.{slug}.label"),
                threshold=_percent(row["threshold"], f"{wp}.classes.{slug}.threshold"),
            )
            for slug, raw in _mapping(wound["classes"], f"{wp}.classes").items()
            for row in [_object(raw, f"{wp}.classes.{slug}", ("label", "threshold"))]
        )
        if UNARMED not in {c.slug for c in classes}:
            _fail(f"{wp}.classes", f"debe incluir «{UNARMED}» (desarmado)")
        if FIREARM in {c.slug for c in classes}:
            _fail(f"{wp}.classes.{FIREARM}", "es un nombre reservado para las armas de fuego")
        calibers = tuple(
            Caliber(
                slug=slug,
                label=_text(row["label"], f"{wp}.calibers.{slug}.label"),
                threshold=_percent(row["threshold"], f"{wp}.calibers.{slug}.threshold"),
            )
            for slug, raw in _mapping(wound["calibers"], f"{wp}.calibers").items()
            for row in [_object(raw, f"{wp}.calibers.{slug}", ("label", "threshold"))]
        )
        class_slugs = {c.slug for c in classes}
        caliber_slugs = {c.slug for c in calibers}
        weapons: list[Weapon] = []
        for slug, raw in _mapping(top["weapons"], f"{path}.weapons", nonempty=False).items():
            p = f"{path}.weapons.{slug}"
            row = _object(raw, p, ("label", "kind", "caliber", "two_handed"))
            kind = _text(row["kind"], f"{p}.kind")
            caliber: str | None = None
            if kind == FIREARM:
                caliber = _text(row["caliber"], f"{p}.caliber")
                if caliber not in caliber_slugs:
                    _fail(f"{p}.caliber", f"nombra un calibre que no existe ({caliber})")
            else:
                if kind not in class_slugs:
                    _fail(f"{p}.kind", f"debe ser «{FIREARM}» o una clase de «{wp}.classes»")
                if row["caliber"] is not None:
                    _fail(f"{p}.caliber", "debe ser null en un arma que no es de fuego")
            weapons.append(
                Weapon(
                    slug=slug,
                    label=_text(row["label"], f"{p}.label"),
                    kind=kind,
                    caliber=caliber,
                    two_handed=_bool(row["two_handed"], f"{p}.two_handed"),
                )
            )
        zp = f"{path}.zombies"
        zombies = _object(
            top["zombies"],
            zp,
            (
                "grab",
                "bite",
                "escape",
                "grabbed_to_hit_penalty",
                "bites_same_turn_to_die",
                "consecutive_bites_to_die",
            ),
        )
        return cls(
            trait_ranged=_text(traits["ranged"], f"{tp}.ranged"),
            trait_melee=_text(traits["melee"], f"{tp}.melee"),
            trait_unarmed=_text(traits["unarmed"], f"{tp}.unarmed"),
            trait_wound=_text(traits["wound"], f"{tp}.wound"),
            escape_traits=escape,
            melee_to_hit=_percent(to_hit["melee"], f"{hp}.melee"),
            ranged_to_hit=tuple(bands),
            out_of_range_to_hit=_percent(to_hit["out_of_range"], f"{hp}.out_of_range"),
            two_handed_bonus=_int(to_hit["two_handed_bonus"], f"{hp}.two_handed_bonus", -100, 100),
            two_handed_bonus_beyond_m=_number(
                to_hit["two_handed_bonus_beyond_m"], f"{hp}.two_handed_bonus_beyond_m"
            ),
            wound_classes=classes,
            calibers=calibers,
            weapons=tuple(weapons),
            grab=_percent(zombies["grab"], f"{zp}.grab"),
            bite=_percent(zombies["bite"], f"{zp}.bite"),
            escape=_percent(zombies["escape"], f"{zp}.escape"),
            grabbed_to_hit_penalty=_int(
                zombies["grabbed_to_hit_penalty"], f"{zp}.grabbed_to_hit_penalty", 0, 100
            ),
            bites_same_turn_to_die=_int(
                zombies["bites_same_turn_to_die"], f"{zp}.bites_same_turn_to_die", 1
            ),
            consecutive_bites_to_die=_int(
                zombies["consecutive_bites_to_die"], f"{zp}.consecutive_bites_to_die", 1
            ),
        )

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
                "melee": self.melee_to_hit,
                "ranged": [
                    {"max_m": _json_number(b.max_m), "threshold": b.threshold}
                    for b in self.ranged_to_hit
                ],
                "out_of_range": self.out_of_range_to_hit,
                "two_handed_bonus": self.two_handed_bonus,
                "two_handed_bonus_beyond_m": _json_number(self.two_handed_bonus_beyond_m),
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
            "zombies": {
                "grab": self.grab,
                "bite": self.bite,
                "escape": self.escape,
                "grabbed_to_hit_penalty": self.grabbed_to_hit_penalty,
                "bites_same_turn_to_die": self.bites_same_turn_to_die,
                "consecutive_bites_to_die": self.consecutive_bites_to_die,
            },
        }


# --------------------------------------------------------------------------------- the bundle


@dataclass(frozen=True, slots=True)
class Tables:
    """All the world tables of one campaign, stored as one JSON object.

    Source: RULES.md principle 1 ("every number is a campaign setting").
    """

    weather: WeatherTable
    search: SearchTable
    supplies: SuppliesTable
    encounters: EncounterTable
    combat: CombatTable

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tables:
        """Validate and build from ``{"weather": …, "search": …, "supplies": …,
        "encounters": …, "combat": …}``. Raises RulesError naming the first bad field."""
        top = _object(data, "", ("weather", "search", "supplies", "encounters", "combat"))
        return cls(
            weather=WeatherTable.from_dict(top["weather"]),
            search=SearchTable.from_dict(top["search"]),
            supplies=SuppliesTable.from_dict(top["supplies"]),
            encounters=EncounterTable.from_dict(top["encounters"]),
            combat=CombatTable.from_dict(top["combat"]),
        )

    def to_dict(self) -> JsonDict:
        """The JSON shape read by :meth:`from_dict`."""
        return {
            "weather": self.weather.to_dict(),
            "search": self.search.to_dict(),
            "supplies": self.supplies.to_dict(),
            "encounters": self.encounters.to_dict(),
            "combat": self.combat.to_dict(),
        }


def load_data_json(name: str) -> JsonDict:
    """Read ``reglas/data/<name>.json`` (packaged data, via importlib.resources).

    Raises FileNotFoundError if the file is not shipped.
    """
    text = (files(DATA_PACKAGE) / DATA_DIR / f"{name}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):  # pragma: no cover - our own files
        raise RulesError(f"El fichero de tabla «{name}.json» no contiene un objeto JSON.")
    return data


@cache
def default_tables() -> Tables:
    """The rulebook's default tables, read once from ``reglas/data/``. A fresh campaign stores
    ``default_tables().to_dict()`` as its own editable copy."""
    return Tables(
        weather=WeatherTable.from_dict(load_data_json("weather")),
        search=SearchTable.from_dict(load_data_json("search")),
        supplies=SuppliesTable.from_dict(load_data_json("supplies")),
        encounters=EncounterTable.from_dict(load_data_json("encounters")),
        combat=CombatTable.from_dict(load_data_json("combat")),
    )


DEFAULT_WEATHER: WeatherTable = default_tables().weather
DEFAULT_SEARCH: SearchTable = default_tables().search
DEFAULT_SUPPLIES: SuppliesTable = default_tables().supplies
DEFAULT_ENCOUNTERS: EncounterTable = default_tables().encounters
DEFAULT_COMBAT: CombatTable = default_tables().combat
