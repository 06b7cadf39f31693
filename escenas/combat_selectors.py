"""Reading fights: the combat panel of a scene, one fight for the API, and who may see it.

A fight is read with its scene's permissions (``escenas.access.access_scene``): whoever reads the
scene reads its fights; outsiders only those of public scenes. Source: RULES.md R19–R21.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Prefetch

from escenas.access import SceneAccess, access_scene
from escenas.combat import item_weapon, unarmed
from escenas.combat_models import Combat, Combatant, CombatTurn, Declaration
from mundo.models import Campaign
from nucleo.errors import NotFound
from nucleo.users import AnyUser
from personajes.models import InventoryItem, ItemType
from reglas.tables import Weapon

PANEL_FINISHED = 3
"""How many finished fights the panel still shows (newest first) under the open ones."""


@dataclass
class HumanView:
    """A human of the fight on the panel: the zombies on it (``zombies``), those holding it
    (``grabbers``), its declaration this turn, and whether the viewer may declare for it."""

    row: Combatant
    zombies: list[Combatant] = field(default_factory=list)
    grabbers: list[Combatant] = field(default_factory=list)
    declaration: Declaration | None = None
    can_declare: bool = False
    weapons: list[Weapon] = field(default_factory=list)


@dataclass
class CombatView:
    """One fight on the panel: its humans, standing zombies, who has declared, the last
    turns' summaries, the open amputation tries."""

    combat: Combat
    humans: list[HumanView]
    zombies: list[Combatant]
    targets: list[Combatant]
    turns: list[CombatTurn]
    amputations: list[Combatant]

    @property
    def waiting_on(self) -> list[Combatant]:
        """Living humans without a declaration this turn."""
        return [h.row for h in self.humans if h.row.alive and h.declaration is None]

    @property
    def deadline_passed(self) -> bool:
        """The turn has a deadline and it is past: the master may resolve now."""
        return self.combat.deadline_passed()

    @property
    def standing_zombies(self) -> int:
        return sum(1 for z in self.zombies if z.alive)


def _weapons(campaign: Campaign, character_ids: list[int]) -> dict[int, list[Weapon]]:
    """Unarmed plus the carried weapons, per character (one query)."""
    bare = unarmed(campaign)
    out: dict[int, list[Weapon]] = {cid: [bare] for cid in character_ids}
    if not character_ids:
        return out
    items = (
        InventoryItem.objects.filter(
            character_id__in=character_ids, item_type__kind=ItemType.Kind.WEAPON, quantity__gt=0
        )
        .select_related("item_type")
        .order_by("item_type__name")
    )
    for item in items:
        out[item.character_id].append(item_weapon(item.item_type))
    return out


def combat_views(access: SceneAccess, *, only: int | None = None) -> list[CombatView]:
    """The fights of the scene for the panel: the open ones, then the last finished ones.

    ``only``: just that fight. Queries: fights (1), combatants (1), declarations (1), turns
    (1), and the viewer's characters' weapons (0–1): 4–5 whatever the number of zombies.
    """
    scene = access.scene
    qs = Combat.objects.filter(scene=scene).select_related("campaign", "settlement")
    if only is not None:
        qs = qs.filter(pk=only)
    combats = list(
        qs.order_by("-id").prefetch_related(
            Prefetch(
                "combatants",
                queryset=Combatant.objects.select_related("character").order_by("position", "pk"),
            )
        )
    )
    shown = [c for c in combats if c.is_open] + [c for c in combats if not c.is_open][
        :PANEL_FINISHED
    ]
    if not shown:
        return []
    current = {c.pk: c.turn for c in shown if c.is_open}
    declared: dict[tuple[int, int], Declaration | None] = {
        (d.combat_id, d.combatant_id): d
        for d in Declaration.objects.filter(combat__in=list(current)).select_related("target")
        if d.turn == current[d.combat_id]
    }
    turns_of: dict[int, list[CombatTurn]] = defaultdict(list)
    for t in CombatTurn.objects.filter(combat__in=shown).order_by("-number"):
        turns_of[t.combat_id].append(t)
    viewer = access.viewer
    own_ids = [
        r.character_id
        for c in shown
        for r in c.combatants.all()
        if r.character_id and (viewer.is_master or r.character_id in viewer.living_character_ids)
    ]
    weapons = _weapons(scene.campaign, own_ids) if viewer.user_id else {}
    return [_view(c, declared, turns_of[c.pk], weapons, access) for c in shown]


def _view(
    combat: Combat,
    declared: dict[tuple[int, int], Declaration | None],
    turns: list[CombatTurn],
    weapons: dict[int, list[Weapon]],
    access: SceneAccess,
) -> CombatView:
    rows = list(combat.combatants.all())
    humans = {r.pk: HumanView(r) for r in rows if not r.is_zombie}
    zombies = [r for r in rows if r.is_zombie]
    for z in zombies:
        if z.alive and z.victim_id in humans:
            humans[z.victim_id].zombies.append(z)
            if z.grabbing:
                humans[z.victim_id].grabbers.append(z)
    viewer = access.viewer
    for h in humans.values():
        if combat.is_open and h.row.alive:
            h.declaration = declared.get((combat.pk, h.row.pk))
            if h.row.character_id:
                h.can_declare = (
                    viewer.is_master or h.row.character_id in viewer.living_character_ids
                )
                h.weapons = weapons.get(h.row.character_id, [])
            else:
                h.can_declare = viewer.is_master
                h.weapons = []
    targets = [r for r in rows if r.alive]
    return CombatView(
        combat=combat,
        humans=list(humans.values()),
        zombies=zombies,
        targets=targets,
        turns=turns[:3],
        amputations=[h.row for h in humans.values() if h.row.amputation_open],
    )


def access_combat(
    user: AnyUser | None, pk: int | str, *, slug: str | None = None
) -> tuple[Combat, SceneAccess]:
    """A fight by id with its scene's access (the scene's permissions). Raises NotFound when
    the fight does not exist, is not the campaign's (``slug``), or its scene is not readable."""
    try:
        found = Combat.objects.select_related("campaign").filter(pk=int(pk)).first()
    except (TypeError, ValueError):
        found = None
    if found is None or (slug is not None and found.campaign.slug != slug):
        raise NotFound("No such fight")
    access = access_scene(user, found.scene_id, slug=found.campaign.slug)
    return found, access
