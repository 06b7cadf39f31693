"""Column-wise bulk writes in ONE statement each, whatever the number of rows.

The daily tick writes every character of a campaign at once. Django's ``bulk_update`` builds one
``CASE WHEN id = … THEN …`` per field and row (quadratic-ish SQL, slow at 10 000 rows) and
``bulk_create`` splits into batches on SQLite (999 parameters): both make the number of queries
or their cost grow with the characters. Here the rows travel as columns:

- PostgreSQL: one array parameter per column, ``unnest(%s::type[])`` each —
  ``UPDATE t SET … FROM (SELECT unnest(…) AS id, unnest(…) AS c0, …) AS v WHERE t.id = v.id``;
- SQLite (≥ 3.33 for UPDATE … FROM): one JSON parameter, read with ``json_each``.

Both are plain, documented SQL of each database. Values must already be what the column stores
(ints, floats, bools, str, ``datetime.date``, Decimal, None; JSON columns take the JSON text).
Inserts on PostgreSQL go by ``COPY … FROM STDIN`` (psycopg's ``Cursor.copy``) instead, or, when
a column is ``Coded`` (few distinct values, given once each: the diary's JSON breakdowns), by
one ``INSERT … SELECT`` of arrays unnested in step, each distinct JSON text parsed once.

Reads the other way: ``read_columns`` runs a ``values_list`` query on the cursor and returns one
numpy array per column, without a model or a row tuple kept per row: on PostgreSQL numeric
columns come as one binary array each (``array_send``), elsewhere rows chunk by chunk.
"""

from __future__ import annotations

import datetime
import decimal
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connection, models
from django.db.backends.utils import debug_transaction
from numpy.typing import NDArray

from nucleo import table_writes

_READ_CHUNK = 5_000
"""Rows fetched at a time by ``read_columns`` (memory bounded by a chunk, not the table)."""


@dataclass(frozen=True, slots=True)
class Coded:
    """A column of few distinct values given once each: row i holds ``values[index[i]]``.

    ``values`` the distinct values (as a column holds them: JSON text for a JSON column),
    ``index`` (n,) int positions in ``values``, one per row. ``insert_columns`` sends each
    value once and the rows as the array of positions: on PostgreSQL a JSON document is
    parsed once per distinct value, not once per row (the tick's diary: 10 000 breakdowns,
    a dozen distinct).
    """

    values: Sequence[Any]
    index: NDArray[np.integer[Any]]

    def __len__(self) -> int:
        return int(self.index.shape[0])

    def expand(self) -> list[Any]:
        """One value per row (what the column holds)."""
        values = list(self.values)
        return [values[j] for j in self.index.tolist()]


Column = Sequence[Any] | NDArray[Any] | Coded
"""One column of rows to write: a list, a numpy array (one value per row) or a ``Coded``."""


def read_columns(queryset: Any, dtypes: Sequence[Any]) -> list[NDArray[Any]]:
    """The rows of a ``values_list`` queryset as one numpy array per column, in one query.

    ``dtypes`` one per selected column (``np.int64``, ``np.float64``, ``np.bool_``, ``"<U16"``…);
    NULL reads as NaN in float columns (make nullable integers float, or coalesce them in the
    query). The SQL is the queryset's own, run on the cursor: no ``values_list`` iterator, no
    converters (select Decimal columns cast to float). On PostgreSQL, when every column is an
    int, float or bool, the rows come by ``COPY … TO STDOUT (FORMAT binary)`` and are read
    with one structured ``np.frombuffer`` (``_read_binary``: no Python object per value);
    otherwise rows are fetched ``_READ_CHUNK`` at a time and turned into arrays chunk by chunk.
    Rows come in the order the queryset names with ``order_by``; without one the model's
    ``Meta.ordering`` is dropped (a column read never needs it, and it can cost a join and a
    sort of the whole result: carried items are ordered by their item type's kind and name).
    Raises ``ValueError``/``TypeError`` when a value does not fit its dtype (a NULL in an int
    or bool column).
    """
    if not queryset.query.order_by:
        queryset = queryset.order_by()
    sql, params = queryset.query.sql_with_params()
    kinds = [np.dtype(d).kind for d in dtypes]
    if connection.vendor == "postgresql" and all(k in _BINARY_TYPES for k in kinds):
        return _read_binary(sql, params, kinds)
    parts: list[list[NDArray[Any]]] = []
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(_READ_CHUNK):
            columns = zip(*rows, strict=True)
            parts.append([np.array(c, dtype=d) for c, d in zip(columns, dtypes, strict=True)])
    if not parts:
        return [np.zeros(0, dtype=d) for d in dtypes]
    if len(parts) == 1:
        return parts[0]
    return [np.concatenate(cols) for cols in zip(*parts, strict=True)]


