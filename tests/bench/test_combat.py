"""Benchmark of the odds calculator: 100 000 simulated fights against 5 zombies over 10 turns.

Run with ``make bench``. Prints, for ``reglas.combat.odds.zombie_odds`` (one fighter with an
axe, Armas cuerpo a cuerpo 2, Fuerza 2, Agilidad 1, a healer with Medicina 1 for the
amputations): wall time; beside it, in the same run,
(a) the same fights as a pure-Python loop of the scalar resolvers
    (``reference_zombie_fight``: ``resolve_zombie_turn`` turn by turn, ``amputation_roll`` after
    bites), timed on ``BENCH_COMBAT_SAMPLE`` fights (default 2 000) and scaled to 100 000, since
    it is linear;
(b) a bare numpy draw of as many d100 as the simulated rolls stand for (``odds.dice``), and of
    as many uniforms as the simulator drew (``odds.draws``);
and the ratios, in the run's table (``tests/bench/report.py``; ``fights_100k_ms`` in
``bench-results.json``). The vectorised run and the bare draws are best of 3. Target (issue 10):
≤ 1 s. Benchmarks never pass or fail on time: they check that the work was done, and print.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import numpy as np

from reglas.combat.odds import PartyMember, reference_zombie_fight, zombie_odds
from reglas.core import make_rng
from reglas.tables import DEFAULT_COMBAT
from tests.bench import report

FIGHTS = 100_000
ZOMBIES = 5
TURNS = 10
MEDICINA = 1
SAMPLE = int(os.environ.get("BENCH_COMBAT_SAMPLE", "2000"))

FIGHTER = PartyMember(
    "Ana", DEFAULT_COMBAT.weapon("hacha"), {"armas_cac": 2, "fuerza": 2, "agilidad": 1}
)


def _best(work: Callable[[], object], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def test_zombie_odds_benchmark() -> None:
    party = [FIGHTER]
    zombie_odds(party, ZOMBIES, TURNS, make_rng(1, [0]), simulations=1000)  # warm up numpy
    odds = zombie_odds(
        party, ZOMBIES, TURNS, make_rng(1, [1]), simulations=FIGHTS, medicina=MEDICINA
    )
    vector_s = _best(
        lambda: zombie_odds(
            party, ZOMBIES, TURNS, make_rng(1, [1]), simulations=FIGHTS, medicina=MEDICINA
        )
    )
    assert odds.simulations == FIGHTS == sum(odds.joint)
    assert 0 < odds.kill_all.p < 1 and 0 < odds.dead.p < 1

    rng = make_rng(1, [2])
    started = time.perf_counter()
    outcomes = [
        reference_zombie_fight(party, ZOMBIES, TURNS, rng, medicina=MEDICINA) for _ in range(SAMPLE)
    ]
    loop_s = time.perf_counter() - started
    loop_full_s = loop_s * FIGHTS / SAMPLE
    assert len(outcomes) == SAMPLE
    loop_dead = sum(any(o.dead) for o in outcomes) / SAMPLE

    draw_rng = np.random.default_rng(3)
    dice = draw_rng.integers(1, 101, size=odds.dice, dtype=np.int64)
    uniforms = draw_rng.random(odds.draws)
    assert dice.size == odds.dice and uniforms.size == odds.draws
    dice_s = _best(lambda: draw_rng.integers(1, 101, size=odds.dice, dtype=np.int64))
    uniforms_s = _best(lambda: draw_rng.random(odds.draws))
    report.record(
        f"{FIGHTS:,} fights vs {ZOMBIES} zombies, {TURNS} turns (zombie_odds)",
        vector_s * 1000,
        "ms",
        reference=dice_s * 1000,
        reference_name=f"bare numpy draw of the {odds.dice:,} d100",
        target="≤ 1000 ms",
        key="fights_100k_ms",
        key_value=vector_s * 1000,
    )
    report.record(
        f"the same fights, pure-Python resolve_zombie_turn loop (×{FIGHTS // SAMPLE} of {SAMPLE})",
        loop_full_s * 1000,
        "ms",
        reference=vector_s * 1000,
        reference_name="zombie_odds",
        key="fights_loop_over_numpy",
    )

    print()
    print(
        f"Odds calculator benchmark: {FIGHTS} fights, 1 fighter against {ZOMBIES} zombies, "
        f"{TURNS} turns"
    )
    print(
        f"  zombie_odds (numpy over the fights): {vector_s * 1000:8.0f} ms  "
        f"(p_kill_all {odds.kill_all.p:.3f}, p_dead {odds.dead.p:.3f})"
    )
    print(
        f"  (a) pure-Python loop of resolve_zombie_turn: {loop_full_s * 1000:8.0f} ms "
        f"(measured on {SAMPLE}: {loop_s * 1000:.0f} ms, scaled ×{FIGHTS / SAMPLE:g}; "
        f"p_dead {loop_dead:.3f})"
    )
    print(
        f"  (b) bare numpy draw of {odds.dice} d100 (the dice the rolls stand for): "
        f"{dice_s * 1000:8.0f} ms; of {odds.draws} uniforms (what the simulator drew): "
        f"{uniforms_s * 1000:.0f} ms"
    )
    print(
        f"  ratios: loop / zombie_odds = {loop_full_s / vector_s:.0f}; "
        f"zombie_odds / bare d100 draw = {vector_s / dice_s:.1f}; "
        f"zombie_odds / bare uniform draw = {vector_s / uniforms_s:.1f}"
    )
    print(f"  target: ≤ 1000 ms → {'met' if vector_s <= 1 else 'NOT met'}")
    print(f"  fights_100k_ms = {vector_s * 1000:.0f}")
