"""Hostile text in posts, notes, names, reasons and titles is rendered inert everywhere: the
scene page, the htmx fragment, the feed, the e-mail and the scene list.

Markdown is rendered with raw HTML disabled and the result sanitised by nh3: no script, no event
handlers, no style, only http/https/mailto links with rel="nofollow noopener".
"""

from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest
from django.urls import reverse

from escenas import notifications, services
from escenas.rendering import render_markdown
from personajes.models import Character
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import new_key

PAYLOADS = [
    "<script>alert('xss')</script>",
    '<img src=x onerror="alert(1)">',
    "[pulsa](javascript:alert(1))",
    "[pulsa](JaVaScRiPt:alert(1))",
    '<a href="javascript:alert(1)">enlace</a>',
    '<span style="position:fixed;top:0">tapa la página</span>',
    '<div onmouseover="alert(1)">pasa</div>',
    "![x](javascript:alert(1))",
    '"><svg onload=alert(1)>',
    "<iframe src=//evil.example></iframe>",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
]

DANGEROUS = [
    re.compile(r"<script", re.I),
    re.compile(r"<(img|svg|iframe|span|div)[^>]*\son\w+\s*=", re.I),
    re.compile(r"<[a-z][^>]*\son\w+\s*=", re.I),
    re.compile(r"<a\b[^>]*href\s*=\s*[\"']?\s*(javascript|data):", re.I),
    re.compile(r"<[a-z][^>]*\sstyle\s*=", re.I),
    re.compile(r"<iframe", re.I),
    re.compile(r"<svg", re.I),
]


SITE_SCRIPT = re.compile(r'<script src="/static/[^"]+"( defer)?( nonce="[\w-]+")?></script>')


def assert_inert(html: str, where: str) -> None:
    html = SITE_SCRIPT.sub("", html)  # the site's own scripts (htmx), served from /static/
    for pattern in DANGEROUS:
        match = pattern.search(html)
        assert match is None, f"{where}: {match.group(0) if match else ''}"


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_renderer_neutralises(payload):
    assert_inert(render_markdown(payload), payload)


def test_links_get_rel_nofollow_noopener():
    html = render_markdown("[mapa](https://example.org/mapa)")
    assert 'href="https://example.org/mapa"' in html
    assert 'rel="nofollow noopener"' in html


def test_payloads_everywhere(
    campaign, master, player_a, char_a, story, mailoutbox, django_capture_on_commit_callbacks
):
    hostile = "\n\n".join(PAYLOADS)
    # Names and titles the players and the master control, too.
    Character.objects.filter(pk=char_a.pk).update(name='<img src=x onerror="alert(2)">Ana')
    char_a.refresh_from_db()
    story.title = "<script>alert('título')</script>"
    story.save()
    with django_capture_on_commit_callbacks(execute=True):
        services.post_create(
            access=access_for(story, player_a),
            author=player_a,
            idempotency_key=new_key(),
            body=hostile,
            voice="character",
            character=char_a,
            note_to_master=hostile,
            roll=services.RollSpec(
                kind="expression", expression="1d6", reason='<b onclick="alert(3)">motivo</b>'
            ),
        )
        services.post_create(
            access=access_for(story, master),
            author=master,
            idempotency_key=new_key(),
            voice="npc",
            npc_name='<script>alert("pnj")</script>',
            body="Habla el PNJ",
        )
    slug = campaign.slug
    token = notifications.preference_get_or_create(user=master).feed_token
    surfaces = {
        "page": client_for(master).get(story.get_absolute_url()),
        "fragment": client_for(master).get(
            reverse("escenas:poll", args=[slug, story.pk]) + "?after=0&since=0",
            HTTP_HX_REQUEST="true",
        ),
        "list": client_for(master).get(reverse("escenas:scene_list", args=[slug])),
        "search": client_for(master).get(reverse("escenas:search", args=[slug]), {"q": "alert"}),
    }
    for where, response in surfaces.items():
        assert response.status_code == 200
        html = response.content.decode()
        assert_inert(html, where)
    page = surfaces["page"].content.decode()
    assert "&lt;script&gt;" in page  # shown as text, not dropped silently
    feed = client_for(None).get(reverse("escenas:private_feed", args=[token, slug, story.pk]))
    # Atom: titles are text; the entries' HTML is a string inside the XML — check that HTML.
    root = ElementTree.fromstring(feed.content)
    atom = "{http://www.w3.org/2005/Atom}"
    summaries = [e.text or "" for e in root.iter(f"{atom}summary")]
    assert summaries
    for summary in summaries:
        assert_inert(summary, "feed")
    assert mailoutbox
    for message in mailoutbox:
        for body, _mime in message.alternatives:
            assert_inert(body, "e-mail")
