"""The daily tick: ``advance_day`` closes one in-game day of a campaign and opens the next.

Order (RULES.md R24), for a campaign on day N:
1. day += 1 → N + 1;
2. weather (R11) of the day that opens, N + 1 (the day that closes, N, keeps the weather rolled
   when it opened; a campaign's first tick rolls it then);
3. utilities (R16): each grid still on is cut with probability N + 1 % (the day that opens);
4. populations (R17) on day N + 1, with the master's tally;
5. per living (approved) character, for the day that closes (N), all at once over numpy arrays:
   a medicine dose for the sick, consumption (R15), needs (R6), hygiene and dirt (R7, R8),
   disease course or onset (R10, R12), infection (R13), deaths (R14); risen characters add a
   zombie to their settlement;
6. one ``DiaryEntry`` per character for day N (the R25 table, as fields);
7. diary posts and their notifications (``escenas.services``, when that app provides them),
   made by a task queued for after the commit (``diary_posts_for_day``).

Timeline reading (shared with ``reglas.survival`` and ``reglas.health``): the tick *closes* day
N — its inputs are what happened on day N (the master's ``DayRecord`` of day N, day N's weather,
the grids as they were during day N) and its outputs are the counters for day N + 1. The diary
entry of day N shows the counters and the R9 penalty as the tick leaves them (they apply to
day N + 1's rolls).

Exactly once: the whole tick is one transaction. It locks the campaign row
(``select_for_update``), checks that the campaign is still on the day the caller saw, and
inserts the ``DayTick`` (campaign, N + 1) row, unique. A second call for the same day — a double
click, two workers, beat firing twice — waits on the lock, sees the day has moved, and returns
the first call's result from that row. Any exception rolls everything back.

Queries: a fixed number per tick (about 25), whatever the number of characters: reads with
``values_list`` into arrays, writes with one statement per table (``partida.bulk``).

Random numbers: one generator per step and subject, ``make_rng(entropy, [day, PURPOSE, subject,
0])`` — the weather of each climate, the cut dice of each grid, one for the health step — so
adding a character or a settlement changes no one else's weather or grid.

Readings of the rules chosen here (see also the issue's report):
- Only approved characters tick (a draft or a submitted sheet has not entered play).
- A day "treated" (R12) = a sick character took a medicine dose that day: the tick gives one
  dose automatically, from what it carries, then from its shelter's stash (as R15 feeds it).
- A character with no shelter lives in the open: it can always go apart (place OK), but needs
  paper or a substitute like anyone (R7). A character in a shelter uses the shelter's latrine.
- Running water = the shelter has plumbing and its grid's water was on during the day.
- A shower with stored water is paid when the master marks it (``personajes.days``); the tick
  then counts the character as washed. "Got dirty" marks apply before the day's wash.
- Perishable food spoils ``spoil_days`` days after its grid's power was cut: edible through
  day cut + spoil_days, skipped from the day after (as ``take_food`` skips ``spoil_day < today``).
- Sick housemates (R10) count characters with a running disease (not infections).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
from django.db import transaction
from django.utils import timezone
from numpy.typing import NDArray

from mundo.models import (
    Campaign,
    DayTick,
    Grid,
    GridDay,
    Location,
    Settlement,
    SettlementDay,
    WeatherRecord,
)
from nucleo.errors import ServiceError
from partida import bulk
from partida.allocation import allocate, totals
from personajes.models import (
    Character,
    DayRecord,
    DiaryEntry,
    InventoryItem,
    ItemType,
    Roll,
    ShelterStash,
    TraitValue,
)
from reglas import ENGINE_VERSION
from reglas.characters import (
    ConditionArrays,
    ConditionState,
    action_penalty,
    action_penalty_parts,
    is_dirt_sensitive,
)
from reglas.core import RollPurpose, make_rng
from reglas.health import (
    RESISTANCE_TRAIT,
    HealthDayArrays,
    advance_health,
    count_sick_housemates,
    resistance_modifiers,
)
from reglas.population import apply_adjustments_many, population_many
from reglas.settings import RuleSettings
from reglas.survival import DayArrays, Supplies, advance_survival
from reglas.utilities import roll_utilities
from reglas.weather import Weather, roll_weather, season_for

logger = logging.getLogger(__name__)

PURPOSE_WEATHER = RollPurpose.WEATHER
"""``make_rng`` purpose of a day's weather (subject: settlement id, 0 = the region)."""
PURPOSE_UTILITIES = RollPurpose.UTILITIES
"""Purpose of a grid's cut dice (subject: grid id)."""
PURPOSE_HEALTH = RollPurpose.HEALTH
"""Purpose of the health step's generator (subject 0); stored rolls add the character id."""

CONDITION_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(ConditionState))
_BOOL_FIELDS = frozenset(f.name for f in dataclasses.fields(ConditionState) if f.type == "bool")

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
B = NDArray[np.bool_]


class TickRefused(ServiceError):
    """The tick cannot run: the campaign moved to another day than the caller saw."""


