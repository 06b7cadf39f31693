"""Combat: to hit and to wound (R19), zombie turns (R20), exchanges between humans (R21).

There are no hit points: a wound kills, human or zombie. To hit is an action roll (R3: 1 +
trait d100, one success is enough) with Armas a distancia, Armas cuerpo a cuerpo or Pelea; to
wound is a Fuerza action roll in melee, or one d100 against the caliber for firearms.

Readings we chose where the rulebook is silent:

* The action penalty (R9) lowers action rolls only: to hit, the Fuerza wound roll and the
  escape. The caliber's wound d100 is not the character's action and takes no penalty.
* Beyond the last range band (60 m) a firearm is out of range: threshold 0, and the two-handed
  bonus (+15 beyond 15 m) does not apply there.
* Zombie turn order: the victim acts (humans first); then every zombie that was already
  grabbing and was neither escaped from nor killed rolls to bite — including those the victim
  could not deal with, since it escapes "from one zombie at a time"; then every zombie not
  grabbing (also one just escaped from: escaping "does not remove the threat") rolls to grab.
  A new grab bites on the next turn, after the victim's chance to break free.
* "Bitten by the same zombie on three consecutive turns": a zombie's counter goes up on each
  turn it bites and back to 0 on any turn it does not.

Source: RULES.md R19, R20, R21 (seed: "Sistema, combate").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np

from reglas.core import Breakdown, Modifier, breakdown_total
from reglas.dice import check_trait_value, roll_action, roll_event
from reglas.errors import RulesError
from reglas.tables import DEFAULT_COMBAT, UNARMED, CombatTable, Weapon

__all__ = [
    "Attack",
    "AttackMode",
    "AttackZombie",
    "CombatRoll",
    "Combatant",
    "EscapeZombie",
    "HumanExchange",
    "Weapon",
    "ZombieFight",
    "ZombieRoll",
    "ZombieState",
    "ZombieTurn",
    "action_roll",
    "attack",
    "attack_mode",
    "event_roll",
    "resolve_human_exchange",
    "resolve_zombie_turn",
    "to_hit_threshold",
    "to_hit_trait",
    "wound_threshold",
]

# ------------------------------------------------------------------------------------- rolls


@dataclass(frozen=True, slots=True)
class CombatRoll:
    """One roll of a fight with every die.

    ``purpose``: ``to_hit``, ``wound``, ``escape``, ``grab`` or ``bite``; ``label`` Spanish.
    An action roll (R3) has ``trait``/``trait_value`` and 1 + value dice; an event roll (one
    d100: caliber wound, zombie grab and bite) has ``trait`` None. ``threshold`` (%) =
    clamp(``base_threshold`` + Σ ``modifiers`` − Σ ``penalty``); ``modifiers`` are signed
    points of the situation (two-handed +15, grabbed −20), ``penalty`` the action penalty (R9,
    positive points subtracted). ``successes`` = dice ≤ threshold; ``success`` = at least one.
    Source: RULES.md R1, R2, R3, R19.
    """

    purpose: str
    label: str
    trait: str | None
    trait_value: int | None
    dice: tuple[int, ...]
    base_threshold: int
    modifiers: Breakdown
    penalty: Breakdown
    threshold: int
    successes: int
    success: bool

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "purpose": self.purpose,
            "label": self.label,
            "trait": self.trait,
            "trait_value": self.trait_value,
            "dice": list(self.dice),
            "base_threshold": self.base_threshold,
            "modifiers": [m.as_dict() for m in self.modifiers],
            "penalty": [m.as_dict() for m in self.penalty],
            "threshold": self.threshold,
            "successes": self.successes,
            "success": self.success,
        }

    def describe(self) -> str:
        """Spanish text: dice, threshold with its breakdown, outcome."""
        parts = [f"base {self.base_threshold} %"]
        parts += [f"{m.points:+d} {m.label}" for m in self.modifiers]
        parts += [f"{-m.points:+d} {m.label}" for m in self.penalty if m.points]
        detail = ", ".join(parts)
        outcome = "ÉXITO" if self.success else "FALLO"
        dice = ", ".join(str(d) for d in self.dice)
        if self.trait is None:
            return f"{self.label}: d100 = {dice} contra {self.threshold} % ({detail}) → {outcome}"
        n = len(self.dice)
        return (
            f"{self.label}: {self.trait} {self.trait_value} → {n}d100 [{dice}] contra "
            f"{self.threshold} % ({detail}) → {self.successes} éxito(s): {outcome}"
        )


def _situation_as_penalty(modifiers: Breakdown) -> Breakdown:
    """Situation modifiers in the sign convention of ``reglas.dice`` (points subtracted)."""
    return tuple(Modifier(m.source, m.label, -m.points) for m in modifiers)


def action_roll(
    purpose: str,
    label: str,
    trait: str,
    trait_value: int,
    base_threshold: int,
    rng: np.random.Generator,
    *,
    modifiers: Breakdown = (),
    penalty: Breakdown = (),
) -> CombatRoll:
    """An action roll (R3): 1 + ``trait_value`` d100, success if at least one die ≤ threshold.

    Threshold (%) = clamp(base + Σ modifiers − Σ penalty) to 0..100 (R1, R9). The dice are
    rolled by :func:`reglas.dice.roll_action`. Raises RulesError for a bad trait value.
    Source: RULES.md R3.
    """
    mods = tuple(modifiers)
    pen = tuple(penalty)
    roll = roll_action(trait_value, base_threshold, rng, (*_situation_as_penalty(mods), *pen))
    return CombatRoll(
        purpose=purpose,
        label=label,
        trait=trait,
        trait_value=roll.trait_value,
        dice=roll.dice,
        base_threshold=base_threshold,
        modifiers=mods,
        penalty=pen,
        threshold=roll.threshold,
        successes=roll.successes,
        success=roll.success,
    )


def event_roll(
    purpose: str,
    label: str,
    base_threshold: int,
    rng: np.random.Generator,
    *,
    modifiers: Breakdown = (),
) -> CombatRoll:
    """An event roll (R2): one d100, success if die ≤ clamp(base + Σ modifiers).

    The die is rolled by :func:`reglas.dice.roll_event`. Source: RULES.md R1, R2.
    """
    mods = tuple(modifiers)
    roll = roll_event(base_threshold + breakdown_total(mods), rng)
    return CombatRoll(
        purpose=purpose,
        label=label,
        trait=None,
        trait_value=None,
        dice=(roll.die,),
        base_threshold=base_threshold,
        modifiers=mods,
        penalty=(),
        threshold=roll.threshold,
        successes=int(roll.success),
        success=roll.success,
    )


# ------------------------------------------------------------------------------- attacks (R19)


class AttackMode(StrEnum):
    """How a weapon attacks: ``ranged`` (firearms), ``melee`` (with a weapon), ``unarmed``."""

    RANGED = "ranged"
    MELEE = "melee"
    UNARMED = "unarmed"


def attack_mode(weapon: Weapon) -> AttackMode:
    """Ranged for firearms, unarmed for bare hands, melee for everything else.

    Source: RULES.md R19.
    """
    if weapon.is_firearm:
        return AttackMode.RANGED
    if weapon.kind == UNARMED:
        return AttackMode.UNARMED
    return AttackMode.MELEE


def to_hit_trait(weapon: Weapon, table: CombatTable = DEFAULT_COMBAT) -> str:
    """Trait slug used to hit: ranged → ``armas_distancia``, melee with a weapon →
    ``armas_cac``, unarmed → ``pelea`` (by default). Source: RULES.md R19."""
    mode = attack_mode(weapon)
    if mode is AttackMode.RANGED:
        return table.trait_ranged
    if mode is AttackMode.UNARMED:
        return table.trait_unarmed
    return table.trait_melee


def to_hit_threshold(
    weapon: Weapon, distance_m: float = 0.0, table: CombatTable = DEFAULT_COMBAT
) -> tuple[int, Breakdown]:
    """Base to-hit threshold (%) and the situation modifiers that the range gives.

    Melee and unarmed: 60 % whatever ``distance_m``. Firearms by distance in m: ≤ 5 → 60,
    ≤ 15 → 40, ≤ 30 → 25, ≤ 60 → 10, farther → 0 (out of range, no bonus); two-handed
    firearms get +15 beyond 15 m (inside range). Raises RulesError for a negative distance or
    a weapon whose kind/caliber is not in the table. Source: RULES.md R19.
    """
    table.check_weapon(weapon)
    if distance_m < 0:
        raise RulesError(f"La distancia no puede ser negativa (se recibió {distance_m} m).")
    if not weapon.is_firearm:
        return table.melee_to_hit, ()
    for band in table.ranged_to_hit:
        if distance_m <= band.max_m:
            modifiers: Breakdown = ()
            if weapon.two_handed and distance_m > table.two_handed_bonus_beyond_m:
                beyond = f"{table.two_handed_bonus_beyond_m:g}"
                modifiers = (
                    Modifier(
                        "two_handed",
                        f"arma de fuego a dos manos a más de {beyond} m",
                        table.two_handed_bonus,
                    ),
                )
            return band.threshold, modifiers
    return table.out_of_range_to_hit, ()


def wound_threshold(weapon: Weapon, table: CombatTable = DEFAULT_COMBAT) -> int:
    """Wound threshold (%): the caliber's for firearms (one d100), the weapon class's for
    melee (Fuerza action roll). Raises RulesError if unknown. Source: RULES.md R19."""
    if weapon.is_firearm:
        table.check_weapon(weapon)
        assert weapon.caliber is not None  # checked above
        return table.caliber(weapon.caliber).threshold
    return table.wound_class(weapon.kind).threshold


def _trait(traits: Mapping[str, int], slug: str) -> int:
    # A trait the sheet lacks counts as 0: the campaign may have renamed or dropped it.
    try:
        return check_trait_value(traits.get(slug, 0))
    except RulesError as exc:
        raise RulesError(f"Rasgo «{slug}»: {exc}") from exc


@dataclass(frozen=True, slots=True)
class Attack:
    """One attack: the to-hit roll and, if it hit, the wound roll. ``kills`` when wounded.

    ``distance_m`` in m. Source: RULES.md R19.
    """

    weapon: Weapon
    mode: AttackMode
    distance_m: float
    to_hit: CombatRoll
    wound: CombatRoll | None

    @property
    def hit(self) -> bool:
        """The to-hit roll succeeded."""
        return self.to_hit.success

    @property
    def kills(self) -> bool:
        """It hit and wounded: a wound kills (no hit points)."""
        return self.wound is not None and self.wound.success

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "weapon": self.weapon.slug,
            "weapon_label": self.weapon.label,
            "mode": self.mode.value,
            "distance_m": self.distance_m,
            "to_hit": self.to_hit.as_dict(),
            "wound": None if self.wound is None else self.wound.as_dict(),
            "hit": self.hit,
            "kills": self.kills,
        }

    def describe(self) -> str:
        """Spanish text with both rolls."""
        lines = [f"{self.weapon.label} a {self.distance_m:g} m.", self.to_hit.describe()]
        if self.wound is None:
            lines.append("No impacta: no se tira para herir.")
        else:
            lines.append(self.wound.describe())
            lines.append("Herida mortal: el objetivo muere." if self.kills else "No hiere.")
        return "\n".join(lines)


def attack(
    weapon: Weapon,
    traits: Mapping[str, int],
    rng: np.random.Generator,
    *,
    distance_m: float = 0.0,
    modifiers: Breakdown = (),
    penalty: Breakdown = (),
    table: CombatTable = DEFAULT_COMBAT,
) -> Attack:
    """Attack with ``weapon``: to-hit action roll, then (if hit) the wound roll.

    ``traits`` maps trait slugs to values (missing → 0). ``distance_m`` in m (firearms).
    ``modifiers`` are extra signed situation points on the to-hit threshold (e.g. grabbed −20);
    ``penalty`` is the attacker's action penalty (R9), applied to the to-hit and the Fuerza
    wound roll but not to a caliber's d100. Dice order: to-hit dice, then wound dice.
    Raises RulesError for a bad weapon, trait value or distance. Source: RULES.md R19.
    """
    base, range_mods = to_hit_threshold(weapon, distance_m, table)
    trait = to_hit_trait(weapon, table)
    to_hit = action_roll(
        "to_hit",
        "Impactar",
        trait,
        _trait(traits, trait),
        base,
        rng,
        modifiers=(*range_mods, *modifiers),
        penalty=penalty,
    )
    wound: CombatRoll | None = None
    if to_hit.success:
        threshold = wound_threshold(weapon, table)
        if weapon.is_firearm:
            wound = event_roll("wound", "Herir (calibre)", threshold, rng)
        else:
            wound = action_roll(
                "wound",
                "Herir",
                table.trait_wound,
                _trait(traits, table.trait_wound),
                threshold,
                rng,
                penalty=penalty,
            )
    return Attack(
        weapon=weapon,
        mode=attack_mode(weapon),
        distance_m=float(distance_m),
        to_hit=to_hit,
        wound=wound,
    )


# ----------------------------------------------------------------------------- zombies (R20)


@dataclass(frozen=True, slots=True)
class ZombieState:
    """One zombie attacking the victim: whether it stands, whether it holds the victim, and on
    how many consecutive turns (up to the last one) it has bitten. Source: RULES.md R20."""

    zombie_id: str
    alive: bool = True
    grabbing: bool = False
    consecutive_bites: int = 0

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "zombie_id": self.zombie_id,
            "alive": self.alive,
            "grabbing": self.grabbing,
            "consecutive_bites": self.consecutive_bites,
        }


@dataclass(frozen=True, slots=True)
class ZombieFight:
    """State between turns of the zombies attacking one victim.

    ``turn`` counts resolved turns; ``bitten`` says the victim has been bitten in this fight
    (infected, R13); ``victim_dead`` ends it. Several humans against a horde: keep one
    ``ZombieFight`` per victim with the zombies attacking that victim, and mark zombies killed
    by other humans (who act first) with :meth:`with_killed` before resolving the turn.
    Source: RULES.md R20.
    """

    zombies: tuple[ZombieState, ...]
    turn: int = 0
    bitten: bool = False
    victim_dead: bool = False

    @classmethod
    def start(cls, zombie_ids: Iterable[str]) -> ZombieFight:
        """A new fight: every zombie standing, none grabbing. Raises RulesError on repeated
        or no ids."""
        ids = [str(z) for z in zombie_ids]
        if not ids:
            raise RulesError("Un combate contra zombis necesita al menos un zombi.")
        if len(set(ids)) != len(ids):
            raise RulesError("Los identificadores de los zombis deben ser distintos.")
        return cls(zombies=tuple(ZombieState(z) for z in ids))

    def zombie(self, zombie_id: str) -> ZombieState:
        """A zombie by id. Raises RulesError if it is not in this fight."""
        for z in self.zombies:
            if z.zombie_id == zombie_id:
                return z
        raise RulesError(f"El zombi «{zombie_id}» no está en este combate.")

    @property
    def standing(self) -> tuple[ZombieState, ...]:
        """Zombies still standing."""
        return tuple(z for z in self.zombies if z.alive)

    @property
    def grabbers(self) -> tuple[ZombieState, ...]:
        """Standing zombies holding the victim."""
        return tuple(z for z in self.zombies if z.alive and z.grabbing)

    @property
    def over(self) -> bool:
        """The victim is dead or no zombie stands."""
        return self.victim_dead or not self.standing

    def with_killed(self, zombie_ids: Iterable[str]) -> ZombieFight:
        """The same fight with these zombies destroyed (e.g. by another human's attack)."""
        dead = {str(z) for z in zombie_ids}
        for z in dead:
            self.zombie(z)
        return replace(
            self,
            zombies=tuple(
                replace(z, alive=False, grabbing=False, consecutive_bites=0)
                if z.zombie_id in dead
                else z
                for z in self.zombies
            ),
        )

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "zombies": [z.as_dict() for z in self.zombies],
            "turn": self.turn,
            "bitten": self.bitten,
            "victim_dead": self.victim_dead,
        }