_BINARY_TYPES: dict[str, tuple[str, str, Any]] = {
    "i": ("int8", ">i8", np.int64),
    "f": ("float8", ">f8", np.float64),
    "b": ("bool", "?", np.bool_),
}
"""numpy dtype kind → (PostgreSQL type each column is cast to, its big-endian binary COPY
field, the native dtype returned)."""


def _read_binary(sql: str, params: Sequence[Any], kinds: list[str]) -> list[NDArray[Any]]:
    """``read_columns`` on PostgreSQL for int, float and bool columns, in one row: each column
    aggregated into one array (``array_agg``, each value cast to int8/float8/bool, floats
    ``COALESCE``d to NaN) and sent as its binary form (``array_send``: a bytea), so every
    element has the same width: a 4-byte length, then the big-endian value. Each bytea is read
    by one ``np.frombuffer`` (no Python object per value; COPY would cost a message and a
    Python call per row). The query is a subquery of the aggregate: its ORDER BY keeps it a
    sorted subquery, whose order ``array_agg`` keeps (PostgreSQL's documented way of ordered
    aggregate input). Raises ``ValueError`` for a NULL in an int or bool column."""
    names = [f"_c{i}" for i in range(len(kinds))]
    selects = ", ".join(
        f"array_send(array_agg(COALESCE({c}::float8, 'NaN')))"
        if k == "f"
        else f"array_send(array_agg({c}::{_BINARY_TYPES[k][0]}))"
        for c, k in zip(names, kinds, strict=True)
    )
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {selects} FROM ({sql}) AS _q({', '.join(names)})", params)
        row = cursor.fetchone()
    out = []
    for k, data in zip(kinds, row, strict=True):
        _pg, big_endian, native = _BINARY_TYPES[k]
        if data is None:  # no rows: array_agg of nothing is NULL
            out.append(np.zeros(0, dtype=native))
            continue
        width = np.dtype(big_endian).itemsize
        element = np.dtype([("length", ">i4"), ("value", big_endian)])
        body = memoryview(data)[20:]  # ndim, flags, element type; the one dimension's size, base
        if len(body) % element.itemsize:
            raise ValueError("a NULL in an int or bool column")
        values = np.frombuffer(body, dtype=element)
        if np.any(values["length"] != width):
            raise ValueError("a NULL in an int or bool column")
        out.append(values["value"].astype(native))
    return out


def _pg_type(field: models.Field[Any, Any]) -> str:
    if isinstance(field, models.ForeignKey):
        field = field.target_field
    db_type = field.db_type(connection)
    if db_type is None:  # pragma: no cover - every column we write has a type
        raise ValueError(f"{field} has no database type")
    if db_type in ("serial", "bigserial", "smallserial"):
        return {"serial": "integer", "bigserial": "bigint", "smallserial": "smallint"}[db_type]
    if " generated " in db_type.lower():  # identity columns: "bigint" + "GENERATED BY …"
        return db_type.split()[0]
    return db_type


def _texts(values: NDArray[Any], text: Any = str) -> list[str]:
    """``text(v)`` of each value of a numpy int, float or bool array, in order, each distinct
    value formatted once: ints and bools of a range not much wider than the array through a
    table of the range's texts (no sort: the tick's counters, flags and ids), other values
    through ``np.unique``, or each in turn when most are distinct. A negative zero keeps its
    own text (``np.unique`` would fold it into 0.0)."""
    if values.size == 0:
        return []
    if values.dtype.kind in "ib":
        low, high = int(values.min()), int(values.max())
        if high - low < 2 * values.size:
            kind = bool if values.dtype.kind == "b" else int
            table = np.array([text(kind(v)) for v in range(low, high + 1)], dtype=object)
            texts: list[str] = table[values.astype(np.int64) - low].tolist()
            return texts
    if values.dtype.kind == "f" and np.any(np.signbit(values) & (values == 0)):
        return list(map(text, values.tolist()))
    distinct, inverse = np.unique(values, return_inverse=True)
    if 2 * distinct.size > values.size:
        return list(map(text, values.tolist()))
    spread: list[str] = np.array(list(map(text, distinct.tolist())), dtype=object)[
        inverse.reshape(-1)
    ].tolist()
    return spread


def _is_numbers(values: Any) -> bool:
    """True for a numpy array of ints, floats or bools (``_texts`` formats it)."""
    return isinstance(values, np.ndarray) and values.dtype.kind in "iufb"


def _bool_text(value: bool) -> str:
    return "t" if value else "f"


