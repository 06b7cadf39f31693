"""Needs, automatic consumption, hygiene and dirt (RULES.md R6, R7, R8, R15)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reglas.characters import ConditionArrays, ConditionState
from reglas.errors import RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.survival import (
    DayArrays,
    DayRecord,
    FoodItem,
    HygieneArrays,
    NeedsArrays,
    Supplies,
    advance_hygiene,
    advance_needs,
    advance_survival,
    consume,
    live_day,
    take_food,
)

# Enough water, sleep and a proper latrine, so only what a test changes matters.
FED = DayRecord(kcal_carried=2000, water_carried_l=2, toilet_paper_rolls=1, has_cesspit=True)


def day(**changes: Any) -> DayRecord:
    """The FED day with some facts changed."""
    return dataclasses.replace(FED, **changes)


# --- R6 needs ---------------------------------------------------------------------------------


def test_1999_kcal_is_a_hungry_day_and_2000_is_not() -> None:
    short = live_day(ConditionState(), day(kcal_carried=1999))
    assert short.kcal_eaten == 1999
    assert short.state.hunger_days == 1
    fed = live_day(ConditionState(hunger_days=3), day(kcal_carried=2000))
    assert fed.state.hunger_days == 0


def test_only_what_is_needed_is_eaten_and_drunk() -> None:
    out = live_day(ConditionState(), day(kcal_carried=5000, water_carried_l=10))
    assert out.kcal_eaten == 2000
    assert out.water_drunk_l == 2
    assert out.kcal_left == 3000
    assert out.water_left_l == 8


@pytest.mark.parametrize(
    ("field", "without", "record", "death_day", "cause"),
    [
        ("hunger_days", "days_without_food", {"kcal_carried": 0}, 5, "hunger"),
        ("thirst_days", "days_without_water", {"water_carried_l": 0.4}, 3, "thirst"),
        ("fatigue_days", "days_without_sleep", {"sleep_h": 1}, 7, "fatigue"),
    ],
)
def test_the_death_day_kills_and_the_one_before_does_not(
    field: str, without: str, record: dict[str, Any], death_day: int, cause: str
) -> None:
    # RULES.md R6 (amended): under a quarter of the need (500 kcal, 0.5 L, 1.5 h) is a day
    # without; the tick that brings that counter to 5 / 3 / 7 kills.
    state = ConditionState()
    for n in range(1, death_day + 1):
        out = live_day(state, day(**record))
        assert getattr(out.state, field) == n
        assert getattr(out.state, without) == n
        assert out.dead is (n == death_day)
        state = out.state
    assert out.death_cause == cause


@pytest.mark.parametrize(
    ("field", "without", "record", "days"),
    [
        ("hunger_days", "days_without_food", {"kcal_carried": 1500}, 5),
        ("thirst_days", "days_without_water", {"water_carried_l": 1.5}, 3),
        ("fatigue_days", "days_without_sleep", {"sleep_h": 5.5}, 7),
    ],
)
def test_a_short_day_is_hungry_but_not_a_day_without(
    field: str, without: str, record: dict[str, Any], days: int
) -> None:
    # RULES.md R6: "a character living on 1500 kcal a day is hungry every day (penalty grows)
    # but does not starve": ten such days, the short counter at 10, no death.
    state = ConditionState()
    for _ in range(2 * days):
        out = live_day(state, day(**record))
        assert not out.dead
        state = out.state
    assert getattr(state, field) == 2 * days
    assert getattr(state, without) == 0


def test_500_kcal_is_not_a_day_without_and_499_is() -> None:
    # deprivation_fraction 0.25 of 2000 kcal = 500: 499 counts, 500 does not (both are short).
    out = advance_needs(NeedsArrays.of([499, 500], [2, 2], days_without_food=[4, 4]))
    assert out.hunger_days.tolist() == [1, 1]
    assert out.days_without_food.tolist() == [5, 0]
    assert out.dead.tolist() == [True, False]
    assert out.death_cause.tolist() == ["hunger", ""]


def test_the_deprivation_fraction_is_a_setting() -> None:
    settings = RuleSettings.from_dict({"deprivation_fraction": 0.5})
    out = advance_needs(NeedsArrays.of([999, 1000], [0.9, 1.0]), settings)
    assert out.days_without_food.tolist() == [1, 0]
    assert out.days_without_water.tolist() == [1, 0]
    with pytest.raises(RulesError) as exc:
        RuleSettings.from_dict({"deprivation_fraction": 1.5})
    assert exc.value.code == "setting_fraction_over"


def test_a_day_that_meets_the_need_resets_the_counter() -> None:
    out = live_day(ConditionState(thirst_days=2, fatigue_days=6), day(sleep_h=6))
    assert out.state.thirst_days == 0
    assert out.state.fatigue_days == 0
    assert not out.dead


def test_sleep_defaults_to_8_hours() -> None:
    out = live_day(ConditionState(fatigue_days=2), day())
    assert out.sleep_h == 8
    assert out.state.fatigue_days == 0


def test_thirst_is_the_cause_when_two_counters_kill_together() -> None:
    out = live_day(
        ConditionState(hunger_days=4, thirst_days=2, days_without_food=4, days_without_water=2),
        day(kcal_carried=0, water_carried_l=0),
    )
    assert out.dead
    assert out.death_cause == "thirst"


def test_needs_with_other_settings() -> None:
    settings = RuleSettings.from_dict({"daily_kcal": 1500, "hunger_death_days": 2})
    needs = NeedsArrays.of(
        [1500, 1499, 374], [2, 2, 2], hunger_days=[1, 1, 1], days_without_food=[1, 1, 1]
    )
    out = advance_needs(needs, settings)
    assert out.hunger_days.tolist() == [0, 2, 2]
    # A quarter of 1500 kcal is 375: only the third day is a day without, and it is the 2nd.
    assert out.days_without_food.tolist() == [0, 0, 2]
    assert out.dead.tolist() == [False, False, True]


def test_needs_reject_negative_amounts() -> None:
    with pytest.raises(RulesError):
        NeedsArrays.of([-1], [2])
    with pytest.raises(RulesError):
        NeedsArrays.of([1], [2], hunger_days=[-1])


# --- R15 consumption --------------------------------------------------------------------------


def test_carried_first_then_the_shelter_stash() -> None:
    carried = Supplies.of([1500, 2500, 0], [0.5, 3, 0], [0, 0, 0])
    stash = Supplies.of([1000], [10], [5])
    used = consume(carried, shelter=[0, 0, -1], stash=stash)
    assert used.kcal_from_carried.tolist() == [1500, 2000, 0]
    assert used.kcal_from_stash.tolist() == [500, 0, 0]
    assert used.water_drunk_l.tolist() == [2, 2, 0]
    assert used.stash_after.kcal.tolist() == [500]
    assert used.stash_after.water_l.tolist() == [8.5]
    assert used.paper_used_rolls.tolist() == pytest.approx([0.2, 0.2, 0])


def test_a_short_stash_is_shared_in_proportion_to_need() -> None:
    carried = Supplies.of([0, 1000], [2, 2])
    used = consume(carried, shelter=[0, 0], stash=Supplies.of([1500]))
    # Needs 2000 and 1000, stash 1500: each gets half of what it still needs.
    assert used.kcal_from_stash.tolist() == [1000, 500]
    assert used.stash_after.kcal.tolist() == [0]


def test_the_stash_can_be_forbidden() -> None:
    settings = RuleSettings.from_dict({"allow_shelter_stash": False})
    stash = Supplies.of([5000], [5], [1])
    used = consume(Supplies.of([0], [0]), settings, shelter=[0], stash=stash)
    assert used.kcal_eaten.tolist() == [0]
    assert used.stash_after.kcal.tolist() == [5000]


def test_shelter_index_out_of_range() -> None:
    with pytest.raises(RulesError):
        consume(Supplies.of([0]), shelter=[3], stash=Supplies.of([1]))


amounts = st.floats(min_value=0, max_value=10_000, allow_nan=False)


@given(
    st.lists(st.tuples(amounts, amounts, amounts, st.integers(-1, 2)), min_size=1, max_size=12),
    st.lists(st.tuples(amounts, amounts, amounts), min_size=3, max_size=3),
)
def test_supplies_never_go_negative_and_nothing_is_created(
    people: list[tuple[float, float, float, int]], shelters: list[tuple[float, float, float]]
) -> None:
    carried = Supplies.of(*(np.array(col) for col in list(zip(*people, strict=True))[:3]))
    shelter = np.array([p[3] for p in people])
    stash = Supplies.of(*(np.array(col) for col in zip(*shelters, strict=True)))
    used = consume(carried, shelter=shelter, stash=stash)
    for holder in (used.carried_after, used.stash_after, used.stash_taken):
        for arr in (holder.kcal, holder.water_l, holder.toilet_paper_rolls):
            assert (arr >= 0).all()
    assert (used.kcal_eaten <= DEFAULT_SETTINGS.daily_kcal + 1e-6).all()
    assert (used.water_drunk_l <= DEFAULT_SETTINGS.daily_water_l + 1e-9).all()
    # What was eaten came from somewhere: totals balance.
    assert used.kcal_eaten.sum() == pytest.approx(
        carried.kcal.sum() - used.carried_after.kcal.sum() + used.stash_taken.kcal.sum(), abs=1e-6
    )
    assert used.stash_after.kcal + used.stash_taken.kcal == pytest.approx(stash.kcal)


def test_take_food_soonest_spoiling_first() -> None:
    items = [
        FoodItem("lata", 400, 10, None),
        FoodItem("pan", 250, 2, 5),
        FoodItem("leche", 600, 1, 4),  # last good day: today
        FoodItem("fruta", 100, 5, 1),  # spoiled on day 4
    ]
    taken = take_food(items, 2000, today=4)
    assert [(t.item_id, t.units) for t in taken] == [("leche", 1), ("pan", 2), ("lata", 2.25)]
    assert sum(t.kcal for t in taken) == pytest.approx(2000)
    whole = take_food(items, 2000, today=4, whole_units=True)
    assert whole[-1].units == 3


def test_take_food_takes_what_there_is() -> None:
    taken = take_food([FoodItem(1, 300, 2)], 2000)
    assert [(t.item_id, t.units, t.kcal) for t in taken] == [(1, 2, 600)]
    assert take_food([FoodItem(1, 300, 2)], 0) == ()
    with pytest.raises(RulesError):
        take_food([FoodItem(1, 300, -2)], 100)


@given(
    st.lists(
        st.tuples(
            st.floats(1, 1000),
            st.floats(0, 20),
            st.one_of(st.none(), st.integers(0, 10)),
        ),
        max_size=8,
    ),
    st.floats(0, 5000),
)
def test_take_food_never_takes_more_than_there_is(
    rows: list[tuple[float, float, int | None]], need: float
) -> None:
    items = [FoodItem(i, k, u, s) for i, (k, u, s) in enumerate(rows)]
    taken = take_food(items, need)
    by_id = {t.item_id: t for t in taken}
    for item in items:
        if item.item_id in by_id:
            assert 0 <= by_id[item.item_id].units <= item.units + 1e-9
    available = sum(k * u for k, u, _ in rows)
    assert sum(t.kcal for t in taken) == pytest.approx(min(need, available), abs=1e-6)


# --- R7 hygiene, R8 dirt ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("paper", "substitute", "distance", "cesspit", "adequate"),
    [
        (1.0, False, 20.0, False, True),
        (1.0, False, 19.9, False, False),
        (0.0, True, 25.0, False, True),
        (0.0, False, 25.0, False, False),
        (0.0, True, None, True, True),
        (1.0, False, None, False, False),
    ],
)
def test_adequate_hygiene_needs_paper_and_a_place(
    paper: float, substitute: bool, distance: float | None, cesspit: bool, adequate: bool
) -> None:
    record = DayRecord(
        kcal_carried=2000,
        water_carried_l=2,
        toilet_paper_rolls=paper,
        has_paper_substitute=substitute,
        toilet_distance_m=distance,
        has_cesspit=cesspit,
    )
    out = live_day(ConditionState(unhygienic_days=2), record)
    assert out.hygiene_adequate is adequate
    assert out.state.unhygienic_days == (0 if adequate else 3)


def test_toilet_paper_is_used_at_0_2_rolls_a_day() -> None:
    out = live_day(ConditionState(), day(toilet_paper_rolls=1))
    assert out.paper_used_rolls == pytest.approx(0.2)
    assert out.toilet_paper_left == pytest.approx(0.8)


def test_paper_in_the_shelter_stash_counts() -> None:
    condition = ConditionArrays.from_states([ConditionState(), ConditionState()])
    arrays = DayArrays.of(
        Supplies.of([2000, 2000], [2, 2], [0, 0]), shelter=[0, -1], has_cesspit=True
    )
    out = advance_survival(condition, arrays, stash=Supplies.of([0], [0], [1]))
    assert out.hygiene.adequate.tolist() == [True, False]
    assert out.stash_after.toilet_paper_rolls.tolist() == pytest.approx([0.8])


def test_with_a_zero_paper_rate_having_paper_is_still_enough() -> None:
    zero = RuleSettings.from_dict({"toilet_paper_rolls_per_day": 0})
    out = live_day(ConditionState(), day(toilet_paper_rolls=1), zero)
    assert out.hygiene_adequate
    assert out.paper_used_rolls == 0


def test_could_not_urinate_wets_and_dirties_for_the_next_day_only() -> None:
    wet = live_day(ConditionState(), day(could_not_urinate=True))
    assert wet.state.wet_last_night
    assert wet.state.dirty
    assert not wet.state.extra_dirt
    after = live_day(wet.state, day())
    assert not after.state.wet_last_night
    assert after.state.dirty  # until a wash


def test_seven_days_without_defecating_soils_with_extra_dirt() -> None:
    state = ConditionState()
    for n in range(1, 8):
        out = live_day(state, day(could_not_defecate=True))
        state = out.state
        assert state.soiled_last_night is (n == 7)
    assert state.dirty
    assert state.extra_dirt
    assert state.days_without_defecating == 0
    assert not live_day(state, day()).state.soiled_last_night


def test_a_normal_day_resets_the_defecation_count() -> None:
    out = live_day(ConditionState(days_without_defecating=6), day())
    assert out.state.days_without_defecating == 0


def test_running_water_does_not_wash_without_a_marked_shower_by_default() -> None:
    # RULES.md R8 (amended): a shower is marked; auto_shower (off by default) makes it daily.
    out = live_day(ConditionState(dirty=True), day(running_water=True))
    assert not out.washed
    assert out.state.dirty
    auto = RuleSettings.from_dict({"auto_shower": True})
    assert live_day(ConditionState(dirty=True), day(running_water=True), auto).washed


def test_running_water_washes_dirt_away() -> None:
    out = live_day(
        ConditionState(dirty=True, extra_dirt=True), day(running_water=True, bath_requested=True)
    )
    assert out.washed
    assert not out.state.dirty
    assert not out.state.extra_dirt
    assert out.bath_water_used_l == 0


def test_a_bath_with_stored_water_needs_20_litres_after_drinking() -> None:
    dirty = ConditionState(dirty=True)
    short = live_day(dirty, day(water_carried_l=21, bath_requested=True))
    assert not short.washed  # 21 − 2 drunk = 19 L
    assert short.state.dirty
    bath = live_day(dirty, day(water_carried_l=22, bath_requested=True))
    assert bath.washed
    assert not bath.state.dirty
    assert bath.bath_water_used_l == 20
    assert bath.water_left_l == 0


def test_without_water_dirt_stays() -> None:
    out = live_day(ConditionState(dirty=True), day())
    assert out.state.dirty


def test_a_wash_happens_before_the_nights_accident() -> None:
    out = live_day(ConditionState(), day(running_water=True, could_not_urinate=True))
    assert out.state.dirty


def test_hygiene_arrays_defaults_and_unknown_columns() -> None:
    h = HygieneArrays.of(2, has_cesspit=True, has_paper_substitute=[True, False])
    out = advance_hygiene(h)
    assert out.adequate.tolist() == [True, False]
    with pytest.raises(RulesError):
        HygieneArrays.of(2, letrina=True)


# --- vectorised vs scalar ---------------------------------------------------------------------

records = st.builds(
    DayRecord,
    kcal_carried=st.sampled_from([0.0, 1999.0, 2000.0, 3500.0]),
    water_carried_l=st.sampled_from([0.0, 1.0, 2.0, 25.0]),
    toilet_paper_rolls=st.sampled_from([0.0, 0.1, 3.0]),
    sleep_h=st.sampled_from([None, 0.0, 5.9, 6.0]),
    has_paper_substitute=st.booleans(),
    toilet_distance_m=st.sampled_from([None, 5.0, 20.0]),
    has_cesspit=st.booleans(),
    could_not_urinate=st.booleans(),
    could_not_defecate=st.booleans(),
    running_water=st.booleans(),
    bath_requested=st.booleans(),
)
states = st.builds(
    ConditionState,
    hunger_days=st.integers(0, 4),
    thirst_days=st.integers(0, 2),
    fatigue_days=st.integers(0, 6),
    unhygienic_days=st.integers(0, 5),
    days_without_defecating=st.integers(0, 6),
    dirty=st.booleans(),
    extra_dirt=st.booleans(),
    disease_day=st.integers(0, 3),
)


@given(st.lists(st.tuples(states, records), min_size=1, max_size=15))
def test_vectorised_survival_equals_the_scalar_one(
    pairs: list[tuple[ConditionState, DayRecord]],
) -> None:
    condition = ConditionArrays.from_states([s for s, _ in pairs])
    recs = [r for _, r in pairs]
    arrays = DayArrays.of(
        Supplies.of(
            [r.kcal_carried for r in recs],
            [r.water_carried_l for r in recs],
            [r.toilet_paper_rolls for r in recs],
        ),
        sleep_h=[np.nan if r.sleep_h is None else r.sleep_h for r in recs],
        has_paper_substitute=[r.has_paper_substitute for r in recs],
        toilet_distance_m=[
            np.nan if r.toilet_distance_m is None else r.toilet_distance_m for r in recs
        ],
        has_cesspit=[r.has_cesspit for r in recs],
        could_not_urinate=[r.could_not_urinate for r in recs],
        could_not_defecate=[r.could_not_defecate for r in recs],
        running_water=[r.running_water for r in recs],
        bath_requested=[r.bath_requested for r in recs],
    )
    out = advance_survival(condition, arrays)
    for i, (state, record) in enumerate(pairs):
        one = live_day(state, record)
        assert out.condition.state(i) == one.state
        assert bool(out.dead[i]) == one.dead
        assert (str(out.death_cause[i]) or None) == one.death_cause
        assert out.consumption.kcal_eaten[i] == one.kcal_eaten
        assert out.carried_after.water_l[i] == one.water_left_l
        # And the rules, written out plainly.
        assert one.state.hunger_days == (state.hunger_days + 1 if record.kcal_carried < 2000 else 0)
        assert one.state.disease_day == state.disease_day  # health is not survival's job


# --- R7 (amended): no relief in inadequate conditions unless marked ---------------------------


def test_inadequate_conditions_without_a_mark_hold_it_in_and_wet_that_night() -> None:
    # No paper and no substitute: inadequate. The character does not relieve itself in an
    # inappropriate place on its own: the day counts as not urinating (wets that night, dirty)
    # and towards the days without defecating.
    out = live_day(ConditionState(), day(toilet_paper_rolls=0))
    assert not out.hygiene_adequate
    assert out.state.unhygienic_days == 1
    assert out.state.wet_last_night
    assert out.state.dirty
    assert out.state.days_without_defecating == 1


def test_the_relieved_inappropriately_mark_avoids_the_accident_but_not_the_unhygienic_day() -> None:
    out = live_day(ConditionState(), day(toilet_paper_rolls=0, relieved_inappropriately=True))
    assert out.state.unhygienic_days == 1
    assert not out.state.wet_last_night
    assert not out.state.dirty
    assert out.state.days_without_defecating == 0


def test_auto_relief_inadequate_makes_characters_relieve_themselves_everywhere() -> None:
    settings = RuleSettings.from_dict({"auto_relief_inadequate": True})
    out = live_day(ConditionState(), day(toilet_paper_rolls=0), settings)
    assert out.state.unhygienic_days == 1
    assert not out.state.wet_last_night
    assert out.state.days_without_defecating == 0


def test_seven_unmarked_inadequate_days_soil_the_character_on_the_seventh_night() -> None:
    state = ConditionState()
    for n in range(1, 8):
        out = live_day(state, day(toilet_paper_rolls=0))
        assert out.state.soiled_last_night is (n == 7)
        state = out.state
    assert state.extra_dirt
    assert state.days_without_defecating == 0


def test_adequate_conditions_relieve_without_a_mark() -> None:
    out = live_day(ConditionState(), day())
    assert out.hygiene_adequate
    assert not out.state.wet_last_night
    assert out.state.days_without_defecating == 0
