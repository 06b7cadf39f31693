"""Daily weather: season from the date, sky from a d100, minimum and maximum temperature.

Source: RULES.md R11 (the rulebook announces a weather table but does not include it; the
default table is ours and lives in ``reglas/data/weather.json``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from reglas.tables import DEFAULT_WEATHER, Season, WeatherTable

__all__ = ["Season", "Weather", "roll_weather", "season_for"]

_SEASON_BY_MONTH: dict[int, Season] = {
    12: Season.WINTER,
    1: Season.WINTER,
    2: Season.WINTER,
    3: Season.SPRING,
    4: Season.SPRING,
    5: Season.SPRING,
    6: Season.SUMMER,
    7: Season.SUMMER,
    8: Season.SUMMER,
    9: Season.AUTUMN,
    10: Season.AUTUMN,
    11: Season.AUTUMN,
}


def season_for(date: dt.date) -> Season:
    """Meteorological season of a calendar date, northern hemisphere.

    December–February winter, March–May spring, June–August summer, September–November
    autumn. Source: RULES.md R11.
    """
    return _SEASON_BY_MONTH[date.month]


@dataclass(frozen=True, slots=True)
class Weather:
    """One day's weather with every die that made it.

    Temperatures in °C (integers). ``min_uncapped_c`` = ``min_base_c`` + ``min_die``;
    ``min_c`` is that value after the sky's cap (snow 0 °C, frost −1 °C), ``min_capped`` says
    whether the cap lowered it. ``max_c`` = ``min_c`` + ``max_offset_c`` + ``max_die``.
    ``precipitation`` (rain, storm, snow) feeds disease onset (R10).
    Source: RULES.md R11.
    """

    season: Season
    sky: str
    sky_label: str
    sky_die: int
    precipitation: bool
    min_base_c: int
    min_die: int
    min_die_faces: int
    min_uncapped_c: int
    min_cap_c: int | None
    min_capped: bool
    min_c: int
    max_offset_c: int
    max_die: int
    max_die_faces: int
    max_c: int

    def as_dict(self) -> dict[str, object]:
        """JSON-able form (season by its Spanish name)."""
        return {
            "season": self.season.value,
            "sky": self.sky,
            "sky_label": self.sky_label,
            "sky_die": self.sky_die,
            "precipitation": self.precipitation,
            "min_base_c": self.min_base_c,
            "min_die": self.min_die,
            "min_die_faces": self.min_die_faces,
            "min_uncapped_c": self.min_uncapped_c,
            "min_cap_c": self.min_cap_c,
            "min_capped": self.min_capped,
            "min_c": self.min_c,
            "max_offset_c": self.max_offset_c,
            "max_die": self.max_die,
            "max_die_faces": self.max_die_faces,
            "max_c": self.max_c,
        }

    def describe(self) -> str:
        """Spanish text showing every die, e.g. for a diary or the master's calculator."""
        if self.min_capped:
            minimum = f"{self.min_uncapped_c} °C, limitada a {self.min_c} °C por {self.sky_label}"
        else:
            minimum = f"{self.min_c} °C"
        rain = "sí" if self.precipitation else "no"
        return (
            f"{self.season.label}: {self.sky_label} (d100 = {self.sky_die}); "
            f"mínima {self.min_base_c} + 1d{self.min_die_faces} ({self.min_die}) = {minimum}; "
            f"máxima {self.min_c} + {self.max_offset_c} + 1d{self.max_die_faces} "
            f"({self.max_die}) = {self.max_c} °C; precipitación: {rain}."
        )


def roll_weather(
    season: Season, rng: np.random.Generator, table: WeatherTable = DEFAULT_WEATHER
) -> Weather:
    """Roll one day's weather for a season.

    Dice, in this order: d100 for the sky band, 1dN for the minimum (N per season: 10, or 12
    in winter), 1d8 for the maximum. The sky's cap applies before the maximum is computed, so
    max − min is always ``max_offset_c`` + 1..``max_die`` (7..14 °C by default).
    Source: RULES.md R11.
    """
    row = table.season(season)
    sky_die = int(rng.integers(1, 101))
    sky = table.sky(row.sky_for(sky_die))
    min_die = int(rng.integers(1, row.min_die + 1))
    uncapped = row.min_base_c + min_die
    min_c = uncapped if sky.min_cap_c is None else min(uncapped, sky.min_cap_c)
    max_die = int(rng.integers(1, table.max_die + 1))
    return Weather(
        season=season,
        sky=sky.slug,
        sky_label=sky.label,
        sky_die=sky_die,
        precipitation=sky.precipitation,
        min_base_c=row.min_base_c,
        min_die=min_die,
        min_die_faces=row.min_die,
        min_uncapped_c=uncapped,
        min_cap_c=sky.min_cap_c,
        min_capped=min_c < uncapped,
        min_c=min_c,
        max_offset_c=table.max_offset_c,
        max_die=max_die,
        max_die_faces=table.max_die,
        max_c=min_c + table.max_offset_c + max_die,
    )
