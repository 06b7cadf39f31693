"""The characters' foresight (issue 11 item 5): ``reglas.forecast`` over the stored rows.

``campaign_forecasts`` reads every living approved character of a campaign with what it
carries, its shelter's stash and residents, its shelter's hygiene and today's weather, in a
fixed number of queries whatever the number of characters (five), and returns the forecasts
with the characters in danger first. ``character_forecast`` is the same for one character.

Source: RULES.md R6, R7, R10, R15 (``reglas.forecast``).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db.models import F, FloatField, Q, QuerySet, Sum

from mundo.models import Campaign, Location, WeatherRecord
from nucleo import deploy, table_writes
from personajes.mapping import condition_state
from personajes.models import Character, InventoryItem, ItemType, ShelterStash
from reglas.forecast import Forecast, forecast
from reglas.weather import season_for


@dataclass(frozen=True, slots=True)
class CharacterForecast:
    """One character (``character``, its campaign not loaded) and its ``forecast``."""

    character: Character
    forecast: Forecast


def _supplies(rows: list[dict[str, object]], key: str) -> dict[int, dict[str, float]]:
    """``{holder id: {"kcal": …, "water_l": …, "paper": …}}`` from grouped stock sums."""
    out: dict[int, dict[str, float]] = defaultdict(
        lambda: {"kcal": 0.0, "water_l": 0.0, "paper": 0.0}
    )
    for row in rows:
        holder = int(row[key])  # type: ignore[call-overload]
        kind = row["item_type__kind"]
        if kind == ItemType.Kind.FOOD:
            out[holder]["kcal"] += float(row["kcal"] or 0)  # type: ignore[arg-type]
        elif kind == ItemType.Kind.WATER:
            out[holder]["water_l"] += float(row["litres"] or 0)  # type: ignore[arg-type]
        elif kind == ItemType.Kind.TOILET_PAPER:
            out[holder]["paper"] += float(row["units"] or 0)  # type: ignore[arg-type]
    return out


def _grouped(queryset: QuerySet[Any], key: str) -> list[dict[str, object]]:
    return list(
        queryset.filter(quantity__gt=0)
        .values(key, "item_type__kind")
        .annotate(
            kcal=Sum(F("quantity") * F("item_type__kcal_per_unit"), output_field=FloatField()),
            litres=Sum(F("quantity") * F("item_type__litres_per_unit"), output_field=FloatField()),
            units=Sum("quantity"),
        )
        .order_by()
    )


def _hygiene_ok(
    mine: dict[str, float], home: dict[str, float], shelter: Mapping[str, Any] | None, far_m: float
) -> bool:
    """Today's R7 conditions: paper (carried, stashed or a substitute) and a place (the open,
    a cesspit, or a latrine at least ``far_m`` m away)."""
    paper = mine["paper"] > 0 or home["paper"] > 0 or bool(shelter and shelter["paper_substitute"])
    distance = None if shelter is None else shelter["latrine_distance_m"]
    place = (
        shelter is None
        or bool(shelter["has_cesspit"])
        or (distance is not None and distance >= far_m)
    )
    return paper and place


def _residents(
    campaign: Campaign, chars: list[Character], shelter_ids: set[int], *, everyone: bool
) -> dict[int, list[tuple[int, bool]]]:
    """``{shelter id: [(character id, sick or infected), …]}`` of the living approved residents
    (R10, R13, R15). ``chars`` already holds them all when ``everyone``; otherwise one query."""
    if everyone:
        rows = [(c.pk, c.shelter_id, bool(c.disease_day or c.infection_day)) for c in chars]
    else:
        rows = [
            (pk, shelter, bool(disease or infection))
            for pk, shelter, disease, infection in Character.objects.filter(
                campaign=campaign, status=Character.Status.APPROVED, shelter_id__in=shelter_ids
            ).values_list("pk", "shelter_id", "disease_day", "infection_day")
        ]
    out: dict[int, list[tuple[int, bool]]] = defaultdict(list)
    for pk, shelter, sick in rows:
        if shelter is not None:
            out[shelter].append((pk, sick))
    return out


def campaign_forecasts(
    campaign: Campaign, *, character_id: int | None = None
) -> list[CharacterForecast]:
    """The forecasts of the campaign's living approved characters (or of ``character_id``
    only), in danger first, then by urgency (the soonest foreseen death, the highest odds),
    then by name. Five queries: characters, carried sums, stash sums, shelters, weather (one
    more, the shelters' residents, for one ``character_id``).
    Raises nothing of its own. Source: RULES.md R6, R7, R10, R15."""
    return campaigns_forecasts([campaign], character_id=character_id).get(campaign.pk, [])


def _weather_today(campaigns: list[Campaign]) -> dict[tuple[int, int | None], Mapping[str, Any]]:
    """Today's weather of each campaign (its own current day), keyed (campaign, settlement)."""
    today_q = Q()
    for campaign in campaigns:
        today_q |= Q(campaign_id=campaign.pk, day=campaign.current_day)
    return {
        (w["campaign_id"], w["settlement_id"]): w
        for w in WeatherRecord.objects.filter(today_q).values(
            "campaign_id", "settlement_id", "precipitation", "min_c"
        )
    }


def campaigns_forecasts(
    campaigns: Sequence[Campaign], *, character_id: int | None = None
) -> dict[int, list[CharacterForecast]]:
    """``campaign_forecasts`` of several campaigns at once, keyed by campaign id (campaigns
    without a living approved character left out): the same five queries whatever the number
    of campaigns (the inbox of a master of many). Source: RULES.md R6, R7, R10, R15."""
    by_id = {c.pk: c for c in campaigns}
    characters = Character.objects.filter(
        campaign_id__in=list(by_id), status=Character.Status.APPROVED
    )
    if character_id is not None:
        characters = characters.filter(pk=character_id)
    chars = list(characters.order_by("name", "pk"))
    if not chars:
        return {}
    ids = [c.pk for c in chars]
    carried = _supplies(
        _grouped(InventoryItem.objects.filter(character_id__in=ids), "character_id"), "character_id"
    )
    shelter_ids = {c.shelter_id for c in chars if c.shelter_id is not None}
    stash = _supplies(
        _grouped(ShelterStash.objects.filter(shelter_id__in=shelter_ids), "shelter_id"),
        "shelter_id",
    )
    shelters = {
        s["id"]: s
        for s in Location.objects.filter(pk__in=shelter_ids).values(
            "id", "latrine_distance_m", "has_cesspit", "paper_substitute"
        )
    }
    wanted = {c.campaign_id for c in chars}
    weather = _weather_today([by_id[cid] for cid in wanted])
    everyone = character_id is None
    residents = _residents(by_id[chars[0].campaign_id], chars, shelter_ids, everyone=everyone)
    context = {cid: (by_id[cid].rules, str(season_for(by_id[cid].current_date))) for cid in wanted}
    out: dict[int, list[CharacterForecast]] = defaultdict(list)
    for c in chars:
        rules, season = context[c.campaign_id]
        mine = carried[c.pk]
        home = (
            stash[c.shelter_id]
            if c.shelter_id is not None
            else {"kcal": 0.0, "water_l": 0.0, "paper": 0.0}
        )
        if not rules.allow_shelter_stash:
            home = {"kcal": 0.0, "water_l": 0.0, "paper": 0.0}
        shelter = shelters.get(c.shelter_id) if c.shelter_id is not None else None
        housemates = residents.get(c.shelter_id, []) if c.shelter_id is not None else []
        w = weather.get((c.campaign_id, c.settlement_id)) or weather.get((c.campaign_id, None))
        out[c.campaign_id].append(
            CharacterForecast(
                character=c,
                forecast=forecast(
                    condition_state(c),
                    today=by_id[c.campaign_id].current_day,
                    season=season,
                    kcal_carried=mine["kcal"],
                    water_carried_l=mine["water_l"],
                    stash_kcal=home["kcal"],
                    stash_water_l=home["water_l"],
                    residents=max(1, len(housemates)),
                    hygiene_adequate=_hygiene_ok(mine, home, shelter, rules.latrine_min_distance_m),
                    sick_housemates=sum(1 for pk, sick in housemates if pk != c.pk and sick),
                    precipitation=bool(w and w["precipitation"]),
                    min_temp_c=None if w is None else float(w["min_c"]),
                    settings=rules,
                ),
            )
        )
    for found in out.values():
        found.sort(key=lambda cf: (not cf.forecast.danger, cf.forecast.urgency))
    return dict(out)


FORECAST_TTL = 26 * 3600
"""Seconds a character's forecast is kept: a day and a bit (the next tick makes it old)."""


@dataclass(frozen=True, slots=True)
class KeptForecast:
    """A character's forecast kept in the cache (``character_forecast``): the ``forecast``,
    the generation names its reads depended on (``tables``) and their ``generations``."""

    forecast: Forecast | None
    tables: frozenset[str]
    generations: dict[str, str]


def _forecast_key(character: Character) -> str:
    """The cache key of a character's forecast: the character, what the forecast takes of its
    campaign without a query (the day, the date, the rule overrides) and the code's stamp."""
    campaign = character.campaign
    facts = (
        character.pk,
        campaign.pk,
        campaign.current_day,
        str(campaign.apocalypse_date),
        json.dumps(campaign.rule_overrides, sort_keys=True, default=str),
        deploy.code_stamp(),
    )
    digest = hashlib.sha256(repr(facts).encode()).hexdigest()[:32]
    return f"personajes:forecast:{character.pk}:{digest}"


def character_forecast(character: Character) -> Forecast | None:
    """The forecast of one living approved character (None otherwise). Kept in the cache
    while none of the tables it read changed (``nucleo.table_writes``: what the character
    carries, its stash, its shelter, today's weather): a hit costs two cache round trips, a
    miss six queries (``character.campaign`` select_related saves one more). Inside a kept
    page's render, a hit counts its tables as the page's reads. Source: RULES.md R6, R10,
    R15."""
    if character.status != Character.Status.APPROVED:
        return None
    key = _forecast_key(character)
    kept = table_writes.kept(key, KeptForecast)
    if kept is not None:
        table_writes.depend_on(kept.tables)
        return kept.forecast
    with table_writes.recording(key) as rec:
        found = campaign_forecasts(character.campaign, character_id=character.pk)
    result = found[0].forecast if found else None
    if rec is not None and (generations := rec.generations()) is not None:
        entry = KeptForecast(forecast=result, tables=frozenset(rec.tables), generations=generations)
        cache.set(key, entry, FORECAST_TTL)
    return result
