"""Exact odds of a party against one zombie, turn by turn (a Markov chain, no sampling).

With one zombie the fight is a small chain: the zombie's victim (the lowest-numbered living
member, where the simulator's allocation puts it), whether it holds the victim and its bite
streak, and the outcome flags. Each turn, as ``resolve_zombie_turn`` and the simulator play it:
the free members attack it first (helpers, in order), then the victim attacks (−20 when
grabbed) or escapes; a zombie still holding bites (60 %), else a standing zombie that does not
hold rolls to grab (40 %, also the one just escaped from). A bite that does not kill gets the
one amputation try (R13) if the victim is not yet infected; a killed victim passes the zombie
to the next member. The simulators are checked against these values in the tests.

Source: RULES.md R13, R20.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from reglas.combat.odds.base import MemberChances
from reglas.tables import CombatTable

FIGHT = 0
WON = 1
WIPED = 2


@dataclass(frozen=True, slots=True)
class _State:
    """One state of the chain: ``status`` (FIGHT, WON, WIPED), ``target`` the victim's index,
    ``grabbing``, ``streak`` its consecutive bites, ``infected`` the victim's infection, and the
    party's flags ``any_bitten``, ``any_infected``, ``any_dead``."""

    status: int = FIGHT
    target: int = 0
    grabbing: bool = False
    streak: int = 0
    infected: bool = False
    any_bitten: bool = False
    any_infected: bool = False
    any_dead: bool = False


@dataclass(frozen=True, slots=True)
class ExactOdds:
    """Exact probabilities (0..1) after ``turns`` turns against one zombie: ``p_kill_all``
    (the zombie destroyed), ``p_bitten``, ``p_infected``, ``p_dead`` (at least one member),
    ``p_all_dead`` and ``p_grabbed`` (the fight goes on with the victim held).
    Source: RULES.md R20."""

    turns: int
    p_kill_all: float
    p_bitten: float
    p_infected: float
    p_dead: float
    p_all_dead: float
    p_grabbed: float

    def as_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "turns": self.turns,
            "p_kill_all": self.p_kill_all,
            "p_bitten": self.p_bitten,
            "p_infected": self.p_infected,
            "p_dead": self.p_dead,
            "p_all_dead": self.p_all_dead,
            "p_grabbed": self.p_grabbed,
        }


Dist = dict[_State, float]


def _add(dist: Dist, state: _State, p: float) -> None:
    if p > 0:
        dist[state] = dist.get(state, 0.0) + p


def _bite_branch(
    out: Dist, s: _State, p: float, n_members: int, amputation: float, table: CombatTable
) -> None:
    """The zombie holds the victim at the end of its action: it bites or not."""
    bite = table.bite / 100
    _add(out, replace(s, streak=0), p * (1 - bite))
    streak = s.streak + 1
    if streak >= table.consecutive_bites_to_die or table.bites_same_turn_to_die <= 1:
        nxt = s.target + 1
        dead = replace(
            s, any_bitten=True, any_infected=True, any_dead=True, grabbing=False, streak=0
        )
        if nxt >= n_members:
            _add(out, replace(dead, status=WIPED), p * bite)
        else:
            _add(out, replace(dead, target=nxt, infected=False), p * bite)
        return
    bitten = replace(s, streak=streak, any_bitten=True)
    if s.infected:
        _add(out, bitten, p * bite)
        return
    _add(out, bitten, p * bite * amputation)
    _add(out, replace(bitten, infected=True, any_infected=True), p * bite * (1 - amputation))


def _step(
    s: _State,
    p: float,
    members: Sequence[MemberChances],
    amputation: float,
    table: CombatTable,
    out: Dist,
) -> None:
    """One turn from state ``s`` (with probability ``p``), added into ``out``."""
    if s.status != FIGHT:
        _add(out, s, p)
        return
    survive = 1.0
    for helper in members[s.target + 1 :]:
        survive *= 1 - helper.kill
    _add(out, replace(s, status=WON), p * (1 - survive))
    p *= survive
    victim = members[s.target]
    grab = table.grab / 100
    if not s.grabbing:
        _add(out, replace(s, status=WON), p * victim.kill)
        rest = p * (1 - victim.kill)
        _add(out, replace(s, grabbing=True, streak=0), rest * grab)
        _add(out, replace(s, streak=0), rest * (1 - grab))
        return
    if victim.escapes:
        free = p * victim.escape
        _add(out, replace(s, grabbing=True, streak=0), free * grab)
        _add(out, replace(s, grabbing=False, streak=0), free * (1 - grab))
        held = p * (1 - victim.escape)
    else:
        _add(out, replace(s, status=WON), p * victim.kill_grabbed)
        held = p * (1 - victim.kill_grabbed)
    _bite_branch(out, s, held, len(members), amputation, table)


def exact_one_zombie(
    members: Sequence[MemberChances], turns: int, amputation: float, table: CombatTable
) -> ExactOdds:
    """Exact odds of the party (``members`` in order, from ``member_chances``) against one
    zombie over ``turns`` turns; ``amputation`` is the chance (0..1) of the try after a bite
    (0: nobody can try). Every member starts free; the zombie goes for member 0.
    Source: RULES.md R13, R20."""
    dist: Dist = {_State(): 1.0}
    for _ in range(turns):
        nxt: Dist = {}
        for state, p in dist.items():
            _step(state, p, members, amputation, table, nxt)
        dist = nxt

    def total(pick: Callable[[_State], bool]) -> float:
        return sum(p for s, p in dist.items() if pick(s))

    return ExactOdds(
        turns=turns,
        p_kill_all=total(lambda s: s.status == WON),
        p_bitten=total(lambda s: s.any_bitten),
        p_infected=total(lambda s: s.any_infected),
        p_dead=total(lambda s: s.any_dead),
        p_all_dead=total(lambda s: s.status == WIPED),
        p_grabbed=total(lambda s: s.status == FIGHT and s.grabbing),
    )
