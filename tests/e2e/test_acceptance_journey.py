"""Issue 11's acceptance journey, in a real browser (Chromium, phone size) on the demo campaign,
through the pages alone: the master never opens the admin and the test calls no service (the
master makes the invitation link on the invitations page).

A visitor follows an invitation, signs up (the code read from the outbox row, as allauth's mails
go through it), joins, builds a 10-point sheet; the master approves it on the character's page
(the arrival: the campaign's kit and the default shelter, the Polideportivo); the player writes
a first post in the off-topic scene. The master stocks the Polideportivo's stash for a month
on the world page ("Stock a place or move its stock", from "the master": a movement row, with
its undo) and switches the disease odds off on the rules page (the R10 settings: with the
rules' winter odds a character housed, fed and watered for 30 days still falls ill and may die
of it, seen: one campaign entropy in four died on day 23, and an acceptance test may not assert
what the dice can miss). Then, 30 times, the player takes two bottles of water from the
shelter's stash on the sheet's form and the master presses "Avanzar día" on the campaign page
(htmx, its confirmation accepted). On day 37 the character is alive, its diary has 30 rows,
every page either of them opened answered 200, and the master never opened the admin.
"""

from __future__ import annotations

import re
from io import StringIO
from urllib.parse import urlsplit

# The browser fixture and the e2e mark (skipped without /usr/bin/chromium) of the play loop.
from tests.e2e.test_play_loop import browser, pytestmark, signed_in_page  # noqa: F401

POINTS = {"resistencia": 3, "supervivencia": 3, "medicina": 2, "percepcion": 2}
CLICKED_DAYS = 2
"""Days of the 30 played by clicking the forms; the others post to the same endpoints."""
R10_OFF = (
    # Every source of R10's odds a housed, fed and watered character meets: p = 0 %.
    "season_base_winter",
    "season_base_spring",
    "season_base_summer",
    "season_base_autumn",
    "sick_housemate_disease_points",
    "precipitation_disease_points",
    "cold_degree_disease_points",
)


def watch(page, seen: list[tuple[str, int]]) -> None:
    """Record every page (main-frame document) the tab loads: (path, status)."""

    def on_response(response) -> None:
        if response.request.resource_type == "document":
            seen.append((re.sub(r"^https?://[^/]+", "", response.url), response.status))

    page.on("response", on_response)


def invitation_made(boss, live_server, campaign) -> str:
    """The master (page ``boss``) makes an invitation link on the invitations page; returns
    its path."""
    boss.goto(f"{live_server.url}/partidas/{campaign.slug}/invitaciones/")
    links = boss.get_by_label("Enlace de invitación")
    before = {links.nth(i).input_value() for i in range(links.count())}
    boss.get_by_role("button", name="Crear un enlace").click()
    boss.wait_for_load_state()
    (link,) = {links.nth(i).input_value() for i in range(links.count())} - before
    return urlsplit(link).path


def sign_up_and_join(page, live_server, invitation_path: str, campaign, name="nora") -> None:
    """A visitor (``page``, Spanish) follows the invitation, signs up as ``name`` (the code
    read from the outbox row: allauth's mails go through it) and joins as a player."""
    from nucleo.models import OutboxMessage

    page.goto(live_server.url + invitation_path)
    page.locator("main").get_by_role("link", name="Registrarse").click()
    page.fill("#id_username", name)
    page.fill("#id_email", f"{name}@example.com")
    page.fill("#id_password1", "una-clave-larga-9")
    page.fill("#id_password2", "una-clave-larga-9")
    page.locator("main").get_by_role("button", name="Registrarse").click()
    page.wait_for_selector("#id_code")
    body = OutboxMessage.objects.get(recipient=f"{name}@example.com").body_text
    page.fill("#id_code", re.search(r"^([A-Z0-9]{4}-[A-Z0-9]{4})$", body, re.M).group(1))
    page.get_by_role("button", name="Confirmar").click()
    page.wait_for_url(live_server.url + invitation_path)
    page.get_by_role("button", name="Unirme como jugador").click()
    page.wait_for_url(live_server.url + campaign.get_absolute_url())


