"""Many keyed generators at once: ``make_rng(entropy, key)`` for a whole column of keys.

The tick stores one roll per character that rolled (a resistance roll, a disease's duration),
each drawn from its own ledger key (``reglas.core.make_rng``). Building a ``SeedSequence`` costs
tens of microseconds, nearly all of it in Python-level work on four-word arrays; here the
``SeedSequence`` hashing (numpy's ``mix_entropy`` and ``generate_state``, the algorithm of
O'Neill's ``seed_seq_fe``) runs once for every key as uint32 column arithmetic, and each
generator is then made from its ready state. The streams are exactly ``make_rng``'s (the tests
compare states and draws key by key); keys with a word of 2³² or more, which numpy splits into
several words, go to ``make_rng`` itself.

Source: DESIGN.md "Randomness and the roll ledger"; numpy ``SeedSequence`` (NEP 19).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.random.bit_generator import ISeedSequence
from numpy.typing import ArrayLike, NDArray

from reglas.core import make_rng

_INIT_A = 0x43B0D7E5
_MULT_A = 0x931E8875
_INIT_B = 0x8B51F9DD
_MULT_B = 0x58F38DED
_MIX_MULT_L = np.uint32(0xCA01F9DD)
_MIX_MULT_R = np.uint32(0x4973F715)
_XSHIFT = np.uint32(16)
_POOL_SIZE = 4
_MASK32 = 0xFFFFFFFF

U32 = NDArray[np.uint32]

_BAD_KEYS = "keys must be rows of non-negative ints, and the entropy non-negative"
"""As numpy's SeedSequence (and so ``make_rng``), bad seeds raise ValueError: the tick makes
its keys itself, no reader types them."""


def _words(value: int) -> list[int]:
    """An int as numpy's SeedSequence splits it: 32-bit words, least significant first."""
    words = [value & _MASK32]
    value >>= 32
    while value:
        words.append(value & _MASK32)
        value >>= 32
    return words


class _Hash:
    """numpy's ``hashmix`` over columns: one multiplier that moves on at every call."""

    def __init__(self, start: int, multiplier: int) -> None:
        self.const = start
        self.multiplier = multiplier

    def __call__(self, value: U32) -> U32:
        value = value ^ np.uint32(self.const)
        self.const = (self.const * self.multiplier) & _MASK32
        value = value * np.uint32(self.const)
        mixed: U32 = value ^ (value >> _XSHIFT)
        return mixed


def _mix(x: U32, y: U32) -> U32:
    result = _MIX_MULT_L * x - _MIX_MULT_R * y
    mixed: U32 = result ^ (result >> _XSHIFT)
    return mixed


def seed_states(entropy: int, keys: NDArray[np.int64]) -> NDArray[np.uint64]:
    """The PCG64 seed of ``make_rng(entropy, key)`` for each row of ``keys``: shape ``(m, 4)``
    uint64, row i ``SeedSequence(entropy, spawn_key=keys[i]).generate_state(4, np.uint64)``.

    ``keys`` shape ``(m, j)``, every value in 0..2³²−1 (one word each); ``entropy`` ≥ 0.
    Raises ValueError otherwise.
    """
    if entropy < 0 or keys.ndim != 2 or (keys.size and (keys.min() < 0 or keys.max() > _MASK32)):
        raise ValueError(_BAD_KEYS)
    m, width = keys.shape
    run = _words(int(entropy))
    if width and len(run) < _POOL_SIZE:  # as numpy: zeros up to the pool when a key follows
        run += [0] * (_POOL_SIZE - len(run))
    entropy_columns = [np.full(m, w, np.uint32) for w in run]
    entropy_columns += [keys[:, j].astype(np.uint32) for j in range(width)]
    hashmix = _Hash(_INIT_A, _MULT_A)
    zero = np.zeros(m, np.uint32)
    pool = [
        hashmix(entropy_columns[i] if i < len(entropy_columns) else zero) for i in range(_POOL_SIZE)
    ]
    for src in range(_POOL_SIZE):
        for dst in range(_POOL_SIZE):
            if src != dst:
                pool[dst] = _mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL_SIZE, len(entropy_columns)):
        for dst in range(_POOL_SIZE):
            pool[dst] = _mix(pool[dst], hashmix(entropy_columns[src]))
    out = _Hash(_INIT_B, _MULT_B)
    words = np.stack([out(pool[i % _POOL_SIZE]) for i in range(2 * _POOL_SIZE)], axis=1)
    # As numpy: the words read as little-endian uint64 pairs.
    state: NDArray[np.uint64] = words.astype("<u4").view("<u8").astype(np.uint64)
    return state


class _ReadySeed(ISeedSequence):
    """A seed sequence whose PCG64 state is already known (``seed_states``' row)."""

    __slots__ = ("state",)

    def __init__(self, state: NDArray[np.uint64]) -> None:
        self.state = state

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> NDArray[Any]:
        if n_words != _POOL_SIZE or np.dtype(dtype) != np.uint64:  # pragma: no cover - PCG64's
            raise ValueError("a ready seed gives PCG64's four uint64 words only")
        return self.state


def keyed_rngs(entropy: int, keys: ArrayLike) -> Callable[[int], np.random.Generator]:
    """``i → make_rng(entropy, keys[i])`` with the seeds of every key worked out at once.

    ``keys`` shape ``(m, j)`` of non-negative ints. The generator of row i draws exactly what
    ``make_rng(entropy, list(keys[i]))`` draws. Keys with a value ≥ 2³² are passed to
    ``make_rng`` one by one. Raises ValueError for a negative entropy or key value, or keys that
    are not one row per generator (as ``make_rng`` does for a negative one).
    Source: DESIGN.md "Randomness and the roll ledger".
    """
    table = np.asarray(keys, dtype=np.int64)
    if table.ndim != 2:
        raise ValueError(_BAD_KEYS)
    if table.size and table.min() < 0:
        raise ValueError(_BAD_KEYS)
    if table.size and table.max() > _MASK32:
        rows = table.tolist()
        return lambda i: make_rng(entropy, rows[i])
    states = seed_states(entropy, table)
    # numpy takes any ISeedSequence (its stubs name SeedSequence only).
    return lambda i: np.random.Generator(np.random.PCG64(_ReadySeed(states[i])))  # type: ignore[arg-type]
