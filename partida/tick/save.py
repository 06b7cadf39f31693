"""The tick's writes for the characters: one statement per table, whatever their number.

Stacks (what the day consumed), characters (the rows whose condition changed; the dead's
status), the day's rolls (through the ledger) and one ``DiaryEntry`` each (R25).
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import numpy as np
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from mundo.models import Campaign
from nucleo import bulk
from nucleo.ledger import LedgerRow, rolls_record_bulk
from partida.tick.load import Loaded
from partida.tick.world import World
from personajes.mapping import CONDITION_FIELDS, DIARY_CONDITION_FIELDS
from personajes.models import Character, DiaryEntry, InventoryItem, Roll, ShelterStash
from reglas.characters import is_dirt_sensitive
from reglas.core import Breakdown, RollPurpose
from reglas.day import F64, I64, BreakdownTable, CharactersDayOutcome
from reglas.expression_terms import term_rolls
from reglas.expressions import parse_expression
from reglas.health import RESISTANCE_TRAIT
from reglas.settings import RuleSettings


def _breakdown_json(lines: Breakdown) -> str:
    return json.dumps([m.as_dict() for m in lines], ensure_ascii=False)


def _table_json(table: BreakdownTable) -> bulk.Coded:
    """JSON text per character: each distinct breakdown formatted once, and sent once
    (``nucleo.bulk.Coded``: the rows name which)."""
    return bulk.Coded([_breakdown_json(row) for row in table.rows], table.index)


def write_quantities(model: type, pk: I64, units: F64, taken: F64) -> None:
    """One UPDATE of the stacks that changed: ``pk``, ``units`` held and ``taken`` (k,);
    quantities in units, 3 decimals, never < 0. Source: RULES.md R15."""
    changed = np.flatnonzero(taken > 1e-9)
    if changed.size == 0:
        return
    left = np.maximum(np.round(units[changed] - taken[changed], 3), 0.0)
    bulk.update_columns(model, pk[changed], {"quantity": left})


def write_characters(loaded: Loaded, out: CharactersDayOutcome, closed: int) -> None:
    """Only the rows whose condition changed (a fed, rested, healthy character's counters stay
    as they were), in one UPDATE; the dead's status, cause and day ``closed`` in another,
    small one. Source: RULES.md R14, R24."""
    ids, start, final = loaded.ids, loaded.day.condition, out.condition
    changed = np.zeros(ids.shape[0], np.bool_)
    for name in CONDITION_FIELDS:
        changed |= getattr(final, name) != getattr(start, name)
    rows = np.flatnonzero(changed)
    if rows.size:
        bulk.update_columns(
            Character,
            ids[rows],
            {name: getattr(final, name)[rows] for name in CONDITION_FIELDS},
        )
    gone = np.flatnonzero(out.dead)
    if gone.size:
        bulk.update_columns(
            Character,
            ids[gone].tolist(),
            {
                "status": np.where(
                    out.risen[gone], Character.Status.RISEN, Character.Status.DEAD
                ).tolist(),
                "death_cause": out.cause[gone].tolist(),
                "death_day": [closed] * int(gone.size),
            },
        )


_ROLL_BLANK: dict[str, Any] = {
    "kind": "",
    "character": None,
    "reason": "",
    "expression": "",
    "trait_name": "",
    "trait_value": None,
    "base_threshold": None,
    "modifiers": "[]",
    "effective_threshold": None,
    "dice": "[]",
    "total": None,
    "successes": None,
    "success": None,
    "dirt_sensitive": False,
}
"""A tick roll row's fields, blank; each kind of roll fills its own (every row, same names)."""


def health_roll_key(closed: int, character_id: Any) -> list[int]:
    """The ledger key of a character's one stored health roll of day ``closed`` (a resistance
    roll or a new disease's duration: never both on one day), ``[closed, HEALTH, id, 0]``; its
    dice are drawn from ``make_rng(entropy, key)``. Source: DESIGN.md "Randomness and the roll
    ledger"."""
    return [int(closed), int(RollPurpose.HEALTH), int(character_id), 0]


