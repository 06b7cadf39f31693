"""The master's odds calculator: fights against zombies and humans, a bite, a cure.

Each function checks its inputs (Spanish ``RulesError``), simulates ``simulations`` fights
(numpy over the fights, in chunks of ``CHUNK``) and returns the estimates (0..1) with 95 %
Wilson intervals, beside the exact values where they have a closed form: one zombie (a
Markov chain over the turns, ``exact``; its first turn, ``exact_one_turn``), one human against
one (a geometric series), a bite, a cure. Source: RULES.md R12, R13, R19, R20, R21.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from reglas.combat.odds.base import (
    DEFAULT_SIMULATIONS,
    MAX_SIMULATIONS,
    MAX_TURNS,
    MAX_WORK,
    MAX_ZOMBIES,
    Estimate,
    MemberChances,
    PartyMember,
    amputation_chance,
    check_count,
    check_party,
    chunk_sizes,
    intervals,
    member_chances,
    percent,
)
from reglas.combat.odds.exact import ExactOdds, exact_one_zombie
from reglas.combat.odds.zombies import ZombieTally, simulate_zombie_fights
from reglas.errors import RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.tables import DEFAULT_COMBAT, CombatTable


@dataclass(frozen=True, slots=True)
class MemberOdds:
    """One party member's estimates: ``bitten``, ``infected``, ``dead``, ``amputated``."""

    name: str
    bitten: Estimate
    infected: Estimate
    dead: Estimate
    amputated: Estimate

    def as_dict(self) -> dict[str, object]:
        """JSON-able: ``name`` and ``p_*`` with their ``ci``."""
        est = {
            "p_bitten": self.bitten,
            "p_infected": self.infected,
            "p_dead": self.dead,
            "p_amputated": self.amputated,
        }
        return {"name": self.name, **{k: e.p for k, e in est.items()}, "ci": intervals(est)}


@dataclass(frozen=True, slots=True)
class ZombieOdds:
    """Odds of a party against ``zombies`` zombies within ``turns`` turns, over
    ``simulations`` fights: every zombie destroyed (``kill_all``), at least one member
    ``bitten``, ``infected`` (a bite not cured by amputation, R13), ``dead``; all dead
    (``all_dead``); per member; the mean zombies destroyed; the exact one-zombie values
    (``exact_one_turn`` always, ``exact`` over every turn when ``zombies`` is 1); ``dice``
    the d100 the simulated rolls stand for; ``joint`` the fights by joint outcome code (see
    ``reglas.combat.odds.zombies.OUTCOME_BITS``). Source: RULES.md R13, R20."""

    party: tuple[PartyMember, ...]
    zombies: int
    turns: int
    simulations: int
    medicina: int | None
    kill_all: Estimate
    bitten: Estimate
    infected: Estimate
    dead: Estimate
    all_dead: Estimate
    members: tuple[MemberOdds, ...]
    zombies_killed_mean: float
    exact_one_turn: ExactOdds
    exact: ExactOdds | None
    dice: int
    draws: int
    joint: tuple[int, ...] = ()

    def _main(self) -> dict[str, Estimate]:
        return {
            "p_kill_all": self.kill_all,
            "p_bitten": self.bitten,
            "p_infected": self.infected,
            "p_dead": self.dead,
            "p_all_dead": self.all_dead,
        }

    def as_dict(self) -> dict[str, object]:
        """One JSON object: ``simulations``, ``p_kill_all``, ``p_bitten``, ``p_infected``,
        ``p_dead``, ``p_all_dead`` (0..1), ``ci`` (their [low, high]), ``exact_one_turn``,
        ``exact``, ``members``, ``zombies_killed_mean``, ``dice``, and the inputs."""
        main = self._main()
        return {
            "kind": "zombies",
            "simulations": self.simulations,
            "zombies": self.zombies,
            "turns": self.turns,
            "humans": len(self.party),
            "medicina": self.medicina,
            **{k: e.p for k, e in main.items()},
            "ci": intervals(main),
            "confidence": 0.95,
            "exact_one_turn": self.exact_one_turn.as_dict(),
            "exact": None if self.exact is None else self.exact.as_dict(),
            "members": [m.as_dict() for m in self.members],
            "zombies_killed_mean": self.zombies_killed_mean,
            "dice": self.dice,
        }

    def describe(self) -> str:
        """Spanish text: every estimate with its interval, the exact values beside."""
        who = ", ".join(m.name for m in self.party)
        lines = [
            f"{who} contra {self.zombies} zombi(s), hasta {self.turns} turno(s): "
            f"{self.simulations} combates simulados.",
            f"Acabar con todos los zombis: {self.kill_all.describe()}",
            f"Alguien mordido: {self.bitten.describe()}",
            f"Alguien infectado (sin amputación que lo cure): {self.infected.describe()}",
            f"Alguien muere: {self.dead.describe()}",
            f"Mueren todos: {self.all_dead.describe()}",
            f"Zombis destruidos de media: {self.zombies_killed_mean:.2f}".replace(".", ","),
        ]
        if self.medicina is None:
            lines.append("Nadie con Medicina: no hay amputación tras un mordisco.")
        if len(self.party) > 1:
            for m in self.members:
                lines.append(
                    f"  {m.name}: mordido {percent(m.bitten.p)}, infectado "
                    f"{percent(m.infected.p)}, muere {percent(m.dead.p)}"
                )
        one = self.exact_one_turn
        lines.append(
            f"Comprobación exacta, un zombi y un turno: acabar con él {percent(one.p_kill_all)}, "
            f"agarrado {percent(one.p_grabbed)}, mordido {percent(one.p_bitten)}, "
            f"muere {percent(one.p_dead)}."
        )
        if self.exact is not None:
            ex = self.exact
            lines.append(
                f"Valor exacto en {ex.turns} turno(s): acabar con él {percent(ex.p_kill_all)}, "
                f"mordido {percent(ex.p_bitten)}, infectado {percent(ex.p_infected)}, "
                f"muere {percent(ex.p_dead)}."
            )
        return "\n".join(lines)


