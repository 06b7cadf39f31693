"""The tick's reads: the campaign's approved characters and what they need, ORM → arrays.

One query per table (characters, shelters, day records, item types, carried items, stashes,
Resistencia values), read with ``values_list`` straight into numpy columns, whatever the
number of characters.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mundo.models import Campaign, Location
from partida.tick.world import World
from personajes.mapping import CONDITION_FIELDS
from personajes.models import (
    Character,
    DayRecord,
    InventoryItem,
    ItemType,
    ShelterStash,
    TraitValue,
)
from reglas.characters import ConditionArrays, ConditionState
from reglas.day import F64, I64, CharactersDay, Shelters, Stock
from reglas.health import RESISTANCE_TRAIT

_BOOL_FIELDS = frozenset(
    name for name in CONDITION_FIELDS if isinstance(getattr(ConditionState(), name), bool)
)


@dataclass(frozen=True, slots=True)
class Loaded:
    """The characters' day as ``reglas.day`` takes it, and the ids to write it back.

    ``ids`` (n,) character ids in id order; ``settlement`` each one's settlement id (its
    shelter's when it has none of its own; None: the open); ``climate`` each one's key in the
    world's weather; ``carried_pk``/``stash_pk`` the stacks' row ids in ``day``'s order.
    """

    ids: I64
    settlement: list[int | None]
    climate: list[int | None]
    day: CharactersDay
    carried_pk: I64
    stash_pk: I64


def _col(rows: list[tuple[Any, ...]], i: int, dtype: Any) -> NDArray[Any]:
    return np.fromiter((r[i] for r in rows), dtype=dtype, count=len(rows))


def _marks(campaign: Campaign, closed: int, index: dict[int, int]) -> dict[str, NDArray[Any]]:
    """The master's marks of the closing day (unmarked: NaN sleep, no flags)."""
    n = len(index)
    marks: dict[str, NDArray[Any]] = {"sleep_h": np.full(n, np.nan)}
    flags = (
        "could_not_urinate",
        "could_not_defecate",
        "got_dirty",
        "showered",
        "relieved_inappropriately",
    )
    for name in flags:
        marks[name] = np.zeros(n, np.bool_)
    for cid, sleep, *values in DayRecord.objects.filter(
        character__campaign=campaign, day=closed
    ).values_list("character_id", "sleep_h", *flags):
        i = index.get(cid)
        if i is None:
            continue
        if sleep is not None:
            marks["sleep_h"][i] = sleep
        for name, value in zip(flags, values, strict=True):
            marks[name][i] = value
    return marks


def _stock(
    rows: list[tuple[int, int, int, Decimal]],
    types: dict[int, tuple[Any, ...]],
    power_cut_day: F64,
) -> tuple[I64, Stock]:
    """Stacks from ``(pk, holder index, item type id, quantity)`` rows (holder −1 dropped) and
    the holders' grid cut days; returns the stacks' pks and the ``Stock``."""
    k = len(rows)
    pk = np.fromiter((r[0] for r in rows), np.int64, count=k)
    holder = np.fromiter((r[1] for r in rows), np.int64, count=k)
    type_id = np.fromiter((r[2] for r in rows), np.int64, count=k)
    units = np.fromiter((float(r[3]) for r in rows), np.float64, count=k)
    keep = holder >= 0
    pk, holder, type_id, units = pk[keep], holder[keep], type_id[keep], units[keep]
    ids = np.array(sorted(types), dtype=np.int64)
    if ids.size == 0 or pk.size == 0:
        return np.zeros(0, np.int64), Stock.empty(power_cut_day.shape[0])
    at = np.searchsorted(ids, type_id)
    rows_of = [types[int(t)] for t in ids]
    return pk, Stock(
        holder=holder,
        kind=np.array([t[0] for t in rows_of], dtype="<U16")[at],
        kcal_per_unit=np.array([float(t[1]) for t in rows_of])[at],
        litres_per_unit=np.array([float(t[2]) for t in rows_of])[at],
        perishable=np.array([bool(t[3]) for t in rows_of])[at],
        spoil_day=np.array([np.inf if t[4] is None else float(t[4]) for t in rows_of])[at],
        units=units,
        power_cut_day=power_cut_day,
    )


def _cut_days(world: World, keys: list[int | None]) -> F64:
    days = {g: np.nan if d is None else float(d) for g, d in world.power_cut_day.items()}
    return np.array([days[g] for g in keys], dtype=np.float64)


