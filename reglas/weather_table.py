"""The weather table (R11): kinds of sky, the d100 bands per season, the temperature dice.

Source: RULES.md R11 (the rulebook's own table is missing; the defaults are ours and live in
``reglas/data/weather.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from reglas.errors import RulesError
from reglas.tablecheck import (
    check_bool,
    check_int,
    check_list,
    check_mapping,
    check_object,
    check_text,
    fail,
)

JsonDict = dict[str, Any]


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
        raise RulesError(
            "season_unknown",
            f"Estación desconocida «{text}»: usa invierno, primavera, verano u otoño.",
            season=text,
        )


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
            raise RulesError(
                "sky_die_range",
                f"El dado de cielo debe estar entre 1 y 100 (se recibió {die}).",
                die=die,
            )
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
        raise RulesError("sky_unknown", f"Tipo de cielo desconocido «{slug}».", slug=slug)

    def season(self, season: Season) -> SeasonWeather:
        """The row of a season (every season has one)."""
        for row in self.seasons:
            if row.season == season:
                return row
        raise RulesError(
            "weather_season_missing",
            f"La tabla de clima no tiene la estación «{season}».",
            season=str(season),
        )  # pragma: no cover

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "weather") -> WeatherTable:
        """Validate and build from the JSON shape of ``reglas/data/weather.json``.

        Raises RulesError naming the first bad field.
        """
        top = check_object(data, path, ("skies", "seasons", "max_offset_c", "max_die"))
        skies_raw = check_mapping(top["skies"], f"{path}.skies")
        skies: list[SkyKind] = []
        for slug, raw in skies_raw.items():
            p = f"{path}.skies.{slug}"
            row = check_object(raw, p, ("label", "precipitation", "min_cap_c"))
            cap = row["min_cap_c"]
            skies.append(
                SkyKind(
                    slug=slug,
                    label=check_text(row["label"], f"{p}.label"),
                    precipitation=check_bool(row["precipitation"], f"{p}.precipitation"),
                    min_cap_c=None if cap is None else check_int(cap, f"{p}.min_cap_c"),
                )
            )
        sky_slugs = {s.slug for s in skies}
        seasons_raw = check_object(top["seasons"], f"{path}.seasons", [s.value for s in Season])
        seasons: list[SeasonWeather] = []
        for season in Season:
            p = f"{path}.seasons.{season.value}"
            row = check_object(seasons_raw[season.value], p, ("min_base_c", "min_die", "sky"))
            bands: list[SkyBand] = []
            previous = 0
            for i, band_raw in enumerate(check_list(row["sky"], f"{p}.sky")):
                bp = f"{p}.sky[{i}]"
                band = check_object(band_raw, bp, ("upto", "sky"))
                upto = check_int(band["upto"], f"{bp}.upto", previous + 1, 100)
                sky = check_text(band["sky"], f"{bp}.sky")
                if sky not in sky_slugs:
                    fail(
                        f"{bp}.sky",
                        "table_sky_unknown",
                        f"nombra un cielo que no está en «{path}.skies» ({sky})",
                        table=path,
                        sky=sky,
                    )
                bands.append(SkyBand(upto=upto, sky=sky))
                previous = upto
            if previous != 100:
                fail(
                    f"{p}.sky",
                    "table_sky_bands_short",
                    "debe cubrir el d100 hasta 100 (la última banda acaba en 100)",
                )
            seasons.append(
                SeasonWeather(
                    season=season,
                    bands=tuple(bands),
                    min_base_c=check_int(row["min_base_c"], f"{p}.min_base_c"),
                    min_die=check_int(row["min_die"], f"{p}.min_die", 1, 1000),
                )
            )
        return cls(
            skies=tuple(skies),
            seasons=tuple(seasons),
            max_offset_c=check_int(top["max_offset_c"], f"{path}.max_offset_c", 0),
            max_die=check_int(top["max_die"], f"{path}.max_die", 1, 1000),
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
