"""Survival for the daily tick: automatic consumption, needs counters, hygiene, dirt.

Vectorised: every function takes arrays of shape ``(n,)`` for n living characters (and
``(m,)`` for m shelters' shared stashes) and returns arrays, in one pass with no Python loop
per character. ``advance_survival`` composes the steps in the R24 order (consumption, needs,
hygiene); ``live_day`` is the scalar wrapper for one character. ``take_food`` turns a kcal
amount into items taken, soonest-spoiling first (a per-character list, for the shell).

Timeline: the tick closes one in-game day. Its inputs are what happened that day (what was
available, hours slept, marks such as "could not urinate"); its outputs are the counters for
the day that starts, including last night's accidents.

Source: RULES.md R6, R7, R8, R15, R24.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray

from reglas.characters import ConditionArrays, ConditionState
from reglas.errors import RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings

EPSILON = 1e-6
"""Float tolerance (kcal, L, h, rolls): an amount within it of the requirement meets it.

Only guards float rounding of sums such as ``carried + (need − carried)``; 1999 kcal is short.
"""

CAUSE_HUNGER = "hunger"
CAUSE_THIRST = "thirst"
CAUSE_FATIGUE = "fatigue"

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
B = NDArray[np.bool_]


def _floats(value: ArrayLike, n: int, name: str, *, allow_nan: bool = False) -> F64:
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise RulesError(f"«{name}» debe tener forma ({n},), no {arr.shape}.")
    bad = ~np.isfinite(arr) if not allow_nan else np.isinf(arr)
    if np.any(bad):
        raise RulesError(f"«{name}» debe contener números finitos.")
    if np.any(arr < 0):
        raise RulesError(f"«{name}» no puede ser negativo.")
    return arr


def _bools(value: ArrayLike, n: int, name: str) -> B:
    arr = np.asarray(value)
    if arr.ndim == 0:
        arr = np.full(n, bool(arr))
    if arr.shape != (n,):
        raise RulesError(f"«{name}» debe tener forma ({n},), no {arr.shape}.")
    return arr.astype(np.bool_)


def _ints(value: ArrayLike, n: int, name: str, *, minimum: int = 0) -> I64:
    arr = np.asarray(value)
    if arr.ndim == 0:
        arr = np.full(n, arr)
    if arr.shape != (n,):
        raise RulesError(f"«{name}» debe tener forma ({n},), no {arr.shape}.")
    if arr.size and arr.dtype.kind not in "iu":
        raise RulesError(f"«{name}» debe contener números enteros.")
    out = arr.astype(np.int64)
    if np.any(out < minimum):
        raise RulesError(f"«{name}» no puede ser menor que {minimum}.")
    return out


# --- food items (per character, for the shell) ------------------------------------------------


@dataclass(frozen=True, slots=True)
class FoodItem:
    """A food stack: ``units`` (≥ 0, may be fractional) of ``kcal_per_unit`` kcal each,
    spoiling after in-game day ``spoil_day`` (None = does not spoil). ``item_id`` is opaque."""

    item_id: int | str
    kcal_per_unit: float
    units: float
    spoil_day: int | None = None


@dataclass(frozen=True, slots=True)
class FoodTaken:
    """Units taken from one food item and the kcal they give."""

    item_id: int | str
    units: float
    kcal: float


def take_food(
    items: Sequence[FoodItem],
    kcal_needed: float,
    *,
    today: int | None = None,
    whole_units: bool = False,
) -> tuple[FoodTaken, ...]:
    """Choose the food that covers ``kcal_needed`` kcal, soonest-spoiling first.

    Items are taken in order of ``spoil_day`` (non-spoiling last; ties keep the given order);
    with ``today`` set, items whose ``spoil_day < today`` are spoiled and skipped. Takes
    fractional units ("lo justo y necesario"); with ``whole_units`` the last item is rounded
    up to whole units (the kcal may then exceed the need). Never takes more units than an item
    has. Returns one ``FoodTaken`` per item touched, in the order taken.
    Raises RulesError for negative or non-finite amounts. Source: RULES.md R15.
    """
    need = float(kcal_needed)
    if not math.isfinite(need) or need < 0:
        raise RulesError(f"Las kcal necesarias deben ser un número no negativo ({kcal_needed!r}).")
    for item in items:
        for value, what in ((item.kcal_per_unit, "kcal por unidad"), (item.units, "unidades")):
            if not math.isfinite(float(value)) or float(value) < 0:
                raise RulesError(f"El alimento «{item.item_id}» tiene {what} no válidas ({value}).")
    order = sorted(
        range(len(items)),
        key=lambda i: (
            items[i].spoil_day is None,
            items[i].spoil_day if items[i].spoil_day is not None else 0,
            i,
        ),
    )
    taken: list[FoodTaken] = []
    remaining = need
    for i in order:
        if remaining <= EPSILON:
            break
        item = items[i]
        if item.units <= 0 or item.kcal_per_unit <= 0:
            continue
        if today is not None and item.spoil_day is not None and item.spoil_day < today:
            continue
        units = min(float(item.units), remaining / item.kcal_per_unit)
        if whole_units:
            units = min(float(item.units), float(math.ceil(units - EPSILON)))
        kcal = units * item.kcal_per_unit
        taken.append(FoodTaken(item.item_id, units, kcal))
        remaining -= kcal
    return tuple(taken)


# --- supplies and consumption ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Supplies:
    """Amounts per holder (characters ``(n,)`` or shelters ``(m,)``): food ``kcal``,
    ``water_l`` (L) and ``toilet_paper_rolls``; float64, never negative."""

    kcal: F64
    water_l: F64
    toilet_paper_rolls: F64

    @classmethod
    def of(
        cls, kcal: ArrayLike, water_l: ArrayLike = 0.0, toilet_paper_rolls: ArrayLike = 0.0
    ) -> Self:
        """Validated arrays (scalars broadcast to the length of ``kcal``).

        Raises RulesError for negative, non-finite or mismatched amounts.
        """
        k = np.asarray(kcal, dtype=np.float64)
        n = 1 if k.ndim == 0 else int(k.shape[0])
        return cls(
            kcal=_floats(kcal, n, "kcal"),
            water_l=_floats(water_l, n, "agua (L)"),
            toilet_paper_rolls=_floats(toilet_paper_rolls, n, "papel higiénico (rollos)"),
        )

    @classmethod
    def zeros(cls, n: int) -> Self:
        """Nothing, for n holders."""
        return cls(np.zeros(n), np.zeros(n), np.zeros(n))

    def __len__(self) -> int:
        return int(self.kcal.shape[0])


@dataclass(frozen=True, slots=True)
class Consumption:
    """What the tick took for each of n characters (``(n,)``) and from each of m stashes
    (``stash_taken``, ``(m,)``); amounts in kcal, L and rolls.

    ``*_from_carried`` + ``*_from_stash`` = ``kcal_eaten`` / ``water_drunk_l`` /
    ``paper_used_rolls``. ``carried_after``/``stash_after`` are never negative.
    """

    kcal_eaten: F64
    kcal_from_carried: F64
    kcal_from_stash: F64
    water_drunk_l: F64
    water_from_carried_l: F64
    water_from_stash_l: F64
    paper_used_rolls: F64
    paper_from_carried: F64
    paper_from_stash: F64
    carried_after: Supplies
    stash_taken: Supplies
    stash_after: Supplies


def _draw(need: F64, carried: F64, group: I64, pool: F64 | None) -> tuple[F64, F64, F64]:
    """Take ``need`` from ``carried`` first, then from the group's ``pool``.

    When a pool cannot cover its group's remaining demand, every member gets the same share
    of its own remaining need (proportional split): a shared stash is shared, it is not
    first-come. Returns (from_carried (n,), from_pool (n,), pool_taken (m,)).
    """
    from_carried = np.minimum(carried, need)
    rest = need - from_carried
    if pool is None or pool.size == 0:
        return from_carried, np.zeros_like(need), np.zeros(0 if pool is None else pool.size)
    m = pool.size
    member = group >= 0
    g = np.where(member, group, 0)
    demand = np.bincount(g[member], weights=rest[member], minlength=m)
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = np.where(demand > 0, np.minimum(1.0, pool / demand), 0.0)
    from_pool = np.where(member, rest * fraction[g], 0.0)
    taken = np.minimum(np.bincount(g[member], weights=from_pool[member], minlength=m), pool)
    return from_carried, from_pool, taken


def consume(
    carried: Supplies,
    settings: RuleSettings = DEFAULT_SETTINGS,
    *,
    shelter: ArrayLike | None = None,
    stash: Supplies | None = None,
) -> Consumption:
    """Automatic consumption for one day: food up to ``daily_kcal`` (2000 kcal), water up to
    ``daily_water_l`` (2 L) and toilet paper up to ``toilet_paper_rolls_per_day`` (0.2 roll),
    first from what each character carries, then (if ``allow_shelter_stash``) from the shared
    stash of its shelter.

    ``carried`` (n,); ``shelter`` int (n,) index into ``stash`` (m,), −1 = no shelter. If a
    stash cannot cover its members it is split in proportion to what each still needs. Takes
    what there is when short (the day is then short, R6); never makes anything negative.
    Which food items the kcal come from is ``take_food``'s job.
    Raises RulesError for mismatched shapes or a shelter index out of range.
    Source: RULES.md R15, R7 (toilet paper).
    """
    n = len(carried)
    use_stash = stash is not None and settings.allow_shelter_stash
    group = np.full(n, -1, np.int64)
    if use_stash and shelter is not None:
        group = _ints(shelter, n, "refugio", minimum=-1)
        assert stash is not None
        if group.size and group.max() >= len(stash):
            raise RulesError("Un índice de refugio no tiene despensa (fuera de rango).")
    pool = stash if use_stash else None

    def need(value: float) -> F64:
        return np.full(n, float(value))

    k_c, k_s, k_t = _draw(
        need(settings.daily_kcal), carried.kcal, group, None if pool is None else pool.kcal
    )
    w_c, w_s, w_t = _draw(
        need(settings.daily_water_l), carried.water_l, group, None if pool is None else pool.water_l
    )
    p_c, p_s, p_t = _draw(
        need(settings.toilet_paper_rolls_per_day),
        carried.toilet_paper_rolls,
        group,
        None if pool is None else pool.toilet_paper_rolls,
    )
    if pool is not None:
        taken = Supplies(k_t, w_t, p_t)
        stash_after = Supplies(
            np.maximum(pool.kcal - k_t, 0.0),
            np.maximum(pool.water_l - w_t, 0.0),
            np.maximum(pool.toilet_paper_rolls - p_t, 0.0),
        )
    else:
        # No stash, or the setting forbids it: any stash given is returned untouched.
        taken = Supplies.zeros(0 if stash is None else len(stash))
        stash_after = stash if stash is not None else Supplies.zeros(0)
    carried_after = Supplies(
        np.maximum(carried.kcal - k_c, 0.0),
        np.maximum(carried.water_l - w_c, 0.0),
        np.maximum(carried.toilet_paper_rolls - p_c, 0.0),
    )
    return Consumption(
        kcal_eaten=k_c + k_s,
        kcal_from_carried=k_c,
        kcal_from_stash=k_s,
        water_drunk_l=w_c + w_s,
        water_from_carried_l=w_c,
        water_from_stash_l=w_s,
        paper_used_rolls=p_c + p_s,
        paper_from_carried=p_c,
        paper_from_stash=p_s,
        carried_after=carried_after,
        stash_taken=taken,
        stash_after=stash_after,
    )


# --- needs -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NeedsArrays:
    """One day of needs for n characters, shape ``(n,)``: ``kcal_eaten`` (kcal),
    ``water_drunk_l`` (L), ``sleep_h`` (h; NaN = no record → ``default_sleep_h``), and the
    counters at the start of the tick (consecutive short days)."""

    kcal_eaten: F64
    water_drunk_l: F64
    sleep_h: F64
    hunger_days: I64
    thirst_days: I64
    fatigue_days: I64

    @classmethod
    def of(
        cls,
        kcal_eaten: ArrayLike,
        water_drunk_l: ArrayLike,
        sleep_h: ArrayLike = np.nan,
        hunger_days: ArrayLike = 0,
        thirst_days: ArrayLike = 0,
        fatigue_days: ArrayLike = 0,
    ) -> Self:
        """Validated arrays; scalars broadcast to the length of ``kcal_eaten``.

        Raises RulesError for negative or non-finite amounts, non-int or negative counters.
        """
        k = np.asarray(kcal_eaten)
        n = 1 if k.ndim == 0 else int(k.shape[0])
        return cls(
            kcal_eaten=_floats(kcal_eaten, n, "kcal comidas"),
            water_drunk_l=_floats(water_drunk_l, n, "agua bebida (L)"),
            sleep_h=_floats(sleep_h, n, "horas de sueño", allow_nan=True),
            hunger_days=_ints(hunger_days, n, "días de hambre"),
            thirst_days=_ints(thirst_days, n, "días de sed"),
            fatigue_days=_ints(fatigue_days, n, "días de fatiga"),
        )


@dataclass(frozen=True, slots=True)
class NeedsOutcome:
    """Needs after the day, shape ``(n,)``.

    ``sleep_h`` with the default applied; ``hungry``/``thirsty``/``tired`` whether the day
    was short; the new counters; ``died_of_*`` per cause; ``dead``; ``death_cause`` a str array
    (``"hunger"``, ``"thirst"``, ``"fatigue"`` or ``""``; thirst, then hunger, then fatigue
    when several counters reach their death value on the same tick).
    """

    sleep_h: F64
    hungry: B
    thirsty: B
    tired: B
    hunger_days: I64
    thirst_days: I64
    fatigue_days: I64
    died_of_hunger: B
    died_of_thirst: B
    died_of_fatigue: B
    dead: B
    death_cause: NDArray[np.str_]


def short_day(amount: ArrayLike, requirement: float) -> B:
    """True where ``amount`` is less than ``requirement`` (1999 of 2000 kcal is short).

    A shortfall within ``EPSILON`` is float rounding, not a short day. Source: RULES.md R6.
    """
    return np.asarray(amount, dtype=np.float64) < requirement - EPSILON


def advance_needs(needs: NeedsArrays, settings: RuleSettings = DEFAULT_SETTINGS) -> NeedsOutcome:
    """Update the hunger, thirst and fatigue counters and detect deaths by deprivation.

    A day short of ``daily_kcal`` / ``daily_water_l`` / ``daily_sleep_h`` adds 1 to the
    counter; a day that meets it resets it to 0. A counter reaching its death value
    (5 hunger, 3 thirst, 7 fatigue) kills on this tick. Source: RULES.md R6, R14, R15.
    """
    sleep = np.where(np.isnan(needs.sleep_h), settings.default_sleep_h, needs.sleep_h)
    hungry = short_day(needs.kcal_eaten, settings.daily_kcal)
    thirsty = short_day(needs.water_drunk_l, settings.daily_water_l)
    tired = short_day(sleep, settings.daily_sleep_h)
    hunger = np.where(hungry, needs.hunger_days + 1, 0).astype(np.int64)
    thirst = np.where(thirsty, needs.thirst_days + 1, 0).astype(np.int64)
    fatigue = np.where(tired, needs.fatigue_days + 1, 0).astype(np.int64)
    d_h = hunger >= settings.hunger_death_days
    d_t = thirst >= settings.thirst_death_days
    d_f = fatigue >= settings.fatigue_death_days
    cause = np.where(
        d_t, CAUSE_THIRST, np.where(d_h, CAUSE_HUNGER, np.where(d_f, CAUSE_FATIGUE, ""))
    ).astype("<U7")
    return NeedsOutcome(
        sleep_h=sleep,
        hungry=hungry,
        thirsty=thirsty,
        tired=tired,
        hunger_days=hunger,
        thirst_days=thirst,
        fatigue_days=fatigue,
        died_of_hunger=d_h,
        died_of_thirst=d_t,
        died_of_fatigue=d_f,
        dead=d_h | d_t | d_f,
        death_cause=cause,
    )


# --- hygiene and dirt --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HygieneArrays:
    """One day of hygiene for n characters, shape ``(n,)``.

    - ``has_paper``: toilet paper was available that day (carried or in the shelter's stash).
    - ``has_paper_substitute``: a substitute was available (leaves, newspaper…).
    - ``toilet_distance_m``: distance (m) of the place used from the living/eating/sleeping
      area; NaN = no such place.
    - ``has_cesspit``: a cesspit is available.
    - ``could_not_urinate`` / ``could_not_defecate``: the day's marks (default False: a
      character relieves themself every day).
    - ``running_water``; ``bath_requested`` (the player asked for a bath/shower);
      ``bath_water_available_l`` (L of stored water the bath may use).
    - the counters and dirt flags at the start of the tick.
    """

    has_paper: B
    has_paper_substitute: B
    toilet_distance_m: F64
    has_cesspit: B
    could_not_urinate: B
    could_not_defecate: B
    running_water: B
    bath_requested: B
    bath_water_available_l: F64
    unhygienic_days: I64
    days_without_defecating: I64
    dirty: B
    extra_dirt: B

    @classmethod
    def of(cls, n: int, **columns: ArrayLike) -> Self:
        """Arrays of length ``n`` from the given columns; missing ones default to 0 / False /
        NaN (no apart place). Raises RulesError for unknown names or bad values."""
        defaults: dict[str, Any] = {
            "has_paper": False,
            "has_paper_substitute": False,
            "toilet_distance_m": np.nan,
            "has_cesspit": False,
            "could_not_urinate": False,
            "could_not_defecate": False,
            "running_water": False,
            "bath_requested": False,
            "bath_water_available_l": 0.0,
            "unhygienic_days": 0,
            "days_without_defecating": 0,
            "dirty": False,
            "extra_dirt": False,
        }
        unknown = set(columns) - set(defaults)
        if unknown:
            raise RulesError(f"Columnas desconocidas: {', '.join(sorted(unknown))}.")
        values = {**defaults, **columns}
        out: dict[str, Any] = {}
        for name, value in values.items():
            default = defaults[name]
            if isinstance(default, bool):
                out[name] = _bools(value, n, name)
            elif isinstance(default, int):
                out[name] = _ints(value, n, name)
            else:
                out[name] = _floats(value, n, name, allow_nan=name == "toilet_distance_m")
        return cls(**out)


@dataclass(frozen=True, slots=True)
class HygieneOutcome:
    """Hygiene after the day, shape ``(n,)``.

    ``paper_ok`` (paper or substitute), ``place_ok`` (≥ 20 m or cesspit), ``adequate`` both;
    the new ``unhygienic_days`` and ``days_without_defecating``; last night's accidents
    ``wet_last_night``/``soiled_last_night``; ``washed`` and the stored water it used
    ``bath_water_used_l``; the new ``dirty``/``extra_dirt``.
    """

    paper_ok: B
    place_ok: B
    adequate: B
    unhygienic_days: I64
    days_without_defecating: I64
    wet_last_night: B
    soiled_last_night: B
    washed: B
    bath_water_used_l: F64
    dirty: B
    extra_dirt: B


def advance_hygiene(
    hygiene: HygieneArrays, settings: RuleSettings = DEFAULT_SETTINGS
) -> HygieneOutcome:
    """Hygiene conditions, the unhygienic counter, accidents and dirt for one day.

    Adequate = (paper or a substitute) and (a place ≥ ``latrine_min_distance_m`` or a
    cesspit); an inadequate day adds 1 to the consecutive counter, an adequate one resets it.
    Order within the day (our reading: the day's hygiene, then the night): a wash first — with
    running water (automatic if ``auto_shower_with_running_water``, or on request), or on
    request with ``bath_water_l`` of stored water — clears dirt and extra dirt; then the night:
    a day marked "could not urinate" wets the character (wet last night, dirty); the
    ``days_without_defecating``-th consecutive marked day soils them (soiled, dirty, extra
    dirt) and resets that counter. Source: RULES.md R7, R8, R15.
    """
    s = settings
    paper_ok = hygiene.has_paper | hygiene.has_paper_substitute
    distance = np.nan_to_num(hygiene.toilet_distance_m, nan=-1.0)
    place_ok = (distance >= s.latrine_min_distance_m) | hygiene.has_cesspit
    adequate = paper_ok & place_ok
    unhygienic = np.where(adequate, 0, hygiene.unhygienic_days + 1).astype(np.int64)

    running_wash = hygiene.running_water & (
        hygiene.bath_requested | s.auto_shower_with_running_water
    )
    stored_wash = (
        hygiene.bath_requested
        & ~hygiene.running_water
        & (hygiene.bath_water_available_l >= s.bath_water_l - EPSILON)
    )
    washed = running_wash | stored_wash
    bath_water = np.where(
        stored_wash, np.minimum(s.bath_water_l, hygiene.bath_water_available_l), 0.0
    )

    wet = hygiene.could_not_urinate.copy()
    held = np.where(hygiene.could_not_defecate, hygiene.days_without_defecating + 1, 0)
    soiled = held >= s.days_without_defecating
    held = np.where(soiled, 0, held).astype(np.int64)

    dirty = (hygiene.dirty & ~washed) | wet | soiled
    extra = (hygiene.extra_dirt & ~washed) | soiled
    return HygieneOutcome(
        paper_ok=paper_ok,
        place_ok=place_ok,
        adequate=adequate,
        unhygienic_days=unhygienic,
        days_without_defecating=held,
        wet_last_night=wet,
        soiled_last_night=soiled,
        washed=washed,
        bath_water_used_l=bath_water,
        dirty=dirty,
        extra_dirt=extra,
    )


def _paper_available(day: DayArrays, stash: Supplies | None, settings: RuleSettings) -> B:
    """Paper before the day's use: carried, or in the stash of the character's shelter."""
    available = day.carried.toilet_paper_rolls > 0
    if stash is not None and len(stash) and settings.allow_shelter_stash:
        housed = day.shelter >= 0
        in_stash = stash.toilet_paper_rolls[np.where(housed, day.shelter, 0)] > 0
        available = available | (housed & in_stash)
    return available


# --- the survival part of the tick -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DayArrays:
    """What n living characters had and did on the day the tick closes, shape ``(n,)``.

    ``carried`` supplies; ``shelter`` index into the stash array (−1 = none); ``sleep_h``
    (NaN = default 8 h); the hygiene facts and marks as in ``HygieneArrays``. A bath on
    request without running water uses the character's carried water left after drinking.
    """

    carried: Supplies
    shelter: I64
    sleep_h: F64
    has_paper_substitute: B
    toilet_distance_m: F64
    has_cesspit: B
    could_not_urinate: B
    could_not_defecate: B
    running_water: B
    bath_requested: B

    @classmethod
    def of(cls, carried: Supplies, **columns: ArrayLike) -> Self:
        """Arrays of length ``len(carried)``; missing columns default (no shelter, NaN sleep
        and distance, False marks). Raises RulesError for unknown names or bad values."""
        n = len(carried)
        known = {
            "shelter",
            "sleep_h",
            "has_paper_substitute",
            "toilet_distance_m",
            "has_cesspit",
            "could_not_urinate",
            "could_not_defecate",
            "running_water",
            "bath_requested",
        }
        unknown = set(columns) - known
        if unknown:
            raise RulesError(f"Columnas desconocidas: {', '.join(sorted(unknown))}.")
        return cls(
            carried=carried,
            shelter=_ints(columns.get("shelter", -1), n, "refugio", minimum=-1),
            sleep_h=_floats(columns.get("sleep_h", np.nan), n, "sleep_h", allow_nan=True),
            has_paper_substitute=_bools(
                columns.get("has_paper_substitute", False), n, "has_paper_substitute"
            ),
            toilet_distance_m=_floats(
                columns.get("toilet_distance_m", np.nan), n, "toilet_distance_m", allow_nan=True
            ),
            has_cesspit=_bools(columns.get("has_cesspit", False), n, "has_cesspit"),
            could_not_urinate=_bools(
                columns.get("could_not_urinate", False), n, "could_not_urinate"
            ),
            could_not_defecate=_bools(
                columns.get("could_not_defecate", False), n, "could_not_defecate"
            ),
            running_water=_bools(columns.get("running_water", False), n, "running_water"),
            bath_requested=_bools(columns.get("bath_requested", False), n, "bath_requested"),
        )


@dataclass(frozen=True, slots=True)
class SurvivalOutcome:
    """The survival part of one tick for n characters.

    ``condition`` the new state (needs, hygiene and dirt updated; disease and infection
    untouched — see ``reglas.health``); ``consumption``, ``needs``, ``hygiene`` the details for
    the diary; ``carried_after`` after eating, drinking and any bath; ``stash_after`` (m,);
    ``dead``/``death_cause`` as in ``NeedsOutcome``.
    """

    condition: ConditionArrays
    consumption: Consumption
    needs: NeedsOutcome
    hygiene: HygieneOutcome
    carried_after: Supplies
    stash_after: Supplies
    dead: B
    death_cause: NDArray[np.str_]


def advance_survival(
    condition: ConditionArrays,
    day: DayArrays,
    settings: RuleSettings = DEFAULT_SETTINGS,
    *,
    stash: Supplies | None = None,
) -> SurvivalOutcome:
    """Consumption (R15), needs (R6) and hygiene (R7, R8) for n living characters, in that
    order, in one vectorised pass.

    ``condition`` and ``day`` have length n; ``stash`` (m,) the shelters' shared supplies.
    Characters who die here should skip the health step. Raises RulesError for mismatched
    lengths. Source: RULES.md R6, R7, R8, R15, R24 step 5.
    """
    n = len(condition)
    if len(day.carried) != n:
        raise RulesError(f"Hay {n} estados y {len(day.carried)} registros del día.")
    used = consume(day.carried, settings, shelter=day.shelter, stash=stash)
    needs = advance_needs(
        NeedsArrays(
            kcal_eaten=used.kcal_eaten,
            water_drunk_l=used.water_drunk_l,
            sleep_h=day.sleep_h,
            hunger_days=condition.hunger_days,
            thirst_days=condition.thirst_days,
            fatigue_days=condition.fatigue_days,
        ),
        settings,
    )
    hygiene = advance_hygiene(
        HygieneArrays(
            has_paper=_paper_available(day, stash, settings),
            has_paper_substitute=day.has_paper_substitute,
            toilet_distance_m=day.toilet_distance_m,
            has_cesspit=day.has_cesspit,
            could_not_urinate=day.could_not_urinate,
            could_not_defecate=day.could_not_defecate,
            running_water=day.running_water,
            bath_requested=day.bath_requested,
            bath_water_available_l=used.carried_after.water_l,
            unhygienic_days=condition.unhygienic_days,
            days_without_defecating=condition.days_without_defecating,
            dirty=condition.dirty,
            extra_dirt=condition.extra_dirt,
        ),
        settings,
    )
    carried_after = Supplies(
        used.carried_after.kcal,
        np.maximum(used.carried_after.water_l - hygiene.bath_water_used_l, 0.0),
        used.carried_after.toilet_paper_rolls,
    )
    new = condition.replace(
        hunger_days=needs.hunger_days,
        thirst_days=needs.thirst_days,
        fatigue_days=needs.fatigue_days,
        unhygienic_days=hygiene.unhygienic_days,
        days_without_defecating=hygiene.days_without_defecating,
        wet_last_night=hygiene.wet_last_night,
        soiled_last_night=hygiene.soiled_last_night,
        dirty=hygiene.dirty,
        extra_dirt=hygiene.extra_dirt,
    )
    return SurvivalOutcome(
        condition=new,
        consumption=used,
        needs=needs,
        hygiene=hygiene,
        carried_after=carried_after,
        stash_after=used.stash_after,
        dead=needs.dead,
        death_cause=needs.death_cause,
    )


# --- scalar wrapper ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DayRecord:
    """One character's day (scalar ``DayArrays``): what it carried (kcal, L, rolls), hours
    slept (None = default), hygiene facts and marks. No shared stash: put what the character
    may use in the carried amounts."""

    kcal_carried: float = 0.0
    water_carried_l: float = 0.0
    toilet_paper_rolls: float = 0.0
    sleep_h: float | None = None
    has_paper_substitute: bool = False
    toilet_distance_m: float | None = None
    has_cesspit: bool = False
    could_not_urinate: bool = False
    could_not_defecate: bool = False
    running_water: bool = False
    bath_requested: bool = False


@dataclass(frozen=True, slots=True)
class DayOutcome:
    """One character's survival tick: the new ``state``; kcal eaten, water drunk (L), sleep
    (h), paper used (rolls); hygiene ``adequate``; ``washed`` and the bath water used (L);
    what is left carried (kcal, L, rolls); ``dead`` and ``death_cause`` (None if alive)."""

    state: ConditionState
    kcal_eaten: float
    water_drunk_l: float
    sleep_h: float
    paper_used_rolls: float
    hygiene_adequate: bool
    washed: bool
    bath_water_used_l: float
    kcal_left: float
    water_left_l: float
    toilet_paper_left: float
    dead: bool
    death_cause: str | None


def live_day(
    state: ConditionState, record: DayRecord, settings: RuleSettings = DEFAULT_SETTINGS
) -> DayOutcome:
    """The survival tick for one character (``advance_survival`` with n = 1).

    Raises RulesError for negative or non-finite amounts. Source: RULES.md R6, R7, R8, R15.
    """
    day = DayArrays.of(
        Supplies.of([record.kcal_carried], [record.water_carried_l], [record.toilet_paper_rolls]),
        sleep_h=[np.nan if record.sleep_h is None else record.sleep_h],
        has_paper_substitute=[record.has_paper_substitute],
        toilet_distance_m=[
            np.nan if record.toilet_distance_m is None else record.toilet_distance_m
        ],
        has_cesspit=[record.has_cesspit],
        could_not_urinate=[record.could_not_urinate],
        could_not_defecate=[record.could_not_defecate],
        running_water=[record.running_water],
        bath_requested=[record.bath_requested],
    )
    out = advance_survival(ConditionArrays.from_states([state]), day, settings)
    cause = str(out.death_cause[0])
    return DayOutcome(
        state=out.condition.state(0),
        kcal_eaten=float(out.consumption.kcal_eaten[0]),
        water_drunk_l=float(out.consumption.water_drunk_l[0]),
        sleep_h=float(out.needs.sleep_h[0]),
        paper_used_rolls=float(out.consumption.paper_used_rolls[0]),
        hygiene_adequate=bool(out.hygiene.adequate[0]),
        washed=bool(out.hygiene.washed[0]),
        bath_water_used_l=float(out.hygiene.bath_water_used_l[0]),
        kcal_left=float(out.carried_after.kcal[0]),
        water_left_l=float(out.carried_after.water_l[0]),
        toilet_paper_left=float(out.carried_after.toilet_paper_rolls[0]),
        dead=bool(out.dead[0]),
        death_cause=cause or None,
    )
