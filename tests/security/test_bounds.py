"""Finding 1: one campaign with an impossible calendar took ``/`` and the API down for everyone.

Every day, date and count field is bounded (``nucleo.bounds``): the form and the model refuse
out-of-range values with a field message, and a row stored before the bounds still renders.
"""

from __future__ import annotations

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from mundo.models import Campaign, Location, Settlement
from partida.tick import advance_day
from partida.tick.run import TickRefused
from tests.factories import CampaignFactory, SettlementFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("date", "day"),
    [("9999-12-31", 1), ("2026-01-01", 2147483647), ("0001-01-01", 0), ("2026-01-01", 36601)],
)
def test_the_campaign_form_refuses_an_impossible_calendar(client, date, day):
    client.force_login(UserFactory(username="ana"))
    response = client.post(
        reverse("mundo:campaign_create"),
        {
            "name": "Fin",
            "apocalypse_date": date,
            "current_day": day,
            "time_zone": "Europe/Madrid",
            "is_public": "on",
        },
    )
    assert response.status_code == 200
    form = response.context["form"]
    assert set(form.errors) & {"apocalypse_date", "current_day"}
    assert not Campaign.objects.filter(name="Fin").exists()


def test_the_campaign_form_still_takes_a_real_calendar(client):
    client.force_login(UserFactory(username="ana"))
    response = client.post(
        reverse("mundo:campaign_create"),
        {
            "name": "Bien",
            "apocalypse_date": "2999-12-31",
            "current_day": 0,
            "time_zone": "Europe/Madrid",
        },
    )
    assert response.status_code == 302
    assert Campaign.objects.get(name="Bien").current_date == datetime.date(2999, 12, 31)


def test_the_model_refuses_out_of_range_values():
    campaign = CampaignFactory.build(apocalypse_date=datetime.date(9999, 12, 31), current_day=1)
    with pytest.raises(ValidationError) as exc:
        campaign.full_clean()
    assert set(exc.value.message_dict) >= {"apocalypse_date"}
    settlement = SettlementFactory.build(
        campaign=CampaignFactory(), population=10**9 + 1, area_m2=1e300
    )
    with pytest.raises(ValidationError) as exc:
        settlement.full_clean()
    assert set(exc.value.message_dict) >= {"population", "area_m2"}
    place = Location(settlement=settlement, name="x", kind="shop", discovered_day=10**9)
    with pytest.raises(ValidationError) as exc:
        place.full_clean(exclude=["settlement"])
    assert "discovered_day" in exc.value.message_dict


@pytest.mark.parametrize(
    ("date", "day"), [(datetime.date(9999, 12, 31), 1), (datetime.date(2026, 1, 1), 2147483647)]
)
def test_a_stored_impossible_campaign_does_not_take_the_site_down(client, date, day):
    # Rows written before the bounds existed: stored directly, past the validators.
    campaign = CampaignFactory(is_public=True)
    Campaign.objects.filter(pk=campaign.pk).update(apocalypse_date=date, current_day=day)
    campaign.refresh_from_db()
    assert campaign.current_date == datetime.date.max
    assert client.get("/").status_code == 200
    api = APIClient().get("/api/v1/campaigns/")
    assert api.status_code == 200
    assert [c["date"] for c in api.json()["results"]] == ["9999-12-31"]
    assert client.get(campaign.get_absolute_url()).status_code == 200
    # …and the tick refuses to go past the calendar's end instead of failing.
    with pytest.raises(TickRefused):
        advance_day(campaign)


def test_the_settlement_forms_refuse_huge_numbers(client, campaign, master):
    client.force_login(master)
    settlement = SettlementFactory(campaign=campaign)
    url = reverse("mundo:world", kwargs={"slug": campaign.slug})
    response = client.post(
        url,
        {
            "action": "settlement",
            "name": "Enorme",
            "population": 10**12,
            "area_m2": 1e200,
            "growth_rate": 1e10,
        },
    )
    assert not Settlement.objects.filter(name="Enorme").exists()
    assert response.status_code in (200, 400)
    response = client.post(
        url,
        {
            "action": "adjust",
            "settlement": settlement.pk,
            "zombies_destroyed": 10**15,
            "survivors_rescued": 0,
            "characters_risen": 0,
        },
    )
    settlement.refresh_from_db()
    assert settlement.zombies_destroyed == 0


@pytest.mark.parametrize(
    "body",
    [
        {"body": "x", "voice": "character", "character": 10**20},
        {"roll": {"kind": "event", "character": 10**20}},
        {"body": "x", "fulfil": [10**20]},
    ],
)
def test_an_id_past_the_database_integer_is_a_field_error(story, player_a, body):
    # 10**20 does not fit a bigint: refused by the serializer (bounds.ID_MAX), never a lookup.
    client = APIClient()
    client.force_login(player_a)
    response = client.post(
        f"/api/v1/scenes/{story.pk}/posts/", body, format="json", HTTP_IDEMPOTENCY_KEY="id-grande-1"
    )
    assert response.status_code == 400
    assert set(response.json()) & {"character", "roll", "fulfil"}


def test_the_day_record_form_refuses_a_day_past_the_calendar(client, campaign, master):
    from personajes.models import Character, DayRecord
    from tests.factories import CharacterFactory

    character = CharacterFactory(campaign=campaign, status=Character.Status.APPROVED)
    client.force_login(master)
    response = client.post(
        reverse("day_record", kwargs={"slug": campaign.slug}),
        {"character": character.pk, "day": 10**12, "sleep_h": 8},
    )
    assert response.status_code in (200, 400)
    assert "day" in response.context["form"].errors
    assert not DayRecord.objects.exists()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("42", 42),
        (42, 42),
        (" 7 ", 7),
        ("0", 0),
        ("999999999999999999", 999_999_999_999_999_999),
        ("1000000000000000000", None),  # past the database's integer: was a 500
        ("²", None),  # a digit to str.isdigit, not to int(): was a 500
        ("٣", None),
        ("-1", None),
        ("1.0", None),
        ("", None),
        ("abc", None),
    ],
)
def test_row_id_reads_only_ascii_ids_within_the_bound(value, expected):
    from nucleo.bounds import row_id

    assert row_id(value) == expected
