"""The vectorised zombie fight: many fights of a party against Z zombies, numpy over fights.

Each simulated fight plays R20 as ``resolve_zombie_turn`` does, one ``ZombieFight`` per victim:

* Allocation (our reading for a party; the rulebook fights one victim at a time): zombie j
  starts on member j mod H. When a victim dies, each zombie that was on it (in zombie order)
  lets go, forgets its streak and goes for the living member with the fewest standing
  zombies on it (ties: the lowest-numbered).
* Humans first. A member with no standing zombie on it helps: it attacks the first standing
  zombie of the fight (free, no −20); helpers act first, in member order. Then every victim
  acts on its own zombies: grabbed, it attacks the first zombie holding it at −20 or escapes
  from it (``when_grabbed``); free, it attacks the first zombie on it.
* Then every zombie still holding its victim bites (a streak counter per zombie: +1 on a
  bite, 0 on any turn without one); the victim dies at 3+ bites in the turn or a streak of 3.
  A bite on a survivor not yet infected gets the one amputation try (R13) when someone with
  Medicina is present; success removes the infection, failure leaves it.
* Then, if its victim lives, every standing zombie not holding it rolls to grab (also one
  just escaped from).

A fight stops when every zombie or every member is down, or after ``turns`` turns.
Source: RULES.md R13, R19, R20.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from reglas.combat.odds.base import MemberChances
from reglas.tables import CombatTable

Bools = NDArray[np.bool_]
Ints = NDArray[np.int64]

OUTCOME_BITS = {"kill_all": 1, "bitten": 2, "infected": 4, "dead": 8, "all_dead": 16}
"""Bits of a fight's joint outcome code in ``ZombieTally.joint``."""


@dataclass(slots=True)
class ZombieTally:
    """Counts over simulated fights: ``fights``; fights where every zombie fell
    (``kill_all``), where at least one member was ``bitten``/``infected``/``dead``, where all
    died (``all_dead``); per member ``member_bitten``/``member_infected``/``member_dead``/
    ``member_amputated``; ``zombies_killed`` summed; ``dice`` the d100 the rolls stand for and
    ``draws`` the uniforms drawn; ``joint`` the fights by joint outcome code (a sum of
    ``OUTCOME_BITS``: 1 every zombie fell, 2 someone bitten, 4 infected, 8 dead, 16 all dead).
    Source: RULES.md R20."""

    members: int
    fights: int = 0
    kill_all: int = 0
    bitten: int = 0
    infected: int = 0
    dead: int = 0
    all_dead: int = 0
    zombies_killed: int = 0
    dice: int = 0
    draws: int = 0
    member_bitten: list[int] = field(default_factory=list)
    member_infected: list[int] = field(default_factory=list)
    member_dead: list[int] = field(default_factory=list)
    member_amputated: list[int] = field(default_factory=list)
    joint: list[int] = field(default_factory=lambda: [0] * 32)

    def __post_init__(self) -> None:
        for name in ("member_bitten", "member_infected", "member_dead", "member_amputated"):
            if not getattr(self, name):
                setattr(self, name, [0] * self.members)


