"""Accessibility of the main pages in a real browser (Debian's Chromium driven by Playwright),
checked by axe-core (the ``axe-playwright-python`` package bundles it; nothing is downloaded):
no WCAG 2 A/AA violation — contrast included — on the demo's main pages, as its master and as a
player, on a phone and on a desktop, in the light and the dark theme. Also the skip link, the
favicon and the web-app manifest. Skipped without /usr/bin/chromium, like test_play_loop.
"""

from __future__ import annotations

import pytest

from tests.e2e.test_play_loop import CHROMIUM, browser, pytestmark

__all__ = ["CHROMIUM", "browser", "pytestmark"]

WCAG_AA = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}}
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}


def page_for(browser, live_server, user, viewport, scheme):
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport=viewport, locale="es-ES", color_scheme=scheme)
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    return page


def axe_violations(page, url: str) -> list[str]:
    """Open ``url`` and return axe's WCAG A/AA violations there, one line each (rule, impact,
    the first offending element)."""
    from axe_playwright_python.sync_playwright import Axe

    response = page.goto(url)
    assert response is not None and response.status == 200, url
    page.wait_for_load_state("networkidle")
    results = Axe().run(page, options=WCAG_AA)
    lines = []
    for v in results.response["violations"]:
        node = v["nodes"][0]
        lines.append(f"{v['id']} ({v['impact']}): {node['target']} {node['failureSummary'][:160]}")
    return lines


@pytest.fixture
def demo(transactional_db):
    from django.core.management import call_command

    call_command("cargar_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115


def main_pages(role: str) -> list[str]:
    from escenas import scenes
    from escenas.models import Scene
    from personajes.models import Character

    lucia = Character.objects.get(name="Lucía Ferrer")
    story = Scene.objects.filter(campaign__slug="valle-gris", kind="story").order_by("pk")[0]
    pages = [
        "/",
        "/partidas/valle-gris/",
        story.get_absolute_url(),
        f"/personajes/{lucia.pk}/",
        scenes.diary_scene_for(lucia).get_absolute_url(),
    ]
    if role == "master":
        pages += [
            "/partidas/valle-gris/reglas/",
            "/partidas/valle-gris/mundo/",
            # Its six task sections, each rendered open (closed, they are fetched on opening).
            "/partidas/valle-gris/mundo/?open=characters",
            "/partidas/valle-gris/mundo/?open=supplies",
            "/partidas/valle-gris/mundo/?open=places",
            "/partidas/valle-gris/mundo/?open=routes",
            "/partidas/valle-gris/mundo/?open=tallies",
            "/partidas/valle-gris/mundo/?open=schedule",
            "/partidas/valle-gris/dias/6/",
        ]
    return pages


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("role", "viewport"), [("master", DESKTOP), ("ana", PHONE)])
def test_the_main_pages_have_no_wcag_aa_violation(
    demo, live_server, browser, role, viewport, scheme
):
    from django.contrib.auth import get_user_model
    from django.db import connections

    user = get_user_model().objects.get(username=role)
    page = page_for(browser, live_server, user, viewport, scheme)
    found = {path: axe_violations(page, live_server.url + path) for path in main_pages(role)}
    page.context.close()
    connections.close_all()
    bad = {path: seen for path, seen in found.items() if seen}
    assert bad == {}, "\n".join(f"{p}: {v}" for p, vs in bad.items() for v in vs)


def test_skip_link_favicon_and_manifest(demo, live_server, browser):
    from django.contrib.auth import get_user_model
    from django.db import connections

    page = page_for(
        browser, live_server, get_user_model().objects.get(username="ana"), PHONE, "light"
    )
    page.goto(live_server.url + "/")
    page.keyboard.press("Tab")  # the first Tab reaches the skip link, which then shows
    skip = page.locator("a.skip-link")
    assert skip.evaluate("e => e === document.activeElement")
    assert skip.inner_text() == "Saltar al contenido"
    assert skip.bounding_box()["y"] >= 0  # on screen once focused
    skip.press("Enter")
    assert page.url.endswith("#main")
    icon = page.locator("link[rel=icon]").get_attribute("href")
    assert page.request.get(live_server.url + icon).status == 200
    manifest = page.request.get(live_server.url + "/manifest.webmanifest")
    assert manifest.headers["content-type"] == "application/manifest+json"
    assert manifest.json()["icons"][0]["src"] == icon
    assert page.request.get(live_server.url + "/favicon.ico").url.endswith(".svg")
    page.context.close()
    connections.close_all()
