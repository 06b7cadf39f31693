"""One vocabulary for a roll: the service's ``RollSpec`` and error keys, the post form's
``roll_<name>`` inputs and the API's ``roll`` object name the same things the same way, and a
refusal of the service lands next to the input that caused it, on every surface.
Source: personajes.rolls (the vocabulary), RULES.md R3."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps as django_apps
from django.urls import reverse

from escenas import services
from escenas.forms import PostForm
from escenas.models import Draft, Post
from nucleo.errors import ServiceError
from nucleo.forms import add_service_errors
from personajes.models import Roll
from tests.escenas.conftest import access_for, client_for
from tests.escenas.factories import new_key

VOCABULARY = ("kind", "character", "trait", "threshold", "probability", "expression", "reason")


def test_the_post_forms_roll_inputs_are_the_roll_vocabulary_flattened(story, player_a, master):
    for user in (player_a, master):
        form = PostForm(access=access_for(story, user))
        roll_inputs = {name for name in form.fields if name.startswith("roll_")}
        expected = {f"roll_{name}" for name in VOCABULARY}
        if user == master:
            expected.add("roll_hidden")  # only the master may hide a roll
        assert roll_inputs == expected
    assert {f.name for f in services.RollSpec.__dataclass_fields__.values()} == {
        *VOCABULARY,
        "hidden",
    }


def test_a_roll_refused_inside_a_post_is_keyed_under_roll(story, player_a, char_a):
    access = access_for(story, player_a)
    with pytest.raises(ServiceError) as refused:
        services.post_create(
            access=access,
            author=player_a,
            idempotency_key=new_key(),
            voice=Post.Voice.CHARACTER,
            character=char_a,
            roll=services.RollSpec(kind="action", character=char_a, trait="volar"),
        )
    assert list(refused.value.message_dict) == ["roll.trait"]
    assert "volar" in refused.value.message_dict["roll.trait"][0]
    assert Post.objects.count() == 0 and Roll.objects.count() == 0


def test_the_form_shows_the_services_refusal_next_to_the_roll_input(story, player_a, char_a):
    response = client_for(player_a).post(
        reverse("escenas:post_create", args=[story.campaign.slug, story.pk]),
        {
            "idempotency_key": new_key(),
            "voice": f"character:{char_a.pk}",
            "body": "Intento volar.",
            "roll_kind": "action",
            "roll_character": char_a.pk,
            "roll_trait": "volar",  # offered by no select: only a forged request sends it
            "roll_threshold": "30",
        },
    )
    assert response.status_code == 400
    form = response.context["form"]
    assert list(form.errors) == ["roll_trait"]
    assert Post.objects.count() == 0


def test_a_bad_threshold_from_the_service_lands_on_roll_threshold(story, player_a, char_a):
    access = access_for(story, player_a)
    with pytest.raises(ServiceError) as refused:
        services.post_create(
            access=access,
            author=player_a,
            idempotency_key=new_key(),
            voice=Post.Voice.CHARACTER,
            character=char_a,
            roll=services.RollSpec(kind="action", character=char_a, trait="fuerza", threshold=101),
        )
    assert list(refused.value.message_dict) == ["roll.threshold"]
    form = PostForm({"idempotency_key": new_key(), "voice": "player", "body": "x"}, access=access)
    assert form.is_valid()
    add_service_errors(form, refused.value)
    assert list(form.errors) == ["roll_threshold"]


def test_drafts_saved_with_the_old_input_names_keep_their_roll(story, player_a):
    draft = Draft.objects.create(
        user=player_a,
        scene=story,
        idempotency_key=new_key(),
        body="Medio escrito",
        data={"roll_kind": "action", "trait": "fuerza", "threshold": "30", "voice": "player"},
    )
    migration = importlib.import_module("escenas.migrations.0002_roll_vocabulary_in_drafts")
    migration.forwards(django_apps, None)
    draft.refresh_from_db()
    assert draft.data == {
        "roll_kind": "action",
        "roll_trait": "fuerza",
        "roll_threshold": "30",
        "voice": "player",
    }
    migration.backwards(django_apps, None)
    draft.refresh_from_db()
    assert draft.data["trait"] == "fuerza" and "roll_trait" not in draft.data
