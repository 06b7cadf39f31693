"""Free dice expressions (RULES.md R4): grammar, limits, comments, counted successes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reglas.errors import RulesError
from reglas.expression_terms import term_rolls
from reglas.expressions import (
    ConstantTerm,
    DiceTerm,
    parse_expression,
    roll_expression,
    roll_totals,
)


def rng(seed: int = 7) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.mark.parametrize(
    ("text", "normalised", "dice", "reason"),
    [
        ("2d6+1", "2d6+1", 2, ""),
        ("1d6+2", "1d6+2", 1, ""),
        ("3d100<=40", "3d100<=40", 3, ""),
        ("d100", "1d100", 1, ""),
        ("d%", "1d100", 1, ""),
        ("4d6-1d4+3", "4d6-1d4+3", 5, ""),
        (" 4d6 - 1d4 + 3 ", "4d6-1d4+3", 5, ""),
        ("1d100 disparo", "1d100", 1, "disparo"),
        ("2d6+1 daño del hacha", "2d6+1", 2, "daño del hacha"),
        ("3d100 <= 40 sigilo", "3d100<=40", 3, "sigilo"),
        ("2D6", "2d6", 2, ""),
        ("-1d4+5", "-1d4+5", 1, ""),
        ("3d6>=5", "3d6>=5", 3, ""),
        ("3d6≤2", "3d6<=2", 3, ""),
        ("7", "7", 0, ""),
    ],
)
def test_parse(text: str, normalised: str, dice: int, reason: str) -> None:
    parsed = parse_expression(text)
    assert parsed.expression == normalised
    assert parsed.dice_count == dice
    assert parsed.reason == reason
    assert parsed.text == text


def test_parse_terms() -> None:
    parsed = parse_expression("4d6-1d4+3")
    assert parsed.terms == (DiceTerm(1, 4, 6), DiceTerm(-1, 1, 4), ConstantTerm(1, 3))


def test_reason_is_kept_not_parsed() -> None:
    roll = roll_expression("1d100 disparo", rng())
    assert roll.reason == "disparo"
    assert roll.as_dict()["reason"] == "disparo"
    assert len(roll.dice) == 1


def test_d_percent_is_one_die_1_to_100_not_a_tens_die() -> None:
    totals, dice = roll_totals("d%", 50_000, rng())
    assert dice.shape == (50_000, 1)
    assert totals.min() == 1
    assert totals.max() == 100
    assert set(totals.tolist()) == set(range(1, 101))


def test_counted_successes() -> None:
    for seed in range(100):
        roll = roll_expression("3d100<=40", rng(seed))
        faces = roll.dice[0].faces
        assert len(faces) == 3
        assert roll.successes == sum(f <= 40 for f in faces)
        assert roll.total == roll.successes
        assert roll.dice[0].successes == roll.successes


@pytest.mark.parametrize(
    ("op", "test"),
    [
        ("<=", lambda f: f <= 3),
        ("<", lambda f: f < 3),
        (">=", lambda f: f >= 3),
        (">", lambda f: f > 3),
    ],
)
def test_comparisons(op: str, test: object) -> None:
    roll = roll_expression(f"20d6{op}3", rng())
    assert roll.successes == sum(bool(test(f)) for f in roll.dice[0].faces)  # type: ignore[operator]


def test_no_comparison_means_successes_none() -> None:
    roll = roll_expression("2d6+1", rng())
    assert roll.successes is None
    assert roll.total == sum(roll.dice[0].faces) + 1
    assert roll.modifier == 1


def test_total_of_a_mixed_expression() -> None:
    roll = roll_expression("4d6-1d4+3", rng())
    assert roll.total == sum(roll.dice[0].faces) - sum(roll.dice[1].faces) + 3
    assert roll.dice[1].sign == -1
    assert roll.dice[1].value == -sum(roll.dice[1].faces)
    d = roll.as_dict()
    assert d["total"] == roll.total
    terms = d["dice"]
    assert isinstance(terms, list)
    assert [t["expression"] for t in terms] == ["4d6", "1d4"]


def test_one_d6_plus_2_is_uniform_on_3_to_8() -> None:
    n = 60_000
    totals, dice = roll_totals("1d6+2", n, rng(11))
    assert np.array_equal(totals, dice[:, 0] + 2)
    counts = np.bincount(totals, minlength=9)[3:9]
    assert (counts > 0).all()
    assert totals.min() == 3
    assert totals.max() == 8
    assert np.allclose(counts / n, 1 / 6, atol=0.01)
    expected = n / 6
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 20.515  # chi-square, 5 degrees of freedom, p = 0.001


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("2d", "caras"),
        ("d", "caras"),
        ("abc", "se esperaba"),
        ("", "vacía"),
        ("   ", "vacía"),
        ("2d6+", "al final"),
        ("101d6", "máximo es 100"),
        ("+".join(["100d6"] * 10) + "+1d6", "1001 dados"),
        ("1d1001", "1001 caras"),
        ("1d1", "1 cara"),
        ("0d6", "ningún dado"),
        ("2d6=5", "comparación"),
        ("2d6<=", "falta el número"),
        ("5<=3", "comparación"),
        ("3d6<=2<=4", "una comparación"),
        ("d6 d8", "falta un «+»"),
        ("2d6*2", "sobra «*»"),
        ("2d6 3", "letra"),
        ("--2", "se esperaba"),
        ("1d6+99999999", "demasiado grande"),
    ],
)
def test_bad_expressions_raise_and_roll_nothing(text: str, fragment: str) -> None:
    g = rng()
    before = g.bit_generator.state
    with pytest.raises(RulesError) as err:
        roll_expression(text, g)
    assert fragment in str(err.value)
    assert g.bit_generator.state == before


def test_limits_are_inclusive() -> None:
    assert parse_expression("100d6").dice_count == 100
    assert parse_expression("+".join(["100d6"] * 10)).dice_count == 1000
    assert parse_expression("1d1000").terms[0] == DiceTerm(1, 1, 1000)


def test_limits_can_be_overridden() -> None:
    with pytest.raises(RulesError):
        parse_expression("11d6", max_dice_per_term=10)
    with pytest.raises(RulesError):
        parse_expression("6d6+6d6", max_dice_total=10)
    with pytest.raises(RulesError):
        parse_expression("1d20", max_faces=12)


def test_not_a_string() -> None:
    with pytest.raises(RulesError):
        parse_expression(42)  # type: ignore[arg-type]


def test_describe_shows_every_die() -> None:
    roll = roll_expression("2d6+1 daño del hacha", rng())
    text = roll.describe()
    assert "daño del hacha" in text
    for face in roll.dice[0].faces:
        assert str(face) in text
    assert f"total {roll.total}" in text


def test_minimum_and_maximum() -> None:
    parsed = parse_expression("4d6-1d4+3")
    assert parsed.minimum == 4 - 4 + 3
    assert parsed.maximum == 24 - 1 + 3
    assert parse_expression("3d100<=40").maximum == 3


dice_terms = st.builds(
    lambda sign, count, faces: f"{sign}{count}d{faces}",
    st.sampled_from(["+", "-"]),
    st.integers(1, 5),
    st.integers(2, 20),
)


@given(st.lists(dice_terms, min_size=1, max_size=5), st.integers(0, 50), st.integers(0, 2**32))
def test_totals_stay_within_the_expression_range(
    terms: list[str], constant: int, seed: int
) -> None:
    text = "".join(terms).lstrip("+") + f"+{constant}"
    parsed = parse_expression(text)
    roll = roll_expression(parsed, rng(seed))
    assert parsed.minimum <= roll.total <= parsed.maximum
    for term_roll, term in zip(
        roll.dice, [t for t in parsed.terms if isinstance(t, DiceTerm)], strict=True
    ):
        assert len(term_roll.faces) == term.count
        assert all(1 <= f <= term.faces for f in term_roll.faces)


@given(st.text(max_size=40))
def test_arbitrary_text_parses_or_raises_rules_error(text: str) -> None:
    try:
        parsed = parse_expression(text)
    except RulesError:
        return
    assert parsed.dice_count <= 1000


@pytest.mark.parametrize("text", ["1d6+2", "4d6-1d4+3", "3d100<=40", "2d6+1d4>=3-2"])
def test_a_bulk_rolled_row_is_recorded_per_term_as_one_roll_would_be(text):
    # The same generator state draws the same faces in both: a single roll_expression and a
    # one-row roll_totals; term_rolls turns the row into roll_expression's record.
    single = roll_expression(text, rng(5))
    totals, dice = roll_totals(text, 1, rng(5))
    terms = term_rolls(text, dice[0])
    assert [t.as_dict() for t in terms] == [t.as_dict() for t in single.dice]
    assert sum(t.value for t in terms) + single.modifier == int(totals[0]) == single.total


def test_term_rolls_splits_the_faces_in_term_order():
    terms = term_rolls("2d6-1d4>=3+1", [6, 2, 4])
    assert [t.as_dict() for t in terms] == [
        {"expression": "2d6", "sign": 1, "faces": [6, 2], "successes": None, "value": 8},
        {"expression": "1d4>=3", "sign": -1, "faces": [4], "successes": 1, "value": -1},
    ]
    with pytest.raises(RulesError) as refused:
        term_rolls("1d6+2", [3, 4])
    assert refused.value.code == "expression_faces_mismatch"
    assert refused.value.params == {"expression": "1d6+2", "expected": 1, "given": 2}
