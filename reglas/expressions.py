"""Free dice expressions written by players in posts: ``2d6+1``, ``3d100<=40``, ``d% disparo``.

Grammar (our own, no library; spaces allowed around operators)::

    expression := [sign] term (sign term)* [comment]
    term       := dice [comparison] | number
    dice       := [count] ("d" | "D") (faces | "%")        -- "d%" is one d100 (1..100)
    comparison := ("<=" | "<" | ">=" | ">" | "≤" | "≥") number
    sign       := "+" | "-"
    comment    := free text after a space, starting with a letter, kept as the roll's reason

A dice term with a comparison counts its successes (dice meeting the comparison) and adds that
count, not the faces, to the total (the usual dice-pool reading: ``3d100<=40`` → 0..3).
The comparison binds to the dice term just before it: ``3d100<=40+2`` is 2 more than the count.

Parsing is complete before anything is rolled: a malformed expression, or one over the limits
(at most 100 dice in one term, 1000 in total, 1000 faces), raises ``RulesError`` and draws
nothing from the generator.

Source: RULES.md R4.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from reglas.errors import RulesError

MAX_DICE_PER_TERM = 100
"""Most dice in one term (R4)."""
MAX_DICE_TOTAL = 1000
"""Most dice in a whole expression (R4)."""
MAX_FACES = 1000
"""Most faces on one die (R4)."""
MIN_FACES = 2
"""Fewest faces on one die: a d1 is not a die."""
MAX_TERMS = 50
"""Most terms (dice or numbers) in one expression, so a post cannot hold a huge sum."""
MAX_NUMBER = 1_000_000
"""Largest number accepted as a constant or a comparison target."""
MAX_TEXT_CHARS = 1000
"""Longest expression text, comment included."""

# Digits are ASCII only: ``\d`` would take any script's digits (``١d٦`` read as 1d6), which
# nobody types on purpose and ``int`` would happily convert.
_DICE = re.compile(r"([0-9]*)[dD]([0-9]+|%)")
_NUMBER = re.compile(r"[0-9]+")
_COMPARISON = re.compile(r"\s*(<=|>=|=<|=>|≤|≥|<|>)")
_DICE_WORD = re.compile(r"[0-9]*[dD]([0-9]+|%)(?![^\W\d_])")
_OPS = {"<=": "<=", "=<": "<=", "≤": "<=", ">=": ">=", "=>": ">=", "≥": ">=", "<": "<", ">": ">"}
_COMMENT_START = "(«\"'#¿¡[“"


@dataclass(frozen=True, slots=True)
class Comparison:
    """A success test on each die: ``op`` is one of ``<=``, ``<``, ``>=``, ``>``."""

    op: str
    target: int

    def test(self, faces: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Element-wise success of the faces (any shape) against the target."""
        if self.op == "<=":
            return faces <= self.target
        if self.op == "<":
            return faces < self.target
        if self.op == ">=":
            return faces >= self.target
        return faces > self.target

    def __str__(self) -> str:
        return f"{self.op}{self.target}"


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """``count`` dice of ``faces`` faces (1..faces, uniform), added with ``sign`` (+1 or −1).

    With a ``comparison`` the term is worth its number of successes instead of its faces.
    """

    sign: int
    count: int
    faces: int
    comparison: Comparison | None = None

    def __str__(self) -> str:
        comparison = "" if self.comparison is None else str(self.comparison)
        return f"{self.count}d{self.faces}{comparison}"


@dataclass(frozen=True, slots=True)
class ConstantTerm:
    """A fixed number added with ``sign`` (+1 or −1)."""

    sign: int
    value: int

    def __str__(self) -> str:
        return str(self.value)


Term = DiceTerm | ConstantTerm


@dataclass(frozen=True, slots=True)
class DiceExpression:
    """A parsed, validated dice expression.

    ``terms`` in written order, ``reason`` the trailing comment ("" when none), ``text`` the
    original input. Build it with ``parse_expression``.
    """

    terms: tuple[Term, ...]
    reason: str = ""
    text: str = ""

    @property
    def expression(self) -> str:
        """The normalised expression without the comment, e.g. ``4d6-1d4+3`` (``d%`` → 1d100)."""
        out = []
        for i, term in enumerate(self.terms):
            sign = "-" if term.sign < 0 else ("+" if i else "")
            out.append(f"{sign}{term}")
        return "".join(out)

    @property
    def dice_count(self) -> int:
        """Total number of dice rolled."""
        return sum(t.count for t in self.terms if isinstance(t, DiceTerm))

    @property
    def has_comparison(self) -> bool:
        """True if some term counts successes."""
        return any(isinstance(t, DiceTerm) and t.comparison is not None for t in self.terms)

    @property
    def minimum(self) -> int:
        """Smallest possible total."""
        return sum(_term_range(t)[0 if t.sign > 0 else 1] * t.sign for t in self.terms)

    @property
    def maximum(self) -> int:
        """Largest possible total."""
        return sum(_term_range(t)[1 if t.sign > 0 else 0] * t.sign for t in self.terms)


