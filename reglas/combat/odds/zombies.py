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
  Medicina is present; success removes the infection, failure leaves it. A victim killed by
  bites counts as bitten and infected (nobody amputates a dead limb).
* Then, if its victim lives, every standing zombie not holding it rolls to grab (also one
  just escaped from).

A fight stops when every zombie or every member is down, or after ``turns`` turns. Each roll
is one uniform against its exact chance (``reglas.combat.odds.base``), drawn only in the fights
where the roll is made. Source: RULES.md R13, R19, R20.
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
Smalls = NDArray[np.int16]
"""Zombie streaks (≤ turns ≤ 100) and victims (< 20): int16 keeps the (Z, n) arrays small."""

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
    """The state of ``n`` fights, fights along the last axis (so reductions over the few
    members or zombies combine whole rows): members (H, n), zombies (Z, n)."""

    h_alive: Bools
    bitten: Bools
    infected: Bools
    amputated: Bools
    z_alive: Bools
    z_grab: Bools
    z_streak: Smalls
    z_target: Smalls
    cols: Ints
    dice: int = 0
    draws: int = 0

    @classmethod
    def start(cls, n: int, humans: int, zombies: int) -> _Fights:
        def no(k: int) -> Bools:
            return np.zeros((k, n), dtype=np.bool_)

        target = np.arange(zombies, dtype=np.int16) % humans
        return cls(
            h_alive=np.ones((humans, n), dtype=np.bool_),
            bitten=no(humans),
            infected=no(humans),
            amputated=no(humans),
            z_alive=np.ones((zombies, n), dtype=np.bool_),
            z_grab=no(zombies),
            z_streak=np.zeros((zombies, n), dtype=np.int16),
            z_target=np.repeat(target[:, None], n, axis=1),
            cols=np.arange(n, dtype=np.int64),
        )

    @property
    def n(self) -> int:
        return int(self.cols.size)

    def subset(self, keep: Bools, carry: bool = True) -> _Fights:
        """The fights where ``keep`` holds (copies), with the dice and draws counters carried
        over when ``carry`` (one part of a split only, so they are counted once)."""
        return _Fights(
            h_alive=self.h_alive[:, keep],
            bitten=self.bitten[:, keep],
            infected=self.infected[:, keep],
            amputated=self.amputated[:, keep],
            z_alive=self.z_alive[:, keep],
            z_grab=self.z_grab[:, keep],
            z_streak=self.z_streak[:, keep],
            z_target=self.z_target[:, keep],
            cols=np.arange(int(keep.sum()), dtype=np.int64),
            dice=self.dice if carry else 0,
            draws=self.draws if carry else 0,
        )

    def draw(self, rng: np.random.Generator, mask: Bools, p: float) -> Bools:
        """One roll with success chance ``p`` where ``mask`` holds (uniforms drawn there only);
        False elsewhere."""
        out = np.zeros(mask.shape, dtype=np.bool_)
        k = int(np.count_nonzero(mask))
        if k:
            out[mask] = rng.random(k) < p
            self.draws += k
        return out

    def attack(
        self, acting: Bools, grabbed: Bools | None, m: MemberChances, rng: np.random.Generator
    ) -> Bools:
        """To hit (at −20 where ``grabbed``), then to wound (R19): the fights in which the
        attack destroys its target."""
        if grabbed is None:
            hit = self.draw(rng, acting, m.hit)
        else:
            hit = self.draw(rng, acting & ~grabbed, m.hit)
            hit |= self.draw(rng, acting & grabbed, m.hit_grabbed)
        kill = self.draw(rng, hit, m.wound)
        self.dice += int(np.count_nonzero(acting)) * m.hit_dice
        self.dice += int(np.count_nonzero(hit)) * m.wound_dice
        return kill

    def destroy(self, killed: Bools, target: Ints) -> None:
        rows, cols = target[killed], self.cols[killed]
        self.z_alive[rows, cols] = False
        self.z_grab[rows, cols] = False
        self.z_streak[rows, cols] = 0

    def victim_alive(self) -> Bools:
        """(Z, n): whether each zombie's victim lives."""
        if self.h_alive.shape[0] == 1:
            return np.broadcast_to(self.h_alive, self.z_target.shape)
        alive: Bools = np.take_along_axis(self.h_alive, self.z_target, axis=0)
        return alive


def _helpers_act(
    f: _Fights, members: Sequence[MemberChances], active: Bools, rng: np.random.Generator
) -> None:
    """Members with no standing zombie on them attack the fight's first standing zombie."""
    if len(members) == 1:
        return  # alone, a member with no zombie on it means no zombie stands
    on_member = np.stack([(f.z_alive & (f.z_target == h)).any(axis=0) for h in range(len(members))])
    free = f.h_alive & ~on_member & active
    for h, m in enumerate(members):
        acting = free[h] & f.z_alive.any(axis=0)
        if acting.any():
            f.destroy(f.attack(acting, None, m, rng), f.z_alive.argmax(axis=0))


def _victims_act(
    f: _Fights, members: Sequence[MemberChances], active: Bools, rng: np.random.Generator
) -> None:
    """Each victim attacks (−20 if grabbed) or escapes from its first holding zombie."""
    for h, m in enumerate(members):
        mine = f.z_alive if len(members) == 1 else f.z_alive & (f.z_target == h)
        acting = f.h_alive[h] & mine.any(axis=0) & active
        if not acting.any():
            continue
        held = mine & f.z_grab
        grabbed = held.any(axis=0)
        target = np.where(grabbed, held.argmax(axis=0), mine.argmax(axis=0))
        attacking = acting
        if m.escapes:
            trying = acting & grabbed
            freed = f.draw(rng, trying, m.escape)
            f.dice += int(np.count_nonzero(trying)) * m.escape_dice
            f.z_grab[target[freed], f.cols[freed]] = False
            f.z_streak[target[freed], f.cols[freed]] = 0
            attacking = acting & ~grabbed
        f.destroy(f.attack(attacking, grabbed, m, rng), target)