def _array_literal(values: Column) -> str:
    """A PostgreSQL array literal of numbers, booleans or dates (``{1,2,NULL}``), built with
    one ``join``: psycopg's list adaptation goes element by element through its adapters,
    which at tens of thousands of elements costs more than the database's whole work. A numpy
    array's distinct values are formatted once each (``_texts``), a list of one value once."""
    if _is_numbers(values):
        assert isinstance(values, np.ndarray)
        text = _bool_text if values.dtype.kind == "b" else str
        return "{" + ",".join(_texts(values, text)) + "}"
    values = _as_list(values)
    if not values:
        return "{}"
    if len(values) > 1 and _one_value(values):  # a column of one value ([day] * n): once
        one = _array_literal(values[:1])[1:-1]
        return "{" + ",".join([one] * len(values)) + "}"
    sample = next((v for v in values if v is not None), None)
    if isinstance(sample, bool):
        return "{" + ",".join(["NULL" if v is None else ("t" if v else "f") for v in values]) + "}"
    if isinstance(sample, datetime.datetime | datetime.date):
        return "{" + ",".join(["NULL" if v is None else f'"{v.isoformat()}"' for v in values]) + "}"
    if None not in values:
        return "{" + ",".join(map(str, values)) + "}"
    return "{" + ",".join(["NULL" if v is None else str(v) for v in values]) + "}"


def _pg_column(field: models.Field[Any, Any], values: Column) -> tuple[str, str]:
    """The SQL expression giving one column as an array, and its one text parameter.

    Text and JSON columns travel as one JSON document (``json.dumps`` and the server's JSON
    parser are both C), expanded in order with ``WITH ORDINALITY``; the rest as array literals.
    A text column's values are cast to its type one by one inside the subquery, so the array
    already has it: a cast of the whole array outside it would be part of a ``Coded`` column's
    ``(array)[position]`` and run once per row, coercing every distinct value again (at the
    tick's 100 000 characters, 51 climates' weather labels made that 85 ms against 10 ms).
    The cast is to the type without its length (``varchar``, not ``varchar(60)``): an explicit
    cast would cut a longer value silently, where the column's own assignment refuses it
    (``DataError``), as ``COPY`` and the ORM do.
    """
    pg_type = _pg_type(field)
    ordered = "WITH ORDINALITY AS e(x, i) ORDER BY i"
    if isinstance(field, models.JSONField):
        # The values are JSON texts already: joined, not re-encoded.
        param = "[" + ",".join("null" if v is None else v for v in _as_list(values)) + "]"
        return f"ARRAY(SELECT x FROM jsonb_array_elements(%s::jsonb) {ordered})", param
    if isinstance(field, models.CharField | models.TextField):
        base = pg_type.split("(")[0]  # no length: a longer value is refused, not cut
        sql = f"ARRAY(SELECT x::{base} FROM jsonb_array_elements_text(%s::jsonb) {ordered})"
        return sql, json.dumps(_as_list(values), ensure_ascii=False)
    return f"%s::{pg_type}[]", _array_literal(values)


