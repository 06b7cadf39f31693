"""Stored codes shown in the reader's language (issue 15 item 7): the sky the tick stored as the
default table's Spanish label ("nublado") reads "cloudy" in English, and a cause of death
("thirst") reads "sed" in Spanish; a campaign's own labels and unknown codes are shown as stored."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.utils import translation

from mundo.world_texts import sky_name
from personajes.death_causes import DEATH_CAUSES, death_cause_label
from reglas.tables import DEFAULT_WEATHER


@pytest.mark.parametrize(
    ("language", "label", "shown"),
    [
        ("en", "nublado", "cloudy"),
        ("es", "nublado", "nublado"),
        ("en", "ola de calor", "heat wave"),
        ("en", "calima", "calima"),  # a campaign's own sky: as written
    ],
)
def test_sky_names(language, label, shown):
    with translation.override(language):
        assert sky_name(label) == shown
        html = Template("{% load world %}{{ label|sky_name }}").render(Context({"label": label}))
        assert html == shown


def test_every_default_sky_has_a_translated_name():
    with translation.override("en"):
        english = {sky.slug: sky_name(sky.label) for sky in DEFAULT_WEATHER.skies}
    assert english["clear"] == "clear" and english["frost"] == "frost"
    assert all(
        name != sky.label for sky, name in zip(DEFAULT_WEATHER.skies, english.values(), strict=True)
    )


@pytest.mark.parametrize(
    ("language", "code", "shown"),
    [
        ("es", "thirst", "sed"),
        ("es", "bites_same_turn", "tres mordiscos en un turno"),
        ("en", "thirst", "thirst"),
        ("es", "", ""),
        ("es", "meteorito", "meteorito"),
    ],
)
def test_death_causes(language, code, shown):
    with translation.override(language):
        assert death_cause_label(code) == shown


def test_every_death_cause_the_engine_stores_has_a_label():
    from escenas.combat_resolve import DEATH_CAUSE
    from reglas.combat.zombies import DEATH_CONSECUTIVE, DEATH_SAME_TURN
    from reglas.health.tick import CAUSE_DISEASE, CAUSE_INFECTION
    from reglas.survival.needs import CAUSE_FATIGUE, CAUSE_HUNGER, CAUSE_THIRST

    stored = {DEATH_CAUSE, DEATH_CONSECUTIVE, DEATH_SAME_TURN, CAUSE_DISEASE, CAUSE_INFECTION}
    assert stored | {CAUSE_FATIGUE, CAUSE_HUNGER, CAUSE_THIRST} == set(DEATH_CAUSES)
    with translation.override("es"):
        assert all(str(label) != code for code, label in DEATH_CAUSES.items())
