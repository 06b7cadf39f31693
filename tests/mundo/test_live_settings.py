"""Every rule number is live: each RuleSettings field and each stored table, changed, changes an
outcome that depends on it (RULES.md principle 1: "a setting that is accepted but changes nothing
is a defect").

The cases are generated over ``dataclasses.fields(RuleSettings)`` and ``TABLE_NAMES``: a field
or a table added later without a case here fails ``test_every_setting_and_table_has_a_case``.
Each case names a baseline (overrides that make the effect visible, e.g. a bite that always
lands), the changed value, and an outcome: a pure ``reglas`` call with a fixed seed, or, for the
numbers only the apps read (the tick's spoilage and outages, a new settlement's r, the curve's
P0 on the world pages), the same through the models.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

from reglas.characters import ConditionState, action_penalty, is_dirt_sensitive, validate_allocation
from reglas.combat import (
    AttackZombie,
    EscapeZombie,
    ZombieFight,
    ZombieState,
    resolve_zombie_turn,
    to_hit_threshold,
    wound_threshold,
)
from reglas.encounters import roll_encounter
from reglas.health import (
    DiseaseInputs,
    bite,
    disease_probability,
    roll_medicine_cure,
    roll_onset,
    roll_resistance,
)
from reglas.search import roll_search
from reglas.settings import RuleSettings
from reglas.supplies import roll_shop_supplies
from reglas.survival import DayRecord, Supplies, consume, live_day
from reglas.tables import TABLE_NAMES, Season, Tables, load_data_json
from reglas.weather import roll_weather


def rng() -> np.random.Generator:
    return np.random.default_rng(20261101)


@dataclass(frozen=True)
class Case:
    """``outcome(settings, tables)`` for a pure case, ``db(overrides)`` for a models case."""

    changed: Any
    outcome: Callable[[RuleSettings, Tables], Any] | None = None
    db: Callable[[dict[str, Any]], Any] | None = None
    base: dict[str, Any] = field(default_factory=dict)


# --- pure outcomes ---------------------------------------------------------------------------

FED = DayRecord(kcal_carried=5000, water_carried_l=10, toilet_paper_rolls=1, toilet_distance_m=25)


HEALTHY = ConditionState()


def day(state: ConditionState = HEALTHY, **record: Any) -> Callable[..., Any]:
    """The survival day of one character with ``record`` over a well-supplied day."""
    rec = dataclasses.replace(FED, **record)
    return lambda s, t: live_day(state, rec, s)


def penalty(**state: Any) -> Callable[..., int]:
    sensitive = bool(state.pop("dirt_sensitive", False))
    cs = ConditionState(**state)
    return lambda s, t: sum(m.points for m in action_penalty(cs, sensitive, s))


def disease(**inputs: Any) -> Callable[..., int]:
    inputs.setdefault("season", "verano")
    return lambda s, t: disease_probability(DiseaseInputs(**inputs), s)[0]


def allocation(points: dict[str, int]) -> Callable[..., Any]:
    def outcome(s: RuleSettings, t: Tables) -> Any:
        problems = validate_allocation(
            points,
            t.traits.traits,
            creation_points=s.creation_points,
            trait_cap=s.trait_cap,
            submitting=True,
        )
        return [p.code for p in problems]

    return outcome


def medicine(medicina: int) -> Callable[..., Any]:
    def outcome(s: RuleSettings, t: Tables) -> Any:
        try:
            return roll_medicine_cure(medicina, rng(), settings=s).threshold
        except Exception as exc:  # the refusal is the outcome
            return type(exc).__name__

    return outcome


def resistance(**state: Any) -> Callable[..., int]:
    cs = ConditionState(disease_day=5, disease_duration=5, **state)
    return lambda s, t: roll_resistance(cs, 2, rng(), s).threshold


def zombie_turn(
    zombies: tuple[ZombieState, ...], action: Any, pick: Callable[[Any], Any]
) -> Callable[..., Any]:
    fight = ZombieFight(zombies=zombies)
    traits = {"agilidad": 2, "pelea": 1, "armas_cac": 1, "fuerza": 1}
    return lambda s, t: pick(resolve_zombie_turn(fight, action, traits, rng(), table=t.combat))


def weapon(t: Tables, slug: str) -> Any:
    return t.combat.weapon(slug)


def encounter(mode: str, pick: str) -> Callable[..., Any]:
    def outcome(s: RuleSettings, t: Tables) -> Any:
        met = roll_encounter(10_000, 150, 20, mode, rng(), t.encounters)
        return getattr(met, pick)

    return outcome


def shop(day_number: int, pick: str) -> Callable[..., Any]:
    return lambda s, t: getattr(roll_shop_supplies("tienda", day_number, rng(), t.supplies), pick)


def stash_kcal(s: RuleSettings, t: Tables) -> float:
    used = consume(
        Supplies.of([0.0], [0.0], [0.0]), s, shelter=[0], stash=Supplies.of([5000.0], [10.0], [1.0])
    )
    return float(used.kcal_eaten[0])


GRABBED = (ZombieState("a", grabbing=True),)
TWO_GRABBING = (ZombieState("a", grabbing=True), ZombieState("b", grabbing=True))

CASES: dict[str, Case] = {
    # R5
    "creation_points": Case(9, allocation({"fuerza": 9})),
    "trait_cap": Case(5, allocation({"fuerza": 6, "agilidad": 4})),
    # R6
    "daily_kcal": Case(1500.0, lambda s, t: day(kcal_carried=1500)(s, t).state.hunger_days),
    "daily_water_l": Case(1.5, lambda s, t: day(water_carried_l=1.5)(s, t).state.thirst_days),
    "daily_sleep_h": Case(5.0, lambda s, t: day(sleep_h=5)(s, t).state.fatigue_days),
    "default_sleep_h": Case(5.0, lambda s, t: day()(s, t).state.fatigue_days),
    "hunger_death_days": Case(
        4,
        lambda s, t: (
            day(ConditionState(hunger_days=3, days_without_food=3), kcal_carried=0)(s, t).dead
        ),
    ),
    "thirst_death_days": Case(
        2,
        lambda s, t: (
            day(ConditionState(thirst_days=1, days_without_water=1), water_carried_l=0)(s, t).dead
        ),
    ),
    "fatigue_death_days": Case(
        2,
        lambda s, t: (
            day(ConditionState(fatigue_days=1, days_without_sleep=1), sleep_h=0)(s, t).dead
        ),
    ),
    "deprivation_fraction": Case(
        0.5, lambda s, t: day(kcal_carried=800)(s, t).state.days_without_food
    ),
    "need_day_action_points": Case(7, penalty(hunger_days=1)),
    "need_day_disease_points": Case(7, disease(hunger_days=1)),
    # R7
    "toilet_paper_rolls_per_day": Case(0.5, lambda s, t: day()(s, t).paper_used_rolls),
    "latrine_min_distance_m": Case(
        10.0, lambda s, t: day(toilet_distance_m=15)(s, t).hygiene_adequate
    ),
    "unhygienic_day_disease_points": Case(3, disease(unhygienic_days=1)),
    "wet_action_points": Case(4, penalty(wet_last_night=True)),
    "days_without_defecating": Case(
        3,
        lambda s, t: (
            day(ConditionState(days_without_defecating=2), could_not_defecate=True)(
                s, t
            ).state.soiled_last_night
        ),
    ),
    "soiled_action_points": Case(4, penalty(soiled_last_night=True)),
    "auto_relief_inadequate": Case(
        True,
        lambda s, t: day(toilet_paper_rolls=0)(s, t).state.wet_last_night,
    ),
    # R8
    "dirt_action_points": Case(2, penalty(dirty=True, dirt_sensitive=True)),
    "dirt_disease_points": Case(2, disease(dirty=True)),
    "extra_dirt_disease_points": Case(2, disease(extra_dirt=True)),
    "bath_water_l": Case(
        5.0,
        lambda s, t: (
            day(ConditionState(dirty=True), bath_requested=True, water_carried_l=8)(s, t).washed
        ),
    ),
    "auto_shower": Case(
        True, lambda s, t: day(ConditionState(dirty=True), running_water=True)(s, t).washed
    ),
    "dirt_sensitive_traits": Case(("pelea",), lambda s, t: is_dirt_sensitive("sigilo", s)),
    # R9, R12, R13
    "disease_day_action_points": Case(2, penalty(disease_day=2, disease_duration=5)),
    "infection_day_action_points": Case(2, penalty(infection_day=2, infection_duration=5)),
    # R10
    "season_base_winter": Case(9, disease(season="invierno")),
    "season_base_spring": Case(9, disease(season="primavera")),
    "season_base_summer": Case(9, disease(season="verano")),
    "season_base_autumn": Case(9, disease(season="otoño")),
    "sick_housemate_disease_points": Case(2, disease(sick_housemates=1)),
    "precipitation_disease_points": Case(2, disease(precipitation=True)),
    "cold_degree_disease_points": Case(3, disease(min_temp_c=-3)),
    # R12
    "disease_duration": Case(
        "2d2+18",
        lambda s, t: roll_onset(DiseaseInputs("verano", hunger_days=10), rng(), s).duration,
    ),
    "medicine_cure_threshold": Case(55, medicine(1)),
    "medicine_requires_trait": Case(False, medicine(0)),
    "resistance_base": Case(70, resistance()),
    "resistance_per_treated_day": Case(10, resistance(disease_days_treated=2)),
    "resistance_per_unhygienic_day": Case(10, resistance(disease_unhygienic_days=2)),
    # R13
    "infection_duration": Case(
        "2d2+18", lambda s, t: bite(ConditionState(), rng(), settings=s).state.infection_duration
    ),
    "amputation_threshold": Case(
        45, lambda s, t: bite(ConditionState(), rng(), medicina=1, settings=s).amputation.threshold
    ),
    # R15
    "allow_shelter_stash": Case(False, stash_kcal),
    "spoil_after_power_cut_days": Case(5, db=lambda o: _spoiled_milk_left(o)),
    "arrival_food_days": Case(3.0, db=lambda o: _arrival_kit(o)),
    "arrival_water_days": Case(0.5, db=lambda o: _arrival_kit(o)),
    "arrival_toilet_paper_rolls": Case(2.0, db=lambda o: _arrival_kit(o)),
    # R16
    "utility_cut_percent_per_day": Case(2.0, db=lambda o: _cut_probability(o)),
    # R17
    "growth_rate": Case(0.5, db=lambda o: _new_settlement_r(o)),
    "initial_zombies": Case(5.0, db=lambda o: _zombies_on_day_3(o)),
    # R18
    "cell_area_m2": Case(8.0, encounter("normal", "cells")),
    "detection_radius_m": Case(7.0, encounter("normal", "cells_swept")),
    "aggressive_detection_radius_m": Case(15.0, encounter("agresivo", "cells_swept")),
    # R19, R20
    "melee_to_hit": Case(45, lambda s, t: to_hit_threshold(weapon(t, "bate"), 0, t.combat)[0]),
    "grab_threshold": Case(
        75, zombie_turn((ZombieState("a"),), None, lambda turn: turn.grabs[0].roll.threshold)
    ),
    "escape_threshold": Case(
        75, zombie_turn(GRABBED, EscapeZombie("a"), lambda turn: turn.escape.threshold)
    ),
    "bite_threshold": Case(
        75, zombie_turn(GRABBED, None, lambda turn: turn.bites[0].roll.threshold)
    ),
    "grabbed_to_hit_penalty": Case(
        5,
        lambda s, t: zombie_turn(
            GRABBED, AttackZombie("a", weapon(t, "bate")), lambda turn: turn.attack.to_hit.threshold
        )(s, t),
    ),
    "bites_same_turn_to_die": Case(
        2,
        zombie_turn(TWO_GRABBING, None, lambda turn: turn.victim_dead),
        base={"bite_threshold": 100},
    ),
    "consecutive_bites_to_die": Case(
        2,
        zombie_turn(
            (ZombieState("a", grabbing=True, consecutive_bites=1),),
            None,
            lambda turn: turn.victim_dead,
        ),
        base={"bite_threshold": 100},
    ),
    # R23
    "shop_decay_per_day": Case(1, shop(20, "day_modifier")),
}


# --- tables: an edit of the campaign's copy, and the outcome it moves ---------------------------


def _edit_traits(data: dict[str, Any]) -> None:
    data["traits"][0] = {"slug": "fortaleza", "name": "Fortaleza"}


def _edit_weather(data: dict[str, Any]) -> None:
    data["seasons"]["invierno"]["min_base_c"] = -20


def _edit_search(data: dict[str, Any]) -> None:
    for kind in data["kinds"]:
        kind["label"] = "Nada"
        kind["quantity_die"] = None
        kind["subtypes"] = []


def _edit_supplies(data: dict[str, Any]) -> None:
    data["shops"]["tienda"]["food_kcal"] = 1


def _edit_combat(data: dict[str, Any]) -> None:
    data["wound"]["calibers"]["9mm"]["threshold"] = 99


TABLE_CASES: dict[str, tuple[Callable[[dict[str, Any]], None], Callable[..., Any]]] = {
    "traits": (_edit_traits, allocation({"fuerza": 10})),
    "weather": (_edit_weather, lambda s, t: roll_weather(Season.WINTER, rng(), t.weather).min_c),
    "search": (_edit_search, lambda s, t: roll_search(rng(), t.search).kind_label),
    "supplies": (_edit_supplies, shop(0, "food_kcal")),
    "combat": (_edit_combat, lambda s, t: wound_threshold(weapon(t, "pistola_9mm"), t.combat)),
}


def test_every_setting_and_table_has_a_case() -> None:
    fields = {f.name for f in dataclasses.fields(RuleSettings)}
    assert set(CASES) == fields, (
        "each RuleSettings field needs a case showing an outcome it changes "
        f"(missing: {sorted(fields - set(CASES))}, stale: {sorted(set(CASES) - fields)})"
    )
    assert set(TABLE_CASES) == set(TABLE_NAMES)


PURE = sorted(name for name, case in CASES.items() if case.db is None)
WITH_MODELS = sorted(name for name, case in CASES.items() if case.db is not None)


def _overrides(case: Case, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    changed = list(case.changed) if isinstance(case.changed, tuple) else case.changed
    assert RuleSettings.from_dict({name: changed}) != RuleSettings(), "the case changes nothing"
    return dict(case.base), {**case.base, name: changed}


@pytest.mark.parametrize("name", PURE)
def test_changing_a_setting_changes_its_outcome(name: str) -> None:
    case = CASES[name]
    assert case.outcome is not None
    before_overrides, after_overrides = _overrides(case, name)
    outcomes = []
    for overrides in (before_overrides, after_overrides):
        settings = RuleSettings.from_dict(overrides)
        outcomes.append(case.outcome(settings, Tables.from_overrides({}, settings)))
    before, after = outcomes
    assert before != after, f"{name}: {before!r} with the default, {after!r} changed"


@pytest.mark.django_db
@pytest.mark.parametrize("name", WITH_MODELS)
def test_changing_a_setting_the_apps_read_changes_its_outcome(name: str) -> None:
    case = CASES[name]
    assert case.db is not None
    before_overrides, after_overrides = _overrides(case, name)
    before, after = case.db(before_overrides), case.db(after_overrides)
    assert before != after, f"{name}: {before!r} with the default, {after!r} changed"


@pytest.mark.parametrize("name", TABLE_NAMES)
def test_changing_a_table_changes_its_outcome(name: str) -> None:
    edit, outcome = TABLE_CASES[name]
    data = copy.deepcopy(load_data_json(name))
    edit(data)
    default = Tables.from_overrides({})
    edited = Tables.from_overrides({name: data})
    assert edited.overrides() == {name: data}
    before, after = outcome(RuleSettings(), default), outcome(RuleSettings(), edited)
    assert before != after, f"{name}: {before!r} with the default table, {after!r} edited"


# --- the numbers only the apps read, through the models -----------------------------------------


def _campaign(overrides: dict[str, Any], **fields: Any) -> Any:
    from tests.factories import CampaignFactory

    return CampaignFactory(rule_overrides=overrides, **fields)


def _spoiled_milk_left(overrides: dict[str, Any]) -> Decimal:
    # Power cut on day 4, tick closes day 7: milk keeps through day 4 + the setting. With 2 it is
    # spoiled and left alone; with 5 it is still edible and eaten first (it spoils soonest).
    from mundo.models import Grid
    from partida.tick import advance_day
    from personajes.models import InventoryItem, ItemType
    from tests.factories import SettlementFactory
    from tests.partida.tick_helpers import NO_DISEASE, give, good_shelter, item, survivor

    campaign = _campaign({**NO_DISEASE, **overrides})
    shelter = good_shelter(SettlementFactory(campaign=campaign))
    pc = survivor(campaign, shelter=shelter, food=False)
    milk = item(campaign, ItemType.Kind.FOOD, name="Leche", perishable=True)
    give(pc, item(campaign, ItemType.Kind.FOOD, name="Conserva"), 4)
    give(pc, milk, 4)
    Grid.objects.create(campaign=campaign, power_on=False, power_cut_day=4)
    advance_day(campaign)
    return InventoryItem.objects.get(character=pc, item_type=milk).quantity


def _arrival_kit(overrides: dict[str, Any]) -> dict[str, Decimal]:
    # What an approved sheet carries: units of the catalogue by kind (issue 11, arrival).
    from mundo.models import Membership
    from personajes import sheets
    from personajes.models import Character, InventoryItem
    from tests.factories import CharacterFactory, MembershipFactory, UserFactory

    campaign = _campaign(overrides)
    master = UserFactory()
    MembershipFactory(campaign=campaign, user=master, role=Membership.Role.MASTER)
    pc = CharacterFactory(
        campaign=campaign, status=Character.Status.SUBMITTED, allocation={"fuerza": 10}
    )
    sheets.sheet_review(character=pc, master=master, approve=True)
    return dict(
        InventoryItem.objects.filter(character=pc).values_list("item_type__kind", "quantity")
    )


def _cut_probability(overrides: dict[str, Any]) -> int:
    from mundo.models import GridDay
    from partida.tick import advance_day

    campaign = _campaign(overrides, current_day=9)
    advance_day(campaign)
    return GridDay.objects.get(grid__campaign=campaign, day=10).probability


def _new_settlement_r(overrides: dict[str, Any]) -> float:
    from mundo import services
    from mundo.models import Membership
    from tests.factories import MembershipFactory, UserFactory

    campaign = _campaign(overrides)
    user = UserFactory()
    MembershipFactory(campaign=campaign, user=user, role=Membership.Role.MASTER)
    place = services.settlement_create(
        campaign=campaign, user=user, name="Aldea", population=100, area_m2=400
    )
    return place.growth_rate


def _zombies_on_day_3(overrides: dict[str, Any]) -> int:
    from mundo import selectors
    from tests.factories import SettlementFactory

    place = SettlementFactory(campaign=_campaign(overrides), population=200)
    status = selectors.settlement_status(place, 3)
    # The world page's curve and the status agree: both take the campaign's P0.
    assert selectors.settlement_curve(place, 3, 3)[0] == status.population
    return status.zombies


@pytest.mark.django_db
def test_the_world_services_roll_with_the_campaigns_numbers_and_tables(campaign, master):
    # The master's world actions read the campaign's copy, not the shipped defaults: a wider
    # detection radius sweeps more cells (R18), a slower decay adds fewer points per day (R23),
    # an edited search table finds what it says (R22).
    from mundo import services
    from mundo.models import Campaign, Location
    from tests.factories import SettlementFactory
    from tests.mundo.factories import LocationFactory, ShopFactory

    search = load_data_json("search")
    for kind in search["kinds"]:
        kind.update(label="Nada", quantity_die=None, subtypes=[])
    Campaign.objects.filter(pk=campaign.pk).update(
        rule_overrides={"detection_radius_m": 7, "shop_decay_per_day": 1},
        rule_tables={"search": search},
    )
    campaign.refresh_from_db()
    town = SettlementFactory(campaign=campaign, area_m2=10_000)
    route = services.route_check(settlement=town, user=master, path_m=20)
    assert route.result["cells_swept"] == (2 * 7 * (20 + 2 * 7)) // 4  # 119, not 75
    shop = ShopFactory(settlement=town)
    found = services.shop_discover(location=shop, user=master)
    assert found.result["day_modifier"] == 1 * campaign.current_day  # 7, not 21
    house = LocationFactory(settlement=town, kind=Location.Kind.DWELLING)
    assert services.location_search(location=house, user=master).result["kind_label"] == "Nada"


@pytest.mark.django_db
def test_a_cell_larger_than_the_settlement_is_worded_not_a_crash(campaign, master):
    from mundo import selectors, services
    from mundo.models import Campaign
    from nucleo.errors import ServiceError
    from tests.factories import SettlementFactory

    Campaign.objects.filter(pk=campaign.pk).update(rule_overrides={"cell_area_m2": 100})
    campaign.refresh_from_db()
    hut = SettlementFactory(campaign=campaign, area_m2=50, population=10)
    status = selectors.settlement_status(hut, 7)
    assert (status.cells, status.p_cell) == (0, 1.0)
    with pytest.raises(ServiceError) as excinfo:
        services.route_check(settlement=hut, user=master, path_m=20)
    assert "settlement" in excinfo.value.message_dict


@pytest.mark.django_db
def test_the_tick_rolls_the_weather_of_the_campaigns_own_table(campaign):
    # R11 with an edited table: every season's minimum base at −40 °C, so the day the tick
    # opens is below −28 °C (base + at most 1d12), where the shipped table never goes below 0.
    from mundo.models import Campaign, WeatherRecord
    from partida.tick import advance_day

    weather = load_data_json("weather")
    for season in weather["seasons"].values():
        season["min_base_c"] = -40
    Campaign.objects.filter(pk=campaign.pk).update(rule_tables={"weather": weather})
    advance_day(campaign.pk, expected_day=campaign.current_day)
    opened = WeatherRecord.objects.get(campaign=campaign, settlement=None, day=8)
    assert -40 < opened.min_c <= -28, opened.min_c
