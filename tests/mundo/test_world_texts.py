"""World rolls are worded by the app in the reader's language from the engine's values, every
die shown; a row whose values are incomplete falls back to its stored Spanish text.
Source: RULES.md R16, R18, R22, R23; mundo/world_texts.py."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from mundo import services
from mundo.models import Grid, WorldRoll
from mundo.world_texts import world_roll_dice, world_roll_text
from tests.factories import SettlementFactory
from tests.mundo.factories import LocationFactory, ShopFactory
from tests.mundo.test_world import client_for


@pytest.fixture
def town(campaign):
    # R18's example town: 100 × 100 m, K = 173 → 150 zombies on day 7.
    return SettlementFactory(campaign=campaign, name="Robledo", population=173, area_m2=10_000)


def test_a_shop_reads_as_the_engine_wrote_it_in_spanish_and_in_english(master, town):
    roll = services.shop_discover(location=ShopFactory(settlement=town), user=master)
    r = roll.result
    with translation.override("es"):
        spanish = world_roll_text(roll)
    with translation.override("en"):
        english = world_roll_text(roll)
    # The Spanish words are the engine's own record, number for number.
    assert spanish == roll.description
    assert english.startswith(f"{r['shop_label']}, day 7: d100 = {r['die']} + 21 (3 × day)")
    assert f"{r['food_kcal']:,} kcal of food" in english
    assert f"{r['medicine_doses']} doses of medicine" in english


def test_a_weapon_search_shows_every_die(master, town):
    roll = services.location_search(location=LocationFactory(settlement=town), user=master)
    r = roll.result
    with translation.override("es"):
        assert world_roll_text(roll) == roll.description
    with translation.override("en"):
        english = world_roll_text(roll)
    assert english.startswith(f"Kind 1d{r['kind_faces']} = {r['kind_die']}: {r['kind_label']}")
    assert world_roll_dice(roll) == roll.dice and roll.dice


def test_a_route_check_reads_n_cells_at_p_percent_and_shows_no_dice(master, town):
    roll = services.route_check(settlement=town, user=master, path_m=20, mode="agresivo")
    met = roll.result["zombies_met"]
    with translation.override("es"):
        spanish = world_roll_text(roll)
    with translation.override("en"):
        english = world_roll_text(roll)
    assert spanish == (
        "Zona de 10\u00a0000 m² = 2\u00a0500 espacios útiles; 150 zombis → p = 6 % por espacio. "
        "Modo agresivo, detección a 10 m; recorrido de 20 m → 200 espacios útiles al 6 % → "
        f"{met} zombis encontrados. (R18: para 20 m a 5 m el reglamento escribe 52 espacios "
        "útiles; sus propias palabras, 10 m de ancho × 30 m, dan 300 m² = 75 espacios, que "
        "usamos.)"
    )
    assert english.endswith("give 300 m² = 75 cells, which we use.)")
    assert "Mode aggressive, detection at 10 m; a route of 20 m → 200 cells at 6 %" in english
    # Its stored "dice" is the binomial draw (the zombies met), not dice to show.
    assert roll.dice == [roll.result["drawn"]] and world_roll_dice(roll) == []


def test_a_restoration_names_the_supply_and_the_grid(master, campaign):
    grid = Grid.objects.create(campaign=campaign, power_on=False, water_on=False)
    roll = services.utility_restore(grid=grid, user=master, power=True, water=False)
    with translation.override("es"):
        assert world_roll_text(roll) == "Restablecido el suministro de luz (red regional)."
    with translation.override("en"):
        assert world_roll_text(roll) == "Power restored (regional grid)."


def test_an_old_row_without_the_values_falls_back_to_its_stored_text(master, campaign):
    old = WorldRoll.objects.create(
        campaign=campaign,
        day=3,
        kind=WorldRoll.Kind.ROUTE,
        engine_version="0",
        result={"cells": 10},
        description="Texto de entonces.",
    )
    with translation.override("en"):
        assert world_roll_text(old) == "Texto de entonces."


def test_the_world_page_words_its_ledger_in_english(master, town):
    services.route_check(settlement=town, user=master, path_m=20)
    client = client_for(master)
    client.cookies["django_language"] = "en"
    html = client.get(reverse("mundo:world", kwargs={"slug": town.campaign.slug})).content
    text = html.decode()
    assert "cells at 6 %" in text and "espacios útiles" not in text
    assert "dice: [" not in text  # a route check shows no dice
