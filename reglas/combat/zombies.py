"""Combat against zombies: one victim, the zombies attacking it, turn by turn.

Readings we chose where the rulebook is silent:

* Zombie turn order: the victim acts (humans first); then every zombie that was already
  grabbing and was neither escaped from nor killed rolls to bite — including those the victim
  could not deal with, since it escapes "from one zombie at a time"; then every zombie not
  grabbing (also one just escaped from: escaping "does not remove the threat") rolls to grab.
  A new grab bites on the next turn, after the victim's chance to break free.
* "Bitten by the same zombie on three consecutive turns": a zombie's counter goes up on each
  turn it bites and back to 0 on any turn it does not.

Source: RULES.md R20 (seed: "Sistema, combate").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from reglas.combat.attacks import Attack, _trait, attack
from reglas.combat.rolls import CombatRoll, action_roll, event_roll
from reglas.core import Breakdown, Modifier
from reglas.errors import RulesError
from reglas.tables import DEFAULT_COMBAT, CombatTable, Weapon


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
            raise RulesError(
                "fight_needs_zombie", "Un combate contra zombis necesita al menos un zombi."
            )
        if len(set(ids)) != len(ids):
            raise RulesError(
                "fight_zombie_ids_repeated",
                "Los identificadores de los zombis deben ser distintos.",
            )
        return cls(zombies=tuple(ZombieState(z) for z in ids))

    def zombie(self, zombie_id: str) -> ZombieState:
        """A zombie by id. Raises RulesError if it is not in this fight."""
        for z in self.zombies:
            if z.zombie_id == zombie_id:
                return z
        raise RulesError(
            "zombie_not_in_fight",
            f"El zombi «{zombie_id}» no está en este combate.",
            zombie_id=zombie_id,
        )

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
            raise RulesError(
                "escape_trait_not_allowed",
                f"Para zafarse se usa {allowed}, no «{chosen}».",
                allowed=allowed,
                chosen=chosen,
            )
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
        raise RulesError("fight_victim_dead", "La víctima ya ha muerto: el combate ha terminado.")
    if not fight.standing:
        raise RulesError(
            "fight_no_zombie_standing", "No queda ningún zombi en pie: el combate ha terminado."
        )
    zombies = {z.zombie_id: z for z in fight.zombies}
    victim = _victim_acts(fight, action, zombies, traits, rng, penalty, table)
    bites, n_bites = _zombies_bite(zombies, rng, table)
    cause = _death_cause(zombies, n_bites, table)
    dead = cause is not None
    grabs = () if dead else _zombies_grab(zombies, rng, table)
    new_fight = ZombieFight(
        zombies=tuple(zombies[z.zombie_id] for z in fight.zombies),
        turn=fight.turn + 1,
        bitten=fight.bitten or n_bites > 0,
        victim_dead=dead,
    )
    return ZombieTurn(
        turn=new_fight.turn,
        attack=victim.attack,
        escape=victim.escape,
        target=victim.target,
        killed=victim.killed,
        escaped=victim.escaped,
        bites=bites,
        grabs=grabs,
        bites_this_turn=n_bites,
        bitten=n_bites > 0,
        victim_dead=dead,
        death_cause=cause,
        fight=new_fight,
    )


@dataclass(frozen=True, slots=True)
class _VictimStep:
    """Step 1 of a zombie turn: the victim's ``attack`` or ``escape`` roll (or neither), its
    ``target`` zombie, the zombie it ``killed`` and whether it ``escaped``."""

    attack: Attack | None = None
    escape: CombatRoll | None = None
    target: str | None = None
    killed: str | None = None
    escaped: bool = False


def _victim_acts(
    fight: ZombieFight,
    action: VictimAction,
    zombies: dict[str, ZombieState],
    traits: Mapping[str, int],
    rng: np.random.Generator,
    penalty: Breakdown,
    table: CombatTable,
) -> _VictimStep:
    """Step 1 of ``resolve_zombie_turn``: the victim attacks or escapes (or does nothing).

    ``zombies`` (by id) is updated in place: a zombie escaped from lets go and its bite streak
    ends; a zombie killed falls. Draws the victim's dice only. Raises RulesError for an
    unknown or destroyed target, escaping from a zombie that does not grab, or attacking a
    non-grabbing zombie while grabbed. Source: RULES.md R19, R20.
    """
    if action is None:
        return _VictimStep()
    target = action.zombie_id
    zombie = fight.zombie(target)
    if not zombie.alive:
        raise RulesError(
            "zombie_destroyed", f"El zombi «{target}» ya está destruido.", zombie=target
        )
    if isinstance(action, EscapeZombie):
        if not zombie.grabbing:
            raise RulesError(
                "zombie_not_grabbing",
                f"El zombi «{target}» no agarra a la víctima: nada de qué zafarse.",
                zombie=target,
            )
        trait = _escape_trait(traits, action.trait, table)
        escape_roll = action_roll(
            "escape", "Zafarse", trait, _trait(traits, trait), table.escape, rng, penalty=penalty
        )
        if escape_roll.success:
            zombies[target] = replace(zombie, grabbing=False, consecutive_bites=0)
        return _VictimStep(escape=escape_roll, target=target, escaped=escape_roll.success)
    grabbed = bool(fight.grabbers)
    if grabbed and not zombie.grabbing:
        raise RulesError(
            "fight_grabbed_attacks_grabber",
            "La víctima está agarrada: solo puede atacar a un zombi que la agarra.",
        )
    grab_mods: Breakdown = ()
    if grabbed:
        grab_mods = (Modifier("grabbed", "agarrado por el zombi", -table.grabbed_to_hit_penalty),)
    result = attack(
        action.weapon,
        traits,
        rng,
        distance_m=action.distance_m,
        modifiers=grab_mods,
        penalty=penalty,
        table=table,
    )
    if not result.kills:
        return _VictimStep(attack=result, target=target)
    zombies[target] = replace(zombie, alive=False, grabbing=False, consecutive_bites=0)
    return _VictimStep(attack=result, target=target, killed=target)


def _zombies_bite(
    zombies: dict[str, ZombieState], rng: np.random.Generator, table: CombatTable
) -> tuple[tuple[ZombieRoll, ...], int]:
    """Step 2 of ``resolve_zombie_turn``: each standing zombie still grabbing rolls to bite.

    Returns the bite rolls in zombie order and how many bit. ``zombies`` is updated in place:
    the bite streak of each zombie that bit goes up by 1, every other one's goes back to 0.
    Source: RULES.md R20.
    """
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
    return tuple(bites), len(bit_ids)


def _death_cause(
    zombies: Mapping[str, ZombieState], n_bites: int, table: CombatTable
) -> str | None:
    """Why the victim dies this turn: ``bites_same_turn`` (``n_bites`` at least the table's
    number), else ``consecutive_bites`` (a zombie's streak at the table's number), else None.
    Source: RULES.md R20."""
    if n_bites >= table.bites_same_turn_to_die:
        return DEATH_SAME_TURN
    if any(z.consecutive_bites >= table.consecutive_bites_to_die for z in zombies.values()):
        return DEATH_CONSECUTIVE
    return None


def _zombies_grab(
    zombies: dict[str, ZombieState], rng: np.random.Generator, table: CombatTable
) -> tuple[ZombieRoll, ...]:
    """Step 3 of ``resolve_zombie_turn``: each standing zombie not grabbing rolls to grab.

    Returns the grab rolls in zombie order; ``zombies`` is updated in place (a success grabs).
    Source: RULES.md R20.
    """
    grabs: list[ZombieRoll] = []
    for zombie_id, zombie in list(zombies.items()):
        if zombie.alive and not zombie.grabbing:
            roll = event_roll("grab", "Agarrar", table.grab, rng)
            grabs.append(ZombieRoll(zombie_id, roll))
            if roll.success:
                zombies[zombie_id] = replace(zombie, grabbing=True)
    return tuple(grabs)
