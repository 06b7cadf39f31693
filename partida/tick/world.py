"""The world's part of the tick: weather (R11), utilities (R16) and populations (R17).

Each step reads its rows in one query, rolls with its own generator per subject
(``make_rng(entropy, [day, purpose, subject, 0])``: the weather of each climate, the cut dice
of each grid), so adding a settlement changes no one else's weather or grid, and writes in one
statement per table (``nucleo.bulk``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mundo.models import Campaign, Grid, GridDay, Settlement, SettlementDay, WeatherRecord
from nucleo import bounds, bulk
from reglas.core import RollPurpose, make_rng
from reglas.population import apply_adjustments_many, population_many
from reglas.settings import RuleSettings
from reglas.utilities import roll_utilities
from reglas.weather import Weather, roll_weather, season_for

type DayWeather = dict[int | None, tuple[str, bool, float]]
"""Per climate (a settlement id with its own climate, None = the region): (sky label,
precipitation, minimum °C)."""


def insert_dicts(model: type, rows: list[dict[str, Any]]) -> None:
    """One INSERT of rows given as dicts (field name → value; foreign keys by field name)."""
    if not rows:
        return
    bulk.insert_columns(model, {name: [r[name] for r in rows] for name in rows[0]})


@dataclass(frozen=True, slots=True)
class World:
    """The campaign's places as the closing day saw them.

    ``settlements`` by id; ``grids`` by settlement id (None: the region's grid);
    ``power_cut_day``/``water_on`` per grid key as they were *during* the closing day (before
    this tick's cut dice); ``weather`` the closing day's per climate.
    """

    settlements: dict[int, Settlement]
    grids: dict[int | None, Grid]
    power_cut_day: dict[int | None, int | None]
    water_on: dict[int | None, bool]
    weather: DayWeather

    def grid_key(self, settlement_id: int | None) -> int | None:
        """The key in ``grids`` of the grid that serves a settlement (or the open)."""
        s = self.settlements.get(settlement_id) if settlement_id is not None else None
        return s.pk if s is not None and s.own_grid else None

    def climate(self, settlement_id: int | None) -> int | None:
        """The key in ``weather`` of the climate a settlement (or the open) lives in."""
        s = self.settlements.get(settlement_id) if settlement_id is not None else None
        return s.pk if s is not None and s.own_climate else None


def _grids(campaign: Campaign, settlements: list[Settlement]) -> dict[int | None, Grid]:
    """The campaign's grids by settlement id; a grid row is made the first time it is needed."""
    grids = {g.settlement_id: g for g in Grid.objects.filter(campaign=campaign)}
    missing: list[int | None] = [None] if None not in grids else []
    missing += [s.pk for s in settlements if s.own_grid and s.pk not in grids]
    if missing:
        Grid.objects.bulk_create([Grid(campaign=campaign, settlement_id=sid) for sid in missing])
        grids = {g.settlement_id: g for g in Grid.objects.filter(campaign=campaign)}
    return grids


def _weather_row(
    campaign: Campaign, settlement_id: int | None, day: int, weather: Weather, key: list[int]
) -> dict[str, Any]:
    return {
        "campaign": campaign.pk,
        "settlement": settlement_id,
        "day": day,
        "season": weather.season.value,
        "sky": weather.sky,
        "sky_label": weather.sky_label,
        "precipitation": weather.precipitation,
        "min_c": weather.min_c,
        "max_c": weather.max_c,
        "dice": json.dumps(weather.as_dict(), ensure_ascii=False),
        "generator_key": json.dumps(key),
    }


def _roll_weather_day(
    campaign: Campaign, climates: list[int | None], day: int, existing: dict[Any, Any]
) -> tuple[DayWeather, list[dict[str, Any]]]:
    """The weather of ``day`` for each climate: the stored record when it exists, else a roll
    with the climate's own generator. Returns the weather per climate and the rows to insert."""
    season = season_for(bounds.day_date(campaign.apocalypse_date, day))
    out: DayWeather = {}
    rows: list[dict[str, Any]] = []
    table = campaign.tables.weather  # built once: the campaign's tables are validated on read
    for climate in climates:
        if climate in existing:
            out[climate] = existing[climate]
            continue
        key = [day, RollPurpose.WEATHER, climate or 0, 0]
        weather = roll_weather(season, make_rng(campaign.entropy_int, key), table)
        out[climate] = (weather.sky_label, weather.precipitation, float(weather.min_c))
        rows.append(_weather_row(campaign, climate, day, weather, key))
    return out, rows


def _weather(campaign: Campaign, settlements: list[Settlement], closed: int) -> DayWeather:
    """R11: the closing day's weather (stored, or rolled now for a first tick) and the new
    day's, rolled and stored; returns the closing day's."""
    new = closed + 1
    climates: list[int | None] = [None] + [s.pk for s in settlements if s.own_climate]
    stored = {
        (w[0], w[1]): (w[2], w[3], float(w[4]))
        for w in WeatherRecord.objects.filter(campaign=campaign, day__in=[closed, new]).values_list(
            "day", "settlement_id", "sky_label", "precipitation", "min_c"
        )
    }
    weather_closed, rows_closed = _roll_weather_day(
        campaign, climates, closed, {c: v for (d, c), v in stored.items() if d == closed}
    )
    _weather_new, rows_new = _roll_weather_day(
        campaign, climates, new, {c: v for (d, c), v in stored.items() if d == new}
    )
    insert_dicts(WeatherRecord, rows_closed + rows_new)
    return weather_closed


def _utilities(
    campaign: Campaign, rules: RuleSettings, grids: dict[int | None, Grid], new: int
) -> None:
    """R16 for the new day: each grid still on is cut with its own dice; one GridDay each."""
    grid_days: list[dict[str, Any]] = []
    updates: dict[int, tuple[bool, bool, int | None, int | None]] = {}
    # ``roll_utilities`` takes p (%) = its day argument; the campaign setting
    # ``utility_cut_percent_per_day`` (1 by default: p = day) scales it here.
    cut_day = math.floor(new * rules.utility_cut_percent_per_day)
    for grid in sorted(grids.values(), key=lambda g: g.pk):
        rolled = roll_utilities(
            cut_day,
            grid.power_on,
            grid.water_on,
            make_rng(campaign.entropy_int, [new, RollPurpose.UTILITIES, grid.pk, 0]),
        )
        grid_days.append(
            {
                "grid": grid.pk,
                "day": new,
                "probability": rolled.probability,
                "power_die": rolled.power_die or 0,
                "water_die": rolled.water_die or 0,
                "power_cut_today": rolled.power_cut_today,
                "water_cut_today": rolled.water_cut_today,
                "power_on": rolled.power_on,
                "water_on": rolled.water_on,
            }
        )
        if rolled.power_cut_today or rolled.water_cut_today:
            updates[grid.pk] = (
                rolled.power_on,
                rolled.water_on,
                new if rolled.power_cut_today else grid.power_cut_day,
                new if rolled.water_cut_today else grid.water_cut_day,
            )
    insert_dicts(GridDay, grid_days)
    if updates:
        ids = list(updates)
        bulk.update_columns(
            Grid,
            ids,
            {name: [updates[i][j] for i in ids] for j, name in enumerate(_GRID_COLUMNS)},
        )


_GRID_COLUMNS = ("power_on", "water_on", "power_cut_day", "water_cut_day")


def open_world_day(campaign: Campaign, rules: RuleSettings, closed: int) -> World:
    """R24 steps 2–3: the weather of the closing and the new day, the new day's utilities.

    Returns the world as the closing day saw it (for the characters' step). Queries:
    settlements, grids (+ insert and re-read when one is missing), weather read and insert,
    grid days insert, grids update (when a supply is cut). Source: RULES.md R11, R16, R24.
    """
    settlements = list(Settlement.objects.filter(campaign=campaign).order_by("id"))
    grids = _grids(campaign, settlements)
    # During the closing day the grids were as the last tick left them (power cut day kept).
    power_cut_day = {gid: g.power_cut_day for gid, g in grids.items()}
    water_on = {gid: g.water_on for gid, g in grids.items()}
    weather = _weather(campaign, settlements, closed)
    _utilities(campaign, rules, grids, closed + 1)
    return World(
        settlements={s.pk: s for s in settlements},
        grids=grids,
        power_cut_day=power_cut_day,
        water_on=water_on,
        weather=weather,
    )


def advance_populations(
    world: World, rules: RuleSettings, new: int, risen_by_settlement: dict[int, int]
) -> None:
    """R24 step 4: each settlement's zombies and survivors on ``new``, the master's tally and
    this tick's risen characters included (one insert; one update when someone rose).
    Source: RULES.md R17."""
    settlements = list(world.settlements.values())
    if not settlements:
        return
    k = np.array([s.population for s in settlements], dtype=np.int64)
    r = np.array([s.growth_rate for s in settlements], dtype=np.float64)
    pops = population_many(k, new, r, rules.initial_zombies)
    risen_now = np.array([risen_by_settlement.get(s.pk, 0) for s in settlements], np.int64)
    destroyed = np.array([s.zombies_destroyed for s in settlements], dtype=np.int64)
    rescued = np.array([s.survivors_rescued for s in settlements], dtype=np.int64)
    risen_total = np.array([s.characters_risen for s in settlements], np.int64) + risen_now
    zombies, survivors = apply_adjustments_many(
        pops.zombies, pops.survivors, destroyed, rescued, risen_total
    )
    bulk.insert_columns(
        SettlementDay,
        {
            "settlement": [s.pk for s in settlements],
            "day": [new] * len(settlements),
            "base_zombies": pops.zombies.tolist(),
            "zombies": zombies.tolist(),
            "survivors": survivors.tolist(),
            "destroyed": destroyed.tolist(),
            "rescued": rescued.tolist(),
            "risen": risen_total.tolist(),
        },
    )
    changed = [i for i, s in enumerate(settlements) if risen_now[i]]
    if changed:
        bulk.update_columns(
            Settlement,
            [settlements[i].pk for i in changed],
            {"characters_risen": [int(risen_total[i]) for i in changed]},
        )
