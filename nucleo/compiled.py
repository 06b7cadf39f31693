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
as a parameter, unchanged, never as ``None`` (``IS NULL`` is other SQL) or as a list (``__in``
takes as many placeholders as items); settings, the language or the clock must not be read
there. The queryset is run as its SQL alone, on the default database: ``prefetch_related`` and
``select_for_update`` are refused, and Django's shortcut for an integer beyond its field's
range (no row, without asking) is not taken: pass ids through ``nucleo.bounds.row_id``.
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
    slots: tuple[tuple[int, str, type], ...]
    """(position in ``params``, value name, parameter type) for every parameter a value
    fills."""


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
    shape); the names given are part of the shape. Raises ``TypeError`` for any other value, and
    ``CompiledQueryError`` when the build rewrites or drops a value (module docstring).
    """

    def __init__(self, build: Callable[..., QuerySet[Any]]) -> None:
        self._build = build

    def rows(self, *shape: Hashable, **values: Any) -> list[Any]:
        """The rows for this shape and these values (see the class docstring)."""
        for name, value in values.items():
            if type(value) not in (int, str):
                raise TypeError(f"{name} must be an int or a str, not {value!r}")
        using = DEFAULT_DB_ALIAS
        compiled = self._compiled(shape, values, using)
        params = list(compiled.params)
        for at, name, kind in compiled.slots:
            params[at] = kind(values[name])
        compiler = copy.copy(compiled.compiler)
        ready = (compiled.sql, tuple(params))
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
        key = (self, shape, tuple((name, type(v)) for name, v in sorted(values.items())))
        found = kept.get(key)
        if found is None:
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
        names = {v: name for name, v in sentinels.items()}
        slots = []
        same = sql == sql_b and len(params) == len(params_b)
        for at, (p, p_b) in enumerate(zip(params, params_b, strict=False)):
            if p == p_b and type(p) is type(p_b):
                continue
            name = names.get(p) if isinstance(p, int | str) else None
            same = same and name is not None and p_b == sentinels_b[name]
            # The parameter's own type: PostgreSQL's integer fields pass psycopg's Int2/Int4.
            slots.append((at, name or "", type(p)))
        missing = set(sentinels) - {name for _, name, _ in slots}
        if not same or missing:
            raise CompiledQueryError(
                f"{self._build.__qualname__}: {sorted(missing) or 'a value'} not passed as "
                "plain parameters"
            )
        fields = tuple(getattr(queryset, "_fields", None) or ())
        iterable = queryset._iterable_class
        return _Compiled(compiler, iterable, fields, sql, tuple(params), tuple(slots))

    def _sentinel_build(
        self, shape: tuple[Hashable, ...], values: dict[str, Any], using: str, set_: int
    ) -> tuple[QuerySet[Any], Any, str, tuple[Any, ...], dict[str, Any]]:
        """The queryset built with sentinel ``set_`` (0 or 1), its compiler, SQL, parameters
        and the sentinels. An int sentinel is a positive number below 32 767, inside every
        integer field's range: out of it, Django drops or empties the comparison."""
        sentinels = {
            name: 30_001 + 1_000 * set_ + i if type(v) is int else f"\x00{name}%_\\{set_}\x00"
            for i, (name, v) in enumerate(sorted(values.items()))
        }
        queryset = self._build(*shape, **sentinels)
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
