"""Combat in a scene, the master's and the players' writes: open a fight, add combatants,
declare an action, try the amputation after a bite, end a fight. The resolution of a turn is in
``escenas.combat_resolve``; the Medicina cure in ``escenas.medicine``.

Every write takes the campaign lock first, then the fight's rows in primary-key order, and
re-checks under the lock who may do it. Refusals are ``ServiceError`` with a message in the
reader's language. Weapons are ``reglas.tables.Weapon`` kept as JSON on the rows: a character
fights with a weapon of its inventory or unarmed; an NPC with a weapon of the campaign's combat
table. Source: RULES.md R13, R17, R19–R21.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from escenas.combat_models import Combat, Combatant, Declaration
from escenas.models import Post, Scene
from mundo.access import is_master, require_master
from mundo.models import Campaign, Settlement
from nucleo.errors import ServiceError
from nucleo.locks import campaign_lock, lock_row
from nucleo.users import AnyUser
from personajes.models import Character, InventoryItem, ItemType
from reglas.tables import FIREARM, UNARMED, Weapon

MAX_ZOMBIES = 200
"""Most zombies one "add zombies" adds (a horde bigger than this is several fights)."""
UNARMED_CHOICE = "unarmed"
"""The weapon choice of bare hands (else ``item-<item type id>`` or a table weapon slug)."""


# --- weapons ----------------------------------------------------------------------------------


def weapon_json(weapon: Weapon) -> dict[str, Any]:
    """A weapon as stored on a combatant or a declaration."""
    return dataclasses.asdict(weapon)


def weapon_from_json(data: Mapping[str, Any] | None, campaign: Campaign) -> Weapon:
    """The stored weapon, or the campaign table's unarmed weapon when empty."""
    if not data:
        return unarmed(campaign)
    return Weapon(
        slug=str(data["slug"]),
        label=str(data["label"]),
        kind=str(data["kind"]),
        caliber=data.get("caliber") or None,
        two_handed=bool(data.get("two_handed", False)),
    )


def unarmed(campaign: Campaign) -> Weapon:
    """Bare hands as the campaign's combat table names them (Pelea to hit, R19)."""
    for w in campaign.tables.combat.weapons:
        if w.kind == UNARMED:
            return w
    return Weapon(UNARMED_CHOICE, _("Unarmed"), UNARMED)


def item_weapon(item_type: ItemType) -> Weapon:
    """An inventory weapon as the rules see it: firearms wound by caliber (two-handed ones get
    the long-range bonus), the others by their wound class. Source: RULES.md R19."""
    kind = item_type.weapon_kind or UNARMED
    if kind.startswith("firearm"):
        return Weapon(
            f"item-{item_type.pk}",
            item_type.name,
            FIREARM,
            caliber=item_type.caliber or None,
            two_handed=kind == ItemType.WeaponKind.FIREARM_TWO_HANDED,
        )
    return Weapon(f"item-{item_type.pk}", item_type.name, kind)


def character_weapons(character: Character) -> list[Weapon]:
    """Unarmed, then the weapons the character carries (quantity > 0), by name."""
    items = (
        InventoryItem.objects.filter(
            character=character, item_type__kind=ItemType.Kind.WEAPON, quantity__gt=0
        )
        .select_related("item_type")
        .order_by("item_type__name")
    )
    return [unarmed(character.campaign), *(item_weapon(i.item_type) for i in items)]


def _choose_weapon(combatant: Combatant, choice: str, campaign: Campaign) -> dict[str, Any]:
    """The weapon JSON of a declaration: for a character, unarmed or an inventory weapon; for
    an NPC, its own weapon or bare hands. Raises ServiceError({"weapon": …})."""
    if combatant.character is not None:
        for w in character_weapons(combatant.character):
            if choice in (w.slug, "") or (choice == UNARMED_CHOICE and w.kind == UNARMED):
                return weapon_json(w)
        raise ServiceError(
            {"weapon": _("%(name)s does not carry that weapon.") % {"name": combatant.name}}
        )
    own = weapon_from_json(combatant.weapon, campaign)
    if choice in ("", own.slug):
        return weapon_json(own)
    if choice == UNARMED_CHOICE:
        return weapon_json(unarmed(campaign))
    raise ServiceError(
        {"weapon": _("%(name)s does not carry that weapon.") % {"name": combatant.name}}
    )


