"""The amputation roll (R13) and the odds calculator (R12, R13, R20, R21).

The simulators are checked three ways: against exact values (one zombie, a Markov chain; one
human against one, a geometric series; a bite and a cure, closed forms), against many seeded
fights of the scalar resolvers (``resolve_zombie_turn``, ``resolve_human_exchange``) with a
chi-square test over the joint outcomes, and against hand-computed chances.
Source: RULES.md R3, R12, R13, R19, R20, R21.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from reglas.combat import PartyMember, amputation_roll, bite_odds, cure_odds, human_odds
from reglas.combat import zombie_odds as zombie_odds_public
from reglas.combat.odds import (
    Estimate,
    FightOutcome,
    duel_exact,
    exact_one_zombie,
    member_chances,
    reference_human_fight,
    reference_zombie_fight,
    wilson_interval,
    zombie_odds,
)
from reglas.combat.odds.zombies import OUTCOME_BITS
from reglas.core import Modifier, make_rng
from reglas.errors import RulesError
from reglas.settings import RuleSettings
from reglas.tables import DEFAULT_COMBAT as TABLE

from .world_helpers import ScriptedRng

AXE = TABLE.weapon("hacha")
KNIFE = TABLE.weapon("cuchillo")
PISTOL = TABLE.weapon("pistola_9mm")
RIFLE = TABLE.weapon("fusil_762")
FISTS = TABLE.weapon("desarmado")

ANA = PartyMember("Ana", AXE, {"armas_cac": 2, "fuerza": 2, "agilidad": 1, "pelea": 1})
TOMAS = PartyMember(
    "Tomás", KNIFE, {"armas_cac": 1, "fuerza": 1, "agilidad": 2}, when_grabbed="escape"
)
WEAK = PartyMember("Débil", FISTS, {})
LUCIA = PartyMember("Lucía", PISTOL, {"armas_distancia": 1, "agilidad": 1}, distance_m=4)

# Chi-square critical values at α = 0.001 by degrees of freedom (deterministic seeds; a wrong
# simulator gives statistics in the hundreds).
CHI2_999 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46, 7: 24.32, 8: 26.12}


def rng(seed: int = 1) -> np.random.Generator:
    return make_rng(7, [seed])


def within(estimate: Estimate, exact: float, z: float = 4.0) -> bool:
    """``exact`` lies inside a wide (z = 4) Wilson interval of the estimate."""
    low, high = wilson_interval(estimate.successes, estimate.n, z)
    return low <= exact <= high


# ------------------------------------------------------------------------------ amputation


def test_amputation_roll_throws_one_plus_medicina_dice_against_20() -> None:
    roll = amputation_roll(1, ScriptedRng([25, 19]))
    assert (roll.purpose, roll.trait, roll.trait_value) == ("amputation", "medicina", 1)
    assert (roll.dice, roll.base_threshold, roll.threshold) == ((25, 19), 20, 20)
    assert (roll.successes, roll.success) == (1, True)
    failed = amputation_roll(1, ScriptedRng([21, 90]))
    assert (failed.threshold, failed.success) == (20, False)
    assert "Amputar: medicina 1 → 2d100 [21, 90] contra 20 %" in failed.describe()
    assert failed.as_dict()["purpose"] == "amputation"


def test_amputation_roll_reads_the_setting_modifiers_and_penalty() -> None:
    settings = RuleSettings.from_dict({"amputation_threshold": 45})
    assert amputation_roll(
        0,
        ScriptedRng([45]),
        settings=RuleSettings.from_dict(
            {"amputation_threshold": 45, "medicine_requires_trait": False}
        ),
    ).success
    roll = amputation_roll(
        2,
        ScriptedRng([50, 60, 36]),
        modifiers=(Modifier("kit", "botiquín", 5),),
        penalty=(Modifier("hunger", "hambre", 10),),
        settings=settings,
    )
    assert (roll.base_threshold, roll.threshold, roll.success) == (45, 40, True)
    assert (
        amputation_roll(
            2,
            ScriptedRng([41, 41, 41]),
            penalty=roll.penalty,
            modifiers=roll.modifiers,
            settings=settings,
        ).success
        is False
    )


def test_amputation_needs_medicina() -> None:
    with pytest.raises(RulesError) as exc:
        amputation_roll(0, ScriptedRng([]))
    assert exc.value.code == "medicine_needed"
    with pytest.raises(RulesError):
        amputation_roll(-1, ScriptedRng([]))


def test_amputation_success_rate_matches_r3() -> None:
    hits = sum(amputation_roll(1, rng(s)).success for s in range(4000))
    exact = 1 - 0.8**2  # 36 %
    assert within(Estimate.of(hits, 4000), exact)


# ------------------------------------------------------------------------------ estimates


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    low, high = wilson_interval(0, 10)
    assert (low, round(high, 4)) == (0.0, 0.2775)
    assert wilson_interval(10, 10)[1] == 1.0
    with pytest.raises(RulesError):
        wilson_interval(3, 0)
    assert Estimate.of(1, 4).describe() == "25,0 % (IC 95 %: 4,6–69,9 %)"


# ------------------------------------------------------------------------------ chances


def test_member_chances_follow_attack_and_escape_thresholds() -> None:
    c = member_chances(ANA)
    assert c.hit == pytest.approx(1 - 0.4**3)  # armas_cac 2 → 3d100 ≤ 60
    assert c.hit_grabbed == pytest.approx(1 - 0.6**3)  # −20 when grabbed
    assert c.wound == pytest.approx(1 - 0.5**3)  # hacha: Fuerza 2 against 50
    assert c.escape == pytest.approx(1 - 0.6**2)  # the higher of Agilidad/Pelea (1)
    assert (c.hit_dice, c.wound_dice, c.escape_dice) == (3, 3, 2)
    tired = member_chances(PartyMember("x", AXE, ANA.traits, penalty=10))
    assert tired.hit == pytest.approx(1 - 0.5**3)
    assert tired.wound == pytest.approx(1 - 0.6**3)
    far = member_chances(PartyMember("x", RIFLE, {"armas_distancia": 0}, distance_m=20))
    assert (far.hit, far.wound, far.wound_dice) == (pytest.approx(0.40), 0.80, 1)  # 25 + 15
    assert member_chances(PartyMember("x", FISTS, {"pelea": 1})).hit == pytest.approx(0.84)


@pytest.mark.parametrize(
    "member",
    [
        PartyMember("x", AXE, {"armas_cac": -1}),
        PartyMember("x", AXE, {}, escape_trait="sigilo"),
        PartyMember("x", AXE, {}, when_grabbed="run"),  # type: ignore[arg-type]
        PartyMember("x", PISTOL, {}, distance_m=-1),
    ],
)
def test_member_chances_reject_bad_fighters(member: PartyMember) -> None:
    with pytest.raises(RulesError):
        member_chances(member)


# ------------------------------------------------------------------------------ exact values


def test_exact_one_turn_is_the_first_attack_then_the_grab() -> None:
    c = member_chances(ANA)
    one = exact_one_zombie([c], 1, 0.0, TABLE)
    assert one.p_kill_all == pytest.approx(c.kill)
    assert one.p_grabbed == pytest.approx((1 - c.kill) * 0.40)
    assert (one.p_bitten, one.p_infected, one.p_dead) == (0, 0, 0)  # grabs bite next turn


def test_exact_two_turns_by_hand() -> None:
    c = member_chances(ANA)
    a = 0.36  # Medicina 1 → 2d100 ≤ 20
    two = exact_one_zombie([c], 2, a, TABLE)
    bitten = (1 - c.kill) * 0.4 * (1 - c.kill_grabbed) * 0.6
    assert two.p_bitten == pytest.approx(bitten)
    assert two.p_infected == pytest.approx(bitten * (1 - a))
    assert two.p_dead == 0
    first_turn_kill = c.kill
    missed_not_grabbed = (1 - c.kill) * 0.6 * c.kill
    grabbed_then_kill = (1 - c.kill) * 0.4 * c.kill_grabbed
    assert two.p_kill_all == pytest.approx(first_turn_kill + missed_not_grabbed + grabbed_then_kill)


def test_exact_three_consecutive_bites_kill() -> None:
    weak = member_chances(WEAK)  # Pelea 0, fists: kill 0.6 × 0.05
    three = exact_one_zombie([weak], 4, 0.0, TABLE)
    held = (1 - weak.kill) * 0.4 * ((1 - weak.kill_grabbed) * 0.6) ** 3
    assert three.p_dead == pytest.approx(held)
    sure = TABLE.with_settings(RuleSettings.from_dict({"consecutive_bites_to_die": 1}))
    once = exact_one_zombie([weak], 2, 0.0, sure)
    assert once.p_dead == pytest.approx(once.p_bitten) and once.p_dead > 0


def test_duel_exact_geometric() -> None:
    a, b = member_chances(ANA), member_chances(TOMAS)
    one = duel_exact(a, b, 1)
    assert (one.p_kill_all, one.p_dead) == (pytest.approx(a.kill), pytest.approx(b.kill))
    assert one.p_both_dead == pytest.approx(a.kill * b.kill)
    q = (1 - a.kill) * (1 - b.kill)
    three = duel_exact(a, b, 3)
    assert three.p_kill_all == pytest.approx(a.kill * (1 + q + q * q))


# ------------------------------------------------------------------------------ zombies: exact


@pytest.mark.parametrize(
    ("party", "turns", "medicina"),
    [
        ([ANA], 1, None),
        ([WEAK], 6, None),
        ([TOMAS], 8, 1),  # escapes when grabbed; amputation after bites
        ([WEAK, LUCIA], 6, 2),  # Lucía helps from 4 m, then takes the zombie if Débil falls
        ([WEAK, WEAK, WEAK], 10, None),
    ],
)
def test_simulator_agrees_with_the_exact_one_zombie_chain(
    party: list[PartyMember], turns: int, medicina: int | None
) -> None:
    odds = zombie_odds(party, 1, turns, rng(3), simulations=200_000, medicina=medicina)
    exact = odds.exact
    assert exact is not None
    for name in ("kill_all", "bitten", "infected", "dead", "all_dead"):
        assert within(getattr(odds, name), getattr(exact, f"p_{name}")), name
    one = odds.exact_one_turn
    assert one.turns == 1 and one.p_kill_all <= exact.p_kill_all
    if turns == 1:
        assert within(odds.kill_all, one.p_kill_all)


def test_exact_values_are_not_trivially_met() -> None:
    # The check above can fail: a simulator that drops the −20 when grabbed misses the chain.
    odds = zombie_odds([WEAK], 1, 6, rng(3), simulations=200_000)
    assert odds.exact is not None and odds.dead.p > 0.05
    unfair = exact_one_zombie(
        [member_chances(PartyMember("Débil", FISTS, {"pelea": 1}))], 6, 0.0, TABLE
    )
    assert not within(odds.dead, unfair.p_dead)


# ------------------------------------------------------------------------------ zombies: scalar


def _code(o: FightOutcome) -> int:
    flags = {
        "kill_all": o.kill_all,
        "bitten": any(o.bitten),
        "infected": any(o.infected),
        "dead": any(o.dead),
        "all_dead": all(o.dead),
    }
    return sum(OUTCOME_BITS[k] for k, v in flags.items() if v)


def chi_square(observed: Counter[int], expected: Sequence[float], n: int) -> tuple[float, int]:
    """Goodness of fit of ``observed`` counts (n fights) to ``expected`` proportions by
    outcome code, the cells expected below 5 pooled into one. Returns (statistic, df)."""
    stat, cells, pool_obs, pool_exp = 0.0, 0, 0, 0.0
    for code, p in enumerate(expected):
        e, o = p * n, observed.get(code, 0)
        if e < 5:
            pool_obs, pool_exp = pool_obs + o, pool_exp + e
            continue
        stat += (o - e) ** 2 / e
        cells += 1
    if pool_obs or pool_exp:
        stat += (pool_obs - pool_exp) ** 2 / max(pool_exp, 1.0)
        cells += 1
    return stat, cells - 1


SCALAR_CASES = [
    ([WEAK, TOMAS], 4, 6, 1),  # one attacks, one escapes; deaths pass the zombies on
    ([ANA], 3, 5, None),
    ([LUCIA, WEAK, ANA], 5, 4, 2),
]


@pytest.mark.parametrize(("party", "zombies", "turns", "medicina"), SCALAR_CASES)
def test_simulator_matches_resolve_zombie_turn_fights(
    party: list[PartyMember], zombies: int, turns: int, medicina: int | None
) -> None:
    n_ref = 1200
    ref_rng = rng(11)
    outcomes = [
        reference_zombie_fight(party, zombies, turns, ref_rng, medicina=medicina)
        for _ in range(n_ref)
    ]
    odds = zombie_odds(party, zombies, turns, rng(12), simulations=200_000, medicina=medicina)
    expected = [c / odds.simulations for c in odds.joint]
    stat, df = chi_square(Counter(_code(o) for o in outcomes), expected, n_ref)
    assert df >= 2 and stat < CHI2_999[df], (stat, df, odds.joint)
    for h in range(len(party)):
        ref = Estimate.of(sum(o.dead[h] for o in outcomes), n_ref)
        assert within(ref, odds.members[h].dead.p)
        ref = Estimate.of(sum(o.bitten[h] for o in outcomes), n_ref)
        assert within(ref, odds.members[h].bitten.p)
    mean_killed = sum(o.enemies_killed for o in outcomes) / n_ref
    assert abs(mean_killed - odds.zombies_killed_mean) < 0.2


def test_chi_square_rejects_a_different_fight() -> None:
    # The comparison above has power: the same fights against a 50 % grab are told apart.
    party, zombies, turns = [WEAK, TOMAS], 4, 6
    ref_rng = rng(11)
    outcomes = [reference_zombie_fight(party, zombies, turns, ref_rng) for _ in range(1200)]
    other = TABLE.with_settings(RuleSettings.from_dict({"grab_threshold": 50}))
    odds = zombie_odds(party, zombies, turns, rng(12), simulations=200_000, table=other)
    stat, df = chi_square(
        Counter(_code(o) for o in outcomes), [c / 200_000 for c in odds.joint], 1200
    )
    assert stat > CHI2_999[df]


# ------------------------------------------------------------------------------ zombies: rules


def test_outcomes_nest_and_count_the_same_fights() -> None:
    odds = zombie_odds([WEAK, ANA], 5, 10, rng(5), simulations=50_000, medicina=1)
    assert odds.simulations == 50_000 == sum(odds.joint)
    assert odds.dead.p <= odds.infected.p <= odds.bitten.p  # death needs untreated bites
    assert odds.all_dead.p <= odds.dead.p
    assert 0 < odds.kill_all.p < 1 and odds.members[0].amputated.p > 0
    assert odds.exact is None and odds.exact_one_turn.turns == 1
    assert odds.dice > odds.simulations  # every roll counts its dice


@pytest.mark.parametrize(
    ("overrides", "check"),
    [
        ({"grab_threshold": 0}, lambda o: o.bitten.p == 0),
        ({"bite_threshold": 0}, lambda o: o.bitten.p == 0 and o.dead.p == 0),
        ({"consecutive_bites_to_die": 1}, lambda o: o.dead.p == o.infected.p == o.bitten.p),
        ({"bites_same_turn_to_die": 1}, lambda o: o.dead.p == o.bitten.p),
        ({"melee_to_hit": 0}, lambda o: o.kill_all.p == 0),
        ({"amputation_threshold": 0}, lambda o: o.infected.p == o.bitten.p),
        ({"amputation_threshold": 100}, lambda o: o.infected.p == o.dead.p),
    ],
)
def test_the_campaign_numbers_change_the_odds(
    overrides: dict[str, int], check: Callable[[object], bool]
) -> None:
    settings = RuleSettings.from_dict(overrides)
    table = TABLE.with_settings(settings)
    odds = zombie_odds(
        [ANA], 3, 6, rng(2), simulations=20_000, medicina=1, table=table, settings=settings
    )
    assert odds.bitten.p > 0 or "grab_threshold" in overrides or "bite_threshold" in overrides
    assert check(odds)


def test_escape_and_attack_choices_differ() -> None:
    fighter = PartyMember("x", FISTS, {"pelea": 0, "agilidad": 3})
    attack_odds = zombie_odds([fighter], 1, 6, rng(4), simulations=100_000)
    escape = PartyMember("x", FISTS, {"pelea": 0, "agilidad": 3}, when_grabbed="escape")
    escape_odds = zombie_odds([escape], 1, 6, rng(4), simulations=100_000)
    assert escape_odds.dead.high < attack_odds.dead.low  # escaping at 4d100 ≤ 40 saves lives
    assert escape_odds.exact is not None and within(escape_odds.dead, escape_odds.exact.p_dead)


def test_seeded_runs_repeat_and_chunks_add_up() -> None:
    a = zombie_odds([ANA], 5, 10, rng(9), simulations=150_000)  # two chunks
    b = zombie_odds([ANA], 5, 10, rng(9), simulations=150_000)
    assert a.as_dict() == b.as_dict() and a.simulations == 150_000
    assert zombie_odds_public is zombie_odds


@pytest.mark.parametrize(
    ("party", "zombies", "turns", "simulations", "medicina"),
    [
        ([], 1, 1, 10, None),
        ([ANA] * 21, 1, 1, 10, None),
        ([ANA], 0, 1, 10, None),
        ([ANA], 101, 1, 10, None),
        ([ANA], 1, 0, 10, None),
        ([ANA], 1, 101, 10, None),
        ([ANA], 1, 1, 0, None),
        ([ANA], 1, 1, 1_000_001, None),
        ([ANA], 1, 1, 10, 0),  # Medicina 0 cannot amputate (medicine_requires_trait)
        ([ANA] * 20, 100, 100, 1_000_000, None),  # too much work for one call
    ],
)
def test_zombie_odds_reject_bad_inputs(
    party: list[PartyMember], zombies: int, turns: int, simulations: int, medicina: int | None
) -> None:
    with pytest.raises(RulesError):
        zombie_odds(party, zombies, turns, rng(), simulations=simulations, medicina=medicina)


def test_zombie_odds_as_dict_and_text() -> None:
    odds = zombie_odds([ANA, TOMAS], 2, 3, rng(1), simulations=2_000)
    data = odds.as_dict()
    for key in ("simulations", "p_kill_all", "p_bitten", "p_infected", "p_dead"):
        assert key in data
        if key != "simulations":
            low, high = data["ci"][key]  # type: ignore[index]
            assert 0 <= low <= data[key] <= high <= 1  # type: ignore[operator]
    assert data["exact_one_turn"]["p_kill_all"] == pytest.approx(  # type: ignore[index]
        odds.exact_one_turn.p_kill_all
    )
    text = odds.describe()
    assert "Acabar con todos los zombis" in text and "IC 95 %" in text and "Tomás" in text


# ------------------------------------------------------------------------------ humans (R21)


def test_duel_agrees_with_exact_and_with_resolve_human_exchange() -> None:
    odds = human_odds([ANA], [TOMAS], 4, rng(6), simulations=200_000)
    assert odds.exact is not None
    assert within(odds.kill_all, odds.exact.p_kill_all)
    assert within(odds.dead, odds.exact.p_dead)
    assert within(odds.both_down, odds.exact.p_both_dead)
    ref_rng = rng(7)
    outcomes = [reference_human_fight([ANA], [TOMAS], 4, ref_rng) for _ in range(3000)]
    assert within(Estimate.of(sum(o.kill_all for o in outcomes), 3000), odds.kill_all.p)
    assert within(Estimate.of(sum(o.dead[0] for o in outcomes), 3000), odds.dead.p)


def test_group_fight_matches_the_scalar_volleys() -> None:
    party, rivals = [ANA, WEAK], [TOMAS]
    odds = human_odds(party, rivals, 3, rng(6), simulations=200_000)
    assert odds.exact is None
    ref_rng = rng(8)
    outcomes = [reference_human_fight(party, rivals, 3, ref_rng) for _ in range(3000)]
    assert within(Estimate.of(sum(o.kill_all for o in outcomes), 3000), odds.kill_all.p)
    for h in range(2):
        assert within(Estimate.of(sum(o.dead[h] for o in outcomes), 3000), odds.member_dead[h].p)
    data = odds.as_dict()
    assert (data["p_bitten"], data["p_infected"]) == (0.0, 0.0)
    assert "Caen los dos bandos" in odds.describe()


def test_distance_reaches_every_fighter() -> None:
    near = human_odds([LUCIA], [LUCIA], 1, rng(1), simulations=1000, distance_m=4)
    far = human_odds([LUCIA], [LUCIA], 1, rng(1), simulations=1000, distance_m=100)
    assert far.kill_all.p == 0 < near.kill_all.p  # out of range: threshold 0
    with pytest.raises(RulesError):
        human_odds([LUCIA], [LUCIA], 1, rng(1), distance_m=-1)
    with pytest.raises(RulesError):
        human_odds([LUCIA], [], 1, rng(1))


# ------------------------------------------------------------------------------ bite and cure


def test_bite_odds() -> None:
    odds = bite_odds(2, rng(1), simulations=100_000)
    exact = 1 - 0.8**3
    assert odds.exact == pytest.approx(exact) and within(odds.amputated, exact)
    assert odds.amputated.successes + odds.infected.successes == 100_000
    data = odds.as_dict()
    assert data["p_dead"] == data["p_infected"] == odds.infected.p
    easier = bite_odds(2, rng(1), settings=RuleSettings.from_dict({"amputation_threshold": 50}))
    assert easier.threshold == 50 and easier.exact == pytest.approx(1 - 0.5**3)
    assert bite_odds(2, rng(1), penalty=15, simulations=10).threshold == 5
    with pytest.raises(RulesError):
        bite_odds(0, rng(1))
    assert "Amputación con éxito" in odds.describe()


def test_cure_odds() -> None:
    odds = cure_odds(1, rng(2), simulations=100_000, days=3)
    one = 1 - 0.7**2
    assert odds.threshold == 30 and odds.exact_one_try == pytest.approx(one)
    assert within(odds.first_try, one)
    assert within(odds.cured, 1 - (1 - one) ** 3)
    set_by_master = cure_odds(1, rng(2), threshold=50, penalty=10, simulations=10)
    assert set_by_master.threshold == 40
    campaign = cure_odds(
        1, rng(2), settings=RuleSettings.from_dict({"medicine_cure_threshold": 55})
    )
    assert campaign.threshold == 55
    for bad in ({"days": 0}, {"days": 366}, {"simulations": 0}, {"threshold": math.nan}):
        with pytest.raises(RulesError):
            cure_odds(1, rng(2), **bad)  # type: ignore[arg-type]
    with pytest.raises(RulesError):
        cure_odds(0, rng(2))
    assert "Cura en 3 días" in odds.describe()
