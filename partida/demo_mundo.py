"""The demo's world: places in both settlements, shelters for the demo characters, shared
stashes, and three days already played so that a newcomer finds diaries with real tables.

``load(campaign, stdout)`` is idempotent: places and stashes are found by natural keys
(settlement + name, shelter + item) and updated in place; the three days are played only when
the campaign has no tick record yet (a second load never advances the day again).
Called by ``manage.py cargar_demo`` after the characters exist.
"""

from __future__ import annotations

from typing import Any

from mundo.models import Arrival, Campaign, DayTick, Location, Settlement
from partida.tick import advance_day
from personajes import movements
from personajes.models import Character, ItemType, ShelterStash

DAYS_PLAYED = 3

# (settlement slug, name, kind, shop type, latrine m, cesspit, running water, description)
PLACES: list[tuple[str, str, str, str, float | None, bool, bool, str]] = [
    (
        "villarejo",
        "Polideportivo municipal",
        Location.Kind.SHELTER,
        "",
        30.0,
        False,
        True,
        "Refugio con letrina a 30 m de la pista donde se duerme; agua corriente mientras dure.",
    ),
    ("villarejo", "Casa de los Ferrer", Location.Kind.DWELLING, "", None, False, False, ""),
    ("villarejo", "Casa del cura", Location.Kind.DWELLING, "", None, False, False, ""),
    (
        "villarejo",
        "Supermercado de la plaza",
        Location.Kind.SHOP,
        "supermercado",
        None,
        False,
        False,
        "Persianas bajadas. Nadie ha entrado todavía.",
    ),
    ("villarejo", "Fuente del lavadero", Location.Kind.WATER_SOURCE, "", None, False, False, ""),
    (
        "robledo",
        "Iglesia de San Roque",
        Location.Kind.SHELTER,
        "",
        None,
        True,
        False,
        "Refugio con pozo negro en la sacristía, pero sin papel higiénico.",
    ),
    ("robledo", "Casa del médico", Location.Kind.DWELLING, "", None, False, False, ""),
    ("robledo", "Farmacia Robledo", Location.Kind.SHOP, "farmacia", None, False, False, ""),
]

# Shared stashes: shelter name → [(item name, units)]. San Roque has no toilet paper (R7).
STASHES: dict[str, list[tuple[str, int]]] = {
    "Polideportivo municipal": [
        ("Lata de conservas", 30),
        ("Botella de agua", 20),
        ("Rollo de papel higiénico", 8),
    ],
    "Iglesia de San Roque": [("Lata de conservas", 12), ("Botella de agua", 8)],
}

# Where a newly approved character lives (the campaign's default shelter).
ARRIVAL_SHELTER = "Polideportivo municipal"

# Demo character name → shelter name.
HOMES = {
    "Lucía Ferrer": "Polideportivo municipal",
    "Tomás Vidal": "Iglesia de San Roque",
    "Elena Soto": "Iglesia de San Roque",
}


def load(campaign: Campaign, stdout: Any) -> None:
    """Load the demo world into ``campaign`` (idempotent); see the module docstring."""
    settlements = {s.slug: s for s in Settlement.objects.filter(campaign=campaign)}
    places: dict[str, Location] = {}
    for slug, name, kind, shop_type, latrine, cesspit, water, description in PLACES:
        settlement = settlements.get(slug)
        if settlement is None:
            continue
        place, _created = Location.objects.update_or_create(
            settlement=settlement,
            name=name,
            defaults={
                "kind": kind,
                "shop_type": shop_type,
                "latrine_distance_m": latrine,
                "has_cesspit": cesspit,
                "running_water": water,
                "description": description,
            },
        )
        places[name] = place
    items = {t.name: t for t in ItemType.objects.filter(campaign=campaign)}
    first_time = not DayTick.objects.filter(campaign=campaign).exists()
    for shelter_name, stock in STASHES.items():
        shelter = places.get(shelter_name)
        for item_name, units in stock:
            if shelter is None or item_name not in items:
                continue
            # Only the first time: later the stash holds what play left in it.
            if first_time:
                ShelterStash.objects.update_or_create(
                    shelter=shelter, item_type=items[item_name], defaults={"quantity": units}
                )
            else:
                ShelterStash.objects.get_or_create(
                    shelter=shelter, item_type=items[item_name], defaults={"quantity": units}
                )
    # New characters arrive at the Polideportivo (the master's rules page, "Arrival").
    arrival_home = places.get(ARRIVAL_SHELTER)
    if arrival_home is not None:
        Arrival.objects.update_or_create(campaign=campaign, defaults={"shelter": arrival_home})
    for character in Character.objects.filter(campaign=campaign, name__in=list(HOMES)):
        shelter = places.get(HOMES[character.name])
        if shelter is not None and character.shelter_id is None:
            Character.objects.filter(pk=character.pk).update(
                shelter=shelter, settlement=shelter.settlement
            )
    if first_time:
        _first_movements(campaign, items)
        # The campaign was created DAYS_PLAYED days before today's day (cargar_demo): these
        # ticks bring it to today.
        for _ in range(DAYS_PLAYED):
            result = advance_day(campaign, trigger=DayTick.Trigger.COMMAND)
            campaign.refresh_from_db()
            stdout.write(f"  {result.message}")
    campaign.refresh_from_db()


def _first_movements(campaign: Campaign, items: dict[str, ItemType]) -> None:
    """A movement history for the demo (once, before the first tick): Tomás leaves two cans
    in San Roque's stash and takes a bottle back; the approvals already logged the kits."""
    tomas = Character.objects.filter(campaign=campaign, name="Tomás Vidal").first()
    can, water = items.get("Lata de conservas"), items.get("Botella de agua")
    if tomas is None or tomas.shelter_id is None or can is None or water is None:
        return
    tomas.refresh_from_db()
    movements.movement_stash(
        character=tomas, user=tomas.player, item_type_id=can.pk, quantity=2, leave=True
    )
    movements.movement_stash(
        character=tomas, user=tomas.player, item_type_id=water.pk, quantity=1, leave=False
    )
