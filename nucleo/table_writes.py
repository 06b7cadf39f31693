"""Per-table write generations in the cache: a stored piece that records which tables it read,
and each table's generation when it started, is still right while none of them changed.

Every statement Django sends to the database goes through ``track`` (a connection's
``execute_wrappers``, installed on every new connection by ``nucleo.apps``): an ``INSERT``,
``UPDATE`` or ``DELETE`` sets a new generation of its table at once and again when the
transaction commits (``install`` wraps the connection's ``commit``; a reader that saw the first
one while the write was not yet visible keeps an entry nobody will match), so the ORM's
``save``/``delete``, ``QuerySet.update``, bulk writes, cascades and raw SQL through Django's
cursor are all seen, whatever their signals. A statement
whose table is not found (DDL, an unusual form) sets the *global* generation, which every
recorded piece depends on.

Inside ``reading()`` the tables each ``SELECT`` names (``FROM``/``JOIN`` of a quoted name,
subqueries included) are collected; ``snapshot()`` taken before the reads gives the generations
to keep with the piece (``generations``), and ``unchanged`` checks them on the way back.

Not seen: writes made outside Django's connections (psql, another program). The generations
live in the ``default`` cache: with several processes it must be a shared one (Redis), as for
every cached piece of the pages.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.apps import apps
from django.core.cache import cache

PREFIX = "nucleo:table-gen:"
GLOBAL = "*"
"""The pseudo-table every recorded piece depends on (bumped by writes whose table is unknown)."""
_WRITE = re.compile(r'^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"([^"]+)"', re.IGNORECASE)
_WRITE_ANYWHERE = re.compile(r'\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"([^"]+)"', re.IGNORECASE)
_READ = re.compile(r'\b(?:FROM|JOIN)\s+"([^"]+)"', re.IGNORECASE)
_WRITE_VERBS = ("INSERT", "UPDATE", "DELETE", "REPLAC", "TRUNCA", "ALTER ", "DROP T", "CREATE")
_reads: ContextVar[set[str] | None] = ContextVar("nucleo_table_reads", default=None)
_counter = itertools.count()


def key(table: str) -> str:
    """The cache key of a table's generation."""
    return PREFIX + table


def _new_value() -> str:
    return f"{time.time_ns()}.{os.getpid()}.{next(_counter)}"


def bump(tables: Iterable[str]) -> None:
    """Give each table a new generation (one cache round trip)."""
    cache.set_many({key(t): _new_value() for t in tables}, None)


def track(
    execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]
) -> Any:
    """The execute wrapper (``django.db.connection.execute_wrapper``): runs the statement, then
    bumps what it wrote (now, and on commit inside a transaction); records what a ``SELECT``
    read inside ``reading()``."""
    head = sql.lstrip()[:6].upper()
    if head == "SELECT" or head.startswith("WITH"):
        reads = _reads.get()
        if reads is not None:
            reads.update(_READ.findall(sql))
        result = execute(sql, params, many, context)
        if head.startswith("WITH"):  # a CTE may end in a write: WITH … UPDATE "t" …
            found_tables = tuple(dict.fromkeys(_WRITE_ANYWHERE.findall(sql)))
            if found_tables:
                written(context["connection"], found_tables)
        return result
    result = execute(sql, params, many, context)
    if head.startswith(_WRITE_VERBS):
        found = _WRITE.match(sql)
        written(context["connection"], (found.group(1),) if found else (GLOBAL,))
    return result


def written(connection: Any, tables: Iterable[str]) -> None:
    """Record that ``tables`` (unquoted names) were written on ``connection``: a new
    generation now, and again when its open transaction commits. ``track`` calls it for every
    statement through Django's cursor; a write that bypasses it (psycopg's ``Cursor.copy``
    in ``nucleo.bulk``) must call it itself."""
    tables = tuple(tables)
    bump(tables)
    if connection.in_atomic_block:
        _pending(connection).update(tables)


def _pending(connection: Any) -> set[str]:
    """The tables written in the connection's open transaction (bumped again at its commit)."""
    pending: set[str] | None = getattr(connection, PENDING, None)
    if pending is None:
        pending = set()
        setattr(connection, PENDING, pending)
    return pending


PENDING = "_nucleo_table_writes"


def install(sender: Any = None, connection: Any = None, **_kwargs: Any) -> None:
    """``connection_created`` receiver: put ``track`` on the connection and make its
    ``commit`` bump the tables the transaction wrote (once per connection object).

    The commit is wrapped rather than given an ``on_commit`` callback: those are the
    application's (tests count them), and this is the database layer's own bookkeeping. A
    rolled-back transaction's tables are bumped at the next commit: an extra miss, never a
    stale hit."""
    if connection is None or track in connection.execute_wrappers:
        return
    connection.execute_wrappers.append(track)
    commit = connection.commit

    def commit_and_bump() -> None:
        commit()
        pending = _pending(connection)
        if pending:
            tables = sorted(pending)
            pending.clear()
            bump(tables)

    connection.commit = commit_and_bump


@functools.cache
def all_tables() -> tuple[str, ...]:
    """Every model's table (auto-created many-to-many tables too) and ``GLOBAL`` (the models
    are fixed once Django is set up: computed once)."""
    tables = {m._meta.db_table for m in apps.get_models(include_auto_created=True)}
    return (*sorted(tables), GLOBAL)


def snapshot() -> dict[str, str]:
    """The generation of every table (``all_tables``), keyed by table; tables without one get
    one now (a missing value is never taken as unchanged). Take it before the reads."""
    tables = all_tables()
    found = cache.get_many([key(t) for t in tables])
    values = {t: found.get(key(t)) for t in tables}
    missing = {t: _new_value() for t, v in values.items() if v is None}
    if missing:
        cache.set_many({key(t): v for t, v in missing.items()}, None)
        values |= missing
    return {t: str(v) for t, v in values.items()}


@contextmanager
def reading() -> Iterator[set[str]]:
    """Collect the tables the ``SELECT``s inside the block read (the yielded set)."""
    tables: set[str] = set()
    token = _reads.set(tables)
    try:
        yield tables
    finally:
        _reads.reset(token)


def generations(snap: dict[str, str], tables: Iterable[str]) -> dict[str, str] | None:
    """The snapshot's generations of ``tables`` and ``GLOBAL`` (cache keys to values), or None
    when one of them is not in the snapshot (a table no model has: the piece is not kept)."""
    wanted = {*tables, GLOBAL}
    if not wanted <= snap.keys():
        return None
    return {key(t): snap[t] for t in sorted(wanted)}


def unchanged(kept: dict[str, str]) -> bool:
    """True when every generation in ``kept`` (from ``generations``) is still current."""
    if not kept:
        return False
    return cache.get_many(list(kept)) == kept
