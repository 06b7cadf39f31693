"""Querysets built and compiled once per shape and connection, then run with other values.

Building a queryset (``filter``, ``annotate``, subqueries) and compiling it to SQL is Python
work that does not depend on the values in it: the scene page's access check, one query with a
dozen subqueries, spent 7.9k function calls building it and 5.5k compiling it, against 0.4k
running it (issue 14). A ``CompiledQuery`` builds its queryset once per *shape* (the arguments
that change the SQL: signed in or not, which annotations) and database connection, with a
sentinel standing in for each *value* (the arguments that change only the parameters: a pk, a
user id, a slug), compiles it, and records where each sentinel landed among the parameters.
Each call then puts its values in those places and hands the compiled SQL to Django's own
iteration (``ModelIterable``: ``select_related`` rows, annotations, converters), through the
connection's cursor as any queryset (execute wrappers included: ``nucleo.table_writes`` sees
the tables read).

A build function must make the SQL depend only on its shape: a value may reach the query only
as a parameter, unchanged, never as ``None`` (``IS NULL`` is other SQL); settings, the language
or the clock must not be read there. A list of ids is a value too, for ``__in``: the build gets
a list of a fixed length (``ids_bucket``: 8, 16, 32… items, as many placeholders), and the call
fills it with its ids, the last one repeated to the end, so pages of 20 ids and of 19 share
one compiled query. The queryset is run as its SQL alone, on the default database:
``prefetch_related`` and ``select_for_update`` are refused, and Django's shortcut for an
integer beyond its field's range (no row, without asking) is not taken: pass ids through
``nucleo.bounds.row_id``.
A lookup that rewrites its value is refused when first compiled: ``contains`` wraps it
in ``%``, and each string sentinel holds ``%``, ``_`` and a backslash, so that the escaping of
any ``LIKE`` (SQLite's ``iexact``) shows too: compare with ``StrIndex`` or ``Upper`` instead.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet

_KEPT = "_partida_compiled_queries"
"""The attribute of a connection's wrapper that holds its compiled queries."""


MAX_KEPT = 256
"""Compiled queries kept per connection, the oldest dropped first (each holds its compiler:
about 100 KiB). The shapes the code asks are far fewer; this bounds what it could ask."""

MAX_IDS = 512
"""Most ids a list value holds (its sentinels must stay below 32 767 with the others')."""


def ids_bucket(count: int) -> int:
    """The length of the list of ids a build gets for ``count`` ids: 8, 16, 32… (a power of
    two), so that a few compiled queries serve every length."""
    return max(8, 1 << (count - 1).bit_length())


def _ids(value: Any) -> bool:
    return (
        type(value) in (list, tuple)
        and 0 < len(value) <= MAX_IDS
        and all(type(v) is int for v in value)
    )


def _kind(value: Any) -> tuple[str, int] | type:
    """What of a value is shape: its type, and a list's bucket (``ids_bucket``)."""
    return ("ids", ids_bucket(len(value))) if _ids(value) else type(value)


class CompiledQueryError(Exception):
    """A build function whose SQL does not take its values as plain parameters (a value
    rewritten by a lookup, or missing): a programming error, raised when first compiled."""


@dataclass(frozen=True, slots=True)
class _Compiled:
    compiler: Any
    iterable: Any
    """The built queryset's iterable class (models, or a ``values_list``'s rows) and fields."""
    fields: tuple[str, ...]
    sql: str
    params: tuple[Any, ...]
    slots: tuple[tuple[int, str, int | None, type], ...]
    """(position in ``params``, value name, index in a list of ids or None, parameter type)
    for every parameter a value fills."""
    sliced: bool
    """Whether the queryset had bounds of its own (``qs[a:b]``: then no ``window``)."""


class _Ready:
    """The query of a queryset already compiled: its compiler gives the stored SQL with this
    call's parameters; Django's iterables read the rest (the selected names of a
    ``values_list``) from the query it was compiled from."""

    def __init__(self, compiler: Any) -> None:
        self._compiler = compiler

    def get_compiler(self, using: str | None = None, connection: Any = None, **kw: Any) -> Any:
        return self._compiler

    def __getattr__(self, name: str) -> Any:
        return getattr(self._compiler.query, name)


