"""``nucleo.bulk``: column-wise reads and writes in one statement each, on SQLite and PostgreSQL
(the tick's I/O: ``read_columns`` into numpy, ``insert_columns`` by COPY on PostgreSQL)."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal

import numpy as np
import pytest
from django.db import connection
from django.db.models import FloatField
from django.db.models.functions import Cast
from django.test.utils import CaptureQueriesContext

from nucleo import bulk
from personajes.models import Character, DiaryEntry, InventoryItem, ItemType
from tests.factories import CharacterFactory

pytestmark = pytest.mark.django_db


def _diary(character_id: int, n: int, **overrides: object) -> dict[str, list[object]]:
    """``n`` diary rows of one character (days 1..n) as columns, with ``overrides``."""
    columns: dict[str, list[object]] = {
        "character": [character_id] * n,
        "day": list(range(1, n + 1)),
        "date": [datetime.date(2026, 11, 1) + datetime.timedelta(days=d) for d in range(n)],
        "weather_label": ["despejado"] * n,
        "min_temp_c": [3.5] * n,
        "kcal_eaten": [1999.125] * n,
        "kcal_needed": [2000.0] * n,
        "water_l": [2.0] * n,
        "water_needed_l": [2.0] * n,
        "sleep_h": [8.0] * n,
        "sleep_needed_h": [6.0] * n,
        "hygiene_ok": [True] * n,
        **{
            name: [0] * n
            for name in (
                "hunger_days",
                "thirst_days",
                "fatigue_days",
                "unhygienic_days",
                "disease_day",
                "disease_duration",
                "infection_day",
                "infection_duration",
                "penalty_total",
            )
        },
        "dirty": [False] * n,
        "extra_dirt": [False] * n,
        "penalty_breakdown": ["[]"] * n,
        "disease_p": [2] * n,
        "disease_breakdown": ["[]"] * n,
        "disease_die": [50] * n,
        "fell_ill": [False] * n,
        "status": ["alive"] * n,
        "death_cause": [""] * n,
    }
    columns.update(overrides)
    return columns


def test_an_insert_keeps_every_awkward_value_and_is_one_query(campaign):
    # Text with the characters COPY's text format escapes (tab, newline, carriage return,
    # backslash), JSON with quotes and backslashes, NULLs, dates, booleans, numpy columns.
    pc = CharacterFactory(campaign=campaign)
    labels = ["tab\there", "line\nbreak\r", "back\\slash \\N", "ñandú «frío»"]
    breakdown = json.dumps([{"label": 'say "hi" \\ bye\n', "points": -5}], ensure_ascii=False)
    columns = _diary(
        pc.pk,
        4,
        weather_label=labels,
        min_temp_c=[None, -2.25, 0.0, 1e-5],
        sleep_h=np.array([8.0, 7.5, 0.0, 24.0]),
        hygiene_ok=np.array([True, False, True, False]),
        penalty_total=np.array([-15, 0, 5, 10], np.int64),
        penalty_breakdown=[breakdown, "[]", "[]", "[]"],
        disease_p=[None, 2, None, 100],
        death_cause=["", "", "hunger", ""],
    )
    with CaptureQueriesContext(connection) as ctx:
        assert bulk.insert_columns(DiaryEntry, columns) == 4
    assert len(ctx.captured_queries) == 1
    rows = list(DiaryEntry.objects.filter(character=pc).order_by("day"))
    assert [r.weather_label for r in rows] == labels
    assert rows[0].min_temp_c is None and rows[3].min_temp_c == 1e-5
    assert [r.sleep_h for r in rows] == [8.0, 7.5, 0.0, 24.0]
    assert [r.hygiene_ok for r in rows] == [True, False, True, False]
    assert [r.penalty_total for r in rows] == [-15, 0, 5, 10]
    assert rows[0].penalty_breakdown == [{"label": 'say "hi" \\ bye\n', "points": -5}]
    assert [r.disease_p for r in rows] == [None, 2, None, 100]
    assert rows[2].date == datetime.date(2026, 11, 3) and rows[2].death_cause == "hunger"
    assert rows[0].kcal_eaten == 1999.125


def test_coded_columns_write_the_rows_plain_columns_write(campaign):
    # The same awkward rows twice: once as plain columns (COPY on PostgreSQL), once with the
    # JSON, text and nullable float columns given as their distinct values and each row's
    # position (bulk.Coded: INSERT … SELECT on PostgreSQL, each JSON text parsed once). The
    # rows read back are equal, field by field, in order.
    plain_pc, coded_pc = CharacterFactory(campaign=campaign), CharacterFactory(campaign=campaign)
    labels = ["tab\there", "ñandú «frío»", "back\\slash \\N", '"quoted", {braced}']
    breakdowns = [
        json.dumps([{"label": 'say "hi" \\ bye\n', "points": -5}], ensure_ascii=False),
        "[]",
        json.dumps([{"label": "Fatiga (1 día)", "points": 10, "params": {"days": 1}}]),
    ]
    temps: list[float | None] = [None, -2.25, 1e-5]
    at = np.array([2, 0, 1, 1, 2, 0], np.int64)
    plain = _diary(
        plain_pc.pk,
        6,
        weather_label=[labels[j] for j in [3, 0, 1, 2, 3, 1]],
        min_temp_c=[temps[j] for j in at.tolist()],
        penalty_breakdown=[breakdowns[j] for j in at.tolist()],
        disease_breakdown=[breakdowns[j] for j in at[::-1].tolist()],
    )
    coded = _diary(
        coded_pc.pk,
        6,
        weather_label=bulk.Coded(labels, np.array([3, 0, 1, 2, 3, 1])),
        min_temp_c=bulk.Coded(temps, at),
        penalty_breakdown=bulk.Coded(breakdowns, at),
        disease_breakdown=bulk.Coded(breakdowns, at[::-1].copy()),
    )
    assert bulk.insert_columns(DiaryEntry, plain) == 6
    with CaptureQueriesContext(connection) as ctx:
        assert bulk.insert_columns(DiaryEntry, coded) == 6
    assert len(ctx.captured_queries) == 1
    fields = [f.name for f in DiaryEntry._meta.concrete_fields if f.name not in ("id", "character")]

    def rows(pc: Character) -> list[tuple[object, ...]]:
        return list(DiaryEntry.objects.filter(character=pc).order_by("day").values_list(*fields))

    assert rows(coded_pc) == rows(plain_pc)
    assert rows(coded_pc)[0][fields.index("weather_label")] == '"quoted", {braced}'
    assert rows(coded_pc)[1][fields.index("min_temp_c")] is None
    assert DiaryEntry.objects.get(character=coded_pc, day=1).penalty_breakdown == [
        {"label": "Fatiga (1 día)", "points": 10, "params": {"days": 1}}
    ]


def test_an_insert_larger_than_a_chunk_writes_every_row_in_order(campaign, monkeypatch):
    monkeypatch.setattr(bulk, "_COPY_CHUNK", 3)
    pc = CharacterFactory(campaign=campaign)
    with CaptureQueriesContext(connection) as ctx:
        assert bulk.insert_columns(DiaryEntry, _diary(pc.pk, 10)) == 10
    assert len(ctx.captured_queries) == 1
    days = DiaryEntry.objects.filter(character=pc).order_by("id").values_list("day", flat=True)
    assert list(days) == list(range(1, 11))


def test_no_rows_no_query():
    with CaptureQueriesContext(connection) as ctx:
        assert bulk.insert_columns(DiaryEntry, {"day": []}) == 0
        assert bulk.update_columns(DiaryEntry, [], {"day": []}) == 0
    assert ctx.captured_queries == []


def test_columns_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="different lengths"):
        bulk.insert_columns(DiaryEntry, {"day": [1, 2], "status": ["alive"]})


def test_read_columns_gives_one_array_per_column_nulls_as_nan(campaign, monkeypatch):
    monkeypatch.setattr(bulk, "_READ_CHUNK", 2)  # five rows: three chunks, concatenated
    food = ItemType.objects.create(campaign=campaign, name="Lata", kind="food", kcal_per_unit=400)
    people = [
        CharacterFactory(campaign=campaign, hunger_days=i, dirty=i % 2 == 1) for i in range(5)
    ]
    for i, pc in enumerate(people):
        InventoryItem.objects.create(character=pc, item_type=food, quantity=Decimal(i) / 8)
    ids, settlement, hunger, dirty = bulk.read_columns(
        Character.objects.filter(campaign=campaign)
        .order_by("id")
        .values_list("id", "settlement_id", "hunger_days", "dirty"),
        [np.int64, np.float64, np.int64, np.bool_],
    )
    assert ids.tolist() == [p.pk for p in people] and ids.dtype == np.int64
    assert np.isnan(settlement).all()
    assert hunger.tolist() == [0, 1, 2, 3, 4]
    assert dirty.dtype == np.bool_ and dirty.tolist() == [False, True, False, True, False]
    (units,) = bulk.read_columns(
        InventoryItem.objects.filter(item_type=food)
        .order_by("character_id")
        .values_list(Cast("quantity", FloatField())),
        [np.float64],
    )
    assert units.tolist() == [0.0, 0.125, 0.25, 0.375, 0.5]


def test_read_columns_of_no_rows_are_empty_arrays(campaign):
    ids, flags = bulk.read_columns(
        Character.objects.filter(campaign=campaign).values_list("id", "dirty"),
        [np.int64, np.bool_],
    )
    assert ids.shape == (0,) and ids.dtype == np.int64 and flags.dtype == np.bool_


def test_read_columns_keep_the_querysets_order_and_count_one_query(campaign):
    people = [CharacterFactory(campaign=campaign, hunger_days=i % 3) for i in range(6)]
    with CaptureQueriesContext(connection) as ctx:
        ids, hunger = bulk.read_columns(
            Character.objects.filter(campaign=campaign)
            .order_by("hunger_days", "-id")
            .values_list("id", "hunger_days"),
            [np.int64, np.int64],
        )
    assert len(ctx.captured_queries) == 1
    expected = sorted(people, key=lambda p: (p.hunger_days, -p.pk))
    assert ids.tolist() == [p.pk for p in expected]
    assert hunger.tolist() == [0, 0, 1, 1, 2, 2] and hunger.dtype == np.int64


def test_read_columns_refuse_a_null_in_an_int_column(campaign):
    CharacterFactory(campaign=campaign)  # no settlement: a NULL id
    with pytest.raises((ValueError, TypeError)):
        bulk.read_columns(
            Character.objects.filter(campaign=campaign).values_list("settlement_id"), [np.int64]
        )


@pytest.mark.parametrize(
    "values",
    [
        np.array([3, 1, 3, 3, 0, 1, 3, 3], np.int64),
        np.array([0.5, -0.0, 0.0, 0.5, 1e-05, np.nan, 2000.0, 0.5]),
        np.array([1.125, 1.125, 1.125, np.inf, 1.125, 1.125]),
        np.array([True, False, True, True, True]),
        np.arange(10, dtype=np.int64),  # all distinct: each formatted in turn
        np.array([-3, 7, -3, 0, 7], np.int32),  # a table of the range -3..7
        np.array([10**12, 5, 10**12, 5, 5], np.int64),  # too wide a range: np.unique
        np.array([2**40, -(2**40)], np.int64),
        np.zeros(0),
    ],
)
def test_texts_are_each_values_str_in_order(values):
    # Each distinct value formatted once, then spread: the same texts as str() of each.
    assert bulk._texts(values) == [str(v) for v in values.tolist()]


def test_bool_texts_through_the_range_table():
    flags = np.array([True, False, False, True])
    assert bulk._texts(flags, bulk._bool_text) == ["t", "f", "f", "t"]
    assert bulk._texts(np.array([False, False]), bulk._bool_text) == ["f", "f"]


def test_numpy_columns_are_written_as_their_values(campaign):
    pc = CharacterFactory(campaign=campaign)
    columns: dict[str, object] = _diary(pc.pk, 4)
    columns["kcal_eaten"] = np.array([0.5, 0.5, 1999.125, 0.5])
    columns["hunger_days"] = np.array([2, 2, 2, 7], np.int64)
    columns["hygiene_ok"] = np.array([True, False, True, True])
    assert bulk.insert_columns(DiaryEntry, columns) == 4
    rows = DiaryEntry.objects.filter(character=pc).order_by("day")
    assert [(r.kcal_eaten, r.hunger_days, r.hygiene_ok) for r in rows] == [
        (0.5, 2, True),
        (0.5, 2, False),
        (1999.125, 2, True),
        (0.5, 7, True),
    ]
    ids = np.array([r.pk for r in rows], np.int64)
    changed = bulk.update_columns(
        DiaryEntry,
        ids[[0, 2]],
        {"hunger_days": np.array([5, 5], np.int64), "fell_ill": np.array([True, True])},
    )
    assert changed == 2
    after = DiaryEntry.objects.filter(character=pc).order_by("day")
    assert [(r.hunger_days, r.fell_ill) for r in after] == [
        (5, True),
        (2, False),
        (5, True),
        (7, False),
    ]


def test_a_text_longer_than_its_column_is_refused_not_cut(campaign):
    """Text columns are cast to their type without its length (``nucleo.bulk._pg_column``): a
    weather label longer than its 60 characters is refused by PostgreSQL, as COPY and the ORM
    refuse it, in a coded insert and in an update alike (an explicit ``varchar(60)`` cast cut
    it silently); SQLite has no lengths and keeps it whole."""
    from django.db import DataError, transaction

    character = CharacterFactory(campaign=campaign)
    long_label = "x" * 200
    coded = bulk.Coded([long_label], np.zeros(1, np.int64))
    if connection.vendor != "postgresql":
        bulk.insert_columns(DiaryEntry, _diary(character.pk, 1, weather_label=coded))
        assert DiaryEntry.objects.get(character=character).weather_label == long_label
        return
    with pytest.raises(DataError), transaction.atomic():
        bulk.insert_columns(DiaryEntry, _diary(character.pk, 1, weather_label=coded))
    assert not DiaryEntry.objects.filter(character=character).exists()
    bulk.insert_columns(DiaryEntry, _diary(character.pk, 1))
    entry = DiaryEntry.objects.get(character=character)
    with pytest.raises(DataError), transaction.atomic():
        bulk.update_columns(DiaryEntry, [entry.pk], {"weather_label": [long_label]})
    entry.refresh_from_db()
    assert entry.weather_label == "despejado"
