"""The master's world controls: move characters (with the R18 route check), assign shelters,
give and take items, move stock between places, record a settlement's tally, and undo.

Each control is a form on the world page (``mundo/world_master.html``, in its ``<details>``
section) that posts here. Views are thin: the master check (``access_campaign``), the form,
one service. Success comes back to the world page with a sentence saying exactly what changed
(and, for a route check, where its zombies wait); a refusal re-renders the form alone with its
message (400). They live in ``partida`` because they compose ``mundo`` and ``personajes``.
Source: RULES.md R7, R10, R15, R17, R18, R23.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from mundo import tally
from mundo.access import access_campaign
from mundo.models import Campaign, WorldRoll
from mundo.world_page import ACTION_SECTIONS, section_url, world_scope
from mundo.world_texts import world_roll_text
from nucleo.errors import ServiceError
from nucleo.forms import add_service_errors
from partida.world_forms import CONTROL_FORMS, window_forms
from personajes import inventory, master_supplies, places
from personajes.models import CharacterMove, Movement


def _names(moves: tuple[CharacterMove, ...]) -> str:
    return ", ".join(m.character.name for m in moves)


def _run(action: str, data: dict[str, Any], campaign: Campaign, user: Any) -> str:
    """Call the control's service; returns the confirmation sentence."""
    if action == "move":
        result = places.character_move(
            campaign_id=campaign.pk,
            user=user,
            character_ids=[c.pk for c in data["characters"]],
            settlement_id=data["settlement"].pk,
            location_id=data["location"].pk if data["location"] else None,
            make_home=data["make_home"],
            route_m=data["route_m"],
            route_mode=data["route_mode"],
        )
        where = data["location"].name if data["location"] else data["settlement"].name
        text = _("%(who)s moved to %(where)s.") % {"who": _names(result.moves), "where": where}
        if result.route_check is not None:
            text += " " + _("Route check: %(n)s zombies met (see “Zombies met on the way”).") % {
                "n": result.zombies_met
            }
        return text
    if action == "shelter":
        places.character_shelter_set(
            character=data["character"],
            user=user,
            shelter_id=data["shelter"].pk if data["shelter"] else None,
        )
        return _("%(who)s now lives in %(where)s.") % {
            "who": data["character"].name,
            "where": data["shelter"].name if data["shelter"] else _("the open"),
        }
    if action == "give":
        service = (
            inventory.inventory_add if data["direction"] == "give" else inventory.inventory_remove
        )
        service(
            character=data["character"],
            item_type=data["item_type"],
            quantity=data["quantity"],
            user=user,
        )
        words = {
            "n": data["quantity"],
            "item": data["item_type"].name,
            "who": data["character"].name,
        }
        if data["direction"] == "give":
            return _("Given: %(n)s × %(item)s to %(who)s.") % words
        return _("Taken: %(n)s × %(item)s from %(who)s.") % words
    if action == "transfer":
        return _transfer(data, campaign, user)
    roll = tally.tally_record(
        settlement=data["settlement"],
        user=user,
        destroyed=data["destroyed"],
        rescued=data["rescued"],
    )
    return world_roll_text(roll)


def _transfer(data: dict[str, Any], campaign: Campaign, user: Any) -> str:
    """Move stock between places, or stock a place (no source), or take it away (no
    destination); returns the confirmation sentence."""
    source, target = data["from_place"], data["to_place"]
    master_supplies.movement_place_transfer(
        campaign_id=campaign.pk,
        user=user,
        from_place_id=source.pk if source else None,
        to_place_id=target.pk if target else None,
        item_type_id=data["item_type"].pk,
        quantity=data["quantity"],
    )
    words = {
        "n": data["quantity"],
        "item": data["item_type"].name,
        "a": source.name if source else "",
        "b": target.name if target else "",
    }
    if source is None:
        return _("Stocked: %(n)s × %(item)s added to %(b)s.") % words
    if target is None:
        return _("Taken away: %(n)s × %(item)s from %(a)s.") % words
    return _("Moved: %(n)s × %(item)s from %(a)s to %(b)s.") % words


