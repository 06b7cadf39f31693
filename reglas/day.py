"""One in-game day of every living character at once: the rules of the daily tick's step 5.

``live_characters_day`` takes the characters' condition, what they carry, their shelters and
their stashes, the master's marks of the day and the day's weather, all as arrays, and returns
the new condition, deaths, what was consumed item by item, the R9 penalty and R10 odds
breakdowns for the diary, and the rolls made (resistance, disease durations) with their
breakdowns. No Django, no clock, no I/O: the generator and the rule settings are arguments.

In order (RULES.md R24 step 5), for the day that closes:
1. spoilage (R15): perishable food spoils ``spoil_after_power_cut_days`` after its holder's
   grid lost power (0, the default: it does not, the rulebook has no such rule);
2. medicine (R12): a sick character takes one dose, carried first, then from its shelter's
   stash (the stash's doses go to the sick residents in id order while they last); a day
   with a dose counts as treated;
3. survival (R15, R6, R7, R8) through ``reglas.survival.advance_survival``; "got dirty" marks
   apply before the day's wash; a marked shower counts as paid (stored or running water);
4. health (R10, R12, R13) through ``reglas.health.advance_health`` with the day's weather;
5. which stacks the consumption and the doses came from (``reglas.allocation.allocate``,
   soonest-spoiling food first).

Readings chosen: a character with no shelter lives in the open: its latrine is "far" (1e9 m:
it can always go apart), it has no cesspit, no substitute and no running water. Sick
housemates (R10) count characters with a running disease or infection (R13) at the start of
the day. Last night's accidents (R7) raise the day's disease and resistance rolls.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from reglas.allocation import allocate, totals
from reglas.characters import (
    ConditionArrays,
    action_penalty,
    action_penalty_parts,
    is_dirt_sensitive,
)
from reglas.core import Breakdown
from reglas.health import (
    RESISTANCE_TRAIT,
    HealthDayArrays,
    HealthOutcome,
    RollRng,
    advance_health,
    count_sick_housemates,
    resistance_modifiers,
)
from reglas.settings import RuleSettings
from reglas.survival import DayArrays, Supplies, SurvivalOutcome, advance_survival

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
B = NDArray[np.bool_]

FOOD = "food"
WATER = "water"
TOILET_PAPER = "toilet_paper"
MEDICINE = "medicine"
"""Item kinds the day consumes (other kinds are carried and never used up here)."""

FAR_AWAY_M = 1e9
"""Latrine distance of a character with no shelter: it can always go apart (R7)."""


@dataclass(frozen=True, slots=True)
class Stock:
    """Item stacks of one kind of holder (characters or shelters), as arrays.

    Per stack (k,): ``holder`` index of the holder (0..m−1), ``kind`` (``FOOD``, ``WATER``,
    ``TOILET_PAPER``, ``MEDICINE`` or another), ``kcal_per_unit`` (kcal), ``litres_per_unit``
    (L), ``perishable``, ``spoil_day`` (in-game day; +inf: keeps), ``units`` held. Per holder
    (m,): ``power_cut_day``, the day the holder's grid lost power (NaN: still on).
    """

    holder: I64
    kind: NDArray[np.str_]
    kcal_per_unit: F64
    litres_per_unit: F64
    perishable: B
    spoil_day: F64
    units: F64
    power_cut_day: F64

    @classmethod
    def empty(cls, holders: int) -> Stock:
        """No stacks for ``holders`` holders whose grids are on."""
        z = np.zeros(0)
        return cls(
            holder=np.zeros(0, np.int64),
            kind=np.zeros(0, "<U16"),
            kcal_per_unit=z,
            litres_per_unit=z,
            perishable=np.zeros(0, np.bool_),
            spoil_day=z,
            units=z,
            power_cut_day=np.full(holders, np.nan),
        )

    def __len__(self) -> int:
        return int(self.holder.shape[0])


@dataclass(frozen=True, slots=True)
class _Usable:
    """A stock as the day uses it: per unit kcal of edible food, L of water, and kind flags."""

    stock: Stock
    food: F64
    litres: F64
    paper: F64
    medicine: F64
    spoil: F64

    @classmethod
    def of(cls, stock: Stock, today: float, rules: RuleSettings) -> _Usable:
        """Perishable food spoils ``spoil_after_power_cut_days`` after its grid lost power (the
        earlier of that and its own ``spoil_day``; 0 = off); food spoiled before ``today``
        gives no kcal (R15)."""
        cut = (
            stock.power_cut_day[stock.holder]
            if stock.power_cut_day.size
            else np.full(len(stock), np.nan)
        )
        keeps = rules.spoil_after_power_cut_days
        spoils_early = stock.perishable & ~np.isnan(cut) & (keeps > 0)
        spoil = np.where(spoils_early, np.minimum(stock.spoil_day, cut + keeps), stock.spoil_day)
        kcal = np.where(stock.kind == FOOD, stock.kcal_per_unit, 0.0)
        return cls(
            stock=stock,
            food=np.where(spoil < today, 0.0, kcal),
            litres=np.where(stock.kind == WATER, stock.litres_per_unit, 0.0),
            paper=(stock.kind == TOILET_PAPER).astype(np.float64),
            medicine=(stock.kind == MEDICINE).astype(np.float64),
            spoil=spoil,
        )

    def supplies(self, m: int) -> Supplies:
        """What each of the ``m`` holders has: kcal, L and rolls."""
        h, units = self.stock.holder, self.stock.units
        return Supplies(
            kcal=totals(h, units * self.food, m),
            water_l=totals(h, units * self.litres, m),
            toilet_paper_rolls=totals(h, units * self.paper, m),
        )

    def doses(self, m: int) -> F64:
        return totals(self.stock.holder, self.stock.units * self.medicine, m)

    def take(self, kcal: F64, water_l: F64, paper: F64, doses: F64) -> F64:
        """Units taken from each stack to cover each holder's kcal, L, rolls and doses (R15:
        the soonest-spoiling food first, the rest in the stacks' order)."""
        s = self.stock
        if len(s) == 0:
            return np.zeros(0)
        taken = allocate(
            holder=s.holder, order=self.spoil, per_unit=self.food, units=s.units, need=kcal
        )
        no_order = np.zeros(len(s))
        for per_unit, need in (
            (self.litres, np.maximum(water_l, 0.0)),
            (self.paper, paper),
            (self.medicine, doses),
        ):
            taken += allocate(
                holder=s.holder, order=no_order, per_unit=per_unit, units=s.units, need=need
            )
        return taken


