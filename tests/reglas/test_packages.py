"""The rules packages split by rulebook topic keep every name at its old import path.

Other apps (and other branches) import these names from ``reglas.health``,
``reglas.survival`` and ``reglas.combat``; the packages re-export them from their modules.
"""

import importlib
import inspect

import pytest

import reglas.tables

IMPORTED_ELSEWHERE = {
    "reglas.health": [
        "DiseaseInputArrays",
        "DiseaseInputs",
        "HealthDayArrays",
        "HealthOutcome",
        "RESISTANCE_TRAIT",
        "advance_disease",
        "advance_health",
        "advance_infection",
        "bite",
        "cold_degrees",
        "count_sick_housemates",
        "cure_disease",
        "disease_odds",
        "disease_probability",
        "resistance_modifiers",
        "roll_medicine_cure",
        "roll_onset",
        "roll_resistance",
        "start_disease",
    ],
    "reglas.survival": [
        "DayArrays",
        "DayRecord",
        "EPSILON",
        "FoodItem",
        "HygieneArrays",
        "NeedsArrays",
        "Supplies",
        "SurvivalOutcome",
        "advance_hygiene",
        "advance_needs",
        "advance_survival",
        "consume",
        "live_day",
        "take_food",
    ],
    "reglas.combat": [
        "AttackMode",
        "AttackZombie",
        "Combatant",
        "EscapeZombie",
        "Weapon",
        "ZombieFight",
        "ZombieState",
        "attack",
        "attack_mode",
        "resolve_human_exchange",
        "resolve_zombie_turn",
        "to_hit_threshold",
        "to_hit_trait",
        "wound_threshold",
    ],
}


@pytest.mark.parametrize("package", sorted(IMPORTED_ELSEWHERE))
def test_names_imported_elsewhere_are_exported(package):
    module = importlib.import_module(package)
    missing = [n for n in IMPORTED_ELSEWHERE[package] if n not in module.__all__]
    assert missing == []
    for name in IMPORTED_ELSEWHERE[package]:
        assert getattr(module, name) is not None


@pytest.mark.parametrize("package", sorted(IMPORTED_ELSEWHERE))
def test_every_export_is_the_object_its_module_defines(package):
    module = importlib.import_module(package)
    assert len(module.__all__) == len(set(module.__all__))
    for name in module.__all__:
        obj = getattr(module, name)
        home = getattr(obj, "__module__", None)
        if name == "Weapon":
            # The tables' own class, re-exported for the combat's callers.
            assert obj is reglas.tables.Weapon
        elif inspect.isclass(obj) or inspect.isfunction(obj):
            assert home.startswith(package + "."), (name, home)
            assert getattr(importlib.import_module(home), name) is obj


def test_star_import_gives_the_old_combat_names():
    namespace: dict[str, object] = {}
    exec("from reglas.combat import *", namespace)
    assert {
        "Attack",
        "CombatRoll",
        "HumanExchange",
        "ZombieRoll",
        "ZombieTurn",
        "action_roll",
        "event_roll",
    } <= set(namespace)
