"""The amended readings of RULES.md (issue 11 item 7), each with real values.

R1 one rounding everywhere; R6's two counters are in test_survival.py; R7 no relief in
inadequate conditions unless marked (test_survival.py) and the accident raising the next day's
disease roll (here); R8 ``auto_shower`` off; R9/R10/R13 infection counts as a disease; R12's
settings; R15 spoilage off; R17 a risen character; R18 the modes and the 52-vs-75 note.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from reglas.characters import ConditionArrays, ConditionState, action_penalty_points
from reglas.cli import main
from reglas.core import clamp_threshold
from reglas.dice import clamp_thresholds, roll_actions
from reglas.encounters import CORRIDOR_NOTE
from reglas.errors import RulesError
from reglas.health import DiseaseInputs, disease_probability
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from tests.reglas.test_day import CALM, day_of, fed, run, stock


def test_r1_one_rounding_scalar_and_vectorised() -> None:
    # 26.6 admits a 26, not a 27, everywhere.
    values = [26.6, 26.4, -3.2, 100.7, 59.999]
    assert [clamp_threshold(v) for v in values] == [26, 26, 0, 100, 59]
    assert clamp_thresholds(values).tolist() == [26, 26, 0, 100, 59]
    rolls = roll_actions([0], [26.6], np.random.default_rng(1))
    assert rolls.thresholds.tolist() == [26]


def test_r10_rulebook_example_is_still_28() -> None:
    inputs = DiseaseInputs(
        season="invierno", sick_housemates=1, precipitation=True, min_temp_c=-3, hunger_days=1
    )
    assert disease_probability(inputs)[0] == 28


def test_r7_r10_last_nights_accidents_raise_the_disease_roll() -> None:
    wet = DiseaseInputs(season="verano", wet_last_night=True)
    soiled = DiseaseInputs(season="verano", soiled_last_night=True)
    assert disease_probability(wet)[0] == 1 + 1
    assert disease_probability(soiled)[0] == 1 + 10
    assert ("soiled", 10) in [(m.source, m.points) for m in disease_probability(soiled)[1]]


def test_r7_an_unmarked_inadequate_day_wets_that_night_and_raises_the_next_days_roll() -> None:
    # Day 1: no paper, nothing marked → the character held it in and wets that night. The tick
    # closing day 2 rolls onset with "+1 wet last night" in its breakdown (R7: "todas las
    # dificultades" of the next day), and the penalty the day leaves counts the new night only.
    odds = dataclasses.replace(CALM, wet_action_points=1)
    carried = stock(1, [(0, "food", 500.0, 16), (0, "water", 1.0, 8)])
    first = run(day_of([ConditionState()], shelter=[0], carried=carried), odds)
    state = first.condition.state(0)
    assert state.wet_last_night and state.dirty
    second = run(day_of([state], shelter=[0], carried=carried), odds)
    lines = {m.source: m.points for m in second.disease.of(0)}
    assert lines["wet"] == 1


def test_r7_the_relief_mark_in_the_tick_avoids_the_accident() -> None:
    carried = stock(1, [(0, "food", 500.0, 16), (0, "water", 1.0, 8)])
    out = run(
        day_of(
            [ConditionState()],
            shelter=[0],
            carried=carried,
            relieved_inappropriately=np.array([True]),
        )
    )
    state = out.condition.state(0)
    assert not state.wet_last_night
    assert state.unhygienic_days == 1


def test_r10_r13_an_infected_housemate_counts_as_sick() -> None:
    infected = ConditionState(infection_day=1, infection_duration=5)
    rules = dataclasses.replace(CALM, sick_housemate_disease_points=5)
    carried = stock(2, [*fed(0), *fed(1)])
    out = run(day_of([infected, ConditionState()], shelter=[0, 0], carried=carried), rules)
    lines = {m.source: m.points for m in out.disease.of(1)}
    assert lines["sick_housemates"] == 5
    # The infected one is not healthy: it rolls no onset (R13: infection is a disease).
    assert out.health.onset_rolled.tolist() == [False, True]


def test_r9_r13_infection_days_cost_five_points_each() -> None:
    condition = ConditionArrays.from_states([ConditionState(infection_day=2, infection_duration=5)])
    assert action_penalty_points(condition).tolist() == [10]


def test_the_amended_defaults() -> None:
    s = DEFAULT_SETTINGS
    assert s.auto_shower is False  # R8
    assert s.auto_relief_inadequate is False  # R7
    assert s.spoil_after_power_cut_days == 0  # R15: off
    assert s.deprivation_fraction == 0.25  # R6
    assert s.infection_day_action_points == 5  # R9, R13
    assert (s.medicine_cure_threshold, s.resistance_base) == (30, 50)  # R12
    help_text = {d["name"]: d["help"] for d in RuleSettings.describe()}["resistance_base"]
    assert "nuestro" in help_text
    with pytest.raises(RulesError):  # the old names are gone (the migration renames them)
        RuleSettings.from_dict({"medicine_threshold": 30})


@pytest.mark.parametrize(("mode", "swept"), [("normal", 75), ("caza", 200), ("persecución", 200)])
def test_r18_calculator_modes_and_the_52_vs_75_note(capsys, mode: str, swept: int) -> None:
    argv = ["encuentro", "--area", "10000", "--zombis", "150", "--recorrido", "20"]
    assert main([*argv, "--modo", mode, "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert f"{swept} espacios útiles al 6 %" in text
    assert "52" in text and "75" in text
    assert "52 espacios" in CORRIDOR_NOTE
