"""The tick's tables as PostgreSQL stores them (personajes migrations 0009 and 0012, mundo
0010; and the posts', escenas 0017): room on each page
for the daily updates to stay in place (HOT), and no index that a unique constraint's index
already covers. On SQLite (no fill factor; the FK indexes dropped the same way) only the index
part applies."""

from __future__ import annotations

import pytest
from django.db import connection

from mundo.models import Campaign
from partida.tick import advance_day
from tests.factories import SettlementFactory
from tests.partida.tick_helpers import good_shelter, survivor

pytestmark = pytest.mark.django_db

HOT_TABLES = ("personajes_character", "personajes_inventoryitem", "personajes_shelterstash")
COVERED = {
    # table: (column without an index of its own, the unique constraint leading with it)
    "personajes_inventoryitem": ("character_id", "inventory_unique"),
    "personajes_diaryentry": ("character_id", "diary_entry_unique_day"),
    "personajes_dayrecord": ("character_id", "day_record_unique"),
    "personajes_traitvalue": ("character_id", "trait_value_unique"),
    "personajes_shelterstash": ("shelter_id", "stash_unique"),
    "personajes_roll": ("campaign_id", "roll_unique_generator_key"),
    "mundo_gridday": ("grid_id", "grid_day_unique"),
    "mundo_settlementday": ("settlement_id", "settlement_day_unique"),
    # Written on every post and every first read of a scene (escenas 0017).
    "escenas_post": ("scene_id", "post_unique_idempotency_key"),
    "escenas_draft": ("user_id", "draft_one_per_user_scene"),
    "escenas_sceneread": ("user_id", "scene_read_unique"),
}


def _indexes(table: str) -> dict[str, list[str]]:
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    return {name: c["columns"] for name, c in constraints.items() if c["index"] or c["unique"]}


@pytest.mark.parametrize("table", sorted(COVERED))
def test_no_index_repeats_the_leading_column_of_a_unique_one(table):
    column, unique = COVERED[table]
    indexes = _indexes(table)
    assert indexes[unique][0] == column
    assert [name for name, cols in indexes.items() if cols == [column]] == []


def test_the_hot_tables_keep_half_of_each_page_free():
    if connection.vendor != "postgresql":
        pytest.skip("fill factor is PostgreSQL's (SQLite rewrites rows in place)")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, reloptions FROM pg_class WHERE relname = ANY(%s) ORDER BY relname",
            [list(HOT_TABLES)],
        )
        assert cursor.fetchall() == [(t, ["fillfactor=50"]) for t in HOT_TABLES]


def test_the_ticks_updates_stay_on_their_pages(campaign):
    # Heap-only updates: the condition counters and quantities are in no index, and the page
    # has room, so PostgreSQL writes no index entry for them. (Fails when a column the tick
    # writes gets indexed; the room at 10 000 characters is the fill factor, checked above.)
    village = SettlementFactory(campaign=campaign, population=200, area_m2=160_000)
    if connection.vendor != "postgresql":
        pytest.skip("HOT updates are PostgreSQL's")
    shelter = good_shelter(village)
    for i in range(20):
        survivor(campaign, shelter=shelter, water=i % 2 == 0)  # half of them go thirsty
    advance_day(Campaign.objects.get(pk=campaign.pk))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, pg_stat_get_xact_tuples_updated(oid),"
            " pg_stat_get_xact_tuples_hot_updated(oid) FROM pg_class"
            " WHERE relname = ANY(%s) ORDER BY relname",
            [list(HOT_TABLES[:2])],
        )
        counts = {table: (updated, hot) for table, updated, hot in cursor.fetchall()}
    # Each survivor ate, half of them drank; the thirsty ones' counters moved.
    assert counts["personajes_inventoryitem"][0] >= 30
    assert counts["personajes_character"][0] >= 10
    assert all(hot == updated for updated, hot in counts.values()), counts
