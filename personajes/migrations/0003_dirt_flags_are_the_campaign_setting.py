"""Which traits' rolls take the dirt penalty (R8) had two sources: each trait's own flag (used
by sheet and post rolls) and the campaign setting ``dirt_sensitive_traits`` (used by the daily
tick's resistance roll). The setting is now the one source: a campaign whose trait flags
differ from its setting gets its flags written into its setting, then the field goes."""

from django.db import migrations

DEFAULT_FLAGGED = ["sigilo"]  # reglas.settings.RuleSettings.dirt_sensitive_traits


def flags_into_setting(apps, schema_editor):
    Campaign = apps.get_model("mundo", "Campaign")
    Trait = apps.get_model("personajes", "Trait")
    flagged: dict[int, list[str]] = {}
    with_traits: set[int] = set()
    for campaign_id, slug, dirty in Trait.objects.values_list(
        "campaign_id", "slug", "dirt_sensitive"
    ).order_by("campaign_id", "position", "id"):
        with_traits.add(campaign_id)
        if dirty:
            flagged.setdefault(campaign_id, []).append(slug)
    for campaign in Campaign.objects.filter(pk__in=with_traits):
        overrides = dict(campaign.rule_overrides or {})
        current = overrides.get("dirt_sensitive_traits", DEFAULT_FLAGGED)
        flags = flagged.get(campaign.pk, [])
        if sorted(flags) != sorted(current):
            overrides["dirt_sensitive_traits"] = flags
            Campaign.objects.filter(pk=campaign.pk).update(rule_overrides=overrides)


def setting_into_flags(apps, schema_editor):
    Campaign = apps.get_model("mundo", "Campaign")
    Trait = apps.get_model("personajes", "Trait")
    for campaign in Campaign.objects.all():
        flags = (campaign.rule_overrides or {}).get("dirt_sensitive_traits", DEFAULT_FLAGGED)
        Trait.objects.filter(campaign=campaign, slug__in=flags).update(dirt_sensitive=True)


class Migration(migrations.Migration):
    dependencies = [
        ("personajes", "0002_world"),
        ("mundo", "0004_campaign_rule_tables"),
    ]

    operations = [
        migrations.RunPython(flags_into_setting, setting_into_flags),
        migrations.RemoveField(model_name="trait", name="dirt_sensitive"),
    ]