def table_weapon(campaign: Campaign, slug: str) -> Weapon:
    """A weapon of the campaign's combat table by slug (NPCs). Raises ServiceError."""
    for w in campaign.tables.combat.weapons:
        if w.slug == slug:
            return w
    raise ServiceError(
        {"weapon": _("There is no weapon “%(slug)s” in the combat table.") % {"slug": slug}}
    )


# --- opening a fight and adding combatants ---------------------------------------------------


def _lock_combat(combat: Combat) -> Combat:
    """The fight re-read under its row lock (inside the campaign lock)."""
    return lock_row(Combat.objects.select_related("campaign", "scene"), combat.pk)


def combat_open(
    *,
    scene: Scene,
    master: User,
    kind: str,
    title: str = "",
    settlement: Settlement | None = None,
    distance_m: float = 0.0,
    characters: Iterable[Character] = (),
) -> Combat:
    """The master opens a fight in a story scene (``kind`` ``zombies`` or ``humans``), with the
    scene's ``characters`` as combatants. ``settlement``: the zombies' settlement (killed ones
    leave its count, R17). ``distance_m`` ≥ 0 (m). Raises ServiceError: not the master, not a
    story scene, bad kind, distance or settlement, a character not in the scene.
    Source: RULES.md R19–R21."""
    with campaign_lock(scene.campaign_id) as campaign:
        require_master(campaign, master, _("Only the campaign's master can open a fight."))
        if scene.kind != Scene.Kind.STORY:
            raise ServiceError(_("Fights take place in story scenes."))
        if kind not in Combat.Kind.values:
            raise ServiceError({"kind": _("Choose against zombies or between humans.")})
        if (
            isinstance(distance_m, bool)
            or not isinstance(distance_m, int | float)
            or distance_m < 0
        ):
            raise ServiceError({"distance_m": _("The distance cannot be negative.")})
        if settlement is not None and settlement.campaign_id != campaign.pk:
            raise ServiceError({"settlement": _("That settlement is not in this campaign.")})
        combat = Combat.objects.create(
            campaign=campaign,
            scene=scene,
            kind=kind,
            title=(title or "").strip()[:120],
            settlement=settlement,
            distance_m=float(distance_m),
            created_by=master,
        )
        _add_characters(combat, list(characters))
    return combat


def _add_characters(combat: Combat, characters: list[Character]) -> list[Combatant]:
    in_scene = set(combat.scene.participants.values_list("pk", flat=True))
    taken = set(combat.combatants.exclude(character=None).values_list("character_id", flat=True))
    position = combat.combatants.count()
    made = []
    for c in sorted(characters, key=lambda c: c.name):
        if c.pk not in in_scene or c.campaign_id != combat.campaign_id:
            raise ServiceError(_("%(name)s is not in this scene.") % {"name": c.name})
        if not c.is_alive:
            raise ServiceError(_("%(name)s is dead and cannot fight.") % {"name": c.name})
        if c.pk in taken:
            continue
        made.append(
            Combatant(
                combat=combat,
                side=Combatant.Side.CHARACTER,
                character=c,
                name=c.name,
                infected=c.infection_day > 0,
                position=position,
            )
        )
        position += 1
    Combatant.objects.bulk_create(made)
    return made


def _check_open(combat: Combat) -> None:
    if not combat.is_open:
        raise ServiceError(_("This fight is over."))


def combatants_add(
    *,
    combat: Combat,
    master: User,
    characters: Iterable[Character] = (),
    zombies: int = 0,
    npc_name: str = "",
    npc_traits: Mapping[str, int] | None = None,
    npc_weapon: str = "",
) -> list[Combatant]:
    """The master adds combatants to an open fight: characters of the scene, ``zombies`` (a
    count, 0..200, fights against zombies only: each attacks the human with fewest zombies) and
    one NPC human ``npc_name`` with ``npc_traits`` (slug → points) and a table weapon slug.
    Returns the new combatants. Raises ServiceError for any refusal (nothing added then).
    Source: RULES.md R19–R21."""
    with campaign_lock(combat.campaign_id) as campaign:
        require_master(campaign, master, _("Only the campaign's master can change a fight."))
        locked = _lock_combat(combat)
        _check_open(locked)
        made = _add_characters(locked, list(characters))
        if npc_name.strip():
            made.append(_add_npc(locked, npc_name, npc_traits or {}, npc_weapon))
        if (
            isinstance(zombies, bool)
            or not isinstance(zombies, int)
            or not 0 <= zombies <= MAX_ZOMBIES
        ):
            raise ServiceError(
                {"zombies": _("Add between 0 and %(max)d zombies.") % {"max": MAX_ZOMBIES}}
            )
        if zombies:
            if locked.kind != Combat.Kind.ZOMBIES:
                raise ServiceError({"zombies": _("A fight between humans has no zombies.")})
            made += _add_zombies(locked, zombies)
        assign_victims(locked)
    return made


