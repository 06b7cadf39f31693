"""The tick's reads: the campaign's approved characters and what they need, ORM → arrays.

One query per table (characters, shelters, day records, item types, carried items, stashes,
Resistencia values), each read straight into numpy columns (``nucleo.bulk.read_columns``: no
model, no per-row tuple kept, rows fetched in chunks), whatever the number of characters.
Rows of other tables find their character by ``searchsorted`` on the sorted ids; per-character
place facts (settlement, climate, grid) are worked out once per distinct settlement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db.models import FloatField
from django.db.models.functions import Cast
from numpy.typing import NDArray

from mundo.models import Campaign, Location
from nucleo.bulk import read_columns
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


def _positions(sorted_ids: I64, wanted: I64) -> I64:
    """Each of ``wanted``'s position in ``sorted_ids`` (−1 where it is not there)."""
    if sorted_ids.size == 0:
        return np.full(wanted.shape[0], -1, np.int64)
    at = np.minimum(np.searchsorted(sorted_ids, wanted), sorted_ids.size - 1)
    return np.where(sorted_ids[at] == wanted, at, -1).astype(np.int64)


def _nullable_ids(values: F64) -> I64:
    """A nullable id column read as float (NaN = NULL) as int64 with −1 for NULL."""
    return np.where(np.isnan(values), -1, values).astype(np.int64)


def _marks(campaign: Campaign, closed: int, ids: I64) -> dict[str, NDArray[Any]]:
    """The master's marks of the closing day (unmarked: NaN sleep, no flags)."""
    n = ids.shape[0]
    flags = (
        "could_not_urinate",
        "could_not_defecate",
        "got_dirty",
        "showered",
        "relieved_inappropriately",
    )
    cid, sleep, *values = read_columns(
        DayRecord.objects.filter(character__campaign=campaign, day=closed).values_list(
            "character_id", "sleep_h", *flags
        ),
        [np.int64, np.float64, *[np.bool_] * len(flags)],
    )
    at = _positions(ids, cid)
    keep = at >= 0
    at = at[keep]
    marks: dict[str, NDArray[Any]] = {"sleep_h": np.full(n, np.nan)}
    marks["sleep_h"][at] = sleep[keep]  # NaN where the master left the hours empty
    for name, column in zip(flags, values, strict=True):
        marks[name] = np.zeros(n, np.bool_)
        marks[name][at] = column[keep]
    return marks


def _stock(
    pk: I64, holder: I64, type_id: I64, units: F64, types: list[NDArray[Any]], power_cut_day: F64
) -> tuple[I64, Stock]:
    """Stacks from columns (holder −1 dropped), the item catalogue's columns ``(id, kind,
    kcal, litres, perishable, spoil day)`` in (kind, name) order and the holders' grid cut
    days; returns the stacks' pks and the ``Stock``, each holder's stacks in catalogue order."""
    keep = holder >= 0
    pk, holder, type_id, units = pk[keep], holder[keep], type_id[keep], units[keep]
    ids, kind, kcal, litres, perishable, spoil_day = types
    if ids.size == 0 or pk.size == 0:
        return np.zeros(0, np.int64), Stock.empty(power_cut_day.shape[0])
    order = np.argsort(ids)
    at = order[np.searchsorted(ids, type_id, sorter=order)]
    # In each holder, its stacks in their item types' order (kind, then name: the catalogue's
    # read order, in the database's collation), which the taking order's ties keep (R15).
    by_type = np.lexsort((pk, at))
    pk, holder, units, at = pk[by_type], holder[by_type], units[by_type], at[by_type]
    return pk, Stock(
        holder=holder,
        kind=kind[at],
        kcal_per_unit=kcal[at],
        litres_per_unit=litres[at],
        perishable=perishable[at],
        spoil_day=np.where(np.isnan(spoil_day), np.inf, spoil_day)[at],
        units=units,
        power_cut_day=power_cut_day,
    )


def _cut_days(world: World, settlement: I64) -> F64:
    """Each holder's grid's power cut day (NaN: on) from its settlement id (−1: the open)."""
    days = {g: np.nan if d is None else float(d) for g, d in world.power_cut_day.items()}
    places, inverse = np.unique(settlement, return_inverse=True)
    per_place = [days[world.grid_key(None if s < 0 else s)] for s in places.tolist()]
    return np.array(per_place, dtype=np.float64)[inverse.reshape(-1)]


def _shelters(campaign: Campaign, world: World) -> tuple[I64, I64, Shelters]:
    """The campaign's shelters: ids (sorted), settlement ids, hygiene facts (R7)."""
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
        np.array([s[0] for s in rows], np.int64),
        np.array([s[1] for s in rows], np.int64),
        Shelters(
            latrine_distance_m=np.array(
                [np.nan if s[2] is None else s[2] for s in rows], np.float64
            ),
            has_cesspit=np.array([bool(s[3]) for s in rows], np.bool_),
            paper_substitute=np.array([bool(s[5]) for s in rows], np.bool_),
            running_water=np.array(water, np.bool_),
        ),
    )


_STACK = [np.int64, np.int64, np.int64, np.float64]


