"""Shared building blocks: modifiers with their source, threshold clamping, seeded generators.

Source: RULES.md R1 (thresholds are clamped to 0..100), DESIGN.md "Randomness and the roll ledger".
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from reglas.errors import RulesError


@dataclass(frozen=True, slots=True)
class Modifier:
    """One line of a breakdown: where some points come from.

    ``source`` is a short machine slug (``"hunger"``, ``"dirt"``…), ``label`` the Spanish text
    (what the CLI prints), ``points`` a signed integer of percentage points, ``params`` the
    values the label is made of (``{"days": 2}``, ``{"season": "invierno"}``…: plain numbers
    and slugs), so the apps word the line in the reader's language from ``source`` and
    ``params`` (``nucleo.rules_labels``). ``params`` takes no part in equality or hashing.
    """

    source: str
    label: str
    points: int
    params: Mapping[str, int | float | str | None] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    def as_dict(self) -> dict[str, object]:
        """The line as JSON-able data; ``params`` only when there are some."""
        out: dict[str, object] = {"source": self.source, "label": self.label, "points": self.points}
        if self.params:
            out["params"] = dict(self.params)
        return out


Breakdown = tuple[Modifier, ...]


def breakdown_total(breakdown: Iterable[Modifier]) -> int:
    """Sum of the points of a breakdown (percentage points)."""
    return sum(m.points for m in breakdown)


def clamp_threshold(value: float) -> int:
    """Clamp a threshold to an integer percentage in 0..100 (0 never succeeds, 100 always does).

    A fractional threshold is floored: integer dice succeed when ``die <= threshold``, so 26.6
    admits 26 and not 27. Source: RULES.md R1.
    """
    return int(min(100, max(0, math.floor(value))))


class RollPurpose(enum.IntEnum):
    """The second element of every roll's generator key: what the roll is for.

    One registry, so two kinds of roll can never share keys (and so dice). Character and post
    rolls 1–9, the master's world actions 10–19, the daily tick's steps 20–29.
    Source: DESIGN.md "Randomness and the roll ledger".
    """

    ACTION = 1
    EVENT = 2
    EXPRESSION = 3
    COMBAT = 4
    SHOP = 10
    SEARCH = 11
    ROUTE = 12
    RESTORE = 13
    TALLY = 14
    WEATHER = 20
    UTILITIES = 21
    HEALTH = 22


def entropy_words(entropy: int, share: bytes | None = None) -> np.ndarray[Any, np.dtype[np.uint32]]:
    """The ``SeedSequence`` entropy words: ``entropy`` as numpy splits an int (32-bit words,
    least significant first; ``[0]`` for 0), then the 8 big-endian words of ``share`` (32 bytes)
    when given. Raises RulesError (``entropy_value``) for a negative entropy or a share that
    is not 32 bytes. Source: issue 16 item 2."""
    if entropy < 0 or (share is not None and len(share) != 32):
        raise RulesError("entropy_value", "La entropía o la aportación del jugador no es válida.")
    words = []
    rest = int(entropy)
    while True:
        words.append(rest & 0xFFFFFFFF)
        rest >>= 32
        if rest == 0:
            break
    if share is not None:
        words += [int.from_bytes(share[4 * i : 4 * i + 4], "big") for i in range(8)]
    return np.array(words, dtype=np.uint32)


def make_rng(
    entropy: int, key: Sequence[int] = (), share: bytes | None = None
) -> np.random.Generator:
    """A generator for one roll: ``SeedSequence(entropy_words(entropy, share), spawn_key=key)``.

    ``entropy`` is the period's secret (a non-negative int), ``key`` the roll's identity, e.g.
    ``(day, purpose, subject_id, sequence)``, all non-negative ints; ``share`` the 32-byte
    player's share of a roll made from a post (``reglas.verify.share_digest``), None for the
    rest — then it is exactly ``SeedSequence(entropy, spawn_key=key)``. The same inputs always
    give the same stream on one numpy version; the stored dice remain the record.
    Source: DESIGN.md "Randomness and the roll ledger"; issue 16 item 2.
    """
    words = entropy if share is None else entropy_words(entropy, share)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(words, spawn_key=key)))


def column(value: ArrayLike, n: int, name: str, dtype: DTypeLike | None = None) -> NDArray[Any]:
    """``value`` as a column of shape ``(n,)`` for the vectorised rules: a scalar broadcasts to
    n rows; ``dtype`` casts it. ``name`` labels the message. Raises RulesError
    (``column_shape``) for any other shape. Source: DESIGN.md "Functional core" (the tick's
    arrays).
    """
    arr = np.asarray(value)
    if arr.ndim == 0:
        arr = np.full(n, arr)
    if arr.shape != (n,):
        raise RulesError(
            "column_shape",
            f"«{name}» debe tener forma ({n},), no {arr.shape}.",
            name=name,
            n=n,
            shape=str(arr.shape),
        )
    return arr if dtype is None else arr.astype(dtype)