@dataclass(frozen=True, slots=True)
class AttackZombie:
    """Victim's action: attack a zombie (a grabbing one if grabbed, then at −20 to hit)."""

    zombie_id: str
    weapon: Weapon
    distance_m: float = 0.0


@dataclass(frozen=True, slots=True)
class EscapeZombie:
    """Victim's action: break free from one grabbing zombie with Agilidad or Pelea
    (``trait`` None → the higher of the two)."""

    zombie_id: str
    trait: str | None = None


VictimAction = AttackZombie | EscapeZombie | None
"""What the victim does this turn (None: nothing, e.g. it does not fight back)."""


@dataclass(frozen=True, slots=True)
class ZombieRoll:
    """A zombie's grab or bite roll."""

    zombie_id: str
    roll: CombatRoll

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {"zombie_id": self.zombie_id, "roll": self.roll.as_dict()}


DEATH_SAME_TURN = "bites_same_turn"
DEATH_CONSECUTIVE = "consecutive_bites"


@dataclass(frozen=True, slots=True)
class ZombieTurn:
    """One resolved turn against zombies.

    ``attack`` or ``escape`` is the victim's roll (or both None); ``killed`` the zombie it
    destroyed, if any; ``bites`` and ``grabs`` the zombies' rolls in order; ``bites_this_turn``
    how many bit. ``bitten`` → the victim is infected now (R13: the immediate Medicina
    amputation roll is the caller's). ``victim_dead`` with ``death_cause``
    (``bites_same_turn`` or ``consecutive_bites``). ``fight`` is the state for the next turn.
    Source: RULES.md R20.
    """

    turn: int
    attack: Attack | None
    escape: CombatRoll | None
    target: str | None
    killed: str | None
    escaped: bool
    bites: tuple[ZombieRoll, ...]
    grabs: tuple[ZombieRoll, ...]
    bites_this_turn: int
    bitten: bool
    victim_dead: bool
    death_cause: str | None
    fight: ZombieFight

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "turn": self.turn,
            "attack": None if self.attack is None else self.attack.as_dict(),
            "escape": None if self.escape is None else self.escape.as_dict(),
            "target": self.target,
            "killed": self.killed,
            "escaped": self.escaped,
            "bites": [b.as_dict() for b in self.bites],
            "grabs": [g.as_dict() for g in self.grabs],
            "bites_this_turn": self.bites_this_turn,
            "bitten": self.bitten,
            "victim_dead": self.victim_dead,
            "death_cause": self.death_cause,
            "fight": self.fight.as_dict(),
        }

    def describe(self) -> str:
        """Spanish text of the whole turn with every die."""
        lines = [f"Turno {self.turn}."]
        if self.attack is not None:
            lines.append(f"La víctima ataca al zombi {self.target}:")
            lines.append(self.attack.describe())
        if self.escape is not None:
            lines.append(f"La víctima intenta zafarse del zombi {self.target}:")
            lines.append(self.escape.describe())
        for b in self.bites:
            lines.append(f"Zombi {b.zombie_id}, {b.roll.describe()}")
        for g in self.grabs:
            lines.append(f"Zombi {g.zombie_id}, {g.roll.describe()}")
        if self.bitten:
            lines.append(
                f"Mordiscos este turno: {self.bites_this_turn}. La víctima está infectada."
            )
        if self.victim_dead:
            why = (
                "mordida por varios zombis a la vez"
                if self.death_cause == DEATH_SAME_TURN
                else "mordida por el mismo zombi en turnos consecutivos"
            )
            lines.append(f"La víctima muere ({why}).")
        return "\n".join(lines)


