"""Rule tables: the rulebook's numbers as validated, frozen data.

Every number is a campaign setting (RULES.md, principle 1). The defaults ship as JSON files in
``reglas/data/`` and are read with :mod:`importlib.resources`; a campaign stores its own copy of
each table it edits (``Tables.overrides()``) and gets the whole bundle back with
``Tables.from_overrides(stored, settings)``. ``from_dict`` checks
every field and raises :class:`~reglas.errors.RulesError` naming the bad one (a dotted path such
as ``combat.to_hit.ranged[2].threshold``); unknown keys are rejected too, so a typo made in the
admin never passes silently.

Tables: traits (R5), weather (R11), weapon search (R22), shop supplies (R23), combat (R19, R20,
in :mod:`reglas.combat_table`). Scalars are not tables: each number has one source, a
:class:`~reglas.settings.RuleSettings` field, and a table that needs one copies it in when built
(the shops' day factor, the combat thresholds, the encounter cell and radii, which make a whole
:class:`EncounterTable` of settings). Source: RULES.md R5, R11, R18, R19, R20, R22, R23.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache
from importlib.resources import files
from typing import Any

# Re-exported: the combat table is part of the bundle and callers import it from here.
from reglas.combat_table import FIREARM as FIREARM
from reglas.combat_table import UNARMED as UNARMED
from reglas.combat_table import Caliber as Caliber
from reglas.combat_table import CombatTable as CombatTable
from reglas.combat_table import RangeBand as RangeBand
from reglas.combat_table import Weapon as Weapon
from reglas.combat_table import WoundClass as WoundClass
from reglas.errors import RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.tablecheck import (
    check_int,
    check_list,
    check_mapping,
    check_object,
    check_percent,
    check_text,
    fail,
)

# Re-exported likewise: the weather table is part of the bundle.
from reglas.weather_table import Season as Season
from reglas.weather_table import SeasonWeather as SeasonWeather
from reglas.weather_table import SkyBand as SkyBand
from reglas.weather_table import SkyKind as SkyKind
from reglas.weather_table import WeatherTable as WeatherTable

JsonDict = dict[str, Any]
"""A JSON object as Python sees it."""

DATA_PACKAGE = "reglas"
DATA_DIR = "data"


# ---------------------------------------------------------------------------------- traits (R5)


@dataclass(frozen=True, slots=True)
class TraitDefinition:
    """A trait of the character sheet: ``slug`` (code, URL, settings) and Spanish ``name``."""

    slug: str
    name: str


@dataclass(frozen=True, slots=True)
class TraitTable:
    """The traits of a new campaign's sheet, in order (R5). A campaign's own live copy is the
    list of traits stored with it (``personajes.Trait``), seeded from this table.

    Source: RULES.md R5.
    """

    traits: tuple[TraitDefinition, ...]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "traits") -> TraitTable:
        """Validate and build from the JSON shape of ``reglas/data/traits.json``.

        Slugs are lowercase letters, digits and ``_``, and unique. Raises RulesError naming
        the first bad field.
        """
        top = check_object(data, path, ("traits",))
        traits: list[TraitDefinition] = []
        for i, raw in enumerate(check_list(top["traits"], f"{path}.traits")):
            p = f"{path}.traits[{i}]"
            row = check_object(raw, p, ("slug", "name"))
            slug = check_text(row["slug"], f"{p}.slug")
            if not all(ch.isascii() and (ch.islower() or ch.isdigit() or ch == "_") for ch in slug):
                fail(
                    f"{p}.slug",
                    "table_slug_chars",
                    "solo admite minúsculas sin tilde, cifras y «_»",
                )
            if slug in {t.slug for t in traits}:
                fail(f"{p}.slug", "table_slug_repeated", f"repite «{slug}»", slug=slug)
            traits.append(TraitDefinition(slug=slug, name=check_text(row["name"], f"{p}.name")))
        return cls(traits=tuple(traits))

    def to_dict(self) -> JsonDict:
        """The JSON shape read by :meth:`from_dict`."""
        return {"traits": [{"slug": t.slug, "name": t.name} for t in self.traits]}


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
        top = check_object(data, path, ("kinds",))
        kinds: list[SearchKind] = []
        seen: set[str] = set()
        for i, raw in enumerate(check_list(top["kinds"], f"{path}.kinds")):
            p = f"{path}.kinds[{i}]"
            row = check_object(raw, p, ("slug", "label", "examples", "quantity_die", "subtypes"))
            slug = check_text(row["slug"], f"{p}.slug")
            if slug in seen:
                fail(f"{p}.slug", "table_slug_repeated", f"repite «{slug}»", slug=slug)
            seen.add(slug)
            subtypes: list[SearchSubtype] = []
            for j, sub_raw in enumerate(
                check_list(row["subtypes"], f"{p}.subtypes", nonempty=False)
            ):
                sp = f"{p}.subtypes[{j}]"
                sub = check_object(sub_raw, sp, ("slug", "label", "examples"))
                subtypes.append(
                    SearchSubtype(
                        slug=check_text(sub["slug"], f"{sp}.slug"),
                        label=check_text(sub["label"], f"{sp}.label"),
                        examples=check_text(sub["examples"], f"{sp}.examples", allow_empty=True),
                    )
                )
            qty = row["quantity_die"]
            kinds.append(
                SearchKind(
                    slug=slug,
                    label=check_text(row["label"], f"{p}.label"),
                    examples=check_text(row["examples"], f"{p}.examples", allow_empty=True),
                    quantity_die=None
                    if qty is None
                    else check_int(qty, f"{p}.quantity_die", 1, 1000),
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

    ``day_factor`` (points added to the d100 per in-game day) is not stored with the table: it
    is the setting ``shop_decay_per_day``, copied in when the table is built.

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
        raise RulesError(
            "shop_type_unknown",
            f"Tipo de tienda desconocido «{shop_type}»: usa uno de {known}.",
            shop_type=shop_type,
            known=known,
        )

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        path: str = "supplies",
        settings: RuleSettings = DEFAULT_SETTINGS,
    ) -> SuppliesTable:
        """Validate and build from the JSON shape of ``reglas/data/supplies.json``; the day
        factor is ``settings.shop_decay_per_day``.

        Bands must have increasing ``upto`` and end with ``upto: null``. Raises RulesError
        naming the first bad field.
        """
        top = check_object(data, path, ("bands", "shops"))
        bands: list[SupplyBand] = []
        raw_bands = check_list(top["bands"], f"{path}.bands")
        previous: int | None = None
        for i, raw in enumerate(raw_bands):
            p = f"{path}.bands[{i}]"
            row = check_object(raw, p, ("upto", "min_pct", "max_pct"))
            last = i == len(raw_bands) - 1
            upto: int | None
            if row["upto"] is None:
                if not last:
                    fail(
                        f"{p}.upto",
                        "table_upto_null_early",
                        "solo puede ser null en la última banda",
                    )
                upto = None
            else:
                if last:
                    fail(
                        f"{p}.upto",
                        "table_upto_not_null",
                        "debe ser null en la última banda (sin límite)",
                    )
                upto = check_int(
                    row["upto"], f"{p}.upto", None if previous is None else previous + 1
                )
                previous = upto
            lo = check_percent(row["min_pct"], f"{p}.min_pct")
            hi = check_percent(row["max_pct"], f"{p}.max_pct")
            if hi < lo:
                fail(
                    f"{p}.max_pct",
                    "table_maximum_below_minimum",
                    f"no puede ser menor que min_pct ({hi} < {lo})",
                    maximum=hi,
                    minimum=lo,
                )
            bands.append(SupplyBand(upto=upto, min_pct=lo, max_pct=hi))
        shops: list[ShopStock] = []
        for shop_type, raw in check_mapping(top["shops"], f"{path}.shops").items():
            p = f"{path}.shops.{shop_type}"
            row = check_object(
                raw, p, ("label", "food_kcal", "water_l", "toilet_paper_rolls", "medicine_doses")
            )
            shops.append(
                ShopStock(
                    shop_type=shop_type,
                    label=check_text(row["label"], f"{p}.label"),
                    food_kcal=check_int(row["food_kcal"], f"{p}.food_kcal", 0),
                    water_l=check_int(row["water_l"], f"{p}.water_l", 0),
                    toilet_paper_rolls=check_int(
                        row["toilet_paper_rolls"], f"{p}.toilet_paper_rolls", 0
                    ),
                    medicine_doses=check_int(row["medicine_doses"], f"{p}.medicine_doses", 0),
                )
            )
        return cls(
            day_factor=settings.shop_decay_per_day,
            bands=tuple(bands),
            shops=tuple(shops),
        )

    def with_settings(self, settings: RuleSettings) -> SuppliesTable:
        """This table with the day factor of ``settings`` (R23)."""
        return replace(self, day_factor=settings.shop_decay_per_day)

    def to_dict(self) -> JsonDict:
        """The JSON shape read by :meth:`from_dict`."""
        return {
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


MODE_ALIASES: tuple[str, ...] = ("caza", "persecucion", "persecución", "aggressive")
"""Other names of the aggressive mode (10 m): hunting and chase. Source: RULES.md R18."""


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
        if key == "agresivo" or key in MODE_ALIASES:
            return cls.AGGRESSIVE
        if key == "normal":
            return cls.NORMAL
        raise RulesError(
            "detection_mode_unknown",
            f"Modo desconocido «{text}»: usa normal, agresivo, caza o persecución.",
            mode=text,
        )


@dataclass(frozen=True, slots=True)
class EncounterTable:
    """Encounter constants (R18): the area of one cell (m²) and the detection radius per mode (m).

    All three are RuleSettings fields (their one source): build it with :meth:`from_settings`.
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
    def from_settings(cls, settings: RuleSettings = DEFAULT_SETTINGS) -> EncounterTable:
        """The encounter numbers of ``settings``: ``cell_area_m2``, ``detection_radius_m`` and
        ``aggressive_detection_radius_m`` (m², m). Source: RULES.md R18."""
        return cls(
            cell_area_m2=settings.cell_area_m2,
            radius_normal_m=settings.detection_radius_m,
            radius_aggressive_m=settings.aggressive_detection_radius_m,
        )