def _shelters(campaign: Campaign, world: World) -> tuple[dict[int, int], list[int], Shelters]:
    """The campaign's shelters: index by id, settlement ids, hygiene facts (R7)."""
    rows = list(
        Location.objects.filter(settlement__campaign=campaign, kind=Location.Kind.SHELTER)
        .order_by("id")
        .values_list(
            "id",
            "settlement_id",
            "latrine_distance_m",
            "has_cesspit",
            "running_water",
            "paper_substitute",
        )
    )
    water = [bool(s[4]) and world.water_on[world.grid_key(s[1])] for s in rows]
    return (
        {s[0]: j for j, s in enumerate(rows)},
        [s[1] for s in rows],
        Shelters(
            latrine_distance_m=np.array(
                [np.nan if s[2] is None else s[2] for s in rows], np.float64
            ),
            has_cesspit=np.array([bool(s[3]) for s in rows], np.bool_),
            paper_substitute=np.array([bool(s[5]) for s in rows], np.bool_),
            running_water=np.array(water, np.bool_),
        ),
    )


def _stocks(
    campaign: Campaign,
    world: World,
    index: dict[int, int],
    shelter_index: dict[int, int],
    char_grid: list[int | None],
    shelter_grid: list[int | None],
) -> tuple[I64, Stock, I64, Stock]:
    """The item catalogue, carried items and shelter stashes (quantity > 0)."""
    types = {
        t[0]: t[1:]
        for t in ItemType.objects.filter(campaign=campaign).values_list(
            "id", "kind", "kcal_per_unit", "litres_per_unit", "perishable", "spoil_day"
        )
    }
    carried = InventoryItem.objects.filter(
        character__campaign=campaign, character__status=Character.Status.APPROVED, quantity__gt=0
    ).values_list("id", "character_id", "item_type_id", "quantity")
    stash = ShelterStash.objects.filter(
        shelter__settlement__campaign=campaign, quantity__gt=0
    ).values_list("id", "shelter_id", "item_type_id", "quantity")
    c_pk, c_stock = _stock(
        [(r[0], index.get(r[1], -1), r[2], r[3]) for r in carried],
        types,
        _cut_days(world, char_grid),
    )
    s_pk, s_stock = _stock(
        [(r[0], shelter_index.get(r[1], -1), r[2], r[3]) for r in stash],
        types,
        _cut_days(world, shelter_grid),
    )
    return c_pk, c_stock, s_pk, s_stock


def _resistencia(campaign: Campaign, index: dict[int, int]) -> I64:
    resist = np.zeros(len(index), np.int64)
    for cid, value in TraitValue.objects.filter(
        character__campaign=campaign,
        character__status=Character.Status.APPROVED,
        trait__slug=RESISTANCE_TRAIT,
    ).values_list("character_id", "value"):
        if cid in index:
            resist[index[cid]] = value
    return resist


def load_characters(campaign: Campaign, world: World, closed: int) -> Loaded | None:
    """The approved characters' day ``closed`` as arrays (None when there are none).

    Shelter facts come from the world as the day saw it (running water: plumbing and its
    grid's water on during the day); stacks carry their holders' grid cut days. Queries: seven
    (characters, shelters, day records, item types, carried items, stashes, Resistencia).
    Raises nothing of its own. Source: RULES.md R7, R15, R24 step 5.
    """
    rows = list(
        Character.objects.filter(campaign=campaign, status=Character.Status.APPROVED)
        .order_by("id")
        .values_list("id", "settlement_id", "shelter_id", *CONDITION_FIELDS)
    )
    n = len(rows)
    if n == 0:
        return None
    ids = _col(rows, 0, np.int64)
    index = {int(c): i for i, c in enumerate(ids)}
    condition = ConditionArrays.from_columns(
        n,
        **{
            name: _col(rows, 3 + j, np.bool_ if name in _BOOL_FIELDS else np.int64)
            for j, name in enumerate(CONDITION_FIELDS)
        },
    )
    shelter_index, shelter_settlement, shelters = _shelters(campaign, world)
    shelter_of = np.array([shelter_index.get(r[2], -1) for r in rows], dtype=np.int64)
    settlement: list[int | None] = [
        r[1]
        if r[1] is not None
        else (shelter_settlement[shelter_index[r[2]]] if r[2] in shelter_index else None)
        for r in rows
    ]
    marks = _marks(campaign, closed, index)
    c_pk, carried, s_pk, stash = _stocks(
        campaign,
        world,
        index,
        shelter_index,
        [world.grid_key(s) for s in settlement],
        [world.grid_key(s) for s in shelter_settlement],
    )
    climate = [world.climate(s) for s in settlement]
    day = CharactersDay(
        condition=condition,
        shelter=shelter_of,
        precipitation=np.array([world.weather[c][1] for c in climate], np.bool_),
        min_temp_c=np.array([world.weather[c][2] for c in climate], np.float64),
        resistencia=_resistencia(campaign, index),
        carried=carried,
        stash=stash,
        shelters=shelters,
        **marks,
    )
    return Loaded(
        ids=ids, settlement=settlement, climate=climate, day=day, carried_pk=c_pk, stash_pk=s_pk
    )
