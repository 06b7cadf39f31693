"""Whose rows a statement on a *per-user* table reads or writes, from its SQL text and
parameters as Django's compiler writes them (``nucleo.table_writes`` keeps a generation per user
for such tables, so one user's read marker or draft does not make every reader's kept page old).

Conservative by construction: an answer is given only for the plain shapes the ORM writes
(``filter(user=…)`` reads, ``update()``/``delete()`` on a queryset filtered by the user, inserts
of whole rows, upserts whose conflict target holds the user column); anything else (an ``OR``,
a ``CASE``, an aggregate ``FILTER``, a ``UNION``, a negation, a write by primary key, an insert
from a ``SELECT``, raw SQL without parameters) answers "not restricted" / "unknown", which
costs a miss, never a stale page.

A condition counts only when it is a conjunct of a ``WHERE`` or ``ON`` of the same
``SELECT`` (subquery) as the table's reference, on that reference (alias or table name), and
compares the user column with a parameter (``= %s``, ``IN (%s, …)``). Parameters are matched
to placeholders by position, as Django passes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

_BLOCKERS = re.compile(r"\b(?:OR|CASE|FILTER|UNION|EXCEPT|INTERSECT)\b|\bNOT \(")
"""Keywords (as Django writes them, in capitals) after which a condition may not restrict."""
_PLACEHOLDER = re.compile(r"(?<!%)%s")


def _owner(sql: str, position: int) -> int:
    """The offset of the ``(SELECT`` group that holds ``position`` (-1: the statement itself)."""
    stack: list[int] = []
    for i in range(position):
        char = sql[i]
        if char == "(":
            stack.append(i if sql.startswith("SELECT", i + 1) else -2)
        elif char == ")" and stack:
            stack.pop()
    return next((i for i in reversed(stack) if i != -2), -1)


def _conditions(sql: str, ref: str, column: str) -> Iterable[tuple[int, int]]:
    """(offset, how many parameters) of each ``ref."column" = %s`` or ``IN (%s, …)``
    conjunct (right after ``WHERE``, ``AND`` or ``ON`` and its parentheses)."""
    pattern = re.compile(
        r"(?:WHERE|AND|ON) \(*"
        + re.escape(ref)
        + r"\."
        + re.escape(f'"{column}"')
        + r"(?: = %s| IN \((%s(?:, %s)*)\))"
    )
    for found in pattern.finditer(sql):
        count = 1 if found.group(1) is None else found.group(1).count("%s")
        yield found.end() - 1, count


def _param_values(sql: str, params: Sequence[Any], end: int, count: int) -> list[Any]:
    """The ``count`` parameters whose placeholders end at ``end`` (the last one's ``s``)."""
    index = len(_PLACEHOLDER.findall(sql, 0, end + 1))
    return list(params[index - count : index])


def _as_int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _refs(sql: str, table: str, verbs: str) -> list[tuple[int, str]]:
    """(offset, name to qualify columns with) of each reference to ``table`` after ``verbs``."""
    pattern = re.compile(rf'\b(?:{verbs}) "{re.escape(table)}"(?: ("[^"]+"))?(?!\.)')
    return [(m.start(), m.group(1) or f'"{table}"') for m in pattern.finditer(sql)]


def _restricted_users(
    sql: str, params: Sequence[Any], ref_at: int, ref: str, column: str
) -> set[int] | None:
    """The users the reference's rows are restricted to by a conjunct of its own ``SELECT``
    (or statement), or None when no such conjunct is found."""
    owner = _owner(sql, ref_at)
    for end, count in _conditions(sql, ref, column):
        if end > ref_at and _owner(sql, end) == owner:
            values = [_as_int(v) for v in _param_values(sql, params, end, count)]
            if len(values) == count and None not in values:
                return {v for v in values if v is not None}
    return None


def reads_only(sql: str, params: Any, table: str, column: str, user_id: int) -> bool:
    """Whether every reference to ``table`` in the ``SELECT`` ``sql`` reads only rows whose
    ``column`` is ``user_id``."""
    if not isinstance(params, Sequence) or isinstance(params, str) or _BLOCKERS.search(sql):
        return False
    refs = _refs(sql, table, "FROM|JOIN")
    if not refs:
        return False
    for at, ref in refs:
        users = _restricted_users(sql, params, at, ref, column)
        if users != {user_id}:
            return False
    return True


def written_users(sql: str, params: Any, many: bool, table: str, column: str) -> set[int] | None:
    """The users whose rows of ``table`` the write ``sql`` may change (an ``INSERT``,
    ``UPDATE`` or ``DELETE`` of that table), or None when that cannot be told."""
    head = sql.lstrip()[:6].upper()
    if head == "INSERT":
        return _inserted_users(sql, params, many, table, column)
    if many or not isinstance(params, Sequence) or isinstance(params, str):
        return None
    if _BLOCKERS.search(sql) or re.search(rf'(?<![."])"{re.escape(column)}" = ', sql):
        return None  # an OR…, or the user column itself set: the row may change hands
    refs = _refs(sql, table, "UPDATE|FROM")
    if len(refs) != 1:
        return None
    at, ref = refs[0]
    return _restricted_users(sql, params, at, ref, column)


_INSERT = re.compile(r'^\s*INSERT INTO "([^"]+)" \(([^)]*)\) (.*)$', re.DOTALL)
_TAIL = re.compile(r" (?:ON CONFLICT|RETURNING)\b.*$", re.DOTALL)
_ROW = r"\(%s(?:, %s)*\)"


def _inserted_users(sql: str, params: Any, many: bool, table: str, column: str) -> set[int] | None:
    found = _INSERT.match(sql)
    if found is None or found.group(1) != table or params is None:
        return None
    columns = [c.strip().strip('"') for c in found.group(2).split(",")]
    if column not in columns:
        return None
    conflict = re.search(r" ON CONFLICT\s*\(([^)]*)\)", sql)
    if " ON CONFLICT" in sql and (conflict is None or f'"{column}"' not in conflict.group(1)):
        return None  # an upsert could change a row of another user
    body = _TAIL.sub("", found.group(3))
    index, width = columns.index(column), len(columns)
    if many:
        rows = list(params)
    elif re.fullmatch(rf"VALUES {_ROW}(?:, {_ROW})*", body):
        if body.count("%s") != len(params) or len(params) % width:
            return None
        rows = [params[i : i + width] for i in range(0, len(params), width)]
    elif body.startswith("SELECT * FROM UNNEST(") and len(params) == width:
        values = params[index]
        if not isinstance(values, Sequence) or isinstance(values, str):
            return None
        rows = [[None] * index + [v] for v in values]
    else:
        return None
    users = {_as_int(row[index]) if len(row) > index else None for row in rows}
    return None if None in users else {u for u in users if u is not None}
