"""The per-table write generations (``nucleo.table_writes``) see the writes that do not start
with a write verb or bypass Django's cursor: a CTE ending in an ``UPDATE`` and the tick's
``COPY … FROM STDIN`` (``nucleo.bulk.insert_columns``); a ``recording`` keeps a piece until a
table it read, or an extra key it names, changes."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.core.cache import cache
from django.db import connection

from mundo.models import Campaign
from nucleo import bulk, table_writes
from personajes.models import DiaryEntry
from tests.factories import CharacterFactory
from tests.nucleo.test_bulk import _diary

pytestmark = pytest.mark.django_db


def _generation(table: str) -> str:
    return table_writes.snapshot()[table]


def test_a_cte_ending_in_an_update_bumps_the_updated_table(campaign):
    table = DiaryEntry._meta.db_table
    before = _generation(table)
    with connection.cursor() as cursor:
        cursor.execute(
            f'WITH picked AS (SELECT 1 AS id) UPDATE "{table}" SET sleep_h = 8 '
            f"WHERE id IN (SELECT id FROM picked)"
        )
    assert _generation(table) != before


def test_a_cte_that_only_reads_bumps_nothing(campaign):
    table = DiaryEntry._meta.db_table
    before = _generation(table)
    with connection.cursor() as cursor:
        cursor.execute(f'WITH picked AS (SELECT id FROM "{table}") SELECT count(*) FROM picked')
    assert _generation(table) == before


def test_the_bulk_insert_bumps_its_table_on_either_database(campaign):
    # On PostgreSQL the rows go by psycopg's Cursor.copy, which no execute wrapper sees.
    pc = CharacterFactory(campaign=campaign)
    table = DiaryEntry._meta.db_table
    before = _generation(table)
    assert bulk.insert_columns(DiaryEntry, _diary(pc.pk, 3)) == 3
    assert _generation(table) != before
    assert table in getattr(connection, table_writes.PENDING)  # and again at the commit


@dataclass(frozen=True)
class _Entry:
    value: str
    generations: dict[str, str]


def _keep(rec: table_writes.Recording, value: str, **options) -> None:
    kept = rec.generations(**options)
    assert kept is not None
    cache.set(rec.key, _Entry(value, kept), 60)


def test_a_recorded_piece_is_kept_until_a_table_it_read_is_written(campaign):
    pc = CharacterFactory(campaign=campaign)
    with table_writes.recording("test:piece") as rec:
        assert rec is not None
        assert Campaign.objects.get(pk=campaign.pk).name == campaign.name
    assert rec.tables == {Campaign._meta.db_table}
    _keep(rec, "campaña")
    found = table_writes.kept("test:piece", _Entry)
    assert found is not None and found.value == "campaña"
    assert table_writes.kept("test:piece", table_writes.Recording) is None  # another type
    assert bulk.insert_columns(DiaryEntry, _diary(pc.pk, 1)) == 1  # a table it did not read
    assert table_writes.kept("test:piece", _Entry) is not None
    Campaign.objects.filter(pk=campaign.pk).update(current_day=9)
    assert table_writes.kept("test:piece", _Entry) is None


def test_a_recording_keeps_its_extra_keys_and_leaves_out_what_it_is_told(campaign):
    pc = CharacterFactory(campaign=campaign)
    cache.set("test:extra", "1", 60)
    table = Campaign._meta.db_table
    with table_writes.recording("test:extra-piece") as rec:
        assert rec is not None
        rec.extra["test:extra"] = "1"
        list(Campaign.objects.all())
    kept = rec.generations(also=("auth_user",), without=(table,))
    assert kept is not None
    assert table_writes.key("auth_user") in kept and table_writes.key(table) not in kept
    assert kept["test:extra"] == "1" and table_writes.key(table_writes.GLOBAL) in kept
    _keep(rec, "x", without=(table,))
    Campaign.objects.filter(pk=campaign.pk).update(current_day=9)
    assert table_writes.kept("test:extra-piece", _Entry) is not None  # the campaign left out
    assert bulk.insert_columns(DiaryEntry, _diary(pc.pk, 1)) == 1
    assert table_writes.kept("test:extra-piece", _Entry) is not None
    cache.set("test:extra", "2", 60)
    assert table_writes.kept("test:extra-piece", _Entry) is None


def test_no_key_records_nothing_and_finds_nothing(campaign):
    current = table_writes.generations(table_writes.snapshot(), ())
    cache.set("", _Entry("x", current or {}), 60)  # a valid entry even under the empty key
    with table_writes.recording("") as rec:
        assert rec is None
        assert table_writes._reads.get() is None  # no reads collected
        list(DiaryEntry.objects.all())
    assert table_writes.kept("", _Entry) is None
