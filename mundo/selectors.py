"""Reads of the world and the rules they compute.

Who may read which campaign is decided in ``mundo.access`` (``access_campaign``): pages, API,
feeds and e-mails fetch the campaign there first, so every surface shows the same thing to the
same person; the reads here take a campaign already checked.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from django.db.models import Q

from mundo.models import (
    Campaign,
    DayTick,
    Grid,
    GridDay,
    Location,
    Settlement,
    SettlementDay,
    WeatherRecord,
    WorldRoll,
)
from mundo.schedule import due_slot
from nucleo.errors import NotFound
from reglas.encounters import cells as cells_in_area
from reglas.encounters import p_cell
from reglas.population import (
    AdjustedPopulation,
    Population,
    apply_adjustments,
    population,
    population_curve,
)
from reglas.settings import RuleSettings
from reglas.tables import EncounterTable


@dataclass(frozen=True, slots=True)
class SettlementStatus:
    """A settlement on one day: population (R17) and zombies per cell (R18).

    ``cells`` = ⌊area / 4 m²⌋, ``p_cell`` a probability 0..1, ``p_cell_percent`` in %.
    """

    settlement: Settlement
    day: int
    population: Population
    cells: int
    p_cell: float
    adjusted: AdjustedPopulation | None = None

    @property
    def zombies(self) -> int:
        """Zombies today: the curve with the master's tally on top (R17)."""
        return self.adjusted.zombies if self.adjusted is not None else self.population.zombies

    @property
    def survivors(self) -> int:
        """Survivors today: the curve with the master's tally on top (R17)."""
        return self.adjusted.survivors if self.adjusted is not None else self.population.survivors

    @property
    def p_cell_percent(self) -> float:
        return 100.0 * self.p_cell


def settlement_status(
    settlement: Settlement, day: int, rules: RuleSettings | None = None
) -> SettlementStatus:
    """Zombies, survivors and p per cell of a settlement on ``day``: the curve with the
    master's tally (zombies destroyed, survivors rescued, characters risen) on top, never
    below 0, with the campaign's P0 and cell area (``rules``: the campaign's, when the caller
    has them already; read from ``settlement.campaign`` otherwise). No query when
    ``settlement.campaign`` is loaded. Source: RULES.md R17, R18.
    """
    if rules is None:
        rules = settlement.campaign.rules
    cell_table = EncounterTable.from_settings(rules)
    pop = population(settlement.population, day, settlement.growth_rate, rules.initial_zombies)
    adjusted = apply_adjustments(
        pop,
        destroyed=settlement.zombies_destroyed,
        rescued=settlement.survivors_rescued,
        risen=settlement.characters_risen,
    )
    cells = cells_in_area(settlement.area_m2, cell_table)
    # A master may set a cell larger than a small settlement: no whole cell, so any zombie there
    # is met for sure (p = 1), rather than a page that fails.
    p = p_cell(adjusted.zombies, cells) if cells else float(adjusted.zombies > 0)
    return SettlementStatus(
        settlement=settlement,
        day=day,
        population=pop,
        cells=cells,
        p_cell=p,
        adjusted=adjusted,
    )


def settlements_with_status(
    campaign: Campaign, settlements: Iterable[Settlement] | None = None
) -> list[SettlementStatus]:
    """Every settlement of the campaign (or only ``settlements``, e.g. a page of them, with
    their campaign loaded: no query then) with its status today (one query). The rules are
    the ``campaign``'s, built once (building them is most of a status's cost)."""
    if settlements is None:
        settlements = Settlement.objects.filter(campaign=campaign).select_related("campaign")
    rules = campaign.rules
    return [settlement_status(s, campaign.current_day, rules) for s in settlements]


def settlement_get(*, campaign: Campaign, slug: str) -> Settlement:
    """The campaign's settlement with this slug; ``NotFound`` if there is none."""
    try:
        return Settlement.objects.select_related("campaign").get(campaign=campaign, slug=slug)
    except Settlement.DoesNotExist:
        raise NotFound("No such settlement") from None


def settlement_curve(settlement: Settlement, first_day: int, last_day: int) -> list[Population]:
    """The settlement's population for each day in ``first_day..last_day`` (inclusive), with
    the campaign's P0 (``initial_zombies``). Source: RULES.md R17.
    """
    return population_curve(
        settlement.population,
        range(first_day, last_day + 1),
        settlement.growth_rate,
        settlement.campaign.rules.initial_zombies,
    )


# --- weather, outages, places, history ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WorldToday:
    """What the campaign page shows of the world on a day: the weather records (the region's
    first, then each settlement with its own climate) and every grid's state."""

    weather: list[WeatherRecord]
    grids: list[Grid]


