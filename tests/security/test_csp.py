"""Content Security Policy (issue 12): every page carries Django's CSP header; no template
has an inline script, inline handler or style attribute (the browser test, tests/e2e/test_csp.py,
checks the pages for violations in a real Chromium)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]


def policy(response) -> dict[str, list[str]]:
    header = response.headers["Content-Security-Policy"]
    return {
        part.split()[0]: part.split()[1:] for part in (p.strip() for p in header.split(";")) if part
    }


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/cuentas/login/", "/api/v1/campaigns/", "/nada/"])
def test_every_response_has_the_policy(path):
    response = Client().get(path)
    csp = policy(response)
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["default-src"] == ["'self'"]
    assert csp["object-src"] == ["'none'"] and csp["base-uri"] == ["'none'"]
    assert csp["style-src"] == ["'self'"]  # no 'unsafe-inline'
    assert "'unsafe-inline'" not in csp["script-src"] and "'unsafe-eval'" not in csp["script-src"]


@pytest.mark.django_db
def test_the_scripts_on_a_page_carry_its_nonce(campaign, master, client):
    client.force_login(master)
    response = client.get(f"/partidas/{campaign.slug}/")
    (nonce,) = re.findall(r"'nonce-([^']+)'", response.headers["Content-Security-Policy"])
    html = response.content.decode()
    scripts = re.findall(r"<script\b[^>]*>", html)
    assert len(scripts) == 2  # htmx and partida.js, both from static files
    for tag in scripts:
        assert f'nonce="{nonce}"' in tag and 'src="/static/' in tag
    assert '"includeIndicatorStyles": false' in html
    # A new nonce on each response.
    again = client.get(f"/partidas/{campaign.slug}/").headers["Content-Security-Policy"]
    assert f"'nonce-{nonce}'" not in again


@pytest.mark.django_db
def test_only_the_api_docs_allow_inline_styles():
    for path in ("/api/v1/docs/", "/api/v1/redoc/"):
        csp = policy(Client().get(path))
        assert "'unsafe-inline'" in csp["style-src"]
        assert "'unsafe-inline'" not in csp["script-src"]
        assert csp["frame-ancestors"] == ["'none'"]
    html = Client().get("/api/v1/docs/").content.decode()
    assert re.search(r"<script>\s*\S", html) is None  # Swagger's start-up script is a file


# A downloaded HTML archive (issue 15 item 9) is one self-contained file read from the
# reader's disk, outside the site and its policy: its stylesheet is inline by design, and it has
# no script at all (the patterns below still apply to it, but for <style>).
SELF_CONTAINED = {"templates/escenas/archive.html"}


def test_no_template_has_an_inline_script_handler_or_style():
    offenders = []
    for path in [*ROOT.glob("templates/**/*.html"), *ROOT.glob("*/templates/**/*.html")]:
        if ".venv" in path.parts:
            continue
        text = path.read_text()
        if str(path.relative_to(ROOT)) in SELF_CONTAINED:
            text = re.sub(r"<style>.*?</style>", "", text, flags=re.S)
        for pattern in (
            r"<script(?![^>]*\bsrc=)[^>]*>",
            r"\son[a-z]+\s*=",
            r"\sstyle\s*=",
            r"<style\b",
            r"javascript:",
            r"\shx-on",
        ):
            for match in re.finditer(pattern, text):
                offenders.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert offenders == []