def zombie_odds(
    party: Sequence[PartyMember],
    zombies: int,
    turns: int,
    rng: np.random.Generator,
    *,
    simulations: int = DEFAULT_SIMULATIONS,
    medicina: int | None = None,
    table: CombatTable = DEFAULT_COMBAT,
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> ZombieOdds:
    """Simulate ``simulations`` (1..10⁶) fights of ``party`` (1..20 members) against
    ``zombies`` (1..100) zombies over ``turns`` (1..100) turns, as
    ``reglas.combat.odds.zombies`` describes, with the campaign's ``table`` (its thresholds
    come from the campaign's RuleSettings) and ``settings`` (amputation). ``medicina``: the
    Medicina of whoever tries the amputation after a bite (None: nobody can).
    Raises RulesError for any input out of range, or when simulations × turns × zombies ×
    members exceeds ``MAX_WORK``. Source: RULES.md R13, R19, R20.
    """
    members = check_party(party)
    check_count(zombies, "zombies", 1, MAX_ZOMBIES)
    check_count(turns, "turns", 1, MAX_TURNS)
    check_count(simulations, "simulations", 1, MAX_SIMULATIONS)
    work = simulations * turns * zombies * len(members)
    if work > MAX_WORK:
        raise RulesError(
            "odds_too_much_work",
            f"Demasiado cálculo ({simulations} combates × {turns} turnos × {zombies} zombis × "
            f"{len(members)} personas): reduce las simulaciones o el tamaño del combate.",
            simulations=simulations,
            turns=turns,
            zombies=zombies,
            members=len(members),
            maximum=MAX_WORK,
        )
    chances = [member_chances(m, table) for m in members]
    amputation = amputation_chance(medicina, settings)
    tally = ZombieTally(members=len(members))
    for n in chunk_sizes(simulations):
        simulate_zombie_fights(chances, zombies, turns, n, rng, table, amputation, tally)
    return _zombie_result(members, zombies, turns, medicina, tally, chances, amputation, table)


def _zombie_result(
    members: tuple[PartyMember, ...],
    zombies: int,
    turns: int,
    medicina: int | None,
    tally: ZombieTally,
    chances: list[MemberChances],
    amputation: tuple[float, int],
    table: CombatTable,
) -> ZombieOdds:
    n = tally.fights
    return ZombieOdds(
        party=members,
        zombies=zombies,
        turns=turns,
        simulations=n,
        medicina=medicina,
        kill_all=Estimate.of(tally.kill_all, n),
        bitten=Estimate.of(tally.bitten, n),
        infected=Estimate.of(tally.infected, n),
        dead=Estimate.of(tally.dead, n),
        all_dead=Estimate.of(tally.all_dead, n),
        members=tuple(
            MemberOdds(
                m.name,
                Estimate.of(tally.member_bitten[h], n),
                Estimate.of(tally.member_infected[h], n),
                Estimate.of(tally.member_dead[h], n),
                Estimate.of(tally.member_amputated[h], n),
            )
            for h, m in enumerate(members)
        ),
        zombies_killed_mean=tally.zombies_killed / n,
        exact_one_turn=exact_one_zombie(chances, 1, amputation[0], table),
        exact=exact_one_zombie(chances, turns, amputation[0], table) if zombies == 1 else None,
        dice=tally.dice,
        draws=tally.draws,
        joint=tuple(tally.joint),
    )