def health_roll_keys(closed: int, character_ids: I64) -> I64:
    """``health_roll_key`` of every character at once: shape ``(n, 4)`` int64, row i
    ``[closed, HEALTH, character_ids[i], 0]``."""
    keys = np.zeros((character_ids.shape[0], 4), np.int64)
    keys[:, 0], keys[:, 1], keys[:, 2] = closed, int(RollPurpose.HEALTH), character_ids
    return keys


def _once_each(values: list[Any], text: Any) -> list[str]:
    """``text(v)`` for each of ``values``, computed once per distinct value (hashable)."""
    memo: dict[Any, str] = {}
    return [memo[v] if v in memo else memo.setdefault(v, text(v)) for v in values]


def _ledger_rows(subjects: I64, closed: int, columns: dict[str, list[Any]]) -> list[LedgerRow]:
    """One ``LedgerRow`` per subject (the ledger's input) from whole columns: the blank fields
    and ``columns`` zipped, keys ``health_roll_key`` as one int array."""
    k = int(subjects.shape[0])
    filled = {name: columns.get(name, [value] * k) for name, value in _ROLL_BLANK.items()}
    keys = health_roll_keys(closed, subjects)
    names = list(filled)
    return [
        LedgerRow(RollPurpose.HEALTH, subject, dict(zip(names, values, strict=True)), key)
        for subject, values, key in zip(
            subjects.tolist(), zip(*filled.values(), strict=True), keys.tolist(), strict=True
        )
    ]


def _resistance_rows(
    closed: int, loaded: Loaded, out: CharactersDayOutcome, rules: RuleSettings
) -> list[LedgerRow]:
    """The resistance rolls at a disease's end (R12): columns from the outcome's arrays."""
    res = out.resistance
    at = res.index.astype(np.int64)
    k = int(at.shape[0])
    if k == 0:
        return []
    with translation.override(settings.LANGUAGE_CODE):  # stored words, the site's language
        reason = gettext("Resistance roll at the end of the disease (R12)")
    subjects = loaded.ids[at]
    return _ledger_rows(
        subjects,
        closed,
        {
            "kind": [Roll.Kind.ACTION] * k,
            "character": subjects.tolist(),
            "reason": [reason] * k,
            "trait_name": ["Resistencia"] * k,
            "trait_value": loaded.day.resistencia[at].tolist(),
            # as the roll's penalty is
            "dirt_sensitive": [is_dirt_sensitive(RESISTANCE_TRAIT, rules)] * k,
            "base_threshold": [rules.resistance_base] * k,
            "modifiers": _once_each(list(res.breakdowns), _breakdown_json),
            "effective_threshold": np.asarray(res.thresholds, np.int64).tolist(),
            "dice": _once_each([tuple(d) for d in res.dice], lambda d: json.dumps(list(d))),
            "successes": np.asarray(res.successes, np.int64).tolist(),
            "success": np.asarray(res.success, np.bool_).tolist(),
        },
    )


def _duration_rows(
    closed: int, loaded: Loaded, out: CharactersDayOutcome, rules: RuleSettings
) -> list[LedgerRow]:
    """New diseases' durations (R12, an expression roll: R4), dice stored per term; each
    distinct row of faces formatted once (a 1d6+2 has six)."""
    health = out.health
    at = np.flatnonzero(health.fell_sick)
    k = int(at.shape[0])
    if k == 0:
        return []
    with translation.override(settings.LANGUAGE_CODE):
        reason = gettext("Duration of the disease (R12)")
    duration = parse_expression(rules.disease_duration)
    subjects = loaded.ids[at]
    return _ledger_rows(
        subjects,
        closed,
        {
            "kind": [Roll.Kind.EXPRESSION] * k,
            "character": subjects.tolist(),
            "reason": [reason] * k,
            "expression": [rules.disease_duration] * k,
            "dice": _once_each(
                [tuple(row) for row in health.duration_dice[at].tolist()],
                lambda faces: json.dumps([t.as_dict() for t in term_rolls(duration, faces)]),
            ),
            "total": health.duration[at].astype(np.int64).tolist(),
        },
    )


