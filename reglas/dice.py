"""Percentile dice, event rolls and action rolls.

A d100 gives 1..100 uniform; a die succeeds when ``die <= threshold`` with the threshold clamped
to 0..100 (0 never succeeds, 100 always does). An event roll is one d100 against a probability;
an action roll throws ``1 + trait`` d100 against the master's threshold minus the action
penalty, and succeeds when at least one die does.

Source: RULES.md R1–R4 (seed: "Sistema, tiradas").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from reglas.core import Breakdown, Modifier, breakdown_total, clamp_threshold
from reglas.errors import LABELS, RulesError
from reglas.expressions import MAX_DICE_TOTAL, MAX_FACES, MIN_FACES

D100 = 100
"""Faces of the percentile die."""
MAX_ACTION_DICE = MAX_DICE_TOTAL
"""Most dice in one action roll (a trait of 999): the same hard limit as free expressions."""


def _percent(p: float) -> str:
    """A probability 0..1 as Spanish percent text with a decimal comma (``65,7 %``)."""
    return f"{100 * p:.1f}".replace(".", ",") + " %"


def _check_number(value: object, what: str) -> float:
    """A finite number as given (ints stay ints, so JSON shows 30 and not 30.0)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise RulesError(
            "number_invalid",
            f"{LABELS[what]} debe ser un número ({value!r}).",
            what=what,
            value=repr(value),
        )
    number = float(value)
    if not math.isfinite(number):
        raise RulesError(
            "number_not_finite",
            f"{LABELS[what]} debe ser un número finito ({value!r}).",
            what=what,
            value=repr(value),
        )
    if isinstance(value, int | np.integer):
        return int(value)
    return number


