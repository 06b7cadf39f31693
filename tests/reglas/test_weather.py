"""Weather: seasons from dates, sky bands, temperatures. Source: RULES.md R11."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from reglas.core import make_rng
from reglas.tables import DEFAULT_WEATHER
from reglas.weather import Season, Weather, roll_weather, season_for

from .world_helpers import ScriptedRng

PRECIPITATION = {"rain", "storm", "snow"}


@pytest.mark.parametrize(
    ("date", "season"),
    [
        (dt.date(2024, 12, 1), Season.WINTER),
        (dt.date(2025, 1, 15), Season.WINTER),
        (dt.date(2024, 2, 29), Season.WINTER),
        (dt.date(2024, 3, 1), Season.SPRING),
        (dt.date(2024, 5, 31), Season.SPRING),
        (dt.date(2024, 6, 1), Season.SUMMER),
        (dt.date(2024, 8, 31), Season.SUMMER),
        (dt.date(2024, 9, 1), Season.AUTUMN),
        (dt.date(2024, 11, 30), Season.AUTUMN),
    ],
)
def test_season_for_is_meteorological_northern(date: dt.date, season: Season) -> None:
    assert season_for(date) is season


def test_season_for_accepts_datetimes() -> None:
    assert season_for(dt.datetime(2024, 7, 4, 12, tzinfo=dt.UTC)) is Season.SUMMER


@pytest.mark.parametrize(
    ("season", "die", "sky"),
    [
        (Season.SPRING, 1, "clear"),
        (Season.SPRING, 40, "clear"),
        (Season.SPRING, 41, "cloudy"),
        (Season.SPRING, 65, "cloudy"),
        (Season.SPRING, 66, "rain"),
        (Season.SPRING, 86, "storm"),
        (Season.SPRING, 96, "fog"),
        (Season.SUMMER, 70, "clear"),
        (Season.SUMMER, 71, "cloudy"),
        (Season.SUMMER, 86, "storm"),
        (Season.SUMMER, 93, "storm"),
        (Season.SUMMER, 94, "heat_wave"),
        (Season.SUMMER, 100, "heat_wave"),
        (Season.AUTUMN, 35, "clear"),
        (Season.AUTUMN, 36, "cloudy"),
        (Season.AUTUMN, 61, "rain"),
        (Season.AUTUMN, 95, "storm"),
        (Season.AUTUMN, 96, "fog"),
        (Season.WINTER, 30, "clear"),
        (Season.WINTER, 31, "cloudy"),
        (Season.WINTER, 56, "rain"),
        (Season.WINTER, 76, "snow"),
        (Season.WINTER, 88, "snow"),
        (Season.WINTER, 89, "frost"),
        (Season.WINTER, 95, "frost"),
        (Season.WINTER, 96, "fog"),
    ],
)
def test_sky_bands_on_their_edges(season: Season, die: int, sky: str) -> None:
    weather = roll_weather(season, ScriptedRng([die, 1, 1]))
    assert weather.sky == sky
    assert weather.sky_die == die
    assert weather.precipitation is (sky in PRECIPITATION)


def test_worked_temperatures_and_caps() -> None:
    # Winter, snow (die 80), min −9 + 12 = 3 → capped at 0; max 0 + 6 + 8 = 14.
    snow = roll_weather(Season.WINTER, ScriptedRng([80, 12, 8]))
    assert (snow.min_uncapped_c, snow.min_c, snow.min_capped, snow.max_c) == (3, 0, True, 14)
    # Winter, frost (die 90), min −9 + 5 = −4 stays below the −1 cap.
    frost = roll_weather(Season.WINTER, ScriptedRng([90, 5, 1]))
    assert (frost.min_c, frost.min_capped, frost.max_c) == (-4, False, 3)
    # Summer, clear: 12 + 10 = 22, max 22 + 6 + 4 = 32.
    summer = roll_weather(Season.SUMMER, ScriptedRng([1, 10, 4]))
    assert (summer.min_c, summer.max_c, summer.min_die_faces, summer.max_die_faces) == (
        22,
        32,
        10,
        8,
    )


@pytest.mark.parametrize("season", list(Season))
def test_many_days_every_band_reachable_and_invariants(season: Season) -> None:
    rng = make_rng(11, (int(list(Season).index(season)),))
    days = [roll_weather(season, rng) for _ in range(3000)]
    row = DEFAULT_WEATHER.season(season)
    assert {w.sky for w in days} == {b.sky for b in row.bands}
    lo, hi = row.min_base_c + 1, row.min_base_c + row.min_die
    for w in days:
        assert lo <= w.min_uncapped_c <= hi
        assert 7 <= w.max_c - w.min_c <= 14
        assert w.precipitation is (w.sky in PRECIPITATION)
        if w.sky == "snow":
            assert w.min_c <= 0
        if w.sky == "frost":
            assert w.min_c <= -1
    # Every face of the minimum die shows up.
    assert {w.min_die for w in days} == set(range(1, row.min_die + 1))


def test_same_generator_same_weather_and_all_dice_shown() -> None:
    a = roll_weather(Season.WINTER, make_rng(5, (1, 2)))
    b = roll_weather(Season.WINTER, make_rng(5, (1, 2)))
    assert a == b
    text = a.describe()
    for die in (a.sky_die, a.min_die, a.max_die):
        assert str(die) in text
    assert a.as_dict()["season"] == "invierno"
    assert isinstance(a, Weather)


def test_rolls_use_only_the_passed_generator() -> None:
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    roll_weather(Season.SPRING, rng)
    assert rng.bit_generator.state != before
