"""R24 steps 5–6 for every approved character at once: load, ``reglas.day``, save."""

from __future__ import annotations

import datetime
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db import connection

from mundo.models import Campaign
from partida.tick.load import load_characters
from partida.tick.save import health_roll_keys, write_day
from partida.tick.world import World
from reglas.core import RollPurpose, make_rng
from reglas.day import live_characters_day
from reglas.seeds import keyed_rngs
from reglas.settings import RuleSettings
from reglas.weather import season_for


@dataclass(slots=True)
class CharactersOutcome:
    """What the characters' step did: how many ticked, died and rose; the risen per settlement
    (they add a zombie there, R17); ``death_list`` ``{"character": id, "cause": …}`` rows."""

    characters: int = 0
    deaths: int = 0
    risen: int = 0
    risen_by_settlement: dict[int, int] = field(default_factory=dict)
    death_list: list[dict[str, Any]] = field(default_factory=list)


TICK_WORK_MEM = "64MB"
"""PostgreSQL's ``work_mem`` for the rest of the tick's transaction (the default is 4 MB)."""


def _room_for_whole_tables() -> None:
    """One statement, on PostgreSQL only: ``SET LOCAL work_mem`` for the tick's transaction.

    Each write joins a whole table with the arrays of its new values (``nucleo.bulk``: a hash
    of the table and the arrays unnested). At 100 000 characters those outgrow the default
    4 MB: the hash splits into batches and the arrays spill to temporary files on every
    statement (6 000 pages written and read back: time growing faster than the characters).
    64 MB holds them in memory up to ~10⁶ stacks; it is a ceiling per sort or hash, not an
    allocation, and ends with the transaction (``LOCAL``)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL work_mem = '{TICK_WORK_MEM}'")


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cyclic garbage collector paused for the block (``gc.disable``), and restored to
    how it was after it, also on an exception.

    The characters' day makes a few Python containers per roll and per stored row (the
    ledger's rows, the seeded generators of the onset dice, the COPY's row tuples), tens of
    thousands at 100 000 characters, and they live until the writes are done. Every 2 000 of
    them start a collection, and enough of them start full ones that walk every object of the
    process (the whole of Django's), so the collector's time grew faster than the characters
    (8 ms at 10 000, 220 ms at 100 000: 25 x; ``tests/bench/test_tick.py``). What the tick
    makes holds no reference cycle (freed by reference counting as it goes); the next
    allocation after the block starts the collections as usual. Process-wide: another thread
    of the process does not collect cycles meanwhile either (for as long as one tick)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def close_characters_day(
    *,
    campaign: Campaign,
    rules: RuleSettings,
    closed: int,
    closed_date: datetime.date,
    world: World,
) -> CharactersOutcome:
    """Read every approved character (one query per table), close day ``closed`` for all of
    them with ``reglas.day.live_characters_day`` and write the results (one statement per
    table). The health step's generator is ``make_rng(entropy, [closed, HEALTH, 0, 0])`` (the
    onset dice); each stored roll (a resistance roll, a new disease's duration) is drawn from
    its own ledger key, ``health_roll_key`` (the seeds of every character's key worked out at
    once: ``reglas.seeds.keyed_rngs``, the same streams as ``make_rng``).
    Runs with the cyclic garbage collector paused (``_no_cycle_collection``).
    Source: RULES.md R6–R15, R24 steps 5–6, R25."""
    _room_for_whole_tables()
    with _no_cycle_collection():
        return _characters_day(campaign, rules, closed, closed_date, world)


def _characters_day(
    campaign: Campaign,
    rules: RuleSettings,
    closed: int,
    closed_date: datetime.date,
    world: World,
) -> CharactersOutcome:
    loaded = load_characters(campaign, world, closed)
    if loaded is None:
        return CharactersOutcome()
    out = live_characters_day(
        loaded.day,
        today=closed,
        season=season_for(closed_date).value,
        rng=make_rng(campaign.entropy_int, [closed, RollPurpose.HEALTH, 0, 0]),
        rules=rules,
        roll_rng=keyed_rngs(campaign.entropy_int, health_roll_keys(closed, loaded.ids)),
    )
    write_day(
        campaign, loaded, out, world=world, rules=rules, closed=closed, closed_date=closed_date
    )
    result = CharactersOutcome(
        characters=int(loaded.ids.shape[0]),
        deaths=int(out.dead.sum()),
        risen=int(out.risen.sum()),
    )
    for i in np.flatnonzero(out.dead).tolist():
        result.death_list.append({"character": int(loaded.ids[i]), "cause": str(out.cause[i])})
        sid = loaded.settlement[i]
        if out.risen[i] and sid is not None:
            result.risen_by_settlement[sid] = result.risen_by_settlement.get(sid, 0) + 1
    return result