@dataclass(frozen=True, slots=True)
class TickResult:
    """What one call of ``advance_day`` did, or found done.

    ``day`` the day reached, ``closed_day`` the day closed (``day`` − 1); ``advanced`` False when
    another call had already advanced this day (its result is returned); ``characters`` how
    many ticked; ``deaths`` and ``risen`` counts; ``message`` a Spanish summary.
    """

    campaign_id: int
    day: int
    closed_day: int
    advanced: bool
    characters: int
    deaths: int
    risen: int
    message: str
    tick_id: int

    @classmethod
    def from_record(cls, record: DayTick, *, advanced: bool) -> TickResult:
        return cls(
            campaign_id=record.campaign_id,
            day=record.day,
            closed_day=record.day - 1,
            advanced=advanced,
            characters=record.characters,
            deaths=record.deaths,
            risen=record.risen,
            message=record.message,
            tick_id=record.pk,
        )


def advance_day(
    campaign: Campaign | int,
    *,
    expected_day: int | None = None,
    trigger: str = DayTick.Trigger.MASTER,
    scheduled_slot: datetime.datetime | None = None,
) -> TickResult:
    """Close the campaign's current day and open the next one (RULES.md R24), exactly once.

    ``expected_day`` is the day the caller saw (default: the one ``campaign`` holds, or the one
    read now for an id). If the campaign is no longer on it and the tick that moved it exists,
    that tick's result is returned with ``advanced=False``; if it moved otherwise (an edit),
    raises ``TickRefused``. ``scheduled_slot``: the schedule's slot this run is for (beat);
    a slot already handled returns the last tick's result. Works with no characters (only the
    world advances; the message says so). Raises ``Campaign.DoesNotExist`` for an unknown id.
    Source: RULES.md R6–R17, R24, R25.
    """
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    if expected_day is None:
        expected_day = (
            Campaign.objects.values_list("current_day", flat=True).get(pk=campaign_id)
            if isinstance(campaign, int)
            else campaign.current_day
        )
    started = time.perf_counter()
    after_commit: list[Callable[[], None]] = []
    with transaction.atomic():
        # The lock serialises ticks of one campaign (and the master's world rolls, which take
        # the same lock first); the DayTick row below is the exactly-once guard.
        locked = Campaign.objects.select_for_update().get(pk=campaign_id)
        if scheduled_slot is not None and (
            locked.last_scheduled_run is not None and locked.last_scheduled_run >= scheduled_slot
        ):
            last = DayTick.objects.filter(campaign_id=campaign_id).order_by("-day").first()
            if last is not None:
                return TickResult.from_record(last, advanced=False)
        if locked.current_day != expected_day:
            record = DayTick.objects.filter(campaign_id=campaign_id, day=expected_day + 1).first()
            if record is None:
                raise TickRefused(
                    f"La partida ya no está en el día {expected_day} (está en el día "
                    f"{locked.current_day}): vuelve a cargar la página."
                )
            if scheduled_slot is not None:
                # The day moved (the master advanced by hand) around this slot: the slot is
                # used up, or the next beat would advance a second time.
                Campaign.objects.filter(pk=campaign_id).update(last_scheduled_run=scheduled_slot)
            return TickResult.from_record(record, advanced=False)
        result = _advance(locked, trigger, scheduled_slot, started, after_commit)
        for callback in after_commit:
            transaction.on_commit(callback)
    return result


# --- world steps -------------------------------------------------------------------------------


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
) -> tuple[dict[int | None, tuple[str, bool, float]], list[dict[str, Any]]]:
    """The weather of ``day`` for each climate (None = the region): the stored record when it
    exists, else a roll with the climate's own generator. Returns (label, precipitation, min
    °C) per climate and the rows to insert."""
    season = season_for(campaign.apocalypse_date + datetime.timedelta(days=day))
    out: dict[int | None, tuple[str, bool, float]] = {}
    rows: list[dict[str, Any]] = []
    for climate in climates:
        if climate in existing:
            out[climate] = existing[climate]
            continue
        key = [day, PURPOSE_WEATHER, climate or 0, 0]
        weather = roll_weather(season, make_rng(campaign.entropy_int, key))
        out[climate] = (weather.sky_label, weather.precipitation, float(weather.min_c))
        rows.append(_weather_row(campaign, climate, day, weather, key))
    return out, rows


def _insert_dicts(model: type, rows: list[dict[str, Any]]) -> None:
    """One INSERT of rows given as dicts (field name → value; foreign keys by field name)."""
    if not rows:
        return
    bulk.insert_columns(model, {name: [r[name] for r in rows] for name in rows[0]})


# --- the tick ----------------------------------------------------------------------------------


