"""The scene page's post fragment cache (``escenas.fragments``) changes no byte of the page.

For every viewer of the permission matrix (tests/escenas/test_permissions.py: the master,
player A, player B, the outsider, anonymous) and every scene kind they may read, with every
kind of secret post in the off-topic scene (whispers, a note to the master, a hidden roll, a
deleted post), a roll waiting for its threshold, an edited post and new-flags: the page with no
cache (the dummy backend), the page with a cold cache and the page with a warm cache are the
same HTML, but for the CSRF tokens (masked anew on every request), the CSP nonces, the post
form's fresh idempotency key and the poller's clock.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from escenas import services
from escenas.models import SceneRead
from tests.escenas.conftest import client_for
from tests.escenas.test_permissions import (
    CAST,
    KINDS,
    READ,
    SECRETS,
    WRITE,
    make_scene,
    make_secret,
    write,
)

DUMMY = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
VOLATILE = (
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'), 'name="csrfmiddlewaretoken"'),
    (re.compile(r'"X-CSRFToken": "[^"]*"'), '"X-CSRFToken": ""'),
    (re.compile(r"since=[0-9.]+"), "since="),
    (re.compile(r'nonce="[^"]*"'), 'nonce=""'),
    (re.compile(r'name="idempotency_key" value="[0-9a-f]+"'), 'name="idempotency_key"'),
)


def normal(html: str) -> str:
    for pattern, replacement in VOLATILE:
        html = pattern.sub(replacement, html)
    return html


def fill(scene, cast, *, secrets: bool, writes_a: bool) -> int:
    """Posts by the master and player A (one edited, one with a roll without threshold), and
    every secret when asked; returns the id after which posts are new for the viewers."""
    master, a = cast["master"], cast["player_a"]
    first = write(scene, master, "Primero, del máster")
    write(scene, master, "Tirada sin umbral", roll=services.RollSpec(kind="event"))
    edited = write(scene, master, "Antes de editar")
    services.post_edit(post=edited, editor=master, body="Después de editar", note_to_master="")
    if secrets:
        for secret in SECRETS:
            make_secret(secret, scene, cast)
    if writes_a:
        write(scene, a, "De la jugadora A")
    return first.pk


def page(client, url, user, scene, new_after) -> tuple[str, list[str]]:
    if user is not None:  # the same new-flags on every request
        SceneRead.objects.update_or_create(
            scene=scene, user=user, defaults={"last_post_id": new_after}
        )
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    return normal(response.content.decode()), [q["sql"] for q in ctx.captured_queries]


@pytest.mark.parametrize("kind", KINDS)
def test_cached_page_is_byte_identical_for_every_viewer(kind, cast, campaign, master, char_a):
    scene = make_scene(kind, campaign, master, char_a)
    new_after = fill(scene, cast, secrets=kind == "offtopic", writes_a="player_a" in WRITE[kind])
    for who in CAST:
        if who not in READ[kind]:
            continue
        user = cast[who]
        client = client_for(user)
        for url in (scene.get_absolute_url(), scene.get_absolute_url() + "?page=last"):
            with override_settings(CACHES=DUMMY):
                reference, _queries = page(client, url, user, scene, new_after)
            with override_settings(CACHES=LOCMEM):
                cold, _queries = page(client, url, user, scene, new_after)
                warm, queries = page(client, url, user, scene, new_after)
            assert cold == reference, f"{who} in {kind}: the cold cache changed the page"
            assert warm == reference, f"{who} in {kind}: the warm cache changed the page"
            # A warm page loads no post (nor its rolls, nor its whisper recipients).
            loads = [q for q in queries if '"escenas_postroll"' in q or "body_html" in q]
            assert loads == [], f"{who} in {kind}: {loads}"


def test_renames_reach_cached_posts(story, master, player_a, player_b, char_a):
    """A cached fragment shows names the post row does not store (the author's username, the
    roll's character): renaming either changes every key, so the next page shows the new name."""
    write(
        story,
        player_a,
        "Empujo la puerta",
        roll=services.RollSpec(kind="action", character=char_a, trait="fuerza", threshold=40),
    )
    client = client_for(player_b)
    url = story.get_absolute_url() + "?page=1"
    with override_settings(CACHES=LOCMEM):
        client.get(url)
        assert "alicia" in client.get(url).content.decode()
        player_a.username = "alicia-renombrada"
        player_a.save()
        char_a.name = "Ana Renombrada"
        char_a.save(update_fields=["name"])
        html = client.get(url).content.decode()
    assert "alicia-renombrada" in html
    assert "— Ana Renombrada" in html  # the roll's title names its character


def test_an_edit_reaches_cached_posts(story, master, player_b):
    post = write(story, master, "Texto original")
    client = client_for(player_b)
    url = story.get_absolute_url() + "?page=1"
    with override_settings(CACHES=LOCMEM):
        assert "Texto original" in client.get(url).content.decode()
        services.post_edit(post=post, editor=master, body="Texto corregido", note_to_master="")
        html = client.get(url).content.decode()
    assert "Texto corregido" in html and "Texto original" not in html


def test_every_cached_piece_is_keyed_on_the_codes_stamp(monkeypatch):
    """A deploy with other code, templates or catalogues gets a new ``code_stamp``, so no post
    fragment, post list or page kept by the old code is served: no cache flush on deploy."""
    import datetime

    from escenas import fragments
    from nucleo import deploy

    def keys() -> tuple[str, str, str]:
        post = fragments.post_key(
            post_id=7,
            updated_at=datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC),
            rights="player",
            is_new=False,
            slug="valle",
            generation="g1",
        )
        # The scene list's rows end with ``render_context`` (escenas.list_rows.row_key).
        return post, fragments.versioned_key("list", 3, "cursor"), fragments.render_context()

    before = keys()
    assert keys() == before  # the same code, the same keys
    monkeypatch.setattr(deploy, "code_stamp", lambda: "another-deploy")
    after = keys()
    assert all(a != b for a, b in zip(after, before, strict=True))
    assert all(key.endswith(":another-deploy") for key in after)


def test_the_codes_stamp_follows_the_files(settings, tmp_path):
    """``code_stamp`` digests the names and modification times of the apps' and templates'
    files: a changed template gives another stamp; other files do not count."""
    import os

    from nucleo import deploy

    (tmp_path / "templates").mkdir()
    page = tmp_path / "templates" / "page.html"
    page.write_text("<p>one</p>")
    os.utime(page, ns=(1_000_000_000, 1_000_000_000))
    settings.BASE_DIR = tmp_path
    first = deploy.code_stamp.__wrapped__()
    (tmp_path / "templates" / "notes.txt").write_text("not code")
    assert deploy.code_stamp.__wrapped__() == first
    os.utime(page, ns=(2_000_000_000, 2_000_000_000))
    assert deploy.code_stamp.__wrapped__() != first
