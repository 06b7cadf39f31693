"""Invariants of the odds calculator over random fighters and fights (hypothesis).

Source: RULES.md R13, R20, R21.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reglas.combat.odds import (
    PartyMember,
    duel_exact,
    exact_one_zombie,
    member_chances,
    zombie_odds,
)
from reglas.core import make_rng
from reglas.tables import DEFAULT_COMBAT as TABLE

WEAPONS = [w.slug for w in TABLE.weapons]

members = st.builds(
    lambda slug, hit, fuerza, agilidad, pelea, penalty, distance, choice: PartyMember(
        "x",
        TABLE.weapon(slug),
        {
            "armas_cac": hit,
            "armas_distancia": hit,
            "pelea": pelea,
            "fuerza": fuerza,
            "agilidad": agilidad,
        },
        penalty=penalty,
        distance_m=distance,
        when_grabbed=choice,
    ),
    st.sampled_from(WEAPONS),
    st.integers(0, 4),
    st.integers(0, 4),
    st.integers(0, 4),
    st.integers(0, 4),
    st.integers(0, 60),
    st.sampled_from([0.0, 4.0, 20.0, 50.0, 80.0]),
    st.sampled_from(["attack", "escape"]),
)


@given(st.lists(members, min_size=1, max_size=3), st.integers(1, 8), st.floats(0, 1))
def test_exact_chain_probabilities_nest_and_grow_with_turns(
    party: list[PartyMember], turns: int, amputation: float
) -> None:
    chances = [member_chances(m) for m in party]
    now = exact_one_zombie(chances, turns, amputation, TABLE)
    later = exact_one_zombie(chances, turns + 1, amputation, TABLE)
    eps = 1e-12
    for odds in (now, later):
        assert 0 <= odds.p_dead <= odds.p_infected + eps <= odds.p_bitten + 2 * eps <= 1 + 3 * eps
        assert odds.p_kill_all + odds.p_all_dead + odds.p_grabbed <= 1 + eps
        assert odds.p_all_dead <= odds.p_dead + eps
    for name in ("p_kill_all", "p_bitten", "p_infected", "p_dead", "p_all_dead"):
        assert getattr(later, name) >= getattr(now, name) - eps, name


@settings(max_examples=25, deadline=None)
@given(
    st.lists(members, min_size=1, max_size=3),
    st.integers(1, 6),
    st.integers(1, 6),
    st.sampled_from([None, 0, 1, 3]),
    st.integers(0, 2**16),
)
def test_simulated_outcomes_nest(
    party: list[PartyMember], zombies: int, turns: int, medicina: int | None, seed: int
) -> None:
    if medicina == 0:
        medicina = None  # Medicina 0 cannot amputate; tested elsewhere
    odds = zombie_odds(party, zombies, turns, make_rng(seed), simulations=500, medicina=medicina)
    assert sum(odds.joint) == odds.simulations == 500
    assert odds.dead.successes <= odds.infected.successes <= odds.bitten.successes
    assert odds.all_dead.successes <= odds.dead.successes
    assert odds.kill_all.successes + odds.all_dead.successes <= 500
    assert 0 <= odds.zombies_killed_mean <= zombies
    for m in odds.members:
        assert m.dead.successes <= m.infected.successes <= m.bitten.successes
        assert m.amputated.successes <= m.bitten.successes
        if medicina is None:
            assert m.amputated.successes == 0


@given(members, members, st.integers(1, 10))
def test_duel_exact_is_a_distribution(a: PartyMember, b: PartyMember, turns: int) -> None:
    odds = duel_exact(member_chances(a), member_chances(b), turns)
    assert 0 <= odds.p_both_dead <= min(odds.p_kill_all, odds.p_dead)
    assert odds.p_kill_all + odds.p_dead - odds.p_both_dead <= 1 + 1e-12
