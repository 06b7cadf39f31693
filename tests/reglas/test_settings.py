"""Rule settings: RULES.md defaults, JSON overrides and their validation (principle 1)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reglas.errors import RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings, normalise_season


def test_rules_md_defaults() -> None:
    s = DEFAULT_SETTINGS
    assert (s.creation_points, s.trait_cap) == (10, 10)
    assert (s.daily_kcal, s.daily_water_l, s.daily_sleep_h, s.default_sleep_h) == (2000, 2, 6, 8)
    assert (s.hunger_death_days, s.thirst_death_days, s.fatigue_death_days) == (5, 3, 7)
    assert s.need_day_action_points == s.need_day_disease_points == 10
    assert (s.wet_action_points, s.soiled_action_points, s.dirt_action_points) == (1, 10, 5)
    assert (s.dirt_disease_points, s.extra_dirt_disease_points) == (5, 10)
    assert s.disease_day_action_points == 5
    assert s.unhygienic_day_disease_points == 10
    assert [s.season_base(x) for x in ("verano", "primavera", "otoño", "invierno")] == [1, 2, 2, 5]
    assert (s.sick_housemate_disease_points, s.precipitation_disease_points) == (5, 5)
    assert s.cold_degree_disease_points == 1
    assert s.toilet_paper_rolls_per_day == 0.2
    assert (s.latrine_min_distance_m, s.bath_water_l) == (20, 20)
    assert (s.medicine_cure_threshold, s.amputation_threshold, s.resistance_base) == (30, 20, 50)
    assert (s.resistance_per_treated_day, s.resistance_per_unhygienic_day) == (5, 5)
    assert s.disease_duration == s.infection_duration == "1d6+2"
    assert s.days_without_defecating == 7
    assert (s.grab_threshold, s.escape_threshold, s.bite_threshold) == (40, 40, 60)
    assert (s.grabbed_to_hit_penalty, s.melee_to_hit) == (20, 60)
    assert s.growth_rate == 1.0
    assert s.dirt_sensitive_traits == ("sigilo",)
    assert s.allow_shelter_stash is True


def test_from_dict_applies_overrides_and_round_trips_through_json() -> None:
    s = RuleSettings.from_dict(
        {"trait_cap": 5, "daily_kcal": 1800, "dirt_sensitive_traits": ["sigilo", "pelea"]}
    )
    assert s.trait_cap == 5
    assert s.daily_kcal == 1800.0
    assert isinstance(s.daily_kcal, float)
    assert s.dirt_sensitive_traits == ("sigilo", "pelea")
    stored = json.loads(json.dumps(s.overrides()))
    assert stored == {
        "trait_cap": 5,
        "daily_kcal": 1800.0,
        "dirt_sensitive_traits": ["sigilo", "pelea"],
    }
    assert RuleSettings.from_dict(stored) == s
    assert RuleSettings.from_dict({}) == DEFAULT_SETTINGS
    assert RuleSettings.from_dict(None) == DEFAULT_SETTINGS
    assert json.loads(json.dumps(DEFAULT_SETTINGS.to_dict()))["creation_points"] == 10


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        ({"no_such_rule": 1}, "no_such_rule"),
        ({"trait_cap": 2.5}, "trait_cap"),
        ({"trait_cap": True}, "trait_cap"),
        ({"trait_cap": "5"}, "trait_cap"),
        ({"daily_kcal": "2000"}, "daily_kcal"),
        ({"daily_kcal": -1}, "daily_kcal"),
        ({"allow_shelter_stash": 1}, "allow_shelter_stash"),
        ({"dirt_sensitive_traits": "sigilo"}, "dirt_sensitive_traits"),
        ({"dirt_sensitive_traits": [1]}, "dirt_sensitive_traits"),
        ({"medicine_cure_threshold": 120}, "medicine_cure_threshold"),
        ({"thirst_death_days": 0}, "thirst_death_days"),
        ({"disease_duration": "1d"}, "disease_duration"),
        ({"disease_duration": "1d6-7"}, "disease_duration"),
        ({"disease_duration": "3d6<=2"}, "disease_duration"),
    ],
)
def test_bad_overrides_name_the_key(overrides: dict[str, Any], key: str) -> None:
    with pytest.raises(RulesError, match=f"«{key}»"):
        RuleSettings.from_dict(overrides)


def test_from_dict_needs_a_mapping() -> None:
    with pytest.raises(RulesError):
        RuleSettings.from_dict([("trait_cap", 5)])  # type: ignore[arg-type]


def test_describe_lists_every_setting_with_its_rule() -> None:
    rows = RuleSettings.describe()
    assert {r["name"] for r in rows} == set(DEFAULT_SETTINGS.to_dict())
    assert all(r["rule"].startswith("R") and r["help"] for r in rows)


@pytest.mark.parametrize(
    ("text", "season"),
    [("Invierno", "invierno"), ("otono", "otoño"), ("otoño", "otoño"), ("summer", "verano")],
)
def test_seasons(text: str, season: str) -> None:
    assert normalise_season(text) == season


def test_unknown_season() -> None:
    with pytest.raises(RulesError):
        normalise_season("monzón")
