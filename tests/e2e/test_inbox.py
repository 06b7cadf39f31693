"""«Mi mesa» and the first-unread jump in a real browser (Debian's Chromium, Playwright), on a
phone and on a desktop (issue 15 items 4 and 5): the demo's player ana and its master open
their inbox, follow an item in one tap, and it reads well at 390 px (no sideways scroll, no
WCAG A/AA violation, no console error). The story scene opens scrolled to ana's first unread
post, and a hidden tab's polls neither show nor mark read the posts written meanwhile.
Screenshots go to tests/e2e/screenshots/ (ignored by git). Skipped without /usr/bin/chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_accessibility import DESKTOP, PHONE, axe_violations, demo, page_for
from tests.e2e.test_play_loop import CHROMIUM, browser, pytestmark

__all__ = ["CHROMIUM", "browser", "demo", "pytestmark"]

SHOTS = Path(__file__).resolve().parent / "screenshots"


def watch_console(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def user(name):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=name)


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("role", ["ana", "master"])
def test_the_inbox_reads_well_and_each_item_is_one_tap_away(
    demo, live_server, browser, role, viewport
):
    from django.db import connections

    page = page_for(browser, live_server, user(role), viewport, "light")
    errors = watch_console(page)
    assert axe_violations(page, live_server.url + "/mesa/") == []
    assert page.locator("h1").inner_text() == "Mi mesa"
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert page.locator("header.site-header a[href='/mesa/']").count() == 1
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"mesa-{role}-{viewport['width']}.png"), full_page=True)
    if role == "ana":
        item = page.get_by_role("link", name="El máster pide a Lucía Ferrer una tirada de Fuerza")
        assert "sin leer" in page.locator(".inbox-campaigns").inner_text()
        item.click()
        page.wait_for_load_state("networkidle")
        assert "page=last" in page.url and page.url.endswith("#post-form")
        assert page.get_by_role("button", name="Tirar Fuerza y publicar").count() == 1
    else:
        pending = page.locator(".pending-list")
        assert "Hoja de Elena Soto (carla) esperando tu revisión" in pending.inner_text()
        pending.get_by_role("link", name="Pon el umbral de la tirada de Lucía Ferrer").click()
        page.wait_for_load_state("networkidle")
        assert "/escenas/" in page.url
        assert page.locator(".threshold-form").count() >= 1
    page.context.close()
    connections.close_all()
    assert errors == []


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_scene_opens_at_the_first_unread_and_a_hidden_tab_marks_nothing(
    demo, live_server, browser, viewport
):
    from django.db import connections

    from escenas import services
    from escenas.access import access_scene
    from escenas.models import Scene, SceneRead

    ana, master = user("ana"), user("master")
    story = Scene.objects.filter(campaign__slug="valle-gris", kind="story").order_by("pk")[0]
    page = page_for(browser, live_server, ana, viewport, "light")
    errors = watch_console(page)
    page.goto(live_server.url + story.get_absolute_url())
    page.wait_for_load_state("networkidle")
    note = page.locator("#unread")
    assert "nuevos desde tu última visita" in note.inner_text()
    first = page.locator(".post.new").first
    box = first.bounding_box()
    assert box is not None and -2 <= box["y"] < viewport["height"] / 2, box  # scrolled to it
    page.screenshot(path=str(SHOTS / f"first-unread-{viewport['width']}.png"))
    read = SceneRead.objects.get(scene=story, user=ana).last_post_id

    # The tab is hidden: a poll (here, the one a post triggers) is not made.
    page.evaluate(
        "Object.defineProperty(document, 'hidden', {value: true, configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'));"
    )
    post, _ = services.post_create(
        access=access_scene(master, story.pk, campaign=story.campaign),
        author=master,
        idempotency_key="e2e-hidden-tab-post",
        body="Mientras no miras, algo se mueve en el almacén.",
        voice="narrator",
    )
    page.evaluate("document.body.dispatchEvent(new CustomEvent('posted'))")
    page.wait_for_timeout(800)
    assert page.locator(f"#post-{post.pk}").count() == 0
    assert SceneRead.objects.get(scene=story, user=ana).last_post_id == read
    # Shown again: it polls at once, the post appears, and only now is it read.
    page.evaluate(
        "Object.defineProperty(document, 'hidden', {value: false, configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'));"
    )
    page.locator(f"#post-{post.pk}").wait_for()
    page.wait_for_load_state("networkidle")
    assert SceneRead.objects.get(scene=story, user=ana).last_post_id >= post.pk
    page.context.close()
    connections.close_all()
    assert errors == []
