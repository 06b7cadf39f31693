"""Combat: to hit, to wound, zombie turns, human exchanges. Source: RULES.md R19, R20, R21."""

from __future__ import annotations

import math

import pytest

from reglas.combat import (
    AttackMode,
    AttackZombie,
    Combatant,
    EscapeZombie,
    ZombieFight,
    ZombieState,
    attack,
    attack_mode,
    resolve_human_exchange,
    resolve_zombie_turn,
    to_hit_threshold,
    to_hit_trait,
    wound_threshold,
)
from reglas.core import Modifier, make_rng
from reglas.errors import RulesError
from reglas.tables import DEFAULT_COMBAT as TABLE
from reglas.tables import Weapon

from .world_helpers import ScriptedRng

PISTOL = TABLE.weapon("pistola_9mm")
RIFLE = TABLE.weapon("fusil_762")
KNIFE = TABLE.weapon("cuchillo")
AXE = TABLE.weapon("hacha")
FISTS = TABLE.weapon("desarmado")
BAT = TABLE.weapon("bate")

NOBODY: dict[str, int] = {}  # every trait 0: one die per roll


# ----------------------------------------------------------------------------- to hit (R19)


def test_to_hit_traits_and_modes() -> None:
    assert (attack_mode(PISTOL), to_hit_trait(PISTOL)) == (AttackMode.RANGED, "armas_distancia")
    assert (attack_mode(KNIFE), to_hit_trait(KNIFE)) == (AttackMode.MELEE, "armas_cac")
    assert (attack_mode(BAT), to_hit_trait(BAT)) == (AttackMode.MELEE, "armas_cac")
    assert (attack_mode(FISTS), to_hit_trait(FISTS)) == (AttackMode.UNARMED, "pelea")


@pytest.mark.parametrize(
    ("distance", "one_handed", "two_handed"),
    [
        (0, 60, 60),
        (5, 60, 60),
        (5.5, 40, 40),
        (15, 40, 40),
        (16, 25, 40),  # two-handed +15 beyond 15 m
        (30, 25, 40),
        (31, 10, 25),
        (60, 10, 25),
        (61, 0, 0),  # out of range: no bonus either
        (500, 0, 0),
    ],
)
def test_ranged_to_hit_by_distance(distance: float, one_handed: int, two_handed: int) -> None:
    for weapon, expected in ((PISTOL, one_handed), (RIFLE, two_handed)):
        base, mods = to_hit_threshold(weapon, distance)
        assert base + sum(m.points for m in mods) == expected


def test_melee_to_hit_is_sixty_whatever_the_weapon() -> None:
    for weapon in (KNIFE, AXE, FISTS, BAT):
        assert to_hit_threshold(weapon) == (60, ())


def test_wound_thresholds_by_class_and_caliber() -> None:
    assert [wound_threshold(w) for w in (FISTS, TABLE.weapon("utensilio"), BAT, KNIFE, AXE)] == [
        5,
        15,
        30,
        40,
        50,
    ]
    by_caliber = {
        "22": 30,
        "9mm": 50,
        "38_357": 55,
        "45": 60,
        "556": 70,
        "762": 80,
        "12g": 85,
        "50": 95,
    }
    for caliber, threshold in by_caliber.items():
        gun = Weapon("x", "x", "firearm", caliber=caliber)
        assert wound_threshold(gun) == threshold == TABLE.caliber(caliber).threshold


def test_bad_weapons_and_distances_raise() -> None:
    with pytest.raises(RulesError):
        to_hit_threshold(Weapon("x", "x", "firearm", caliber=None))
    with pytest.raises(RulesError):
        to_hit_threshold(Weapon("x", "x", "laser"))
    with pytest.raises(RulesError):
        to_hit_threshold(PISTOL, -1)


# ----------------------------------------------------------------------------- attacks (R19)


def test_melee_attack_hits_then_rolls_fuerza_with_its_dice() -> None:
    # Armas CaC 1 → 2 dice (70, 55 vs 60: one success); Fuerza 2 → 3 dice vs 40 (blade).
    rng = ScriptedRng([70, 55, 90, 41, 40])
    result = attack(KNIFE, {"armas_cac": 1, "fuerza": 2}, rng)
    assert result.to_hit.dice == (70, 55) and result.to_hit.successes == 1
    assert result.wound is not None
    assert result.wound.trait == "fuerza" and result.wound.dice == (90, 41, 40)
    assert result.wound.threshold == 40
    assert result.kills
    assert rng.exhausted