def _advance(
    campaign: Campaign,
    trigger: str,
    scheduled_slot: datetime.datetime | None,
    started: float,
    after_commit: list[Callable[[], None]],
) -> TickResult:
    """The tick proper, inside ``advance_day``'s transaction with the campaign row locked."""
    rules = campaign.rules
    closed = campaign.current_day
    new = closed + 1
    closed_date = campaign.apocalypse_date + datetime.timedelta(days=closed)

    # Settlements and grids (a grid row is made the first time a tick needs it).
    settlements = list(Settlement.objects.filter(campaign=campaign).order_by("id"))
    grids = {g.settlement_id: g for g in Grid.objects.filter(campaign=campaign)}
    missing = [None] if None not in grids else []
    missing += [s.pk for s in settlements if s.own_grid and s.pk not in grids]
    if missing:
        Grid.objects.bulk_create([Grid(campaign=campaign, settlement_id=sid) for sid in missing])
        grids = {g.settlement_id: g for g in Grid.objects.filter(campaign=campaign)}
    by_settlement = {s.pk: s for s in settlements}

    def grid_of(settlement_id: int | None) -> Grid:
        s = by_settlement.get(settlement_id) if settlement_id is not None else None
        return grids[s.pk] if s is not None and s.own_grid else grids[None]

    # During the closing day the grids were as the last tick left them (power cut day kept).
    power_cut_day_during = {gid: g.power_cut_day for gid, g in grids.items()}
    water_on_during = {gid: g.water_on for gid, g in grids.items()}

    # 2. Weather: the closing day's (stored, or rolled now for a first tick) and the new day's.
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
    _insert_dicts(WeatherRecord, rows_closed + rows_new)

    # 3. Utilities of the new day: each grid its own dice (R16).
    grid_days: list[dict[str, Any]] = []
    grid_updates: dict[int, tuple[bool, bool, int | None, int | None]] = {}
    # ``roll_utilities`` takes p (%) = its day argument; the campaign setting
    # ``utility_cut_percent_per_day`` (1 by default: p = day) scales it here, since the engine
    # does not read that setting itself (reported).
    cut_day = math.floor(new * rules.utility_cut_percent_per_day)
    for grid in sorted(grids.values(), key=lambda g: g.pk):
        rolled = roll_utilities(
            cut_day,
            grid.power_on,
            grid.water_on,
            make_rng(campaign.entropy_int, [new, PURPOSE_UTILITIES, grid.pk, 0]),
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
            grid_updates[grid.pk] = (
                rolled.power_on,
                rolled.water_on,
                new if rolled.power_cut_today else grid.power_cut_day,
                new if rolled.water_cut_today else grid.water_cut_day,
            )
    _insert_dicts(GridDay, grid_days)
    if grid_updates:
        ids = list(grid_updates)
        bulk.update_columns(
            Grid,
            ids,
            {
                "power_on": [grid_updates[i][0] for i in ids],
                "water_on": [grid_updates[i][1] for i in ids],
                "power_cut_day": [grid_updates[i][2] for i in ids],
                "water_cut_day": [grid_updates[i][3] for i in ids],
            },
        )

    # 5. Characters.
    outcome = _characters(
        campaign=campaign,
        rules=rules,
        closed=closed,
        closed_date=closed_date,
        settlements=by_settlement,
        grid_of=grid_of,
        power_cut_day_during=power_cut_day_during,
        water_on_during=water_on_during,
        weather=weather_closed,
    )

    # 4. Populations of the new day, the risen of this tick included (R17).
    risen_by_settlement = outcome.risen_by_settlement
    if settlements:
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

    # The tick record (unique: the exactly-once guard) and the new day.
    if outcome.characters == 0:
        message = (
            f"Día {closed} cerrado: no hay personajes vivos aprobados, "
            f"así que sólo avanzó el mundo (tiempo, suministros y poblaciones)."
        )
    else:
        message = (
            f"Día {closed} cerrado: {outcome.characters} personajes, "
            f"{outcome.deaths} muertes, {outcome.risen} alzados como zombis."
        )
    record = DayTick.objects.create(
        campaign=campaign,
        day=new,
        trigger=trigger,
        # Measured up to here: the tick's own work (the diary posts after it are escenas').
        duration_ms=int((time.perf_counter() - started) * 1000),
        characters=outcome.characters,
        deaths=outcome.deaths,
        risen=outcome.risen,
        message=message,
        summary={"closed_day": closed, "deaths": outcome.death_list},
    )
    changes: dict[str, Any] = {"current_day": new}
    if scheduled_slot is not None:
        changes["last_scheduled_run"] = scheduled_slot
    Campaign.objects.filter(pk=campaign.pk).update(**changes)
    _diary_posts(campaign, closed, outcome.characters, after_commit)
    logger.info("tick %s → day %s: %s (%s ms)", campaign.slug, new, message, record.duration_ms)
    return TickResult.from_record(record, advanced=True)


def _diary_posts(
    campaign: Campaign, closed: int, characters: int, after_commit: list[Callable[[], None]]
) -> None:
    """Queue the diary posts of the closed day for after the commit (R24 steps 6–7).

    The tick's record is the ``DiaryEntry`` rows, written in its transaction; the posts in
    each character's diary scene are made from them by ``diary_posts_for_day`` in a task once
    the tick has committed: rendering thousands of posts would otherwise hold the campaign's
    lock for seconds (benchmark: ~3 ms a post), and the posts function is idempotent, so a
    retried task adds nothing. With eager Celery (the demo) it runs right after the commit.
    """
    if characters == 0:
        return
    from partida import tasks  # the tasks module imports this one lazily too

    campaign_id = campaign.pk
    after_commit.append(lambda: tasks.create_diary_posts.delay(campaign_id, closed))


def diary_posts_for_day(campaign_id: int, day: int) -> int:
    """Make the diary posts of ``day``'s entries with ``escenas.services.diary_posts_create``
    (which also queues their notifications, so nothing else is queued here); returns how many
    posts were made. Does nothing when the scenes app has no such function. Safe to run twice.
    """
    try:
        from escenas import services as scene_services  # optional, lazy: another app
    except ImportError:
        return 0
    create = getattr(scene_services, "diary_posts_create", None)
    if create is None:
        return 0
    entries = list(
        DiaryEntry.objects.filter(character__campaign_id=campaign_id, day=day).select_related(
            "character"
        )
    )
    return len(create(entries=entries))


# --- the characters' part ----------------------------------------------------------------------


@dataclass(slots=True)
class CharactersOutcome:
    characters: int = 0
    deaths: int = 0
    risen: int = 0
    risen_by_settlement: dict[int, int] = dataclasses.field(default_factory=dict)
    death_list: list[dict[str, Any]] = dataclasses.field(default_factory=list)


def _col(rows: list[tuple[Any, ...]], i: int, dtype: Any) -> NDArray[Any]:
    return np.fromiter((r[i] for r in rows), dtype=dtype, count=len(rows))


def _characters(
    *,
    campaign: Campaign,
    rules: RuleSettings,
    closed: int,
    closed_date: datetime.date,
    settlements: dict[int, Settlement],
    grid_of: Callable[[int | None], Grid],
    power_cut_day_during: dict[int | None, int | None],
    water_on_during: dict[int | None, bool],
    weather: dict[int | None, tuple[str, bool, float]],
) -> CharactersOutcome:
    """R24 step 5 and 6 for every approved character at once: read (one query per table),
    compute with ``reglas`` over arrays, write (one statement per table)."""
    rows = list(
        Character.objects.filter(campaign=campaign, status=Character.Status.APPROVED)
        .order_by("id")
        .values_list("id", "settlement_id", "shelter_id", *CONDITION_FIELDS)
    )
    n = len(rows)
    if n == 0:
        return CharactersOutcome()
    ids = _col(rows, 0, np.int64)
    index = {int(c): i for i, c in enumerate(ids)}
    cond = ConditionArrays.from_columns(
        n,
        **{
            name: _col(rows, 3 + j, np.bool_ if name in _BOOL_FIELDS else np.int64)
            for j, name in enumerate(CONDITION_FIELDS)
        },
    )

    # Shelters of the campaign (hygiene facts, R7) and the characters' places.
    shelters = list(
        Location.objects.filter(settlement__campaign=campaign, kind=Location.Kind.SHELTER)
        .order_by("id")
        .values_list(
            "id",
            "settlement_id",
            "latrine_distance_m",
            "has_cesspit",
            "running_water",
            "paper_substitute",
        )
    )
    m = len(shelters)
    shelter_index = {s[0]: j for j, s in enumerate(shelters)}
    shelter_of = np.array([shelter_index.get(r[2], -1) for r in rows], dtype=np.int64)
    char_settlement: list[int | None] = [
        r[1]
        if r[1] is not None
        else (shelters[shelter_index[r[2]]][1] if r[2] in shelter_index else None)
        for r in rows
    ]

    # The grid of each holder, keyed like the grids dict (settlement id or None).
    def grid_key(settlement_id: int | None) -> int | None:
        return grid_of(settlement_id).settlement_id

    char_grid = [grid_key(s) for s in char_settlement]
    shelter_grid = [grid_key(s[1]) for s in shelters]
    shelter_water = np.array(
        [bool(s[4]) and water_on_during[shelter_grid[j]] for j, s in enumerate(shelters)],
        dtype=np.bool_,
    )

    # The master's marks of the closing day.
    sleep_h = np.full(n, np.nan)
    could_not_urinate = np.zeros(n, np.bool_)
    could_not_defecate = np.zeros(n, np.bool_)
    got_dirty = np.zeros(n, np.bool_)
    showered = np.zeros(n, np.bool_)
    for cid, sleep, urinate, defecate, dirty, shower in DayRecord.objects.filter(
        character__campaign=campaign, day=closed
    ).values_list(
        "character_id",
        "sleep_h",
        "could_not_urinate",
        "could_not_defecate",
        "got_dirty",
        "showered",
    ):
        i = index.get(cid)
        if i is None:
            continue
        if sleep is not None:
            sleep_h[i] = sleep
        could_not_urinate[i] = urinate
        could_not_defecate[i] = defecate
        got_dirty[i] = dirty
        showered[i] = shower

    # Item catalogue, carried items and shelter stashes.
    types = {
        t[0]: t[1:]
        for t in ItemType.objects.filter(campaign=campaign).values_list(
            "id", "kind", "kcal_per_unit", "litres_per_unit", "perishable", "spoil_day"
        )
    }
    carried = list(
        InventoryItem.objects.filter(
            character__campaign=campaign,
            character__status=Character.Status.APPROVED,
            quantity__gt=0,
        ).values_list("id", "character_id", "item_type_id", "quantity")
    )
    stash = list(
        ShelterStash.objects.filter(
            shelter__settlement__campaign=campaign, quantity__gt=0
        ).values_list("id", "shelter_id", "item_type_id", "quantity")
    )

    def cut_days(keys: list[int | None]) -> F64:
        days = {g: np.nan if d is None else float(d) for g, d in power_cut_day_during.items()}
        return np.array([days[g] for g in keys], dtype=np.float64)

    c_items = _Items.build(
        [(r[0], index.get(r[1], -1), r[2], r[3]) for r in carried],
        types,
        cut_days(char_grid),
        rules,
    )
    s_items = _Items.build(
        [(r[0], shelter_index.get(r[1], -1), r[2], r[3]) for r in stash],
        types,
        cut_days(shelter_grid),
        rules,
    )
    today = float(closed)
    c_food = c_items.usable_food(today)
    s_food = s_items.usable_food(today)
    carried_supplies = Supplies(
        kcal=totals(c_items.holder, c_items.units * c_food, n),
        water_l=totals(c_items.holder, c_items.units * c_items.litres(), n),
        toilet_paper_rolls=totals(
            c_items.holder, c_items.units * c_items.is_kind("toilet_paper"), n
        ),
    )
    stash_supplies = Supplies(
        kcal=totals(s_items.holder, s_items.units * s_food, m),
        water_l=totals(s_items.holder, s_items.units * s_items.litres(), m),
        toilet_paper_rolls=totals(
            s_items.holder, s_items.units * s_items.is_kind("toilet_paper"), m
        ),
    )

    # Medicine (R12): a sick character takes one dose, carried first, then the shelter's.
    sick_start = cond.disease_day > 0
    c_doses = totals(c_items.holder, c_items.units * c_items.is_kind("medicine"), n)
    from_carried_dose = sick_start & (c_doses >= 1.0)
    wants_stash_dose = sick_start & ~from_carried_dose & (shelter_of >= 0)
    s_doses = totals(s_items.holder, s_items.units * s_items.is_kind("medicine"), m)
    # Stash doses go to the sick residents in id order while they last.
    order = np.flatnonzero(wants_stash_dose)
    rank = np.zeros(n, np.int64)
    if order.size:
        g = shelter_of[order]
        sort = np.lexsort((order, g))
        gs = g[sort]
        starts = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]])
        pos = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
        rank[order[sort]] = pos
    from_stash_dose = wants_stash_dose & (
        rank < np.floor(s_doses[np.where(shelter_of >= 0, shelter_of, 0)] if m else 0)
    )
    treated = from_carried_dose | from_stash_dose

    # 5. Survival (R15, R6, R7, R8).
    housed = shelter_of >= 0
    sidx = np.where(housed, shelter_of, 0)
    if m:
        latrine = np.array([np.nan if s[2] is None else s[2] for s in shelters], np.float64)
        cesspit = np.array([bool(s[3]) for s in shelters], np.bool_)
        substitute = np.array([bool(s[5]) for s in shelters], np.bool_)
        distance = np.where(housed, latrine[sidx], np.inf)
        has_cesspit = housed & cesspit[sidx]
        has_substitute = housed & substitute[sidx]
        running = housed & shelter_water[sidx]
    else:
        distance = np.full(n, np.inf)
        has_cesspit = np.zeros(n, np.bool_)
        has_substitute = np.zeros(n, np.bool_)
        running = np.zeros(n, np.bool_)
    start = cond.replace(dirty=cond.dirty | got_dirty)
    survival = advance_survival(
        start,
        DayArrays.of(
            carried_supplies,
            shelter=shelter_of,
            sleep_h=sleep_h,
            has_paper_substitute=has_substitute,
            toilet_distance_m=np.where(np.isinf(distance), 1e9, distance),
            has_cesspit=has_cesspit,
            could_not_urinate=could_not_urinate,
            could_not_defecate=could_not_defecate,
            # A marked shower was paid when it was marked (stored water) or had running water.
            running_water=running | showered,
            bath_requested=showered,
        ),
        rules,
        stash=stash_supplies if m else None,
    )

    # Health (R10, R12, R13), the closing day's weather per character's climate.
    climate = [s if s is not None and settlements[s].own_climate else None for s in char_settlement]
    precipitation = np.array([weather[c][1] for c in climate], np.bool_)
    min_temp = np.array([weather[c][2] for c in climate], np.float64)
    resist = np.zeros(n, np.int64)
    for cid, value in TraitValue.objects.filter(
        character__campaign=campaign,
        character__status=Character.Status.APPROVED,
        trait__slug=RESISTANCE_TRAIT,
    ).values_list("character_id", "value"):
        if cid in index:
            resist[index[cid]] = value
    season = season_for(closed_date)
    health = advance_health(
        survival.condition,
        HealthDayArrays.of(
            n,
            alive=~survival.dead,
            sick_housemates=count_sick_housemates(shelter_of, sick_start),
            precipitation=precipitation,
            min_temp_c=min_temp,
            treated_today=treated,
            hygiene_adequate=survival.hygiene.adequate,
            resistencia=resist,
        ),
        season.value,
        make_rng(campaign.entropy_int, [closed, PURPOSE_HEALTH, 0, 0]),
        rules,
    )
    final = health.condition
    dead = survival.dead | health.dead
    risen = health.risen & ~survival.dead
    cause = np.where(survival.dead, survival.death_cause, health.death_cause)

    # --- writes ---------------------------------------------------------------------------
    # Items: what consumption took, item by item (soonest-spoiling food first).
    c_taken = _take(
        c_items,
        n,
        survival.consumption.kcal_from_carried,
        c_food,
        carried_supplies.water_l - survival.carried_after.water_l,
        survival.consumption.paper_from_carried,
        from_carried_dose.astype(np.float64),
    )
    stash_dose_need = totals(shelter_of[from_stash_dose], np.ones(int(from_stash_dose.sum())), m)
    s_taken = _take(
        s_items,
        m,
        survival.consumption.stash_taken.kcal,
        s_food,
        survival.consumption.stash_taken.water_l,
        survival.consumption.stash_taken.toilet_paper_rolls,
        stash_dose_need,
    )
    _write_quantities(InventoryItem, c_items, c_taken)
    _write_quantities(ShelterStash, s_items, s_taken)

    # Characters: only the rows whose condition changed (a fed, rested, healthy character's
    # counters stay as they were), in one UPDATE; the dead's status in another, small one.
    changed = np.zeros(n, np.bool_)
    for name in CONDITION_FIELDS:
        changed |= getattr(final, name) != getattr(cond, name)
    rows = np.flatnonzero(changed)
    if rows.size:
        bulk.update_columns(
            Character,
            ids[rows].tolist(),
            {name: getattr(final, name)[rows].tolist() for name in CONDITION_FIELDS},
        )
    gone = np.flatnonzero(dead)
    if gone.size:
        bulk.update_columns(
            Character,
            ids[gone].tolist(),
            {
                "status": np.where(
                    risen[gone], Character.Status.RISEN, Character.Status.DEAD
                ).tolist(),
                "death_cause": cause[gone].tolist(),
                "death_day": [closed] * int(gone.size),
            },
        )

    _write_rolls(
        campaign,
        closed,
        ids,
        health,
        survival.condition,
        treated=treated,
        adequate=survival.hygiene.adequate,
        resist=resist,
        rules=rules,
    )
    _write_diary(
        campaign=campaign,
        rules=rules,
        closed=closed,
        closed_date=closed_date,
        ids=ids,
        climate=climate,
        weather=weather,
        survival=survival,
        health=health,
        final=final,
        dead=dead,
        risen=risen,
        cause=cause,
    )

    out = CharactersOutcome(characters=n, deaths=int(dead.sum()), risen=int(risen.sum()))
    for i in np.flatnonzero(dead).tolist():
        out.death_list.append({"character": int(ids[i]), "cause": str(cause[i])})
        if risen[i] and char_settlement[i] is not None:
            sid = int(char_settlement[i])  # type: ignore[arg-type]
            out.risen_by_settlement[sid] = out.risen_by_settlement.get(sid, 0) + 1
    return out


