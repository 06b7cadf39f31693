"""Issue 15's acceptance in one browser run (Debian's Chromium driven by Playwright) on the demo
campaign: the master on a desktop (1366 × 900, Spanish), a new player on a phone (390 × 844),
first in Spanish, then with English as her language preference.

The master makes an invitation link; a visitor follows it, signs up, joins and sends a sheet;
the master finds the sheet in «Mi mesa» and approves it in one click (the character enters the
story scene open to newcomers). In the story scene the player quotes another's post (the reply
keeps its link), sees the live preview render her Markdown and a mention, adds an action roll
and sends. The master follows «Mi mesa»'s threshold item to the roll and sets it; both see the
outcome. The master advances the day. The player chooses English on her profile: her inbox,
sheet and diary (the day just closed) are in English, with no Spanish word of the interface
(the word check of ``tests/partida/test_both_languages.py``), and the master's pages have no
English one. Every page answered 200 (or 302 after a form), no console error on either side,
no sideways scroll on the phone. Screenshots go to tests/e2e/screenshots/ (ignored by git).
"""

from __future__ import annotations

import re

from tests.e2e.test_acceptance_journey import invitation_made, sheet_sent, sign_up_and_join, watch
from tests.e2e.test_accessibility import DESKTOP, PHONE, demo, page_for
from tests.e2e.test_inbox import SHOTS
from tests.e2e.test_play_loop import CHROMIUM, browser, pytestmark

__all__ = ["CHROMIUM", "browser", "demo", "pytestmark"]


def console_errors(page) -> list[str]:
    """The page's console errors and uncaught exceptions, each with the page it was on."""
    errors: list[str] = []
    page.on(
        "console",
        lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None,
    )
    page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
    return errors


def shot(page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"journey-{name}.png"), full_page=True)


def foreign_words(page, language: str, data: set[str]) -> list[tuple[str, str]]:
    """The words of the other language on the page (see tests/partida/test_both_languages)."""
    from tests.partida.test_both_languages import language_words, leaks

    english, spanish = language_words()
    assert page.locator("html").get_attribute("lang") == language
    return leaks(page.content(), english if language == "es" else spanish, data)