def _add_npc(combat: Combat, name: str, traits: Mapping[str, int], weapon: str) -> Combatant:
    clean: dict[str, int] = {}
    for slug, value in traits.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 20:
            raise ServiceError({"npc_traits": _("Trait points are whole numbers from 0 to 20.")})
        clean[str(slug)] = value
    chosen = table_weapon(combat.campaign, weapon) if weapon else unarmed(combat.campaign)
    return Combatant.objects.create(
        combat=combat,
        side=Combatant.Side.NPC,
        name=name.strip()[:80],
        traits=clean,
        weapon=weapon_json(chosen),
        position=combat.combatants.count(),
    )


def _add_zombies(combat: Combat, n: int) -> list[Combatant]:
    start = combat.combatants.filter(side=Combatant.Side.ZOMBIE).count()
    position = combat.combatants.count()
    made = [
        Combatant(
            combat=combat,
            side=Combatant.Side.ZOMBIE,
            name=_("Zombie %(n)d") % {"n": start + i + 1},
            position=position + i,
        )
        for i in range(n)
    ]
    return Combatant.objects.bulk_create(made)


def assign_victims(combat: Combat) -> None:
    """Give every standing zombie without a living victim one: the living human with fewest
    zombies on it (ties: the first in order). A zombie whose victim fell lets go and its bite
    streak ends. Source: RULES.md R20 ("combates múltiples")."""
    if combat.kind != Combat.Kind.ZOMBIES:
        return
    rows = list(combat.combatants.order_by("position", "pk"))
    humans = [c for c in rows if not c.is_zombie and c.alive]
    load = {h.pk: 0 for h in humans}
    zombies = [z for z in rows if z.is_zombie and z.alive]
    free = []
    for z in zombies:
        if z.victim_id in load:
            load[z.victim_id] += 1
        else:
            free.append(z)
    for z in free:
        if not humans:
            z.victim = None
        else:
            target = min(humans, key=lambda h: load[h.pk])
            load[target.pk] += 1
            z.victim = target
        z.grabbing = False
        z.consecutive_bites = 0
    Combatant.objects.bulk_update(free, ["victim", "grabbing", "consecutive_bites"])


# --- declarations ----------------------------------------------------------------------------


def may_declare_for(combatant: Combatant, user: AnyUser) -> bool:
    """A player for their own living character; the master for any living human."""
    if combatant.is_zombie or not combatant.alive:
        return False
    if is_master(combatant.combat.campaign_id, user):
        return True
    character = combatant.character
    return (
        character is not None
        and user is not None
        and user.is_authenticated
        and character.player_id == user.pk
    )


def _check_target(combat: Combat, actor: Combatant, action: str, target: Combatant | None) -> None:
    """Refuse a target that is not allowed for ``action`` (R20: a grabbed human attacks only a
    zombie that grabs it and escapes only from one)."""
    if action == Declaration.Action.DEFEND:
        return
    if target is None or target.combat_id != combat.pk or not target.alive:
        raise ServiceError({"target": _("Choose a target that is still standing.")})
    grabbers = {z.pk for z in actor.attackers.all() if z.alive and z.grabbing}
    if combat.kind == Combat.Kind.HUMANS:
        if action != Declaration.Action.ATTACK or target.is_zombie or target.pk == actor.pk:
            raise ServiceError({"target": _("Attack another human of the fight.")})
        return
    if not target.is_zombie:
        raise ServiceError({"target": _("Choose a zombie.")})
    if action == Declaration.Action.ESCAPE and target.pk not in grabbers:
        raise ServiceError(
            {"target": _("That zombie does not hold %(name)s.") % {"name": actor.name}}
        )
    if action == Declaration.Action.ATTACK and grabbers and target.pk not in grabbers:
        raise ServiceError(
            {
                "target": _("%(name)s is grabbed: it can only attack a zombie that holds it.")
                % {"name": actor.name}
            }
        )