def test_a_miss_rolls_no_wound() -> None:
    result = attack(FISTS, {"pelea": 0}, ScriptedRng([61]))
    assert not result.hit and result.wound is None and not result.kills
    assert "No impacta" in result.describe()


def test_ranged_wound_is_one_d100_against_the_caliber_without_penalty() -> None:
    penalty = (Modifier("hunger", "hambre (1 día)", 10),)
    # To hit at 3 m: 60 − 10 = 50; die 50 hits. Wound: 9 mm 50 %, die 50 wounds (no penalty).
    result = attack(
        PISTOL, {"armas_distancia": 0}, ScriptedRng([50, 50]), distance_m=3, penalty=penalty
    )
    assert result.to_hit.threshold == 50
    assert result.wound is not None
    assert result.wound.trait is None and result.wound.threshold == 50
    assert result.kills


def test_melee_wound_takes_the_action_penalty() -> None:
    penalty = (Modifier("thirst", "sed (1 día)", 10),)
    result = attack(AXE, NOBODY, ScriptedRng([1, 45]), penalty=penalty)
    assert result.wound is not None
    assert result.wound.threshold == 40  # 50 − 10
    assert not result.kills


def test_two_handed_bonus_shows_in_the_breakdown() -> None:
    result = attack(RIFLE, NOBODY, ScriptedRng([40, 1]), distance_m=20)
    assert result.to_hit.base_threshold == 25
    assert [m.source for m in result.to_hit.modifiers] == ["two_handed"]
    assert result.to_hit.threshold == 40 and result.hit
    assert "+15" in result.to_hit.describe()


def test_to_hit_probability_is_one_minus_miss_to_the_dice() -> None:
    # Armas CaC 2 → 3 dice at 60 %: P = 1 − 0.4³ = 0.936.
    rng = make_rng(19, (1,))
    n = 4000
    hits = sum(attack(KNIFE, {"armas_cac": 2}, rng).hit for _ in range(n))
    p = 1 - 0.4**3
    assert abs(hits / n - p) < 4 * math.sqrt(p * (1 - p) / n)


# ------------------------------------------------------------------------------ zombies (R20)


def _grabbing(*ids: str, bites: int = 0) -> ZombieFight:
    return ZombieFight(
        zombies=tuple(ZombieState(z, grabbing=True, consecutive_bites=bites) for z in ids)
    )


def test_three_bites_in_one_turn_kill() -> None:
    fight = _grabbing("a", "b", "c")
    turn = resolve_zombie_turn(fight, None, NOBODY, ScriptedRng([10, 20, 60]))
    assert turn.bites_this_turn == 3
    assert turn.victim_dead and turn.death_cause == "bites_same_turn"
    assert turn.grabs == ()  # the dead are not grabbed any more
    assert turn.fight.victim_dead and turn.fight.over


def test_two_bites_in_one_turn_do_not_kill() -> None:
    turn = resolve_zombie_turn(_grabbing("a", "b"), None, NOBODY, ScriptedRng([10, 20]))
    assert turn.bites_this_turn == 2 and turn.bitten
    assert not turn.victim_dead
    assert turn.fight.bitten


def test_third_consecutive_bite_of_the_same_zombie_kills() -> None:
    fight = ZombieFight.start(["z"])
    # Turn 1: no grab yet → the zombie grabs (die 40).
    t1 = resolve_zombie_turn(fight, None, NOBODY, ScriptedRng([40]))
    assert t1.fight.zombie("z").grabbing and not t1.bitten
    # Turns 2, 3: the victim fails to escape (die 41 > 40), the zombie bites (die 60).
    t2 = resolve_zombie_turn(t1.fight, EscapeZombie("z"), NOBODY, ScriptedRng([41, 60]))
    assert t2.fight.zombie("z").consecutive_bites == 1 and not t2.victim_dead
    t3 = resolve_zombie_turn(t2.fight, EscapeZombie("z"), NOBODY, ScriptedRng([41, 60]))
    assert t3.fight.zombie("z").consecutive_bites == 2 and not t3.victim_dead
    t4 = resolve_zombie_turn(t3.fight, EscapeZombie("z"), NOBODY, ScriptedRng([41, 60]))
    assert t4.victim_dead and t4.death_cause == "consecutive_bites"
    assert t4.turn == 4


