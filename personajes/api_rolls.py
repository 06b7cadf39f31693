"""REST API pieces of rolls: the stored roll as the API shows it (``RollSerializer``), its
plain-dict rows for lists (``roll_rows``, the serializer's answer without building models)
and the master's threshold for an open action roll (``ThresholdSerializer``). The views that
use them are in ``escenas.api_rolls`` and ``escenas.api`` (a post's rolls).

Source: RULES.md R1 (thresholds), R3 (action rolls), R4 (expressions), R9 (penalty).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from mundo.models import Campaign
from nucleo.serializers import StrictSerializer
from personajes.api import ModifierSerializer
from personajes.models import Roll


@extend_schema_field({"type": "array", "items": {}})
class AnyListField(serializers.JSONField):
    """A JSON list whose items' shape depends on the kind of roll."""


class RollSerializer(serializers.ModelSerializer):
    """A roll as stored: every die, the modifiers and their source, the outcome, the key."""

    campaign: serializers.SlugRelatedField[Campaign] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, help_text=gettext_lazy("The campaign's slug.")
    )
    made_by = serializers.SerializerMethodField(
        help_text=gettext_lazy("Username of who rolled, or null.")
    )
    trait = serializers.SerializerMethodField(
        help_text=gettext_lazy("Slug of the trait rolled (action rolls), or null.")
    )
    modifiers = ModifierSerializer(
        many=True,
        read_only=True,
        help_text=gettext_lazy("The penalty when rolled (R9): lines of points in %."),
    )
    dice = AnyListField(
        read_only=True,
        help_text=gettext_lazy(
            "Every die as rolled: d100 faces (1..100) for action and event rolls; for "
            "expressions, as the expression engine records them."
        ),
    )
    generator_key = serializers.ListField(
        child=serializers.IntegerField(),
        read_only=True,
        help_text=gettext_lazy(
            "spawn_key of the roll's numpy SeedSequence: [day, purpose, subject id, sequence]."
        ),
    )

    class Meta:
        model = Roll
        fields = [
            "id",
            "campaign",
            "character",
            "made_by",
            "created_at",
            "day",
            "kind",
            "reason",
            "expression",
            "trait",
            "trait_name",
            "trait_value",
            "dirt_sensitive",
            "base_threshold",
            "modifiers",
            "effective_threshold",
            "dice",
            "total",
            "successes",
            "success",
            "generator_key",
            "engine_version",
            "period",
            "commitment",
            "post_sha256",
            "seed_sha256",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "character": {"help_text": gettext_lazy("Id of the character who rolled, or null.")},
            "created_at": {"help_text": gettext_lazy("When it was rolled (ISO 8601).")},
            "reason": {"help_text": gettext_lazy("What the roll is for, in the roller's words.")},
            "expression": {"help_text": gettext_lazy("The dice expression (R4), if any.")},
            "trait_name": {"help_text": gettext_lazy("The trait's name when rolled.")},
            "dirt_sensitive": {"help_text": gettext_lazy("It took the dirt penalty (R8).")},
            "day": {"help_text": gettext_lazy("In-game day of the roll.")},
            "period": {"help_text": gettext_lazy("Number of the dice period it was drawn in.")},
            "commitment": {
                "help_text": gettext_lazy("SHA-256 commitment of its dice period's secret.")
            },
            "post_sha256": {
                "help_text": gettext_lazy("SHA-256 of the post's text mixed in (empty: no post).")
            },
            "seed_sha256": {
                "help_text": gettext_lazy("SHA-256 of the player's dice seed mixed in.")
            },
            "base_threshold": {
                "help_text": gettext_lazy(
                    "Base threshold, % (0..100); null while the master has not set it."
                )
            },
            "effective_threshold": {
                "help_text": gettext_lazy("Base − penalty, clamped to 0..100, % (R1, R9).")
            },
            "trait_value": {"help_text": gettext_lazy("Points of the trait when rolled.")},
            "successes": {"help_text": gettext_lazy("Dice ≤ the effective threshold.")},
            "success": {"help_text": gettext_lazy("At least one success (R3); null if open.")},
            "total": {"help_text": gettext_lazy("Sum of an expression, or null.")},
            "engine_version": {
                "help_text": gettext_lazy("reglas.ENGINE_VERSION when rolled (a cross-check).")
            },
        }

    @extend_schema_field({"type": "string", "nullable": True})
    def get_made_by(self, roll: Roll) -> str | None:
        return roll.made_by.get_username() if roll.made_by else None

    @extend_schema_field({"type": "string", "nullable": True})
    def get_trait(self, roll: Roll) -> str | None:
        return roll.trait.slug if roll.trait else None


