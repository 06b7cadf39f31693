"""The Content Security Policy in a real browser (Debian's Chromium driven by Playwright): the
main pages of the demo, as its master and as a player, report no CSP violation — no inline
script, handler or style was refused, and htmx (posting, the scene's polling, the sheet's
points counter) works under the policy. Skipped without /usr/bin/chromium, like test_play_loop.
"""

from __future__ import annotations

from tests.e2e.test_play_loop import CHROMIUM, browser, pytestmark, signed_in_page

__all__ = ["CHROMIUM", "browser", "pytestmark"]

# Every securitypolicyviolation event of the page, recorded before any page script runs.
WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


def watched(browser, live_server, user):
    page = signed_in_page(browser, live_server, user)
    page.add_init_script(WATCH)
    page.console = []  # type: ignore[attr-defined]
    page.on(
        "console",
        lambda m: (
            page.console.append(m.text)  # type: ignore[attr-defined]
            if m.type in ("error", "warning")
            else None
        ),
    )
    return page


def visit(page, url: str) -> list[str]:
    """Open ``url`` and return the CSP violations seen there (events and console)."""
    page.console.clear()
    response = page.goto(url)
    assert response is not None, url
    assert response.status == 200, f"{url}: {response.status} {page.inner_text('body')[:500]}"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    page.wait_for_load_state("networkidle")
    return violations(page)


def violations(page) -> list[str]:
    events = page.evaluate("window.__csp || []")
    console = [t for t in page.console if "Content Security Policy" in t or "Refused to" in t]
    return [*events, *console]


def test_the_main_pages_break_no_rule_of_the_policy(transactional_db, live_server, browser):
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connections

    from escenas import scenes
    from escenas.models import Scene
    from personajes.models import Character

    call_command("cargar_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    users = get_user_model().objects
    lucia = Character.objects.get(name="Lucía Ferrer")
    story = Scene.objects.filter(campaign__slug="valle-gris", kind="story").order_by("pk")[0]
    diary = scenes.diary_scene_for(lucia)
    base = live_server.url
    found: dict[str, list[str]] = {}

    master = watched(browser, live_server, users.get(username="master"))
    for path in [
        "/",
        "/partidas/valle-gris/",
        "/partidas/valle-gris/mundo/",
        "/partidas/valle-gris/reglas/",
        "/partidas/valle-gris/personajes/",
        "/partidas/valle-gris/dias/6/",
        f"/personajes/{lucia.pk}/",
        diary.get_absolute_url(),
        "/cuenta/avisos/",
        "/cuentas/perfil/",
        "/admin/",
        "/admin/mundo/campaign/",
        "/api/v1/docs/",
    ]:
        found[f"master {path}"] = visit(master, base + path)

    player = watched(browser, live_server, users.get(username="ana"))
    found["ana story"] = visit(player, base + story.get_absolute_url())
    # Posting through htmx and the poller bringing the post back, under the policy.
    player.console.clear()
    player.fill("#id_body", "Lucía mira por la ventana.")
    with player.expect_request(lambda r: "/nuevos/" in r.url):
        player.get_by_role("button", name="Enviar").click()
    player.wait_for_selector("#posts .post >> text=Lucía mira por la ventana.")
    found["ana story after posting"] = violations(player)
    found["ana sheet"] = visit(player, base + f"/personajes/{lucia.pk}/")
    found["ana diary"] = visit(player, base + diary.get_absolute_url())
    # A new character's sheet form, whose points counter is htmx, as carla.
    carla = watched(browser, live_server, users.get(username="carla"))
    found["carla new sheet"] = visit(carla, base + "/partidas/valle-gris/personajes/nuevo/")
    # The master's page polls its world too: the story scene, seen by the master.
    found["master story"] = visit(master, base + story.get_absolute_url())

    for page in (master, player, carla):
        page.context.close()
    connections.close_all()
    assert {where: seen for where, seen in found.items() if seen} == {}