@dataclass(frozen=True, slots=True)
class Shelters:
    """The m shelters' hygiene facts (R7), arrays (m,): ``latrine_distance_m`` (NaN: none),
    ``has_cesspit``, ``paper_substitute``, ``running_water`` (plumbing and its grid's water on
    during the day)."""

    latrine_distance_m: F64
    has_cesspit: B
    paper_substitute: B
    running_water: B

    def __len__(self) -> int:
        return int(self.latrine_distance_m.shape[0])


@dataclass(frozen=True, slots=True)
class CharactersDay:
    """Everything the day needs about n characters, arrays (n,) unless said.

    ``condition`` at the start of the day; ``shelter`` index into ``shelters`` (−1: none);
    the master's marks: ``sleep_h`` (h, NaN: not marked), ``could_not_urinate``,
    ``could_not_defecate``, ``got_dirty``, ``showered``, ``relieved_inappropriately``; the
    day's weather where each lives: ``precipitation``, ``min_temp_c`` (°C); ``resistencia``
    (trait value); ``carried`` (holders: the characters) and ``stash`` (holders: the
    shelters) stocks; ``shelters``.
    """

    condition: ConditionArrays
    shelter: I64
    sleep_h: F64
    could_not_urinate: B
    could_not_defecate: B
    got_dirty: B
    showered: B
    relieved_inappropriately: B
    precipitation: B
    min_temp_c: F64
    resistencia: I64
    carried: Stock
    stash: Stock
    shelters: Shelters


@dataclass(frozen=True, slots=True)
class BreakdownTable:
    """Breakdowns of n characters stored once per distinct one: character i's is
    ``rows[index[i]]`` (states repeat a lot, so callers format each row once)."""

    rows: tuple[Breakdown, ...]
    index: I64

    def of(self, i: int) -> Breakdown:
        return self.rows[int(self.index[i])]