def _check_int(value: object, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise RulesError(
            "integer_invalid",
            f"{LABELS[what]} debe ser un número entero ({value!r}).",
            what=what,
            value=repr(value),
        )
    if value < minimum:
        raise RulesError(
            "integer_below_minimum",
            f"{LABELS[what]} no puede ser menor que {minimum} ({value}).",
            what=what,
            minimum=minimum,
            value=int(value),
        )
    return int(value)


def check_trait_value(trait_value: object) -> int:
    """Validate a trait value: an int in 0..MAX_ACTION_DICE−1. Raises RulesError.

    Source: RULES.md R3, R5.
    """
    value = _check_int(trait_value, "trait_value", 0)
    if value + 1 > MAX_ACTION_DICE:
        raise RulesError(
            "trait_too_many_dice",
            f"El valor del rasgo ({value}) daría {value + 1} dados; "
            f"el máximo es {MAX_ACTION_DICE}.",
            value=value,
            dice=value + 1,
            maximum=MAX_ACTION_DICE,
        )
    return value


def d100(rng: np.random.Generator) -> int:
    """One percentile die: an int in 1..100, uniform (``rng.integers(1, 101)``).

    Source: RULES.md R1.
    """
    return int(rng.integers(1, D100 + 1))


def die_succeeds(die: int, threshold: float) -> bool:
    """True when a d100 ``die`` (1..100) meets ``threshold`` (%, clamped to 0..100).

    Raises RulesError if the die is not an int in 1..100 or the threshold not a number.
    Source: RULES.md R1.
    """
    face = _check_int(die, "die", 1)
    if face > D100:
        raise RulesError("d100_face_invalid", f"Un d100 no puede sacar {face}.", face=face)
    return face <= clamp_threshold(_check_number(threshold, "threshold"))


def roll_dice(count: int, faces: int, rng: np.random.Generator) -> tuple[int, ...]:
    """``count`` ordinary dice of ``faces`` faces (1..faces, uniform), e.g. 1d3, 1d6.

    ``count`` in 1..1000, ``faces`` in 2..1000 (the R4 limits). Raises RulesError otherwise,
    before drawing. Source: RULES.md R4.
    """
    n = _check_int(count, "dice_count", 1)
    f = _check_int(faces, "faces_count", MIN_FACES)
    if n > MAX_DICE_TOTAL:
        raise RulesError(
            "dice_too_many",
            f"No se pueden tirar {n} dados a la vez (máximo {MAX_DICE_TOTAL}).",
            count=n,
            maximum=MAX_DICE_TOTAL,
        )
    if f > MAX_FACES:
        raise RulesError(
            "die_too_many_faces",
            f"Un dado de {f} caras supera el máximo de {MAX_FACES}.",
            faces=f,
            maximum=MAX_FACES,
        )
    return tuple(int(x) for x in rng.integers(1, f + 1, size=n))


@dataclass(frozen=True, slots=True)
class EventRoll:
    """One d100 against a probability.

    ``probability`` as given (%), ``threshold`` the clamped int in 0..100, ``die`` 1..100,
    ``success`` = ``die <= threshold``. Source: RULES.md R2.
    """

    probability: float
    threshold: int
    die: int
    success: bool

    def as_dict(self) -> dict[str, object]:
        """JSON-able: ``die``, ``threshold``, ``success``, ``probability``."""
        return {
            "die": self.die,
            "threshold": self.threshold,
            "success": self.success,
            "probability": self.probability,
        }

    def describe(self) -> str:
        """Spanish text: ``Acontecimiento al 26 %: d100 = 96 → no ocurre``."""
        outcome = "ocurre" if self.success else "no ocurre"
        return f"Acontecimiento al {self.threshold} %: d100 = {self.die} → {outcome}"


def event_from_die(probability: float, die: int) -> EventRoll:
    """The event roll that a given die produces (for stored dice and worked examples).

    Raises RulesError for a non-number probability or a die outside 1..100.
    Source: RULES.md R2 (26 %, die 96 → no disease).
    """
    p = _check_number(probability, "probability")
    success = die_succeeds(die, p)
    return EventRoll(probability=p, threshold=clamp_threshold(p), die=int(die), success=success)


def roll_event(probability: float, rng: np.random.Generator) -> EventRoll:
    """Roll one d100 against ``probability`` (%, clamped to 0..100).

    Raises RulesError (nothing rolled) if ``probability`` is not a finite number.
    Source: RULES.md R2.
    """
    _check_number(probability, "probability")
    return event_from_die(probability, d100(rng))


def action_success_probability(trait_value: int, threshold: float) -> float:
    """Exact P(success) of an action roll: ``1 − (1 − T/100)^(1+X)``, a float in 0..1.

    ``threshold`` T is the effective threshold (%), clamped to 0..100 first; X the trait value.
    Raises RulesError for a bad trait value or threshold. Source: RULES.md R3.
    """
    x = check_trait_value(trait_value)
    t = clamp_threshold(_check_number(threshold, "threshold"))
    return 1.0 - (1.0 - t / D100) ** (1 + x)


@dataclass(frozen=True, slots=True)
class ActionChance:
    """The chance of an action roll before it is made (the preview beside a trait or a roll).

    ``trait_value`` X (``dice`` = 1 + X d100), ``base_threshold`` the master's threshold (%),
    ``penalty`` the R9 points taken off it, ``effective`` = clamp(base − penalty) (%), ``p`` the
    exact P(success) in 0..1. Source: RULES.md R1, R3, R9.
    """

    trait_value: int
    base_threshold: int
    penalty: int
    effective: int
    p: float

    @property
    def dice(self) -> int:
        return self.trait_value + 1


def action_chance(trait_value: int, base_threshold: float, penalty: int = 0) -> ActionChance:
    """The chance of an action roll of ``1 + trait_value`` d100 against ``base_threshold`` (%)
    less ``penalty`` points (R9, positive = harder). The one preview computation of pages, forms
    and the API. Raises RulesError for a bad trait value or threshold. Source: RULES.md R1, R3.
    """
    effective = clamp_threshold(_check_number(base_threshold, "threshold") - penalty)
    return ActionChance(
        trait_value=trait_value,
        base_threshold=int(base_threshold),
        penalty=penalty,
        effective=effective,
        p=action_success_probability(trait_value, effective),
    )


@dataclass(frozen=True, slots=True)
class ActionRoll:
    """An action roll with every die.

    ``trait_value`` X (dice = 1 + X), ``base_threshold`` the master's threshold (%),
    ``penalty`` the R9 breakdown (points subtracted; negative points are bonuses),
    ``threshold`` the effective clamped int in 0..100, ``dice`` the faces (1..100),
    ``successes`` how many dice ≤ threshold, ``success`` = successes ≥ 1, ``p_success`` the exact
    probability of success before rolling (0..1). Source: RULES.md R3, R9.
    """

    trait_value: int
    base_threshold: float
    penalty: Breakdown
    threshold: int
    dice: tuple[int, ...]
    successes: int
    success: bool
    p_success: float

    @property
    def penalty_points(self) -> int:
        """Sum of the penalty breakdown (points)."""
        return breakdown_total(self.penalty)

    def as_dict(self) -> dict[str, object]:
        """JSON-able: ``trait_value``, ``dice_count``, ``dice``, ``base_threshold``,
        ``penalty`` (total points), ``penalty_breakdown`` (list of source/label/points),
        ``threshold``, ``successes``, ``success``, ``p_success``."""
        return {
            "trait_value": self.trait_value,
            "dice_count": len(self.dice),
            "dice": list(self.dice),
            "base_threshold": self.base_threshold,
            "penalty": self.penalty_points,
            "penalty_breakdown": [m.as_dict() for m in self.penalty],
            "threshold": self.threshold,
            "successes": self.successes,
            "success": self.success,
            "p_success": self.p_success,
        }

    def describe(self) -> str:
        """Spanish text with every die, the threshold and its penalty lines, the outcome."""
        base = _number_text(self.base_threshold)
        lines = [
            f"Tirada de acción: rasgo {self.trait_value} → {len(self.dice)} d100 "
            f"contra {self.threshold} % (base {base} %"
            + (f", penalización {self.penalty_points}" if self.penalty else "")
            + ")"
        ]
        for m in self.penalty:
            lines.append(f"  {m.label}: {m.points:+d}")
        word = "éxito" if self.successes == 1 else "éxitos"
        dice = ", ".join(str(d) for d in self.dice)
        outcome = "ÉXITO" if self.success else "FALLO"
        lines.append(f"Dados: [{dice}] → {self.successes} {word}: {outcome}")
        lines.append(f"Probabilidad de éxito: {_percent(self.p_success)}")
        return "\n".join(lines)


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value).replace(".", ",")


