"""The master's rules page: every setting by rule id and the campaign's tables, edited, logged.

Cast (tests/conftest.py): ``master`` runs ``campaign``; ``player_a`` plays in it; ``outsider``
belongs to no campaign; anonymous is the bare ``client``. Only the master reaches the page; the
others get the same 404 as for a campaign that does not exist (anonymous: the login page).
"""

from __future__ import annotations

import copy
import dataclasses
import re
from typing import Any

import numpy as np
import pytest
from django.urls import reverse

from mundo import forms, rules, selectors
from mundo.models import Campaign, RuleChange
from nucleo.errors import ServiceError
from reglas.settings import RuleSettings
from reglas.supplies import roll_shop_supplies
from tests.factories import SettlementFactory

pytestmark = pytest.mark.django_db


def url(campaign: Campaign) -> str:
    return reverse("mundo:rules", args=[campaign.slug])


def settings_post(campaign: Campaign, group: str, **changes: Any) -> dict[str, Any]:
    """The posted form of one rule id: the campaign's current values, with ``changes``."""
    current = campaign.rules.to_dict()
    rows = dict(rules.setting_groups())[group]
    data: dict[str, Any] = {"action": f"settings:{group}"}
    for row in rows:
        value = changes.get(row["name"], current[row["name"]])
        if isinstance(value, bool):
            if value:
                data[f"{group}-{row['name']}"] = "on"
            continue
        data[f"{group}-{row['name']}"] = ", ".join(value) if isinstance(value, list) else value
    return data


def table_post(campaign: Campaign, table: str, **cells: Any) -> dict[str, Any]:
    """The posted form of one table, with the cells named by their reglas path changed."""
    form = forms.RuleTableForm(table=table, data=campaign.tables.to_dict()[table], prefix=table)
    data: dict[str, Any] = {"action": f"table:{table}"}
    for name, cell in form.cells.items():
        value = cells.get(cell.path, form.initial[name])
        if isinstance(cell.value, bool):
            if value:
                data[f"{table}-{name}"] = "on"
            continue
        data[f"{table}-{name}"] = "" if value is None else value
    return data


def test_every_setting_has_words_for_the_page() -> None:
    assert set(rules.SETTING_WORDS) == {f.name for f in dataclasses.fields(RuleSettings)}


def test_the_master_sees_each_number_with_its_unit_rule_and_default(client, master, campaign):
    client.force_login(master)
    response = client.get(url(campaign))
    assert response.status_code == 200
    html = response.content.decode()
    # One form per rule id, each number with its unit, rule id and default.
    assert 'value="settings:R20"' in html
    assert "Umbral de agarre del zombi (%)" in html
    assert "R20 — por defecto 40" in html
    assert "Superficie de un espacio útil (m²)" in html
    assert "R18 — por defecto 4<" in html  # 4.0 m² reads 4
    assert "R7 — por defecto 0,2<" in html  # Spanish decimal comma
    assert 'name="R20-grab_threshold" value="40"' in html
    # Tables as rows of inputs, not JSON: the 9 mm caliber's wound threshold is a number input.
    assert 'value="table:combat"' in html
    assert "Calibres" in html
    content = html.split("<h1>")[1]
    assert "{&quot;" not in content and '{"' not in content
    assert "Aún no hay cambios" in html


def test_the_campaign_and_world_pages_link_to_it_for_the_master(client, master, campaign):
    client.force_login(master)
    for page in ("mundo:campaign", "mundo:world"):
        assert url(campaign) in client.get(reverse(page, args=[campaign.slug])).content.decode()


def test_a_setting_saved_is_logged_and_changes_the_computed_outcome(client, master, campaign):
    village = SettlementFactory(campaign=campaign, area_m2=10_000)
    assert selectors.settlement_status(village, 7).cells == 2500
    client.force_login(master)
    response = client.post(url(campaign), settings_post(campaign, "R18", cell_area_m2=8))
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.rule_overrides == {"cell_area_m2": 8.0}
    village.refresh_from_db()
    assert selectors.settlement_status(village, 7).cells == 1250  # ⌊10 000 / 8⌋
    change = RuleChange.objects.get(campaign=campaign)
    assert (change.user, change.group) == (master, "R18")
    assert change.changes == [{"name": "cell_area_m2", "old": 4.0, "new": 8.0}]
    page = client.get(url(campaign)).content.decode()
    assert "cell_area_m2" in page and "master" in page


def test_a_table_saved_is_logged_and_changes_the_roll(client, master, campaign):
    client.force_login(master)
    path = "supplies.shops.tienda.food_kcal"
    response = client.post(url(campaign), table_post(campaign, "supplies", **{path: 1000}))
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.tables.supplies.shop("tienda").food_kcal == 1000
    found = roll_shop_supplies("tienda", 0, np.random.default_rng(3), campaign.tables.supplies)
    assert found.food_kcal == 1000 * found.share_pct // 100
    assert set(campaign.rule_tables) == {"supplies"}
    change = RuleChange.objects.get(campaign=campaign)
    assert change.group == "table:supplies"
    assert change.changes == [{"name": path, "old": 100_000, "new": 1000}]