def write_rolls(
    campaign: Campaign, closed: int, loaded: Loaded, out: CharactersDayOutcome, rules: RuleSettings
) -> None:
    """The day's resistance rolls (R12) and new diseases' durations, with their dice, through
    the ledger, each under the key its dice were drawn from (``health_roll_key``: a character
    has at most one of them a day, so its sequence is 0; the ledger checks it).
    A duration's dice are stored per term (``reglas.expressions.TermRoll.as_dict``), the shape
    of every expression roll. The rows' columns come from the outcome's arrays (one list per
    field, JSON texts made once per distinct value), zipped into the ledger's rows. Source:
    RULES.md R4, R12, DESIGN.md "Randomness and the roll ledger".
    """
    rows = _resistance_rows(closed, loaded, out, rules) + _duration_rows(closed, loaded, out, rules)
    rolls_record_bulk(Roll, campaign=campaign, day=closed, rows=rows)


def write_diary(
    loaded: Loaded,
    out: CharactersDayOutcome,
    *,
    world: World,
    rules: RuleSettings,
    closed: int,
    closed_date: datetime.date,
) -> None:
    """One DiaryEntry per character for the closed day, in one INSERT: amounts in kcal, L and
    h, the counters as the day leaves them, the R9 and R10 breakdowns as JSON, each distinct
    breakdown and each climate's weather sent once (``nucleo.bulk.Coded``: on PostgreSQL the
    server parses a dozen JSON texts, not one per character). Columns go as numpy arrays
    where they are ones (``nucleo.bulk`` formats each distinct number once).
    Source: RULES.md R25."""
    n = loaded.ids.shape[0]
    final, survival, health = out.condition, out.survival, out.health
    rolled = health.onset_rolled.tolist()
    climates = list(dict.fromkeys(loaded.climate))  # each climate's weather sent once
    at = {c: j for j, c in enumerate(climates)}
    climate = np.fromiter((at[c] for c in loaded.climate), np.int64, count=n)
    bulk.insert_columns(
        DiaryEntry,
        {
            "character": loaded.ids,
            "day": [closed] * n,
            "date": [closed_date] * n,
            "weather_label": bulk.Coded([world.weather[c][0] for c in climates], climate),
            "min_temp_c": bulk.Coded([world.weather[c][2] for c in climates], climate),
            "kcal_eaten": np.round(survival.consumption.kcal_eaten, 3),
            "kcal_needed": [rules.daily_kcal] * n,
            "water_l": np.round(survival.consumption.water_drunk_l, 3),
            "water_needed_l": [rules.daily_water_l] * n,
            "sleep_h": survival.needs.sleep_h,
            "sleep_needed_h": [rules.daily_sleep_h] * n,
            "hygiene_ok": survival.hygiene.adequate,
            **{name: getattr(final, name) for name in DIARY_CONDITION_FIELDS},
            "penalty_total": out.penalty_total,
            "penalty_breakdown": _table_json(out.penalty),
            "disease_p": [
                int(p) if r else None for p, r in zip(health.odds.p.tolist(), rolled, strict=True)
            ],
            "disease_breakdown": _table_json(out.disease),
            "disease_die": [
                int(d) if r else None
                for d, r in zip(health.onset_dice.tolist(), rolled, strict=True)
            ],
            "fell_ill": health.fell_sick,
            "status": out.status,
            "death_cause": np.where(out.dead, out.cause, ""),
        },
    )


def write_day(
    campaign: Campaign,
    loaded: Loaded,
    out: CharactersDayOutcome,
    *,
    world: World,
    rules: RuleSettings,
    closed: int,
    closed_date: datetime.date,
) -> None:
    """Every write of the characters' day, items first, then characters, rolls, diary: at most
    six statements (two stacks, two character updates, the ledger's two) plus the diary.
    Source: RULES.md R24 steps 5–6."""
    day = loaded.day
    write_quantities(InventoryItem, loaded.carried_pk, day.carried.units, out.carried_taken)
    write_quantities(ShelterStash, loaded.stash_pk, day.stash.units, out.stash_taken)
    write_characters(loaded, out, closed)
    write_rolls(campaign, closed, loaded, out, rules)
    write_diary(loaded, out, world=world, rules=rules, closed=closed, closed_date=closed_date)
