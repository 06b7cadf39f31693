"""An engine refusal reaches the reader in their language: Spanish by default, English with the
``django_language=en`` cookie (the engine raises a code and values; ``nucleo.rules_errors``
words them). player_a writes in the ``story`` scene of ``world`` (tests/api/conftest.py)."""

from __future__ import annotations

import pytest
from django.utils import translation

from escenas.models import Post
from mundo import rules
from nucleo.errors import ServiceError
from personajes.models import Roll

BAD = {"roll": {"kind": "expression", "expression": "2d"}}
SPANISH = "La expresión «2d» no es válida: falta el número de caras tras «d» (por ejemplo 2d6)."
ENGLISH = (
    "The expression «2d» is not valid: the number of faces is missing after «d» (for example 2d6)."
)


def _post_bad_expression(client, scene, key: str):
    before = Post.objects.count(), Roll.objects.count()
    response = client.post(
        f"/api/v1/scenes/{scene.pk}/posts/", {**BAD, "idempotency_key": key}, format="json"
    )
    assert response.status_code == 400, response.content
    assert (Post.objects.count(), Roll.objects.count()) == before
    return response.json()["roll"]["expression"]


def test_an_engine_refusal_is_spanish_by_default_and_english_with_the_cookie(world, clients):
    client = clients["player_a"]
    assert _post_bad_expression(client, world["story"], "i18n-es-0001") == [SPANISH]
    client.cookies["django_language"] = "en"
    assert _post_bad_expression(client, world["story"], "i18n-en-0001") == [ENGLISH]


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("es", "El ajuste «disease_duration» debe ser una tirada simple como 1d6+2."),
        ("en", "The setting «disease_duration» must be a simple roll such as 1d6+2."),
    ],
)
def test_a_refused_rule_setting_is_worded_in_the_active_language(
    world, campaign, master, language, message
):
    with translation.override(language), pytest.raises(ServiceError) as info:
        rules.rule_settings_save(
            campaign=campaign,
            user=master,
            group="R12",
            values={"disease_duration": "1d6>3"},
        )
    assert info.value.message_dict == {"disease_duration": [message]}