def _escape_trait(traits: Mapping[str, int], chosen: str | None, table: CombatTable) -> str:
    if chosen is not None:
        if chosen not in table.escape_traits:
            allowed = " o ".join(table.escape_traits)
            raise RulesError(f"Para zafarse se usa {allowed}, no «{chosen}».")
        return chosen
    # The higher trait; ties go to the first listed (Agilidad).
    return max(table.escape_traits, key=lambda slug: _trait(traits, slug))


def resolve_zombie_turn(
    fight: ZombieFight,
    action: VictimAction,
    traits: Mapping[str, int],
    rng: np.random.Generator,
    *,
    penalty: Breakdown = (),
    table: CombatTable = DEFAULT_COMBAT,
) -> ZombieTurn:
    """Resolve one turn of zombies against one victim.

    1. The victim acts (humans first): :class:`AttackZombie` (R19; −20 to hit when grabbed, and
       then only against a grabbing zombie) or :class:`EscapeZombie` (action roll with
       Agilidad or Pelea against 40 %, only from a grabbing zombie), or nothing (None).
    2. Each zombie that holds the victim and was neither killed nor escaped from rolls to bite
       (60 %): a bite infects and the zombie keeps its grab.
    3. If the victim still lives, each standing zombie not holding it rolls to grab (40 %).
    The victim dies when 3+ zombies bite in the same turn or one zombie bites on its 3rd
    consecutive turn (both numbers from the table). ``traits`` maps the victim's trait slugs to
    values; ``penalty`` is its action penalty (R9). Dice order: victim's roll(s), bites in
    zombie order, grabs in zombie order.
    Raises RulesError if the fight is over, the target is unknown or dead, or the action is not
    allowed (escaping when not grabbed, attacking a non-grabbing zombie while grabbed).
    Source: RULES.md R20.
    """
    if fight.victim_dead:
        raise RulesError("La víctima ya ha muerto: el combate ha terminado.")
    if not fight.standing:
        raise RulesError("No queda ningún zombi en pie: el combate ha terminado.")
    zombies = {z.zombie_id: z for z in fight.zombies}
    grabbed = bool(fight.grabbers)
    attack_result: Attack | None = None
    escape_roll: CombatRoll | None = None
    target: str | None = None
    killed: str | None = None
    escaped = False

    if action is not None:
        target = action.zombie_id
        zombie = fight.zombie(target)
        if not zombie.alive:
            raise RulesError(f"El zombi «{target}» ya está destruido.")
        if isinstance(action, EscapeZombie):
            if not zombie.grabbing:
                raise RulesError(
                    f"El zombi «{target}» no agarra a la víctima: nada de qué zafarse."
                )
            trait = _escape_trait(traits, action.trait, table)
            escape_roll = action_roll(
                "escape",
                "Zafarse",
                trait,
                _trait(traits, trait),
                table.escape,
                rng,
                penalty=penalty,
            )
            if escape_roll.success:
                escaped = True
                zombies[target] = replace(zombie, grabbing=False, consecutive_bites=0)
        else:
            if grabbed and not zombie.grabbing:
                raise RulesError(
                    "La víctima está agarrada: solo puede atacar a un zombi que la agarra."
                )
            grab_mods: Breakdown = ()
            if grabbed:
                grab_mods = (
                    Modifier("grabbed", "agarrado por el zombi", -table.grabbed_to_hit_penalty),
                )
            attack_result = attack(
                action.weapon,
                traits,
                rng,
                distance_m=action.distance_m,
                modifiers=grab_mods,
                penalty=penalty,
                table=table,
            )
            if attack_result.kills:
                killed = target
                zombies[target] = replace(zombie, alive=False, grabbing=False, consecutive_bites=0)

    bites: list[ZombieRoll] = []
    bit_ids: set[str] = set()
    for zombie_id, zombie in list(zombies.items()):
        if zombie.alive and zombie.grabbing:
            roll = event_roll("bite", "Morder", table.bite, rng)
            bites.append(ZombieRoll(zombie_id, roll))
            if roll.success:
                bit_ids.add(zombie_id)
    # Counters: +1 for each zombie that bit this turn, back to 0 for every other one.
    for zombie_id, zombie in list(zombies.items()):
        count = zombie.consecutive_bites + 1 if zombie_id in bit_ids else 0
        zombies[zombie_id] = replace(zombie, consecutive_bites=count)

    n_bites = len(bit_ids)
    cause: str | None = None
    if n_bites >= table.bites_same_turn_to_die:
        cause = DEATH_SAME_TURN
    elif any(z.consecutive_bites >= table.consecutive_bites_to_die for z in zombies.values()):
        cause = DEATH_CONSECUTIVE
    dead = cause is not None

    grabs: list[ZombieRoll] = []
    if not dead:
        for zombie_id, zombie in list(zombies.items()):
            if zombie.alive and not zombie.grabbing:
                roll = event_roll("grab", "Agarrar", table.grab, rng)
                grabs.append(ZombieRoll(zombie_id, roll))
                if roll.success:
                    zombies[zombie_id] = replace(zombie, grabbing=True)

    new_fight = ZombieFight(
        zombies=tuple(zombies[z.zombie_id] for z in fight.zombies),
        turn=fight.turn + 1,
        bitten=fight.bitten or n_bites > 0,
        victim_dead=dead,
    )
    return ZombieTurn(
        turn=new_fight.turn,
        attack=attack_result,
        escape=escape_roll,
        target=target,
        killed=killed,
        escaped=escaped,
        bites=tuple(bites),
        grabs=tuple(grabs),
        bites_this_turn=n_bites,
        bitten=n_bites > 0,
        victim_dead=dead,
        death_cause=cause,
        fight=new_fight,
    )