@dataclass(slots=True)
class _Fights:
    """The state of ``n`` fights: members (n, H) and zombies (n, Z)."""

    h_alive: Bools
    bitten: Bools
    infected: Bools
    amputated: Bools
    z_alive: Bools
    z_grab: Bools
    z_streak: Ints
    z_target: Ints
    rows: Ints
    dice: int = 0
    draws: int = 0

    @classmethod
    def start(cls, n: int, humans: int, zombies: int) -> _Fights:
        def no(k: int) -> Bools:
            return np.zeros((n, k), dtype=np.bool_)

        target = np.broadcast_to(np.arange(zombies, dtype=np.int64) % humans, (n, zombies))
        return cls(
            h_alive=np.ones((n, humans), dtype=np.bool_),
            bitten=no(humans),
            infected=no(humans),
            amputated=no(humans),
            z_alive=np.ones((n, zombies), dtype=np.bool_),
            z_grab=no(zombies),
            z_streak=np.zeros((n, zombies), dtype=np.int64),
            z_target=target.copy(),
            rows=np.arange(n, dtype=np.int64),
        )

    def uniform(
        self, rng: np.random.Generator, shape: int | tuple[int, int]
    ) -> NDArray[np.float64]:
        out = rng.random(shape)
        self.draws += out.size
        return out

    def attack(
        self,
        acting: Bools,
        p_hit: float | NDArray[np.float64],
        m: MemberChances,
        rng: np.random.Generator,
    ) -> Bools:
        """To hit, then to wound (R19): the fights in which the attack destroys its target."""
        n = acting.size
        hit = acting & (self.uniform(rng, n) < p_hit)
        kill = hit & (self.uniform(rng, n) < m.wound)
        self.dice += int(acting.sum()) * m.hit_dice + int(hit.sum()) * m.wound_dice
        return kill

    def destroy(self, killed: Bools, target: Ints) -> None:
        rows, cols = self.rows[killed], target[killed]
        self.z_alive[rows, cols] = False
        self.z_grab[rows, cols] = False
        self.z_streak[rows, cols] = 0


def _helpers_act(
    f: _Fights, members: Sequence[MemberChances], active: Bools, rng: np.random.Generator
) -> None:
    """Members with no standing zombie on them attack the fight's first standing zombie."""
    on_member = np.stack(
        [(f.z_alive & (f.z_target == h)).any(axis=1) for h in range(len(members))], axis=1
    )
    free = f.h_alive & ~on_member & active[:, None]
    for h, m in enumerate(members):
        acting = free[:, h] & f.z_alive.any(axis=1)
        if acting.any():
            f.destroy(f.attack(acting, m.hit, m, rng), f.z_alive.argmax(axis=1))


def _victims_act(
    f: _Fights, members: Sequence[MemberChances], active: Bools, rng: np.random.Generator
) -> None:
    """Each victim attacks (−20 if grabbed) or escapes from its first holding zombie."""
    for h, m in enumerate(members):
        mine = f.z_alive & (f.z_target == h)
        acting = f.h_alive[:, h] & mine.any(axis=1) & active
        if not acting.any():
            continue
        held = mine & f.z_grab
        grabbed = held.any(axis=1)
        target = np.where(grabbed, held.argmax(axis=1), mine.argmax(axis=1))
        attacking = acting
        if m.escapes:
            trying = acting & grabbed
            freed = trying & (f.uniform(rng, acting.size) < m.escape)
            f.dice += int(trying.sum()) * m.escape_dice
            f.z_grab[f.rows[freed], target[freed]] = False
            f.z_streak[f.rows[freed], target[freed]] = 0
            attacking = acting & ~grabbed
        p_hit = np.where(grabbed, m.hit_grabbed, m.hit)
        f.destroy(f.attack(attacking, p_hit, m, rng), target)


def _zombies_bite(
    f: _Fights,
    humans: int,
    active: Bools,
    rng: np.random.Generator,
    table: CombatTable,
    amputation: tuple[float, int],
) -> None:
    """Holding zombies bite; deaths; the amputation tries of the bitten survivors."""
    biting = f.z_alive & f.z_grab & active[:, None]
    bit = biting & (f.uniform(rng, biting.shape) < table.bite / 100)
    f.dice += int(biting.sum())
    f.z_streak = np.where(bit, f.z_streak + 1, 0)
    chance, dice = amputation
    for h in range(humans):
        on_h = f.z_target == h
        n_bites = (bit & on_h).sum(axis=1)
        streak = (on_h & f.z_alive & (f.z_streak >= table.consecutive_bites_to_die)).any(axis=1)
        dies = f.h_alive[:, h] & ((n_bites >= table.bites_same_turn_to_die) | streak)
        f.bitten[:, h] |= n_bites > 0
        f.infected[:, h] |= dies
        f.h_alive[:, h] &= ~dies
        survivor = f.h_alive[:, h] & (n_bites > 0)
        for r in range(int(n_bites.max(initial=0))):
            need = survivor & (n_bites > r) & ~f.infected[:, h]
            if chance > 0:
                cured = need & (f.uniform(rng, need.size) < chance)
                f.dice += int(need.sum()) * dice
                f.amputated[:, h] |= cured
                f.infected[:, h] |= need & ~cured
            else:
                f.infected[:, h] |= need


