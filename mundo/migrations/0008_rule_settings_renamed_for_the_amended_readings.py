"""Stored rule overrides follow the settings renamed for the amended RULES.md readings.

``medicine_threshold`` → ``medicine_cure_threshold`` (R12), ``auto_shower_with_running_water``
→ ``auto_shower`` (R8, now off by default), ``spoil_days`` → ``spoil_after_power_cut_days``
(R15, now off by default). A campaign's chosen value keeps its meaning; only the key changes,
so ``RuleSettings.from_dict`` (which refuses unknown keys) reads every campaign again.
"""

from django.db import migrations

RENAMED = {
    "medicine_threshold": "medicine_cure_threshold",
    "auto_shower_with_running_water": "auto_shower",
    "spoil_days": "spoil_after_power_cut_days",
}


def _rename(apps, schema_editor, mapping):
    Campaign = apps.get_model("mundo", "Campaign")
    for campaign in Campaign.objects.exclude(rule_overrides={}).only("pk", "rule_overrides"):
        overrides = dict(campaign.rule_overrides or {})
        if not any(old in overrides for old in mapping):
            continue
        for old, new in mapping.items():
            if old in overrides:
                overrides[new] = overrides.pop(old)
        Campaign.objects.filter(pk=campaign.pk).update(rule_overrides=overrides)


def forwards(apps, schema_editor):
    _rename(apps, schema_editor, RENAMED)


def backwards(apps, schema_editor):
    _rename(apps, schema_editor, {new: old for old, new in RENAMED.items()})


class Migration(migrations.Migration):
    dependencies = [("mundo", "0007_tally_world_rolls")]

    operations = [migrations.RunPython(forwards, backwards)]