def _zombies_bite(
    f: _Fights,
    humans: int,
    active: Bools,
    rng: np.random.Generator,
    table: CombatTable,
    amputation: tuple[float, int],
) -> bool:
    """Holding zombies bite; deaths; the amputation tries of the bitten survivors.
    Returns whether anyone died."""
    biting = f.z_alive & f.z_grab & active
    bit = f.draw(rng, biting, table.bite / 100)
    f.dice += int(np.count_nonzero(biting))
    f.z_streak = np.where(bit, f.z_streak + 1, 0)
    if not bit.any():
        return False
    chance, dice = amputation
    anyone = False
    for h in range(humans):
        on_h = f.z_target == h
        n_bites = (bit & on_h).sum(axis=0)
        streak = (on_h & f.z_alive & (f.z_streak >= table.consecutive_bites_to_die)).any(axis=0)
        dies = f.h_alive[h] & ((n_bites >= table.bites_same_turn_to_die) | streak)
        anyone = anyone or bool(dies.any())
        f.bitten[h] |= n_bites > 0
        f.infected[h] |= dies
        f.h_alive[h] &= ~dies
        survivor = f.h_alive[h] & (n_bites > 0)
        for r in range(int(n_bites.max(initial=0))):
            need = survivor & (n_bites > r) & ~f.infected[h]
            if chance > 0:
                cured = f.draw(rng, need, chance)
                f.dice += int(np.count_nonzero(need)) * dice
                f.amputated[h] |= cured
                f.infected[h] |= need & ~cured
            else:
                f.infected[h] |= need
    return anyone


def _zombies_grab(f: _Fights, active: Bools, rng: np.random.Generator, table: CombatTable) -> None:
    """Standing zombies not holding a living victim roll to grab it."""
    trying = f.z_alive & ~f.z_grab & f.victim_alive() & active
    f.z_grab |= f.draw(rng, trying, table.grab / 100)
    f.dice += int(np.count_nonzero(trying))


def _reallocate(f: _Fights, humans: int) -> None:
    """Zombies whose victim died go, in zombie order, for the least attacked living member."""
    if humans == 1:
        return  # alone: a dead victim ends the fight
    orphan = f.z_alive & ~f.victim_alive()
    if not orphan.any():
        return
    f.z_grab[orphan] = False
    f.z_streak[orphan] = 0
    staying = f.z_alive & ~orphan
    load = np.stack([(staying & (f.z_target == h)).sum(axis=0) for h in range(humans)])
    load = np.where(f.h_alive, load, np.iinfo(np.int64).max // 2)
    for j in range(orphan.shape[0]):
        moving = orphan[j]
        if moving.any():
            new = load.argmin(axis=0)
            f.z_target[j, moving] = new[moving]
            load[new[moving], f.cols[moving]] += 1


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
    Finished fights are counted and dropped as they end. Adds into ``tally`` (a new one if
    None) and returns it. Inputs are not checked here (``reglas.combat.odds.zombie_odds``
    does). Source: RULES.md R13, R19, R20.
    """
    humans = len(members)
    out = tally if tally is not None else ZombieTally(members=humans)
    f = _Fights.start(fights, humans, zombies)
    for _ in range(turns):
        active = f.h_alive.any(axis=0) & f.z_alive.any(axis=0)
        if not active.all():
            if not active.any():
                break
            if np.count_nonzero(active) < 0.8 * f.n:
                _count(out, f.subset(~active, carry=False))
                f = f.subset(active)
                active = np.ones(f.n, dtype=np.bool_)
        _helpers_act(f, members, active, rng)
        _victims_act(f, members, active, rng)
        died = _zombies_bite(f, humans, active, rng, table, amputation)
        _zombies_grab(f, active, rng, table)
        if died:
            _reallocate(f, humans)
    _count(out, f)
    return out


def _count(out: ZombieTally, f: _Fights) -> None:
    """Add the fights ``f`` (finished) into ``out``: outcomes, dice and draws."""
    dead = ~f.h_alive
    flags = {
        "kill_all": ~f.z_alive.any(axis=0),
        "bitten": f.bitten.any(axis=0),
        "infected": f.infected.any(axis=0),
        "dead": dead.any(axis=0),
        "all_dead": dead.all(axis=0),
    }
    code = sum(flag.astype(np.int64) * OUTCOME_BITS[k] for k, flag in flags.items())
    for i, count in enumerate(np.bincount(np.asarray(code, dtype=np.int64), minlength=32)):
        out.joint[i] += int(count)
    out.fights += f.n
    out.kill_all += int(flags["kill_all"].sum())
    out.bitten += int(flags["bitten"].sum())
    out.infected += int(flags["infected"].sum())
    out.dead += int(flags["dead"].sum())
    out.all_dead += int(flags["all_dead"].sum())
    out.zombies_killed += int((~f.z_alive).sum())
    out.dice += f.dice
    out.draws += f.draws
    for h in range(f.h_alive.shape[0]):
        out.member_bitten[h] += int(f.bitten[h].sum())
        out.member_infected[h] += int(f.infected[h].sum())
        out.member_dead[h] += int(dead[h].sum())
        out.member_amputated[h] += int(f.amputated[h].sum())