@login_required
@require_POST
def world_control(request: HttpRequest, slug: str, action: str) -> HttpResponse:
    """One of the master's world controls (``action``: move, shelter, give, transfer, tally).
    Only the campaign's master reaches it (404 otherwise)."""
    campaign = access_campaign(request.user, slug=slug, master=True)[0]
    form_class = CONTROL_FORMS.get(action)
    if form_class is None:
        raise Http404("No such control")
    form = form_class(request.POST, campaign=campaign, prefix=action)
    # The world page's settlement (``?en=``, kept in the form's URL): the re-rendered form
    # offers its rows, and the page comes back with it chosen.
    scope = world_scope(campaign, request.GET)
    if form.is_valid():
        try:
            text = _run(action, dict(form.cleaned_data), campaign, request.user)
        except ServiceError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, text)
            world = reverse("mundo:world", kwargs={"slug": slug})
            return redirect(section_url(world, scope, ACTION_SECTIONS[action]))
    window_forms({action: form}, scope)
    return render(
        request,
        "partida/world_control.html",
        {"campaign": campaign, "form": form, "action": action, "scope": scope},
        status=400,
    )


_UNDO = {
    "move": lambda c, u, pk: places.character_move_undo(campaign_id=c.pk, user=u, move_id=pk),
    "movement": lambda c, u, pk: master_supplies.movement_undo(
        campaign_id=c.pk, user=u, movement_id=pk
    ),
    "tally": lambda c, u, pk: tally.tally_undo(campaign_id=c.pk, user=u, roll_id=pk),
}

_UNDONE_IN = {"move": "characters", "movement": "supplies"}
"""The world page's section whose list shows the reverse row (a tally's is in the world
rolls, ``#history``, always shown)."""


@login_required
@require_POST
def world_undo(request: HttpRequest, slug: str, what: str, pk: int) -> HttpResponse:
    """Undo a character's move, a supply movement or a tally record: a reverse row, logged.
    A refusal (already undone, used up since) comes back as a message; either way the world
    page comes back with the list that shows the row open, its settlement still chosen
    (``?en=``, kept in the button's URL)."""
    campaign = access_campaign(request.user, slug=slug, master=True)[0]
    undo = _UNDO.get(what)
    if undo is None:
        raise Http404("Nothing to undo")
    try:
        undo(campaign, request.user, pk)
    except ServiceError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, _("Undone: the reverse is in the history."))
    return redirect(_back_to_world(campaign, request, _UNDONE_IN.get(what)))


def _back_to_world(campaign: Campaign, request: HttpRequest, section: str | None) -> str:
    """The world page with the settlement and filter of ``request``'s query still chosen and
    ``section`` open (at its anchor), or at the world rolls (``#history``) without one."""
    scope = world_scope(campaign, request.GET)
    world = reverse("mundo:world", kwargs={"slug": campaign.slug})
    if section is not None:
        return section_url(world, scope, section)
    return f"{world}?{scope.query}#history" if scope.query else f"{world}#history"


@login_required
@require_POST
def route_outcome(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master says what became of a route check's zombies: a fight or narrated. The
    world page comes back with the characters' section open."""
    campaign = access_campaign(request.user, slug=slug, master=True)[0]
    try:
        places.move_outcome_set(
            campaign_id=campaign.pk,
            user=request.user,
            route_check_id=pk,
            outcome=request.POST.get("outcome", ""),
        )
    except ServiceError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, _("Saved: the zombies of that route are dealt with."))
    return redirect(_back_to_world(campaign, request, "characters"))


HISTORY_PAGE = 50
"""Rows per page of the world's full histories."""


@login_required
def world_history(request: HttpRequest, slug: str, what: str) -> HttpResponse:
    """Everything of one history, paginated (``?page=``): the places' supply ``movements``, the
    characters' ``moves`` or the world ``rolls``. The world page shows the latest few of each."""
    campaign = access_campaign(request.user, slug=slug, master=True)[0]
    if what == "movements":
        rows: Any = Movement.objects.filter(campaign=campaign).select_related(
            "item_type",
            "from_character",
            "to_character",
            "from_place",
            "to_place",
            "made_by",
            "reversal",
        )
    elif what == "moves":
        rows = CharacterMove.objects.filter(campaign=campaign).select_related(
            "character",
            "from_settlement",
            "from_location",
            "to_settlement",
            "to_location",
            "from_shelter",
            "to_shelter",
            "route_check",
            "reversal",
        )
    elif what == "rolls":
        rows = WorldRoll.objects.filter(campaign=campaign).select_related(
            "settlement", "location", "made_by"
        )
    else:
        raise Http404("No such history")
    page = Paginator(rows.order_by("-created_at", "-id"), HISTORY_PAGE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "partida/world_history.html",
        {"campaign": campaign, "what": what, "page": page, "rows": list(page.object_list)},
    )
