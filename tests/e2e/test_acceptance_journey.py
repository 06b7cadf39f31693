"""Issue 11's acceptance journey, in a real browser (Chromium, phone size) on the demo campaign.

A visitor follows an invitation, signs up (the code read from the outbox row, as allauth's mails
go through it), joins, builds a 10-point sheet; the master approves it on the character's page
(the arrival: the campaign's kit and the default shelter, the Polideportivo); the player writes
a first post in the off-topic scene. Then 30 days are advanced through the tick's service, the
player taking two bottles of water from the shelter's stash each day through the service the
sheet's movement form uses. On day 37 the character is alive, its diary has 30 rows, every page
either of them opened answered 200, and the master never opened the admin.

Two things the pages do not do yet, so done here through their services (reported to the lead):
- the master stocks the shelter's stash for a month (``personajes.days.shelter_stash_set``; the
  master's stock page is being built in the ``world`` part);
- disease is switched off for the campaign (``rule_overrides``, as the tick tests do with
  ``no_disease``): with the rules' winter disease odds a character housed, fed and watered for
  30 days still falls ill and may die of it (seen: one campaign entropy in four died on day 23),
  and an acceptance test may not assert what the dice can miss.
"""

from __future__ import annotations

import re
from io import StringIO

# The browser fixture and the e2e mark (skipped without /usr/bin/chromium) of the play loop.
from tests.e2e.test_play_loop import browser, pytestmark, signed_in_page  # noqa: F401

POINTS = {"resistencia": 3, "supervivencia": 3, "medicina": 2, "percepcion": 2}


def watch(page, seen: list[tuple[str, int]]) -> None:
    """Record every page (main-frame document) the tab loads: (path, status)."""

    def on_response(response) -> None:
        if response.request.resource_type == "document":
            seen.append((re.sub(r"^https?://[^/]+", "", response.url), response.status))

    page.on("response", on_response)


