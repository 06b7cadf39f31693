"""The API lists built as plain dicts answer exactly what their serializers answer.

``GET /api/v1/characters/{id}/rolls/`` (``personajes.api_rolls.roll_rows``),
``/campaigns/{slug}/characters/`` and ``/characters/`` (``summary_rows``) and
``/campaigns/{slug}/scenes/`` (``escenas.api.scene_data``) skip DRF's per-field work (issue 14);
their serializers stay the schema and the detail views' answer. Each test compares the list's
JSON with the serializer's, rendered the same way, on rows that reach every branch: nulls,
modifiers, a portrait, diaries, participants, unread counts, dates.
"""

from __future__ import annotations

import json
import uuid

import pytest
from rest_framework.renderers import JSONRenderer

from tests.api.conftest import session_client

pytestmark = pytest.mark.django_db


def as_json(data):
    """What the API's renderer makes of serializer data, read back."""
    return json.loads(JSONRenderer().render(data))


@pytest.fixture
def ana(campaign, player_a):
    from personajes.models import Character
    from tests.factories import CharacterFactory

    return CharacterFactory(
        campaign=campaign,
        player=player_a,
        name="Ana",
        status=Character.Status.APPROVED,
        allocation={"fuerza": 2},
    )


def test_character_rolls_are_the_roll_serializers(ana, master, player_a):
    from personajes.api_rolls import RollSerializer
    from personajes.models import Roll
    from personajes.rolls import roll_action_for_character

    made = [
        roll_action_for_character(character=ana, trait="fuerza", threshold=t, made_by=player_a)
        for t in (30, 60, 90)
    ]
    open_roll = roll_action_for_character(
        character=ana, trait="fuerza", threshold=None, made_by=player_a
    )
    # A roll whose maker and trait were deleted, with a modifier line; one with a line
    # missing its label (left out, as the serializer leaves it out).
    Roll.objects.filter(pk=made[0].pk).update(
        made_by=None,
        trait=None,
        modifiers=[{"source": "hunger", "label": "Hambre", "points": -10}],
        generator_key=[999, 9, ana.pk, 12345],
    )
    Roll.objects.filter(pk=made[1].pk).update(modifiers=[{"source": "dirt", "points": -5}])
    for who in (player_a, master):
        body = session_client(who).get(f"/api/v1/characters/{ana.pk}/rolls/").json()
        rolls = Roll.objects.filter(character=ana).select_related("made_by", "trait", "campaign")
        expected = as_json(RollSerializer(rolls.order_by("-created_at", "-id"), many=True).data)
        assert body["count"] == 4
        assert body["results"] == expected
        assert [r["id"] for r in body["results"]] == [open_roll.pk, *(r.pk for r in made[::-1])]
        first = body["results"][-1]
        assert first["made_by"] is None and first["trait"] is None
        assert first["modifiers"] == [{"source": "hunger", "label": "Hambre", "points": -10}]
        assert body["results"][-2]["modifiers"] == [{"source": "dirt", "points": -5}]
        assert body["results"][0]["base_threshold"] is None
        assert body["results"][0]["created_at"].endswith(("+01:00", "+02:00"))  # Madrid


def test_character_lists_are_the_summary_serializers(campaign, master, player_a, player_b, ana):
    from personajes.api import CharacterSummarySerializer
    from personajes.models import Character
    from tests.factories import CharacterFactory

    CharacterFactory(
        campaign=campaign,
        player=player_b,
        name="Bruno",
        status=Character.Status.DEAD,
        death_cause="hambre",
        death_day=4,
    )
    CharacterFactory(campaign=campaign, player=player_a, name="Borrador")  # a draft
    Character.objects.filter(pk=ana.pk).update(portrait="retratos/ana.png")
    cases = [
        (master, f"/api/v1/campaigns/{campaign.slug}/characters/", {"campaign": campaign}),
        (player_b, f"/api/v1/campaigns/{campaign.slug}/characters/", {"campaign": campaign}),
        (player_a, "/api/v1/characters/", {"player": player_a}),
    ]
    for who, url, scope in cases:
        response = session_client(who).get(url)
        rows = response.json()["results"]
        request = response.wsgi_request
        shown = Character.objects.filter(pk__in=[r["id"] for r in rows], **scope)
        order = {r["id"]: i for i, r in enumerate(rows)}
        characters = sorted(shown.select_related("campaign", "player"), key=lambda c: order[c.pk])
        expected = CharacterSummarySerializer(characters, many=True, context={"request": request})
        assert len(characters) == len(rows)
        assert rows == as_json(expected.data)
    rows = session_client(player_b).get(f"/api/v1/campaigns/{campaign.slug}/characters/").json()
    by_name = {r["name"]: r for r in rows["results"]}
    assert set(by_name) == {"Ana", "Bruno"}  # not player_a's draft
    assert by_name["Ana"]["portrait"] == f"http://testserver/personajes/{ana.pk}/retrato/"
    assert by_name["Bruno"] | {"id": 0} == {
        "id": 0,
        "campaign": campaign.slug,
        "name": "Bruno",
        "player": player_b.username,
        "status": "dead",
        "death_cause": "hambre",
        "death_day": 4,
        "portrait": None,
    }