def _term_range(term: Term) -> tuple[int, int]:
    if isinstance(term, ConstantTerm):
        return term.value, term.value
    if term.comparison is not None:
        return 0, term.count
    return term.count, term.count * term.faces


@dataclass(frozen=True, slots=True)
class TermRoll:
    """The dice of one dice term: ``faces`` are the values rolled, in order.

    ``value`` is the signed contribution to the total (sum of faces, or the success count when
    the term has a comparison); ``successes`` is None without a comparison.
    """

    expression: str
    sign: int
    faces: tuple[int, ...]
    successes: int | None
    value: int

    def as_dict(self) -> dict[str, object]:
        """JSON-able: ``expression``, ``sign``, ``faces`` (ints), ``successes``, ``value``."""
        return {
            "expression": self.expression,
            "sign": self.sign,
            "faces": list(self.faces),
            "successes": self.successes,
            "value": self.value,
        }


@dataclass(frozen=True, slots=True)
class ExpressionRoll:
    """A rolled expression: every die per term, the constants' sum, the total.

    ``successes`` is the sum of the success counts of the compared terms (None when no term has
    a comparison); ``reason`` is the comment written after the expression.
    """

    expression: DiceExpression
    dice: tuple[TermRoll, ...]
    modifier: int
    total: int
    successes: int | None
    reason: str

    def as_dict(self) -> dict[str, object]:
        """JSON-able: ``expression``, ``total``, ``dice`` (per term), ``modifier``,
        ``successes``, ``reason``."""
        return {
            "expression": self.expression.expression,
            "total": self.total,
            "dice": [d.as_dict() for d in self.dice],
            "modifier": self.modifier,
            "successes": self.successes,
            "reason": self.reason,
        }

    def describe(self) -> str:
        """Spanish one-line text showing every die, e.g.
        ``2d6+1 (daño del hacha): 2d6 [3, 5] = 8; +1 → total 9``."""
        head = self.expression.expression
        if self.reason:
            head += f" ({self.reason})"
        parts = []
        for d in self.dice:
            sign = "−" if d.sign < 0 else ""
            faces = ", ".join(str(f) for f in d.faces)
            if d.successes is None:
                parts.append(f"{sign}{d.expression} [{faces}] = {abs(d.value)}")
            else:
                word = "éxito" if d.successes == 1 else "éxitos"
                parts.append(f"{sign}{d.expression} [{faces}]: {d.successes} {word}")
        if self.modifier:
            parts.append(f"{self.modifier:+d}")
        return f"{head}: {'; '.join(parts)} → total {self.total}"


# What is wrong with an expression, in Spanish, by error code; ``{name}`` are the params.
_PROBLEMS: dict[str, str] = {
    "expression_missing_term": "falta un dado o un número al final",
    "expression_unexpected": "se esperaba un dado (como 2d6) o un número y hay «{found}»",
    "expression_number_too_big": "el número {number} es demasiado grande",
    "expression_missing_number": "falta el número tras «{operator}»",
    "expression_two_comparisons": "sólo se admite una comparación por tirada de dados",
    "expression_extra_text": "sobra «{found}» tras «{after}»",
    "expression_missing_operator": "falta un «+» o un «-» antes de «{word}»",
    "expression_comment_start": (
        "el comentario tras la tirada debe empezar por una letra, no «{char}»"
    ),
    "expression_too_many_dice": "tira {dice} dados y el máximo es {maximum} en total",
    "expression_too_many_terms": "tiene más de {maximum} términos",
    "expression_missing_faces": "falta el número de caras tras «d» (por ejemplo {example})",
    "expression_comparison_without_dice": (
        "una comparación sólo puede seguir a unos dados (3d100<=40)"
    ),
    "expression_comparison_unknown": "comparación no reconocida: usa <=, <, >= o >",
    "expression_no_dice": "«{count}d{faces}» no tira ningún dado",
    "expression_too_many_dice_in_term": (
        "«{term}» tira {count} dados y el máximo es {maximum} por término"
    ),
    "expression_too_few_faces": "un dado de {faces} caras no existe (mínimo {minimum})",
    "expression_too_many_faces": "un dado de {faces} caras supera el máximo de {maximum}",
    "expression_one_face": "un dado de 1 cara no existe (mínimo {minimum})",
}


