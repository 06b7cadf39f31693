"""The roll ledger: the one writer of roll rows and its generator-key scheme.

Every roll — a player's action, event or expression roll, the master's world rolls, the daily
tick's draws, combat — is written here, to ``personajes.Roll`` or ``mundo.WorldRoll``. Its dice
come from its own generator::

    reglas.core.make_rng(campaign entropy, [day, purpose, subject, sequence])

- ``day``: the in-game day the roll belongs to (the campaign's current day, or the day the tick
  closes);
- ``purpose``: a ``reglas.core.RollPurpose`` (what the roll is for);
- ``subject``: the character's id; for a roll without a character the user's id + 10⁹
  (``USER_SUBJECT_OFFSET``); for the world the settlement, place or grid id;
- ``sequence``: how many rows of the same model with the same (day, purpose, subject) exist
  already, counted under the campaign lock (in its shared mode, a post's, under the ledger
  lock of that prefix as well: ``nucleo.locks.ledger_lock``), so no two rolls share a key and
  no roll depends on how many other subjects rolled before it.

The stored dice are the record (numpy does not promise the same stream across versions); the key
and ``reglas.ENGINE_VERSION`` are stored beside them as a cross-check. Rows are append-only.

Verifiable dice (issue 16): the entropy is the open dice period's (``Campaign.entropy``; its
commitment is public, ``mundo.periods``) and every row stores that period's number and
commitment (``period``, ``commitment``). A roll made from a post also mixes in the player's
share (``PlayerShare``: the SHA-256 of the post's text and of its author's dice seed, stored
as ``post_sha256`` and ``seed_sha256``):
``make_rng(entropy, key, share=reglas.verify.share_digest(…))``, so every stored roll
reproduces from its period's revealed entropy, its key and its share.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db.models import JSONField, Model
from django.utils import timezone

from nucleo import bulk
from nucleo.locks import ledger_lock, require_campaign_lock
from reglas import ENGINE_VERSION
from reglas.core import make_rng
from reglas.verify import commitment_of, sha256_text, share_digest

USER_SUBJECT_OFFSET = 1_000_000_000
"""Added to a user's id to make the subject of a roll made without a character."""


@dataclass(frozen=True, slots=True)
class PlayerShare:
    """The player's share of a roll made from a post: ``post_sha256`` the SHA-256 (hex) of the
    post's text as stored, ``seed_sha256`` of its author's dice seed at that moment
    (``Membership.dice_seed``). Source: issue 16 item 2; ``reglas.verify``."""

    post_sha256: str
    seed_sha256: str

    @classmethod
    def of(cls, *, text: str, seed: str) -> PlayerShare:
        """The share of a post's ``text`` and its author's ``seed`` (both hashed as UTF-8)."""
        return cls(sha256_text(text), sha256_text(seed))

    def digest(self) -> bytes:
        """The 32 bytes mixed into the roll's SeedSequence (``reglas.verify.share_digest``)."""
        return share_digest(self.post_sha256, self.seed_sha256)


type Roller = Callable[[np.random.Generator], Mapping[str, Any]]
"""Draws a roll's dice from its generator and returns the row fields they decide."""


def _sequences(
    model: type[Model], *, campaign_id: int, day: int, prefixes: Iterable[tuple[int, int]]
) -> Counter[tuple[int, int]]:
    """How many rows exist per (purpose, subject) on ``day``: one query (a count for one
    prefix; the day's keys of those purposes for several)."""
    wanted = set(prefixes)
    counts: Counter[tuple[int, int]] = Counter()
    if not wanted:
        return counts
    if len(wanted) == 1:
        ((purpose, subject),) = wanted
        counts[(purpose, subject)] = model.objects.filter(  # type: ignore[attr-defined]
            campaign_id=campaign_id,
            generator_key__0=day,
            generator_key__1=purpose,
            generator_key__2=subject,
        ).count()
        return counts
    keys = model.objects.filter(  # type: ignore[attr-defined]
        campaign_id=campaign_id,
        generator_key__0=day,
        generator_key__1__in=sorted({p for p, _s in wanted}),
    ).values_list("generator_key", flat=True)
    for key in keys:
        prefix = (int(key[1]), int(key[2]))
        if prefix in wanted:
            counts[prefix] += 1
    return counts


def next_key(
    model: type[Model], *, campaign_id: int, day: int, purpose: int, subject: int
) -> list[int]:
    """``[day, purpose, subject, sequence]`` of the next roll of ``model``; one query (two in
    the campaign lock's shared mode: the prefix's ``ledger_lock`` first).

    Raises ``nucleo.locks.LockOrderError`` outside ``campaign_lock(campaign_id)``: the count is
    only unique under the lock.
    """
    ledger_lock(model, campaign_id, [int(day), int(purpose), int(subject)])
    sequence = _sequences(model, campaign_id=campaign_id, day=day, prefixes=[(purpose, subject)])[
        (purpose, subject)
    ]
    return [int(day), int(purpose), int(subject), sequence]


