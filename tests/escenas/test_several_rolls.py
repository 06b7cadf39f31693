"""Several rolls in one post (issue 15 item 2): the post form's three roll slots, each roll
stored with its position, shown on its own, answered by the master on its own (thresholds set
later, hidden rolls); a refusal lands on its own slot; a retry rolls none of them again.

Cast: the master; player A (alicia) plays Ana (char_a) in the story scene; player B plays Bruno.
Source: RULES.md R2–R4 (rolls), DESIGN.md (idempotency).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from escenas import services
from escenas.models import Draft, Post, PostRoll
from nucleo.errors import ServiceError
from personajes.models import Roll
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import new_key


def post_url(scene) -> str:
    return reverse("escenas:post_create", args=[scene.campaign.slug, scene.pk])


def two_roll_form(char, key: str, **extra) -> dict:
    """An action roll without a threshold (the master sets it) and a dice expression."""
    return {
        "idempotency_key": key,
        "voice": f"character:{char.pk}",
        "body": "Fuerzo la persiana y cuento los cartuchos.",
        "roll_kind": "action",
        "roll_character": char.pk,
        "roll_trait": "fuerza",
        "roll_reason": "Persiana",
        "rolls_1_kind": "",
        "rolls_2_kind": "expression",
        "rolls_2_expression": "1d6+2",
        "rolls_2_reason": "Cartuchos",
        **extra,
    }


def test_the_form_makes_two_rolls_in_order_and_a_retry_makes_none(story, player_a, char_a):
    key = new_key()
    client = client_for(player_a)
    first = client.post(post_url(story), two_roll_form(char_a, key))
    assert first.status_code == 302
    post = Post.objects.get()
    links = list(post.post_rolls.order_by("position"))
    assert [(link.position, link.roll.kind, link.roll.reason) for link in links] == [
        (0, "action", "Persiana"),
        (1, "expression", "Cartuchos"),
    ]
    action, dice = (link.roll for link in links)
    assert action.base_threshold is None and len(action.dice) == 3  # Fuerza 2 → 3 d100
    assert 3 <= dice.total <= 8
    # Distinct ledger sequence numbers: the second roll is not the first one's stream.
    assert action.generator_key != dice.generator_key
    again = client.post(post_url(story), two_roll_form(char_a, key, body="otra vez"))
    assert again["Location"] == first["Location"]
    assert (Post.objects.count(), Roll.objects.count()) == (1, 2)


def test_both_rolls_are_shown_and_the_master_answers_one_of_them(story, player_a, master, char_a):
    client_for(player_a).post(post_url(story), two_roll_form(char_a, new_key()))
    action_link = PostRoll.objects.get(position=0)
    page = client_for(master).get(story.get_absolute_url()).content.decode()
    assert page.count('class="roll roll-') == 2
    assert "<code>1d6+2</code>" in page
    assert page.count("threshold-form") == 1  # only the action roll waits for a threshold
    response = client_for(master).post(
        reverse("escenas:roll_threshold", args=[story.campaign.slug, action_link.pk]),
        {"threshold": "40"},
    )
    assert response.status_code == 302
    action = Roll.objects.get(pk=action_link.roll_id)
    assert action.base_threshold == 40
    assert action.success == any(d <= action.effective_threshold for d in action.dice)
    expression = PostRoll.objects.get(position=1).roll
    assert expression.base_threshold is None and expression.total is not None


def test_a_refusal_lands_on_its_own_slot_and_nothing_is_saved(story, player_a, char_a):
    data = two_roll_form(char_a, new_key(), rolls_2_expression="9999d6")
    response = client_for(player_a).post(post_url(story), data)
    assert response.status_code == 400
    form = response.context["form"]
    assert list(form.errors) == ["rolls_2_expression"]
    assert not form.errors.get("roll_expression")
    assert (Post.objects.count(), Roll.objects.count()) == (0, 0)  # the first roll too
    page = response.content.decode()
    # The used slot stays open with what was typed.
    assert '<details class="roll-more" open>' in page and 'value="9999d6"' in page


def test_a_missing_trait_in_a_further_slot_is_that_slots_error(story, player_a, char_a):
    data = two_roll_form(char_a, new_key(), rolls_1_kind="action", rolls_1_trait="")
    response = client_for(player_a).post(post_url(story), data)
    assert response.status_code == 400
    assert response.context["form"].errors["rolls_1_trait"] == ["Elige el rasgo de la tirada."]


def test_the_master_mixes_a_hidden_and_a_public_roll(story, master, player_a, char_a):
    access = access_for(story, master)
    post, created = services.post_create(
        access=access,
        author=master,
        idempotency_key=new_key(),
        voice="narrator",
        body="La noche cae.",
        rolls=[
            services.RollSpec(kind="event", probability=30, reason="¿Llueve?"),
            services.RollSpec(kind="event", probability=10, reason="Horda", hidden=True),
        ],
    )
    assert created
    assert [link.hidden for link in post.post_rolls.order_by("position")] == [False, True]
    page = client_for(player_a).get(story.get_absolute_url()).content.decode()
    assert "¿Llueve?" in page
    assert "Horda" not in page
    assert "Una tirada secreta: sólo el máster ve sus dados." in page


def test_the_service_keys_each_refusal_by_its_index(story, player_a, char_a):
    access = access_for(story, player_a)
    with pytest.raises(ServiceError) as refused:
        services.post_create(
            access=access,
            author=player_a,
            idempotency_key=new_key(),
            voice="character",
            character=char_a,
            rolls=[
                services.RollSpec(kind="event"),
                services.RollSpec(kind="action", character=char_a, trait="no-such"),
            ],
        )
    assert list(refused.value.message_dict) == ["rolls.1.trait"]
    assert Roll.objects.count() == 0


def test_roll_and_rolls_together_are_refused(story, player_a, char_a):
    access = access_for(story, player_a)
    spec = services.RollSpec(kind="event")
    with pytest.raises(ServiceError) as refused:
        services.post_create(
            access=access,
            author=player_a,
            idempotency_key=new_key(),
            body="x",
            roll=spec,
            rolls=[spec],
        )
    assert list(refused.value.message_dict) == ["rolls"]


def test_a_draft_keeps_the_further_slots(story, player_a, char_a):
    data = two_roll_form(char_a, new_key(), save_draft="1")
    client = client_for(player_a)
    client.post(post_url(story), data)
    draft = Draft.objects.get()
    assert draft.data["rolls_2_kind"] == "expression"
    assert draft.data["rolls_2_expression"] == "1d6+2"
    page = client.get(story.get_absolute_url()).content.decode()
    assert 'value="1d6+2"' in page


def _statements_of_a_post_with(scene, author, character, n: int) -> list[str]:
    """The SQL of one post with ``n`` action rolls, through the service."""
    spec = services.RollSpec(kind="action", character=character, trait="fuerza", threshold=30)
    with CaptureQueriesContext(connection) as ctx:
        services.post_create(
            access=access_for(scene, author),
            author=author,
            idempotency_key=new_key(),
            body="Fuerzo la persiana.",
            voice="character",
            character=character,
            rolls=[spec] * n,
        )
    return [q["sql"] for q in ctx.captured_queries]


ROLL_STATEMENTS = 7
"""What each further action roll of a post costs on SQLite: its savepoint and release (2), the
character's lock, the trait, its value, the ledger's sequence count and the roll's insert (5
queries; the roll joins the post's campaign lock without reading the row again, and on
PostgreSQL the ledger's sequence lock is one more, ``nucleo.locks``). The player's share, the
links (one bulk insert) and the rest of the post are paid once (``test_queries.py`` pins the
post with one roll)."""


def test_each_further_roll_costs_a_fixed_number_of_statements(story, player_a, char_a):
    _statements_of_a_post_with(story, player_a, char_a, 1)  # warm-up: the read marker
    from django.db import connection

    one, two, three = (_statements_of_a_post_with(story, player_a, char_a, n) for n in (1, 2, 3))
    each = ROLL_STATEMENTS + (connection.vendor == "postgresql")  # the ledger's sequence lock
    assert len(two) - len(one) == each, "\n".join(two)
    assert len(three) - len(two) == each, "\n".join(three)
    queries = [sql for sql in three if "SAVEPOINT" not in sql]
    assert len(queries) - len([s for s in one if "SAVEPOINT" not in s]) == 2 * (each - 2)
