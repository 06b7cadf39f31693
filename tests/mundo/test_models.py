"""Model validation: time zones, rule overrides, settlement constraints."""

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from tests.factories import CampaignFactory, SettlementFactory


@pytest.mark.django_db
def test_campaign_date_follows_the_day():
    campaign = CampaignFactory(apocalypse_date=datetime.date(2026, 3, 1), current_day=7)
    assert campaign.current_date == datetime.date(2026, 3, 8)


@pytest.mark.django_db
def test_every_campaign_gets_its_own_secret_entropy():
    a, b = CampaignFactory(), CampaignFactory()
    assert len(a.entropy) == 32
    assert a.entropy != b.entropy
    assert a.entropy_int == int(a.entropy, 16)


@pytest.mark.django_db
def test_rules_default_to_rules_md_and_take_overrides():
    campaign = CampaignFactory(rule_overrides={"trait_cap": 5})
    assert campaign.rules.creation_points == 10
    assert campaign.rules.trait_cap == 5


@pytest.mark.django_db
def test_rules_are_made_once_per_overrides_and_follow_every_change(monkeypatch):
    """A page asks for the rules once per settlement: they are made once for the same
    overrides, and again when the overrides change, by a new dict or a key set inside it."""
    from reglas.settings import RuleSettings

    campaign = CampaignFactory(rule_overrides={"trait_cap": 5})
    made = []
    real = RuleSettings.from_dict
    monkeypatch.setattr(RuleSettings, "from_dict", lambda d: made.append(d) or real(d))
    assert [campaign.rules.trait_cap for _ in range(20)] == [5] * 20
    assert len(made) == 1
    campaign.rule_overrides["trait_cap"] = 4  # changed inside the same dict
    assert campaign.rules.trait_cap == 4
    campaign.rule_overrides = {}
    assert campaign.rules.trait_cap == RuleSettings().trait_cap
    assert len(made) == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    "overrides", [{"no_such_rule": 1}, {"creation_points": "diez"}, ["not", "a", "dict"]]
)
def test_bad_rule_overrides_are_refused_with_a_message(overrides):
    campaign = CampaignFactory.build(rule_overrides=overrides)
    with pytest.raises(ValidationError) as excinfo:
        campaign.full_clean()
    assert "rule_overrides" in excinfo.value.message_dict


@pytest.mark.django_db
def test_unknown_time_zone_is_refused():
    campaign = CampaignFactory.build(time_zone="Mars/Olympus")
    with pytest.raises(ValidationError) as excinfo:
        campaign.full_clean()
    assert "time_zone" in excinfo.value.message_dict


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value"), [("area_m2", 0.0), ("population", 0), ("growth_rate", 0.0)]
)
def test_settlement_constraints_hold_in_the_database(field, value):
    with pytest.raises(IntegrityError), transaction.atomic():
        SettlementFactory(**{field: value})


@pytest.mark.django_db
@pytest.mark.parametrize(("field", "value"), [("area_m2", 0.0), ("population", 0)])
def test_settlement_form_validation_names_the_field(field, value):
    settlement = SettlementFactory.build(campaign=CampaignFactory(), **{field: value})
    with pytest.raises(ValidationError) as excinfo:
        settlement.full_clean()
    assert field in excinfo.value.message_dict
