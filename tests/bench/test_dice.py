"""Benchmark: 10⁶ action pools of 4d100 (``reglas.dice.roll_actions``: trait 3 → 4 dice against
40 %) beside a bare numpy draw of the same 4·10⁶ dice, alternated A/B/A/B, best of each.
Target: ≤ 1.5 × the bare draw. Never fails on time; checks the work was done."""

from __future__ import annotations

import time

import numpy as np

from reglas.dice import roll_actions
from tests.bench import report

POOLS = 1_000_000


def _best(work, runs: int = 3) -> float:
    return min(_timed(work) for _ in range(runs))


def _timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def test_action_pools_against_a_bare_numpy_draw():
    rng = np.random.default_rng(1)
    values = np.full(POOLS, 3, dtype=np.int64)
    pools = roll_actions(values, 40, rng)
    assert pools.dice.shape == (POOLS, 4) and 0.85 < pools.success.mean() < 0.89  # 1 − 0.6⁴
    ours, bare = [], []
    for _ in range(2):
        ours.append(_best(lambda: roll_actions(values, 40, rng)))
        bare.append(_best(lambda: rng.integers(1, 101, size=(POOLS, 4), dtype=np.int64)))
    report.record(
        "10⁶ action pools of 4d100",
        min(ours) * 1000,
        "ms",
        reference=min(bare) * 1000,
        reference_name="bare numpy draw",
        target="ratio ≤ 1.5",
        key="pools_over_numpy",
    )