def _json_value(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, datetime.datetime):
        # As Django stores it on SQLite: UTC, without an offset.
        return connection.ops.adapt_datetimefield_value(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def _columns(model: type[models.Model], names: Sequence[str]) -> list[models.Field[Any, Any]]:
    return [model._meta.get_field(name) for name in names]  # type: ignore[misc]


def _column(field: models.Field[Any, Any]) -> str:
    """The database column of a concrete field (only non-concrete fields have none)."""
    if field.column is None:
        raise ValueError(f"{field.name} has no column")
    return field.column


def _defaults(model: type[models.Model], named: Mapping[str, Column], n: int) -> dict[str, Column]:
    """The model defaults of the concrete fields not named (COPY and ``INSERT … SELECT`` apply
    only database defaults): one column of ``n`` equal values per such field."""
    out: dict[str, Column] = {}
    for field in model._meta.concrete_fields:
        if field.primary_key or field.name in named or field.attname in named:
            continue
        if field.has_default() and not field.has_db_default():
            out[field.name] = [field.get_default()] * n
    return out


def _check_lengths(columns: Mapping[str, Column]) -> int:
    lengths = {len(v) for v in columns.values()}
    if len(lengths) > 1:
        raise ValueError(f"columns of different lengths: {lengths}")
    return lengths.pop() if lengths else 0


def update_columns(model: type[models.Model], pks: Column, columns: Mapping[str, Column]) -> int:
    """``UPDATE`` the rows whose primary keys are ``pks`` with ``columns`` (field name → one
    value per row, in the order of ``pks``; each a sequence or a numpy array) in one statement.
    Returns the rows changed.

    No query at all when ``pks`` is empty.
    """
    n = _check_lengths({"pk": pks, **columns})
    if n == 0 or not columns:
        return 0
    table = connection.ops.quote_name(model._meta.db_table)
    pk = model._meta.pk
    assert pk is not None
    fields = _columns(model, list(columns))
    pk_col = connection.ops.quote_name(_column(pk))
    cols = [connection.ops.quote_name(_column(f)) for f in fields]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            arrays = [
                _pg_column(f, v)
                for f, v in zip([pk, *fields], [pks, *columns.values()], strict=True)
            ]
            names = ["_pk", *(f"_c{i}" for i in range(len(fields)))]
            sets = ", ".join(f"{c} = v._c{i}" for i, c in enumerate(cols))
            # One unnest per array in the select list: they run in step, streamed (a
            # multi-argument unnest in FROM stores each array's rows first: 15-25 % slower).
            each = ", ".join(f"unnest({a[0]}) AS {n}" for a, n in zip(arrays, names, strict=True))
            sql = (
                f"UPDATE {table} AS t SET {sets} FROM (SELECT {each}) AS v WHERE t.{pk_col} = v._pk"
            )
            cursor.execute(sql, [a[1] for a in arrays])
        else:
            values = [_as_list(v) for v in [pks, *columns.values()]]
            rows = [[_json_value(v) for v in row] for row in zip(*values, strict=True)]
            selects = ", ".join(
                f"json_extract(value, '$[{i + 1}]') AS _c{i}" for i in range(len(fields))
            )
            sets = ", ".join(f"{c} = v._c{i}" for i, c in enumerate(cols))
            sql = (
                f"UPDATE {table} SET {sets} FROM (SELECT json_extract(value, '$[0]') AS _pk, "
                f"{selects} FROM json_each(%s)) AS v WHERE {table}.{pk_col} = v._pk"
            )
            cursor.execute(sql, [json.dumps(rows)])
        return int(cursor.rowcount)


_COPY_CHUNK = 5_000
"""Rows per ``write`` of a COPY: the text of one chunk is built at a time (memory bounded)."""


def _copy_escape(values: list[str]) -> list[str]:
    """COPY text-format escapes (backslash, tab, newline, carriage return) of many strings at
    once: joined on NUL (which PostgreSQL text cannot hold), replaced in C, split again."""
    joined = "\x00".join(values)
    if "\\" in joined or "\t" in joined or "\n" in joined or "\r" in joined:
        joined = (
            joined.replace("\\", "\\\\")
            .replace("\t", "\\t")
            .replace("\n", "\\n")
            .replace("\r", "\\r")
        )
    return joined.split("\x00")


def _copy_column(field: models.Field[Any, Any], values: Column) -> list[str]:
    """One column in COPY text format: ``\\N`` for None; booleans, numbers, Decimals and dates
    by ``str`` (PostgreSQL reads ``True``, ``nan``, ``2026-11-08``, ``1e-05``), a numpy
    array's distinct values formatted once each (``_texts``); text escaped. JSON columns take
    their JSON text, and None as JSON ``null`` (as the unnest path does)."""
    if _is_numbers(values):
        assert isinstance(values, np.ndarray)
        return _texts(values)
    values = _as_list(values)
    if isinstance(field, models.JSONField):
        return _copy_escape(["null" if v is None else v for v in values])
    if isinstance(field, models.CharField | models.TextField):
        if None not in values:
            return _copy_escape(values)
        texts = _copy_escape(["" if v is None else v for v in values])
        return ["\\N" if v is None else t for v, t in zip(values, texts, strict=True)]
    if values and _one_value(values):  # a column of one value ([closed] * n): its text once
        return ["\\N" if values[0] is None else str(values[0])] * len(values)
    if None not in values:
        return list(map(str, values))
    return ["\\N" if v is None else str(v) for v in values]


def _one_value(values: list[Any]) -> bool:
    """True when every item of a non-empty list is equal to the first and of its type (1 and
    True are equal, but their texts differ)."""
    return values.count(values[0]) == len(values) and len(set(map(type, values))) == 1


def _as_list(values: Any) -> list[Any]:
    """Python values of a column (a numpy array's ``tolist``: ints, floats, bools, str; a
    ``Coded`` column's values row by row)."""
    if isinstance(values, Coded):
        return values.expand()
    return values.tolist() if isinstance(values, np.ndarray) else list(values)


def _copy_rows(
    cursor: Any, table: str, cols: str, fields: list[models.Field[Any, Any]], columns: list[Any]
) -> None:
    """``COPY table (cols) FROM STDIN`` (psycopg's ``Cursor.copy``), in chunks of rows; logged
    as one query where Django logs queries (``CaptureQueriesContext``, ``DEBUG``)."""
    sql = f"COPY {table} ({cols}) FROM STDIN"
    n = len(columns[0])
    with debug_transaction(connection, sql), cursor.cursor.copy(sql) as copy:
        for start in range(0, n, _COPY_CHUNK):
            chunk = [
                _copy_column(f, v[start : start + _COPY_CHUNK])
                for f, v in zip(fields, columns, strict=True)
            ]
            copy.write("\n".join(map("\t".join, zip(*chunk, strict=True))) + "\n")


def _insert_select(
    psycopg_cursor: Any,
    table: str,
    cols: str,
    fields: list[models.Field[Any, Any]],
    columns: list[Any],
) -> None:
    """``INSERT INTO table (cols) SELECT unnest(…), …`` on PostgreSQL: one array parameter per
    column, unnested in step (as ``update_columns``); a ``Coded`` column as the array of its
    distinct values (parsed once: a constant of the statement) subscripted by the rows'
    positions, ``(values)[unnest(positions)]``."""
    selects, params = [], []
    for field, values in zip(fields, columns, strict=True):
        if isinstance(values, Coded):
            array, distinct = _pg_column(field, list(values.values))
            selects.append(f"({array})[unnest(%s::int4[])]")
            params += [distinct, _array_literal(values.index.astype(np.int64) + 1)]
        else:
            array, param = _pg_column(field, values)
            selects.append(f"unnest({array})")
            params.append(param)
    sql = f"INSERT INTO {table} ({cols}) SELECT {', '.join(selects)}"
    # Bound on the server (Django's own psycopg cursor class for it, wrapped as every cursor
    # is: logged, counted, seen by nucleo.table_writes): the arrays travel as parameters, not
    # quoted into one statement text, which at 100 000 rows held two more copies of ~11 MB.
    from django.db.backends.postgresql.base import ServerBindingCursor

    bound_class: Any = ServerBindingCursor  # a psycopg Cursor (the stubs omit its arguments)
    raw = bound_class(psycopg_cursor.connection)
    wrap = connection.make_debug_cursor if connection.queries_logged else connection.make_cursor
    with wrap(raw) as bound:
        bound.execute(sql, params)


def insert_columns(model: type[models.Model], columns: Mapping[str, Column]) -> int:
    """``INSERT`` one row per position of ``columns`` (field name → values: a sequence or a
    numpy array, turned into Python values a chunk at a time) in one statement:
    ``COPY … FROM STDIN`` on PostgreSQL (the fastest way in: no SQL to parse or plan, rows
    streamed in chunks of ``_COPY_CHUNK``), one ``INSERT … SELECT … json_each`` on SQLite.
    A ``Coded`` column (its distinct values once, a position per row) on PostgreSQL makes it
    one ``INSERT … SELECT`` of unnested arrays instead (``_insert_select``): COPY parses each
    row's JSON text, 10 000 breakdowns of ~400 bytes at the tick's 10 000 characters (~70 ms
    of the server's 200 ms for the diary, and ~30 ms of building and escaping 5 MB of text
    here), where the coded insert parses the dozen distinct ones; the other columns cost the
    server about what COPY's do. SQLite writes a ``Coded`` column row by row.

    Fields not named take their model default (``default=``, the same for every row) or their
    database default; name every column that has neither (``auto_now_add`` fields included).
    No query when there are no rows. Returns the number of rows.
    """
    n = _check_lengths(columns)
    if n == 0:
        return 0
    columns = {**_defaults(model, columns, n), **columns}
    table = connection.ops.quote_name(model._meta.db_table)
    fields = _columns(model, list(columns))
    cols = ", ".join(connection.ops.quote_name(_column(f)) for f in fields)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            if any(isinstance(v, Coded) for v in columns.values()):
                _insert_select(cursor.cursor, table, cols, fields, list(columns.values()))
                return n
            _copy_rows(cursor, table, cols, fields, list(columns.values()))
            table_writes.written(connection, [model._meta.db_table])  # COPY bypasses track
            return n
        values = [_as_list(v) for v in columns.values()]
        rows = [[_json_value(v) for v in row] for row in zip(*values, strict=True)]
        selects = ", ".join(f"json_extract(value, '$[{i}]')" for i in range(len(fields)))
        sql = f"INSERT INTO {table} ({cols}) SELECT {selects} FROM json_each(%s)"
        cursor.execute(sql, [json.dumps(rows)])
        return int(cursor.rowcount)
