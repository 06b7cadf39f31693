"""Integrity of the play loop: rolls made on the server at submit time, never re-rolled.

Edit after a roll keeps the dice and stores a revision; delete hides from players but not from
the master; a double or retried submit makes one post and one roll; forged fields are ignored.
Source: DESIGN.md "Randomness and the roll ledger", RULES.md R2–R4, R9.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from escenas import services
from escenas.models import Draft, Post, PostRevision, PostRoll, RollRequest, Scene
from mundo.models import Membership
from nucleo.ledger import USER_SUBJECT_OFFSET, PlayerShare
from personajes.models import Roll, Trait
from reglas.core import make_rng
from reglas.dice import roll_action
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import new_key


def post_url(scene: Scene) -> str:
    return reverse("escenas:post_create", args=[scene.campaign.slug, scene.pk])


def share_of(post: Post, user) -> bytes:
    """The player's share mixed into a post's rolls (issue 16): its text and the seed."""
    seed = Membership.objects.get(campaign=post.campaign_id, user=user).dice_seed
    return PlayerShare.of(text=post.body, seed=seed).digest()


def action_post(scene, user, char, key=None, **extra):
    data = {
        "idempotency_key": key or new_key(),
        "voice": f"character:{char.pk}",
        "body": "Intento forzar la puerta.",
        "roll_kind": "action",
        "roll_character": char.pk,
        "roll_trait": "fuerza",
        "roll_threshold": "30",
        "roll_reason": "Puerta",
    }
    data.update(extra)
    return client_for(user).post(post_url(scene), data)


def test_action_roll_in_a_post_uses_the_sheet_and_the_generator_key(story, player_a, char_a):
    # Fuerza 2 → 3 d100 against 30 %, generator key (day 7, purpose 1, character, 0).
    assert action_post(story, player_a, char_a).status_code == 302
    post = Post.objects.get()
    roll = post.post_rolls.get().roll
    assert (roll.kind, roll.trait_name, roll.trait_value, roll.base_threshold) == (
        "action",
        "Fuerza",
        2,
        30,
    )
    assert roll.generator_key == [7, 1, char_a.pk, 0]
    # The post's text and the player's seed are mixed in (issue 16, the player's share).
    share = share_of(post, player_a)
    expected = roll_action(
        2, 30, make_rng(story.campaign.entropy_int, [7, 1, char_a.pk, 0], share=share)
    )
    assert roll.dice == list(expected.dice)
    assert roll.success == expected.success
    assert roll.made_by == player_a


def test_double_submit_makes_one_post_and_one_roll(story, player_a, char_a):
    key = new_key()
    first = action_post(story, player_a, char_a, key=key)
    second = action_post(story, player_a, char_a, key=key, body="otra vez")
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    assert Post.objects.count() == 1
    assert Roll.objects.count() == 1
    assert Post.objects.get().body == "Intento forzar la puerta."


def test_a_retry_through_the_service_returns_the_stored_post(story, player_a, char_a):
    access = access_for(story, player_a)
    spec = services.RollSpec(kind="expression", expression="2d6+1")
    key = new_key()
    one, first = services.post_create(
        access=access, author=player_a, idempotency_key=key, roll=spec
    )
    two, again = services.post_create(
        access=access, author=player_a, idempotency_key=key, roll=spec
    )
    assert (first, again) == (True, False)
    assert one.pk == two.pk
    assert Roll.objects.count() == 1


def test_someone_elses_key_is_refused(story, player_a, master, char_a):
    key = new_key()
    services.post_create(
        access=access_for(story, player_a), author=player_a, idempotency_key=key, body="mío"
    )
    with pytest.raises(services.ServiceError):
        services.post_create(
            access=access_for(story, master), author=master, idempotency_key=key, body="no"
        )


def test_forged_dice_and_outcome_fields_are_ignored(story, player_a, char_a):
    forged = {
        "dice": "100,100,100",
        "dice[]": "1",
        "success": "true",
        "successes": "3",
        "total": "300",
        "effective_threshold": "100",
        "base_threshold": "100",
        "generator_key": "[0,0,0,0]",
        "trait_value": "99",
        "roll_hidden": "on",  # a player cannot hide a roll
    }
    assert action_post(story, player_a, char_a, **forged).status_code == 302
    link = PostRoll.objects.select_related("post", "roll").get()
    roll = link.roll
    share = share_of(link.post, player_a)
    expected = roll_action(2, 30, make_rng(story.campaign.entropy_int, roll.generator_key, share))
    assert roll.dice == list(expected.dice)
    assert (roll.trait_value, roll.base_threshold, roll.effective_threshold) == (2, 30, 30)
    assert roll.generator_key == [7, 1, char_a.pk, 0]
    assert PostRoll.objects.get().hidden is False


def test_a_player_cannot_roll_for_someone_elses_character(story, player_a, char_a, char_b):
    story.participants.add(char_b)
    response = action_post(story, player_a, char_a, roll_character=char_b.pk)
    assert response.status_code == 400  # char_b is not among A's choices
    assert Roll.objects.count() == 0 and Post.objects.count() == 0
    with pytest.raises(services.ServiceError):
        services.post_create(
            access=access_for(story, player_a),
            author=player_a,
            idempotency_key=new_key(),
            roll=services.RollSpec(kind="action", character=char_b, trait="fuerza"),
        )
    assert Roll.objects.count() == 0


def test_edit_after_the_roll_keeps_the_dice_and_stores_a_revision(story, player_a, master, char_a):
    action_post(story, player_a, char_a)
    post = Post.objects.get()
    roll_before = Roll.objects.values().get()
    url = reverse("escenas:post_edit", args=[story.campaign.slug, post.pk])
    response = client_for(player_a).post(url, {"body": "En realidad, la rompo de una patada."})
    assert response.status_code == 302
    post.refresh_from_db()
    assert post.body == "En realidad, la rompo de una patada."
    assert post.edited_after_roll
    assert Roll.objects.values().get() == roll_before  # not one field of the roll changed
    revision = PostRevision.objects.get()
    assert (revision.body, revision.after_roll) == ("Intento forzar la puerta.", True)
    # Everyone sees the mark; the master sees the revision, players do not.
    page = client_for(player_a).get(story.get_absolute_url()).content.decode()
    assert "editado (después de la tirada)" in page
    assert "revisiones" not in page and "1 revisión" not in page
    master_page = client_for(master).get(story.get_absolute_url()).content.decode()
    assert "1 revisión" in master_page
    revisions = client_for(master).get(
        reverse("escenas:post_revisions", args=[story.campaign.slug, post.pk])
    )
    assert "Intento forzar la puerta." in revisions.content.decode()
    assert (
        client_for(player_a)
        .get(reverse("escenas:post_revisions", args=[story.campaign.slug, post.pk]))
        .status_code
        == 404
    )


def test_only_the_author_edits(story, player_a, master, char_a):
    action_post(story, player_a, char_a)
    post = Post.objects.get()
    url = reverse("escenas:post_edit", args=[story.campaign.slug, post.pk])
    assert client_for(master).post(url, {"body": "cambiado"}).status_code == 403
    with pytest.raises(services.ServiceError):
        services.post_edit(post=post, editor=master, body="cambiado")
    post.refresh_from_db()
    assert post.body == "Intento forzar la puerta."


def test_delete_then_repost_keeps_the_first_roll_for_the_master(
    story, player_a, player_b, master, char_a
):
    action_post(story, player_a, char_a, body="Primer intento")
    first = Post.objects.get()
    first_dice = first.post_rolls.get().roll.dice
    response = client_for(player_a).post(
        reverse("escenas:post_delete", args=[story.campaign.slug, first.pk])
    )
    assert response.status_code == 302
    action_post(story, player_a, char_a, body="Segundo intento")
    second = Post.objects.exclude(pk=first.pk).get()
    # The second roll is a new roll (sequence 1), not a replay of the first.
    assert second.post_rolls.get().roll.generator_key == [7, 1, char_a.pk, 1]
    assert Roll.objects.count() == 2
    for user in (player_a, player_b):
        html = client_for(user).get(story.get_absolute_url()).content.decode()
        assert "Primer intento" not in html and "Segundo intento" in html
    html = client_for(master).get(story.get_absolute_url()).content.decode()
    assert "Primer intento" in html and "borrado por alicia" in html
    for die in first_dice:
        assert f'">{die}</li>' in html
    assert client_for(player_b).get(first.get_absolute_url()).status_code == 404


def test_threshold_later_the_dice_are_fixed_at_posting(story, player_a, master, char_a):
    action_post(story, player_a, char_a, roll_threshold="")
    post_roll = PostRoll.objects.get()
    roll = post_roll.roll
    assert roll.base_threshold is None and roll.success is None
    page = client_for(player_a).get(story.get_absolute_url()).content.decode()
    assert "el máster" in page and "threshold-input" not in page  # only the master sets it
    dice = list(roll.dice)
    forbidden = client_for(player_a).post(
        reverse("escenas:roll_threshold", args=[story.campaign.slug, post_roll.pk]),
        {"threshold": "100"},
    )
    assert forbidden.status_code == 404
    response = client_for(master).post(
        reverse("escenas:roll_threshold", args=[story.campaign.slug, post_roll.pk]),
        {"threshold": "40"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    roll.refresh_from_db()
    assert roll.dice == dice and roll.base_threshold == 40
    assert roll.success == any(d <= 40 for d in dice)
    # Set once: a second threshold changes nothing.
    client_for(master).post(
        reverse("escenas:roll_threshold", args=[story.campaign.slug, post_roll.pk]),
        {"threshold": "90"},
    )
    roll.refresh_from_db()
    assert roll.base_threshold == 40


def test_event_roll_probability_later(story, master, player_a, char_a):
    access = access_for(story, player_a)
    post, _created = services.post_create(
        access=access,
        author=player_a,
        idempotency_key=new_key(),
        body="¿Llueve?",
        roll=services.RollSpec(kind="event", probability=None),
    )
    post_roll = post.post_rolls.get()
    roll = post_roll.roll
    assert roll.success is None and len(roll.dice) == 1
    services.roll_threshold_set(post_roll=post_roll, master=master, threshold=26)
    roll.refresh_from_db()
    assert roll.success == (roll.dice[0] <= 26)
    with pytest.raises(services.ServiceError):
        services.roll_threshold_set(post_roll=post_roll, master=master, threshold=99)


def test_event_and_expression_keys_follow_the_scheme(story, player_a, master, char_a):
    access = access_for(story, player_a)
    for _ in range(2):
        services.post_create(
            access=access,
            author=player_a,
            idempotency_key=new_key(),
            voice="character",
            character=char_a,
            roll=services.RollSpec(kind="event", probability=26),
        )
    services.post_create(
        access=access_for(story, master),
        author=master,
        idempotency_key=new_key(),
        voice="narrator",
        roll=services.RollSpec(kind="expression", expression="3d100<=40 asalto"),
    )
    keys = list(Roll.objects.order_by("id").values_list("generator_key", flat=True))
    assert keys == [
        [7, 2, char_a.pk, 0],
        [7, 2, char_a.pk, 1],
        [7, 3, master.pk + USER_SUBJECT_OFFSET, 0],
    ]
    expression = Roll.objects.get(kind="expression")
    assert expression.reason == "asalto"
    assert expression.successes == sum(d <= 40 for d in expression.dice[0]["faces"])


def test_a_bad_expression_rolls_nothing_and_saves_nothing(story, player_a, char_a):
    response = client_for(player_a).post(
        post_url(story),
        {
            "idempotency_key": new_key(),
            "voice": f"character:{char_a.pk}",
            "body": "Tiro muchos dados",
            "roll_kind": "expression",
            "roll_expression": "5000d6",
        },
    )
    assert response.status_code == 400
    assert "máximo" in response.content.decode()
    assert Post.objects.count() == 0 and Roll.objects.count() == 0


def test_a_failing_roll_leaves_nothing_half_saved(story, player_a, char_a):
    # An unknown trait is refused by the characters service after the post row was written:
    # the whole transaction rolls back.
    access = access_for(story, player_a)
    with pytest.raises(services.ServiceError):
        services.post_create(
            access=access,
            author=player_a,
            idempotency_key=new_key(),
            body="Texto",
            roll=services.RollSpec(kind="action", character=char_a, trait="volar"),
        )
    assert Post.objects.count() == 0 and Roll.objects.count() == 0


def test_hidden_rolls_are_the_masters_only(story, master, player_a, char_a):
    access = access_for(story, master)
    with pytest.raises(services.ServiceError):
        services.post_create(
            access=access_for(story, player_a),
            author=player_a,
            idempotency_key=new_key(),
            body="x",
            roll=services.RollSpec(kind="expression", expression="1d6", hidden=True),
        )
    services.post_create(
        access=access,
        author=master,
        idempotency_key=new_key(),
        voice="narrator",
        body="Algo se mueve.",
        roll=services.RollSpec(
            kind="action", character=char_a, trait="percepcion", threshold=50, hidden=True
        ),
    )
    roll = Roll.objects.get()
    html = client_for(player_a).get(story.get_absolute_url()).content.decode()
    assert "Algo se mueve." in html and "Una tirada secreta" in html
    assert "Percepción 1" not in html
    master_html = client_for(master).get(story.get_absolute_url()).content.decode()
    assert "Percepción 1" in master_html
    assert all(f'">{d}</li>' in master_html for d in roll.dice)
    # Nor on the character's own sheet, its roll page or the API: one selector for all.
    sheet = client_for(player_a).get(char_a.get_absolute_url())
    assert roll not in sheet.context["rolls"]
    roll_page = reverse("personajes:roll", kwargs={"pk": char_a.pk}) + f"?tirada={roll.pk}"
    assert client_for(player_a).get(roll_page).context["roll"] is None
    api = client_for(player_a).get(f"/api/v1/characters/{char_a.pk}/rolls/").json()
    assert roll.pk not in [r["id"] for r in api["results"]]
    assert roll in client_for(master).get(char_a.get_absolute_url()).context["rolls"]


def test_roll_request_is_fulfilled_with_one_click(story, master, player_a, char_a):
    trait = Trait.objects.get(campaign=story.campaign, slug="percepcion")
    request = services.roll_request_create(
        access=access_for(story, master),
        master=master,
        character=char_a,
        trait=trait,
        threshold=45,
        reason="¿Oyes algo?",
    )
    page = client_for(player_a).get(story.get_absolute_url())
    html = page.content.decode()
    assert "Tirar Percepción y publicar" in html
    key = page.context["form"].initial["idempotency_key"]
    data = {"idempotency_key": key, "voice": f"character:{char_a.pk}", "fulfil": str(request.pk)}
    response = client_for(player_a).post(post_url(story), data)
    assert response.status_code == 302
    request.refresh_from_db()
    roll = request.fulfilled_roll
    assert roll is not None and roll.trait_name == "Percepción" and roll.base_threshold == 45
    assert roll.reason == "¿Oyes algo?" and len(roll.dice) == 2
    # A retry of the same click does not roll again, and the request is answered once.
    client_for(player_a).post(post_url(story), data)
    assert Roll.objects.count() == 1
    assert (
        "Tirar Percepción"
        not in client_for(player_a).get(story.get_absolute_url()).content.decode()
    )


def test_someone_else_cannot_answer_a_request(story, master, player_a, player_b, char_a, char_b):
    story.participants.add(char_b)
    trait = Trait.objects.get(campaign=story.campaign, slug="sigilo")
    request = services.roll_request_create(
        access=access_for(story, master), master=master, character=char_a, trait=trait
    )
    with pytest.raises(services.ServiceError):
        services.post_create(
            access=access_for(story, player_b),
            author=player_b,
            idempotency_key=new_key(),
            fulfil=[request.pk],
        )
    assert RollRequest.objects.get().fulfilled_roll is None


def test_a_draft_keeps_the_key_so_the_roll_is_made_once(story, player_a, char_a):
    client = client_for(player_a)
    key = client.get(story.get_absolute_url()).context["form"].initial["idempotency_key"]
    draft_url = reverse("escenas:draft", args=[story.campaign.slug, story.pk])
    response = client.post(
        draft_url,
        {
            "idempotency_key": key,
            "body": "Medio escrito…",
            "roll_trait": "fuerza",
            "roll_kind": "action",
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and "Borrador guardado" in response.content.decode()
    # A new session (the old one expired): the form comes back with the text and the same key.
    again = client_for(player_a).get(story.get_absolute_url())
    form = again.context["form"]
    assert form.initial["idempotency_key"] == key
    assert form.initial["body"] == "Medio escrito…"
    assert "Medio escrito…" in again.content.decode()
    action_post(story, player_a, char_a, key=key)
    action_post(story, player_a, char_a, key=key)  # the old tab sends it too
    assert Roll.objects.count() == 1 and Post.objects.count() == 1
    assert not Draft.objects.exists()


def test_save_draft_button_without_javascript(story, player_a, char_a):
    response = client_for(player_a).post(
        post_url(story),
        {"idempotency_key": new_key(), "body": "Lo acabo luego", "save_draft": "1"},
    )
    assert response.status_code == 302
    assert Draft.objects.get().body == "Lo acabo luego"
    assert Post.objects.count() == 0 and Roll.objects.count() == 0


def test_a_client_cannot_take_the_key_of_a_diary_post(story, player_a, char_a):
    # The tick keys each diary post "diario:<day>"; a client key with a colon is refused, so
    # no one can pre-empt (and so suppress) a day's diary post.
    with pytest.raises(services.ServiceError):
        services.post_create(
            access=access_for(story, player_a),
            author=player_a,
            idempotency_key="diario:12",
            body="x",
        )
    assert Post.objects.count() == 0


@pytest.mark.parametrize(
    "roll",
    [
        services.RollSpec(kind="expression", expression="3d100<=40 disparo"),
        services.RollSpec(kind="expression", expression="1d6+2"),
        services.RollSpec(kind="event", probability=26),
    ],
)
def test_the_owners_sheet_shows_every_kind_of_roll(story, player_a, master, char_a, roll):
    # An expression's dice are stored per term ({"expression", "faces", …}), not as ints.
    services.post_create(
        access=access_for(story, player_a),
        author=player_a,
        idempotency_key=new_key(),
        voice="character",
        character=char_a,
        body="Tiro.",
        roll=roll,
    )
    stored = Roll.objects.get()
    for user in (player_a, master):
        response = client_for(user).get(char_a.get_absolute_url())
        assert response.status_code == 200
        html = response.content.decode()
        faces = (
            [f for term in stored.dice for f in term["faces"]]
            if stored.kind == "expression"
            else stored.dice
        )
        assert all(f">{face}<" in html for face in faces)