def _invalid(text: str, code: str, **params: object) -> RulesError:
    # The worded message names the (shortened) text as ``text``, next to the problem's values.
    shown = text if len(text) <= 60 else text[:57] + "…"
    problem = _PROBLEMS[code].format(**params)
    return RulesError(
        code, f"La expresión «{shown}» no es válida: {problem}.", text=shown, **params
    )


def parse_expression(
    text: str,
    *,
    max_dice_per_term: int = MAX_DICE_PER_TERM,
    max_dice_total: int = MAX_DICE_TOTAL,
    max_faces: int = MAX_FACES,
) -> DiceExpression:
    """Parse and validate a dice expression (see the module docstring for the grammar).

    Returns a frozen ``DiceExpression``. Raises RulesError, with a Spanish message naming the
    problem, when the text is empty, malformed, or over a limit (dice per term, dice in total,
    faces, terms, number size). The text is read left to right and the first problem found is
    the one reported; the dice limits are checked only once the whole text has parsed.
    Source: RULES.md R4.
    """
    _check_text(text)
    terms: list[Term] = []
    pos = _skip_ws(text, 0)
    sign = 1
    if pos < len(text) and text[pos] in "+-":
        sign = -1 if text[pos] == "-" else 1
        pos += 1
    while True:
        term, pos = _parse_term(text, pos, sign)
        terms.append(term)
        if len(terms) > MAX_TERMS:
            raise _invalid(text, "expression_too_many_terms", maximum=MAX_TERMS)
        following = _parse_operator(text, pos, term)
        if following is None:
            break
        sign, pos = following
    reason = _parse_comment(text, pos)
    _check_limits(
        text,
        terms,
        max_dice_per_term=max_dice_per_term,
        max_dice_total=max_dice_total,
        max_faces=max_faces,
    )
    return DiceExpression(terms=tuple(terms), reason=reason, text=text)


def _check_text(text: str) -> None:
    """Reject what is not an expression at all, before any parsing.

    Raises RulesError when ``text`` is not a ``str``, is longer than MAX_TEXT_CHARS characters,
    or holds only spaces. Source: RULES.md R4.
    """
    if not isinstance(text, str):
        raise RulesError(
            "expression_not_text", "La expresión de dados debe ser un texto, como 2d6+1."
        )
    if len(text) > MAX_TEXT_CHARS:
        raise RulesError(
            "expression_too_long",
            f"La expresión de dados es demasiado larga ({len(text)} caracteres; "
            f"máximo {MAX_TEXT_CHARS}).",
            length=len(text),
            maximum=MAX_TEXT_CHARS,
        )
    if not text.strip():
        raise RulesError(
            "expression_empty", "La expresión de dados está vacía: escribe algo como 2d6+1 o 1d100."
        )


def _skip_ws(text: str, at: int) -> int:
    """The index of the first non-space character of ``text`` at or after ``at``
    (``len(text)`` when only spaces remain)."""
    n = len(text)
    while at < n and text[at].isspace():
        at += 1
    return at


def _parse_term(text: str, pos: int, sign: int) -> tuple[Term, int]:
    """Read the term expected at ``pos`` (spaces before it are skipped), signed with ``sign``.

    Returns ``(term, end)``: a ``DiceTerm`` with its comparison, if one is written right after
    it, or a ``ConstantTerm``; ``end`` is the index just after the term. The dice limits are
    not checked here (``_check_limits`` does, once the text has parsed). Raises RulesError when
    the text ends, when neither dice nor a number start at ``pos``, or when a number is over
    MAX_NUMBER. Source: RULES.md R4.
    """
    pos = _skip_ws(text, pos)
    if pos >= len(text):
        raise _invalid(text, "expression_missing_term")
    dice = _DICE.match(text, pos)
    if dice:
        count = int(dice.group(1)) if dice.group(1) else 1
        faces = 100 if dice.group(2) == "%" else int(dice.group(2))
        comparison, end = _parse_comparison(text, dice.end())
        return DiceTerm(sign, count, faces, comparison), end
    number = _NUMBER.match(text, pos)
    if not number:
        found = text[pos]
        if found in "dD":
            raise _invalid(text, "expression_missing_faces", example="1d6")
        raise _invalid(text, "expression_unexpected", found=found)
    value = int(number.group())
    if value > MAX_NUMBER:
        raise _invalid(text, "expression_number_too_big", number=value)
    return ConstantTerm(sign, value), number.end()


