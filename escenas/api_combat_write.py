"""REST API of the master's and the healers' combat writes: open a fight, add combatants,
resolve a turn, try the amputation after a bite, try the Medicina cure.

Who may: the fight is found with its scene's permissions (outsiders of a private scene: 404);
opening, adding and resolving are the master's (a player: 403); a player amputates or cures
only with its own character as the healer (else 400 on ``healer``). Every write is a service of
``escenas.combat``, ``escenas.combat_resolve`` or ``escenas.medicine``; their refusals are 400
with the request's field names. Source: RULES.md R12, R13, R19–R21.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from escenas import combat, combat_resolve, medicine
from escenas.access import SceneAccess
from escenas.api import as_drf, scene_access_for_api
from escenas.api_combat import (
    CombatantSerializer,
    CombatSerializer,
    SceneCombatListView,
    TurnSerializer,
    combat_read,
)
from escenas.combat_models import Combat, Combatant, MedicineCure
from escenas.combat_selectors import access_combat
from mundo.api import errors
from mundo.models import Settlement
from nucleo.errors import Forbidden, ServiceError
from nucleo.serializers import StrictSerializer
from personajes.models import Character


def _require_auth(request: Request) -> User:
    """The signed-in user of ``request``; raises ``NotAuthenticated`` (401) for an anonymous
    client."""
    if not request.user.is_authenticated:
        raise NotAuthenticated()
    return request.user


def _require_master(access: SceneAccess) -> None:
    """A reader of the scene who is not the master: 403 (outsiders never get here: 404)."""
    if not access.is_master:
        raise Forbidden(_("Only the campaign's master can do that."))


def _combatant(fight: Combat, pk: int | None, field: str) -> Combatant | None:
    """A combatant of this fight by id (None for None). Raises ServiceError({field: …})."""
    if pk is None:
        return None
    found = Combatant.objects.filter(combat=fight, pk=pk).first()
    if found is None:
        raise ServiceError({field: _("That combatant is not in this fight.")})
    return found


class AimSerializer(StrictSerializer):
    """A zombie sent for a human (the master's choice; default: automatic)."""

    zombie = serializers.IntegerField(help_text=gettext_lazy("Id of a standing zombie."))
    victim = serializers.IntegerField(help_text=gettext_lazy("Id of a living human it goes for."))


def _aims(fight: Combat, rows: list[dict[str, int]]) -> list[tuple[Combatant, Combatant]]:
    out = []
    for row in rows:
        zombie = _combatant(fight, row["zombie"], "aims")
        victim = _combatant(fight, row["victim"], "aims")
        assert zombie is not None and victim is not None
        out.append((zombie, victim))
    return out


# --- opening a fight -------------------------------------------------------------------------


class CombatOpenSerializer(StrictSerializer):
    """A new fight in a story scene."""

    kind = serializers.ChoiceField(choices=Combat.Kind.choices)
    title = serializers.CharField(required=False, allow_blank=True, max_length=120)
    characters = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        max_length=200,
        help_text=gettext_lazy(
            "Ids of the scene's characters who fight; default: every living one."
        ),
    )
    zombies = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=combat.MAX_ZOMBIES,
        help_text=gettext_lazy("How many zombies (fights against zombies)."),
    )
    victim = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text=gettext_lazy(
            "Id of the character the zombies go for; default: spread over the humans."
        ),
    )
    settlement = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text=gettext_lazy("Id of the zombies' settlement: killed ones leave its count (R17)."),
    )
    distance_m = serializers.FloatField(
        required=False, min_value=0, help_text=gettext_lazy("Distance of the attacks (m).")
    )
    turn_hours = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=combat.MAX_TURN_HOURS,
        help_text=gettext_lazy("Real hours to declare each turn; empty: no deadline."),
    )


def _open(access: SceneAccess, user: Any, data: dict[str, Any]) -> Combat:
    scene = access.scene
    present = {c.pk: c for c in scene.participants.all()}
    wanted = data.get("characters")
    if wanted is None:
        chosen = [c for c in present.values() if c.is_alive]
    else:
        if any(pk not in present for pk in wanted):
            raise ServiceError({"characters": _("Choose characters of this scene.")})
        chosen = [present[pk] for pk in dict.fromkeys(wanted)]
    settlement = None
    if data.get("settlement") is not None:
        settlement = Settlement.objects.filter(
            campaign=scene.campaign, pk=data["settlement"]
        ).first()
        if settlement is None:
            raise ServiceError({"settlement": _("That settlement is not in this campaign.")})
    fight = combat.combat_open(
        scene=scene,
        master=user,
        kind=data["kind"],
        title=data.get("title", ""),
        settlement=settlement,
        distance_m=float(data.get("distance_m") or 0),
        characters=chosen,
        turn_hours=data.get("turn_hours"),
    )
    if data.get("zombies"):
        victim = None
        if data.get("victim") is not None:
            victim = fight.combatants.filter(character_id=data["victim"]).first()
            if victim is None:
                raise ServiceError({"victim": _("Choose a character who fights.")})
        combat.combatants_add(combat=fight, master=user, zombies=data["zombies"], victim=victim)
    return fight