@dataclass(frozen=True, slots=True)
class ResistanceRolls:
    """The R12 resistance rolls made today, one per disease that ended, in ``index`` order.

    ``index`` (r,) the characters; ``breakdowns`` their threshold lines (treatment, hygiene,
    R9 penalty); ``thresholds`` (%), ``dice`` one list of d100 faces each, ``successes``,
    ``success``.
    """

    index: I64
    breakdowns: tuple[Breakdown, ...]
    thresholds: I64
    dice: tuple[list[int], ...]
    successes: I64
    success: B


@dataclass(frozen=True, slots=True)
class CharactersDayOutcome:
    """What the day did to n characters.

    ``condition`` the final state; ``dead``, ``risen``, ``cause`` (``"hunger"``… or ``""``);
    ``status`` for the diary (``alive``, ``sick``, ``infected``, ``dead``, ``risen``);
    ``treated`` took a dose; ``carried_taken`` (k_c,) and ``stash_taken`` (k_s,) units taken
    per stack; ``penalty_total`` (points) and ``penalty`` the R9 breakdown as the day leaves
    it; ``disease`` the R10 breakdown (empty where no onset was rolled); ``resistance`` the
    R12 rolls; ``survival`` and ``health`` the engine's detailed outcomes (the diary's amounts
    and the onset and duration dice).
    """

    condition: ConditionArrays
    dead: B
    risen: B
    cause: NDArray[np.str_]
    status: NDArray[np.str_]
    treated: B
    carried_taken: F64
    stash_taken: F64
    penalty_total: I64
    penalty: BreakdownTable
    disease: BreakdownTable
    resistance: ResistanceRolls
    survival: SurvivalOutcome
    health: HealthOutcome


def _doses(day: CharactersDay, carried: _Usable, stash: _Usable) -> tuple[B, B]:
    """R12 medicine: who takes a carried dose, who one from the shelter's stash (the sick
    residents in id, that is index, order while the stash's whole doses last)."""
    n, m = len(day.condition), len(day.shelters)
    shelter_of = day.shelter
    sick = day.condition.disease_day > 0
    from_carried = sick & (carried.doses(n) >= 1.0)
    wants_stash = sick & ~from_carried & (shelter_of >= 0)
    order = np.flatnonzero(wants_stash)
    rank = np.zeros(n, np.int64)
    if order.size:
        g = shelter_of[order]
        sort = np.lexsort((order, g))
        gs = g[sort]
        starts = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]])
        pos = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
        rank[order[sort]] = pos
    s_doses = stash.doses(m)
    from_stash = wants_stash & (
        rank < np.floor(s_doses[np.where(shelter_of >= 0, shelter_of, 0)] if m else 0)
    )
    return from_carried, from_stash


def _survival(
    day: CharactersDay, carried: Supplies, stash: Supplies | None, rules: RuleSettings
) -> SurvivalOutcome:
    """R15, R6, R7, R8 with each character's place (a shelter's facts, or the open)."""
    n, m = len(day.condition), len(day.shelters)
    housed = day.shelter >= 0
    sidx = np.where(housed, day.shelter, 0)
    sh = day.shelters
    if m:
        distance = np.where(housed, sh.latrine_distance_m[sidx], np.inf)
        has_cesspit = housed & sh.has_cesspit[sidx]
        has_substitute = housed & sh.paper_substitute[sidx]
        running = housed & sh.running_water[sidx]
    else:
        distance = np.full(n, np.inf)
        has_cesspit = np.zeros(n, np.bool_)
        has_substitute = np.zeros(n, np.bool_)
        running = np.zeros(n, np.bool_)
    start = day.condition.replace(dirty=day.condition.dirty | day.got_dirty)
    return advance_survival(
        start,
        DayArrays.of(
            carried,
            shelter=day.shelter,
            sleep_h=day.sleep_h,
            has_paper_substitute=has_substitute,
            toilet_distance_m=np.where(np.isinf(distance), FAR_AWAY_M, distance),
            has_cesspit=has_cesspit,
            could_not_urinate=day.could_not_urinate,
            could_not_defecate=day.could_not_defecate,
            relieved_inappropriately=day.relieved_inappropriately,
            # A marked shower was paid when it was marked (stored water) or had running water.
            running_water=running | day.showered,
            bath_requested=day.showered,
        ),
        rules,
        stash=stash,
    )


