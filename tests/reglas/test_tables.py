"""Default tables: shipped as data, round-trip through JSON, and reject bad edits by field name.

Source: RULES.md principle 1, R11, R18, R19, R20, R22, R23.
"""

from __future__ import annotations

import copy
import json
from importlib.resources import files
from typing import Any

import pytest

from reglas.errors import RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.tables import (
    DEFAULT_COMBAT,
    DEFAULT_SUPPLIES,
    TABLE_NAMES,
    CombatTable,
    DetectionMode,
    EncounterTable,
    SearchTable,
    Season,
    SuppliesTable,
    Tables,
    TraitTable,
    WeatherTable,
    default_tables,
    load_data_json,
)

NAMES = ["traits", "weather", "search", "supplies", "combat"]


def test_the_stored_tables_are_the_data_files() -> None:
    assert list(TABLE_NAMES) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_data_files_are_found_by_importlib_resources(name: str) -> None:
    resource = files("reglas") / "data" / f"{name}.json"
    assert resource.is_file()
    assert json.loads(resource.read_text(encoding="utf-8")) == load_data_json(name)


@pytest.mark.parametrize("name", NAMES)
def test_each_table_writes_back_exactly_its_data_file(name: str) -> None:
    assert getattr(default_tables(), name).to_dict() == load_data_json(name)


def test_bundle_round_trips_through_json_text() -> None:
    tables = default_tables()
    text = json.dumps(tables.to_dict(), ensure_ascii=False)
    assert Tables.from_dict(json.loads(text)) == tables


def test_default_values_are_the_rulebook_resolved_numbers() -> None:
    combat = DEFAULT_COMBAT
    assert combat.melee_to_hit == 60 == DEFAULT_SETTINGS.melee_to_hit
    assert [(b.max_m, b.threshold) for b in combat.ranged_to_hit] == [
        (5, 60),
        (15, 40),
        (30, 25),
        (60, 10),
    ]
    assert combat.out_of_range_to_hit == 0
    assert (combat.two_handed_bonus, combat.two_handed_bonus_beyond_m) == (15, 15)
    assert {c.slug: c.threshold for c in combat.wound_classes} == {
        "unarmed": 5,
        "utensil": 15,
        "pseudo_weapon": 30,
        "blade": 40,
        "heavy_blade": 50,
    }
    assert {c.label: c.threshold for c in combat.calibers} == {
        ".22": 30,
        "9 mm": 50,
        ".38/.357": 55,
        ".45": 60,
        "5,56 mm": 70,
        "7,62 mm": 80,
        "calibre 12": 85,
        ".50": 95,
    }
    assert (combat.grab, combat.bite, combat.escape, combat.grabbed_to_hit_penalty) == (
        40,
        60,
        40,
        20,
    )
    assert (combat.bites_same_turn_to_die, combat.consecutive_bites_to_die) == (3, 3)
    assert DEFAULT_SUPPLIES.day_factor == 3 == DEFAULT_SETTINGS.shop_decay_per_day
    supermercado = DEFAULT_SUPPLIES.shop("supermercado")
    assert (
        supermercado.food_kcal,
        supermercado.water_l,
        supermercado.toilet_paper_rolls,
        supermercado.medicine_doses,
    ) == (1_500_000, 2000, 400, 20)
    encounters = default_tables().encounters
    assert (
        encounters.cell_area_m2,
        encounters.radius_normal_m,
        encounters.radius_aggressive_m,
    ) == (
        4,
        5,
        10,
    )


def _edited(name: str, edit: Any) -> dict[str, Any]:
    data = copy.deepcopy(load_data_json(name))
    edit(data)
    return data


BAD_EDITS = [
    (
        "weather",
        WeatherTable,
        lambda d: d["seasons"]["invierno"]["sky"].pop(),
        "weather.seasons.invierno.sky",
    ),
    (
        "weather",
        WeatherTable,
        lambda d: d["seasons"]["verano"]["sky"][1].update(upto=70),
        "weather.seasons.verano.sky[1].upto",
    ),
    (
        "weather",
        WeatherTable,
        lambda d: d["seasons"]["verano"]["sky"][0].update(sky="sunny"),
        "weather.seasons.verano.sky[0].sky",
    ),
    ("weather", WeatherTable, lambda d: d["seasons"].pop("otoño"), "weather.seasons.otoño"),
    ("weather", WeatherTable, lambda d: d.update(max_die=0), "weather.max_die"),
    (
        "weather",
        WeatherTable,
        lambda d: d["skies"]["snow"].update(precipitation=1),
        "precipitation",
    ),
    ("search", SearchTable, lambda d: d["kinds"][2].update(quantity_die=True), "quantity_die"),
    (
        "search",
        SearchTable,
        lambda d: d["kinds"][1]["subtypes"][0].pop("label"),
        "subtypes[0].label",
    ),
    ("supplies", SuppliesTable, lambda d: d["bands"][1].update(min_pct=80), "bands[1].max_pct"),
    ("supplies", SuppliesTable, lambda d: d["bands"][4].update(upto=150), "bands[4].upto"),
    ("supplies", SuppliesTable, lambda d: d["bands"][2].update(upto=50), "bands[2].upto"),
    ("supplies", SuppliesTable, lambda d: d["shops"]["tienda"].update(water_l=-1), "water_l"),
    ("supplies", SuppliesTable, lambda d: d.update(colour="red"), "supplies.colour"),
    (
        "combat",
        CombatTable,
        lambda d: d["to_hit"]["ranged"][1].update(threshold=101),
        "combat.to_hit.ranged[1].threshold",
    ),
    (
        "combat",
        CombatTable,
        lambda d: d["to_hit"]["ranged"][2].update(max_m=10),
        "combat.to_hit.ranged[2].max_m",
    ),
    (
        "combat",
        CombatTable,
        lambda d: d["weapons"]["escopeta"].update(caliber="20g"),
        "combat.weapons.escopeta.caliber",
    ),
    (
        "combat",
        CombatTable,
        lambda d: d["weapons"]["hacha"].update(kind="laser"),
        "combat.weapons.hacha.kind",
    ),
    ("combat", CombatTable, lambda d: d["wound"]["classes"].pop("unarmed"), "combat.wound.classes"),
    ("combat", CombatTable, lambda d: d.update(zombies={"bite": 60}), "combat.zombies"),
    ("combat", CombatTable, lambda d: d["to_hit"].update(melee=60), "combat.to_hit.melee"),
    ("supplies", SuppliesTable, lambda d: d.update(day_factor=3), "supplies.day_factor"),
    ("traits", TraitTable, lambda d: d["traits"][1].update(slug="fuerza"), "traits[1].slug"),
    ("traits", TraitTable, lambda d: d["traits"][0].update(slug="Fuerza"), "traits[0].slug"),
]