def _stocks(
    campaign: Campaign,
    world: World,
    ids: I64,
    shelter_ids: I64,
    char_settlement: I64,
    shelter_settlement: I64,
) -> tuple[I64, Stock, I64, Stock]:
    """The item catalogue, carried items and shelter stashes (quantity > 0); quantities read
    as float (3 decimals: exact enough for the day's sums, written back rounded to 3)."""
    types = read_columns(
        ItemType.objects.filter(campaign=campaign)
        .order_by("kind", "name")
        .values_list("id", "kind", "kcal_per_unit", "litres_per_unit", "perishable", "spoil_day"),
        [np.int64, "<U16", np.float64, np.float64, np.bool_, np.float64],
    )
    units = Cast("quantity", FloatField())
    c_pk, c_holder, c_type, c_units = read_columns(
        InventoryItem.objects.filter(
            character__campaign=campaign,
            character__status=Character.Status.APPROVED,
            quantity__gt=0,
        ).values_list("id", "character_id", "item_type_id", units),
        _STACK,
    )
    s_pk, s_holder, s_type, s_units = read_columns(
        ShelterStash.objects.filter(
            shelter__settlement__campaign=campaign, quantity__gt=0
        ).values_list("id", "shelter_id", "item_type_id", units),
        _STACK,
    )
    c_pk, carried = _stock(
        c_pk,
        _positions(ids, c_holder),
        c_type,
        c_units,
        types,
        _cut_days(world, char_settlement),
    )
    s_pk, stash = _stock(
        s_pk,
        _positions(shelter_ids, s_holder),
        s_type,
        s_units,
        types,
        _cut_days(world, shelter_settlement),
    )
    return c_pk, carried, s_pk, stash


def _resistencia(campaign: Campaign, ids: I64) -> I64:
    resist = np.zeros(ids.shape[0], np.int64)
    cid, value = read_columns(
        TraitValue.objects.filter(
            character__campaign=campaign,
            character__status=Character.Status.APPROVED,
            trait__slug=RESISTANCE_TRAIT,
        ).values_list("character_id", "value"),
        [np.int64, np.int64],
    )
    at = _positions(ids, cid)
    resist[at[at >= 0]] = value[at >= 0]
    return resist


def _climates(world: World, settlement: I64) -> tuple[list[int | None], NDArray[Any], F64]:
    """Per character: its climate key in the world's weather, precipitation and minimum °C of
    the closing day; worked out once per distinct settlement."""
    places, inverse = np.unique(settlement, return_inverse=True)
    keys = [world.climate(None if s < 0 else s) for s in places.tolist()]
    inverse = inverse.reshape(-1)
    precipitation = np.array([world.weather[c][1] for c in keys], np.bool_)[inverse]
    min_temp_c = np.array([world.weather[c][2] for c in keys], np.float64)[inverse]
    return [keys[j] for j in inverse.tolist()], precipitation, min_temp_c


def load_characters(campaign: Campaign, world: World, closed: int) -> Loaded | None:
    """The approved characters' day ``closed`` as arrays (None when there are none).

    Shelter facts come from the world as the day saw it (running water: plumbing and its
    grid's water on during the day); stacks carry their holders' grid cut days. Queries: seven
    (characters, shelters, day records, item types, carried items, stashes, Resistencia).
    Raises nothing of its own. Source: RULES.md R7, R15, R24 step 5.
    """
    ids, own_settlement, shelter_id, *columns = read_columns(
        Character.objects.filter(campaign=campaign, status=Character.Status.APPROVED)
        .order_by("id")
        .values_list("id", "settlement_id", "shelter_id", *CONDITION_FIELDS),
        [
            np.int64,
            np.float64,  # nullable: NaN for none
            np.float64,
            *[np.bool_ if name in _BOOL_FIELDS else np.int64 for name in CONDITION_FIELDS],
        ],
    )
    n = ids.shape[0]
    if n == 0:
        return None
    condition = ConditionArrays.from_columns(n, **dict(zip(CONDITION_FIELDS, columns, strict=True)))
    shelter_ids, shelter_settlement, shelters = _shelters(campaign, world)
    shelter_of = _positions(shelter_ids, _nullable_ids(shelter_id))
    # A character's settlement: its own, else its shelter's; −1: the open.
    settlement_of = np.where(
        np.isnan(own_settlement),
        np.where(shelter_of >= 0, shelter_settlement[shelter_of] if shelter_ids.size else -1, -1),
        np.nan_to_num(own_settlement, nan=-1),
    ).astype(np.int64)
    c_pk, carried, s_pk, stash = _stocks(
        campaign, world, ids, shelter_ids, settlement_of, shelter_settlement
    )
    climate, precipitation, min_temp_c = _climates(world, settlement_of)
    day = CharactersDay(
        condition=condition,
        shelter=shelter_of,
        precipitation=precipitation,
        min_temp_c=min_temp_c,
        resistencia=_resistencia(campaign, ids),
        carried=carried,
        stash=stash,
        shelters=shelters,
        **_marks(campaign, closed, ids),
    )
    settlement: list[int | None] = [None if s < 0 else s for s in settlement_of.tolist()]
    return Loaded(
        ids=ids, settlement=settlement, climate=climate, day=day, carried_pk=c_pk, stash_pk=s_pk
    )