def _effective_threshold(
    base_threshold: float, penalty: Iterable[Modifier]
) -> tuple[float, Breakdown, int]:
    base = _check_number(base_threshold, "threshold")
    lines = tuple(penalty)
    for m in lines:
        if not isinstance(m, Modifier):
            raise RulesError(
                "penalty_not_modifier",
                f"Cada línea de penalización debe ser un Modifier ({m!r}).",
                line=repr(m),
            )
    return base, lines, clamp_threshold(base - breakdown_total(lines))


def action_from_dice(
    trait_value: int,
    base_threshold: float,
    dice: Iterable[int],
    penalty: Iterable[Modifier] = (),
) -> ActionRoll:
    """Evaluate given dice as an action roll (stored dice, worked examples).

    ``dice`` must hold exactly 1 + trait_value faces in 1..100. Raises RulesError otherwise.
    Source: RULES.md R3.
    """
    x = check_trait_value(trait_value)
    base, lines, threshold = _effective_threshold(base_threshold, penalty)
    faces = tuple(int(_check_int(d, "die", 1)) for d in dice)
    if any(d > D100 for d in faces):
        raise RulesError(
            "d100_faces_invalid",
            f"Un d100 sólo saca de 1 a 100 ({list(faces)}).",
            faces=str(list(faces)),
        )
    if len(faces) != 1 + x:
        raise RulesError(
            "action_dice_count",
            f"Con rasgo {x} se tiran {1 + x} dados, no {len(faces)}.",
            trait=x,
            expected=1 + x,
            got=len(faces),
        )
    successes = sum(1 for d in faces if d <= threshold)
    return ActionRoll(
        trait_value=x,
        base_threshold=base,
        penalty=lines,
        threshold=threshold,
        dice=faces,
        successes=successes,
        success=successes >= 1,
        p_success=1.0 - (1.0 - threshold / D100) ** (1 + x),
    )


