"""The ledger's bulk writer as the tick uses it (``nucleo.ledger.rolls_record_bulk``).

Cast: ``campaign`` (day 7) and one approved character, ``pc``. The rows are what the tick's
health step writes: an expression roll (a disease's duration) with its dice.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from nucleo.ledger import LedgerRow, rolls_record_bulk
from nucleo.locks import LockOrderError, campaign_lock
from personajes.models import Character, Roll
from reglas import ENGINE_VERSION
from reglas.core import RollPurpose
from tests.factories import CharacterFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def pc(campaign):
    return CharacterFactory(campaign=campaign, status=Character.Status.APPROVED)


def duration(pc: Character, faces: list[int], total: int) -> LedgerRow:
    return LedgerRow(
        RollPurpose.HEALTH,
        pc.pk,
        {
            "kind": Roll.Kind.EXPRESSION,
            "character": pc.pk,
            "reason": "Duración de la enfermedad (R12)",
            "expression": "1d6+2",
            "dice": json.dumps(faces),
            "total": total,
        },
    )


def test_bulk_rolls_get_the_ledgers_sequences_in_one_insert(campaign, pc):
    with campaign_lock(campaign.pk):
        with CaptureQueriesContext(connection) as ctx:
            keys = rolls_record_bulk(
                Roll,
                campaign=campaign,
                day=7,
                rows=[duration(pc, [3], 5), duration(pc, [6], 8)],
            )
        # The sequences read and the insert: two statements for any number of rows.
        assert len(ctx.captured_queries) == 2
        # A second batch the same day continues the character's sequence.
        more = rolls_record_bulk(Roll, campaign=campaign, day=7, rows=[duration(pc, [1], 3)])
        assert rolls_record_bulk(Roll, campaign=campaign, day=7, rows=[]) == []
    assert keys == [[7, RollPurpose.HEALTH, pc.pk, 0], [7, RollPurpose.HEALTH, pc.pk, 1]]
    assert more == [[7, RollPurpose.HEALTH, pc.pk, 2]]
    rows = list(
        Roll.objects.filter(character=pc)
        .order_by("id")
        .values_list("generator_key", "dice", "total", "day", "engine_version", "campaign_id")
    )
    assert rows == [
        ([7, 22, pc.pk, 0], [3], 5, 7, ENGINE_VERSION, campaign.pk),
        ([7, 22, pc.pk, 1], [6], 8, 7, ENGINE_VERSION, campaign.pk),
        ([7, 22, pc.pk, 2], [1], 3, 7, ENGINE_VERSION, campaign.pk),
    ]


def test_bulk_rolls_need_the_campaign_lock_and_one_set_of_fields(campaign, pc):
    with pytest.raises(LockOrderError):
        rolls_record_bulk(Roll, campaign=campaign, day=7, rows=[duration(pc, [3], 5)])
    odd = LedgerRow(RollPurpose.HEALTH, pc.pk, {"kind": Roll.Kind.EXPRESSION})
    with campaign_lock(campaign.pk), pytest.raises(ValueError, match="same fields"):
        rolls_record_bulk(Roll, campaign=campaign, day=7, rows=[duration(pc, [3], 5), odd])
    assert not Roll.objects.exists()


def test_dice_drawn_with_another_key_than_the_stored_one_are_refused(campaign, pc):
    drawn = [7, RollPurpose.HEALTH, pc.pk, 0]
    with campaign_lock(campaign.pk):
        ok = LedgerRow(RollPurpose.HEALTH, pc.pk, duration(pc, [3], 5).fields, drawn_with=drawn)
        assert rolls_record_bulk(Roll, campaign=campaign, day=7, rows=[ok]) == [drawn]
        # The same key again: the ledger would store it as sequence 1, not as drawn.
        with pytest.raises(ValueError, match=r"would be stored as \[7, 22, \d+, 1\]"):
            rolls_record_bulk(Roll, campaign=campaign, day=7, rows=[ok])
    assert Roll.objects.count() == 1
