"""``reglas.seeds``: many keyed generators at once, each exactly ``make_rng``'s stream."""

from __future__ import annotations

import numpy as np
import pytest

from reglas.core import make_rng
from reglas.seeds import keyed_rngs, seed_states

ENTROPIES = [0, 1, 12345, 2**32, 2**64 + 7, 2**127 + 99, 2**200 + 3]


def _keys(seed: int, m: int = 120) -> np.ndarray:
    rng = np.random.default_rng(seed)
    keys = np.column_stack(
        [
            rng.integers(0, 1000, m),
            np.full(m, 22),
            rng.integers(0, 2**32, m),
            rng.integers(0, 3, m),
        ]
    )
    keys[0] = [0, 0, 0, 0]
    keys[1] = [2**32 - 1] * 4
    return keys


@pytest.mark.parametrize("entropy", ENTROPIES)
def test_each_generator_is_make_rngs(entropy):
    keys = _keys(entropy % 1000)
    rng_of = keyed_rngs(entropy, keys)
    for i in range(keys.shape[0]):
        ours, reference = rng_of(i), make_rng(entropy, keys[i].tolist())
        assert ours.bit_generator.state == reference.bit_generator.state
        assert ours.integers(1, 101, 6).tolist() == reference.integers(1, 101, 6).tolist()


def test_seed_states_are_seed_sequences_states():
    keys = _keys(3, 20)
    states = seed_states(2**127 + 5, keys)
    assert states.shape == (20, 4) and states.dtype == np.uint64
    for i in range(20):
        seq = np.random.SeedSequence(2**127 + 5, spawn_key=keys[i].tolist())
        assert states[i].tolist() == seq.generate_state(4, np.uint64).tolist()


def test_keys_of_other_widths_and_none():
    for width in (0, 1, 2, 6):
        keys = np.arange(5 * width, dtype=np.int64).reshape(5, width)
        rng_of = keyed_rngs(99, keys)
        for i in range(5):
            expected = make_rng(99, keys[i].tolist()).bit_generator.state
            assert rng_of(i).bit_generator.state == expected
    assert seed_states(99, np.zeros((0, 4), np.int64)).shape == (0, 4)


def test_a_key_word_beyond_32_bits_takes_make_rng():
    keys = np.array([[7, 22, 2**40 + 3, 0], [7, 22, 5, 0]], np.int64)
    rng_of = keyed_rngs(2**64 + 1, keys)
    for i in range(2):
        expected = make_rng(2**64 + 1, keys[i].tolist()).bit_generator.state
        assert rng_of(i).bit_generator.state == expected


@pytest.mark.parametrize(
    ("entropy", "keys"),
    [(-1, [[1, 2]]), (5, [[1, -2]]), (5, [1, 2])],
)
def test_bad_keys_are_refused(entropy, keys):
    with pytest.raises(ValueError):
        keyed_rngs(entropy, keys)
