"""An invited visitor in a real browser: sign-up, the code from the e-mail, back on the
invitation, join; then sign out and in again by e-mail through the form (Chromium, phone size).
"""

from __future__ import annotations

import re

# The browser fixture and the e2e mark (skipped without /usr/bin/chromium) of the play loop.
from tests.e2e.test_play_loop import browser, pytestmark  # noqa: F401


def test_an_invited_visitor_signs_up_types_the_code_and_joins(
    transactional_db,
    live_server,
    browser,  # noqa: F811
):
    from mundo import services
    from mundo.models import Membership
    from nucleo.models import OutboxMessage
    from tests.factories import CampaignFactory, MembershipFactory, UserFactory

    campaign = CampaignFactory(slug="e2e-cuentas", name="Partida e2e")
    master = UserFactory(username="master")
    MembershipFactory(campaign=campaign, user=master, role=Membership.Role.MASTER)
    invitation = services.invitation_create(campaign=campaign, created_by=master)

    context = browser.new_context(viewport={"width": 375, "height": 812}, locale="es-ES")
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(live_server.url + invitation.get_absolute_url())
    page.locator("main").get_by_role("link", name="Registrarse").click()
    page.fill("#id_username", "nueva")
    page.fill("#id_email", "nueva@example.com")
    page.fill("#id_password1", "una-clave-larga-9")
    page.fill("#id_password2", "una-clave-larga-9")
    page.locator("main").get_by_role("button", name="Registrarse").click()

    page.wait_for_selector("#id_code")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # allauth's mails go through the outbox (nucleo.mail): the code is in its row.
    body = OutboxMessage.objects.get(recipient="nueva@example.com").body_text
    page.fill("#id_code", re.search(r"^([A-Z0-9]{4}-[A-Z0-9]{4})$", body, re.M).group(1))
    page.get_by_role("button", name="Confirmar").click()

    page.wait_for_url(live_server.url + invitation.get_absolute_url())
    page.get_by_role("button", name="Unirme como jugador").click()
    page.wait_for_url(live_server.url + campaign.get_absolute_url())
    assert Membership.objects.get(campaign=campaign, user__username="nueva").role == "player"

    page.get_by_role("button", name="Cerrar sesión").click()
    page.goto(live_server.url + "/cuentas/login/")
    page.fill("#id_login", "nueva@example.com")
    page.fill("#id_password", "una-clave-larga-9")
    page.locator("main").get_by_role("button", name="Iniciar sesión").click()
    page.wait_for_selector("a.who")
    assert page.inner_text("a.who") == "nueva"
    context.close()
