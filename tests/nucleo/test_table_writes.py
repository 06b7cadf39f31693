"""The per-table write generations (``nucleo.table_writes``) see the writes that do not start
with a write verb or bypass Django's cursor: a CTE ending in an ``UPDATE`` and the tick's
``COPY … FROM STDIN`` (``nucleo.bulk.insert_columns``)."""

from __future__ import annotations

import pytest
from django.db import connection

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
