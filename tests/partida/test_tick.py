"""The daily tick on real models, day after day, against the rulebook (R6–R17, R24, R25).

Cast: ``campaign`` (private, day 7, apocalypse 1 Nov 2026: autumn) with its master; the
characters are built per test (``tick_helpers.survivor``): approved, carrying what they need
unless the scenario takes it away. Deprivation scenarios switch the disease odds off so the
character dies of what is tested, not of a chance disease.
"""

from __future__ import annotations

import gc
import math
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from mundo.models import Campaign, DayTick, Grid, GridDay, Settlement, SettlementDay, WeatherRecord
from nucleo import bulk
from partida.tick import advance_day
from personajes.models import Character, DayRecord, DiaryEntry, InventoryItem, ItemType, Roll
from tests.factories import SettlementFactory
from tests.partida.tick_helpers import (
    give,
    good_shelter,
    item,
    no_disease,
    stash,
    survivor,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def village(campaign):
    return SettlementFactory(campaign=campaign, name="Villarejo", population=200, area_m2=160_000)


@pytest.fixture
def shelter(village):
    return good_shelter(village, name="Polideportivo")


def tick(campaign, times: int = 1):
    result = None
    for _ in range(times):
        campaign.refresh_from_db()
        result = advance_day(campaign)
    campaign.refresh_from_db()
    return result


def entry(character, day) -> DiaryEntry:
    return DiaryEntry.objects.get(character=character, day=day)


# --- R6: deprivation kills at the tick of the death value ---------------------------------------


@pytest.mark.parametrize(
    ("what", "death_day", "cause"),
    [("food", 5, "hunger"), ("water", 3, "thirst"), ("sleep", 7, "fatigue")],
)
def test_deprivation_kills_at_the_tick_of_the_death_value(
    campaign, shelter, what, death_day, cause
):
    no_disease(campaign)
    pc = survivor(campaign, shelter=shelter, food=what != "food", water=what != "water")
    for n in range(1, death_day + 1):
        if what == "sleep":
            DayRecord.objects.create(character=pc, day=campaign.current_day, sleep_h=0)
        tick(campaign)
        pc.refresh_from_db()
        if n < death_day:
            assert pc.status == Character.Status.APPROVED, n
            assert (
                getattr(
                    pc, f"{ {'food': 'hunger', 'water': 'thirst', 'sleep': 'fatigue'}[what] }_days"
                )
                == n
            )
    assert pc.status == Character.Status.DEAD
    assert pc.death_cause == cause
    last = entry(pc, campaign.current_day - 1)
    assert last.status == "dead"
    assert last.death_cause == cause
    # The dead take no more ticks: the next day writes nothing for them.
    tick(campaign)
    assert not DiaryEntry.objects.filter(character=pc, day=campaign.current_day - 1).exists()


def test_1999_kcal_is_a_hungry_day(campaign, shelter):
    no_disease(campaign)
    pc = survivor(campaign, shelter=shelter, food=False)
    give(pc, item(campaign, ItemType.Kind.FOOD, name="Ración", kcal_per_unit=1999.0), 1)
    tick(campaign)
    pc.refresh_from_db()
    day = entry(pc, 7)
    assert day.kcal_eaten == pytest.approx(1999)
    assert (pc.hunger_days, day.hunger_days) == (1, 1)
    assert {
        "source": "hunger",
        "label": "Hambre (1 día)",
        "points": 10,
        "params": {"days": 1},
    } in day.penalty_breakdown


def test_2000_kcal_from_carried_then_the_shelter_stash(campaign, shelter):
    no_disease(campaign)
    pc = survivor(campaign, shelter=shelter, food=False)
    can = item(campaign, ItemType.Kind.FOOD)  # 500 kcal
    give(pc, can, 1)
    shared = stash(shelter, can, 10)
    tick(campaign)
    assert entry(pc, 7).kcal_eaten == pytest.approx(2000)
    assert InventoryItem.objects.get(character=pc, item_type=can).quantity == 0
    shared.refresh_from_db()
    assert shared.quantity == Decimal("7.000")


def test_food_soonest_spoiling_first_and_perishables_spoil_without_power(campaign, shelter):
    no_disease(campaign, spoil_after_power_cut_days=2)
    pc = survivor(campaign, shelter=shelter, food=False)
    keeps = item(campaign, ItemType.Kind.FOOD, name="Conserva")
    milk = item(campaign, ItemType.Kind.FOOD, name="Leche", perishable=True)
    give(pc, keeps, 4)
    give(pc, milk, 4)
    # The power was cut on day 4: milk is edible through day 6, spoiled from day 7.
    Grid.objects.create(campaign=campaign, power_on=False, power_cut_day=4)
    tick(campaign)
    assert InventoryItem.objects.get(character=pc, item_type=milk).quantity == 4
    assert InventoryItem.objects.get(character=pc, item_type=keeps).quantity == 0


def test_perishable_food_is_eaten_first_while_it_keeps(campaign, shelter):
    no_disease(campaign)
    pc = survivor(campaign, shelter=shelter, food=False)
    keeps = item(campaign, ItemType.Kind.FOOD, name="Conserva")
    bread = item(campaign, ItemType.Kind.FOOD, name="Pan", spoil_day=9)
    give(pc, keeps, 4)
    give(pc, bread, 2)
    tick(campaign)
    assert InventoryItem.objects.get(character=pc, item_type=bread).quantity == 0
    assert InventoryItem.objects.get(character=pc, item_type=keeps).quantity == 2


# --- R7, R8: hygiene and dirt -------------------------------------------------------------------


def test_a_shelter_without_toilet_paper_adds_10_disease_points_a_day(campaign, village):
    # Every other R10 source off: p is exactly 10 × consecutive unhygienic days.
    no_disease(campaign, unhygienic_day_disease_points=10)
    church = good_shelter(village, name="Iglesia", latrine_distance_m=None, has_cesspit=True)
    pc = survivor(campaign, shelter=church, paper=False)
    tick(campaign, 3)
    days = [entry(pc, d) for d in (7, 8, 9)]
    assert [d.hygiene_ok for d in days] == [False, False, False]
    assert [d.unhygienic_days for d in days] == [1, 2, 3]
    rolled = [d for d in days if d.disease_p is not None]
    assert rolled, "the first day is always rolled (healthy at the start)"
    for d in rolled:
        # R7 (amended): no paper and no mark, so it held it in and wet itself each night;
        # from day 8 on, last night's wetting adds 1 to the roll.
        assert d.disease_p == 10 * d.unhygienic_days + (1 if d.day > 7 else 0)
        line = next(x for x in d.disease_breakdown if x["source"] == "unhygienic")
        assert line["points"] == 10 * d.unhygienic_days


def test_toilet_paper_is_consumed_and_a_latrine_20_m_away_is_adequate(campaign, shelter):
    no_disease(campaign)
    pc = survivor(campaign, shelter=shelter, days=1)  # 0.2 roll of paper
    tick(campaign)
    assert entry(pc, 7).hygiene_ok is True
    paper = InventoryItem.objects.get(character=pc, item_type__kind=ItemType.Kind.TOILET_PAPER)
    assert paper.quantity == 0


def test_a_wet_night_gives_1_point_the_next_day_only(campaign, shelter):
    no_disease(campaign)
    pc = survivor(campaign, shelter=shelter)
    DayRecord.objects.create(character=pc, day=7, could_not_urinate=True)
    tick(campaign)
    wet = entry(pc, 7)
    assert wet.penalty_total == 1
    assert wet.penalty_breakdown == [
        {"source": "wet", "label": "Se orinó encima anoche", "points": 1}
    ]
    assert wet.dirty  # R7 → R8
    tick(campaign)
    assert entry(pc, 8).penalty_total == 0


def test_got_dirty_and_running_water_washes_it_off(campaign, village):
    no_disease(campaign)
    plumbed = good_shelter(village, running_water=True)
    pc = survivor(campaign, shelter=plumbed)
    DayRecord.objects.create(character=pc, day=7, got_dirty=True)
    tick(campaign)
    # R8 (amended): running water alone does not wash; a shower is marked (auto_shower off).
    assert entry(pc, 7).dirty is True
    DayRecord.objects.create(character=pc, day=8, showered=True)
    tick(campaign)
    assert entry(pc, 8).dirty is False


# --- R12, R13: disease and infection --------------------------------------------------------------


def test_an_infected_character_rises_when_the_infection_ends(campaign, village, shelter):
    no_disease(campaign)
    pc = survivor(campaign, shelter=shelter, infection_day=1, infection_duration=3)
    before = village.characters_risen
    tick(campaign, 2)
    pc.refresh_from_db()
    assert (pc.status, pc.infection_day) == (Character.Status.APPROVED, 3)
    tick(campaign)
    pc.refresh_from_db()
    assert pc.status == Character.Status.RISEN
    assert (pc.death_cause, pc.death_day) == ("infection", 9)
    assert entry(pc, 9).status == "risen"
    village.refresh_from_db()
    assert village.characters_risen == before + 1
    today = SettlementDay.objects.get(settlement=village, day=10)
    assert today.zombies == today.base_zombies + 1
    assert today.risen == 1


def test_a_disease_ends_with_a_stored_resistance_roll(campaign, shelter):
    no_disease(campaign)
    pc = survivor(campaign, shelter=shelter, disease_day=3, disease_duration=3)
    dose = item(campaign, ItemType.Kind.MEDICINE)
    give(pc, dose, 1)
    tick(campaign)
    pc.refresh_from_db()
    roll = Roll.objects.get(character=pc)
    assert roll.trait_name == "Resistencia"
    assert roll.day == 7
    assert len(roll.dice) == 1  # Resistencia 0 → 1 d100
    # Treated today (a dose taken automatically): +5 → 50 + 5 − 15 (disease day 3) = 40.
    assert {
        "source": "treated",
        "label": "Tratado con medicinas (1 día)",
        "points": -5,
        "params": {"days": 1},
    } in (roll.modifiers)
    assert roll.effective_threshold == 40
    assert InventoryItem.objects.get(character=pc, item_type=dose).quantity == 0
    if roll.success:
        assert (pc.status, pc.disease_day) == (Character.Status.APPROVED, 0)
    else:
        assert (pc.status, pc.death_cause) == (Character.Status.DEAD, "disease")


# --- R16: utilities -------------------------------------------------------------------------


def _binomial_bounds(n: int, p: float, tail: float = 1e-6) -> tuple[int, int]:
    """Smallest lo and largest hi with P(X < lo) ≤ tail and P(X > hi) ≤ tail, exactly."""
    pmf = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    acc, lo = 0.0, 0
    while acc + pmf[lo] <= tail:
        acc += pmf[lo]
        lo += 1
    acc, hi = 0.0, n
    while acc + pmf[hi] <= tail:
        acc += pmf[hi]
        hi -= 1
    return lo, hi


@pytest.mark.parametrize("day", [10, 40])
def test_utility_cut_probability_is_the_day_number(campaign, day):
    # 400 settlements with their own grid: each grid's power and water are cut with p = day %.
    Campaign.objects.filter(pk=campaign.pk).update(current_day=day - 1, entropy="5eed" * 8)
    Settlement.objects.bulk_create(
        [
            Settlement(
                campaign=campaign,
                name=f"P{i}",
                slug=f"p{i}",
                population=100,
                area_m2=1000,
                own_grid=True,
            )
            for i in range(400)
        ]
    )
    campaign.refresh_from_db()
    tick(campaign)
    days = list(GridDay.objects.filter(grid__campaign=campaign, day=day))
    assert len(days) == 401
    assert all(d.probability == day for d in days)
    for d in days:  # a die ≤ p cuts; the state follows the die
        assert d.power_cut_today == (d.power_die <= day)
        assert d.water_cut_today == (d.water_die <= day)
    lo, hi = _binomial_bounds(401, day / 100)
    assert lo <= sum(d.power_cut_today for d in days) <= hi
    assert lo <= sum(d.water_cut_today for d in days) <= hi
    cut = Grid.objects.filter(campaign=campaign, power_on=False)
    assert cut.count() == sum(d.power_cut_today for d in days)
    assert set(cut.values_list("power_cut_day", flat=True)) <= {day}


def test_a_cut_stays_cut_and_rolls_nothing(campaign):
    Grid.objects.create(campaign=campaign, power_on=False, water_on=False, power_cut_day=3)
    tick(campaign)
    day = GridDay.objects.get(grid__campaign=campaign, day=8)
    assert (day.power_die, day.water_die, day.power_on, day.water_on) == (0, 0, False, False)


# --- the world's records and the tick's guarantees -----------------------------------------------


def test_a_campaign_with_no_characters_advances_and_says_so(campaign, village):
    result = advance_day(campaign)
    assert result.advanced
    assert (result.day, result.characters) == (8, 0)
    assert "no hay personajes" in result.message
    campaign.refresh_from_db()
    assert campaign.current_day == 8
    # The closing day's weather (rolled now, a first tick) and the new day's.
    assert set(WeatherRecord.objects.filter(campaign=campaign).values_list("day", flat=True)) == {
        7,
        8,
    }
    assert SettlementDay.objects.filter(settlement=village, day=8).exists()


def test_a_settlement_with_its_own_climate_gets_its_own_weather(campaign, village):
    Settlement.objects.filter(pk=village.pk).update(own_climate=True)
    tick(campaign)
    assert WeatherRecord.objects.filter(campaign=campaign, day=8).count() == 2


def test_the_same_day_twice_advances_once(campaign, shelter):
    survivor(campaign, shelter=shelter)
    first = advance_day(campaign, expected_day=7)
    second = advance_day(campaign, expected_day=7)
    assert first.advanced and not second.advanced
    assert second.tick_id == first.tick_id
    campaign.refresh_from_db()
    assert campaign.current_day == 8
    assert DiaryEntry.objects.count() == 1


def test_weather_does_not_depend_on_the_characters(campaign, village, shelter):
    # Per-step generators: adding characters changes no one's weather or grid dice.
    twin = Campaign.objects.create(
        name="Gemela",
        slug="gemela",
        apocalypse_date=campaign.apocalypse_date,
        current_day=7,
        entropy=campaign.entropy,
    )
    for _ in range(5):
        survivor(campaign, shelter=shelter)
    tick(campaign)
    advance_day(twin)
    ours = WeatherRecord.objects.get(campaign=campaign, day=8, settlement=None)
    theirs = WeatherRecord.objects.get(campaign=twin, day=8, settlement=None)
    assert ours.dice == theirs.dice


def test_a_failure_halfway_leaves_nothing_written(campaign, shelter, monkeypatch):
    for _ in range(6):
        survivor(campaign, shelter=shelter, food=False)  # hungry: every row changes
    before = {
        "day": campaign.current_day,
        "characters": list(Character.objects.order_by("id").values()),
        "items": list(InventoryItem.objects.order_by("id").values_list("id", "quantity")),
    }
    real = bulk.update_columns

    def half_then_fail(model, pks, columns):
        if model is Character:
            half = len(pks) // 2
            real(model, pks[:half], {k: v[:half] for k, v in columns.items()})
            raise RuntimeError("injected failure after half the characters")
        return real(model, pks, columns)

    monkeypatch.setattr(bulk, "update_columns", half_then_fail)
    with pytest.raises(RuntimeError, match="injected"):
        advance_day(campaign)
    campaign.refresh_from_db()
    assert campaign.current_day == before["day"]
    assert list(Character.objects.order_by("id").values()) == before["characters"]
    assert (
        list(InventoryItem.objects.order_by("id").values_list("id", "quantity")) == before["items"]
    )
    for model in (DayTick, DiaryEntry, WeatherRecord, GridDay, SettlementDay, Grid):
        assert not model.objects.exists(), model


def test_the_characters_day_pauses_the_cycle_collector_and_restores_it(
    campaign, shelter, monkeypatch
):
    survivor(campaign, shelter=shelter, food=False)  # hungry: its row is written
    real = bulk.update_columns
    seen: list[bool] = []

    def recording(model, pks, columns):
        if model is Character:
            seen.append(gc.isenabled())
        return real(model, pks, columns)

    def failing(model, pks, columns):
        if model is Character:
            raise RuntimeError("injected failure in the characters' writes")
        return real(model, pks, columns)

    assert gc.isenabled()
    monkeypatch.setattr(bulk, "update_columns", recording)
    tick(campaign)
    assert seen == [False]  # paused while the characters' rows were written
    assert gc.isenabled()  # and back on after the tick
    monkeypatch.setattr(bulk, "update_columns", failing)
    with pytest.raises(RuntimeError, match="injected"):
        advance_day(campaign)
    assert gc.isenabled()  # back on after a failure too
    monkeypatch.setattr(bulk, "update_columns", recording)
    gc.disable()  # a caller that paused it itself: the tick leaves it paused
    try:
        tick(campaign)
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert seen == [False, False]


def _tick_queries(campaign, village, n: int) -> int:
    # No chance diseases: both sizes must meet the same kinds of events (a disease that ends,
    # an infection that raises a zombie, marked days), since a table with nothing to write
    # gets no statement at all.
    no_disease(campaign)
    # Both supplies already cut: no chance cut (p = 8 % on day 8) adds a grid UPDATE to one
    # run and not the other.
    Grid.objects.create(campaign=campaign, power_on=False, water_on=False, power_cut_day=5)
    shelters = [good_shelter(village), good_shelter(village, running_water=True)]
    can = item(campaign, ItemType.Kind.FOOD)
    for i in range(n):
        pc = survivor(
            campaign,
            shelter=shelters[i % 2],
            days=2,
            infection_day=[0, 1, 3][i % 3],
            infection_duration=[0, 3, 3][i % 3],
            disease_day=3 if i % 5 == 0 else 0,
            disease_duration=3 if i % 5 == 0 else 0,
        )
        if i % 4 == 0:
            DayRecord.objects.create(
                character=pc, day=campaign.current_day, sleep_h=5, could_not_urinate=True
            )
    stash(shelters[0], can, 10)
    with CaptureQueriesContext(connection) as ctx:
        advance_day(campaign)
    return len(ctx.captured_queries)


def test_the_ticks_query_count_does_not_grow_with_the_characters(campaign, village):
    # Same world, 10 then 200 characters (with items, day records, infections and deaths):
    # the tick reads each table once and writes each table in one statement.
    small = _tick_queries(campaign, village, 10)
    other = Campaign.objects.create(
        name="Grande", slug="grande", apocalypse_date=campaign.apocalypse_date, current_day=7
    )
    big_village = SettlementFactory(campaign=other, population=200, area_m2=160_000)
    big = _tick_queries(other, big_village, 200)
    # The tick's statements (partida.tick), 25 here: savepoint, campaign FOR UPDATE
    # (nucleo.locks.campaign_lock), settlements, grids (+ insert and re-read the first time a
    # grid is missing), weather read and insert, grid days insert (+ grids update when a
    # supply is cut), characters, shelters, day records, item types, inventory, stashes,
    # Resistencia values, inventory update, stash update (when the stash was used), characters
    # update (the rows that changed), the dead's status update, the day's roll sequences read
    # and the rolls insert (nucleo.ledger, when a disease ends or starts), diary insert (each
    # insert a COPY on PostgreSQL, counted as one query as Django logs it),
    # settlement days insert, settlements update (when someone rose), tick record insert,
    # campaign update, release; on PostgreSQL one more, the transaction's work_mem
    # (partida.tick.characters: the whole-table joins stay in memory at 100 000 characters).
    # A statement is skipped when it has nothing to write, never repeated.
    expected = 26 if connection.vendor == "postgresql" else 25
    assert (small, big) == (expected, expected)


def test_diary_posts_are_made_after_the_commit(
    campaign, shelter, django_capture_on_commit_callbacks
):
    # R24 steps 6–7: the entries are written in the tick's transaction; the posts in each
    # character's diary scene come from them in a task queued on commit (eager here).
    from escenas.models import Post
    from partida.celery import app as celery_app

    pc = survivor(campaign, shelter=shelter)
    before = celery_app.conf.task_always_eager
    celery_app.conf.update(task_always_eager=True)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            advance_day(campaign)
            assert not Post.objects.filter(scene__diary_character=pc).exists()
    finally:
        celery_app.conf.update(task_always_eager=before)
    post = Post.objects.get(scene__diary_character=pc)
    assert post.day == 7


def test_a_dirty_characters_resistance_roll_follows_the_campaigns_dirt_flags(campaign, shelter):
    # R8: the master flags Resistencia as dirt-sensitive in the campaign's settings (the one
    # source); the stored roll says so and its penalty has the dirt line.
    no_disease(campaign, dirt_sensitive_traits=["sigilo", "resistencia"])
    pc = survivor(campaign, shelter=shelter, disease_day=3, disease_duration=3, dirty=True)
    tick(campaign)
    roll = Roll.objects.get(character=pc)
    assert roll.trait_name == "Resistencia" and roll.dirt_sensitive is True
    assert {"source": "dirt", "label": "Suciedad", "points": 5} in roll.modifiers