@pytest.mark.parametrize(("name", "cls", "edit", "field"), BAD_EDITS)
def test_bad_edits_raise_rules_error_naming_the_field(
    name: str, cls: Any, edit: Any, field: str
) -> None:
    with pytest.raises(RulesError, match=r"Tabla no válida") as excinfo:
        cls.from_dict(_edited(name, edit))
    assert field in str(excinfo.value)


# The scalars that were table fields (encounters, combat's zombie numbers, the shops' day factor)
# are settings now; their bad values are refused by name there.
@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("cell_area_m2", 0),
        ("bite_threshold", "60"),
        ("melee_to_hit", -5),
        ("melee_to_hit", 101),
        ("bites_same_turn_to_die", 0),
        ("shop_decay_per_day", -1),
    ],
)
def test_bad_scalar_settings_raise_naming_the_key(key: str, value: object) -> None:
    with pytest.raises(RulesError, match=key):
        RuleSettings.from_dict({key: value})


def test_tables_take_their_scalars_from_the_settings() -> None:
    settings = RuleSettings.from_dict(
        {"grab_threshold": 55, "shop_decay_per_day": 7, "aggressive_detection_radius_m": 12}
    )
    tables = Tables.from_overrides({}, settings)
    assert tables.combat.grab == 55
    assert tables.supplies.day_factor == 7
    assert tables.encounters.radius_aggressive_m == 12
    assert DEFAULT_COMBAT.with_settings(settings) == tables.combat
    assert DEFAULT_SUPPLIES.with_settings(settings) == tables.supplies
    assert EncounterTable.from_settings(settings) == tables.encounters


def test_overrides_round_trip_and_replace_whole_tables() -> None:
    data = load_data_json("supplies")
    data["bands"][0]["max_pct"] = 90
    tables = Tables.from_overrides({"supplies": data})
    assert tables.supplies.bands[0].max_pct == 90
    assert tables.overrides() == {"supplies": data}
    assert Tables.from_overrides(tables.overrides()) == tables
    assert default_tables().overrides() == {}
    with pytest.raises(RulesError, match="colour"):
        Tables.from_overrides({"colour": {}})


def test_bundle_errors_name_the_full_path() -> None:
    data = default_tables().to_dict()
    data["combat"]["to_hit"]["out_of_range"] = -5
    with pytest.raises(RulesError, match=r"combat\.to_hit\.out_of_range"):
        Tables.from_dict(data)
    with pytest.raises(RulesError, match="weather"):
        Tables.from_dict({k: v for k, v in default_tables().to_dict().items() if k != "weather"})


def test_an_edited_table_is_used_as_given() -> None:
    data = load_data_json("supplies")
    data["shops"]["armeria"] = {
        "label": "Armería",
        "food_kcal": 0,
        "water_l": 0,
        "toilet_paper_rolls": 1,
        "medicine_doses": 0,
    }
    table = SuppliesTable.from_dict(data)
    assert table.shop("armeria").label == "Armería"
    with pytest.raises(RulesError, match="armeria"):
        DEFAULT_SUPPLIES.shop("armeria")


def test_lookups_of_unknown_slugs_raise() -> None:
    with pytest.raises(RulesError, match="Arma desconocida"):
        DEFAULT_COMBAT.weapon("lanzallamas")
    with pytest.raises(RulesError, match="Calibre desconocido"):
        DEFAULT_COMBAT.caliber("20g")
    with pytest.raises(RulesError, match="cielo"):
        default_tables().weather.sky("sunny")


@pytest.mark.parametrize(
    ("text", "season"),
    [
        ("invierno", Season.WINTER),
        ("Primavera", Season.SPRING),
        ("verano", Season.SUMMER),
        ("otoño", Season.AUTUMN),
        ("otono", Season.AUTUMN),
        (" OTOÑO ", Season.AUTUMN),
        ("autumn", Season.AUTUMN),
    ],
)
def test_season_parse(text: str, season: Season) -> None:
    assert Season.parse(text) is season


def test_season_parse_rejects_unknown_and_labels_are_spanish() -> None:
    with pytest.raises(RulesError):
        Season.parse("monzón")
    assert [s.label for s in Season] == ["Invierno", "Primavera", "Verano", "Otoño"]


def test_detection_mode_parse() -> None:
    assert DetectionMode.parse("agresivo") is DetectionMode.AGGRESSIVE
    assert DetectionMode.parse("caza") is DetectionMode.AGGRESSIVE
    assert DetectionMode.parse("Normal") is DetectionMode.NORMAL
    with pytest.raises(RulesError):
        DetectionMode.parse("sigiloso")
