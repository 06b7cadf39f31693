"""Several rolls in one post and portraits beside posts in a real browser (issue 15 items 2
and 3; Debian's Chromium driven by Playwright, on a phone and a desktop).

On the demo: Doña Remedios's post (the master's NPC) shows her portrait, loaded at 1x or 2x; on
a phone the portrait sits in the post's header and the text keeps the post's whole width; on a
desktop it is a column beside the text. A player opens "Añadir la tirada 2" and sends a post
with an action roll and a dice expression: both are shown. The master's NPC page passes axe
(WCAG A/AA). Screenshots go to tests/e2e/screenshots/ (ignored by git).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_accessibility import DESKTOP, PHONE, axe_violations, demo, page_for
from tests.e2e.test_play_loop import CHROMIUM, browser, pytestmark

__all__ = ["CHROMIUM", "browser", "demo", "pytestmark"]

SHOTS = Path(__file__).with_name("screenshots")


def _story():
    from escenas.models import Scene

    return Scene.objects.filter(campaign__slug="valle-gris", kind="story").order_by("pk")[0]


@pytest.mark.parametrize(("name", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_the_npc_portrait_sits_beside_its_post_and_never_squeezes_the_text(
    demo, live_server, browser, name, viewport
):
    from django.contrib.auth import get_user_model
    from django.db import connections

    from escenas.models import Post

    remedios = Post.objects.get(idempotency_key="demo-escena-08")
    ana = get_user_model().objects.get(username="ana")
    page = page_for(browser, live_server, ana, viewport, "light")
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    # Not this page's doing: the combat panel's poll filter needs eval, which the CSP refuses
    # (templates/escenas/combat_panel.html, reported to the lead).
    known = {"htmx:evalDisallowedError"}
    page.goto(f"{live_server.url}{_story().get_absolute_url()}#post-{remedios.pk}")
    post = page.locator(f"#post-{remedios.pk}")
    image = post.locator("img.post-portrait")
    image.scroll_into_view_if_needed()
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=image.element_handle()
    )
    natural = image.evaluate("img => img.naturalWidth")
    assert natural in (96, 192)  # the thumbnail (1x or 2x), not the full portrait
    box, article = image.bounding_box(), post.locator("article").bounding_box()
    prose = post.locator(".prose").bounding_box()
    assert box and article and prose
    if name == "phone":
        assert box["width"] <= 48
        assert prose["width"] >= 0.9 * article["width"]  # the text below, full width
        assert prose["y"] >= box["y"] + box["height"] - 1
    else:
        assert 90 <= box["width"] <= 104  # 6rem: about the thumbnail's 96 px
        assert prose["x"] >= box["x"] + box["width"]  # a column beside the text
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"portraits-{name}.png"), full_page=False)
    page.context.close()
    connections.close_all()
    assert [e for e in errors if e not in known] == []


def test_a_player_sends_two_rolls_in_one_post_on_a_phone(demo, live_server, browser):
    from django.contrib.auth import get_user_model
    from django.db import connections

    from escenas.models import Post

    ana = get_user_model().objects.get(username="ana")
    page = page_for(browser, live_server, ana, PHONE, "dark")
    page.goto(live_server.url + _story().get_absolute_url() + "#post-form")
    form = page.locator("#post-form form")
    form.locator("#id_body").fill("Lucía empuja la puerta y cuenta las balas.")
    form.locator("input[name=roll_kind][value=action]").check()
    form.locator("#id_roll_trait").select_option("fuerza")
    form.locator("summary", has_text="Añadir la tirada 2").click()
    form.locator("input[name=rolls_1_kind][value=expression]").check()
    form.locator("#id_rolls_1_expression").fill("1d6")
    form.locator("#id_rolls_1_reason").fill("Balas")
    SHOTS.mkdir(exist_ok=True)
    form.locator("fieldset.roll-fields").first.screenshot(path=str(SHOTS / "roll-slots-phone.png"))
    form.locator("button.primary", has_text="Enviar").click()
    page.wait_for_function("() => document.querySelectorAll('.post .roll').length > 0")
    page.wait_for_timeout(500)
    post = Post.objects.filter(author=ana).order_by("-pk").first()
    assert post is not None and post.body.startswith("Lucía empuja")
    kinds = [link.roll.kind for link in post.post_rolls.order_by("position")]
    assert kinds == ["action", "expression"]
    page.goto(live_server.url + post.get_absolute_url())
    shown = page.locator(f"#post-{post.pk} .roll")
    assert shown.count() == 2
    assert "Balas" in shown.nth(1).inner_text()
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "two-rolls-phone.png"), full_page=False)
    page.context.close()
    connections.close_all()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_npc_page_has_no_wcag_aa_violation(demo, live_server, browser, scheme):
    from django.contrib.auth import get_user_model
    from django.db import connections

    master = get_user_model().objects.get(username="master")
    page = page_for(browser, live_server, master, PHONE, scheme)
    found = axe_violations(page, live_server.url + "/partidas/valle-gris/pnj/")
    page.context.close()
    connections.close_all()
    assert found == []
