"""Pages of characters: the sheet builder, the sheet, the master's review and edit, action rolls
from the sheet, and the lists (mine, and the master's of a campaign).

Views stay thin: they fetch through ``personajes.access``/``mundo.access``, call one service,
and put a ``ServiceError``'s messages back on the form next to the field they are about. A
``NotFound`` from the fetch is the 404 page and ``Forbidden`` the 403 page
(``partida.middleware.AccessErrorMiddleware``). Who may do what:

- builder (create): members of the campaign (master or player); others 403, or 404 when they
  may not even read the campaign.
- builder (edit): the owner, while the sheet is a draft; 403 otherwise (404 when the sheet is
  not visible to them at all, see ``access.access_character``).
- sheet: whoever ``access_character`` lets see it; the private parts (condition,
  inventory, history, rolls) only when its ``private`` says so.
- master pages (review, master edit, the campaign's list): the campaign's master; everyone else
  404, as ``access_campaign(..., master=True)`` does: master pages do not reveal themselves.
- roll: the owner or the master; others who can see the sheet 403.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.formats import localize
from django.utils.translation import gettext as _
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_safe,
)
from django.views.decorators.vary import vary_on_headers

from mundo.access import access_campaign
from mundo.models import Campaign
from nucleo.errors import ServiceError
from nucleo.urls import url_maker
from nucleo.users import AuthenticatedHttpRequest, HtmxHttpRequest
from personajes import forms, rolls, selectors, sheets
from personajes.access import CharacterAccess, access_character
from personajes.models import Character, Roll, SheetChange
from personajes.movement_views import supplies_context
from personajes.portraits import portrait_response
from personajes.traits import campaign_traits
from reglas.core import breakdown_total
from reglas.dice import action_chance

RECENT_ROLLS = 10
HISTORY_ROWS = 50

CHARACTER_LIST_SIZE = 50
"""Characters per page of the master's character list."""


def _recent_changes(character: Character) -> list[SheetChange]:
    return list(selectors.character_history(character)[:HISTORY_ROWS])