def roll_action(
    trait_value: int,
    base_threshold: float,
    rng: np.random.Generator,
    penalty: Iterable[Modifier] = (),
) -> ActionRoll:
    """Roll ``1 + trait_value`` d100 against ``clamp(base_threshold − Σ penalty)``.

    ``trait_value`` a non-negative int, ``base_threshold`` in % (any finite number; clamped
    after the penalty), ``penalty`` the R9 breakdown in points. Validates everything before
    drawing; raises RulesError (Spanish message) for a negative or non-int trait, a non-number
    threshold or a penalty line that is not a ``Modifier``. Source: RULES.md R3, R9.
    """
    x = check_trait_value(trait_value)
    lines = tuple(penalty)
    _effective_threshold(base_threshold, lines)
    dice = rng.integers(1, D100 + 1, size=1 + x)
    return action_from_dice(x, base_threshold, (int(d) for d in dice), lines)


DieArray = NDArray[np.int32]
"""Faces of many d100, in the dtype numpy draws them (``DIE_DTYPE``)."""
CountArray = NDArray[np.int16]
"""Successes per pool (0..MAX_ACTION_DICE), ``COUNT_DTYPE``."""

DIE_DTYPE = np.int32
"""The dtype of the vectorised action dice. numpy draws an integer whose range fits in 32 bits
from 32-bit words for a 32- or 64-bit dtype alike (Lemire's method on ``next_uint32``), so an
int32 and an int64 draw give the same faces from the same generator and leave it in the same
state (tests/reglas/test_dice.py checks both); int32 costs the same to draw, and the
comparison reads half the bytes. int8 and int16 draws would change the faces (numpy draws
those from 8- and 16-bit words). Source: numpy ``random_bounded_uint64_fill`` ("Call 32-bit
generator if range in 32-bit") and ``random_bounded_uint32_fill``."""
COUNT_DTYPE = np.int16
"""The dtype of successes per pool: holds 0..MAX_ACTION_DICE (1000)."""


@dataclass(frozen=True, slots=True)
class ActionArrays:
    """Many action rolls at once (shape ``(n,)`` unless said).

    ``dice`` shape ``(n, k)`` int32 (``DIE_DTYPE``) with k the largest dice count, padded with 0
    beyond each roll's ``dice_count``; ``thresholds`` the clamped effective thresholds (int64,
    %); ``successes`` int16 (``COUNT_DTYPE``, 0..k); ``success`` bools. ``dice_count`` (int64)
    and ``thresholds`` may be read-only broadcasts of one value (every pool of one size, one
    threshold for all). Source: RULES.md R3.
    """

    dice: DieArray
    dice_count: NDArray[np.int64]
    thresholds: NDArray[np.int64]
    successes: CountArray
    success: NDArray[np.bool_]

    def dice_of(self, i: int) -> tuple[int, ...]:
        """The faces of roll ``i`` (without padding), as Python ints."""
        return tuple(int(d) for d in self.dice[i, : self.dice_count[i]])


def clamp_thresholds(thresholds: ArrayLike) -> NDArray[np.int64]:
    """Element-wise ``clamp_threshold``: floor (one rounding everywhere: 26.6 admits 26, not
    27), then clip to 0..100 (int64 array).

    Raises RulesError for non-finite values. Source: RULES.md R1.
    """
    t = np.asarray(thresholds, dtype=np.float64)
    if not np.all(np.isfinite(t)):
        raise RulesError("thresholds_not_finite", "Los umbrales deben ser números finitos.")
    return np.clip(np.floor(t), 0, D100).astype(np.int64)


