"""The sheet's supplies: the movement forms (give, the shelter's stash, a shop) and their
history. Thin: ``personajes.movements`` checks and writes; a refusal comes back as a message
on the sheet."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from mundo.models import Location
from nucleo.errors import Forbidden, ServiceError
from personajes import movements
from personajes.access import CharacterAccess, access_character
from personajes.models import Character, ShelterStash


def supplies_context(access: CharacterAccess) -> dict[str, Any]:
    """The sheet's supplies section: history, and for whoever may move (the player of an
    approved character, the master) the choices of the forms. Five queries at most."""
    character = access.character
    context: dict[str, Any] = {"movements": movements.character_movements(character)}
    if character.status != Character.Status.APPROVED or not (access.is_owner or access.is_master):
        return context
    neighbours = (
        Character.objects.filter(
            campaign_id=character.campaign_id,
            status=Character.Status.APPROVED,
            settlement_id=character.settlement_id,
        )
        .exclude(pk=character.pk)
        .order_by("name")
        if character.settlement_id
        else Character.objects.none()
    )
    stash = (
        ShelterStash.objects.filter(shelter_id=character.shelter_id, quantity__gt=0)
        .select_related("item_type")
        .order_by("item_type__name")
        if character.shelter_id
        else ShelterStash.objects.none()
    )
    shops = (
        Location.objects.filter(
            settlement_id=character.settlement_id,
            kind=Location.Kind.SHOP,
            discovered_day__isnull=False,
        ).order_by("name")
        if character.settlement_id
        else Location.objects.none()
    )
    searched = (
        Location.objects.filter(
            settlement_id=character.settlement_id,
            searched_day__isnull=False,
            kind__in=(Location.Kind.DWELLING, Location.Kind.SHOP),
        ).order_by("name")
        if character.settlement_id
        else Location.objects.none()
    )
    context |= {
        "can_move": True,
        "searched": list(searched),
        "neighbours": list(neighbours),
        "stash": list(stash),
        "shops": list(shops),
    }
    return context


ACTIONS = ("give", "leave", "take", "shop", "find")


@login_required
@require_POST
def character_supplies(request: HttpRequest, pk: int) -> HttpResponse:
    """One movement from the sheet's forms (``action``: give, leave, take, shop, find)."""
    access = access_character(request.user, pk)
    if not (access.is_owner or access.is_master):
        raise Forbidden("Only the character's player or the master moves its supplies.")
    action = request.POST.get("action", "")
    if action not in ACTIONS:
        raise Http404("No such action")
    data = request.POST
    common: dict[str, Any] = {
        "character": access.character,
        "user": request.user,
        "item_type_id": data.get("item_type") or None,
        "quantity": data.get("quantity", ""),
    }
    try:
        if action == "find":
            movements.movement_find_take(
                character=access.character, user=request.user, place_id=data.get("place") or None
            )
        elif action == "give":
            movements.movement_give(**common, to_character_id=data.get("to_character") or None)
        elif action == "shop":
            movements.movement_shop_take(**common, place_id=data.get("place") or None)
        else:
            movements.movement_stash(**common, leave=action == "leave")
    except ServiceError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, _("Done: the movement is in the history."))
    return redirect(access.character.get_absolute_url() + "#supplies")