# --- the sheet builder (R5) ---------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def character_create(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """A new character in the campaign: the sheet builder (members only)."""
    campaign, _viewer = access_campaign(request.user, slug=slug, member=True)
    return _sheet_builder(request, campaign=campaign, character=None)


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def sheet_edit(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The owner's draft in the sheet builder. Submitted or approved sheets: 403 (R5)."""
    character = access_character(request.user, pk).character
    if character.player_id != request.user.pk or character.status != Character.Status.DRAFT:
        raise PermissionDenied
    return _sheet_builder(request, campaign=character.campaign, character=character)


def _sheet_builder(
    request: HtmxHttpRequest, *, campaign: Campaign, character: Character | None
) -> HttpResponse:
    """GET: the form. htmx POST: the points fragment, nothing saved. POST: save or re-render."""
    traits = campaign_traits(campaign=campaign)
    rules = campaign.rules
    initial: dict[str, Any] = {}
    if character is not None:
        initial = {"name": character.name, "concept": character.concept}
        for row in selectors.sheet_rows(character):
            initial[forms.trait_field_name(row.trait.slug)] = row.value
    form = forms.SheetForm(
        request.POST if request.method == "POST" else None,
        request.FILES if request.method == "POST" else None,
        traits=traits,
        trait_cap=rules.trait_cap,
        htmx_url=request.path,
        initial=initial,
    )
    action = request.POST.get("action", "draft")
    if request.method == "POST":
        valid = form.is_valid()
        if request.htmx:
            context = _points_context(form, rules.creation_points) | {"oob": True}
            return render(request, "personajes/sheet_form.html#points", context)
        if valid and action != "check":
            saved = _save_sheet(
                form, campaign=campaign, character=character, user=request.user, action=action
            )
            if saved is not None:
                if saved.status == Character.Status.SUBMITTED:
                    messages.success(request, _("Sheet sent: the master will review it."))
                else:
                    messages.success(request, _("Draft saved."))
                return redirect(saved)
    context = _points_context(form, rules.creation_points) | {
        "campaign": campaign,
        "character": character,
        "form": form,
        "trait_cap": rules.trait_cap,
    }
    return render(request, "personajes/sheet_form.html", context)


def _save_sheet(
    form: forms.SheetForm,
    *,
    campaign: Campaign,
    character: Character | None,
    user: Any,
    action: str,
) -> Character | None:
    """Create or update through the services; on ServiceError put it on the form, return None.

    A new character is created and its sheet saved in one transaction, so a refused sheet
    leaves no half-made character behind.
    """
    data = form.cleaned_data
    try:
        with transaction.atomic():
            if character is None:
                character = sheets.character_create(
                    campaign=campaign, player=user, name=data["name"], concept=data["concept"]
                )
            return sheets.sheet_save(
                character=character,
                user=user,
                allocation=form.allocation(),
                submit=action == "submit",
                name=data["name"],
                concept=data["concept"],
                portrait=data.get("portrait") or None,
            )
    except ServiceError as exc:
        forms.add_service_errors(form, exc)
        return None


def _points_context(form: forms.SheetForm, creation_points: int) -> dict[str, Any]:
    """Rows (trait, field, value, 30 % chance) and the counter: points left of the total."""
    rows = form.trait_rows()
    total = sum(row.value or 0 for row in rows)
    remaining = creation_points - total
    return {
        "rows": rows,
        "total": total,
        "remaining": remaining,
        "remaining_over": -remaining,
        "creation_points": creation_points,
    }


# --- the sheet --------------------------------------------------------------------------------


@require_safe
def character_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A character's sheet; its private parts for the owner and the master."""
    access = access_character(request.user, pk)
    return render(request, "personajes/character_detail.html", _detail_context(access))


@require_GET
def character_portrait(
    request: HttpRequest, pk: int, thumb: bool | str = False
) -> HttpResponseBase:
    """The character's portrait (``thumb``: its square thumbnail, ``"2x"`` the one for retina
    screens), for whoever may see the character (``access_character``: a private campaign's
    portraits are a 404 to outsiders, like the sheet). Cached by the browser only
    (``private``), for an hour (the pages add ``?v=`` of the file, so a new portrait shows at
    once)."""
    character = access_character(request.user, pk).character
    return portrait_response(character, thumb)


def _detail_context(
    access: CharacterAccess, review_form: forms.ReviewForm | None = None
) -> dict[str, Any]:
    character = access.character
    is_master, is_owner, private = access.is_master, access.is_owner, access.private
    context: dict[str, Any] = {
        "character": character,
        "campaign": character.campaign,
        "is_master": is_master,
        "is_owner": is_owner,
        "private": private,
        "can_edit": is_owner and character.status == Character.Status.DRAFT,
        "can_roll": (is_owner or is_master) and character.is_alive,
        "rows": selectors.sheet_rows(character),
        "review_form": review_form or forms.ReviewForm(),
    }
    if private:
        penalty = selectors.penalty_breakdown(character)
        dirty_penalty = selectors.penalty_breakdown(character, dirt_sensitive=True)
        disease_points, disease_breakdown = selectors.disease_modifier_breakdown(character)
        context |= {
            "penalty": penalty,
            "penalty_total": breakdown_total(penalty),
            "dirt_extra": breakdown_total(dirty_penalty) - breakdown_total(penalty),
            "disease_points": disease_points,
            "disease_breakdown": disease_breakdown,
            "inventory": list(selectors.character_inventory(character)),
            "rolls": list(selectors.character_rolls(character, access.viewer.user)[:RECENT_ROLLS]),
            "changes": _recent_changes(character),
            **supplies_context(access),
        }
        if character.is_alive and character.disease_day > 0:  # the Medicina cure (R12)
            healers = Character.objects.filter(
                campaign=character.campaign, status__in=Character.LIVING_STATUSES
            )
            if not is_master:
                healers = healers.filter(player_id=access.viewer.user.pk)
            context["healers"] = list(healers.order_by("name"))
    return context


@login_required
@require_http_methods(["GET", "POST"])
def character_review(request: HttpRequest, pk: int) -> HttpResponse:
    """The master approves a submitted sheet or returns it with a comment (R5). A GET (the
    "Review" link of the pending list, «Mi mesa» and the sheet e-mail) goes to the sheet's
    review form."""
    access = access_character(request.user, pk, master=True)
    character = access.character
    if request.method == "GET":
        return redirect(character.get_absolute_url() + "#review-title")
    form = forms.ReviewForm(request.POST)
    if form.is_valid():
        approve = form.cleaned_data["decision"] == forms.ReviewForm.APPROVE
        try:
            sheets.sheet_review(
                character=character,
                master=request.user,
                approve=approve,
                comment=form.cleaned_data["comment"],
            )
        except ServiceError as exc:
            forms.add_service_errors(form, exc)
        else:
            if approve:
                messages.success(request, _("Sheet approved."))
            else:
                messages.success(request, _("Sheet returned to the player with your comment."))
            return redirect(character)
    return render(request, "personajes/character_detail.html", _detail_context(access, form))


@login_required
@require_http_methods(["GET", "POST"])
def character_master_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """The master edits any trait and the condition state; every change is logged (R5)."""
    character = access_character(request.user, pk, master=True).character
    rows = selectors.sheet_rows(character)
    form = forms.MasterSheetForm(
        request.POST if request.method == "POST" else None,
        instance=character,
        traits=[row.trait for row in rows],
        values={row.trait.slug: row.value for row in rows},
    )
    if request.method == "POST" and form.is_valid():
        try:
            changes = sheets.sheet_master_edit(
                character=character,
                master=request.user,
                allocation=form.allocation(),
                condition=form.condition(),
                reason=form.cleaned_data["reason"],
            )
        except ServiceError as exc:
            forms.add_service_errors(form, exc)
        else:
            if changes:
                # No ngettext: a count after a colon reads right in every language.
                messages.success(
                    request, _("Changes saved and logged: %(count)d.") % {"count": len(changes)}
                )
            else:
                messages.info(request, _("Nothing changed."))
            return redirect("personajes:master_edit", pk=character.pk)
    return render(
        request,
        "personajes/master_edit.html",
        {
            "character": character,
            "campaign": character.campaign,
            "form": form,
            "changes": _recent_changes(character),
        },
    )


# --- action rolls (R3, R9) ----------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def character_roll(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """An action roll from the sheet, by the owner or the master.

    GET: the form with the exact chance (``?rasgo=<slug>`` preselects a trait, ``?tirada=<id>``
    shows a roll just made). htmx POST: the chance fragment, nothing rolled. POST: roll through
    ``rolls.roll_action_for_character`` and redirect to the stored roll.
    """
    access = access_character(request.user, pk, roll=True)
    character, master = access.character, access.is_master
    rows = selectors.sheet_rows(character)
    traits = [row.trait for row in rows]
    values = {row.trait.slug: row.value for row in rows}
    data = None
    if request.method == "POST":
        data = request.POST.copy()
        if request.htmx and request.htmx.trigger == "id_trait":
            # A new trait resets the dirt box to that trait's own flag (R8).
            chosen = next((r for r in rows if r.trait.slug == data.get("trait")), None)
            if chosen is not None and chosen.dirt_sensitive:
                data["dirt_sensitive"] = "on"
            else:
                data.pop("dirt_sensitive", None)
    shown = _shown_roll(character, request.user, request.GET.get("tirada"))
    first = next((t for t in traits if t.slug == request.GET.get("rasgo")), None) or (
        traits[0] if traits else None
    )
    form_dirt = {r.trait.slug for r in rows if r.dirt_sensitive}
    form = forms.RollForm(
        data,
        traits=traits,
        master=master,
        dirt_traits=form_dirt,
        htmx_url=request.path,
        initial={
            "trait": first.slug if first else None,
            "dirt_sensitive": bool(first and first.slug in form_dirt),
            # Another roll like the one just made is one tap away.
            "threshold": shown.base_threshold if shown else None,
        },
    )
    if request.method == "POST":
        if request.htmx:
            context = {
                "form": form,
                "preview": _roll_preview(character, form, values),
                "oob_dirt": request.htmx.trigger == "id_trait",
            }
            return render(request, "personajes/roll_form.html#chance", context)
        if "preview" not in request.POST and form.is_valid():
            try:
                roll = rolls.roll_action_for_character(
                    character=character,
                    trait=form.cleaned_data["trait"],
                    threshold=form.cleaned_data["threshold"],
                    made_by=request.user,
                    dirt_sensitive=form.dirt_choice(),
                    reason=form.cleaned_data["reason"],
                )
            except ServiceError as exc:
                forms.add_service_errors(form, exc)
            else:
                url = reverse("personajes:roll", kwargs={"pk": character.pk})
                query = urlencode({"tirada": roll.pk, "rasgo": form.cleaned_data["trait"]})
                return redirect(f"{url}?{query}")
    return render(
        request,
        "personajes/roll_form.html",
        {
            "character": character,
            "campaign": character.campaign,
            "form": form,
            "preview": _roll_preview(character, form, values),
            "roll": shown,
        },
    )


def _shown_roll(character: Character, user: Any, roll_id: str | None) -> Roll | None:
    """The character's roll with this id (just made) if ``user`` may see it, or None."""
    if not roll_id or not re.fullmatch(r"[0-9]{1,18}", roll_id):
        return None
    return selectors.character_rolls(character, user).filter(pk=int(roll_id)).first()


def _roll_preview(
    character: Character, form: forms.RollForm, values: dict[str, int]
) -> dict[str, Any]:
    """The chance of the roll being typed: penalty (R9), effective threshold, P(success) (R3)."""
    trait = form.selected_trait()
    if trait is None:
        return {"trait": None}
    value = values.get(trait.slug, 0)
    penalty = selectors.penalty_breakdown(character, dirt_sensitive=form.dirt_for_preview())
    total = breakdown_total(penalty)
    base = form.threshold_for_preview()
    preview: dict[str, Any] = {
        "trait": trait,
        "value": value,
        "dice": value + 1,
        "base": base,
        "penalty": penalty,
        "penalty_total": total,
    }
    if base is not None:
        chance = action_chance(value, base, total)
        preview |= {"effective": chance.effective, "p": chance.p}
    return preview


# --- lists ------------------------------------------------------------------------------------


@login_required
@require_safe
def my_characters(request: HttpRequest) -> HttpResponse:
    """The signed-in player's characters across campaigns."""
    characters = selectors.characters_of_player(user=request.user)
    return render(request, "personajes/my_characters.html", {"characters": characters})


CHARACTERS_TEMPLATE = "personajes/campaign_characters.html"
"""The master's character list (``campaign_characters``; kept whole by
``partida.world_views.characters_page``)."""


@login_required
@require_safe
def campaign_characters(request: HttpRequest, slug: str) -> HttpResponse:
    """The master's list of a campaign's characters, sheets pending approval first, a page of
    ``CHARACTER_LIST_SIZE`` at a time (``?page=<n>``). The pending sheets sort first, so the
    first page holds them (the first ``CHARACTER_LIST_SIZE`` of them)."""
    return render(request, CHARACTERS_TEMPLATE, campaign_characters_context(request, slug))


def campaign_characters_context(request: HttpRequest, slug: str) -> dict[str, Any]:
    """The master's character list's template context (``CHARACTERS_TEMPLATE``): four
    queries whatever the number of characters. Http404 for a visitor who is not the
    campaign's master."""
    campaign, _viewer = access_campaign(request.user, slug=slug, master=True)
    shown = selectors.characters_for_master(campaign=campaign, points=False).only(
        *MASTER_LIST_FIELDS
    )
    paginator = Paginator(shown, CHARACTER_LIST_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    characters = list(page.object_list)
    rows = master_rows(characters)
    pending = [row for row in rows if row.character.status == Character.Status.SUBMITTED]
    return {
        "campaign": campaign,
        "characters": characters,
        "rows": rows,
        "pending": [row.character for row in pending],
        "pending_rows": pending,
        "page": page,
    }


MASTER_LIST_FIELDS = (
    "id",
    "campaign_id",
    "player_id",
    "player__username",
    "name",
    "status",
    "hunger_days",
    "thirst_days",
    "fatigue_days",
    "unhygienic_days",
    "disease_day",
    "disease_duration",
    "infection_day",
    "infection_duration",
)
"""What the master's list shows of a character and its player (``only``: the sheet's long
texts and the rest of the user are not read)."""


@dataclass(frozen=True, slots=True)
class MasterRow:
    """A row of the master's character list, its text made in one pass (``master_rows``):
    ``url`` the sheet, ``edit_url`` the master's edit page, ``player`` the player's username,
    ``status`` the status in words, ``hunger``/``thirst``/``fatigue``/``hygiene`` the counters
    (consecutive days, R6–R7) as the template would localize them, ``disease``/``infection``
    "day x of y" or "—"."""

    character: Character
    url: str
    edit_url: str
    player: str
    status: str
    hunger: str
    thirst: str
    fatigue: str
    hygiene: str
    disease: str
    infection: str


def master_rows(characters: list[Character]) -> list[MasterRow]:
    """The rows of the master's list for a page of ``characters_for_master`` (no query)."""
    sheet = url_maker("personajes:character", "pk")
    edit = url_maker("personajes:master_edit", "pk")
    labels = {value: str(label) for value, label in Character.Status.choices}

    shown: dict[int, str] = {}

    def count(n: int) -> str:
        # {{ n }}'s text (localize), made once per distinct value: the counters of a
        # page are a few small numbers, localized ~200 times a page otherwise.
        text = shown.get(n)
        if text is None:
            text = shown[n] = localize(n)
        return text

    def days(x: int, y: int) -> str:
        return _("day %(x)s of %(y)s") % {"x": x, "y": y} if x else "—"

    return [
        MasterRow(
            character=c,
            url=sheet(c.pk),
            edit_url=edit(c.pk),
            player=c.player.get_username(),
            status=labels.get(c.status, c.status),
            hunger=count(c.hunger_days),
            thirst=count(c.thirst_days),
            fatigue=count(c.fatigue_days),
            hygiene=count(c.unhygienic_days),
            disease=days(c.disease_day, c.disease_duration),
            infection=days(c.infection_day, c.infection_duration),
        )
        for c in characters
    ]
