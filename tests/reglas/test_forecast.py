"""``reglas.forecast``: days of supplies left, tomorrow's short days, the foreseen death day
and tomorrow's disease odds, with real values. Source: RULES.md R6, R10, R15."""

from __future__ import annotations

import pytest

from reglas.characters import ConditionState
from reglas.errors import RulesError
from reglas.forecast import forecast
from reglas.settings import RuleSettings

HEALTHY = ConditionState()


def test_three_litres_last_one_and_a_half_days_and_thirst_kills_on_day_12() -> None:
    # Day 8: today's tick drinks 2 L, day 9 the last litre (short, not "without"), days 10, 11
    # and 12 under 0.5 L: the tick closing day 12 kills (RULES.md R6, amended).
    out = forecast(HEALTHY, today=8, season="verano", kcal_carried=20000, water_carried_l=3)
    assert out.water_days == pytest.approx(1.5)
    assert out.food_days == pytest.approx(10.0)
    assert out.thirsty_tomorrow is False
    assert out.hungry_tomorrow is False
    assert out.thirst_death_day == 12
    assert out.hunger_death_day == 8 + 10 + 4
    assert (out.death_day, out.death_cause) == (12, "thirst")
    assert out.danger is False


def test_no_water_thirsty_tomorrow_and_dead_in_three_ticks() -> None:
    out = forecast(HEALTHY, today=5, season="verano", kcal_carried=4000, water_carried_l=0)
    assert out.thirsty_tomorrow is True
    assert (out.death_day, out.death_cause) == (7, "thirst")
    assert out.danger is True
    # One day without already: one tick fewer.
    already = forecast(
        ConditionState(thirst_days=1, days_without_water=1),
        today=5,
        season="verano",
        kcal_carried=4000,
        water_carried_l=0,
    )
    assert already.thirst_death_day == 6


def test_the_stash_is_shared_by_its_residents() -> None:
    out = forecast(
        HEALTHY,
        today=1,
        season="verano",
        kcal_carried=0,
        water_carried_l=1,
        stash_kcal=8000,
        stash_water_l=9,
        residents=3,
    )
    assert out.water_l == pytest.approx(4.0)
    assert out.kcal == pytest.approx(8000 / 3)
    assert out.water_days == pytest.approx(2.0)


def test_1500_kcal_a_day_is_hungry_but_no_starvation_is_foreseen_from_a_full_larder() -> None:
    out = forecast(HEALTHY, today=1, season="verano", kcal_carried=1500, water_carried_l=100)
    assert out.hungry_tomorrow is True
    # Day 1 eats 1500 (short, not "without"), then nothing: days 2–6 are five days without
    # eating, and the tick closing day 6 kills.
    assert out.hunger_death_day == 6


def test_tomorrows_disease_odds_with_the_breakdown() -> None:
    # Winter 5 + one sick housemate 5 + snow 5 + −3 °C 3 + hungry tomorrow 10 = 28 (R10).
    out = forecast(
        HEALTHY,
        today=3,
        season="invierno",
        kcal_carried=1000,
        water_carried_l=10,
        sick_housemates=1,
        precipitation=True,
        min_temp_c=-3,
    )
    assert out.disease_p == 28
    assert {m.source: m.points for m in out.disease_breakdown} == {
        "season": 5,
        "sick_housemates": 5,
        "precipitation": 5,
        "cold": 3,
        "hunger": 10,
    }
    assert out.danger is True


def test_inadequate_hygiene_and_last_nights_accident_count_tomorrow() -> None:
    state = ConditionState(unhygienic_days=2, wet_last_night=True)
    out = forecast(
        state,
        today=3,
        season="verano",
        kcal_carried=9000,
        water_carried_l=9,
        hygiene_adequate=False,
    )
    lines = {m.source: m.points for m in out.disease_breakdown}
    assert lines == {"season": 1, "unhygienic": 30, "wet": 1}
    assert out.disease_p == 32


def test_the_sick_roll_no_onset_and_settings_apply() -> None:
    sick = forecast(
        ConditionState(disease_day=1, disease_duration=4),
        today=1,
        season="verano",
        kcal_carried=0,
        water_carried_l=0,
    )
    assert (sick.disease_p, sick.disease_breakdown) == (0, ())
    rules = RuleSettings.from_dict({"daily_water_l": 3.0, "thirst_death_days": 2})
    out = forecast(
        HEALTHY, today=1, season="verano", kcal_carried=0, water_carried_l=3, settings=rules
    )
    assert out.water_days == pytest.approx(1.0)
    assert out.thirst_death_day == 3


def test_a_marked_short_sleep_foresees_death_by_fatigue() -> None:
    out = forecast(
        ConditionState(days_without_sleep=5),
        today=4,
        season="verano",
        kcal_carried=9000,
        water_carried_l=9,
        sleep_h=1,
    )
    assert (out.fatigue_death_day, out.death_cause) == (5, "fatigue")


def test_bad_amounts_are_refused() -> None:
    with pytest.raises(RulesError):
        forecast(HEALTHY, today=1, season="verano", kcal_carried=-1, water_carried_l=0)
    with pytest.raises(RulesError):
        forecast(HEALTHY, today=1, season="verano", kcal_carried=0, water_carried_l=0, residents=0)