def _row_codes(keys: NDArray[Any]) -> NDArray[np.int64] | None:
    """Each row of an integer ``(n, m)`` array as one int64, in the rows' lexicographic order
    (mixed radix, first column most significant, each column shifted to start at 0); None
    when the codes would not fit in 63 bits."""
    low = keys.min(axis=0)
    span = (keys.max(axis=0) - low + 1).tolist()
    if math.prod(span) >= 2**63:
        return None
    codes = np.zeros(keys.shape[0], np.int64)
    for j, radix in enumerate(span):
        codes *= radix
        codes += keys[:, j] - low[j]
    return codes


def _memo(keys: NDArray[Any], make: Callable[[int], Breakdown]) -> BreakdownTable:
    """One breakdown per distinct key row (``make(i)`` for its first character i).

    The rows are compared as one int64 code each (``_row_codes``): ``np.unique(axis=0)``
    sorts them as opaque byte strings, many times slower at 10 000 rows; the distinct rows,
    their order and the index are the same."""
    if keys.shape[0] == 0:
        return BreakdownTable(rows=(), index=np.zeros(0, np.int64))
    codes = _row_codes(keys) if keys.dtype.kind in "iu" else None
    _uniq, first, inverse = (
        np.unique(keys, axis=0, return_index=True, return_inverse=True)
        if codes is None
        else np.unique(codes, return_index=True, return_inverse=True)
    )
    rows = tuple(make(int(i)) for i in first.tolist())
    return BreakdownTable(rows=rows, index=np.asarray(inverse, np.int64).reshape(-1))