_WORDS: dict[int, type[np.unsignedinteger[Any]]] = {
    1: np.uint8,
    2: np.uint16,
    4: np.uint32,
    8: np.uint64,
}
"""Unsigned integers as wide as a row of 1, 2, 4 or 8 booleans (one byte each)."""


def _count_rows(hits: NDArray[np.bool_]) -> NDArray[np.uint8] | CountArray:
    """``count_per_row`` in the dtype it comes in: uint8 for rows of 1, 2, 4 or 8 booleans read
    as one word (``np.bitwise_count``'s own output), int16 otherwise."""
    n, k = hits.shape
    word = _WORDS.get(k)
    if word is not None and hits.flags.c_contiguous:
        counted: NDArray[np.uint8] = np.bitwise_count(hits.view(word).reshape(n))
        return counted
    counts = np.zeros(n, dtype=COUNT_DTYPE)
    for j in range(k):
        counts += hits[:, j]
    return counts


def count_per_row(hits: NDArray[np.bool_]) -> CountArray:
    """The number of True in each row of ``hits`` (shape ``(n, k)``, k ≤ MAX_ACTION_DICE),
    shape ``(n,)`` int16 (``COUNT_DTYPE``).

    Rows of 1, 2, 4 or 8 booleans (0, 1, 3 or 7 trait points: the usual pools) are read as one
    unsigned integer each, whose bytes are 0 or 1: the count is its number of set bits
    (``np.bitwise_count``, one pass, uint8 out, then one cast of n bytes; casting inside the
    ufunc takes about 1.7 times as long), with no pass per column. Other widths add column by
    column (k small, n large: a row-wise ``sum`` over a short axis is several times slower
    than k additions).
    """
    return _count_rows(hits).astype(COUNT_DTYPE, copy=False)


def _pool_traits(trait_values: ArrayLike) -> NDArray[np.int64]:
    """Trait values as an int64 array (any shape); RulesError if not integers."""
    x = np.asarray(trait_values)
    if x.dtype.kind not in "iu":
        raise RulesError("trait_values_not_int", "Los valores de rasgo deben ser números enteros.")
    return x.astype(np.int64, copy=False)


def roll_actions(
    trait_values: ArrayLike, thresholds: ArrayLike, rng: np.random.Generator
) -> ActionArrays:
    """Vectorised action rolls: roll i throws ``1 + trait_values[i]`` d100 against
    ``clamp(thresholds[i])`` (effective thresholds, penalty already subtracted).

    Shapes ``(n,)`` (a scalar broadcasts). Draws one ``(n, k)`` block of d100 (k = largest
    dice count; the faces of ``rng.integers(1, 101, size=(n, k))``, in int32: ``DIE_DTYPE``);
    dice beyond a roll's count are ignored and shown as 0. Returns ``ActionArrays``.
    Raises RulesError for negative or too large trait values or non-finite thresholds, before
    drawing. Source: RULES.md R3.
    """
    traits = _pool_traits(trait_values)
    scalar_t = clamp_thresholds(thresholds)
    x, t = np.broadcast_arrays(traits, scalar_t)
    x = x.reshape(-1)
    t = t.reshape(-1)
    low, high = (int(x.min()), int(x.max())) if x.size else (0, -1)
    if low < 0 or high + 1 > MAX_ACTION_DICE:
        raise RulesError(
            "trait_values_range",
            f"Los valores de rasgo deben estar entre 0 y {MAX_ACTION_DICE - 1}.",
            maximum=MAX_ACTION_DICE - 1,
        )
    k = high + 1
    padded = low != high
    # Pools of one size (the usual call) share one read-only count, as the thresholds do.
    count = x + 1 if padded else np.broadcast_to(np.int64(k), x.shape)
    dice = rng.integers(1, D100 + 1, size=(x.size, k), dtype=DIE_DTYPE)
    # One threshold for every roll (the usual call): compared as a scalar, which numpy does in
    # one vectorised pass (a broadcast column of thresholds is twice as slow). A column is
    # cast to the dice's dtype (0..100 fits) so the comparison does not widen the dice.
    limit = int(scalar_t) if scalar_t.ndim == 0 else t.astype(DIE_DTYPE)[:, None]
    hits = np.less_equal(dice, limit)
    if padded:  # pools of different sizes: the dice past a pool's count are 0 and no success
        # Row c of the (k+1, k) table holds c Trues then Falses; np.take gathers each pool's
        # row (a fancy index or an (n, k) broadcast comparison is 3 to 4 times slower), and the
        # dice and hits are masked in place.
        table = np.arange(k)[None, :] < np.arange(k + 1)[:, None]
        valid = np.take(table, count, axis=0)
        np.multiply(dice, valid, out=dice)
        np.logical_and(hits, valid, out=hits)
    counted = _count_rows(hits)
    return ActionArrays(
        dice=dice,
        dice_count=count,
        thresholds=t,
        successes=counted.astype(COUNT_DTYPE, copy=False),
        success=counted != 0,
    )