@dataclass(frozen=True, slots=True)
class _Items:
    """Item stacks of one kind of holder (characters or shelters), as arrays (k,)."""

    pk: I64
    holder: I64
    kind: NDArray[np.str_]
    kcal: F64
    litres_per_unit: F64
    spoil: F64
    units: F64

    @classmethod
    def build(
        cls,
        rows: list[tuple[int, int, int, Decimal]],
        types: dict[int, tuple[Any, ...]],
        holder_cut_day: F64,
        rules: RuleSettings,
    ) -> _Items:
        """Stacks from ``(pk, holder index, item type id, quantity)`` rows (holder −1 is
        dropped); ``holder_cut_day`` (m,) the day each holder's grid lost power (NaN: on).
        Perishable food spoils ``spoil_days`` after that day (the earlier of that and its own
        ``spoil_day``). Vectorised over the rows."""
        k = len(rows)
        pk = np.fromiter((r[0] for r in rows), np.int64, count=k)
        holder = np.fromiter((r[1] for r in rows), np.int64, count=k)
        type_id = np.fromiter((r[2] for r in rows), np.int64, count=k)
        units = np.fromiter((float(r[3]) for r in rows), np.float64, count=k)
        keep = holder >= 0
        pk, holder, type_id, units = pk[keep], holder[keep], type_id[keep], units[keep]
        ids = np.array(sorted(types), dtype=np.int64)
        if ids.size == 0 or pk.size == 0:
            empty = np.zeros(0)
            return cls(pk.astype(np.int64), holder, np.zeros(0, "<U16"), empty, empty, empty, empty)
        at = np.searchsorted(ids, type_id)
        rows_of = [types[int(t)] for t in ids]
        kind = np.array([t[0] for t in rows_of], dtype="<U16")[at]
        kcal = np.array([float(t[1]) for t in rows_of])[at]
        litres = np.array([float(t[2]) for t in rows_of])[at]
        perishable = np.array([bool(t[3]) for t in rows_of])[at]
        spoil = np.array([np.inf if t[4] is None else float(t[4]) for t in rows_of])[at]
        cut = holder_cut_day[holder] if holder_cut_day.size else np.full(pk.size, np.nan)
        spoils_early = perishable & ~np.isnan(cut)
        spoil = np.where(spoils_early, np.minimum(spoil, cut + rules.spoil_days), spoil)
        return cls(
            pk=pk,
            holder=holder,
            kind=kind,
            kcal=np.where(kind == ItemType.Kind.FOOD, kcal, 0.0),
            litres_per_unit=np.where(kind == ItemType.Kind.WATER, litres, 0.0),
            spoil=spoil,
            units=units,
        )

    def is_kind(self, kind: str) -> F64:
        return (self.kind == kind).astype(np.float64)

    def litres(self) -> F64:
        return self.litres_per_unit

    def usable_food(self, today: float) -> F64:
        """kcal per unit of food not spoiled today (0 for other items and spoiled food)."""
        return np.where(self.spoil < today, 0.0, self.kcal)


