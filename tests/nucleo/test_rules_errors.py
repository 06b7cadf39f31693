"""The engine's errors as codes and values, worded by ``nucleo.rules_errors`` in either language.

The raise sites are found by scanning ``reglas/`` with ``ast``, so a new ``raise RulesError``
without a catalog entry, a Spanish translation or a param its msgid names fails here, not on
a reader's page (a missing param would raise ``KeyError`` while wording).
"""

from __future__ import annotations

import ast
import json
import re
import string
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from django.utils import translation

from nucleo.rules_errors import LABELS, MESSAGES, rules_message
from reglas import errors as reglas_errors
from reglas.combat.attacks import _trait
from reglas.dice import check_trait_value, roll_action
from reglas.errors import RulesError
from reglas.expressions import _PROBLEMS, parse_expression
from reglas.population import apply_adjustments, population
from reglas.settings import RuleSettings
from reglas.tables import Tables

REGLAS = Path(__file__).resolve().parents[2] / "reglas"
# The two helpers that build a RulesError from their caller's code: the caller's call names
# the code (second argument) and the params; the helper adds one param of its own.
WRAPPERS = {"fail": "path", "_invalid": "text"}
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@dataclass(frozen=True)
class Site:
    where: str
    code: str
    params: frozenset[str]


def _sites() -> list[Site]:
    found: list[Site] = []
    for path in sorted(REGLAS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            name = node.func.id
            where = f"{path.relative_to(REGLAS.parent)}:{node.lineno}"
            if name == "RulesError":
                assert len(node.args) == 2, f"{where}: RulesError(code, message, **params)"
                code_arg, extra = node.args[0], set()
            elif name in WRAPPERS:
                code_arg, extra = node.args[1], {WRAPPERS[name]}
            else:
                continue
            if not isinstance(code_arg, ast.Constant):
                # Only the wrappers pass their caller's code on, with the caller's params.
                function = parents[node]
                while not isinstance(function, ast.FunctionDef):
                    function = parents[function]
                assert function.name in WRAPPERS, f"{where}: the code must be a literal"
                continue
            assert all(k.arg for k in node.keywords), f"{where}: params must be named"
            params = frozenset(extra | {k.arg for k in node.keywords if k.arg})
            found.append(Site(where, code_arg.value, params))
    return found


SITES = _sites()


def test_the_scan_finds_every_raise_site():
    # 173 call sites in reglas/ when the codes were introduced; fewer would mean the scan broke.
    assert len(SITES) >= 170
    assert len({s.code for s in SITES}) == len(MESSAGES)


def test_codes_are_slugs():
    for site in SITES:
        assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)*", site.code), site


@pytest.mark.parametrize("site", SITES, ids=lambda s: f"{s.where}:{s.code}")
def test_every_code_raised_has_a_msgid_naming_exactly_its_params(site):
    assert site.code in MESSAGES, f"{site.where}: add {site.code!r} to nucleo.rules_errors"
    with translation.override(None):
        msgid = str(MESSAGES[site.code])
    assert set(PLACEHOLDER.findall(msgid)) == site.params, site.where


@pytest.mark.parametrize("code", sorted(MESSAGES))
def test_every_msgid_has_a_spanish_translation_with_the_same_placeholders(code):
    with translation.override(None):
        msgid = str(MESSAGES[code])
    with translation.override("es"):
        spanish = str(MESSAGES[code])
    with translation.override("en"):
        english = str(MESSAGES[code])
    assert spanish != msgid, f"{code}: no Spanish msgstr in locale/es"
    assert english == msgid
    assert sorted(PLACEHOLDER.findall(spanish)) == sorted(PLACEHOLDER.findall(msgid))
    assert "%" not in PLACEHOLDER.sub("", msgid).replace("%%", ""), "a stray % in the msgid"


def test_every_catalog_entry_is_raised_somewhere():
    assert set(MESSAGES) == {s.code for s in SITES}


def test_the_spanish_expression_problems_name_the_same_params_as_their_msgids():
    # ``_invalid`` formats ``_PROBLEMS[code]`` with the call's params: a name missing there
    # would make the engine itself raise KeyError.
    for code, problem in _PROBLEMS.items():
        with translation.override(None):
            msgid = str(MESSAGES[code])
        named = {name for _, name, _, _ in string.Formatter().parse(problem) if name}
        assert named | {"text"} == set(PLACEHOLDER.findall(msgid)), code


def test_labels_word_every_quantity_the_engine_names():
    assert set(LABELS) == set(reglas_errors.LABELS)
    with translation.override("es"):
        assert {k: str(v) for k, v in LABELS.items()} == reglas_errors.LABELS


def _raised(call) -> RulesError:
    with pytest.raises(RulesError) as info:
        call()
    return info.value


def _faces_missing() -> None:
    parse_expression("2d")


def _bad_setting() -> None:
    RuleSettings.from_dict({"disease_duration": "2d"})


def _negative_count() -> None:
    apply_adjustments(population(200, 7), destroyed=-3)


def _bad_table() -> None:
    Tables.from_overrides({"sabores": {}})


def _bad_trait() -> None:
    _trait({"fuerza": "x"}, "fuerza")


def _bad_threshold() -> None:
    roll_action(2, float("nan"), np.random.default_rng(1))


CASES = [
    (
        lambda: check_trait_value(-1),
        "integer_below_minimum",
        {"what": "trait_value", "minimum": 0, "value": -1},
        "The trait value cannot be less than 0 (-1).",
    ),
    (
        _faces_missing,
        "expression_missing_faces",
        {"text": "2d", "example": "2d6"},
        "The expression «2d» is not valid: the number of faces is missing after «d» "
        "(for example 2d6).",
    ),
    (
        _bad_setting,
        "setting_roll_invalid",
        None,
        "The setting «disease_duration» is not a valid roll: The expression «2d» is not valid: "
        "the number of faces is missing after «d» (for example 2d6).",
    ),
    (
        _negative_count,
        "population_count_negative",
        {"what": "destroyed", "value": -3},
        "The number of destroyed zombies cannot be negative (got -3).",
    ),
    (
        _bad_table,
        "table_unknown_name",
        {"path": "sabores"},
        "Invalid table: the field «sabores» is not a table («traits», «weather», «search», …).",
    ),
    (
        _bad_trait,
        "trait_invalid",
        None,
        "Trait «fuerza»: The trait value must be a whole number ('x').",
    ),
    (
        _bad_threshold,
        "number_not_finite",
        {"what": "threshold", "value": "nan"},
        "The threshold must be a finite number (nan).",
    ),
]


@pytest.mark.parametrize(("call", "code", "params", "english"), CASES)
def test_a_refusal_reads_as_the_engine_in_spanish_and_as_english_in_english(
    call, code, params, english
):
    exc = _raised(call)
    assert exc.code == code
    assert json.loads(json.dumps(exc.params)) == exc.params  # the API may pass them on as JSON
    if params is not None:
        assert exc.params == params
    with translation.override("es"):
        assert rules_message(exc) == str(exc)
    with translation.override("en"):
        assert rules_message(exc) == english


def test_an_unknown_code_falls_back_to_the_engine_sentence():
    exc = RulesError("no_such_code", "Frase del motor.", n=1)
    with translation.override("en"):
        assert rules_message(exc) == "Frase del motor."
    assert str(exc) == "Frase del motor." and exc.params == {"n": 1}


def test_params_that_do_not_fill_the_msgid_fall_back_instead_of_raising():
    exc = RulesError("setting_unknown", "El ajuste «x» no existe.")  # no ``key``
    with translation.override("en"):
        assert rules_message(exc) == "El ajuste «x» no existe."
