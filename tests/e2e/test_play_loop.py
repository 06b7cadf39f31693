"""The play loop in a real browser (Debian's Chromium driven by Playwright), on a phone screen.

A player writes a post with an action roll and no threshold (htmx: no page reload; the new post
appears by itself), the master sets the threshold on the roll, and both see the same dice and
the same outcome. Run by ``make test`` when /usr/bin/chromium exists (``.ci/run`` installs it);
Playwright never downloads a browser here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian's chromium is not installed at /usr/bin/chromium (.ci/run installs it "
        "with apt-get install -y chromium)",
    ),
]


@pytest.fixture
def browser():
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are
    # plain synchronous code, so Django's async-safety guard is relaxed for this module only.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield browser
        browser.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


def signed_in_page(browser, live_server, user):
    """A phone-sized page whose session is ``user``'s (cookie made by the test client)."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport={"width": 375, "height": 812}, locale="es-ES")
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


def dice_of(page, post_id: int) -> list[str]:
    return page.locator(f"#post-{post_id} ul.dice li").all_inner_texts()


def outcome_of(page, post_id: int) -> str:
    return page.locator(f"#post-{post_id} .outcome").inner_text()


def test_player_rolls_master_sets_threshold_both_see_the_same(
    transactional_db, live_server, browser
):
    from django.db import connections

    from escenas import scenes
    from escenas.models import Post, Scene
    from mundo.models import Membership
    from personajes.models import Character
    from tests.factories import CampaignFactory, CharacterFactory, MembershipFactory, UserFactory

    campaign = CampaignFactory(slug="e2e", name="Partida e2e")
    master = UserFactory(username="master")
    alicia = UserFactory(username="alicia")
    MembershipFactory(campaign=campaign, user=master, role=Membership.Role.MASTER)
    MembershipFactory(campaign=campaign, user=alicia, role=Membership.Role.PLAYER)
    ana = CharacterFactory(
        campaign=campaign,
        player=alicia,
        name="Ana Forastera",
        status=Character.Status.APPROVED,
        allocation={"fuerza": 2},
    )
    scene = scenes.scene_create(
        campaign=campaign,
        master=master,
        title="La puerta",
        readers=Scene.Readers.PARTICIPANTS,
        participants=[ana],
    )
    url = live_server.url + scene.get_absolute_url()

    player = signed_in_page(browser, live_server, alicia)
    player.goto(url)
    # Phone first: nothing wider than the screen.
    assert player.evaluate("document.documentElement.scrollWidth") <= 375
    player.fill("#id_body", "Ana empuja la puerta con el hombro.")
    player.locator("#id_roll_kind_1").check()  # the first roll slot (of three)
    player.select_option("#id_roll_trait", "fuerza")
    # The widget shows the exact chance before rolling: Fuerza 2 → 3 d100 at 30 %: 65,70 %.
    player.fill("#id_roll_threshold", "30")
    # (A locator, not wait_for_function: polling a string predicate is an eval, which the
    # site's Content Security Policy refuses.)
    player.locator("#chance", has_text="65,70").wait_for()
    player.fill("#id_roll_threshold", "")  # no threshold: the master will set it
    player.get_by_role("button", name="Enviar").click()
    # htmx: the form comes back empty and the poller brings the new post, without a reload.
    player.wait_for_selector("#posts .post ul.dice li")
    assert player.input_value("#id_body") == ""
    post = Post.objects.get()
    assert "Falta que el máster ponga la dificultad" in player.inner_text(f"#post-{post.pk}")
    player_dice = dice_of(player, post.pk)
    assert len(player_dice) == 3

    boss = signed_in_page(browser, live_server, master)
    boss.goto(url)
    assert dice_of(boss, post.pk) == player_dice
    boss.fill(f"#post-{post.pk} input[name=threshold]", "40")
    boss.locator(f"#post-{post.pk}").get_by_role("button", name="Fijar").click()
    boss.wait_for_selector(f"#post-{post.pk} .outcome")
    master_outcome = outcome_of(boss, post.pk)

    player.reload()
    player.wait_for_selector(f"#post-{post.pk} .outcome")
    assert outcome_of(player, post.pk) == master_outcome
    assert dice_of(player, post.pk) == dice_of(boss, post.pk) == player_dice
    roll = post.post_rolls.get().roll
    roll.refresh_from_db()
    expected = "ÉXITO" if any(int(d) <= 40 for d in player_dice) else "FALLO"
    assert expected in master_outcome
    assert [str(d) for d in roll.dice] == player_dice and roll.base_threshold == 40
    # Stop the pages (and their polling) before the live server and the database go away.
    for page in (player, boss):
        page.context.close()
    # While Playwright's loop runs, this thread's ORM calls get their own connection (asgiref
    # sees another context): close it here, or the test database cannot be dropped.
    connections.close_all()