def _parse_comparison(text: str, pos: int) -> tuple[Comparison | None, int]:
    """Read the success test that may follow a dice term at ``pos`` (``<=40``, ``≥ 5``).

    Returns ``(comparison, end)``, or ``(None, pos)`` when no comparison operator is there.
    Raises RulesError when the operator has no number after it or the number is over
    MAX_NUMBER. Source: RULES.md R4.
    """
    cmp = _COMPARISON.match(text, pos)
    if not cmp:
        return None, pos
    number = _NUMBER.match(text, _skip_ws(text, cmp.end()))
    if not number:
        raise _invalid(text, "expression_missing_number", operator=cmp.group(1))
    target = int(number.group())
    if target > MAX_NUMBER:
        raise _invalid(text, "expression_number_too_big", number=target)
    return Comparison(_OPS[cmp.group(1)], target), number.end()


def _parse_operator(text: str, pos: int, term: Term) -> tuple[int, int] | None:
    """Read what follows ``term``, which ends at ``pos``: an operator, the end, or a comment.

    Returns ``(sign, next_pos)`` when a ``+`` or ``-`` follows (sign +1 or -1, ``next_pos``
    just after the operator), or None when the expression ends here: at the end of the text,
    or before a comment set off by a space (``_parse_comment`` reads it). Raises RulesError for
    a comparison in the wrong place (after a number, a second one, an unknown operator) and for
    anything written right against the term. Source: RULES.md R4.
    """
    after = _skip_ws(text, pos)
    if after >= len(text):
        return None
    found = text[after]
    if found in "+-":
        return (-1 if found == "-" else 1), after + 1
    if found in "<>=≤≥":
        if isinstance(term, ConstantTerm):
            raise _invalid(text, "expression_comparison_without_dice")
        if term.comparison is None:
            raise _invalid(text, "expression_comparison_unknown")
        raise _invalid(text, "expression_two_comparisons")
    if after == pos:
        if found in "dD" and isinstance(term, ConstantTerm):
            raise _invalid(text, "expression_missing_faces", example="2d6")
        raise _invalid(text, "expression_extra_text", found=found, after=text[:pos].strip())
    return None


def _parse_comment(text: str, pos: int) -> str:
    """The comment after the last term, which ends at ``pos``: the roll's reason.

    Returns the comment without trailing spaces ("" when nothing follows the term). Raises
    RulesError when what follows looks like dice missing their operator (``2d6 1d4``) or does
    not start with a letter or an opening mark such as ``«`` or ``#``. Source: RULES.md R4.
    """
    after = _skip_ws(text, pos)
    if after >= len(text):
        return ""
    rest = text[after:].rstrip()
    if _DICE_WORD.match(rest):
        raise _invalid(text, "expression_missing_operator", word=rest.split()[0])
    if not (rest[0].isalpha() or rest[0] in _COMMENT_START):
        raise _invalid(text, "expression_comment_start", char=rest[0])
    return rest


def _check_limits(
    text: str,
    terms: list[Term],
    *,
    max_dice_per_term: int,
    max_dice_total: int,
    max_faces: int,
) -> None:
    """Check the parsed dice terms, in written order, against the R4 limits.

    Raises RulesError (naming ``text``) for a term of no dice, more than ``max_dice_per_term``
    dice, fewer than MIN_FACES or more than ``max_faces`` faces, and then for more than
    ``max_dice_total`` dice in all. Source: RULES.md R4.
    """
    total_dice = 0
    for t in terms:
        if not isinstance(t, DiceTerm):
            continue
        if t.count < 1:
            raise _invalid(text, "expression_no_dice", count=t.count, faces=t.faces)
        if t.count > max_dice_per_term:
            raise _invalid(
                text,
                "expression_too_many_dice_in_term",
                term=str(t),
                count=t.count,
                maximum=max_dice_per_term,
            )
        if t.faces < MIN_FACES:
            if t.faces == 1:
                raise _invalid(text, "expression_one_face", minimum=MIN_FACES)
            raise _invalid(text, "expression_too_few_faces", faces=t.faces, minimum=MIN_FACES)
        if t.faces > max_faces:
            raise _invalid(text, "expression_too_many_faces", faces=t.faces, maximum=max_faces)
        total_dice += t.count
    if total_dice > max_dice_total:
        raise _invalid(text, "expression_too_many_dice", dice=total_dice, maximum=max_dice_total)


