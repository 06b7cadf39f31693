"""One fight at a time with the scalar resolvers: the reference for the vectorised simulators.

``reference_zombie_fight`` plays a party against zombies with ``resolve_zombie_turn`` (one
``ZombieFight`` per victim), ``attack`` for the helpers and ``amputation_roll`` after bites,
following the same allocation and choices as ``reglas.combat.odds.zombies``;
``reference_human_fight`` plays humans against humans with ``resolve_human_exchange`` (one
against one) or ``attack`` (groups). The tests compare their distributions with the simulators'
and the benchmark times them as the pure-Python loop. Source: RULES.md R13, R19, R20, R21.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from reglas.combat.amputation import amputation_roll
from reglas.combat.attacks import attack
from reglas.combat.humans import Combatant, resolve_human_exchange
from reglas.combat.odds.base import PartyMember
from reglas.combat.zombies import (
    AttackZombie,
    EscapeZombie,
    VictimAction,
    ZombieFight,
    ZombieState,
    resolve_zombie_turn,
)
from reglas.core import Breakdown, Modifier
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.tables import DEFAULT_COMBAT, CombatTable


@dataclass(frozen=True, slots=True)
class FightOutcome:
    """How one fight ended: ``kill_all`` (every enemy down) and, per party member, ``bitten``,
    ``infected``, ``dead``, ``amputated``; ``enemies_killed``. Source: RULES.md R20, R21."""

    kill_all: bool
    bitten: tuple[bool, ...]
    infected: tuple[bool, ...]
    dead: tuple[bool, ...]
    amputated: tuple[bool, ...]
    enemies_killed: int


def _penalty(member: PartyMember) -> Breakdown:
    if not member.penalty:
        return ()
    return (Modifier("penalty", "penalización de acción", member.penalty),)


def _index(zombie_id: str) -> int:
    return int(zombie_id[1:])


def _sorted(zombies: Sequence[ZombieState]) -> tuple[ZombieState, ...]:
    return tuple(sorted(zombies, key=lambda z: _index(z.zombie_id)))


def _action(member: PartyMember, fight: ZombieFight) -> VictimAction:
    held = fight.grabbers
    if held:
        first = held[0].zombie_id
        if member.when_grabbed == "escape":
            return EscapeZombie(first, member.escape_trait)
        return AttackZombie(first, member.weapon, member.distance_m)
    return AttackZombie(fight.standing[0].zombie_id, member.weapon, member.distance_m)


@dataclass
class _Party:
    """Mutable state of the scalar fight: one ZombieFight per member (or None)."""

    fights: list[ZombieFight | None]
    bitten: list[bool]
    infected: list[bool]
    dead: list[bool]
    amputated: list[bool]

    def standing_on(self, h: int) -> tuple[ZombieState, ...]:
        fight = self.fights[h]
        return () if fight is None else fight.standing


def _helpers(
    party: Sequence[PartyMember], state: _Party, rng: np.random.Generator, table: CombatTable
) -> None:
    free = [h for h in range(len(party)) if not state.dead[h] and not state.standing_on(h)]
    for h in free:
        standing = [(z, o) for o in range(len(party)) for z in state.standing_on(o)]
        if not standing:
            return
        zombie, owner = min(standing, key=lambda zo: _index(zo[0].zombie_id))
        m = party[h]
        result = attack(
            m.weapon, m.traits, rng, distance_m=m.distance_m, penalty=_penalty(m), table=table
        )
        fight = state.fights[owner]
        if result.kills and fight is not None:
            state.fights[owner] = fight.with_killed([zombie.zombie_id])


def _bites(
    h: int,
    n_bites: int,
    state: _Party,
    rng: np.random.Generator,
    medicina: int | None,
    settings: RuleSettings,
) -> None:
    for _ in range(n_bites):
        if state.infected[h]:
            return
        if medicina is not None and amputation_roll(medicina, rng, settings=settings).success:
            state.amputated[h] = True
        else:
            state.infected[h] = True


def _reallocate(state: _Party, newly_dead: list[int]) -> None:
    orphans = sorted((z.zombie_id for h in newly_dead for z in state.standing_on(h)), key=_index)
    living = [h for h in range(len(state.dead)) if not state.dead[h]]
    if not living:
        return  # the party is down: the zombies stay where they are, and the fight ends
    for h in newly_dead:
        state.fights[h] = None
    load = {h: len(state.standing_on(h)) for h in living}
    for zombie_id in orphans:
        target = min(living, key=lambda h: (load[h], h))
        load[target] += 1
        fight = state.fights[target]
        mine = () if fight is None else fight.zombies
        base = fight if fight is not None else ZombieFight(zombies=())
        state.fights[target] = replace(base, zombies=_sorted((*mine, ZombieState(zombie_id))))


def reference_zombie_fight(
    party: Sequence[PartyMember],
    zombies: int,
    turns: int,
    rng: np.random.Generator,
    *,
    medicina: int | None = None,
    table: CombatTable = DEFAULT_COMBAT,
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> FightOutcome:
    """One fight of ``party`` against ``zombies`` zombies for up to ``turns`` turns, with the
    scalar resolvers and the simulator's allocation. ``medicina``: the healer's trait value
    for the amputation try after each bite (None: nobody tries). Source: RULES.md R13, R20.
    """
    n = len(party)
    ids = [f"z{j}" for j in range(zombies)]
    state = _Party(
        fights=[
            ZombieFight(zombies=tuple(ZombieState(z) for z in ids[h::n])) if ids[h::n] else None
            for h in range(n)
        ],
        bitten=[False] * n,
        infected=[False] * n,
        dead=[False] * n,
        amputated=[False] * n,
    )
    for _ in range(turns):
        if all(state.dead) or not any(state.standing_on(h) for h in range(n)):
            break
        _helpers(party, state, rng, table)
        newly_dead: list[int] = []
        for h, m in enumerate(party):
            fight = state.fights[h]
            if state.dead[h] or fight is None or not fight.standing:
                continue
            turn = resolve_zombie_turn(
                fight, _action(m, fight), m.traits, rng, penalty=_penalty(m), table=table
            )
            state.fights[h] = turn.fight
            state.bitten[h] |= turn.bitten
            if turn.victim_dead:
                state.dead[h] = state.infected[h] = True
                newly_dead.append(h)
            else:
                _bites(h, turn.bites_this_turn, state, rng, medicina, settings)
        _reallocate(state, newly_dead)
    standing = sum(len(state.standing_on(h)) for h in range(n))
    return FightOutcome(
        kill_all=standing == 0,
        bitten=tuple(state.bitten),
        infected=tuple(state.infected),
        dead=tuple(state.dead),
        amputated=tuple(state.amputated),
        enemies_killed=zombies - standing,
    )


def _exchange(
    a: PartyMember, b: PartyMember, rng: np.random.Generator, table: CombatTable
) -> tuple[bool, bool]:
    exchange = resolve_human_exchange(
        Combatant(a.name, a.weapon, a.traits, _penalty(a)),
        Combatant(b.name, b.weapon, b.traits, _penalty(b)),
        rng,
        distance_m=a.distance_m,
        table=table,
    )
    return exchange.a_dead, exchange.b_dead


def _volley(
    side: Sequence[PartyMember],
    alive: list[bool],
    other_alive: list[bool],
    rng: np.random.Generator,
    table: CombatTable,
) -> set[int]:
    living = [j for j, up in enumerate(other_alive) if up]
    killed: set[int] = set()
    for i, m in enumerate(side):
        if not alive[i]:
            continue
        result = attack(
            m.weapon, m.traits, rng, distance_m=m.distance_m, penalty=_penalty(m), table=table
        )
        if result.kills:
            killed.add(living[i % len(living)])
    return killed


def reference_human_fight(
    party: Sequence[PartyMember],
    rivals: Sequence[PartyMember],
    turns: int,
    rng: np.random.Generator,
    *,
    table: CombatTable = DEFAULT_COMBAT,
) -> FightOutcome:
    """One fight of ``party`` against ``rivals`` for up to ``turns`` simultaneous exchanges:
    ``resolve_human_exchange`` when one faces one (at the party member's distance), else every
    living fighter ``attack``s the (i mod L)-th living opponent, deaths applied together.
    Source: RULES.md R19, R21."""
    a_alive = [True] * len(party)
    b_alive = [True] * len(rivals)
    for _ in range(turns):
        if not any(a_alive) or not any(b_alive):
            break
        if len(party) == len(rivals) == 1:
            a_dead, b_dead = _exchange(party[0], rivals[0], rng, table)
            a_alive, b_alive = [not a_dead], [not b_dead]
            continue
        b_killed = _volley(party, a_alive, b_alive, rng, table)
        a_killed = _volley(rivals, b_alive, a_alive, rng, table)
        a_alive = [up and i not in a_killed for i, up in enumerate(a_alive)]
        b_alive = [up and j not in b_killed for j, up in enumerate(b_alive)]
    no = (False,) * len(party)
    return FightOutcome(
        kill_all=not any(b_alive),
        bitten=no,
        infected=no,
        dead=tuple(not up for up in a_alive),
        amputated=no,
        enemies_killed=sum(not up for up in b_alive),
    )