def world_on(
    campaign: Campaign, day: int, settlements: Iterable[Settlement | None] | None = None
) -> WorldToday:
    """Weather of ``day`` and the grids' current state (two queries, whatever the number of
    settlements): every settlement's, or with ``settlements`` (e.g. a page of them) only the
    region's and theirs, each row's settlement then the one given (no join). Source:
    RULES.md R11, R16."""
    weather_rows = WeatherRecord.objects.filter(campaign=campaign, day=day)
    grid_rows = Grid.objects.filter(campaign=campaign)
    if settlements is None:
        weather = list(weather_rows.select_related("settlement"))
        grids = list(grid_rows.select_related("settlement"))
    else:
        given = {s.pk: s for s in settlements if s is not None}
        only = Q(settlement__isnull=True) | Q(settlement__in=list(given))
        weather, grids = list(weather_rows.filter(only)), list(grid_rows.filter(only))
        for record in weather:
            record.settlement = given.get(record.settlement_id) if record.settlement_id else None
        for grid in grids:
            grid.settlement = given.get(grid.settlement_id) if grid.settlement_id else None
    weather.sort(
        key=lambda w: (w.settlement_id is not None, w.settlement.name if w.settlement else "")
    )
    grids.sort(
        key=lambda g: (g.settlement_id is not None, g.settlement.name if g.settlement else "")
    )
    return WorldToday(weather=weather, grids=grids)


def locations_of(
    campaign: Campaign, settlement: Settlement | Literal["all"] | None = "all", limit: int = 0
) -> list[Location]:
    """Every place of the campaign (or of ``settlement`` only; ``None``: none) with its
    settlement, at most ``limit`` when given (one query)."""
    rows = Location.objects.filter(settlement__campaign=campaign)
    if settlement != "all":
        rows = rows.filter(settlement=settlement) if settlement is not None else rows.none()
    rows = rows.select_related("settlement").order_by("settlement__name", "kind", "name")
    return list(rows[:limit] if limit else rows)


def world_rolls(campaign: Campaign, limit: int = 30) -> list[WorldRoll]:
    """The latest world rolls, newest first (one query)."""
    return list(
        WorldRoll.objects.filter(campaign=campaign)
        .select_related("settlement", "location", "made_by")
        .order_by("-id")[:limit]
    )


def played_days(campaign: Campaign) -> list[DayTick]:
    """The days reached by the tick, newest first (one query)."""
    return list(DayTick.objects.filter(campaign=campaign).order_by("-day"))


@dataclass(frozen=True, slots=True)
class DayHistory:
    """A past campaign-day: its tick record (None for days before the first tick), weather,
    grid states and settlement populations (the diary tables are the characters' app's)."""

    day: int
    tick: DayTick | None
    weather: list[WeatherRecord]
    grids: list[GridDay]
    settlements: list[SettlementDay]


def day_history(campaign: Campaign, day: int) -> DayHistory:
    """Everything stored about ``day`` of the campaign (four queries)."""
    return DayHistory(
        day=day,
        tick=DayTick.objects.filter(campaign=campaign, day=day).first(),
        weather=list(
            WeatherRecord.objects.filter(campaign=campaign, day=day)
            .select_related("settlement")
            .order_by("settlement__name")
        ),
        grids=list(
            GridDay.objects.filter(grid__campaign=campaign, day=day)
            .select_related("grid__settlement")
            .order_by("grid__settlement__name")
        ),
        settlements=list(
            SettlementDay.objects.filter(settlement__campaign=campaign, day=day)
            .select_related("settlement")
            .order_by("settlement__name")
        ),
    )


def first_played_day(campaign: Campaign) -> int | None:
    """The first day reached by the tick (the curve shades from there), or None."""
    tick = DayTick.objects.filter(campaign=campaign).order_by("day").first()
    return None if tick is None else tick.day


def campaigns_due(now: datetime.datetime) -> list[tuple[Campaign, datetime.datetime]]:
    """Every campaign on the daily schedule whose latest local tick time has passed since it
    last advanced for the schedule, with that slot (UTC). One query; the check itself is
    ``mundo.schedule.due_slot`` (wall-clock time, safe across daylight saving).
    """
    due = []
    for campaign in Campaign.objects.filter(schedule=Campaign.Schedule.DAILY).order_by("id"):
        slot = due_slot(
            now=now,
            tz_name=campaign.time_zone,
            at=campaign.tick_time,
            last_run=campaign.last_scheduled_run,
            created_at=campaign.created_at,
        )
        if slot is not None:
            due.append((campaign, slot))
    return due