def test_a_turn_without_a_bite_resets_the_count() -> None:
    fight = _grabbing("z", bites=2)
    missed = resolve_zombie_turn(fight, None, NOBODY, ScriptedRng([61]))
    assert missed.fight.zombie("z").consecutive_bites == 0 and not missed.victim_dead
    again = resolve_zombie_turn(missed.fight, None, NOBODY, ScriptedRng([1]))
    assert again.fight.zombie("z").consecutive_bites == 1 and not again.victim_dead


def test_different_zombies_on_consecutive_turns_do_not_add_up() -> None:
    fight = ZombieFight(
        zombies=(
            ZombieState("a", grabbing=True, consecutive_bites=2),
            ZombieState("b", grabbing=True, consecutive_bites=0),
        )
    )
    # a misses (61), b bites (1): nobody reaches three in a row.
    turn = resolve_zombie_turn(fight, None, NOBODY, ScriptedRng([61, 1]))
    assert not turn.victim_dead
    assert [z.consecutive_bites for z in turn.fight.zombies] == [0, 1]


def test_escape_avoids_that_bite_but_the_zombie_may_grab_again() -> None:
    fight = _grabbing("a", "b")
    # Escape from a with Agilidad 1 (dice 90, 40 → success); b bites (die 5); a re-grabs (39).
    turn = resolve_zombie_turn(
        fight, EscapeZombie("a"), {"agilidad": 1, "pelea": 0}, ScriptedRng([90, 40, 5, 39])
    )
    assert turn.escaped and turn.escape is not None and turn.escape.trait == "agilidad"
    assert [b.zombie_id for b in turn.bites] == ["b"]
    assert [g.zombie_id for g in turn.grabs] == ["a"]
    assert turn.fight.zombie("a").grabbing
    assert turn.bites_this_turn == 1


def test_escape_uses_the_higher_of_agilidad_and_pelea_unless_chosen() -> None:
    traits = {"agilidad": 0, "pelea": 2}
    turn = resolve_zombie_turn(
        _grabbing("a"), EscapeZombie("a"), traits, ScriptedRng([99, 99, 99, 99])
    )
    assert turn.escape is not None and turn.escape.trait == "pelea" and len(turn.escape.dice) == 3
    chosen = resolve_zombie_turn(
        _grabbing("a"), EscapeZombie("a", "agilidad"), traits, ScriptedRng([99, 99])
    )
    assert chosen.escape is not None and chosen.escape.trait == "agilidad"
    with pytest.raises(RulesError):
        resolve_zombie_turn(_grabbing("a"), EscapeZombie("a", "fuerza"), traits, ScriptedRng([]))


def test_grabbed_victim_attacks_at_minus_twenty_and_a_kill_prevents_the_bite() -> None:
    fight = _grabbing("a")
    # Axe, Armas CaC 0: 60 − 20 = 40, die 40 hits; Fuerza 0 vs 50, die 50 kills.
    turn = resolve_zombie_turn(fight, AttackZombie("a", AXE), NOBODY, ScriptedRng([40, 50]))
    assert turn.attack is not None
    assert turn.attack.to_hit.threshold == 40
    assert [m.source for m in turn.attack.to_hit.modifiers] == ["grabbed"]
    assert turn.killed == "a" and turn.bites == () and turn.grabs == ()
    assert turn.fight.over and not turn.fight.victim_dead


def test_failed_kill_leads_to_the_bite_roll() -> None:
    turn = resolve_zombie_turn(
        _grabbing("a"), AttackZombie("a", AXE), NOBODY, ScriptedRng([41, 60])
    )
    assert turn.attack is not None and not turn.attack.hit
    assert [b.zombie_id for b in turn.bites] == ["a"] and turn.bitten