@extend_schema(
    tags=["combat"],
    summary="Open a fight",
    description="The master opens a fight in a story scene with characters of the scene "
    "(default: every living one) and, against zombies, any number of zombies (optionally all "
    "going for one character). 403 for a player; 400 for a scene that is not a story, a "
    "character not in the scene, a settlement of another campaign, a bad deadline.",
    request=CombatOpenSerializer,
    responses={201: CombatSerializer, **errors(400, 403, 404)},
)
class SceneCombatsView(SceneCombatListView):
    """GET (``SceneCombatListView``) and POST /api/v1/scenes/{id}/combats/."""

    def post(self, request: Request, pk: int) -> Response:
        _require_auth(request)
        access = scene_access_for_api(pk, request.user)
        _require_master(access)
        form = CombatOpenSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            with transaction.atomic():  # the fight and its zombies, or nothing
                fight = _open(access, request.user, dict(form.validated_data))
        except DjangoValidationError as exc:
            raise as_drf(exc, {}) from None
        return Response(
            CombatSerializer(combat_read(fight.pk)).data, status=status.HTTP_201_CREATED
        )


# --- adding combatants -----------------------------------------------------------------------


class CombatantsAddSerializer(StrictSerializer):
    """Combatants for an open fight."""

    characters = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        max_length=200,
        help_text=gettext_lazy("Ids of characters of the scene."),
    )
    zombies = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=combat.MAX_ZOMBIES,
        help_text=gettext_lazy("How many zombies to add (fights against zombies)."),
    )
    victim = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text=gettext_lazy("Id of the human combatant the new zombies go for."),
    )
    npc_name = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=80,
        help_text=gettext_lazy("Name of an NPC human to add; empty: none."),
    )
    npc_traits = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=20),
        required=False,
        help_text=gettext_lazy("The NPC's traits: slug → points (0..20)."),
    )
    npc_weapon = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=40,
        help_text=gettext_lazy("Slug of a weapon of the campaign's combat table; empty: unarmed."),
    )


@extend_schema(
    tags=["combat"],
    summary="Add combatants",
    description="The master adds characters of the scene, zombies (optionally going for one "
    "human) and/or one NPC human to an open fight. Returns the new combatants. 403 for a "
    "player; 400 when the fight is over or for a bad field.",
    request=CombatantsAddSerializer,
    responses={201: CombatantSerializer(many=True), **errors(400, 403, 404)},
)
class CombatantsAddView(generics.GenericAPIView):
    """POST /api/v1/combats/{id}/combatants/."""

    queryset = Combat.objects.none()  # for the schema's path parameter
    serializer_class = CombatantsAddSerializer

    def post(self, request: Request, pk: int) -> Response:
        user = _require_auth(request)
        fight, access = access_combat(user, pk)
        _require_master(access)
        form = CombatantsAddSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            present = {c.pk: c for c in access.scene.participants.all()}
            wanted = data.get("characters", [])
            if any(cid not in present for cid in wanted):
                raise ServiceError({"characters": _("Choose characters of this scene.")})
            made = combat.combatants_add(
                combat=fight,
                master=user,
                characters=[present[cid] for cid in wanted],
                zombies=data.get("zombies", 0),
                npc_name=data.get("npc_name", ""),
                npc_traits=data.get("npc_traits") or {},
                npc_weapon=data.get("npc_weapon", ""),
                victim=_combatant(fight, data.get("victim"), "victim"),
            )
        except DjangoValidationError as exc:
            raise as_drf(exc, {}) from None
        rows = Combatant.objects.filter(pk__in=[c.pk for c in made]).order_by("position", "pk")
        return Response(CombatantSerializer(rows, many=True).data, status=status.HTTP_201_CREATED)


# --- resolving a turn ------------------------------------------------------------------------


class TurnResolveSerializer(StrictSerializer):
    """The turn the master resolves, and the zombies it sends first."""

    turn = serializers.IntegerField(
        required=False,
        help_text=gettext_lazy("The turn you resolve (400 when it is already resolved)."),
    )
    aims = AimSerializer(
        many=True,
        required=False,
        help_text=gettext_lazy("Zombies sent for chosen humans before the turn (optional)."),
    )