def _take(
    items: _Items,
    m: int,
    kcal: F64,
    food_per_unit: F64,
    water_l: F64,
    paper: F64,
    doses: F64,
) -> F64:
    """Units taken from each item to cover each holder's kcal, L, rolls and doses."""
    if items.pk.shape[0] == 0:
        return np.zeros(0)
    taken = allocate(
        holder=items.holder,
        order=items.spoil,
        per_unit=food_per_unit,
        units=items.units,
        need=kcal,
    )
    no_order = np.zeros(items.pk.shape[0])
    taken += allocate(
        holder=items.holder,
        order=no_order,
        per_unit=items.litres(),
        units=items.units,
        need=np.maximum(water_l, 0.0),
    )
    taken += allocate(
        holder=items.holder,
        order=no_order,
        per_unit=items.is_kind("toilet_paper"),
        units=items.units,
        need=paper,
    )
    taken += allocate(
        holder=items.holder,
        order=no_order,
        per_unit=items.is_kind("medicine"),
        units=items.units,
        need=doses,
    )
    return taken


def _write_quantities(model: type, items: _Items, taken: F64) -> None:
    """One UPDATE of the stacks that changed (quantities in units, 3 decimals, never < 0)."""
    changed = np.flatnonzero(taken > 1e-9)
    if changed.size == 0:
        return
    left = np.maximum(np.round(items.units[changed] - taken[changed], 3), 0.0)
    bulk.update_columns(model, items.pk[changed].tolist(), {"quantity": left.tolist()})