def test_free_victim_attacks_first_without_penalty_then_zombies_grab() -> None:
    fight = ZombieFight.start(["a", "b"])
    # Knife at 60 %: die 60 hits, Fuerza die 41 vs 40 fails. Then a grabs (1), b misses (41).
    turn = resolve_zombie_turn(
        fight, AttackZombie("a", KNIFE), NOBODY, ScriptedRng([60, 41, 1, 41])
    )
    assert turn.attack is not None and turn.attack.to_hit.modifiers == ()
    assert turn.bites == ()
    assert [(g.zombie_id, g.roll.success) for g in turn.grabs] == [("a", True), ("b", False)]
    assert turn.fight.zombie("a").grabbing and not turn.fight.zombie("b").grabbing


def test_illegal_actions_raise_before_rolling() -> None:
    free = ZombieFight.start(["a"])
    with pytest.raises(RulesError):
        resolve_zombie_turn(free, EscapeZombie("a"), NOBODY, ScriptedRng([]))
    held = ZombieFight(zombies=(ZombieState("a", grabbing=True), ZombieState("b")))
    with pytest.raises(RulesError):
        resolve_zombie_turn(held, AttackZombie("b", AXE), NOBODY, ScriptedRng([]))
    with pytest.raises(RulesError):
        resolve_zombie_turn(held, AttackZombie("zz", AXE), NOBODY, ScriptedRng([]))
    with pytest.raises(RulesError):
        resolve_zombie_turn(held.with_killed(["a", "b"]), None, NOBODY, ScriptedRng([]))
    dead = ZombieFight(zombies=(ZombieState("a"),), victim_dead=True)
    with pytest.raises(RulesError):
        resolve_zombie_turn(dead, None, NOBODY, ScriptedRng([]))
    with pytest.raises(RulesError):
        ZombieFight.start(["a", "a"])
    with pytest.raises(RulesError):
        ZombieFight.start([])


def test_with_killed_marks_zombies_destroyed_by_other_humans() -> None:
    fight = _grabbing("a", "b").with_killed(["a"])
    assert [z.zombie_id for z in fight.standing] == ["b"]
    turn = resolve_zombie_turn(fight, None, NOBODY, ScriptedRng([61]))
    assert [b.zombie_id for b in turn.bites] == ["b"]


def test_a_seeded_fight_runs_to_its_end_and_serialises() -> None:
    rng = make_rng(20, (1,))
    fight = ZombieFight.start(["a", "b", "c"])
    traits = {"armas_cac": 1, "fuerza": 1, "agilidad": 1, "pelea": 1}
    for _ in range(100):
        if fight.over:
            break
        target = (fight.grabbers or fight.standing)[0].zombie_id
        turn = resolve_zombie_turn(fight, AttackZombie(target, AXE), traits, rng)
        assert turn.as_dict()["turn"] == turn.turn
        assert turn.describe().startswith(f"Turno {turn.turn}.")
        fight = turn.fight
    assert fight.over


# ------------------------------------------------------------------------------- humans (R21)


def test_both_humans_can_die() -> None:
    a = Combatant("Ana", KNIFE, {"armas_cac": 0, "fuerza": 0})
    b = Combatant("Bruno", AXE, {"armas_cac": 0, "fuerza": 0})
    # A hits (10) and wounds (40 ≤ 40); B hits (20) and wounds (50 ≤ 50).
    exchange = resolve_human_exchange(a, b, ScriptedRng([10, 40, 20, 50]))
    assert exchange.a_dead and exchange.b_dead
    assert "Ana" in exchange.describe() and "Bruno" in exchange.describe()


def test_exchange_one_dies_or_none() -> None:
    a = Combatant("Ana", PISTOL, {"armas_distancia": 0})
    b = Combatant("Bruno", FISTS, {"pelea": 0})
    # At 10 m: A 40 %: die 30 hits, 9 mm die 50 wounds. B 60 % unarmed: die 61 misses.
    exchange = resolve_human_exchange(a, b, ScriptedRng([30, 50, 61]), distance_m=10)
    assert exchange.b_dead and not exchange.a_dead
    nobody = resolve_human_exchange(a, b, ScriptedRng([41, 61]), distance_m=10)
    assert not nobody.a_dead and not nobody.b_dead
    assert nobody.as_dict()["a_dead"] is False


def test_negative_traits_raise() -> None:
    with pytest.raises(RulesError):
        attack(KNIFE, {"armas_cac": -1}, make_rng(0))
