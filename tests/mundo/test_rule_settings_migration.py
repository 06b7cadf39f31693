"""Migration mundo 0008: stored overrides follow the settings renamed for the amended readings
(R8 ``auto_shower``, R12 ``medicine_cure_threshold``, R15 ``spoil_after_power_cut_days``)."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from mundo.models import Campaign

pytestmark = pytest.mark.django_db

migration = importlib.import_module(
    "mundo.migrations.0008_rule_settings_renamed_for_the_amended_readings"
)


def test_old_keys_are_renamed_with_their_values_and_back(campaign):
    old = {"medicine_threshold": 45, "auto_shower_with_running_water": True, "spoil_days": 3}
    Campaign.objects.filter(pk=campaign.pk).update(rule_overrides={**old, "trait_cap": 6})
    migration.forwards(apps, None)
    campaign.refresh_from_db()
    assert campaign.rule_overrides == {
        "medicine_cure_threshold": 45,
        "auto_shower": True,
        "spoil_after_power_cut_days": 3,
        "trait_cap": 6,
    }
    rules = campaign.rules
    assert (rules.medicine_cure_threshold, rules.auto_shower) == (45, True)
    migration.backwards(apps, None)
    campaign.refresh_from_db()
    assert campaign.rule_overrides == {**old, "trait_cap": 6}