def test_invitation_to_day_37_alive(transactional_db, live_server, browser):  # noqa: F811
    from django.core.management import call_command
    from django.urls import reverse

    from mundo import services
    from mundo.models import Campaign, Location, Membership
    from nucleo.models import OutboxMessage
    from partida.tick import advance_day
    from personajes import days, movements
    from personajes.models import Character, DiaryEntry, ItemType
    from tests.partida.tick_helpers import no_disease

    call_command("cargar_demo", stdout=StringIO())
    campaign = Campaign.objects.get(slug="valle-gris")
    master = Membership.objects.get(campaign=campaign, role=Membership.Role.MASTER).user
    invitation = services.invitation_create(campaign=campaign, created_by=master)
    player_seen: list[tuple[str, int]] = []
    master_seen: list[tuple[str, int]] = []

    # --- invitation → sign-up → join ---
    context = browser.new_context(viewport={"width": 375, "height": 812}, locale="es-ES")
    page = context.new_page()
    page.set_default_timeout(15_000)
    watch(page, player_seen)
    page.goto(live_server.url + invitation.get_absolute_url())
    page.locator("main").get_by_role("link", name="Registrarse").click()
    page.fill("#id_username", "nora")
    page.fill("#id_email", "nora@example.com")
    page.fill("#id_password1", "una-clave-larga-9")
    page.fill("#id_password2", "una-clave-larga-9")
    page.locator("main").get_by_role("button", name="Registrarse").click()
    page.wait_for_selector("#id_code")
    body = OutboxMessage.objects.get(recipient="nora@example.com").body_text
    page.fill("#id_code", re.search(r"^([A-Z0-9]{4}-[A-Z0-9]{4})$", body, re.M).group(1))
    page.get_by_role("button", name="Confirmar").click()
    page.wait_for_url(live_server.url + invitation.get_absolute_url())
    page.get_by_role("button", name="Unirme como jugador").click()
    page.wait_for_url(live_server.url + campaign.get_absolute_url())

    # --- the 10-point sheet, sent to the master ---
    page.goto(f"{live_server.url}/partidas/{campaign.slug}/personajes/nuevo/")
    page.fill("#id_name", "Nora Prieto")
    for slug, value in POINTS.items():
        page.fill(f"#id_trait_{slug}", str(value))
    page.get_by_role("button", name="Enviar al máster").click()
    page.wait_for_selector("h1:has-text('Nora Prieto')")
    nora = Character.objects.get(campaign=campaign, name="Nora Prieto")
    assert nora.status == Character.Status.SUBMITTED

    # --- the master approves it on the character's page ---
    boss = signed_in_page(browser, live_server, master)
    watch(boss, master_seen)
    boss.goto(live_server.url + campaign.get_absolute_url())
    boss.goto(live_server.url + nora.get_absolute_url())
    boss.get_by_role("button", name="Aprobar").click()
    boss.wait_for_load_state()
    nora.refresh_from_db()
    assert nora.status == Character.Status.APPROVED
    shelter = Location.objects.get(pk=nora.shelter_id)
    assert shelter.name == "Polideportivo municipal"  # the arrival's default shelter

    # --- the first post (off-topic scene, out of character) ---
    offtopic = campaign.scenes.get(kind="offtopic")
    page.goto(live_server.url + offtopic.get_absolute_url())
    page.fill("#id_body", "¡Hola! Nora acaba de llegar al polideportivo.")
    # Leaving the field autosaves the draft (htmx, on change): let that answer first, as a
    # reader's pause would, so the send is not a second request racing it (SQLite's test
    # database is one connection shared by the live server's threads).
    with page.expect_response(lambda r: "/borrador/" in r.url):
        page.locator("#id_body").blur()
    page.get_by_role("button", name="Enviar", exact=True).click()
    page.wait_for_selector("#posts .post:has-text('Nora acaba de llegar')")

    # --- 30 days, the player taking water from the shelter's stash each day ---
    water = ItemType.objects.get(campaign=campaign, kind=ItemType.Kind.WATER)
    food = ItemType.objects.get(campaign=campaign, name="Lata de conservas")
    paper = ItemType.objects.get(campaign=campaign, kind=ItemType.Kind.TOILET_PAPER)
    for item, units in ((water, 200), (food, 300), (paper, 60)):
        days.shelter_stash_set(shelter=shelter, item_type=item, quantity=units, user=master)
    no_disease(campaign)
    player = nora.player
    for _day in range(30):
        nora.refresh_from_db()
        assert nora.status == Character.Status.APPROVED, (nora.death_cause, nora.death_day)
        movements.movement_stash(
            character=nora, user=player, item_type_id=water.pk, quantity=2, leave=False
        )
        campaign.refresh_from_db()
        advance_day(campaign)

    campaign.refresh_from_db()
    nora.refresh_from_db()
    assert campaign.current_day == 37
    assert (nora.status, nora.death_cause) == (Character.Status.APPROVED, "")
    assert DiaryEntry.objects.filter(character=nora).count() == 30
    assert set(DiaryEntry.objects.filter(character=nora).values_list("day", flat=True)) == set(
        range(7, 37)
    )

    # --- every page answers 200, for the player and the master ---
    diary = campaign.scenes.get(kind="diary", diary_character=nora)
    for url in (
        campaign.get_absolute_url(),
        nora.get_absolute_url(),
        diary.get_absolute_url(),
        f"/partidas/{campaign.slug}/dias/36/",
        offtopic.get_absolute_url(),
    ):
        page.goto(live_server.url + url)
        boss.goto(live_server.url + url)
    # Every page load was a 200, or the 302 after a form was sent (sign-up, code, join, sheet,
    # approval, post); the pages of day 37, read by both, are 200.
    assert [s for s in player_seen + master_seen if s[1] not in (200, 302)] == []
    assert [status for _path, status in player_seen[-5:] + master_seen[-5:]] == [200] * 10
    review = reverse("personajes:review", kwargs={"pk": nora.pk})
    assert [path for path, status in master_seen if status == 302] == [review]
    assert not [path for path, _status in master_seen if path.startswith("/admin")]
    context.close()
