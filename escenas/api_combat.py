"""REST API of fights: a scene's fights, one fight with every roll, a player's declaration.

The scene's permissions (``escenas.access.access_scene``): whoever reads the scene reads its
fights, outsiders those of public scenes; a player declares only for its own living character,
the master for any human. Source: RULES.md R13, R19–R21.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from escenas import combat
from escenas.api import as_drf, scene_access_for_api
from escenas.combat_models import Combat, Combatant, CombatTurn, Declaration
from escenas.combat_selectors import access_combat
from mundo.api import PageNumberPagination, errors
from nucleo.serializers import StrictSerializer, many_data


class CombatantSerializer(serializers.ModelSerializer):
    """A combatant: a character, an NPC human or a zombie, and its state in the fight."""

    character = serializers.IntegerField(
        source="character_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("Id of the character, for a character."),
    )
    victim = serializers.IntegerField(
        source="victim_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("A zombie: the combatant it attacks."),
    )

    class Meta:
        model = Combatant
        fields = [
            "id", "side", "character", "name", "alive", "victim", "grabbing",
            "consecutive_bites", "infected", "amputated", "amputation_open", "weapon",
        ]  # fmt: skip
        read_only_fields = fields
        extra_kwargs = {
            "grabbing": {"help_text": gettext_lazy("A zombie: it holds its victim (R20).")},
            "consecutive_bites": {
                "help_text": gettext_lazy(
                    "A zombie: its bites on its victim on consecutive turns (3 kill, R20)."
                )
            },
            "infected": {
                "help_text": gettext_lazy(
                    "Bitten in this fight: infected (R13), unless an amputation cured it."
                )
            },
            "amputated": {
                "help_text": gettext_lazy("A limb was amputated after a bite in this fight (R13).")
            },
            "weapon": {
                "help_text": gettext_lazy(
                    "slug, label, kind, caliber, two_handed of its weapon; empty: unarmed."
                )
            },
        }


class TurnSerializer(serializers.ModelSerializer):
    """A resolved turn: the engine's record (every roll with its dice), the ledger's roll ids
    and the summary post."""

    post = serializers.IntegerField(
        source="post_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("Id of the narrated summary post with every die."),
    )
    log = serializers.JSONField(
        read_only=True,
        help_text=gettext_lazy(
            "events (each attack, escape, bite and grab with its dice), killed_zombies, dead, "
            "bitten (combatant ids)."
        ),
    )
    rolls = serializers.ListField(
        source="roll_ids",
        child=serializers.IntegerField(),
        read_only=True,
        help_text=gettext_lazy("Ids of the turn's rolls (GET /api/v1/rolls/{id}/)."),
    )

    class Meta:
        model = CombatTurn
        fields = ["number", "day", "resolved_at", "post", "rolls", "log"]
        read_only_fields = fields
        extra_kwargs = {
            "number": {"help_text": gettext_lazy("Turn number (1, 2, …).")},
            "day": {"help_text": gettext_lazy("In-game day of the turn.")},
            "resolved_at": {"help_text": gettext_lazy("When the master resolved it.")},
        }


class DeclarationSerializer(serializers.ModelSerializer):
    """A human's declared action for a turn."""

    combatant = serializers.IntegerField(
        source="combatant_id", read_only=True, help_text=gettext_lazy("Id of the combatant.")
    )
    target = serializers.IntegerField(
        source="target_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("Id of the target combatant (attack, escape)."),
    )

    class Meta:
        model = Declaration
        fields = ["turn", "combatant", "action", "target", "weapon", "escape_trait", "declared_at"]
        read_only_fields = fields
        extra_kwargs = {
            "turn": {"help_text": gettext_lazy("The turn it is for.")},
            "weapon": {
                "help_text": gettext_lazy(
                    "slug, label, kind, caliber, two_handed of the weapon (attack)."
                )
            },
            "escape_trait": {
                "help_text": gettext_lazy("agilidad or pelea (escape); empty: the better.")
            },
            "declared_at": {"help_text": gettext_lazy("When it was declared.")},
        }


class CombatSerializer(serializers.ModelSerializer):
    """A fight of a scene: its state, turn, combatants, this turn's declarations and every
    resolved turn."""

    scene = serializers.IntegerField(
        source="scene_id", read_only=True, help_text=gettext_lazy("Id of its scene.")
    )
    settlement = serializers.IntegerField(
        source="settlement_id",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("Id of the zombies' settlement: killed ones leave its count (R17)."),
    )
    combatants = CombatantSerializer(
        many=True, read_only=True, help_text=gettext_lazy("Humans and zombies, in order.")
    )
    declarations = serializers.SerializerMethodField(
        help_text=gettext_lazy("The declarations of the current turn.")
    )
    turns = TurnSerializer(
        many=True, read_only=True, help_text=gettext_lazy("Every resolved turn, in order.")
    )
    deadline = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy(
            "When this turn's declarations close (turn_started_at + turn_hours); null: no "
            "deadline. After it the master may resolve with the silent defending only."
        ),
    )

    class Meta:
        model = Combat
        fields = [
            "id", "scene", "kind", "state", "title", "turn", "settlement", "distance_m",
            "turn_hours", "turn_started_at", "deadline", "created_at", "finished_at",
            "combatants", "declarations", "turns",
        ]  # fmt: skip
        read_only_fields = fields
        extra_kwargs = {
            "turn": {"help_text": gettext_lazy("The turn being declared (1 at the start).")},
            "distance_m": {
                "help_text": gettext_lazy("Distance of the attacks (m), for firearms (R19).")
            },
            "created_at": {"help_text": gettext_lazy("When it was opened.")},
            "turn_hours": {
                "help_text": gettext_lazy("Real hours to declare each turn; null: no deadline.")
            },
            "turn_started_at": {"help_text": gettext_lazy("When the current turn began.")},
            "finished_at": {"help_text": gettext_lazy("When it ended, if it has.")},
        }

    @extend_schema(responses=DeclarationSerializer(many=True))
    def get_declarations(self, obj: Combat) -> list[dict[str, Any]]:
        current = [d for d in obj.declarations.all() if d.turn == obj.turn]
        return many_data(DeclarationSerializer(current, many=True))


