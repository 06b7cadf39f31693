"""The roll a post asks for through the API (kept apart from ``escenas.api`` so that module
stays a readable size). Source: RULES.md R2–R4.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from nucleo import bounds
from nucleo.serializers import StrictSerializer
from nucleo.text import CleanSerializerCharField
from personajes.models import Roll


class RollSpecSerializer(StrictSerializer):
    """The roll to make with the post: the server rolls it; dice and outcomes are never sent.

    ``{"kind": "action", "trait": "fuerza", "threshold": 30}``,
    ``{"kind": "event", "probability": 26}``, ``{"kind": "expression", "expression": "2d6+1"}``.
    """

    kind = serializers.ChoiceField(
        choices=Roll.Kind.choices, help_text=gettext_lazy("action, event or expression.")
    )
    trait = serializers.SlugField(
        required=False,
        help_text=gettext_lazy("action: the trait's slug, e.g. fuerza (R5)."),
    )
    threshold = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=100,
        help_text=gettext_lazy("action: base threshold, % (0..100); omit for the master to set."),
    )
    probability = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=100,
        help_text=gettext_lazy("event: probability, % (0..100); omit for the master to set."),
    )
    expression = CleanSerializerCharField(
        required=False,
        max_length=200,
        help_text=gettext_lazy("expression: dice, e.g. 2d6+1 or 3d100<=40 (R4 limits)."),
    )
    character = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=bounds.ID_MAX,
        help_text=gettext_lazy("Id of the character who rolls; default: the post's character."),
    )
    reason = CleanSerializerCharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text=gettext_lazy("What the roll is for."),
    )
    hidden = serializers.BooleanField(
        required=False,
        default=False,
        help_text=gettext_lazy("Dice for the master's eyes only (the master only)."),
    )

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        kind = data["kind"]
        needed = {"action": "trait", "expression": "expression"}.get(kind)
        if needed and not data.get(needed):
            raise serializers.ValidationError({needed: [_("This field is required.")]})
        wrong = {
            "action": ("probability", "expression"),
            "event": ("trait", "threshold", "expression"),
            "expression": ("trait", "threshold", "probability"),
        }[kind]
        extra = {name: [_("Not used by this kind of roll.")] for name in wrong if name in data}
        if extra:
            raise serializers.ValidationError(extra)
        return data