def _penalty(final: ConditionArrays, rules: RuleSettings) -> tuple[I64, BreakdownTable]:
    """R9 as the day leaves it (for a trait that is not dirt-sensitive): points and lines."""
    n = len(final)
    total = np.zeros(n, np.int64)
    for points in action_penalty_parts(final, False, rules).values():
        total += points
    keys = np.stack(
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
    table = _memo(keys, lambda i: tuple(action_penalty(final.state(i), False, rules)))
    return total, table


def _disease(health: HealthOutcome) -> BreakdownTable:
    """R10 lines of the characters whose onset was rolled (empty for the others)."""
    odds, rolled = health.odds, health.onset_rolled
    keys = np.stack([odds.parts[k] for k in sorted(odds.parts)] + [rolled], axis=1)
    return _memo(keys, lambda i: tuple(odds.breakdown(i)) if rolled[i] else ())


def _resistance(
    health: HealthOutcome,
    condition: ConditionArrays,
    treated: B,
    adequate: B,
    rules: RuleSettings,
    start: ConditionArrays,
) -> ResistanceRolls:
    """The resistance rolls with their lines, as ``advance_health`` computed the threshold:
    the day counts as treated / unhygienic, then the R9 penalty of the post-survival state
    with the start-of-day accidents (last night's, R7)."""
    r = health.resistance
    at = health.resistance_index

    def lines(i: int) -> Breakdown:
        state = condition.state(i)
        state = dataclasses.replace(
            state,
            disease_days_treated=state.disease_days_treated + int(treated[i]),
            disease_unhygienic_days=state.disease_unhygienic_days + int(not adequate[i]),
            wet_last_night=bool(start.wet_last_night[i]),
            soiled_last_night=bool(start.soiled_last_night[i]),
        )
        return tuple(
            resistance_modifiers(state.disease_days_treated, state.disease_unhygienic_days, rules)
            + action_penalty(state, is_dirt_sensitive(RESISTANCE_TRAIT, rules), rules)
        )

    # The lines depend on the roll's whole state and day only: made once per distinct one
    # (two scalar states and their checks per roll cost ~80 µs, 16 ms for 200 rolls).
    keys = np.stack(
        [getattr(condition, f.name)[at].astype(np.int64) for f in dataclasses.fields(condition)]
        + [
            a[at].astype(np.int64)
            for a in (treated, adequate, start.wet_last_night, start.soiled_last_night)
        ],
        axis=1,
    )
    table = _memo(keys, lambda j: lines(int(at[j])))
    dice = [r.dice[j, : int(r.dice_count[j])].tolist() for j in range(at.shape[0])]
    return ResistanceRolls(
        index=health.resistance_index,
        breakdowns=tuple(table.rows[j] for j in table.index.tolist()),
        thresholds=np.asarray(r.thresholds, np.int64),
        dice=tuple(dice),
        successes=np.asarray(r.successes, np.int64),
        success=np.asarray(r.success, np.bool_),
    )


def _status(final: ConditionArrays, dead: B, risen: B) -> NDArray[np.str_]:
    return np.where(
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


def _taken(
    day: CharactersDay,
    survival: SurvivalOutcome,
    carried: tuple[_Usable, Supplies, B],
    stash: tuple[_Usable, B],
) -> tuple[F64, F64]:
    """Units taken per carried and per stashed stack: what consumption drew from each holder
    (the water a bath used included) and the doses given."""
    used = survival.consumption
    c_usable, c_supplies, from_carried = carried
    s_usable, from_stash = stash
    carried_taken = c_usable.take(
        used.kcal_from_carried,
        c_supplies.water_l - survival.carried_after.water_l,
        used.paper_from_carried,
        from_carried.astype(np.float64),
    )
    stash_taken = s_usable.take(
        used.stash_taken.kcal,
        used.stash_taken.water_l,
        used.stash_taken.toilet_paper_rolls,
        totals(day.shelter[from_stash], np.ones(int(from_stash.sum())), len(day.shelters)),
    )
    return carried_taken, stash_taken


def live_characters_day(
    day: CharactersDay,
    *,
    today: int,
    season: str,
    rng: np.random.Generator,
    rules: RuleSettings,
    roll_rng: RollRng | None = None,
) -> CharactersDayOutcome:
    """Close day ``today`` for n characters at once (RULES.md R24 step 5, in the order of the
    module's docstring).

    ``day`` the characters' arrays (see ``CharactersDay``); ``today`` the in-game day that
    closes; ``season`` its season (``reglas.weather.Season`` value); ``rng`` the health step's
    generator and ``roll_rng`` the generators of the stored rolls (see ``advance_health``);
    ``rules`` the campaign's settings. Returns ``CharactersDayOutcome``. Raises ``RulesError``
    for arrays of mismatched lengths or an unknown season.
    Source: RULES.md R6–R10, R12–R15, R24.
    """
    n, m = len(day.condition), len(day.shelters)
    carried = _Usable.of(day.carried, float(today), rules)
    stash = _Usable.of(day.stash, float(today), rules)
    carried_supplies = carried.supplies(n)
    from_carried, from_stash = _doses(day, carried, stash)
    treated = from_carried | from_stash
    survival = _survival(day, carried_supplies, stash.supplies(m) if m else None, rules)
    # R10/R13: a housemate with a running disease or infection counts as sick.
    sick_start = (day.condition.disease_day > 0) | (day.condition.infection_day > 0)
    health = advance_health(
        survival.condition,
        HealthDayArrays.of(
            n,
            alive=~survival.dead,
            sick_housemates=count_sick_housemates(day.shelter, sick_start),
            precipitation=day.precipitation,
            min_temp_c=day.min_temp_c,
            treated_today=treated,
            hygiene_adequate=survival.hygiene.adequate,
            resistencia=day.resistencia,
            wet_last_night=day.condition.wet_last_night,
            soiled_last_night=day.condition.soiled_last_night,
        ),
        season,
        rng,
        rules,
        roll_rng,
    )
    final = health.condition
    dead = survival.dead | health.dead
    risen = health.risen & ~survival.dead
    cause = np.where(survival.dead, survival.death_cause, health.death_cause)
    carried_taken, stash_taken = _taken(
        day, survival, (carried, carried_supplies, from_carried), (stash, from_stash)
    )
    penalty_total, penalty = _penalty(final, rules)
    return CharactersDayOutcome(
        condition=final,
        dead=dead,
        risen=risen,
        cause=cause,
        status=_status(final, dead, risen),
        treated=treated,
        carried_taken=carried_taken,
        stash_taken=stash_taken,
        penalty_total=penalty_total,
        penalty=penalty,
        disease=_disease(health),
        resistance=_resistance(
            health, survival.condition, treated, survival.hygiene.adequate, rules, day.condition
        ),
        survival=survival,
        health=health,
    )