def _write_rolls(
    campaign: Campaign,
    closed: int,
    ids: I64,
    health: Any,
    condition: ConditionArrays,
    *,
    treated: B,
    adequate: B,
    resist: I64,
    rules: RuleSettings,
) -> None:
    """Store the tick's resistance rolls (R12) and new diseases' durations with their dice.

    The resistance breakdown is rebuilt as ``advance_health`` computed it: the day just closed
    counts as treated / unhygienic, then the R9 penalty of the post-survival state.
    """
    now = timezone.now()
    rows: list[dict[str, Any]] = []
    for j, i in enumerate(health.resistance_index.tolist()):
        state = condition.state(i)
        state = dataclasses.replace(
            state,
            disease_days_treated=state.disease_days_treated + int(treated[i]),
            disease_unhygienic_days=state.disease_unhygienic_days + int(not adequate[i]),
        )
        lines = resistance_modifiers(
            state.disease_days_treated, state.disease_unhygienic_days, rules
        ) + action_penalty(state, is_dirt_sensitive(RESISTANCE_TRAIT, rules), rules)
        count = int(health.resistance.dice_count[j])
        rows.append(
            {
                "kind": Roll.Kind.ACTION,
                "character": int(ids[i]),
                "reason": "Tirada de resistencia al final de la enfermedad (R12)",
                "expression": "",
                "trait_name": "Resistencia",
                "trait_value": int(resist[i]),
                "base_threshold": rules.resistance_base,
                "modifiers": json.dumps([m.as_dict() for m in lines], ensure_ascii=False),
                "effective_threshold": int(health.resistance.thresholds[j]),
                "dice": json.dumps(health.resistance.dice[j, :count].tolist()),
                "total": None,
                "successes": int(health.resistance.successes[j]),
                "success": bool(health.resistance.success[j]),
                "generator_key": json.dumps([closed, PURPOSE_HEALTH, int(ids[i]), 1]),
            }
        )
    for i in np.flatnonzero(health.fell_sick).tolist():
        rows.append(
            {
                "kind": Roll.Kind.EXPRESSION,
                "character": int(ids[i]),
                "reason": "Duración de la enfermedad (R12)",
                "expression": rules.disease_duration,
                "trait_name": "",
                "trait_value": None,
                "base_threshold": None,
                "modifiers": "[]",
                "effective_threshold": None,
                "dice": json.dumps(health.duration_dice[i].tolist()),
                "total": int(health.duration[i]),
                "successes": None,
                "success": None,
                "generator_key": json.dumps([closed, PURPOSE_HEALTH, int(ids[i]), 2]),
            }
        )
    if not rows:
        return
    for row in rows:
        row.update(
            campaign=campaign.pk,
            created_at=now,
            day=closed,
            dirt_sensitive=False,
            engine_version=ENGINE_VERSION,
        )
    _insert_dicts(Roll, rows)