def test_invitation_to_diary_in_both_languages_on_a_phone_and_a_desktop(demo, live_server, browser):
    from django.contrib.auth import get_user_model
    from django.db import connections
    from django.urls import reverse
    from playwright.sync_api import expect

    from escenas import scenes
    from escenas.models import Post, Scene
    from mundo.models import Campaign
    from personajes.models import Character
    from tests.partida.test_both_languages import data_words

    campaign = Campaign.objects.get(slug="valle-gris")
    day = campaign.current_day
    story = Scene.objects.get(campaign=campaign, kind="story", open_to_new_characters=True)
    seen: list[tuple[str, int]] = []

    # --- the master (desktop) makes the invitation; a visitor (phone) signs up and joins ---
    boss = page_for(
        browser, live_server, get_user_model().objects.get(username="master"), DESKTOP, "light"
    )
    boss_errors = console_errors(boss)
    watch(boss, seen)
    boss.on("dialog", lambda dialog: dialog.accept())  # "Avanzar día" asks to confirm
    invitation = invitation_made(boss, live_server, campaign)
    context = browser.new_context(viewport=PHONE, locale="es-ES")
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors = console_errors(page)
    watch(page, seen)
    sign_up_and_join(page, live_server, invitation, campaign)
    sheet_sent(page, live_server, campaign)
    nora = Character.objects.get(campaign=campaign, name="Nora Prieto")

    # --- the master finds the sheet in «Mi mesa» and approves it, one click away ---
    boss.goto(live_server.url + reverse("escenas:inbox"))
    mine = boss.locator(f"#campaign-{campaign.slug} .pending-list")
    shot(boss, "mesa-master-desktop")
    mine.get_by_role("link", name="Hoja de Nora Prieto (nora) esperando tu revisión").click()
    boss.get_by_role("button", name="Aprobar").click()
    boss.wait_for_load_state()
    nora.refresh_from_db()
    assert nora.status == Character.Status.APPROVED
    assert story.participants.filter(pk=nora.pk).exists()  # open to newcomers

    # --- the player's inbox, in Spanish on the phone ---
    page.goto(live_server.url + reverse("escenas:inbox"))
    assert page.locator("h1").inner_text() == "Mi mesa"
    assert "sin leer" in page.locator(".inbox-campaigns").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "mesa-player-phone-es")

    # --- the first post: a reply quoting another's post, previewed, with an action roll ---
    page.goto(live_server.url + story.get_absolute_url() + "?page=last")
    quote = page.locator("ol.posts li.post a[data-quote-url]").last
    quoted = int(
        quote.locator("xpath=ancestor::li[contains(@class,'post')]")
        .get_attribute("id")
        .removeprefix("post-")
    )
    quote.click()
    box = page.locator("#id_body")
    page.locator("#reply-status").wait_for()
    assert page.locator('#post-form input[name="reply_to"]').input_value() == str(quoted)
    # The reply line shows at once; the quote comes from the server after it (writing.js's
    # fetch): typing before it lands would put the text before the quote.
    expect(box).to_have_value(re.compile(r"^> ", re.MULTILINE), timeout=30_000)
    box.press("End")
    # The preview answers once typing pauses (htmx, 600 ms), queued behind the draft autosave:
    # wait for the answer that holds the whole text, so a slow machine is not a failure.
    with page.expect_response(
        lambda r: "/vista-previa/" in r.url and "Nora" in (r.request.post_data or ""),
        timeout=30_000,
    ) as answered:
        box.press_sequentially("\n\n**Nora** llega al surtidor. ¿Me cubres, @master?")
    assert answered.value.status == 200, answered.value.status
    preview = page.locator("#id_body-preview")
    preview.locator("strong", has_text="Nora").wait_for()
    preview.locator("a.mention", has_text="@master").wait_for()
    preview.locator("blockquote").wait_for()  # the quote renders as one
    # Leaving the box autosaves the draft (htmx, on change): let it answer before the send (as
    # in the month-long journey: SQLite's test database is one connection for every thread).
    with page.expect_response(lambda r: "/borrador/" in r.url):
        box.blur()
    page.locator("#id_roll_kind_1").check()  # the first roll slot: an action roll
    page.select_option("#id_roll_trait", "resistencia")
    shot(page, "post-form-phone")
    page.locator("#post-form button.primary", has_text="Enviar").click()
    page.locator("#posts .post", has_text="llega al surtidor").wait_for()
    post = Post.objects.filter(author=nora.player).get()
    page.locator(f"#post-{post.pk} .reply-line", has_text="en respuesta a").wait_for()
    assert post.reply_to_id == quoted and post.character_id == nora.pk
    (link,) = post.post_rolls.select_related("roll")
    assert link.roll.base_threshold is None and len(link.roll.dice) == 4  # Resistencia 3: 4 d100
    page.locator(f"#post-{post.pk} ul.dice li").first.wait_for()

    # --- the player chooses English on her profile (pages, e-mail and her diary follow) ---
    page.goto(live_server.url + reverse("profile"))
    page.select_option("select[name=language]", "en")
    page.get_by_role("button", name="Guardar", exact=True).click()
    page.wait_for_load_state()

    # --- the master follows «Mi mesa» to the roll and sets its threshold ---
    boss.goto(live_server.url + reverse("escenas:inbox"))
    boss.get_by_role("link", name="Pon el umbral de la tirada de Nora Prieto").click()
    boss.fill(f"#post-{post.pk} input[name=threshold]", "40")
    boss.locator(f"#post-{post.pk}").get_by_role("button", name="Fijar").click()
    boss.locator(f"#post-{post.pk} .outcome").wait_for()
    link.roll.refresh_from_db()
    success = any(int(d) <= link.roll.effective_threshold for d in link.roll.dice)
    outcome = boss.locator(f"#post-{post.pk} .outcome").inner_text()
    assert link.roll.base_threshold == 40 and ("ÉXITO" if success else "FALLO") in outcome
    assert foreign_words(boss, "es", data_words()) == []
    shot(boss, "threshold-set-desktop")
    page.goto(live_server.url + post.get_absolute_url())  # in English now: in her words
    assert ("SUCCESS" if success else "FAILURE") in page.inner_text(f"#post-{post.pk} .outcome")

    # --- the master advances the day ---
    boss.goto(live_server.url + campaign.get_absolute_url())
    with boss.expect_response(lambda r: r.url.endswith("/avanzar/")) as advanced:
        boss.get_by_role("button", name="Avanzar día").click()
    assert advanced.value.status == 200
    boss.wait_for_selector(f"#advance :text('Ahora es el día {day + 1}.')")

    # --- her inbox, sheet and diary in English, on the phone and on a desktop ---
    data = data_words()
    page.goto(live_server.url + reverse("escenas:inbox"))
    assert page.locator("h1").inner_text() == "My table"
    assert foreign_words(page, "en", data) == []
    shot(page, "mesa-player-phone-en")
    diary = scenes.diary_scene_for(nora)
    for viewport, name in ((PHONE, "phone"), (DESKTOP, "desktop")):
        page.set_viewport_size(viewport)
        for url, what in ((nora.get_absolute_url(), "sheet"), (diary.get_absolute_url(), "diary")):
            page.goto(live_server.url + url)
            page.wait_for_load_state("networkidle")
            assert foreign_words(page, "en", data) == [], (what, name)
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            shot(page, f"{what}-{name}-en")
    # The diary post of the day just closed was written in her language.
    closed = diary.posts.get(day=day)
    assert f"Day {day}" in page.locator(f"#post-{closed.pk}").inner_text()

    assert [s for s in seen if s[1] not in (200, 302)] == []
    for p in (page, boss):
        p.context.close()
    connections.close_all()
    assert errors == [], "\n".join(sorted(set(errors)))
    assert boss_errors == [], "\n".join(sorted(set(boss_errors)))
