"""What a new post sends through the API: its rolls (one ``roll`` or a list, ``rolls``) and the
rest of the post (kept apart from ``escenas.api`` so that module stays a readable size).
Source: RULES.md R2–R4.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from escenas.models import Post
from escenas.post_rolls import ROLLS_PER_POST_MAX
from escenas.services import KEY_PATTERN
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


class PostCreateSerializer(StrictSerializer):
    """A new post: text and/or one roll; who speaks (``voice``; ``as`` is its old name, still
    accepted); an idempotency key. The ``roll`` object uses the roll vocabulary of
    ``personajes.rolls`` (kind, character, trait, threshold, probability, expression, reason,
    hidden), as the post form and the services do."""

    body = CleanSerializerCharField(
        multiline=True,
        required=False,
        allow_blank=True,
        max_length=20_000,
        trim_whitespace=False,
        help_text=gettext_lazy("Markdown, at most 20 000 characters; may be empty with a roll."),
    )
    character = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=bounds.ID_MAX,
        help_text=gettext_lazy("voice = character: the id of my character in the scene."),
    )
    npc_name = CleanSerializerCharField(
        required=False,
        allow_blank=True,
        max_length=80,
        help_text=gettext_lazy("voice = npc (the master): the name of who speaks."),
    )
    npc = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=bounds.ID_MAX,
        help_text=gettext_lazy(
            "voice = npc (the master): the id of one of the campaign's NPCs (its name and "
            "portrait), instead of npc_name."
        ),
    )
    note_to_master = CleanSerializerCharField(
        multiline=True,
        required=False,
        allow_blank=True,
        max_length=4_000,
        help_text=gettext_lazy("A note only the master reads (Markdown)."),
    )
    roll = RollSpecSerializer(required=False, allow_null=True)
    rolls: serializers.ListSerializer[Any] = serializers.ListSerializer(
        child=RollSpecSerializer(),
        required=False,
        max_length=ROLLS_PER_POST_MAX,
        help_text=gettext_lazy(
            "Several rolls, made in this order (at most 5); errors are under their index, e.g. "
            "rolls[1].expression. Instead of roll (one roll), not with it."
        ),
    )
    whisper = serializers.BooleanField(
        required=False,
        default=False,
        help_text=gettext_lazy(
            "A whisper: only its recipients (whisper_to), the author and the master read it; "
            "a whisper to nobody is for the master's eyes only."
        ),
    )
    whisper_to = serializers.ListField(
        child=serializers.CharField(max_length=150),
        required=False,
        max_length=50,
        help_text=gettext_lazy(
            "Usernames of the members who read the whisper (members who read the scene)."
        ),
    )
    fulfil = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=bounds.ID_MAX),
        required=False,
        max_length=20,
        help_text=gettext_lazy(
            "Ids of my pending roll requests in this scene (``/roll-requests/``) to answer "
            "with this post: each is rolled now with the request's trait, threshold and reason."
        ),
    )
    reply_to = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=bounds.ID_MAX,
        help_text=gettext_lazy(
            "Id of the post this one answers: a post of the same scene that I may see (else "
            "400 under reply_to). Quote it in ``body`` with ``> …`` if you like."
        ),
    )
    idempotency_key = serializers.RegexField(
        rf"^{KEY_PATTERN.pattern}$",  # the service's rule: no ":" (the diary keys)
        required=False,
        help_text=gettext_lazy(
            "8–64 characters of letters, digits and _.- (a uuid4 fits); or the "
            "Idempotency-Key header. A retry with the same key returns the same post (200)."
        ),
    )

    voice = serializers.ChoiceField(
        choices=Post.Voice.choices,
        required=False,
        help_text=gettext_lazy(
            "Who speaks: character, player (default), narrator or npc (the last two: the "
            "master only); the post's own ``voice``."
        ),
    )

    def get_fields(self) -> dict[str, serializers.Field]:
        # "as" is a Python keyword: the field is added here under its JSON name.
        fields = super().get_fields()
        help_text = gettext_lazy("Deprecated: the same as voice.")
        fields["as"] = serializers.ChoiceField(
            Post.Voice.choices, required=False, help_text=help_text
        )
        return fields

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        alias = data.pop("as", None)
        if alias is not None:
            if data.get("voice", alias) != alias:
                raise serializers.ValidationError(
                    {"as": [_("Send voice or as (the same), not both with different values.")]}
                )
            data["voice"] = alias
        if data.get("roll") and data.get("rolls"):
            raise serializers.ValidationError({"rolls": [_("Send roll or rolls, not both.")]})
        return data