# ------------------------------------------------------------------------------ humans (R21)


@dataclass(frozen=True, slots=True)
class Combatant:
    """A human in an exchange: a name for the text, the weapon, trait values by slug, the
    action penalty (R9) and extra signed to-hit modifiers. Source: RULES.md R21."""

    name: str
    weapon: Weapon
    traits: Mapping[str, int]
    penalty: Breakdown = ()
    modifiers: Breakdown = ()


@dataclass(frozen=True, slots=True)
class HumanExchange:
    """A simultaneous exchange: each side's attack; ``a_dead`` if B wounded A, ``b_dead`` if A
    wounded B — both can die. Source: RULES.md R21."""

    a: Combatant
    b: Combatant
    a_attack: Attack
    b_attack: Attack
    distance_m: float

    @property
    def a_dead(self) -> bool:
        """B's attack wounded (killed) A."""
        return self.b_attack.kills

    @property
    def b_dead(self) -> bool:
        """A's attack wounded (killed) B."""
        return self.a_attack.kills

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "a": self.a.name,
            "b": self.b.name,
            "distance_m": self.distance_m,
            "a_attack": self.a_attack.as_dict(),
            "b_attack": self.b_attack.as_dict(),
            "a_dead": self.a_dead,
            "b_dead": self.b_dead,
        }

    def describe(self) -> str:
        """Spanish text with both attacks."""
        dead = [c.name for c, d in ((self.a, self.a_dead), (self.b, self.b_dead)) if d]
        outcome = "Mueren: " + ", ".join(dead) + "." if dead else "Nadie muere."
        return "\n".join(
            [
                f"Ataca {self.a.name}:",
                self.a_attack.describe(),
                f"Ataca {self.b.name}:",
                self.b_attack.describe(),
                outcome,
            ]
        )


def resolve_human_exchange(
    a: Combatant,
    b: Combatant,
    rng: np.random.Generator,
    *,
    distance_m: float = 0.0,
    table: CombatTable = DEFAULT_COMBAT,
) -> HumanExchange:
    """Both humans attack at once at ``distance_m`` m (R19 each); each who hits rolls to wound;
    both can die. Dice order: A's attack, then B's (simultaneous: the order changes nothing).
    Raises RulesError as :func:`attack`. Source: RULES.md R21.
    """
    a_attack = attack(
        a.weapon,
        a.traits,
        rng,
        distance_m=distance_m,
        modifiers=a.modifiers,
        penalty=a.penalty,
        table=table,
    )
    b_attack = attack(
        b.weapon,
        b.traits,
        rng,
        distance_m=distance_m,
        modifiers=b.modifiers,
        penalty=b.penalty,
        table=table,
    )
    return HumanExchange(
        a=a, b=b, a_attack=a_attack, b_attack=b_attack, distance_m=float(distance_m)
    )