def _memo_json(keys: NDArray[Any], make: Callable[[int], str]) -> list[str]:
    """JSON text per row, computed once per distinct key row (states repeat a lot)."""
    if keys.shape[0] == 0:
        return []
    _uniq, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    texts = [make(int(i)) for i in first.tolist()]
    return [texts[j] for j in np.asarray(inverse).reshape(-1).tolist()]


def _write_diary(
    *,
    campaign: Campaign,
    rules: RuleSettings,
    closed: int,
    closed_date: datetime.date,
    ids: I64,
    climate: list[int | None],
    weather: dict[int | None, tuple[str, bool, float]],
    survival: Any,
    health: Any,
    final: ConditionArrays,
    dead: B,
    risen: B,
    cause: NDArray[np.str_],
) -> None:
    """One DiaryEntry per character for the closed day (R25), in one INSERT."""
    n = ids.shape[0]
    parts = action_penalty_parts(final, False, rules)
    total = np.zeros(n, np.int64)
    for points in parts.values():
        total += points
    penalty_keys = np.stack(
        [
            final.hunger_days,
            final.thirst_days,
            final.fatigue_days,
            final.disease_day,
            final.infection_day,
            final.wet_last_night.astype(np.int64),
            final.soiled_last_night.astype(np.int64),
        ],
        axis=1,
    )

    def penalty_json(i: int) -> str:
        state = final.state(i)
        return json.dumps(
            [m.as_dict() for m in action_penalty(state, False, rules)], ensure_ascii=False
        )

    odds = health.odds
    rolled = health.onset_rolled
    disease_keys = np.stack([odds.parts[k] for k in sorted(odds.parts)] + [rolled], axis=1)

    def disease_json(i: int) -> str:
        if not rolled[i]:
            return "[]"
        return json.dumps([m.as_dict() for m in odds.breakdown(i)], ensure_ascii=False)

    status = np.where(
        risen,
        "risen",
        np.where(
            dead,
            "dead",
            np.where(
                final.infection_day > 0,
                "infected",
                np.where(final.disease_day > 0, "sick", "alive"),
            ),
        ),
    )
    labels = [weather[c][0] for c in climate]
    temps = [weather[c][2] for c in climate]
    bulk.insert_columns(
        DiaryEntry,
        {
            "character": ids.tolist(),
            "day": [closed] * n,
            "date": [closed_date] * n,
            "weather_label": labels,
            "min_temp_c": temps,
            "kcal_eaten": np.round(survival.consumption.kcal_eaten, 3).tolist(),
            "kcal_needed": [rules.daily_kcal] * n,
            "water_l": np.round(survival.consumption.water_drunk_l, 3).tolist(),
            "water_needed_l": [rules.daily_water_l] * n,
            "sleep_h": survival.needs.sleep_h.tolist(),
            "sleep_needed_h": [rules.daily_sleep_h] * n,
            "hygiene_ok": survival.hygiene.adequate.tolist(),
            "hunger_days": final.hunger_days.tolist(),
            "thirst_days": final.thirst_days.tolist(),
            "fatigue_days": final.fatigue_days.tolist(),
            "unhygienic_days": final.unhygienic_days.tolist(),
            "dirty": final.dirty.tolist(),
            "extra_dirt": final.extra_dirt.tolist(),
            "disease_day": final.disease_day.tolist(),
            "disease_duration": final.disease_duration.tolist(),
            "infection_day": final.infection_day.tolist(),
            "infection_duration": final.infection_duration.tolist(),
            "penalty_total": total.tolist(),
            "penalty_breakdown": _memo_json(penalty_keys, penalty_json),
            "disease_p": [
                int(p) if r else None for p, r in zip(odds.p.tolist(), rolled.tolist(), strict=True)
            ],
            "disease_breakdown": _memo_json(disease_keys, disease_json),
            "disease_die": [
                int(d) if r else None
                for d, r in zip(health.onset_dice.tolist(), rolled.tolist(), strict=True)
            ],
            "fell_ill": health.fell_sick.tolist(),
            "status": status.tolist(),
            "death_cause": np.where(dead, cause, "").tolist(),
        },
    )
