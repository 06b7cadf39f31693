"""The vectorised fight between humans (R21): many fights of a party against rivals.

Each turn is one simultaneous exchange as ``resolve_human_exchange`` plays it: every living
fighter on both sides attacks (R19) at once, each who hits rolls to wound, and the deaths are
applied together (both can die). Targets (our reading for groups): fighter i of a side goes for
the (i mod L)-th living fighter of the other side, L their number at the start of the turn.
A fight stops when a side is down, or after ``turns`` turns. Source: RULES.md R19, R21.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from reglas.combat.odds.base import MemberChances

Bools = NDArray[np.bool_]
Ints = NDArray[np.int64]


@dataclass(slots=True)
class HumanTally:
    """Counts over simulated fights: ``fights``; fights where every rival fell
    (``kill_all``), where at least one of the party died (``dead``), where all of it died
    (``all_dead``), where both sides fell (``both_down``); per party member ``member_dead``;
    ``rivals_killed`` summed; ``dice`` and ``draws`` as in ``ZombieTally``.
    Source: RULES.md R21."""

    members: int
    fights: int = 0
    kill_all: int = 0
    dead: int = 0
    all_dead: int = 0
    both_down: int = 0
    rivals_killed: int = 0
    dice: int = 0
    draws: int = 0
    member_dead: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.member_dead:
            self.member_dead = [0] * self.members


def target_of(alive_other: Bools, i: int) -> Ints:
    """For attacker number ``i``, the index of the (i mod L)-th living opponent in each fight
    (L living opponents; 0 when none). Source: RULES.md R21 (our reading for groups)."""
    living = alive_other.sum(axis=1)
    k = i % np.maximum(living, 1)
    rank = np.cumsum(alive_other, axis=1) - 1
    target: Ints = (alive_other & (rank == k[:, None])).argmax(axis=1)
    return target


def _side_attacks(
    side: Sequence[MemberChances],
    alive: Bools,
    alive_other: Bools,
    active: Bools,
    rng: np.random.Generator,
    tally: HumanTally,
) -> Bools:
    """The opponents each fight loses to this side's attacks this turn, shape (n, len(other))."""
    n = alive.shape[0]
    rows = np.arange(n)
    killed = np.zeros_like(alive_other)
    for i, m in enumerate(side):
        acting = alive[:, i] & active
        hit = acting & (rng.random(n) < m.hit)
        kill = hit & (rng.random(n) < m.wound)
        tally.draws += 2 * n
        tally.dice += int(acting.sum()) * m.hit_dice + int(hit.sum()) * m.wound_dice
        target = target_of(alive_other, i)
        killed[rows[kill], target[kill]] = True
    return killed


def simulate_human_fights(
    party: Sequence[MemberChances],
    rivals: Sequence[MemberChances],
    turns: int,
    fights: int,
    rng: np.random.Generator,
    tally: HumanTally | None = None,
) -> HumanTally:
    """Simulate ``fights`` fights of ``party`` against ``rivals`` (chances from
    ``member_chances``) for up to ``turns`` simultaneous exchanges, numpy over the fights.

    Dice order inside a turn: the party's attacks in order, then the rivals'. Adds into
    ``tally`` (a new one if None) and returns it. Source: RULES.md R19, R21.
    """
    out = tally if tally is not None else HumanTally(members=len(party))
    a_alive = np.ones((fights, len(party)), dtype=np.bool_)
    b_alive = np.ones((fights, len(rivals)), dtype=np.bool_)
    for _ in range(turns):
        active = a_alive.any(axis=1) & b_alive.any(axis=1)
        if not active.any():
            break
        b_killed = _side_attacks(party, a_alive, b_alive, active, rng, out)
        a_killed = _side_attacks(rivals, b_alive, a_alive, active, rng, out)
        a_alive &= ~a_killed
        b_alive &= ~b_killed
    a_dead = ~a_alive
    b_down = ~b_alive.any(axis=1)
    out.fights += fights
    out.kill_all += int(b_down.sum())
    out.dead += int(a_dead.any(axis=1).sum())
    out.all_dead += int(a_dead.all(axis=1).sum())
    out.both_down += int((b_down & a_dead.all(axis=1)).sum())
    out.rivals_killed += int((~b_alive).sum())
    for h in range(len(party)):
        out.member_dead[h] += int(a_dead[:, h].sum())
    return out