def roll_actions_each(
    trait_values: ArrayLike, thresholds: ArrayLike, rngs: Sequence[np.random.Generator]
) -> ActionArrays:
    """``roll_actions`` with one generator per roll: roll i throws its ``1 + trait_values[i]``
    d100 from ``rngs[i]`` (its own ledger key), so each roll's faces are reproducible from its
    key alone, whoever else rolled that day. Same shapes, padding and errors as
    ``roll_actions``; ``len(rngs)`` must be the number of rolls (RulesError otherwise).

    Each generator draws what ``roll_actions`` of its roll alone draws (one ``(1, count)``
    block, ``rng.integers(1, 101, …)`` in ``DIE_DTYPE``); the checks, the comparison with the
    thresholds and the counts run once over every roll (a full ``roll_actions`` per roll cost
    ~100 µs, 20 ms for the tick's 200 resistance rolls). Errors are raised before any draw.
    Source: RULES.md R3; DESIGN.md "Randomness and the roll ledger".
    """
    x = np.asarray(trait_values).reshape(-1)
    if len(rngs) != x.size:
        raise RulesError(
            "roll_generators_mismatch",
            f"Hay {x.size} tiradas y {len(rngs)} generadores.",
            rolls=int(x.size),
            generators=len(rngs),
        )
    if x.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return ActionArrays(
            np.zeros((0, 0), DIE_DTYPE),
            empty,
            empty,
            np.zeros(0, COUNT_DTYPE),
            np.zeros(0, dtype=np.bool_),
        )
    traits = _pool_traits(x)
    t = np.broadcast_to(clamp_thresholds(thresholds), x.shape).reshape(-1)
    if int(traits.min()) < 0 or int(traits.max()) + 1 > MAX_ACTION_DICE:
        raise RulesError(
            "trait_values_range",
            f"Los valores de rasgo deben estar entre 0 y {MAX_ACTION_DICE - 1}.",
            maximum=MAX_ACTION_DICE - 1,
        )
    count = traits + 1
    dice = np.zeros((x.size, int(count.max())), dtype=DIE_DTYPE)
    for i, (g, c) in enumerate(zip(rngs, count.tolist(), strict=True)):
        dice[i, :c] = g.integers(1, D100 + 1, size=(1, c), dtype=DIE_DTYPE)[0]
    # The padding (0) never hits: every threshold is ≥ 0, but a 0 die is no die.
    hits = np.less_equal(dice, t.astype(DIE_DTYPE)[:, None]) & (dice > 0)
    counted = _count_rows(hits)
    return ActionArrays(
        dice=dice,
        dice_count=count,
        thresholds=t.copy(),
        successes=counted.astype(COUNT_DTYPE, copy=False),
        success=counted != 0,
    )


def roll_events(
    thresholds: ArrayLike, rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """Vectorised event rolls: one d100 per threshold (%, clamped).

    Returns ``(dice, success)``, both shape ``(n,)``. Raises RulesError for non-finite
    thresholds. Source: RULES.md R2.
    """
    t = clamp_thresholds(thresholds).reshape(-1)
    dice = rng.integers(1, D100 + 1, size=t.size, dtype=np.int64)
    return dice, dice <= t
