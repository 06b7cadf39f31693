"""The scene list's rows kept one by one (``escenas.list_rows``): a list rendered after one new
post renders that scene's row alone and reads the others from the cache, and whatever a row
shows changing (a post, its edit, a participant's name, the title, the language) gives the
HTML a render without any cache gives."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse

from escenas import list_rows, scenes, services
from personajes.models import Character
from tests.escenas.conftest import client_for
from tests.escenas.test_fragment_cache import DUMMY, LOCMEM, normal
from tests.escenas.test_permissions import write


@pytest.fixture
def rendered_rows(monkeypatch):
    """The titles of the rows rendered from their template, in order, since the last read."""
    titles: list[str] = []
    real = list_rows.render_to_string

    def counting(template, context):
        titles.append(context["row"].scene.title)
        return real(template, context)

    monkeypatch.setattr(list_rows, "render_to_string", counting)
    return titles


def listed(client, url, rendered: list[str]) -> str:
    """The list with no page kept whole (``ESCENAS_VIEWER_PAGES`` off: what a render after a
    write costs), checked against a render without any cache (whose rows are not counted in
    ``rendered``)."""
    with override_settings(CACHES=LOCMEM, ESCENAS_VIEWER_PAGES=False):
        html = client.get(url).content.decode()
    counted = list(rendered)
    with override_settings(CACHES=DUMMY, ESCENAS_VIEWER_PAGES=False):
        reference = client.get(url).content.decode()
    rendered[:] = counted
    assert normal(html) == normal(reference)
    return html


def test_one_new_post_renders_its_row_alone_and_each_change_shows(
    campaign, story, master, player_a, char_a, rendered_rows
):
    bridge = scenes.scene_create(
        campaign=campaign, master=master, title="El puente", participants=[char_a]
    )
    write(story, master, "La gasolinera está a oscuras.")
    client = client_for(player_a)
    url = reverse("escenas:scene_list", args=[campaign.slug])
    with override_settings(CACHES=LOCMEM):
        listed(client, url, rendered_rows)
        first = list(rendered_rows)
        assert {"La gasolinera", "El puente"} <= set(first)
        rendered_rows.clear()
        listed(client, url, rendered_rows)
        assert rendered_rows == []  # every row read from the cache

        write(bridge, master, "Cruje el puente.")
        html = listed(client, url, rendered_rows)
        assert rendered_rows == ["El puente"] and "Cruje el puente." in html

        rendered_rows.clear()
        post = write(story, master, "Se oye un motor.")
        services.post_edit(post=post, editor=master, body="Se oyen dos motores.")
        html = listed(client, url, rendered_rows)
        assert rendered_rows == ["La gasolinera"] and "Se oyen dos motores." in html

        rendered_rows.clear()
        Character.objects.filter(pk=char_a.pk).update(name="Alicia Roja")
        html = listed(client, url, rendered_rows)
        assert sorted(rendered_rows) == ["El puente", "La gasolinera"]  # both list her
        assert "Alicia Roja" in html

        rendered_rows.clear()
        bridge.title = "El puente caído"
        bridge.save()
        html = listed(client, url, rendered_rows)
        assert rendered_rows == ["El puente caído"] and "El puente caído" in html

        rendered_rows.clear()
        client.cookies["django_language"] = "en"
        html = listed(client, url, rendered_rows)
        assert len(rendered_rows) == len(first)  # another language: every row anew


def test_a_page_of_rows_costs_one_cache_read(campaign, story, master, player_a, monkeypatch):
    """However many rows, one batch read of the cache (and one batch write of the rows it
    rendered), and no read of the names generation per row."""
    from escenas import fragments, listing
    from escenas.access import character_viewer_for

    for n in range(6):
        scenes.scene_create(
            campaign=campaign, master=master, title=f"Escena {n}", readers="members"
        )
    viewer = character_viewer_for(campaign, player_a)
    page = list(listing.scene_list(campaign, viewer)[: listing.SCENE_LIST_SIZE])
    rows = listing.scene_rows(page, viewer, campaign)
    calls: list[str] = []
    for name in ("cached_fragments", "store_fragments", "names_generation", "cached_value"):
        real = getattr(fragments, name)
        monkeypatch.setattr(
            fragments, name, lambda *a, _n=name, _r=real, **k: calls.append(_n) or _r(*a, **k)
        )
    with override_settings(CACHES=LOCMEM):
        first = list_rows.rows_html(rows)
        assert calls == ["cached_fragments", "store_fragments"]
        assert len(first) == len(rows) >= 7
        calls.clear()
        assert list_rows.rows_html(rows) == first
        assert calls == ["cached_fragments"]  # every row read, none to store
