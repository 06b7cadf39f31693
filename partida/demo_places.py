"""The demo's moves: a character who went somewhere with the master's route check (R18), a
movement of supplies between two places' stashes, a stash the master stocked with new
supplies (the world page's "from the master") and one whose water the master took away (found
fouled: Tomás, who lives there with a bottle, is "thirsty tomorrow" in the master's pending
list, one click from the world page's give form), so the world page and the sheets show a
history across places. Idempotent: the moves are made once, when the campaign has no move yet;
the stocking and the taking once each, when the master never did such a thing in the campaign.
Called by ``manage.py cargar_demo`` after ``demo_mundo`` (the places and the days played).
"""

from __future__ import annotations

from typing import Any

from mundo.models import Campaign, Location, Membership
from personajes import master_supplies, places
from personajes.models import Character, CharacterMove, ItemType, Movement, ShelterStash

STOCKED: tuple[str, str, int | None] = ("Polideportivo municipal", "Rollo de papel higiénico", 6)
"""The master's stocking of the demo: (shelter, item, units) brought in from outside."""

FOULED = ("Iglesia de San Roque", "Botella de agua")
"""The stash whose water the master takes away, all of it: (shelter, item)."""

ROUTE_M = 40.0
"""Tomás's walk across Robledo to the doctor's house (m): 10 × 50 m swept = 125 cells (R18)."""


def load(campaign: Campaign, stdout: Any) -> None:
    """Tomás walks from San Roque to the Casa del médico with a route check (its zombies wait
    for the master: a fight or narrated), and the master sends 4 bottles of water from the
    Polideportivo's stash to San Roque's. Nothing happens when the campaign has moves already
    or a piece is missing. Then the master stocks the Polideportivo and takes San Roque's water
    away (``stock``)."""
    master = (
        Membership.objects.filter(campaign=campaign, role=Membership.Role.MASTER)
        .select_related("user")
        .first()
    )
    if master is None:
        return
    if not CharacterMove.objects.filter(campaign=campaign).exists():
        _moves(campaign, master.user, stdout)
    stock(campaign, master.user)  # after the moves: the water sent to San Roque goes too


def _moves(campaign: Campaign, master: Any, stdout: Any) -> None:
    """Tomás's walk with its route check, and the 4 bottles sent to San Roque."""
    tomas = Character.objects.filter(
        campaign=campaign, name="Tomás Vidal", status=Character.Status.APPROVED
    ).first()
    named = {
        p.name: p
        for p in Location.objects.filter(
            settlement__campaign=campaign,
            name__in=["Casa del médico", "Polideportivo municipal", "Iglesia de San Roque"],
        )
    }
    water = ItemType.objects.filter(campaign=campaign, name="Botella de agua").first()
    if tomas is None or len(named) < 3 or water is None:
        return
    moved = places.character_move(
        campaign_id=campaign.pk,
        user=master,
        character_ids=[tomas.pk],
        location_id=named["Casa del médico"].pk,
        route_m=ROUTE_M,
    )
    stdout.write(f"  Tomás, a la Casa del médico: {moved.zombies_met} zombis en la ruta")
    master_supplies.movement_place_transfer(
        campaign_id=campaign.pk,
        user=master,
        from_place_id=named["Polideportivo municipal"].pk,
        to_place_id=named["Iglesia de San Roque"].pk,
        item_type_id=water.pk,
        quantity=4,
    )


def stock(campaign: Campaign, master: Any) -> list[Movement]:
    """With the world page's control, the master brings ``STOCKED`` into a shelter's stash
    (a movement from "the master") and takes the ``FOULED`` water away (a movement to "the
    master"), each undoable there; returns the movements made now. Each once: nothing when the
    master ever stocked (or emptied) a place of the campaign, or a piece is missing.
    Source: RULES.md R15."""
    done = Movement.objects.filter(campaign=campaign, reason__in=("master_give", "master_take"))
    stocked = done.filter(reason="master_give", to_place__isnull=False).exists()
    taken = done.filter(reason="master_take", from_place__isnull=False).exists()
    made: list[Movement] = []
    plans: list[tuple[str, str, int | None]] = []  # (place, item, units given; None: take all)
    if not stocked:
        plans.append(STOCKED)
    if not taken:
        plans.append((*FOULED, None))
    for place_name, item_name, units in plans:
        place = Location.objects.filter(settlement__campaign=campaign, name=place_name).first()
        item = ItemType.objects.filter(campaign=campaign, name=item_name).first()
        if place is None or item is None:
            continue
        quantity = units if units is not None else _stashed(place, item)
        if not quantity:
            continue
        made.append(
            master_supplies.movement_place_transfer(
                campaign_id=campaign.pk,
                user=master,
                from_place_id=None if units is not None else place.pk,
                to_place_id=place.pk if units is not None else None,
                item_type_id=item.pk,
                quantity=quantity,
            )
        )
    return made


def _stashed(place: Location, item: ItemType) -> Any:
    """The units of ``item`` in ``place``'s stash (None when none)."""
    row = ShelterStash.objects.filter(shelter=place, item_type=item, quantity__gt=0).first()
    return row.quantity if row is not None else None