def test_a_bad_setting_rerenders_with_the_field_error_and_saves_nothing(client, master, campaign):
    client.force_login(master)
    response = client.post(url(campaign), settings_post(campaign, "R20", grab_threshold=150))
    assert response.status_code == 400
    html = response.content.decode()
    error = html.split('id="id_R20-grab_threshold_error"')[-1].split("</ul>")[0]
    assert "grab_threshold" in error and "100" in error
    # The failed group opens itself; the others stay folded.
    assert re.search(r'<details[^>]* open id="settings-R20"', html)
    assert not re.search(r'<details[^>]* open id="settings-R18"', html)
    campaign.refresh_from_db()
    assert campaign.rule_overrides == {}
    assert not RuleChange.objects.exists()


def test_a_bad_table_cell_rerenders_next_to_that_cell_and_saves_nothing(client, master, campaign):
    client.force_login(master)
    data = table_post(campaign, "supplies", **{"supplies.bands[1].min_pct": 80})
    response = client.post(url(campaign), data)
    assert response.status_code == 400
    form = forms.RuleTableForm(table="supplies", data=campaign.tables.to_dict()["supplies"])
    name = next(n for n, c in form.cells.items() if c.path == "supplies.bands[1].max_pct")
    html = response.content.decode()
    error = html.split(f'id="id_supplies-{name}_error"')[-1].split("</ul>")[0]
    assert "supplies.bands[1].max_pct" in error
    campaign.refresh_from_db()
    assert campaign.rule_tables == {}
    assert not RuleChange.objects.exists()


def test_a_value_of_the_wrong_type_is_refused_by_the_form(client, master, campaign):
    client.force_login(master)
    data = settings_post(campaign, "R20")
    data["R20-bite_threshold"] = "mucho"
    response = client.post(url(campaign), data)
    assert response.status_code == 400
    assert 'id="id_R20-bite_threshold_error"' in response.content.decode()
    campaign.refresh_from_db()
    assert campaign.rule_overrides == {}


def test_saving_the_defaults_again_logs_nothing(client, master, campaign):
    client.force_login(master)
    assert client.post(url(campaign), settings_post(campaign, "R6")).status_code == 302
    assert client.post(url(campaign), table_post(campaign, "combat")).status_code == 302
    assert not RuleChange.objects.exists()


def test_a_player_and_an_outsider_get_404_and_anonymous_the_login(
    client, campaign, player_a, outsider
):
    for user in (player_a, outsider):
        client.force_login(user)
        assert client.get(url(campaign)).status_code == 404
        post = client.post(url(campaign), settings_post(campaign, "R20", grab_threshold=10))
        assert post.status_code == 404
    client.logout()
    response = client.get(url(campaign))
    assert response.status_code == 302 and "login" in response["Location"]
    campaign.refresh_from_db()
    assert campaign.rule_overrides == {}


def test_the_service_refuses_a_player(campaign, player_a):
    with pytest.raises(ServiceError, match="máster"):
        rules.rule_settings_save(
            campaign=campaign, user=player_a, group="R20", values={"grab_threshold": 10}
        )
    assert Campaign.objects.get(pk=campaign.pk).rule_overrides == {}


def test_a_campaign_with_its_own_traits_table_seeds_those_traits(campaign):
    from personajes.traits import campaign_traits

    table = copy.deepcopy(campaign.tables.to_dict()["traits"])
    table["traits"][0] = {"slug": "fortaleza", "name": "Fortaleza"}
    Campaign.objects.filter(pk=campaign.pk).update(rule_tables={"traits": table})
    campaign.refresh_from_db()
    assert [t.slug for t in campaign_traits(campaign=campaign)][:2] == ["fortaleza", "agilidad"]


def test_the_page_costs_the_same_queries_with_one_change_or_thirty(
    client, master, campaign, django_assert_num_queries
):
    client.force_login(master)
    RuleChange.objects.create(campaign=campaign, user=master, group="R20", changes=[])
    # user (session cached), campaign with the master role (access_campaign), the arrival's default
    # shelter, the shelters to choose from, the change log with its users: the same with any
    # number of logged changes.
    client.get(url(campaign))
    with django_assert_num_queries(5) as one:
        client.get(url(campaign))
    for _ in range(29):
        RuleChange.objects.create(campaign=campaign, user=master, group="R20", changes=[])
    with django_assert_num_queries(len(one.captured_queries)):
        client.get(url(campaign))
