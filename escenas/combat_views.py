"""Pages of the combat panel: the panel fragment (htmx refresh) and its forms.

Thin, as ``escenas.views``: fights are fetched with their scene's permissions
(``escenas.combat_selectors.access_combat``), every write is a service of ``escenas.combat``,
``escenas.combat_resolve`` or ``escenas.medicine``. Without JavaScript each form posts and
redirects back to the scene with a message; with htmx the answer is the fresh panel.
Source: RULES.md R13, R19–R21.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from escenas import access as scene_access
from escenas import combat, combat_forms, combat_resolve, medicine
from escenas import combat_odds as combat_odds_service
from escenas.combat_models import Combat, Combatant
from escenas.combat_selectors import access_combat, combat_views
from escenas.models import Scene
from mundo.access import access_campaign
from mundo.models import WorldRoll
from nucleo.bounds import row_id
from nucleo.errors import ServiceError
from nucleo.users import AuthenticatedHttpRequest
from personajes.access import access_character, can_see_private
from personajes.models import Character

PANEL_TEMPLATE = "escenas/combat_panel.html"


def is_htmx(request: HttpRequest) -> bool:
    return bool(getattr(request, "htmx", False))


def panel_context(access: scene_access.SceneAccess) -> dict[str, Any]:
    """The context of the panel: the fights, and the master's open form."""
    scene = access.scene
    context: dict[str, Any] = {
        "campaign": scene.campaign,
        "scene": scene,
        "access": access,
        # The scene page's access knows whether there is any fight (no query when none).
        "combats": combat_views(access) if access.version is None or access.version.fights else [],
        # The sick characters present, for the Medicina cure (R12); participants are prefetched.
        "sick": [c for c in scene.participants.all() if c.is_alive and c.disease_day > 0],
    }
    if access.is_master and scene.kind == scene.Kind.STORY:
        context["open_form"] = combat_forms.CombatOpenForm(
            campaign=scene.campaign,
            characters=[c for c in scene.participants.all() if c.is_alive],
        )
        context["add_form"] = combat_forms.CombatantsAddForm(campaign=scene.campaign)
    return context


@require_GET
def combat_panel(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The scene's combat panel alone (htmx refreshes it: every 30 s from every open tab of a
    story scene, and after each post). The access in one query, without the scene's version
    (its totals read every post of the scene; the panel needs none of them): for a player
    without a fight four queries (the user, the access, the participants, the fights); the
    master's forms add one."""
    access = scene_access.access_scene(request.user, pk, slug=slug, one_query=True)
    return render(request, PANEL_TEMPLATE, panel_context(access))


def _answer(
    request: HttpRequest, access: scene_access.SceneAccess, error: str | None
) -> HttpResponse:
    """htmx: the fresh panel (the error above it, status 400); else back to the scene."""
    if is_htmx(request):
        context = panel_context(access) | {"combat_error": error}
        response = render(request, PANEL_TEMPLATE, context, status=400 if error else 200)
        if not error:
            response["HX-Trigger"] = "posted"
        return response
    if error:
        messages.error(request, error)
    return redirect(access.scene.get_absolute_url() + "#combat")


def _run(
    request: HttpRequest, access: scene_access.SceneAccess, write: Callable[[], Any]
) -> HttpResponse:
    try:
        write()
    except ServiceError as exc:
        return _answer(request, access, " ".join(exc.messages))
    return _answer(request, access, None)


def _form_error(form: Any) -> str:
    return " ".join(str(e) for errs in form.errors.values() for e in errs)


