"""The demo's moves: a character who went somewhere with the master's route check (R18) and a
movement of supplies between two places' stashes, so the world page and the sheets show a
history across places. Idempotent: made once, when the campaign has no move yet.
Called by ``manage.py cargar_demo`` after ``demo_mundo`` (the places and the days played).
"""

from __future__ import annotations

from typing import Any

from mundo.models import Campaign, Location, Membership
from personajes import master_supplies, places
from personajes.models import Character, CharacterMove, ItemType

ROUTE_M = 40.0
"""Tomás's walk across Robledo to the doctor's house (m): 10 × 50 m swept = 125 cells (R18)."""


def load(campaign: Campaign, stdout: Any) -> None:
    """Tomás walks from San Roque to the Casa del médico with a route check (its zombies wait
    for the master: a fight or narrated), and the master sends 4 bottles of water from the
    Polideportivo's stash to San Roque's. Nothing happens when the campaign has moves already
    or a piece is missing."""
    if CharacterMove.objects.filter(campaign=campaign).exists():
        return
    master = (
        Membership.objects.filter(campaign=campaign, role=Membership.Role.MASTER)
        .select_related("user")
        .first()
    )
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
    if master is None or tomas is None or len(named) < 3 or water is None:
        return
    moved = places.character_move(
        campaign_id=campaign.pk,
        user=master.user,
        character_ids=[tomas.pk],
        location_id=named["Casa del médico"].pk,
        route_m=ROUTE_M,
    )
    stdout.write(f"  Tomás, a la Casa del médico: {moved.zombies_met} zombis en la ruta")
    master_supplies.movement_place_transfer(
        campaign_id=campaign.pk,
        user=master.user,
        from_place_id=named["Polideportivo municipal"].pk,
        to_place_id=named["Iglesia de San Roque"].pk,
        item_type_id=water.pk,
        quantity=4,
    )