def _combats(scene_id: int) -> Any:
    return (
        Combat.objects.filter(scene_id=scene_id)
        .prefetch_related("combatants", "declarations", "turns__turn_rolls")
        .order_by("id")
    )


def combat_read(pk: int) -> Combat:
    """One fight with what ``CombatSerializer`` reads prefetched (4 queries)."""
    return Combat.objects.prefetch_related("combatants", "declarations", "turns__turn_rolls").get(
        pk=pk
    )


@extend_schema(
    tags=["combat"],
    summary="A scene's fights",
    description="The scene's fights, oldest first, a page at a time, with their combatants, "
    "this turn's declarations and every resolved turn: whoever may read the scene.",
    responses={200: CombatSerializer(many=True), **errors(404)},
)
class SceneCombatListView(generics.GenericAPIView):
    """GET /api/v1/scenes/{id}/combats/ — paginated (``?page=``, ``?page_size=``): the page's
    fights with their combatants, declarations and turns prefetched (a fixed number of
    queries whatever the number of fights)."""

    queryset = Combat.objects.none()  # for the schema's path parameter

    serializer_class = CombatSerializer
    pagination_class = PageNumberPagination

    def get(self, request: Request, pk: int) -> Response:
        access = scene_access_for_api(pk, request.user)
        page = self.paginate_queryset(_combats(access.scene.pk))
        return self.get_paginated_response(CombatSerializer(page, many=True).data)


@extend_schema(
    tags=["combat"],
    summary="A fight",
    description="One fight with its turn, combatants (who holds whom, consecutive bites, "
    "infected, amputated, dead), declarations and every roll of every turn.",
    responses={200: CombatSerializer, **errors(404)},
)
class CombatDetailView(generics.GenericAPIView):
    """GET /api/v1/combats/{id}/."""

    queryset = Combat.objects.none()  # for the schema's path parameter

    serializer_class = CombatSerializer

    def get(self, request: Request, pk: int) -> Response:
        fight, _access = access_combat(request.user, pk)
        return Response(CombatSerializer(combat_read(fight.pk)).data)


class DeclareSerializer(StrictSerializer):
    """A declaration: who acts, what, against whom, with what."""

    combatant = serializers.IntegerField(help_text=gettext_lazy("Id of the acting combatant."))
    action = serializers.ChoiceField(choices=Declaration.Action.choices)
    target = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text=gettext_lazy("Id of the target combatant (attack, escape)."),
    )
    weapon = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=40,
        help_text=gettext_lazy("unarmed, item-<item type id> of the inventory, or empty."),
    )
    escape_trait = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=40,
        help_text=gettext_lazy("agilidad or pelea (escape); empty: the better."),
    )
    turn = serializers.IntegerField(
        required=False, help_text=gettext_lazy("The turn you declare for (refused once resolved).")
    )


@extend_schema(
    tags=["combat"],
    summary="Declare an action",
    description="A player declares its character's action for the current turn (the master, "
    "any human's); declaring again before the resolution replaces it. 400 after the turn's "
    "resolution, for a target that is not allowed (a grabbed character attacks only a zombie "
    "that holds it), or for someone else's character.",
    request=DeclareSerializer,
    responses={201: DeclarationSerializer, **errors(400, 401, 404)},
)
class DeclarationCreateView(generics.GenericAPIView):
    """POST /api/v1/combats/{id}/declarations/."""

    queryset = Combat.objects.none()  # for the schema's path parameter

    serializer_class = DeclareSerializer

    def post(self, request: Request, pk: int) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        fight, _access = access_combat(request.user, pk)
        form = DeclareSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        rows = {
            c.pk: c
            for c in Combatant.objects.filter(
                combat=fight, pk__in=[data["combatant"], data.get("target") or 0]
            )
        }
        try:
            actor = rows.get(data["combatant"])
            if actor is None:
                raise DjangoValidationError(
                    {"combatant": _("That combatant is not in this fight.")}
                )
            made = combat.declaration_make(
                combat=fight,
                combatant=actor,
                user=request.user,
                action=data["action"],
                target=rows.get(data.get("target") or 0),
                weapon=data.get("weapon", ""),
                escape_trait=data.get("escape_trait", ""),
                turn=data.get("turn"),
            )
        except DjangoValidationError as exc:
            raise as_drf(exc, {}) from None
        return Response(DeclarationSerializer(made).data, status=status.HTTP_201_CREATED)