# The list's rows without the serializer: ``RollSerializer`` stays the schema and the detail
# views' answer; a page of 50 built through it spent most of its time in DRF's per-field calls
# and in model construction (issue 14). ``tests/api/test_api_lists.py`` holds the two equal.
ROLL_COLUMNS = (
    *(name for name in RollSerializer.Meta.fields if name not in {"campaign", "made_by", "trait"}),
    "campaign__slug",
    "made_by__username",
    "trait__slug",
)
"""The ``values()`` columns ``roll_rows`` reads (the serializer's fields; slugs and the
username through their joins)."""

_DATETIME = serializers.DateTimeField()


def roll_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``RollSerializer``'s answer for rolls read as ``values(*ROLL_COLUMNS)`` rows: the same
    keys in the same order and the same values (ISO 8601 in the current time zone, modifiers
    as ``ModifierSerializer`` shows them, ints in ``generator_key``)."""
    as_iso = _DATETIME.to_representation
    return [
        {
            "id": row["id"],
            "campaign": row["campaign__slug"],
            "character": row["character"],
            "made_by": row["made_by__username"],
            "created_at": as_iso(row["created_at"]),
            "day": row["day"],
            "kind": row["kind"],
            "reason": row["reason"],
            "expression": row["expression"],
            "trait": row["trait__slug"],
            "trait_name": row["trait_name"],
            "trait_value": row["trait_value"],
            "dirt_sensitive": row["dirt_sensitive"],
            "base_threshold": row["base_threshold"],
            "modifiers": [_modifier(m) for m in row["modifiers"]],
            "effective_threshold": row["effective_threshold"],
            "dice": row["dice"],
            "total": row["total"],
            "successes": row["successes"],
            "success": row["success"],
            "generator_key": [int(k) for k in row["generator_key"]],
            "engine_version": row["engine_version"],
            "period": row["period"],
            "commitment": row["commitment"],
            "post_sha256": row["post_sha256"],
            "seed_sha256": row["seed_sha256"],
        }
        for row in rows
    ]


def roll_data(roll: Roll) -> dict[str, Any]:
    """``RollSerializer(roll).data`` for one roll model without the serializer (``roll_rows``'s
    dict; its campaign, maker and trait loaded: no query)."""
    row = {
        name: getattr(roll, name)
        for name in ROLL_COLUMNS
        if "__" not in name and name != "character"
    }
    row["character"] = roll.character_id
    row["campaign__slug"] = roll.campaign.slug
    row["made_by__username"] = roll.made_by.get_username() if roll.made_by else None
    row["trait__slug"] = roll.trait.slug if roll.trait else None
    return roll_rows([row])[0]


def _modifier(line: Mapping[str, Any]) -> dict[str, Any]:
    """One stored modifier line as ``ModifierSerializer`` shows it (a missing key is left
    out, as DRF leaves out a read-only field it cannot read)."""
    shown: dict[str, Any] = {}
    if "source" in line:
        shown["source"] = str(line["source"])
    if "label" in line:
        shown["label"] = str(line["label"])
    if "points" in line:
        shown["points"] = int(line["points"])
    return shown


class ThresholdSerializer(StrictSerializer):
    """The base threshold the master gives an action roll made without one."""

    threshold = serializers.IntegerField(
        min_value=0,
        max_value=100,
        help_text=gettext_lazy("Base threshold, % (0..100): the chance a die must not exceed."),
    )


__all__ = ["ROLL_COLUMNS", "RollSerializer", "ThresholdSerializer", "roll_data", "roll_rows"]
