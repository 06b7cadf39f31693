"""Traits, creation points, the condition state and the R9 action penalty (RULES.md R5, R9)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reglas.characters import (
    DEFAULT_TRAITS,
    ConditionArrays,
    ConditionState,
    action_penalty,
    action_penalty_parts,
    action_penalty_points,
    complete_allocation,
    is_dirt_sensitive,
    validate_allocation,
)
from reglas.core import Modifier, breakdown_total
from reglas.errors import RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings

# --- R5 -------------------------------------------------------------------------------------


def test_default_traits_in_sheet_order() -> None:
    assert [(t.slug, t.name) for t in DEFAULT_TRAITS] == [
        ("fuerza", "Fuerza"),
        ("agilidad", "Agilidad"),
        ("resistencia", "Resistencia"),
        ("percepcion", "Percepción"),
        ("sigilo", "Sigilo"),
        ("pelea", "Pelea"),
        ("armas_cac", "Armas cuerpo a cuerpo"),
        ("armas_distancia", "Armas a distancia"),
        ("medicina", "Medicina"),
        ("supervivencia", "Supervivencia"),
    ]


def test_a_valid_sheet_of_exactly_10_points() -> None:
    allocation = {"fuerza": 2, "agilidad": 2, "resistencia": 3, "medicina": 3}
    assert validate_allocation(allocation, submitting=True) == []
    assert complete_allocation(allocation)["sigilo"] == 0
    assert list(complete_allocation(allocation)) == [t.slug for t in DEFAULT_TRAITS]


@pytest.mark.parametrize(
    ("allocation", "submitting", "codes"),
    [
        ({"fuerza": 3}, False, []),  # a draft may have fewer points
        ({"fuerza": 3}, True, ["total_mismatch"]),
        ({"fuerza": 11}, False, ["over_cap", "total_over"]),
        ({"fuerza": 6, "pelea": 5}, False, ["total_over"]),
        ({"fuerza": 6, "pelea": 5}, True, ["total_mismatch"]),
        ({"fuerza": -1, "pelea": 10}, True, ["negative"]),
        ({"fuerza": 1.5}, False, ["not_int"]),
        ({"fuerza": True}, False, ["not_int"]),
        ({"fuerza": "2"}, False, ["not_int"]),
        ({"carisma": 2}, False, ["unknown_trait"]),
        ({}, True, ["total_mismatch"]),
    ],
)
def test_allocation_problems(
    allocation: dict[str, object], submitting: bool, codes: list[str]
) -> None:
    problems = validate_allocation(allocation, submitting=submitting)
    assert [p.code for p in problems] == codes
    for p in problems:
        assert p.message.endswith(".")


def test_allocation_settings_and_raise() -> None:
    assert validate_allocation({"fuerza": 5}, creation_points=5, trait_cap=5, submitting=True) == []
    with pytest.raises(RulesError, match="máximo por rasgo es 4"):
        validate_allocation({"fuerza": 5}, creation_points=5, trait_cap=4, raise_errors=True)


def test_allocation_with_a_custom_trait_list() -> None:
    assert validate_allocation({"carisma": 10}, ["carisma"], submitting=True) == []


# --- condition state --------------------------------------------------------------------------


def test_condition_state_validates() -> None:
    with pytest.raises(RulesError):
        ConditionState(hunger_days=-1)
    with pytest.raises(RulesError):
        ConditionState(dirty=1)  # type: ignore[arg-type]
    with pytest.raises(RulesError):
        ConditionState(thirst_days=1.0)  # type: ignore[arg-type]
    state = ConditionState.from_dict({"hunger_days": 2, "dirty": True})
    assert state.as_dict()["hunger_days"] == 2
    assert not state.sick
    with pytest.raises(RulesError):
        ConditionState.from_dict({"hambre": 1})


def test_condition_arrays_round_trip() -> None:
    states = [ConditionState(), ConditionState(hunger_days=2, dirty=True, disease_day=1)]
    arrays = ConditionArrays.from_states(states)
    assert len(arrays) == 2
    assert arrays.states() == states
    built = ConditionArrays.from_columns(
        2, hunger_days=[0, 2], dirty=[False, True], disease_day=[0, 1]
    )
    assert built.states() == states
    with pytest.raises(RulesError):
        ConditionArrays.from_columns(2, hunger_days=[1, 2, 3])
    with pytest.raises(RulesError):
        ConditionArrays.from_columns(2, hambre=[1, 2])


# --- R9 -------------------------------------------------------------------------------------


def test_two_hungry_days_and_one_thirsty_day_are_30_points() -> None:
    state = ConditionState(hunger_days=2, thirst_days=1)
    assert action_penalty(state) == (
        Modifier("hunger", "Hambre (2 días)", 20),
        Modifier("thirst", "Sed (1 día)", 10),
    )


def test_dirt_counts_only_on_dirt_sensitive_rolls() -> None:
    dirty = ConditionState(dirty=True)
    assert action_penalty(dirty, dirt_sensitive=False) == ()
    assert action_penalty(dirty, dirt_sensitive=True) == (Modifier("dirt", "Suciedad", 5),)
    assert is_dirt_sensitive("sigilo")
    assert not is_dirt_sensitive("fuerza")


def test_wet_soiled_disease_and_fatigue() -> None:
    state = ConditionState(
        fatigue_days=3, wet_last_night=True, soiled_last_night=True, disease_day=2
    )
    assert {m.source: m.points for m in action_penalty(state)} == {
        "fatigue": 30,
        "disease": 10,
        "wet": 1,
        "soiled": 10,
    }


def test_healthy_character_has_no_penalty() -> None:
    assert action_penalty(ConditionState()) == ()


def test_infection_days_cost_five_points_each_like_a_disease_and_are_a_setting() -> None:
    # RULES.md R9/R13 (amended): infection "no es más que otra enfermedad": day 3 → 15 points.
    state = ConditionState(infection_day=3, infection_duration=5)
    assert action_penalty(state) == (Modifier("infection", "Infección (3 días)", 15),)
    settings = RuleSettings.from_dict({"infection_day_action_points": 0})
    assert action_penalty(state, settings=settings) == ()


def test_penalty_uses_the_settings() -> None:
    settings = dataclasses.replace(DEFAULT_SETTINGS, need_day_action_points=7, wet_action_points=2)
    state = ConditionState(hunger_days=2, wet_last_night=True)
    assert breakdown_total(action_penalty(state, settings=settings)) == 16


states = st.builds(
    ConditionState,
    hunger_days=st.integers(0, 6),
    thirst_days=st.integers(0, 4),
    fatigue_days=st.integers(0, 8),
    unhygienic_days=st.integers(0, 10),
    days_without_defecating=st.integers(0, 7),
    wet_last_night=st.booleans(),
    soiled_last_night=st.booleans(),
    dirty=st.booleans(),
    extra_dirt=st.booleans(),
    disease_day=st.integers(0, 8),
    disease_duration=st.integers(0, 8),
    infection_day=st.integers(0, 8),
    infection_duration=st.integers(0, 8),
)


@given(st.lists(states, min_size=1, max_size=20), st.lists(st.booleans(), min_size=20, max_size=20))
def test_vectorised_penalty_equals_scalar(
    sample: list[ConditionState], sensitive: list[bool]
) -> None:
    arrays = ConditionArrays.from_states(sample)
    flags = np.array(sensitive[: len(sample)])
    points = action_penalty_points(arrays, flags)
    parts = action_penalty_parts(arrays, flags)
    for i, state in enumerate(sample):
        lines = action_penalty(state, bool(flags[i]))
        assert points[i] == breakdown_total(lines)
        assert {m.source: m.points for m in lines} == {
            k: int(v[i]) for k, v in parts.items() if v[i]
        }