def _zombies_grab(f: _Fights, active: Bools, rng: np.random.Generator, table: CombatTable) -> None:
    """Standing zombies not holding a living victim roll to grab it."""
    victim_alive = f.h_alive[f.rows[:, None], f.z_target]
    trying = f.z_alive & ~f.z_grab & victim_alive & active[:, None]
    f.z_grab |= trying & (f.uniform(rng, trying.shape) < table.grab / 100)
    f.dice += int(trying.sum())


def _reallocate(f: _Fights, humans: int) -> None:
    """Zombies whose victim died go, in zombie order, for the least attacked living member."""
    orphan = f.z_alive & ~f.h_alive[f.rows[:, None], f.z_target]
    if not orphan.any():
        return
    f.z_grab[orphan] = False
    f.z_streak[orphan] = 0
    staying = f.z_alive & ~orphan
    load = np.stack([(staying & (f.z_target == h)).sum(axis=1) for h in range(humans)], axis=1)
    load = np.where(f.h_alive, load, np.iinfo(np.int64).max // 2)
    for j in range(orphan.shape[1]):
        moving = orphan[:, j]
        if moving.any():
            new = load.argmin(axis=1)
            f.z_target[moving, j] = new[moving]
            load[f.rows[moving], new[moving]] += 1


def simulate_zombie_fights(
    members: Sequence[MemberChances],
    zombies: int,
    turns: int,
    fights: int,
    rng: np.random.Generator,
    table: CombatTable,
    amputation: tuple[float, int] = (0.0, 0),
    tally: ZombieTally | None = None,
) -> ZombieTally:
    """Simulate ``fights`` fights of ``members`` (chances from ``member_chances``, in order)
    against ``zombies`` zombies for up to ``turns`` turns, numpy over the fights.

    ``amputation`` is (chance 0..1, dice) of the try after a bite ((0, 0): nobody can try).
    Adds into ``tally`` (a new one if None) and returns it. Inputs are not checked here
    (``reglas.combat.odds.zombie_odds`` does). Source: RULES.md R13, R19, R20.
    """
    humans = len(members)
    out = tally if tally is not None else ZombieTally(members=humans)
    f = _Fights.start(fights, humans, zombies)
    for _ in range(turns):
        active = f.h_alive.any(axis=1) & f.z_alive.any(axis=1)
        if not active.any():
            break
        _helpers_act(f, members, active, rng)
        _victims_act(f, members, active, rng)
        _zombies_bite(f, humans, active, rng, table, amputation)
        _zombies_grab(f, active, rng, table)
        _reallocate(f, humans)
    _count(out, f)
    return out


def _count(out: ZombieTally, f: _Fights) -> None:
    """Add the finished fights ``f`` into ``out``."""
    dead = ~f.h_alive
    flags = {
        "kill_all": ~f.z_alive.any(axis=1),
        "bitten": f.bitten.any(axis=1),
        "infected": f.infected.any(axis=1),
        "dead": dead.any(axis=1),
        "all_dead": dead.all(axis=1),
    }
    code = sum(flag.astype(np.int64) * OUTCOME_BITS[k] for k, flag in flags.items())
    for i, count in enumerate(np.bincount(np.asarray(code), minlength=32)):
        out.joint[i] += int(count)
    out.fights += f.rows.size
    out.kill_all += int(flags["kill_all"].sum())
    out.bitten += int(flags["bitten"].sum())
    out.infected += int(flags["infected"].sum())
    out.dead += int(flags["dead"].sum())
    out.all_dead += int(flags["all_dead"].sum())
    out.zombies_killed += int((~f.z_alive).sum())
    out.dice += f.dice
    out.draws += f.draws
    for h in range(f.h_alive.shape[1]):
        out.member_bitten[h] += int(f.bitten[:, h].sum())
        out.member_infected[h] += int(f.infected[:, h].sum())
        out.member_dead[h] += int(dead[:, h].sum())
        out.member_amputated[h] += int(f.amputated[:, h].sum())