def sheet_sent(page, live_server, campaign, name="Nora Prieto") -> None:
    """The new player builds the 10-point sheet (``POINTS``) and sends it to the master."""
    page.goto(f"{live_server.url}/partidas/{campaign.slug}/personajes/nuevo/")
    page.fill("#id_name", name)
    for slug, value in POINTS.items():
        page.fill(f"#id_trait_{slug}", str(value))
    page.get_by_role("button", name="Enviar al máster").click()
    page.wait_for_selector(f"h1:has-text('{name}')")


def test_invitation_to_day_37_alive(transactional_db, live_server, browser):  # noqa: F811
    from django.core.management import call_command
    from django.urls import reverse

    from mundo.models import Campaign, Location, Membership
    from personajes.models import Character, DiaryEntry, ItemType, Movement, ShelterStash

    call_command("cargar_demo", stdout=StringIO())
    campaign = Campaign.objects.get(slug="valle-gris")
    master = Membership.objects.get(campaign=campaign, role=Membership.Role.MASTER).user
    player_seen: list[tuple[str, int]] = []
    master_seen: list[tuple[str, int]] = []

    # --- the master makes an invitation link on the invitations page and sends it ---
    boss = signed_in_page(browser, live_server, master)
    watch(boss, master_seen)
    boss.on("dialog", lambda dialog: dialog.accept())  # "Avanzar día" asks to confirm
    invitation_path = invitation_made(boss, live_server, campaign)

    # --- invitation → sign-up → join ---
    context = browser.new_context(viewport={"width": 375, "height": 812}, locale="es-ES")
    page = context.new_page()
    page.set_default_timeout(15_000)
    watch(page, player_seen)
    sign_up_and_join(page, live_server, invitation_path, campaign)

    # --- the 10-point sheet, sent to the master ---
    sheet_sent(page, live_server, campaign)
    nora = Character.objects.get(campaign=campaign, name="Nora Prieto")
    assert nora.status == Character.Status.SUBMITTED

    # --- the master sees it pending and approves it on the character's page ---
    boss.goto(live_server.url + campaign.get_absolute_url())
    assert "Hoja de Nora Prieto (nora) esperando tu revisión" in boss.inner_text("#pending")
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

    # --- the master stocks the shelter's stash on the world page ---
    water = ItemType.objects.get(campaign=campaign, kind=ItemType.Kind.WATER)
    food = ItemType.objects.get(campaign=campaign, name="Lata de conservas")
    paper = ItemType.objects.get(campaign=campaign, kind=ItemType.Kind.TOILET_PAPER)
    before = {s.item_type_id: s.quantity for s in ShelterStash.objects.filter(shelter=shelter)}
    # The demo's own movements (its master stocked this stash once too) are not the journey's.
    demo_movements = list(Movement.objects.values_list("pk", flat=True))
    world = live_server.url + reverse("mundo:world", kwargs={"slug": campaign.slug})
    town = shelter.settlement.name
    for stocked, units in ((water, 200), (food, 300), (paper, 60)):
        boss.goto(world)
        # The page offers one settlement's places at a time: the master picks the shelter's.
        boss.locator("#world-scope").get_by_role("link", name=town, exact=True).click()
        boss.wait_for_selector(f"#world-scope-title:text('Población: {town}')")
        boss.locator("#supplies > summary").click()
        # "From" is left at its first choice, "the master: new supplies".
        assert boss.locator("#id_transfer-from_place").input_value() == ""
        boss.select_option("#id_transfer-to_place", str(shelter.pk))
        boss.select_option("#id_transfer-item_type", str(stocked.pk))
        boss.fill("#id_transfer-quantity", str(units))
        boss.locator("#transfer").get_by_role("button", name="Mover").click()
        boss.wait_for_selector(f".messages :text('Abastecido: {units} × {stocked.name}')")
    for stocked, units in ((water, 200), (food, 300), (paper, 60)):
        row = ShelterStash.objects.get(shelter=shelter, item_type=stocked)
        assert row.quantity == before.get(stocked.pk, 0) + units
    stocked_rows = Movement.objects.filter(
        campaign=campaign, to_place=shelter, reason="master_give"
    ).exclude(pk__in=demo_movements)
    assert stocked_rows.count() == 3
    assert all(m.from_place_id is None and m.from_character_id is None for m in stocked_rows)

    # --- … and switches the disease odds off on the rules page (R10) ---
    boss.goto(live_server.url + reverse("mundo:rules", kwargs={"slug": campaign.slug}))
    boss.locator("#settings-R10 > summary").click()
    for name in R10_OFF:
        boss.fill(f"#id_R10-{name}", "0")
    boss.get_by_role("button", name="Guardar R10").click()
    boss.wait_for_selector(".messages :text('Reglas guardadas')")
    campaign.refresh_from_db()
    assert {name: getattr(campaign.rules, name) for name in R10_OFF} == dict.fromkeys(R10_OFF, 0)

    # --- 30 days: the player takes water from the stash, the master advances the day ---
    # The first CLICKED_DAYS through the forms themselves; the rest through the same endpoints
    # with each browser's own session and CSRF token (a click costs a page render: 30 of them
    # would take minutes), answers checked the same way.
    sheet = live_server.url + nora.get_absolute_url()
    home = live_server.url + campaign.get_absolute_url()
    for day in range(7, 7 + CLICKED_DAYS):
        page.goto(sheet)
        page.select_option("#take-item", str(water.pk))
        page.fill("#take-quantity", "2")
        page.get_by_role("button", name="Coger", exact=True).click()
        page.wait_for_selector(".messages :text('Hecho')")
        boss.goto(home)
        with boss.expect_response(lambda r: r.url.endswith("/avanzar/")) as advanced:
            boss.get_by_role("button", name="Avanzar día").click()
        assert advanced.value.status == 200
        boss.wait_for_selector(f"#advance :text('Ahora es el día {day + 1}.')")
    supplies = live_server.url + reverse("personajes:supplies", kwargs={"pk": nora.pk})
    advance = live_server.url + reverse("advance_day", kwargs={"slug": campaign.slug})
    player_token = page.locator("input[name=csrfmiddlewaretoken]").first.input_value()
    master_token = boss.locator("input[name=csrfmiddlewaretoken]").first.input_value()
    for day in range(7 + CLICKED_DAYS, 37):
        took = page.request.post(
            supplies,
            form={
                "csrfmiddlewaretoken": player_token,
                "action": "take",
                "item_type": str(water.pk),
                "quantity": "2",
            },
            max_redirects=0,
        )
        player_seen.append((supplies, took.status))
        assert took.status == 302
        advanced = boss.request.post(
            advance,
            form={"csrfmiddlewaretoken": master_token, "expected_day": str(day)},
            headers={"HX-Request": "true"},
        )
        master_seen.append((advance, advanced.status))
        assert advanced.status == 200 and f"Ahora es el día {day + 1}." in advanced.text()
        nora.refresh_from_db()
        assert nora.status == Character.Status.APPROVED, (day, nora.death_cause)

    campaign.refresh_from_db()
    nora.refresh_from_db()
    assert campaign.current_day == 37
    assert (nora.status, nora.death_cause) == (Character.Status.APPROVED, "")
    assert DiaryEntry.objects.filter(character=nora).count() == 30
    assert set(DiaryEntry.objects.filter(character=nora).values_list("day", flat=True)) == set(
        range(7, 37)
    )
    taken = Movement.objects.filter(from_place=shelter, to_character=nora, reason="stash_take")
    assert taken.count() == 30
    # The water came from the stash the master stocked: 200 bottles, less Nora's 60, less
    # what the tick took for the Polideportivo's residents when their own ran out (R15).
    left = ShelterStash.objects.get(shelter=shelter, item_type=water).quantity
    assert left <= before.get(water.pk, 0) + 200 - 60

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
    # approval, post, the stash's take, the world control, the rules); the pages of day 37,
    # read by both, are 200.
    assert [s for s in player_seen + master_seen if s[1] not in (200, 302)] == []
    assert [status for _path, status in player_seen[-5:] + master_seen[-5:]] == [200] * 10
    review = reverse("personajes:review", kwargs={"pk": nora.pk})
    transfer = reverse("world_control", kwargs={"slug": campaign.slug, "action": "transfer"})
    # The control is posted from the world page with the shelter's settlement chosen.
    transfer += f"?en={shelter.settlement_id}"
    rules = reverse("mundo:rules", kwargs={"slug": campaign.slug})
    invitations = reverse("mundo:invitations", kwargs={"slug": campaign.slug})
    assert sorted({path for path, status in master_seen if status == 302}) == sorted(
        {invitations, review, transfer, rules}
    )
    assert not [path for path, _status in master_seen if path.startswith("/admin")]
    context.close()
