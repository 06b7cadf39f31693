"""``reglas.day.live_characters_day``: one day of many characters, worked examples (R6–R15).

No database: the characters, their stacks and shelters are arrays built here. Unless a test
says otherwise the disease odds are 0 % (``CALM``), so no chance disease changes the example,
and the day is 8 November 2026 (autumn), day 7 of the campaign.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reglas.characters import ConditionArrays, ConditionState
from reglas.core import make_rng
from reglas.day import (
    FOOD,
    MEDICINE,
    TOILET_PAPER,
    WATER,
    CharactersDay,
    Shelters,
    Stock,
    live_characters_day,
)
from reglas.settings import DEFAULT_SETTINGS, RuleSettings

CALM = RuleSettings(
    season_base_winter=0,
    season_base_spring=0,
    season_base_summer=0,
    season_base_autumn=0,
    sick_housemate_disease_points=0,
    precipitation_disease_points=0,
    cold_degree_disease_points=0,
    unhygienic_day_disease_points=0,
    dirt_disease_points=0,
    extra_dirt_disease_points=0,
    need_day_disease_points=0,
)
TODAY = 7


def stock(holders: int, stacks: list[tuple[int, str, float, float]], **more: Any) -> Stock:
    """Stacks ``(holder, kind, per unit, units)``: per unit is kcal for food, L for water."""
    k = len(stacks)
    kind = np.array([s[1] for s in stacks], dtype="<U16")
    per_unit = np.array([s[2] for s in stacks], dtype=np.float64)
    fields: dict[str, Any] = {
        "holder": np.array([s[0] for s in stacks], dtype=np.int64),
        "kind": kind,
        "kcal_per_unit": np.where(kind == FOOD, per_unit, 0.0),
        "litres_per_unit": np.where(kind == WATER, per_unit, 0.0),
        "perishable": np.zeros(k, np.bool_),
        "spoil_day": np.full(k, np.inf),
        "units": np.array([s[3] for s in stacks], dtype=np.float64),
        "power_cut_day": np.full(holders, np.nan),
    }
    fields.update(more)
    return Stock(**fields)


def shelters(m: int) -> Shelters:
    """m good shelters: latrine 25 m away, no running water."""
    return Shelters(
        latrine_distance_m=np.full(m, 25.0),
        has_cesspit=np.zeros(m, np.bool_),
        paper_substitute=np.zeros(m, np.bool_),
        running_water=np.zeros(m, np.bool_),
    )


def day_of(
    states: list[ConditionState],
    *,
    shelter: list[int],
    carried: Stock,
    stash: Stock | None = None,
    m: int = 1,
    **more: Any,
) -> CharactersDay:
    n = len(states)
    fields: dict[str, Any] = {
        "condition": ConditionArrays.from_states(states),
        "shelter": np.array(shelter, dtype=np.int64),
        "sleep_h": np.full(n, np.nan),
        "could_not_urinate": np.zeros(n, np.bool_),
        "could_not_defecate": np.zeros(n, np.bool_),
        "got_dirty": np.zeros(n, np.bool_),
        "showered": np.zeros(n, np.bool_),
        "relieved_inappropriately": np.zeros(n, np.bool_),
        "precipitation": np.zeros(n, np.bool_),
        "min_temp_c": np.full(n, 12.0),
        "resistencia": np.zeros(n, np.int64),
        "carried": carried,
        "stash": stash if stash is not None else Stock.empty(m),
        "shelters": shelters(m),
    }
    fields.update(more)
    return CharactersDay(**fields)


def run(day: CharactersDay, rules: RuleSettings = CALM, seed: int = 1) -> Any:
    return live_characters_day(
        day, today=TODAY, season="otoño", rng=make_rng(seed, [TODAY, 22, 0, 0]), rules=rules
    )


def fed(holder: int) -> list[tuple[int, str, float, float]]:
    """Four days of cans (500 kcal), water (1 L) and paper (0.2 roll a day)."""
    return [(holder, FOOD, 500.0, 16), (holder, WATER, 1.0, 8), (holder, TOILET_PAPER, 0, 0.8)]


def test_a_fed_character_eats_the_soonest_spoiling_food_first():
    # R15: 2000 kcal a day; bread (800 kcal, spoils day 9) before cans (500 kcal, keep).
    carried = stock(
        1,
        [(0, FOOD, 500.0, 10), (0, FOOD, 800.0, 2), (0, WATER, 1.0, 5), (0, TOILET_PAPER, 0, 1)],
        spoil_day=np.array([np.inf, 9.0, np.inf, np.inf]),
        perishable=np.array([False, True, False, False]),
    )
    out = run(day_of([ConditionState()], shelter=[0], carried=carried))
    # 2 breads = 1600 kcal, then 400 kcal of cans = 0.8 can; 2 L of water; 0.2 roll (R7).
    assert out.carried_taken.tolist() == pytest.approx([0.8, 2.0, 2.0, 0.2])
    assert out.condition.hunger_days.tolist() == [0]
    assert out.status.tolist() == ["alive"]
    assert out.penalty_total.tolist() == [0]
    assert out.penalty.of(0) == ()


def test_perishable_food_spoils_two_days_after_the_grid_lost_power_when_the_master_says_so():
    # The grid lost power on day 4: with spoil_after_power_cut_days = 2 bread keeps through
    # day 4 + 2 = 6, and on day 7 it gives nothing; cans alone feed the character. By default
    # (0, R15 amended: not in the rulebook) the bread is eaten as usual.
    carried = stock(
        1,
        [(0, FOOD, 800.0, 5), (0, FOOD, 500.0, 10), (0, WATER, 1.0, 5), (0, TOILET_PAPER, 0, 1)],
        spoil_day=np.array([30.0, np.inf, np.inf, np.inf]),
        perishable=np.array([True, False, False, False]),
        power_cut_day=np.array([4.0]),
    )
    spoiling = dataclasses.replace(CALM, spoil_after_power_cut_days=2)
    out = run(day_of([ConditionState()], shelter=[0], carried=carried), spoiling)
    assert out.carried_taken.tolist() == pytest.approx([0.0, 4.0, 2.0, 0.2])
    assert out.survival.consumption.kcal_eaten.tolist() == pytest.approx([2000.0])
    kept = run(day_of([ConditionState()], shelter=[0], carried=carried))
    # The bread spoils first (day 30), so it goes first: 2.5 breads = 2000 kcal, no can.
    assert kept.carried_taken.tolist() == pytest.approx([2.5, 0.0, 2.0, 0.2])


def test_medicine_carried_first_then_the_stash_in_id_order_while_it_lasts():
    # Three sick residents of one shelter (disease day 1 of 5) and a healthy one. Character 0
    # carries 2 doses and takes one of its own; the stash holds 1 dose: character 1 (the lower
    # index of those without) gets it, character 2 goes untreated (R12).
    sick = ConditionState(disease_day=1, disease_duration=5)
    carried = stock(4, [*fed(0), (0, MEDICINE, 0, 2), *fed(1), *fed(2), *fed(3)])
    stash = stock(1, [(0, MEDICINE, 0, 1), (0, FOOD, 500.0, 3)])
    out = run(
        day_of(
            [sick, sick, sick, ConditionState()], shelter=[0, 0, 0, 0], carried=carried, stash=stash
        )
    )
    assert out.treated.tolist() == [True, True, False, False]
    assert out.carried_taken[3] == pytest.approx(1.0)  # character 0's dose stack: 2 → 1
    assert out.stash_taken.tolist() == pytest.approx([1.0, 0.0])
    assert out.condition.disease_days_treated.tolist() == [1, 1, 0, 0]
    assert out.condition.disease_day.tolist() == [2, 2, 2, 0]
    assert out.status.tolist() == ["sick", "sick", "sick", "alive"]
    # R9 as the day leaves it: 5 points a disease day (day 2 now).
    assert out.penalty_total.tolist() == [10, 10, 10, 0]
    assert [m.as_dict() for m in out.penalty.of(1)] == [
        {"source": "disease", "label": "Enfermedad (2 días)", "points": 10, "params": {"days": 2}}
    ]


def test_a_hungry_character_in_the_open_draws_from_no_stash():
    # No shelter (−1): a stash in shelter 0 does not feed it; with no food it goes hungry
    # (R6), and the penalty shows 10 points of hunger.
    stash = stock(1, [(0, FOOD, 500.0, 50)])
    carried = stock(1, [(0, WATER, 1.0, 5), (0, TOILET_PAPER, 0, 1)])
    out = run(day_of([ConditionState(hunger_days=1)], shelter=[-1], carried=carried, stash=stash))
    assert out.stash_taken.tolist() == [0.0]
    assert out.condition.hunger_days.tolist() == [2]
    assert [m.as_dict() for m in out.penalty.of(0)] == [
        {"source": "hunger", "label": "Hambre (2 días)", "points": 20, "params": {"days": 2}}
    ]
    assert out.survival.hygiene.adequate.tolist() == [True]  # the open: it can go apart


def test_an_infection_on_its_last_day_raises_the_character():
    # R13: infection day 3 of 3 ends the tick dead and risen; status and cause say so.
    carried = stock(2, [*fed(0), *fed(1)])
    states = [ConditionState(infection_day=3, infection_duration=3), ConditionState()]
    out = run(day_of(states, shelter=[0, 0], carried=carried))
    assert out.dead.tolist() == [True, False]
    assert out.risen.tolist() == [True, False]
    assert out.cause.tolist() == ["infection", ""]
    assert out.status.tolist() == ["risen", "alive"]


def test_a_disease_that_ends_rolls_resistance_with_its_breakdown():
    # R12 on the last disease day (5 of 5), treated 2 days before and today (a carried dose):
    # threshold 50 + 5 × 3 treated days − R9 (5 points × 5 disease days) = 40.
    state = ConditionState(disease_day=5, disease_duration=5, disease_days_treated=2)
    carried = stock(1, [*fed(0), (0, MEDICINE, 0, 1)])
    out = run(day_of([state], shelter=[0], carried=carried), rules=DEFAULT_SETTINGS)
    rolls = out.resistance
    assert rolls.index.tolist() == [0]
    assert rolls.thresholds.tolist() == [40]
    assert {m.source: m.points for m in rolls.breakdowns[0]} == {"treated": -15, "disease": 25}
    assert len(rolls.dice[0]) == 1 and 1 <= rolls.dice[0][0] <= 100
    assert rolls.success.tolist() == [rolls.dice[0][0] <= 40]


def test_the_same_day_and_seed_give_the_same_outcome():
    carried = stock(3, [*fed(0), *fed(1), *fed(2)])
    day = day_of([ConditionState()] * 3, shelter=[0, 0, -1], carried=carried)
    a, b = run(day, rules=DEFAULT_SETTINGS, seed=9), run(day, rules=DEFAULT_SETTINGS, seed=9)
    assert a.health.onset_dice.tolist() == b.health.onset_dice.tolist()
    assert a.disease.rows == b.disease.rows and a.disease.index.tolist() == b.disease.index.tolist()
    # Autumn's base (R10) is rolled for each of the three healthy characters.
    assert all(1 <= d <= 100 for d in a.health.onset_dice.tolist())
    assert a.disease.of(0) and a.disease.of(0)[0].points > 0


KINDS = [FOOD, WATER, TOILET_PAPER, MEDICINE]
stack = st.tuples(st.integers(0, 3), st.sampled_from(KINDS), st.floats(1, 900), st.floats(0, 8))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(stack, max_size=10),
    st.lists(
        st.tuples(st.integers(0, 1), st.sampled_from(KINDS), st.floats(1, 900), st.floats(0, 8)),
        max_size=6,
    ),
    st.lists(st.tuples(st.integers(-1, 1), st.integers(0, 3)), min_size=4, max_size=4),
)
def test_stocks_never_go_negative_and_only_the_sick_are_treated(carried, stashed, people):
    # R15 ("never more than there is") and R12 (a dose only for the sick), for any stacks.
    states = [ConditionState(disease_day=d, disease_duration=5 if d else 0) for _s, d in people]
    day = day_of(
        states,
        shelter=[s for s, _d in people],
        carried=stock(4, carried),
        stash=stock(2, stashed),
        m=2,
    )
    out = run(day)
    assert np.all(out.carried_taken >= 0) and np.all(out.stash_taken >= 0)
    assert np.all(out.carried_taken <= day.carried.units + 1e-9)
    assert np.all(out.stash_taken <= day.stash.units + 1e-9)
    sick = np.array([d > 0 for _s, d in people])
    assert not np.any(out.treated & ~sick)


@pytest.mark.parametrize("seed", range(5))
def test_breakdown_memo_groups_rows_as_numpy_unique_does(seed):
    # The memo compares rows as one int64 code each; the groups, their order and each row's
    # group are np.unique(axis=0)'s (negative values and a constant column included).
    from reglas.day import _memo, _row_codes

    rng = np.random.default_rng(seed)
    keys = np.stack(
        [
            rng.integers(0, 4, 500),
            rng.integers(-3, 3, 500),
            np.full(500, 7),
            rng.integers(0, 2, 500),
        ],
        axis=1,
    )
    _u, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    table = _memo(keys, lambda i: (int(i),))
    assert [r[0] for r in table.rows] == first.tolist()
    assert table.index.tolist() == inverse.reshape(-1).tolist()
    codes = _row_codes(keys)
    assert codes is not None and np.array_equal(
        np.argsort(codes, kind="stable"), np.lexsort(keys.T[::-1])
    )
    assert _row_codes(np.array([[0, 2**62], [2**62, 0]])) is None  # too wide: np.unique's way