# --------------------------------------------------------------------------------- the bundle

TABLE_NAMES: tuple[str, ...] = ("traits", "weather", "search", "supplies", "combat")
"""The stored tables, each with a data file ``reglas/data/<name>.json``."""


@dataclass(frozen=True, slots=True)
class Tables:
    """All the tables of one campaign. The five of ``TABLE_NAMES`` are stored; ``encounters``
    is made of settings only and built from them.

    Source: RULES.md principle 1 ("every number is a campaign setting").
    """

    traits: TraitTable
    weather: WeatherTable
    search: SearchTable
    supplies: SuppliesTable
    combat: CombatTable
    encounters: EncounterTable

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], settings: RuleSettings = DEFAULT_SETTINGS
    ) -> Tables:
        """Validate and build from ``{"traits": …, "weather": …, "search": …, "supplies": …,
        "combat": …}``, with the scalars of ``settings``. Raises RulesError naming the first
        bad field."""
        top = check_object(data, "", TABLE_NAMES)
        return cls(
            traits=TraitTable.from_dict(top["traits"]),
            weather=WeatherTable.from_dict(top["weather"]),
            search=SearchTable.from_dict(top["search"]),
            supplies=SuppliesTable.from_dict(top["supplies"], settings=settings),
            combat=CombatTable.from_dict(top["combat"], settings=settings),
            encounters=EncounterTable.from_settings(settings),
        )

    @classmethod
    def from_overrides(
        cls, overrides: Mapping[str, Any] | None, settings: RuleSettings = DEFAULT_SETTINGS
    ) -> Tables:
        """The default tables with whole tables replaced: ``overrides`` maps a name of
        ``TABLE_NAMES`` to that table's full JSON (a campaign stores only the tables its master
        edited). Raises RulesError for an unknown name or a bad table."""
        if overrides is None:
            overrides = {}
        if not isinstance(overrides, Mapping):
            raise RulesError(
                "campaign_tables_not_object",
                "Las tablas de una campaña deben ser un objeto JSON (nombre: tabla).",
            )
        for name in overrides:
            if name not in TABLE_NAMES:
                fail(
                    str(name),
                    "table_unknown_name",
                    "no es una tabla («traits», «weather», «search», …)",
                )
        data = {**default_tables().to_dict(), **overrides}
        return cls.from_dict(data, settings=settings)

    def to_dict(self) -> JsonDict:
        """The JSON shape read by :meth:`from_dict`."""
        return {name: getattr(self, name).to_dict() for name in TABLE_NAMES}

    def overrides(self) -> JsonDict:
        """Only the tables that differ from the defaults, JSON-able:
        ``Tables.from_overrides(t.overrides(), s) == t`` for tables built with settings ``s``."""
        defaults = default_tables().to_dict()
        return {k: v for k, v in self.to_dict().items() if defaults[k] != v}


def load_data_json(name: str) -> JsonDict:
    """Read ``reglas/data/<name>.json`` (packaged data, via importlib.resources).

    Raises FileNotFoundError if the file is not shipped.
    """
    text = (files(DATA_PACKAGE) / DATA_DIR / f"{name}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):  # pragma: no cover - our own files
        raise RulesError(
            "table_file_not_object",
            f"El fichero de tabla «{name}.json» no contiene un objeto JSON.",
            name=name,
        )
    return data


@cache
def default_tables() -> Tables:
    """The rulebook's default tables, read once from ``reglas/data/``, with the default
    settings' scalars. A campaign stores only the tables it changes (``Tables.overrides``)."""
    return Tables.from_dict(
        {name: load_data_json(name) for name in TABLE_NAMES}, settings=DEFAULT_SETTINGS
    )


DEFAULT_TRAIT_TABLE: TraitTable = default_tables().traits
DEFAULT_WEATHER: WeatherTable = default_tables().weather
DEFAULT_SEARCH: SearchTable = default_tables().search
DEFAULT_SUPPLIES: SuppliesTable = default_tables().supplies
DEFAULT_ENCOUNTERS: EncounterTable = default_tables().encounters
DEFAULT_COMBAT: CombatTable = default_tables().combat