class CompiledQuery:
    """``build(*shape, **values) -> QuerySet`` compiled once per shape, names of the values
    and connection.

    ``rows(*shape, **values)`` runs it on the default database: a list of what iterating the
    queryset ``build(*shape, **values)`` would give (model instances, or a ``values_list``'s
    rows; one query). Each value is an ``int`` or a ``str`` (``bool`` and ``None`` are
    shape), or a list of ids (``ids_bucket``: its bucket is shape); the names given are part of
    the shape. Raises ``TypeError`` for any other value, and
    ``CompiledQueryError`` when the build rewrites or drops a value (module docstring).
    ``window(start, stop, *shape, **values)`` gives a slice of them, its bounds as parameters.
    At most ``MAX_KEPT`` compiled queries are kept per connection.
    """

    def __init__(self, build: Callable[..., QuerySet[Any]]) -> None:
        self._build = build

    def rows(self, *shape: Hashable, **values: Any) -> list[Any]:
        """The rows for this shape and these values (see the class docstring)."""
        return self._run(shape, values, None)

    def window(self, start: int, stop: int, *shape: Hashable, **values: Any) -> list[Any]:
        """``rows(*shape, **values)[start:stop]``, the bounds passed as parameters
        (``LIMIT``/``OFFSET``: one compiled query for every page, where a sliced queryset
        writes them into its SQL). Raises ``ValueError`` for a negative ``start`` or a
        ``stop`` before it, ``CompiledQueryError`` when the build slices too."""
        if start < 0 or stop < start:
            raise ValueError(f"not a window: [{start}:{stop}]")
        return self._run(shape, values, (start, stop))

    def _run(
        self, shape: tuple[Hashable, ...], values: dict[str, Any], window: tuple[int, int] | None
    ) -> list[Any]:
        for name, value in values.items():
            if type(value) not in (int, str) and not _ids(value):
                raise TypeError(
                    f"{name} must be an int, a str or a list of 1 to {MAX_IDS} ints, not {value!r}"
                )
        using = DEFAULT_DB_ALIAS
        compiled = self._compiled(shape, values, using)
        params = list(compiled.params)
        for at, name, index, kind in compiled.slots:
            value = values[name]
            params[at] = kind(value if index is None else value[min(index, len(value) - 1)])
        compiler = copy.copy(compiled.compiler)
        sql = compiled.sql
        if window is not None:
            start, stop = window
            if compiled.sliced:
                raise CompiledQueryError(f"{self._build.__qualname__}: sliced, and a window")
            sql, params = f"{sql} LIMIT %s OFFSET %s", [*params, stop - start, start]
        ready = (sql, tuple(params))
        compiler.as_sql = lambda *args, **kwargs: ready
        model = compiled.compiler.query.model
        rows: QuerySet[Any] = QuerySet(model=model, query=_Ready(compiler), using=using)  # type: ignore[arg-type]
        rows._iterable_class = compiled.iterable
        rows._fields = compiled.fields  # type: ignore[attr-defined]
        return list(rows)

    def _compiled(
        self, shape: tuple[Hashable, ...], values: dict[str, Any], using: str
    ) -> _Compiled:
        # Kept on the connection's wrapper, which goes with its thread: a cache keyed on it
        # elsewhere would keep it alive (each compiler holds its connection).
        connection = connections[using]
        kept: dict[Hashable, _Compiled] = connection.__dict__.setdefault(_KEPT, {})
        kinds = ((name, _kind(v)) for name, v in sorted(values.items()))
        key = (self, shape, tuple(kinds))
        found = kept.get(key)
        if found is None:
            if len(kept) >= MAX_KEPT:  # the oldest goes: a bound whatever the shapes asked
                del kept[next(iter(kept))]
            found = kept[key] = self._compile(shape, values, using)
        return found

    def _compile(
        self, shape: tuple[Hashable, ...], values: dict[str, Any], using: str
    ) -> _Compiled:
        # Built twice with two sets of sentinels: a value's places are those where the two
        # differ, each holding its own sentinel, and nothing else may differ (a constant that
        # happened to equal a sentinel, or SQL that depends on a value, is caught).
        built = [self._sentinel_build(shape, values, using, set_) for set_ in (0, 1)]
        (queryset, compiler, sql, params, sentinels), (*_, sql_b, params_b, sentinels_b) = built
        places = {v: place for place, v in sentinels.items()}
        slots = []
        same = sql == sql_b and len(params) == len(params_b)
        for at, (p, p_b) in enumerate(zip(params, params_b, strict=False)):
            if p == p_b and type(p) is type(p_b):
                continue
            place = places.get(p) if isinstance(p, int | str) else None
            same = same and place is not None and p_b == sentinels_b[place]
            # The parameter's own type: PostgreSQL's integer fields pass psycopg's Int2/Int4.
            slots.append((at, *(place or ("", None)), type(p)))
        missing = {name for (name, _) in set(sentinels) - {(n, i) for _, n, i, _ in slots}}
        if not same or missing:
            raise CompiledQueryError(
                f"{self._build.__qualname__}: {sorted(missing) or 'a value'} not passed as "
                "plain parameters"
            )
        fields = tuple(getattr(queryset, "_fields", None) or ())
        iterable = queryset._iterable_class
        sliced = queryset.query.is_sliced
        return _Compiled(compiler, iterable, fields, sql, tuple(params), tuple(slots), sliced)

    def _sentinel_build(
        self, shape: tuple[Hashable, ...], values: dict[str, Any], using: str, set_: int
    ) -> tuple[QuerySet[Any], Any, str, tuple[Any, ...], dict[tuple[str, int | None], Any]]:
        """The queryset built with sentinel ``set_`` (0 or 1), its compiler, SQL, parameters
        and the sentinels, by (value name, index in a list of ids or None). An int sentinel is
        a positive number below 32 767, inside every integer field's range: out of it, Django
        drops or empties the comparison."""
        sentinels: dict[tuple[str, int | None], Any] = {}
        given: dict[str, Any] = {}
        for name, v in sorted(values.items()):
            if type(v) is str:
                given[name] = sentinels[name, None] = f"\x00{name}%_\\{set_}\x00"
                continue
            if type(v) is int:
                places: list[tuple[str, int | None]] = [(name, None)]
            else:
                places = [(name, i) for i in range(ids_bucket(len(v)))]
            for place in places:
                sentinels[place] = 30_001 + 1_000 * set_ + len(sentinels)
            ints = [sentinels[place] for place in places]
            given[name] = ints[0] if type(v) is int else ints
        if len(sentinels) > 999:  # each set's ints in its own thousand
            raise CompiledQueryError(f"{self._build.__qualname__}: too many values")
        queryset = self._build(*shape, **given)
        if getattr(queryset, "_prefetch_related_lookups", ()) or queryset.query.select_for_update:
            raise CompiledQueryError(
                f"{self._build.__qualname__}: prefetch_related and select_for_update are run "
                "by the queryset, not its SQL: not compiled"
            )
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        return queryset, compiler, sql, tuple(params), sentinels


def prefetched(instance: Any, name: str, rows: list[Any]) -> None:
    """Store ``rows`` as the prefetched result of ``instance``'s many-valued relation ``name``
    (a related manager's name), as ``prefetch_related_objects`` stores one: ``getattr(instance,
    name).all()`` then gives them with no query. How a relation read by a ``CompiledQuery``
    (which refuses ``prefetch_related``), or by no query at all, reaches what reads it."""
    cache = instance.__dict__.setdefault("_prefetched_objects_cache", {})
    cache.pop(name, None)  # a stored result would answer the .all() below
    fetched = getattr(instance, name).all()
    fetched._result_cache = rows
    fetched._prefetch_done = True
    cache[name] = fetched
