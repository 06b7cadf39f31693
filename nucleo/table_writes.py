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
``recording`` does both around a piece's reads (a ``Recording``), and ``kept`` finds a kept
entry that is still right: ``escenas.viewer_pages`` (the scene page, the scene list, diaries
and the master's world page), ``nucleo.api_answers`` (API lists) and ``escenas.api_pages``
(the API's post pages) and ``personajes.forecast`` (a character's forecast, a piece inside the
diary page) all keep their pieces this way, each adding its own key and what else its entry
holds.

**Per-user tables** (``per_user``: read markers, drafts: rows that only their user's pages show)
have a generation per user besides the table's: a write whose users ``nucleo.user_rows`` can
tell from its SQL (``filter(user=…).update()``, an insert, an upsert on the user's unique key)
sets ``<table>@<user id>`` for each of them, any other write ``<table>@?``; both also set the
table's own generation. A piece recorded ``reading(user_id=…)`` whose every read of such a table
is restricted to that user depends on ``<table>@<user>`` and ``<table>@?`` only, so another
user's marker moving or draft being saved keeps it; a read of other users' rows depends on the
table's generation as before.

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
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.apps import apps
from django.core.cache import cache

from nucleo import user_rows

PREFIX = "nucleo:table-gen:"
GLOBAL = "*"
"""The pseudo-table every recorded piece depends on (bumped by writes whose table is unknown)."""
_WRITE = re.compile(r'^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"([^"]+)"', re.IGNORECASE)
_WRITE_ANYWHERE = re.compile(r'\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"([^"]+)"', re.IGNORECASE)
_READ = re.compile(r'\b(?:FROM|JOIN)\s+"([^"]+)"', re.IGNORECASE)
_WRITE_VERBS = ("INSERT", "UPDATE", "DELETE", "REPLAC", "TRUNCA", "ALTER ", "DROP T", "CREATE")
_reads: ContextVar[set[str] | None] = ContextVar("nucleo_table_reads", default=None)
_reader: ContextVar[int | None] = ContextVar("nucleo_table_reader", default=None)
_counter = itertools.count()
PER_USER: dict[str, str] = {}
"""Per-user tables: table name to the column holding the user's id (``per_user``)."""
ANY_USER = "?"
"""Stands for "some user, not known which" in a per-user generation's name."""


def per_user(table: str, column: str = "user_id") -> None:
    """Declare ``table`` per-user: its rows belong to the user in ``column`` and a page shows
    only its viewer's (called from an app's ``ready``)."""
    PER_USER[table] = column


def user_generation(table: str, user: int | str) -> str:
    """The name of a per-user table's generation for one user (or ``ANY_USER``)."""
    return f"{table}@{user}"


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
            reads.update(_read_names(sql, params))
        result = execute(sql, params, many, context)
        if head.startswith("WITH"):  # a CTE may end in a write: WITH … UPDATE "t" …
            found_tables = tuple(dict.fromkeys(_WRITE_ANYWHERE.findall(sql)))
            if found_tables:
                written(context["connection"], found_tables)
        return result
    result = execute(sql, params, many, context)
    if head.startswith(_WRITE_VERBS):
        found = _WRITE.match(sql)
        if found is None:
            _record(context["connection"], (GLOBAL,))
        elif found.group(1) in PER_USER:
            table = found.group(1)
            users = user_rows.written_users(sql, params, many, table, PER_USER[table])
            _record(context["connection"], _names(table, users))
        else:
            _record(context["connection"], (found.group(1),))
    return result


def _read_names(sql: str, params: Any) -> set[str]:
    """The generations a ``SELECT`` read depends on: its tables, a per-user table's viewer
    and unknown-user generations instead when every read of it is the viewer's rows."""
    tables = set(_READ.findall(sql))
    viewer = _reader.get()
    if viewer is None or not tables & PER_USER.keys():
        return tables
    names = set()
    for table in tables:
        column = PER_USER.get(table)
        if column and user_rows.reads_only(sql, params, table, column, viewer):
            names |= {user_generation(table, viewer), user_generation(table, ANY_USER)}
        else:
            names.add(table)
    return names


def _names(table: str, users: set[int] | None) -> tuple[str, ...]:
    """The generations a write of ``table`` sets (``users``: whose rows; None, not known)."""
    if table not in PER_USER:
        return (table,)
    owners = (ANY_USER,) if users is None else tuple(sorted(users))
    return (table, *(user_generation(table, u) for u in owners))


def written(connection: Any, tables: Iterable[str]) -> None:
    """Record that ``tables`` (unquoted names) were written on ``connection``: a new
    generation now, and again when its open transaction commits (a per-user table's rows of
    unknown users: ``<table>@?`` too). ``track`` calls it for every statement through Django's
    cursor; a write that bypasses it (psycopg's ``Cursor.copy`` in ``nucleo.bulk``) must call
    it itself."""
    _record(connection, tuple(n for t in tables for n in _names(t, None)))


def _record(connection: Any, names: tuple[str, ...]) -> None:
    bump(names)
    if connection.in_atomic_block:
        _pending(connection).update(names)


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


def snapshot(user_id: int | None = None) -> dict[str, str]:
    """The generation of every table (``all_tables``), keyed by table, and with ``user_id``
    each per-user table's generations for that user and for unknown users; names without
    one get one now (a missing value is never taken as unchanged). Take it before the reads."""
    tables = all_tables()
    if user_id is not None:
        tables = (
            *tables,
            *(user_generation(t, u) for t in sorted(PER_USER) for u in (user_id, ANY_USER)),
        )
    found = cache.get_many([key(t) for t in tables])
    values = {t: found.get(key(t)) for t in tables}
    missing = {t: _new_value() for t, v in values.items() if v is None}
    if missing:
        cache.set_many({key(t): v for t, v in missing.items()}, None)
        values |= missing
    return {t: str(v) for t, v in values.items()}


@contextmanager
def reading(user_id: int | None = None) -> Iterator[set[str]]:
    """Collect the tables the ``SELECT``s inside the block read (the yielded set); with
    ``user_id`` (the viewer) a per-user table read only for that user is collected as its two
    per-user generations (see the module docstring). Inside another ``reading()`` block, what
    this one collected counts for the outer one too on the way out (a piece kept inside a
    kept page)."""
    tables: set[str] = set()
    outer = _reads.get()
    token = _reads.set(tables)
    reader = _reader.set(user_id)
    try:
        yield tables
    finally:
        _reader.reset(reader)
        _reads.reset(token)
        if outer is not None:  # a piece read inside another's render: the outer read it too
            outer.update(tables)


def depend_on(tables: Iterable[str]) -> None:
    """Count ``tables`` (generation names) as read by the ``reading()`` block open, if any: a
    kept piece served from the cache inside another piece's render (``personajes.forecast``)
    names what it read, so the outer piece goes old with it."""
    reads = _reads.get()
    if reads is not None:
        reads.update(tables)


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


@dataclass(slots=True)
class Recording:
    """What a piece to be kept under ``key`` was read at (``recording``): ``start``, every
    generation before the reads (``snapshot``); ``tables``, the generation names the reads
    depended on (filled while ``recording`` is open); ``extra``, other cache keys the piece
    depends on, with the values they had before the reads (the names generation of
    ``escenas.fragments``)."""

    key: str
    start: dict[str, str]
    tables: set[str] = field(default_factory=set)
    extra: dict[str, str] = field(default_factory=dict)

    def generations(
        self, also: Iterable[str] = (), without: Iterable[str] = ()
    ) -> dict[str, str] | None:
        """The generations to keep the piece with (cache keys to values; ``unchanged`` checks
        them): the tables read, plus ``also`` (read before the recording: the user), less
        ``without`` (what the piece checks another way), plus ``extra``; None when a table
        is not in the snapshot (``generations``: the piece is not kept)."""
        kept = generations(self.start, (self.tables | set(also)) - set(without))
        return None if kept is None else kept | self.extra


@contextmanager
def recording(key: str, user_id: int | None = None) -> Iterator[Recording | None]:
    """Around the reads of a piece that may be kept under ``key`` (access checks included):
    the snapshot taken first, then the tables read, collected as ``reading(user_id)`` does
    (``user_id``, the viewer: a per-user table read only for them depends on their per-user
    generations). Yields None, recording nothing, when ``key`` is empty (not to be kept)."""
    if not key:
        yield None
        return
    rec = Recording(key=key, start=snapshot(user_id))
    with reading(user_id) as tables:
        rec.tables = tables
        yield rec


class _Kept(Protocol):
    @property
    def generations(self) -> dict[str, str]: ...


def kept[K: _Kept](key: str, kind: type[K]) -> K | None:
    """The entry of type ``kind`` kept in the cache under ``key`` (its ``generations`` from
    ``Recording.generations``) when none of them changed since, else None (nothing kept, an
    entry of another type, or one that is old). Two cache round trips; none for an empty key."""
    entry = cache.get(key) if key else None
    if not isinstance(entry, kind) or not unchanged(entry.generations):
        return None
    return entry
