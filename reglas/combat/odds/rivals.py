"""The odds of a fight between humans (R21), simulated, with the exact one-on-one values.

One against one, each exchange ends the fight with A's kill k_A or B's k_B (both can die),
so within K exchanges P(B down) = k_A (1 − q^K) / (1 − q) with q = (1 − k_A)(1 − k_B) the
chance that nobody dies in one; the calculator prints it beside the simulation.
Source: RULES.md R19, R21.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from reglas.combat.odds.base import (
    DEFAULT_SIMULATIONS,
    MAX_SIMULATIONS,
    MAX_TURNS,
    Estimate,
    MemberChances,
    PartyMember,
    check_count,
    check_party,
    chunk_sizes,
    intervals,
    member_chances,
    percent,
)
from reglas.combat.odds.humans import HumanTally, simulate_human_fights
from reglas.errors import RulesError
from reglas.tables import DEFAULT_COMBAT, CombatTable


@dataclass(frozen=True, slots=True)
class DuelExact:
    """Exact one-on-one odds (0..1) within ``turns`` exchanges: the rival down
    (``p_kill_all``), the party's fighter dead (``p_dead``), both (``p_both_dead``).
    Source: RULES.md R21."""

    turns: int
    p_kill_all: float
    p_dead: float
    p_both_dead: float

    def as_dict(self) -> dict[str, object]:
        """JSON-able form (``p_bitten`` and ``p_infected`` are 0: no zombies)."""
        return {
            "turns": self.turns,
            "p_kill_all": self.p_kill_all,
            "p_bitten": 0.0,
            "p_infected": 0.0,
            "p_dead": self.p_dead,
            "p_both_dead": self.p_both_dead,
        }


def duel_exact(a: MemberChances, b: MemberChances, turns: int) -> DuelExact:
    """Exact odds of A against B over ``turns`` simultaneous exchanges (geometric series).

    Source: RULES.md R21."""
    q = (1 - a.kill) * (1 - b.kill)
    reach = float(turns) if q == 1 else (1 - q**turns) / (1 - q)
    return DuelExact(turns, a.kill * reach, b.kill * reach, a.kill * b.kill * reach)


@dataclass(frozen=True, slots=True)
class HumanOdds:
    """Odds of ``party`` against ``rivals`` within ``turns`` exchanges over ``simulations``
    fights: every rival down (``kill_all``), at least one of the party dead (``dead``), all
    of it (``all_dead``), both sides down (``both_down``); per member ``member_dead``; the
    mean rivals killed; the exact one-on-one values of the first of each side
    (``exact_one_turn``: one exchange; ``exact``: every turn, when one faces one).
    Source: RULES.md R21."""

    party: tuple[PartyMember, ...]
    rivals: tuple[PartyMember, ...]
    turns: int
    simulations: int
    distance_m: float
    kill_all: Estimate
    dead: Estimate
    all_dead: Estimate
    both_down: Estimate
    member_dead: tuple[Estimate, ...]
    rivals_killed_mean: float
    exact_one_turn: DuelExact
    exact: DuelExact | None
    dice: int

    def as_dict(self) -> dict[str, object]:
        """One JSON object: ``simulations``, ``p_kill_all``, ``p_bitten`` (0),
        ``p_infected`` (0), ``p_dead``, ``p_all_dead``, ``p_both_down``, ``ci``,
        ``exact_one_turn``, ``exact``, ``members``, ``rivals_killed_mean``, ``dice``."""
        main = {
            "p_kill_all": self.kill_all,
            "p_dead": self.dead,
            "p_all_dead": self.all_dead,
            "p_both_down": self.both_down,
        }
        none = Estimate.of(0, self.simulations)
        ci = intervals({**main, "p_bitten": none, "p_infected": none})
        return {
            "kind": "humans",
            "simulations": self.simulations,
            "turns": self.turns,
            "humans": len(self.party),
            "rivals": len(self.rivals),
            "distance_m": self.distance_m,
            "p_bitten": 0.0,
            "p_infected": 0.0,
            **{k: e.p for k, e in main.items()},
            "ci": ci,
            "confidence": 0.95,
            "exact_one_turn": self.exact_one_turn.as_dict(),
            "exact": None if self.exact is None else self.exact.as_dict(),
            "members": [
                {"name": m.name, "p_dead": e.p, "ci": {"p_dead": [e.low, e.high]}}
                for m, e in zip(self.party, self.member_dead, strict=True)
            ],
            "rivals_killed_mean": self.rivals_killed_mean,
            "dice": self.dice,
        }

    def describe(self) -> str:
        """Spanish text: every estimate with its interval, the exact values beside."""
        lines = [
            f"{', '.join(m.name for m in self.party)} contra "
            f"{', '.join(m.name for m in self.rivals)} a {self.distance_m:g} m, hasta "
            f"{self.turns} intercambio(s): {self.simulations} combates simulados.",
            f"Acabar con todos los rivales: {self.kill_all.describe()}",
            f"Muere alguien del grupo: {self.dead.describe()}",
            f"Muere todo el grupo: {self.all_dead.describe()}",
            f"Caen los dos bandos: {self.both_down.describe()}",
            f"Rivales abatidos de media: {self.rivals_killed_mean:.2f}".replace(".", ","),
        ]
        one = self.exact_one_turn
        lines.append(
            f"Comprobación exacta, uno contra uno y un intercambio: abatirlo "
            f"{percent(one.p_kill_all)}, morir {percent(one.p_dead)}, ambos "
            f"{percent(one.p_both_dead)}."
        )
        if self.exact is not None:
            ex = self.exact
            lines.append(
                f"Valor exacto en {ex.turns} intercambio(s): abatirlo {percent(ex.p_kill_all)}, "
                f"morir {percent(ex.p_dead)}, ambos {percent(ex.p_both_dead)}."
            )
        return "\n".join(lines)


def human_odds(
    party: Sequence[PartyMember],
    rivals: Sequence[PartyMember],
    turns: int,
    rng: np.random.Generator,
    *,
    distance_m: float = 0.0,
    simulations: int = DEFAULT_SIMULATIONS,
    table: CombatTable = DEFAULT_COMBAT,
) -> HumanOdds:
    """Simulate ``simulations`` (1..10⁶) fights of ``party`` against ``rivals`` (1..20 each)
    at ``distance_m`` m (every fighter's distance) over ``turns`` (1..100) exchanges, as
    ``reglas.combat.odds.humans`` describes, with the campaign's ``table``.
    Raises RulesError for any input out of range. Source: RULES.md R19, R21.
    """
    if distance_m < 0:
        raise RulesError(
            "distance_negative",
            f"La distancia no puede ser negativa (se recibió {distance_m} m).",
            distance_m=distance_m,
        )
    ours = tuple(replace(m, distance_m=distance_m) for m in check_party(party))
    theirs = tuple(replace(m, distance_m=distance_m) for m in check_party(rivals, "rivals"))
    check_count(turns, "turns", 1, MAX_TURNS)
    check_count(simulations, "simulations", 1, MAX_SIMULATIONS)
    a = [member_chances(m, table) for m in ours]
    b = [member_chances(m, table) for m in theirs]
    tally = HumanTally(members=len(ours))
    for n in chunk_sizes(simulations):
        simulate_human_fights(a, b, turns, n, rng, tally)
    n = tally.fights
    return HumanOdds(
        party=ours,
        rivals=theirs,
        turns=turns,
        simulations=n,
        distance_m=float(distance_m),
        kill_all=Estimate.of(tally.kill_all, n),
        dead=Estimate.of(tally.dead, n),
        all_dead=Estimate.of(tally.all_dead, n),
        both_down=Estimate.of(tally.both_down, n),
        member_dead=tuple(Estimate.of(d, n) for d in tally.member_dead),
        rivals_killed_mean=tally.rivals_killed / n,
        exact_one_turn=duel_exact(a[0], b[0], 1),
        exact=duel_exact(a[0], b[0], turns) if len(a) == len(b) == 1 else None,
        dice=tally.dice,
    )