@extend_schema(
    tags=["combat"],
    summary="Resolve a turn",
    description="The master resolves the current turn: every roll by the server, one summary "
    "post. With a deadline, before it passes only once every living character has declared; "
    "after it, who did not declare defends only. 403 for a player; 400 for a turn already "
    "resolved (nothing is rolled twice), a finished fight, players still to declare before the "
    "deadline, or a bad aim.",
    request=TurnResolveSerializer,
    responses={201: TurnSerializer, **errors(400, 403, 404)},
)
class TurnResolveView(generics.GenericAPIView):
    """POST /api/v1/combats/{id}/turns/."""

    queryset = Combat.objects.none()  # for the schema's path parameter
    serializer_class = TurnResolveSerializer

    def post(self, request: Request, pk: int) -> Response:
        user = _require_auth(request)
        fight, access = access_combat(user, pk)
        _require_master(access)
        form = TurnResolveSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            turn = combat_resolve.turn_resolve(
                combat=fight,
                master=user,
                turn=data.get("turn"),
                aims=_aims(fight, data.get("aims", [])),
            )
        except DjangoValidationError as exc:
            raise as_drf(exc, {}) from None
        return Response(TurnSerializer(turn).data, status=status.HTTP_201_CREATED)


# --- Medicina: the amputation and the cure --------------------------------------------------


class MedicineResultSerializer(serializers.Serializer):
    """The outcome of a Medicina roll (R12, R13)."""

    roll = serializers.IntegerField(
        help_text=gettext_lazy("Id of the roll (GET /api/v1/rolls/{id}/).")
    )
    success = serializers.BooleanField(
        help_text=gettext_lazy("Amputation: the infection is gone; cure: the disease ends.")
    )
    dice = serializers.ListField(
        child=serializers.IntegerField(), help_text=gettext_lazy("The d100 faces rolled.")
    )
    threshold = serializers.IntegerField(help_text=gettext_lazy("Effective threshold (%)."))


def _result(roll: Any) -> dict[str, Any]:
    return {
        "roll": roll.pk,
        "success": bool(roll.success),
        "dice": list(roll.dice),
        "threshold": roll.effective_threshold,
    }


class AmputationSerializer(StrictSerializer):
    """The one amputation try after a bite."""

    patient = serializers.IntegerField(help_text=gettext_lazy("Id of the bitten combatant."))
    healer = serializers.IntegerField(
        help_text=gettext_lazy("Id of the character present who tries (yours, unless master).")
    )


@extend_schema(
    tags=["combat"],
    summary="Try the amputation",
    description="The one immediate amputation try after a bite (R13): a character present "
    "rolls Medicina; success removes the infection and records the amputation on the sheet. "
    "400 when there is no try open (already made, or the next turn resolved), or for a healer "
    "not present, not yours (unless master) or without Medicina.",
    request=AmputationSerializer,
    responses={201: MedicineResultSerializer, **errors(400, 404)},
)
class AmputationView(generics.GenericAPIView):
    """POST /api/v1/combats/{id}/amputations/."""

    queryset = Combat.objects.none()  # for the schema's path parameter
    serializer_class = AmputationSerializer

    def post(self, request: Request, pk: int) -> Response:
        user = _require_auth(request)
        fight, _access = access_combat(user, pk)
        form = AmputationSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            patient = _combatant(fight, data["patient"], "patient")
            healer = Character.objects.filter(campaign=fight.campaign, pk=data["healer"]).first()
            if healer is None:
                raise ServiceError({"healer": _("Choose a healer present in the scene.")})
            assert patient is not None
            roll = medicine.amputation_try(combat=fight, patient=patient, healer=healer, user=user)
        except DjangoValidationError as exc:
            raise as_drf(exc, {}) from None
        return Response(_result(roll), status=status.HTTP_201_CREATED)


class CureSerializer(StrictSerializer):
    """A Medicina cure try on a sick character of the scene."""

    patient = serializers.IntegerField(help_text=gettext_lazy("Id of the sick character."))
    healer = serializers.IntegerField(
        help_text=gettext_lazy("Id of the character who tries (yours, unless master).")
    )


@extend_schema(
    tags=["combat"],
    summary="Try the Medicina cure",
    description="A character of the scene tries to cure a sick one (R12): once per in-game day "
    "per patient; the roll is posted in the scene. 400 when the patient is not sick or was "
    "tried today, or for a healer not present, not yours (unless master) or without Medicina.",
    request=CureSerializer,
    responses={201: MedicineResultSerializer, **errors(400, 404)},
)
class SceneCureView(generics.GenericAPIView):
    """POST /api/v1/scenes/{id}/cures/."""

    queryset = MedicineCure.objects.none()  # for the schema's path parameter
    serializer_class = CureSerializer

    def post(self, request: Request, pk: int) -> Response:
        user = _require_auth(request)
        access = scene_access_for_api(pk, user)
        form = CureSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        present = {c.pk: c for c in access.scene.participants.all()}
        try:
            patient, healer = present.get(data["patient"]), present.get(data["healer"])
            if patient is None:
                raise ServiceError({"patient": _("Choose a patient present in the scene.")})
            if healer is None:
                raise ServiceError({"healer": _("Choose a healer present in the scene.")})
            cure = medicine.medicine_cure(
                patient=patient, healer=healer, user=user, scene=access.scene
            )
        except DjangoValidationError as exc:
            raise as_drf(exc, {}) from None
        return Response(_result(cure.roll), status=status.HTTP_201_CREATED)