def roll_expression(
    expression: str | DiceExpression,
    rng: np.random.Generator,
    *,
    max_dice_per_term: int = MAX_DICE_PER_TERM,
    max_dice_total: int = MAX_DICE_TOTAL,
    max_faces: int = MAX_FACES,
) -> ExpressionRoll:
    """Roll a dice expression (text or parsed) with ``rng``; every die is kept.

    Text is parsed and validated first (limits as in ``parse_expression``), so a RulesError
    leaves ``rng`` untouched. Each term draws ``rng.integers(1, faces + 1, size=count)``.
    Source: RULES.md R4.
    """
    parsed = (
        expression
        if isinstance(expression, DiceExpression)
        else parse_expression(
            expression,
            max_dice_per_term=max_dice_per_term,
            max_dice_total=max_dice_total,
            max_faces=max_faces,
        )
    )
    rolls: list[TermRoll] = []
    modifier = 0
    successes: int | None = None
    total = 0
    for term in parsed.terms:
        if isinstance(term, ConstantTerm):
            modifier += term.sign * term.value
            total += term.sign * term.value
            continue
        rolled = term_roll(term, rng.integers(1, term.faces + 1, size=term.count, dtype=np.int64))
        if rolled.successes is not None:
            successes = (successes or 0) + rolled.successes
        total += rolled.value
        rolls.append(rolled)
    return ExpressionRoll(
        expression=parsed,
        dice=tuple(rolls),
        modifier=modifier,
        total=total,
        successes=successes,
        reason=parsed.reason,
    )


def term_roll(term: DiceTerm, faces: NDArray[np.int64]) -> TermRoll:
    """The record of one dice term's ``faces``: successes when compared, signed value.
    Source: RULES.md R4."""
    count = None if term.comparison is None else int(np.count_nonzero(term.comparison.test(faces)))
    value = term.sign * (int(faces.sum()) if count is None else count)
    return TermRoll(str(term), term.sign, tuple(int(f) for f in faces), count, value)


def roll_totals(
    expression: str | DiceExpression, size: int, rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Roll the same expression ``size`` times at once (for the daily tick).

    Returns ``(totals, dice)``: ``totals`` shape ``(size,)``; ``dice`` shape
    ``(size, dice_count)``, every die in term order (the faces, also for compared terms).
    Raises RulesError for a bad expression or a negative size. Source: RULES.md R4, R12.
    """
    parsed = expression if isinstance(expression, DiceExpression) else parse_expression(expression)
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
        raise RulesError(
            "roll_count_invalid",
            f"El número de tiradas debe ser un entero no negativo ({size!r}).",
            size=repr(size),
        )
    return _totals_of_terms(
        parsed,
        int(size),
        lambda term: rng.integers(1, term.faces + 1, size=(int(size), term.count), dtype=np.int64),
    )


def _totals_of_terms(
    parsed: DiceExpression, size: int, draw: Callable[[DiceTerm], NDArray[np.int64]]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``roll_totals``' result from ``draw(term)``: each dice term's ``(size, count)`` faces,
    drawn in term order."""
    totals = np.zeros(size, dtype=np.int64)
    columns: list[NDArray[np.int64]] = []
    for term in parsed.terms:
        if isinstance(term, ConstantTerm):
            totals += term.sign * term.value
            continue
        faces = draw(term)
        columns.append(faces)
        if term.comparison is not None:
            totals += term.sign * term.comparison.test(faces).sum(axis=1)
        else:
            totals += term.sign * faces.sum(axis=1)
    dice = np.concatenate(columns, axis=1) if columns else np.zeros((size, 0), np.int64)
    return totals, dice


def roll_totals_each(
    expression: str | DiceExpression, rngs: Sequence[np.random.Generator]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``roll_totals`` with one generator per roll (roll i from ``rngs[i]``, its own ledger
    key), so each roll's faces are reproducible from its key alone. Returns ``(totals, dice)``
    of shapes ``(len(rngs),)`` and ``(len(rngs), dice_count)``. Raises RulesError for a bad
    expression. Source: RULES.md R4, R12; DESIGN.md "Randomness and the roll ledger".
    """
    parsed = expression if isinstance(expression, DiceExpression) else parse_expression(expression)

    # Each generator draws each term as ``roll_totals(parsed, 1, g)`` would, in term order
    # (the same stream); the totals are then summed for all rolls at once.
    def draw(term: DiceTerm) -> NDArray[np.int64]:
        faces = [g.integers(1, term.faces + 1, size=(1, term.count), dtype=np.int64) for g in rngs]
        return np.concatenate(faces) if faces else np.zeros((0, term.count), np.int64)

    return _totals_of_terms(parsed, len(rngs), draw)
