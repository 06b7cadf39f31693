"""Disease onset and course, infection, and their deaths (RULES.md R10, R12, R13, R14)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reglas.characters import ConditionArrays, ConditionState, action_penalty
from reglas.core import Modifier, breakdown_total
from reglas.dice import roll_actions
from reglas.errors import RulesError
from reglas.health import (
    DiseaseInputArrays,
    DiseaseInputs,
    HealthDayArrays,
    advance_disease,
    advance_health,
    advance_infection,
    bite,
    cold_degrees,
    count_sick_housemates,
    cure_disease,
    disease_odds,
    disease_probability,
    resistance_modifiers,
    roll_medicine_cure,
    roll_onset,
    roll_resistance,
    start_disease,
)
from reglas.settings import RuleSettings


def rng(seed: int = 99) -> np.random.Generator:
    return np.random.default_rng(seed)


# Deterministic resistance: base 100 and no penalty always recovers; base 0 always dies.
ALWAYS_RECOVER = RuleSettings.from_dict({"resistance_base": 100, "disease_day_action_points": 0})
ALWAYS_DIE = RuleSettings.from_dict({"resistance_base": 0})


# --- R10 --------------------------------------------------------------------------------------


def test_rulebook_example_is_28_percent_with_its_breakdown() -> None:
    inputs = DiseaseInputs(
        season="invierno", sick_housemates=1, precipitation=True, min_temp_c=-3, hunger_days=1
    )
    p, breakdown = disease_probability(inputs)
    assert p == 28
    assert [(m.source, m.points) for m in breakdown] == [
        ("season", 5),
        ("sick_housemates", 5),
        ("precipitation", 5),
        ("cold", 3),
        ("hunger", 10),
    ]
    assert [m.label for m in breakdown] == [
        "Estación: invierno",
        "Enfermos en el refugio (1)",
        "Lluvia o nieve",
        "Frío (mínima −3 °C: 3 bajo cero)",
        "Hambre (1 día)",
    ]


@pytest.mark.parametrize(
    ("season", "base", "label"),
    [
        ("verano", 1, "Estación: verano"),
        ("primavera", 2, "Estación: primavera"),
        ("otoño", 2, "Estación: otoño"),
        ("winter", 5, "Estación: invierno"),
    ],
)
def test_season_base(season: str, base: int, label: str) -> None:
    assert disease_probability(DiseaseInputs(season=season)) == (
        base,
        (Modifier("season", label, base),),
    )


def test_every_r10_source() -> None:
    inputs = DiseaseInputs(
        season="verano",
        sick_housemates=2,
        unhygienic_days=3,
        dirty=True,
        extra_dirt=True,
        hunger_days=1,
        thirst_days=1,
        fatigue_days=2,
    )
    p, breakdown = disease_probability(inputs)
    assert {m.source: m.points for m in breakdown} == {
        "season": 1,
        "sick_housemates": 10,
        "unhygienic": 30,
        "dirt": 5,
        "extra_dirt": 10,
        "hunger": 10,
        "thirst": 10,
        "fatigue": 20,
    }
    assert p == 96


def test_probability_is_clamped_but_the_breakdown_is_not() -> None:
    p, breakdown = disease_probability(
        DiseaseInputs(season="invierno", hunger_days=4, thirst_days=2, unhygienic_days=5)
    )
    assert p == 100
    assert breakdown_total(breakdown) == 5 + 40 + 20 + 50


@pytest.mark.parametrize(
    ("temp", "degrees"), [(-3, 3), (-2.5, 2), (-0.5, 0), (0, 0), (4, 0), (None, 0), (-12, 12)]
)
def test_cold_counts_whole_degrees_below_zero(temp: float | None, degrees: int) -> None:
    assert cold_degrees(temp) == degrees


def test_bad_inputs() -> None:
    with pytest.raises(RulesError):
        DiseaseInputs(season="monzón")
    with pytest.raises(RulesError):
        DiseaseInputs(season="verano", sick_housemates=-1)
    with pytest.raises(RulesError):
        DiseaseInputs(season="verano", min_temp_c="frío")  # type: ignore[arg-type]


inputs_strategy = st.builds(
    DiseaseInputs,
    season=st.sampled_from(["invierno", "primavera", "verano", "otoño"]),
    sick_housemates=st.integers(0, 4),
    precipitation=st.booleans(),
    min_temp_c=st.one_of(st.none(), st.floats(-20, 30).map(lambda t: round(t, 1))),
    unhygienic_days=st.integers(0, 6),
    dirty=st.booleans(),
    extra_dirt=st.booleans(),
    hunger_days=st.integers(0, 4),
    thirst_days=st.integers(0, 2),
    fatigue_days=st.integers(0, 6),
)


@given(st.lists(inputs_strategy, min_size=1, max_size=12))
def test_vectorised_odds_equal_the_scalar_ones(sample: list[DiseaseInputs]) -> None:
    season = sample[0].season
    sample = [dataclasses.replace(x, season=season) for x in sample]
    condition = ConditionArrays.from_columns(
        len(sample),
        unhygienic_days=[x.unhygienic_days for x in sample],
        dirty=[x.dirty for x in sample],
        extra_dirt=[x.extra_dirt for x in sample],
        hunger_days=[x.hunger_days for x in sample],
        thirst_days=[x.thirst_days for x in sample],
        fatigue_days=[x.fatigue_days for x in sample],
    )
    arrays = DiseaseInputArrays.from_condition(
        condition,
        sick_housemates=[x.sick_housemates for x in sample],
        precipitation=[x.precipitation for x in sample],
        min_temp_c=[np.nan if x.min_temp_c is None else x.min_temp_c for x in sample],
    )
    odds = disease_odds(season, arrays)
    for i, x in enumerate(sample):
        p, breakdown = disease_probability(x)
        assert odds.p[i] == p
        assert odds.total[i] == breakdown_total(breakdown)
        assert odds.breakdown(i) == breakdown
        assert 0 <= odds.p[i] <= 100


def test_count_sick_housemates_excludes_oneself() -> None:
    shelter = np.array([0, 0, 0, 1, 1, -1])
    sick = np.array([True, True, False, True, False, True])
    assert count_sick_housemates(shelter, sick).tolist() == [1, 1, 2, 0, 1, 0]


# --- R10 onset roll, R12 duration -------------------------------------------------------------


def test_onset_roll_and_duration() -> None:
    sure = DiseaseInputs(season="invierno", hunger_days=4, thirst_days=2, unhygienic_days=5)
    onset = roll_onset(sure, rng())
    assert onset.roll.success
    assert onset.duration is not None
    assert 3 <= onset.duration <= 8
    assert onset.duration_roll is not None
    assert onset.duration == onset.duration_roll.dice[0].faces[0] + 2
    d = onset.as_dict()
    assert d["p"] == 100
    assert d["success"] is True


def test_onset_probability_is_exact() -> None:
    n = 200_000
    condition = ConditionArrays.from_columns(n, hunger_days=1)  # winter 5 + 10 = 15 %
    day = HealthDayArrays.of(n)
    out = advance_health(condition, day, "invierno", rng(5))
    assert out.odds.p[0] == 15
    rate = out.fell_sick.mean()
    assert abs(rate - 0.15) < 4 * math.sqrt(0.15 * 0.85 / n)
    assert out.onset_rolled.all()
    assert set(np.unique(out.duration[out.fell_sick]).tolist()) == set(range(3, 9))
    assert (out.duration[~out.fell_sick] == 0).all()
    assert (out.condition.disease_day[out.fell_sick] == 1).all()
    assert np.array_equal(out.duration[out.fell_sick], out.duration_dice[out.fell_sick, 0] + 2)


def test_start_and_cure() -> None:
    sick = start_disease(ConditionState(), 5)
    assert (sick.disease_day, sick.disease_duration) == (1, 5)
    with pytest.raises(RulesError):
        start_disease(sick, 4)
    with pytest.raises(RulesError):
        start_disease(ConditionState(), 0)
    assert cure_disease(sick) == ConditionState()


# --- R12 course -------------------------------------------------------------------------------


def test_disease_runs_its_days_then_rolls_resistance() -> None:
    state = start_disease(ConditionState(), 3)
    seen = []
    for _ in range(3):
        step = advance_disease(
            state,
            treated_today=False,
            hygiene_adequate_today=True,
            resistencia=0,
            rng=rng(),
            settings=ALWAYS_RECOVER,
        )
        seen.append(step.outcome)
        state = step.state
    assert seen == ["continues", "continues", "recovered"]
    assert state == ConditionState()
    assert step.resistance is not None
    assert step.resistance.threshold == 100


def test_failed_resistance_kills() -> None:
    state = ConditionState(disease_day=4, disease_duration=4)
    step = advance_disease(
        state,
        treated_today=True,
        hygiene_adequate_today=True,
        resistencia=3,
        rng=rng(),
        settings=ALWAYS_DIE,
    )
    assert step.outcome == "died"
    assert step.resistance is not None
    assert not step.resistance.success


def test_resistance_threshold_adds_treatment_and_hygiene_then_r9() -> None:
    # Day 4 of 4, 3 days treated, 1 unhygienic sick day, 1 hungry day:
    # 50 + 15 − 5 − (10 hunger + 20 disease days) = 30.
    state = ConditionState(
        hunger_days=1,
        disease_day=4,
        disease_duration=4,
        disease_days_treated=3,
        disease_unhygienic_days=1,
    )
    roll = roll_resistance(state, 1, rng())
    assert roll.base_threshold == 50
    assert roll.threshold == 30
    assert [(m.source, m.points) for m in roll.penalty] == [
        ("treated", -15),
        ("unhygienic_sick", 5),
        ("hunger", 10),
        ("disease", 20),
    ]
    assert len(roll.dice) == 2
    assert resistance_modifiers(0, 0) == ()


def test_each_sick_day_adds_5_action_points() -> None:
    assert breakdown_total(action_penalty(ConditionState(disease_day=1, disease_duration=5))) == 5
    assert breakdown_total(action_penalty(ConditionState(disease_day=3, disease_duration=5))) == 15


def test_medicine_cure_roll() -> None:
    roll = roll_medicine_cure(2, rng())
    assert roll.base_threshold == 30
    assert len(roll.dice) == 3
    with pytest.raises(RulesError, match="Medicina"):
        roll_medicine_cure(0, rng())
    allowed = RuleSettings.from_dict({"medicine_requires_trait": False})
    assert len(roll_medicine_cure(0, rng(), settings=allowed).dice) == 1


def test_medicine_cure_success_rate() -> None:
    hits = sum(roll_medicine_cure(1, rng(s)).success for s in range(4000))
    p = 1 - 0.7**2
    assert abs(hits / 4000 - p) < 4 * math.sqrt(p * (1 - p) / 4000)


# --- R13 infection ----------------------------------------------------------------------------


def test_bite_without_amputation_infects_for_1d6_plus_2_days() -> None:
    out = bite(ConditionState(), rng())
    assert out.infected
    assert out.amputation is None
    assert out.duration_roll is not None
    assert 3 <= out.state.infection_duration <= 8
    assert out.state.infection_day == 1


def test_successful_amputation_removes_the_infection() -> None:
    sure = RuleSettings.from_dict({"amputation_threshold": 100})
    out = bite(ConditionState(), rng(), medicina=1, settings=sure)
    assert out.amputated
    assert not out.infected
    assert out.state == ConditionState()
    assert out.amputation is not None
    assert out.amputation.base_threshold == 100


def test_failed_amputation_infects() -> None:
    never = RuleSettings.from_dict({"amputation_threshold": 0})
    out = bite(ConditionState(), rng(), medicina=2, settings=never)
    assert out.amputation is not None
    assert out.amputation.base_threshold == 0
    assert not out.amputated
    assert out.infected


def test_amputation_default_threshold_is_20() -> None:
    out = bite(ConditionState(), rng(), medicina=1)
    assert out.amputation is not None
    assert out.amputation.threshold == 20


def test_an_infected_character_is_not_infected_again() -> None:
    infected = ConditionState(infection_day=2, infection_duration=5)
    g = rng()
    before = g.bit_generator.state
    out = bite(infected, g, medicina=3)
    assert out.state == infected
    assert g.bit_generator.state == before


def test_infection_ends_in_death_and_rising() -> None:
    state = ConditionState(infection_day=1, infection_duration=3)
    deaths = []
    for _ in range(3):
        state, died = advance_infection(state)
        deaths.append(died)
    assert deaths == [False, False, True]
    assert advance_infection(ConditionState()) == (ConditionState(), False)


# --- the vectorised tick ----------------------------------------------------------------------


def test_advance_health_course_onset_and_infection() -> None:
    states = [
        ConditionState(),  # healthy: rolls onset
        ConditionState(disease_day=2, disease_duration=4),  # continues
        ConditionState(disease_day=4, disease_duration=4, disease_days_treated=1),  # resolves
        ConditionState(infection_day=3, infection_duration=3),  # dies and rises
        ConditionState(infection_day=1, infection_duration=3),  # next infected day
        ConditionState(disease_day=1, disease_duration=3),  # not alive: untouched
    ]
    condition = ConditionArrays.from_states(states)
    day = HealthDayArrays.of(
        6,
        alive=[True, True, True, True, True, False],
        treated_today=[False, True, True, False, False, True],
        hygiene_adequate=[True, False, True, True, True, True],
    )
    out = advance_health(condition, day, "verano", rng(), ALWAYS_RECOVER)
    # The infected are not healthy (R13: infection counts as a disease): no onset roll.
    assert out.onset_rolled.tolist() == [True, False, False, False, False, False]
    assert out.condition.state(1) == ConditionState(
        disease_day=3, disease_duration=4, disease_days_treated=1, disease_unhygienic_days=1
    )
    assert out.resolved.tolist() == [False, False, True, False, False, False]
    assert out.resistance_index.tolist() == [2]
    assert out.recovered.tolist() == [False, False, True, False, False, False]
    assert out.condition.state(2).disease_day == 0
    assert out.died_of_infection.tolist() == [False, False, False, True, False, False]
    assert out.risen.tolist() == out.died_of_infection.tolist()
    assert out.death_cause.tolist() == ["", "", "", "infection", "", ""]
    assert out.condition.state(4).infection_day == 2
    assert out.condition.state(5) == states[5]
    # Resistance: 50 → 100 base, treated 2 days −10, no disease-day points: always.
    assert out.resistance.thresholds.tolist() == [100]


def test_advance_health_resistance_failure_kills_with_cause_disease() -> None:
    condition = ConditionArrays.from_states([ConditionState(disease_day=3, disease_duration=3)])
    out = advance_health(condition, HealthDayArrays.of(1), "invierno", rng(), ALWAYS_DIE)
    assert out.died_of_disease.tolist() == [True]
    assert out.death_cause.tolist() == ["disease"]
    assert not out.onset_rolled.any()


sick_states = st.builds(
    ConditionState,
    hunger_days=st.integers(0, 3),
    thirst_days=st.integers(0, 2),
    wet_last_night=st.booleans(),
    dirty=st.booleans(),
    disease_day=st.integers(1, 8),
    disease_duration=st.integers(1, 8),
    disease_days_treated=st.integers(0, 4),
    disease_unhygienic_days=st.integers(0, 4),
)


@given(st.lists(st.tuples(sick_states, st.booleans(), st.booleans()), min_size=1, max_size=10))
def test_vectorised_course_equals_the_scalar_one(
    rows: list[tuple[ConditionState, bool, bool]],
) -> None:
    # Make every disease end, and compare thresholds and deterministic outcomes.
    states = [
        dataclasses.replace(s, disease_day=max(s.disease_day, s.disease_duration))
        for s, _, _ in rows
    ]
    condition = ConditionArrays.from_states(states)
    day = HealthDayArrays.of(
        len(rows),
        treated_today=[t for _, t, _ in rows],
        hygiene_adequate=[h for _, _, h in rows],
        resistencia=2,
    )
    out = advance_health(condition, day, "verano", rng(), ALWAYS_DIE)
    assert out.resolved.all()
    for k, i in enumerate(out.resistance_index.tolist()):
        step = advance_disease(
            states[i],
            treated_today=rows[i][1],
            hygiene_adequate_today=rows[i][2],
            resistencia=2,
            rng=rng(),
            settings=ALWAYS_DIE,
        )
        assert step.resistance is not None
        assert out.resistance.thresholds[k] == step.resistance.threshold
        assert out.resistance_penalty[k] == step.resistance.penalty_points
        assert step.outcome == "died"
        assert out.died_of_disease[i]


def test_health_day_arrays_validate() -> None:
    with pytest.raises(RulesError):
        HealthDayArrays.of(2, resistencia=[-1, 0])
    with pytest.raises(RulesError):
        HealthDayArrays.of(2, alive=[True])
    with pytest.raises(RulesError):
        advance_health(ConditionArrays.from_columns(2), HealthDayArrays.of(3), "verano", rng())


def test_stored_rolls_drawn_from_their_own_keys_do_not_depend_on_who_else_rolls() -> None:
    from reglas.core import make_rng

    def key_rng(i: int) -> np.random.Generator:
        return make_rng(7, [30, 22, i, 0])

    # Character 0 ends its disease (a resistance roll); character 1 falls sick (a duration:
    # 20 days of hunger put its onset chance at 100 %).
    states = [ConditionState(disease_day=3, disease_duration=3), ConditionState(hunger_days=20)]
    condition = ConditionArrays.from_states(states)
    day = HealthDayArrays.of(2, resistencia=2)
    out = advance_health(condition, day, "invierno", rng(1), ALWAYS_DIE, roll_rng=key_rng)
    alone = roll_actions([2], [out.resistance.thresholds[0]], key_rng(0))
    assert out.resistance.dice_of(0) == alone.dice_of(0)
    # A different step generator changes the onset dice, never the stored rolls' dice.
    other = advance_health(condition, day, "invierno", rng(2), ALWAYS_DIE, roll_rng=key_rng)
    assert other.resistance.dice_of(0) == out.resistance.dice_of(0)
    assert out.odds.p[1] == 100 and out.fell_sick[1] and other.fell_sick[1]
    assert out.onset_dice[1] != other.onset_dice[1]  # the step generators differ…
    assert out.duration_dice[1].tolist() == other.duration_dice[1].tolist()  # …not the key's
    assert out.duration[1] == other.duration[1] == out.duration_dice[1, 0] + 2