def test_scene_list_is_the_scene_serializers(campaign, master, player_a, player_b, ana):
    from escenas import access, listing, scenes, services
    from escenas.api import SceneSerializer
    from mundo.access import access_campaign
    from personajes.access import with_characters
    from tests.factories import CharacterFactory

    bruno = CharacterFactory(campaign=campaign, player=player_b, name="Bruno")
    story = scenes.scene_create(
        campaign=campaign, master=master, title="La gasolinera", participants=[ana, bruno]
    )
    scenes.scene_create(campaign=campaign, master=master, title="Solo Bruno", participants=[bruno])
    scenes.offtopic_scene_for(campaign)
    scenes.diaries_ensure(campaign=campaign)
    for body in ("Llegamos.", "Está cerrada."):
        got = access.access_scene(master, story.pk, campaign=campaign)
        services.post_create(
            access=got,
            author=master,
            idempotency_key=uuid.uuid4().hex,
            body=body,
            voice="narrator",
        )
    for who in (master, player_a, player_b):
        body = session_client(who).get(f"/api/v1/campaigns/{campaign.slug}/scenes/").json()
        found, viewer = access_campaign(who, slug=campaign.slug)
        viewer = with_characters(found, viewer)
        page = list(listing.scene_list(found, viewer)[:50])
        rows = listing.scene_rows(page, viewer, found)
        expected = as_json(SceneSerializer(rows, many=True, context={"viewer": viewer}).data)
        assert body["results"] == expected
        first = body["results"][0]
        assert first["title"] == "La gasolinera"
        assert first["participants"] == [ana.pk, bruno.pk]  # by name
        assert first["last_post_at"] is not None
        assert first["unread"] == (0 if who == master else 2)
    kinds = [r["kind"] for r in body["results"]]
    assert kinds == ["story", "story", "offtopic", "diary"]  # player_b: Bruno's diary only


def test_scene_list_reads_no_last_posts(
    campaign, master, player_a, ana, settings, django_assert_num_queries
):
    """Scenes with posts cost what empty ones cost: the API shows no preview, so the page's
    last posts are not read (``test_queries`` pins the 7: user, campaign with role, my
    characters, count, page, diary characters, participants). Answers not kept, so the second
    read builds the list again (``nucleo.api_answers``)."""
    from escenas import access, scenes, services

    settings.ESCENAS_API_ANSWERS = False

    story = scenes.scene_create(campaign=campaign, master=master, title="A", participants=[ana])
    scenes.diary_scene_for(ana)
    got = access.access_scene(master, story.pk, campaign=campaign)
    services.post_create(
        access=got, author=master, idempotency_key=uuid.uuid4().hex, body="Hola.", voice="narrator"
    )
    client = session_client(player_a)
    url = f"/api/v1/campaigns/{campaign.slug}/scenes/"
    assert client.get(url).json()["results"][0]["last_post_at"] is not None
    with django_assert_num_queries(7):
        client.get(url)


def test_scene_posts_are_the_post_serializers(cast, campaign, master, player_a, player_b):
    """``escenas.api_post_data`` against ``PostSerializer`` for every viewer of a scene with
    an edited post, an open roll, a hidden roll (masked for players), whispers, a note to the
    master, a deleted post (the master's only) and replies, one to a whisper (not named to
    whoever may not see it)."""
    from escenas import access, scenes, selectors, services
    from escenas.api import PostSerializer, with_rolls
    from tests.escenas.test_fragment_cache import fill
    from tests.escenas.test_permissions import write

    scene = scenes.offtopic_scene_for(campaign)
    first = fill(scene, cast, secrets=True, writes_a=True)
    whisper = selectors.scene_posts(scene, access.access_scene(master, scene.pk).viewer).filter(
        is_whisper=True
    )[0]
    write(scene, player_a, "Respondo al primero", reply_to=first)
    write(scene, player_a, "Respondo al susurro", reply_to=whisper.pk)
    services.post_edit(
        post=write(scene, master, "Otra"), editor=master, body="Otra, editada", note_to_master=""
    )
    for who in ("master", "player_a", "player_b"):
        user = cast[who]
        body = session_client(user).get(f"/api/v1/scenes/{scene.pk}/posts/?page_size=100").json()
        got = access.access_scene(user, scene.pk, one_query=True)
        posts = list(selectors.scene_posts(got.scene, got.viewer))
        with_rolls(posts, got)
        views = [selectors.post_view(p, got.viewer) for p in posts]
        assert body["results"] == as_json(PostSerializer(views, many=True).data), who
        masked = [r for p in body["results"] for r in p["rolls"] if r["masked"]]
        assert len(masked) == (0 if who == "master" else 1), who
        assert all(r["id"] is None and r["roll"] is None for r in masked)
        replies = [p["reply_to"] for p in body["results"] if p["body"].startswith("Respondo")]
        assert replies[0] == first
        assert replies[1] == (None if who == "player_b" else whisper.pk), who