@login_required
@require_POST
def combat_open(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master opens a fight in the scene with its living characters (and zombies)."""
    access = scene_access.access_scene(request.user, pk, slug=slug, master=True)
    living = [c for c in access.scene.participants.all() if c.is_alive]
    form = combat_forms.CombatOpenForm(
        request.POST, campaign=access.scene.campaign, characters=living
    )
    if not form.is_valid():
        return _answer(request, access, _form_error(form))
    data = form.cleaned_data

    @transaction.atomic  # the fight and its zombies, or nothing
    def write() -> None:
        fight = combat.combat_open(
            scene=access.scene,
            master=request.user,
            kind=data["kind"],
            title=data["title"],
            settlement=data["settlement"],
            distance_m=float(data["distance_m"] or 0),
            characters=living,
            turn_hours=data["turn_hours"],
        )
        if data["zombies"]:
            victim = None
            if data["victim"] is not None:
                victim = fight.combatants.filter(character_id=data["victim"]).first()
            combat.combatants_add(
                combat=fight, master=request.user, zombies=data["zombies"], victim=victim
            )

    return _run(request, access, write)


def _fight(request: HttpRequest, slug: str, pk: int) -> tuple[Combat, scene_access.SceneAccess]:
    return access_combat(request.user, pk, slug=slug)


@login_required
@require_POST
def combatants_add(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master adds zombies or an NPC human to a fight."""
    fight, access = _fight(request, slug, pk)
    form = combat_forms.CombatantsAddForm(request.POST, campaign=fight.campaign)
    if not form.is_valid():
        return _answer(request, access, _form_error(form))
    data = form.cleaned_data
    return _run(
        request,
        access,
        lambda: combat.combatants_add(
            combat=fight,
            master=request.user,
            zombies=data["zombies"] or 0,
            npc_name=data["npc_name"],
            npc_traits=data["npc_traits"],
            npc_weapon=data["npc_weapon"],
        ),
    )


def _combatant(fight: Combat, pk: int | None) -> Combatant | None:
    if pk is None:
        return None
    found = Combatant.objects.filter(combat=fight, pk=pk).first()
    if found is None:
        raise ServiceError({"target": _("That combatant is not in this fight.")})
    return found


@login_required
@require_POST
def declaration_make(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A player (or the master) declares a human's action for the turn."""
    fight, access = _fight(request, slug, pk)
    form = combat_forms.DeclarationForm(request.POST)
    if not form.is_valid():
        return _answer(request, access, _form_error(form))
    data = form.cleaned_data

    def write() -> None:
        actor = _combatant(fight, data["combatant"])
        assert actor is not None
        combat.declaration_make(
            combat=fight,
            combatant=actor,
            user=request.user,
            action=data["action"],
            target=_combatant(fight, data["target"]),
            weapon=data["weapon"],
            escape_trait=data["escape_trait"],
            turn=data["turn"],
        )

    return _run(request, access, write)


@login_required
@require_POST
def turn_resolve(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master resolves the turn shown on the page."""
    fight, access = _fight(request, slug, pk)
    form = combat_forms.TurnForm(request.POST)
    if not form.is_valid():
        return _answer(request, access, _form_error(form))
    data = form.cleaned_data

    def write() -> None:
        aims = []
        if data["zombie"] is not None and data["victim"] is not None:
            zombie, victim = _combatant(fight, data["zombie"]), _combatant(fight, data["victim"])
            assert zombie is not None and victim is not None
            aims.append((zombie, victim))
        combat_resolve.turn_resolve(combat=fight, master=request.user, turn=data["turn"], aims=aims)

    return _run(request, access, write)


@login_required
@require_POST
def combat_finish(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master ends a fight."""
    fight, access = _fight(request, slug, pk)
    return _run(request, access, lambda: combat.combat_finish(combat=fight, master=request.user))


@login_required
@require_POST
def amputation_try(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The one amputation try after a bite, by a character present."""
    fight, access = _fight(request, slug, pk)
    form = combat_forms.AmputationForm(request.POST)
    if not form.is_valid():
        return _answer(request, access, _form_error(form))

    def write() -> None:
        patient = _combatant(fight, form.cleaned_data["patient"])
        healer = Character.objects.filter(
            campaign=fight.campaign, pk=form.cleaned_data["healer"]
        ).first()
        if patient is None or healer is None:
            raise ServiceError(_("Choose a healer present in the scene."))
        medicine.amputation_try(combat=fight, patient=patient, healer=healer, user=request.user)

    return _run(request, access, write)


def post_declaration(data: Any, access: scene_access.SceneAccess) -> dict[str, Any] | None:
    """The declaration the post form carries (``combat_for`` = "<fight id>:<combatant id>",
    ``combat_action``, ``combat_target``, ``combat_weapon``, ``combat_escape_trait``,
    ``combat_turn``), as ``escenas.combat.declaration_make``'s arguments; None without one.
    Raises ServiceError for a fight or combatant that is not this scene's."""
    chosen = str(data.get("combat_for") or "")
    if not chosen or not data.get("combat_action"):
        return None
    fight_id, _sep, combatant_id = chosen.partition(":")
    fight = Combat.objects.filter(scene=access.scene, pk=row_id(fight_id) or 0).first()
    if fight is None:
        raise ServiceError(_("That fight is not in this scene."))
    actor = _combatant(fight, row_id(combatant_id) or 0)
    return {
        "combat": fight,
        "combatant": actor,
        "action": str(data.get("combat_action")),
        "target": _combatant(fight, row_id(data.get("combat_target"))),
        "weapon": str(data.get("combat_weapon") or ""),
        "escape_trait": str(data.get("combat_escape_trait") or ""),
        "turn": row_id(data.get("combat_turn")),
    }


def post_amputation(data: Any, access: scene_access.SceneAccess) -> dict[str, Any] | None:
    """The amputation try the post form carries (``combat_amputate`` = "<fight id>:<patient
    combatant id>", ``combat_healer`` a character id), as ``escenas.medicine.amputation_try``'s
    arguments; None without one. Raises ServiceError for a fight, patient or healer that is
    not this scene's."""
    chosen = str(data.get("combat_amputate") or "")
    if not chosen:
        return None
    fight_id, _sep, patient_id = chosen.partition(":")
    fight = Combat.objects.filter(scene=access.scene, pk=row_id(fight_id) or 0).first()
    if fight is None:
        raise ServiceError(_("That fight is not in this scene."))
    patient = _combatant(fight, row_id(patient_id) or 0)
    healer = next((c for c in access.characters if c.pk == row_id(data.get("combat_healer"))), None)
    if healer is None:
        raise ServiceError({"healer": _("Choose a healer present in the scene.")})
    return {"combat": fight, "patient": patient, "healer": healer}


@login_required
@require_POST
def medicine_cure(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """A Medicina cure try on a sick character of the scene (R12), posted in the scene."""
    access = scene_access.access_scene(request.user, pk, slug=slug)
    form = combat_forms.CureForm(request.POST)
    if not form.is_valid():
        return _answer(request, access, _form_error(form))
    present = {c.pk: c for c in access.scene.participants.all()}
    healers = {c.pk: c for c in access.characters}

    def write() -> None:
        patient = present.get(form.cleaned_data["patient"])
        healer = healers.get(form.cleaned_data["healer"])
        if patient is None or healer is None:
            raise ServiceError(_("Choose a healer and a patient present in the scene."))
        medicine.medicine_cure(
            patient=patient, healer=healer, user=request.user, scene=access.scene
        )

    return _run(request, access, write)


@login_required
def combat_from_route(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master opens a fight against the zombies an R18 route check met: GET chooses the
    story scene, POST opens it there (``escenas.combat.combat_open_from_route``) and goes to
    the scene's panel. Only the campaign's master (404 otherwise). Source: RULES.md R18, R20."""
    campaign, _viewer = access_campaign(request.user, slug=slug, master=True)
    roll = WorldRoll.objects.filter(
        campaign=campaign, pk=row_id(pk) or 0, kind=WorldRoll.Kind.ROUTE
    ).first()
    if roll is None:
        raise Http404("No such route check")
    scenes = list(
        Scene.objects.filter(campaign=campaign, kind=Scene.Kind.STORY).order_by("-pk")[:100]
    )
    error = None
    if request.method == "POST":
        scene = next((s for s in scenes if s.pk == row_id(request.POST.get("scene"))), None)
        try:
            if scene is None:
                raise ServiceError(_("Choose a story scene of this campaign."))
            combat.combat_open_from_route(scene=scene, master=request.user, route_roll=roll)
        except ServiceError as exc:
            error = " ".join(exc.messages)
        else:
            return redirect(scene.get_absolute_url() + "#combat")
    context = {
        "campaign": campaign,
        "roll": roll,
        "met": int((roll.result or {}).get("zombies_met") or 0),
        "scenes": scenes,
        "taken": Combat.objects.filter(route_roll=roll).select_related("scene").first(),
        "error": error,
    }
    return render(request, "escenas/combat_from_route.html", context, status=400 if error else 200)


@login_required
@require_POST
def medicine_cure_sheet(request: AuthenticatedHttpRequest, slug: str, pk: int) -> HttpResponse:
    """A Medicina cure try from the sick character's sheet (R12): its player or the master
    chooses one of their living characters as the healer; once per in-game day per patient.
    The outcome (or the refusal) is a message on the sheet. Source: RULES.md R12."""
    patient = access_character(request.user, pk).character
    if patient.campaign.slug != slug or not can_see_private(patient, request.user):
        raise Http404("No such character")
    healer = Character.objects.filter(
        campaign=patient.campaign, pk=row_id(request.POST.get("healer")) or 0
    ).first()
    try:
        if healer is None:
            raise ServiceError(_("Choose a healer of this campaign."))
        cure = medicine.medicine_cure(patient=patient, healer=healer, user=request.user)
    except ServiceError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        dice = ", ".join(str(d) for d in cure.roll.dice)
        text = (
            _("Medicina of %(healer)s [%(dice)s]: %(name)s is cured.")
            if cure.cured
            else _("Medicina of %(healer)s [%(dice)s]: %(name)s is still sick.")
        )
        messages.success(
            request, text % {"healer": healer.name, "dice": dice, "name": patient.name}
        )
    return redirect(patient.get_absolute_url())


@login_required
@require_GET
def combat_odds(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The master's odds page for the scene's living characters before a fight
    (``escenas.combat_odds.scene_odds``): chance to kill them all, to be bitten, infected,
    dead within K turns, with their 95 % intervals, per character too, and the exact one-zombie
    one-turn values beside. Only the master (404 otherwise). Source: RULES.md R13, R20."""
    access = scene_access.access_scene(request.user, pk, slug=slug, master=True)
    scene = access.scene
    standing = next((v.standing_zombies for v in combat_views(access) if v.combat.is_open), 0)
    form = combat_forms.OddsForm(
        request.GET if "zombies" in request.GET else None,
        initial={"zombies": max(1, min(standing, 100)) if standing else 3},
    )
    odds, error = None, None
    if form.is_valid():
        data = form.cleaned_data
        try:
            odds = combat_odds_service.scene_odds(
                campaign=scene.campaign,
                characters=list(scene.participants.all()),
                zombies=data["zombies"],
                turns=data["turns"],
                simulations=data["simulations"],
                seed=data["seed"],
            )
        except ServiceError as exc:
            error = " ".join(exc.messages)
    context = {
        "campaign": scene.campaign,
        "scene": scene,
        "form": form,
        "odds": odds,
        "error": error,
    }
    return render(request, "escenas/combat_odds.html", context, status=400 if error else 200)