def declaration_make(
    *,
    combat: Combat,
    combatant: Combatant,
    user: AnyUser,
    action: str,
    target: Combatant | None = None,
    weapon: str = "",
    escape_trait: str = "",
    turn: int | None = None,
    post: Post | None = None,
) -> Declaration:
    """Declare ``combatant``'s action for the current turn (or ``turn``, which must be it):
    ``attack`` a target with ``weapon`` (``unarmed``, ``item-<id>`` of the inventory, or the
    NPC's own), ``escape`` from a zombie that holds it (``escape_trait`` agilidad/pelea or empty
    for the better), or ``defend``. Declaring again before the resolution replaces it.
    Raises ServiceError: the fight is over or the turn already resolved; not the character's
    player (nor the master); a bad action, target, weapon or trait.
    Source: RULES.md R20, R21."""
    with campaign_lock(combat.campaign_id) as campaign:
        locked = _lock_combat(combat)
        _check_open(locked)
        if turn is not None and int(turn) != locked.turn:
            raise ServiceError(
                _("Turn %(turn)d is already resolved: declare for turn %(now)d.")
                % {"turn": int(turn), "now": locked.turn}
            )
        actor = (
            Combatant.objects.select_related("character", "combat")
            .prefetch_related("attackers")
            .filter(pk=combatant.pk, combat=locked)
            .first()
        )
        if actor is None or not may_declare_for(actor, user):
            raise ServiceError(_("You cannot declare for that combatant."))
        if action not in Declaration.Action.values:
            raise ServiceError({"action": _("Choose attack, escape or defend.")})
        if locked.kind == Combat.Kind.HUMANS and action == Declaration.Action.ESCAPE:
            raise ServiceError({"action": _("Between humans there is nobody to escape from.")})
        _check_target(locked, actor, action, target)
        trait = (escape_trait or "").strip()
        if trait and trait not in campaign.tables.combat.escape_traits:
            raise ServiceError({"escape_trait": _("Escape with Agilidad or Pelea.")})
        chosen = (
            _choose_weapon(actor, weapon, campaign) if action == Declaration.Action.ATTACK else {}
        )
        declaration, _created = Declaration.objects.update_or_create(
            combat=locked,
            turn=locked.turn,
            combatant=actor,
            defaults={
                "action": action,
                "target": target if action != Declaration.Action.DEFEND else None,
                "weapon": chosen,
                "escape_trait": trait if action == Declaration.Action.ESCAPE else "",
                "post": post,
                "declared_by": user if user is not None and user.is_authenticated else None,
                "declared_at": timezone.now(),
            },
        )
    return declaration


def combat_finish(*, combat: Combat, master: User) -> Combat:
    """The master ends an open fight (e.g. the survivors flee). Raises ServiceError."""
    with campaign_lock(combat.campaign_id) as campaign:
        require_master(campaign, master, _("Only the campaign's master can change a fight."))
        locked = _lock_combat(combat)
        _check_open(locked)
        locked.state = Combat.State.FINISHED
        locked.finished_at = timezone.now()
        locked.save(update_fields=["state", "finished_at"])
    return locked


def open_amputations(combat: Combat) -> list[Combatant]:
    """The humans whose bite opened the one amputation try nobody has made yet (R13)."""
    return list(combat.combatants.filter(amputation_open=True).order_by("position", "pk"))


def healers_for(combat: Combat, user: AnyUser) -> list[Character]:
    """The living characters present (the scene's participants) that ``user`` may roll for."""
    people = combat.scene.participants.filter(status__in=Character.LIVING_STATUSES)
    if is_master(combat.campaign_id, user):
        return list(people.order_by("name"))
    if user is None or not user.is_authenticated:
        return []
    return list(people.filter(Q(player_id=user.pk)).order_by("name"))


def post_with_declaration(
    *,
    access: Any,
    author: User,
    post_kwargs: Mapping[str, Any],
    declaration: Mapping[str, Any],
) -> tuple[Post, bool]:
    """A post and the declaration it carries, in one transaction: if the declaration is
    refused, the post is not written either (``escenas.services.post_create`` then
    ``declaration_make`` with ``post``). A retried submit returns the stored post and declares
    nothing again. Raises ServiceError as both. Source: RULES.md R20, R21.
    """
    from escenas import services  # the posts' service; it never imports fights

    with campaign_lock(access.scene.campaign_id):
        post, created = services.post_create(access=access, author=author, **post_kwargs)
        if created:
            declaration_make(user=author, post=post, **declaration)
    return post, created
