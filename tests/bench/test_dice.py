"""Benchmark: 10⁶ action pools of 4d100 (``reglas.dice.roll_actions``: trait 3 → 4 dice against
40 %) beside a bare numpy draw of the same 4·10⁶ dice.

The bare draw is in the pools' own dtype (``reglas.dice.DIE_DTYPE``, int32: the same faces as
an int64 draw, and no faster or slower to draw than int64), so the ratio is what the pools add
to drawing their dice. The two are called alternately, one call each per round (A/B/A/B), in
CPU time (``time.process_time``: the other processes of a shared machine stretch wall time by
up to 2× from one call to the next); the figures are the medians of ``ROUNDS`` calls and the
ratio the median of the rounds' paired ratios. Target: ≤ 1.5 × the bare draw. Never fails on
time; checks the work was done."""

from __future__ import annotations

import time
from collections.abc import Callable
from statistics import median

import numpy as np

from reglas.dice import DIE_DTYPE, roll_actions
from tests.bench import report

POOLS = 1_000_000
ROUNDS = 21


def _cpu(work: Callable[[], object]) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def test_action_pools_against_a_bare_numpy_draw():
    rng = np.random.default_rng(1)
    values = np.full(POOLS, 3, dtype=np.int64)
    pools = roll_actions(values, 40, rng)
    assert pools.dice.shape == (POOLS, 4) and 0.85 < pools.success.mean() < 0.89  # 1 − 0.6⁴
    assert pools.dice.dtype == DIE_DTYPE and abs(pools.successes.mean() - 1.6) < 0.01  # 4 · 0.4
    ours, bare = [], []
    for _ in range(ROUNDS):
        ours.append(_cpu(lambda: roll_actions(values, 40, rng)))
        bare.append(_cpu(lambda: rng.integers(1, 101, size=(POOLS, 4), dtype=DIE_DTYPE)))
    report.record(
        "10⁶ action pools of 4d100 (CPU)",
        median(ours) * 1000,
        "ms",
        reference=median(bare) * 1000,
        reference_name="bare numpy draw",
        ratio=median(o / b for o, b in zip(ours, bare, strict=True)),
        target="ratio ≤ 1.5",
        key="pools_over_numpy",
    )
