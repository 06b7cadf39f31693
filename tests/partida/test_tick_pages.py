"""The master's tick pages: the "avanzar día" button, the day's history, marking a day.

Cast: ``master`` runs ``campaign`` (day 7); ``player_a`` plays there (sees the history, may not
advance nor mark); ``outsider`` sees nothing of this private campaign.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import translation

from mundo.models import Campaign, DayTick, Grid
from nucleo.errors import ServiceError
from personajes import days
from personajes.models import DayRecord, InventoryItem, ItemType, ShelterStash
from tests.factories import SettlementFactory
from tests.partida.tick_helpers import give, good_shelter, item, no_disease, stash, survivor

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def spanish():
    with translation.override("es"):
        yield


@pytest.fixture
def shelter(campaign):
    return good_shelter(SettlementFactory(campaign=campaign))


def django_capture_on_commit():
    # The test's transaction never commits: run on_commit callbacks as they are registered.
    from django.test import TestCase

    return TestCase.captureOnCommitCallbacks(execute=True)


def client_for(user):
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    return client


def csrf_post(client, url, data, **headers):
    # Take the token as a browser does: from a page the client has loaded.
    client.get(reverse("mundo:campaign_list"))
    data = {**data, "csrfmiddlewaretoken": client.cookies["csrftoken"].value}
    return client.post(url, data, **headers)


def test_the_masters_button_advances_once_even_if_pressed_twice(master, campaign, shelter):
    survivor(campaign, shelter=shelter)
    client = client_for(master)
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert 'name="expected_day" value="7"' in page
    url = reverse("advance_day", kwargs={"slug": campaign.slug})
    first = csrf_post(client, url, {"expected_day": 7}, HTTP_HX_REQUEST="true")
    assert first.status_code == 200
    assert "Ahora es el día 8" in first.content.decode()
    again = csrf_post(client, url, {"expected_day": 7}, HTTP_HX_REQUEST="true")
    assert "Ahora es el día 8" in again.content.decode()  # the same tick, not a ninth day
    campaign.refresh_from_db()
    assert campaign.current_day == 8
    assert DayTick.objects.filter(campaign=campaign).count() == 1


def test_the_button_without_javascript_redirects_with_a_message(master, campaign):
    client = client_for(master)
    url = reverse("advance_day", kwargs={"slug": campaign.slug})
    response = csrf_post(client, url, {"expected_day": 7}, follow=True)
    assert response.status_code == 200
    assert "no hay personajes vivos" in response.content.decode()


def test_the_button_needs_csrf_and_the_master(master, player_a, campaign):
    url = reverse("advance_day", kwargs={"slug": campaign.slug})
    assert client_for(master).post(url, {"expected_day": 7}).status_code == 403  # no token
    assert csrf_post(client_for(player_a), url, {"expected_day": 7}).status_code == 404
    assert client_for(master).get(url).status_code == 405
    campaign.refresh_from_db()
    assert campaign.current_day == 7


def _queue_large_tick(client, campaign, settings, monkeypatch):
    """Press the button of a large campaign with a real broker: the task is queued (captured
    here, not run) and the fragment polls. Returns (html, the captured apply_async calls)."""
    from partida import tasks, world_views

    settings.CELERY_TASK_ALWAYS_EAGER = False
    # No monkeypatch here: its undo may run after the autouse eager fixture's restore and
    # leave the app eager for later tests; that fixture restores the app's value itself.
    tasks.advance_campaign_day.app.conf.update(task_always_eager=False)
    monkeypatch.setattr(world_views, "LARGE_CAMPAIGN", -1)
    queued = []
    monkeypatch.setattr(
        tasks.advance_campaign_day,
        "apply_async",
        lambda args, task_id: queued.append((args, task_id)),
    )
    url = reverse("advance_day", kwargs={"slug": campaign.slug})
    with django_capture_on_commit():
        html = csrf_post(client, url, {"expected_day": 7}, HTTP_HX_REQUEST="true").content.decode()
    return html, queued


def _poll_url(html):
    import html as html_lib

    return html_lib.unescape(re.search(r'hx-get="([^"]+)"', html).group(1))


def test_a_queued_tick_shows_progress_until_the_day_moved(master, campaign, settings, monkeypatch):
    from partida.tick import advance_day

    client = client_for(master)
    html, queued = _queue_large_tick(client, campaign, settings, monkeypatch)
    assert "<progress" in html
    assert 'hx-trigger="every 2s"' in html
    [(args, task_id)] = queued
    assert args == (campaign.pk, 7, "master")
    poll = _poll_url(html)
    assert f"task={task_id}" in poll
    assert "<progress" in client.get(poll).content.decode()
    advance_day(campaign)  # what the worker does
    done = client.get(poll).content.decode()
    assert "Ahora es el día 8" in done
    assert "hx-trigger" not in done  # the polling stops


def test_a_failed_queued_tick_shows_its_reason_and_a_retry(master, campaign, settings, monkeypatch):
    # "Avanzar día" polled every second forever when its task failed (issue 15).
    from partida import tasks

    client = client_for(master)
    html, [(_args, task_id)] = _queue_large_tick(client, campaign, settings, monkeypatch)
    tasks.advance_campaign_day.backend.mark_as_failure(task_id, RuntimeError("disco lleno"))
    failed = client.get(_poll_url(html)).content.decode()
    assert "El cierre del día 7 falló: disco lleno" in failed
    assert "hx-trigger" not in failed  # no more polling
    assert 'name="expected_day" value="7"' in failed  # the retry presses the button again
    campaign.refresh_from_db()
    assert campaign.current_day == 7


def test_a_queued_tick_nobody_starts_stops_polling(master, campaign, settings, monkeypatch):
    from partida import world_views

    client = client_for(master)
    html, _queued = _queue_large_tick(client, campaign, settings, monkeypatch)
    poll = _poll_url(html)
    since = int(re.search(r"since=(\d+)", poll).group(1))
    stale = poll.replace(f"since={since}", f"since={since - world_views.GIVE_UP_AFTER_S - 1}")
    stalled = client.get(stale).content.decode()
    assert "Ningún worker empezó a cerrar el día 7 en 180 segundos." in stalled
    assert "hx-trigger" not in stalled
    assert "Intentar de nuevo" in stalled


@pytest.mark.parametrize(
    ("who", "status", "tables"),
    [
        ("master", 200, ["Marta", "Nora"]),  # every diary table of the day
        ("player_a", 200, ["Marta"]),  # only their own character's table
        ("player_b", 200, []),
        ("outsider", 404, None),
    ],
)
def test_a_days_history_page(cast, campaign, shelter, who, status, tables):
    survivor(campaign, shelter=shelter, name="Marta", player=cast["player_a"])
    survivor(campaign, shelter=shelter, name="Nora")
    call_command("avanzar_dia", "--partida", campaign.slug, stdout=__import__("io").StringIO())
    response = client_for(cast[who]).get(
        reverse("campaign_day", kwargs={"slug": campaign.slug, "day": 7})
    )
    assert response.status_code == status
    if status == 200:
        assert response.context["history"].weather  # the day's weather is shown
        entries = response.context["entries"]
        assert [e.character.name for e in entries] == tables
        assert all(e.kcal_eaten == 2000 for e in entries)


def test_history_of_a_future_day_is_404(master, campaign):
    url = reverse("campaign_day", kwargs={"slug": campaign.slug, "day": 30})
    assert client_for(master).get(url).status_code == 404


def test_days_list_links_each_closed_day(master, campaign):
    from partida.tick import advance_day

    advance_day(campaign)
    html = client_for(master).get(reverse("mundo:days", kwargs={"slug": campaign.slug}))
    assert (
        reverse("campaign_day", kwargs={"slug": campaign.slug, "day": 7}) in html.content.decode()
    )


# --- marking a character's day ------------------------------------------------------------------


def test_a_sleep_of_25_hours_is_refused_and_nothing_saved(master, campaign, shelter):
    pc = survivor(campaign, shelter=shelter)
    with pytest.raises(ServiceError) as excinfo:
        days.day_record_save(character=pc, user=master, day=7, sleep_h=25)
    assert "entre 0 y 24" in " ".join(excinfo.value.message_dict["sleep_h"])
    assert not DayRecord.objects.exists()


def test_a_shower_needs_water(master, campaign, shelter):
    no_disease(campaign)
    pc = survivor(campaign, shelter=shelter, water=False)
    with pytest.raises(ServiceError) as excinfo:
        days.day_record_save(character=pc, user=master, day=7, showered=True)
    assert "agua" in " ".join(excinfo.value.message_dict["showered"])
    assert not DayRecord.objects.exists()
    # 12 L carried and 10 L in the shelter: 20 L are taken, carried first.
    water = item(campaign, ItemType.Kind.WATER)
    give(pc, water, 12)
    shared = stash(shelter, water, 10)
    days.day_record_save(character=pc, user=master, day=7, showered=True, got_dirty=True)
    assert InventoryItem.objects.get(character=pc, item_type=water).quantity == 0
    shared.refresh_from_db()
    assert shared.quantity == Decimal("2.000")
    # Marking the same day again does not pay twice.
    days.day_record_save(character=pc, user=master, day=7, showered=True, got_dirty=True)
    shared.refresh_from_db()
    assert shared.quantity == Decimal("2.000")


def test_a_shower_with_running_water_costs_no_stored_water(master, campaign):
    settlement = SettlementFactory(campaign=campaign)
    plumbed = good_shelter(settlement, running_water=True)
    pc = survivor(campaign, shelter=plumbed, water=False)
    days.day_record_save(character=pc, user=master, day=7, showered=True)
    # …but not once the grid's water is cut.
    Grid.objects.create(campaign=campaign, water_on=False, water_cut_day=7)
    other = survivor(campaign, shelter=plumbed, water=False)
    with pytest.raises(ServiceError):
        days.day_record_save(character=other, user=master, day=7, showered=True)


def test_a_past_day_and_a_player_are_refused(master, player_a, campaign, shelter):
    pc = survivor(campaign, shelter=shelter)
    with pytest.raises(ServiceError, match="ya está cerrado"):
        days.day_record_save(character=pc, user=master, day=6)
    with pytest.raises(ServiceError, match="Sólo el máster"):
        days.day_record_save(character=pc, user=player_a, day=7)


def test_the_mark_a_day_page(master, campaign, shelter):
    pc = survivor(campaign, shelter=shelter)
    client = client_for(master)
    url = reverse("day_record", kwargs={"slug": campaign.slug})
    assert client.get(url).status_code == 200
    bad = csrf_post(client, url, {"character": pc.pk, "day": 7, "sleep_h": "25"})
    assert bad.status_code == 400
    assert "entre 0 y 24" in bad.content.decode()
    good = csrf_post(client, url, {"character": pc.pk, "day": 7, "sleep_h": "4"})
    assert good.status_code == 302
    assert DayRecord.objects.get(character=pc).sleep_h == 4


def test_stash_quantities_are_never_negative(master, campaign, shelter):
    water = item(campaign, ItemType.Kind.WATER)
    with pytest.raises(ServiceError) as excinfo:
        days.shelter_stash_set(shelter=shelter, item_type=water, quantity=-1, user=master)
    assert "negativ" in " ".join(excinfo.value.message_dict["quantity"])
    assert not ShelterStash.objects.exists()
    days.shelter_stash_set(shelter=shelter, item_type=water, quantity=5, user=master)
    assert ShelterStash.objects.get().quantity == 5


def test_the_admin_action_advances_the_day(master, campaign):
    from django.contrib.auth import get_user_model

    admin_user = get_user_model().objects.create_superuser("root", "root@example.com", "x")
    client = Client()
    client.force_login(admin_user)
    response = client.post(
        reverse("admin:mundo_campaign_changelist"),
        {"action": "advance_campaigns", "_selected_action": [campaign.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert Campaign.objects.get(pk=campaign.pk).current_day == 8
    assert DayTick.objects.get(campaign=campaign).trigger == DayTick.Trigger.ADMIN