def roll_record[M: Model](
    model: type[M],
    *,
    campaign: Any,
    purpose: int,
    subject: int,
    roller: Roller,
    day: int | None = None,
    share: PlayerShare | None = None,
    **fields: Any,
) -> M:
    """Make one roll and write its row: the key, its generator, ``roller``'s fields, ``fields``.

    ``day`` defaults to the campaign's current day; ``share`` the player's share of a roll made
    from a post (stored as ``post_sha256``/``seed_sha256``; only ``personajes.Roll`` has them),
    None for the rest. The row's ``period``/``commitment`` are the open dice period's.
    ``roller`` gets the roll's own generator and returns the fields the dice decide
    (``dice``, ``success``…); ``fields`` the rest (who, why).
    Raises ``LockOrderError`` outside ``campaign_lock``; whatever ``roller`` raises (nothing is
    written then).
    """
    day = int(campaign.current_day if day is None else day)
    key = next_key(model, campaign_id=campaign.pk, day=day, purpose=purpose, subject=subject)
    entropy = campaign.entropy_int
    rolled = roller(
        make_rng(entropy, key) if share is None else make_rng(entropy, key, share.digest())
    )
    if share is not None:
        fields = {**fields, "post_sha256": share.post_sha256, "seed_sha256": share.seed_sha256}
    return model.objects.create(  # type: ignore[attr-defined]
        campaign=campaign,
        day=day,
        generator_key=key,
        engine_version=ENGINE_VERSION,
        period=campaign.entropy_period,
        commitment=commitment_of(campaign.entropy),
        **fields,
        **rolled,
    )


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One row for ``rolls_record_bulk``: its purpose and subject, every other field, and
    ``drawn_with``: the key the caller drew its dice from, when it drew them before writing
    (the daily tick), which the ledger checks is the key it gives the row."""

    purpose: int
    subject: int
    fields: Mapping[str, Any] = field(default_factory=dict)
    drawn_with: Sequence[int] | None = None


def bulk_keys(
    model: type[Model],
    *,
    campaign_id: int,
    day: int,
    rows: Sequence[LedgerRow],
) -> list[list[int]]:
    """The generator keys of ``rows`` in order: sequences continue what is stored (one query)
    and count up within the batch. Raises ``LockOrderError`` outside the exclusive
    ``campaign_lock`` (a batch would need a ledger lock per prefix in the shared one)."""
    require_campaign_lock(campaign_id, exclusive=True)
    counts = _sequences(
        model, campaign_id=campaign_id, day=day, prefixes={(r.purpose, r.subject) for r in rows}
    )
    keys = []
    for r in rows:
        prefix = (int(r.purpose), int(r.subject))
        keys.append([int(day), prefix[0], prefix[1], counts[prefix]])
        counts[prefix] += 1
    return keys


def rolls_record_bulk(
    model: type[Model],
    *,
    campaign: Any,
    day: int,
    rows: Sequence[LedgerRow],
) -> list[list[int]]:
    """Write many rolls of one ``day`` in one INSERT; returns their generator keys in order.

    ``rows`` carry each roll's purpose, subject and its other fields, already in the column's
    stored form (JSON columns as JSON text; foreign keys by field name, e.g. ``character``);
    every row has the same field names. Keys come from ``bulk_keys`` (one query), so they
    continue the sequences of what is stored; ``campaign``, ``day``, ``generator_key``,
    ``engine_version``, the model's ``auto_now(_add)`` columns and the defaults of fields not
    given and ``period``/``commitment`` (the open dice period's) are filled in here; these rolls
    have no player's share (the tick, the master's combat turns).
    Queries: two (keys, insert); none for no rows.

    The dice are the caller's, drawn from ``make_rng(entropy, key)``: a caller that drew them
    before writing gives that key as ``drawn_with`` and the ledger refuses the batch
    (``ValueError``) when the key it gives differs, so a stored key always reproduces its
    dice; the stored dice remain the record. Raises ``LockOrderError`` outside
    ``campaign_lock``; ``ValueError`` for rows with different fields or a ``drawn_with`` that is
    not the row's key.
    """
    if not rows:
        return []
    names = list(rows[0].fields)
    if any(list(r.fields) != names for r in rows):
        raise ValueError("Every bulk roll row needs the same fields, in the same order.")
    keys = bulk_keys(model, campaign_id=campaign.pk, day=day, rows=rows)
    for r, key in zip(rows, keys, strict=True):
        if r.drawn_with is not None and [int(k) for k in r.drawn_with] != key:
            raise ValueError(f"Dice drawn with key {list(r.drawn_with)} would be stored as {key}.")
    columns: dict[str, list[Any]] = {name: [r.fields[name] for r in rows] for name in names}
    columns.update(
        campaign=[campaign.pk] * len(rows),
        day=[int(day)] * len(rows),
        generator_key=[json.dumps(k) for k in keys],
        engine_version=[ENGINE_VERSION] * len(rows),
        period=[campaign.entropy_period] * len(rows),
        commitment=[commitment_of(campaign.entropy)] * len(rows),
    )
    columns.update(_as_save_would(model, columns, len(rows)))
    bulk.insert_columns(model, columns)
    return keys


def _as_save_would(model: type[Model], given: Mapping[str, Any], n: int) -> dict[str, list[Any]]:
    """The columns ``save()`` would fill that one INSERT skips: ``auto_now(_add)`` stamps and
    every other field's default (JSON defaults as JSON text), for the fields not ``given``."""
    now = timezone.now()
    out: dict[str, list[Any]] = {}
    for f in model._meta.concrete_fields:
        if f.primary_key or f.name in given:
            continue
        if getattr(f, "auto_now_add", False) or getattr(f, "auto_now", False):
            out[f.name] = [now] * n
        else:  # as save(): the field's default, "" for text, None for the rest
            value = f.get_default()
            if isinstance(f, JSONField) and value is not None:
                value = json.dumps(value)
            out[f.name] = [value] * n
    return out
