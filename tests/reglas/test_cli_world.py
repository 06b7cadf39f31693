"""The world subcommands of the master's calculator.

Handlers are called directly through a minimal parser that follows the protocol of
``reglas/cli.py`` (a parent with ``--json``/``--seed``/``--veces``), then end to end through
``reglas.cli.main`` when it is importable.
Source: RULES.md R11, R16, R17, R18, R19, R22, R23.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np
import pytest

from reglas.cli_world import add_subcommands
from reglas.errors import RulesError


def _parser() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--json", action="store_true")
    parent.add_argument("--seed", type=int, default=None)
    parent.add_argument("--veces", type=int, default=1)
    parser = argparse.ArgumentParser(prog="reglas")
    sub = parser.add_subparsers(dest="subcomando")
    add_subcommands(sub, parent)
    return parser


def run(*argv: str, seed: int = 1) -> tuple[dict[str, Any], str]:
    args = _parser().parse_args(list(argv))
    payload, text = args.handler(args, np.random.default_rng(seed))
    json.dumps(payload)  # JSON-able
    assert isinstance(text, str) and text
    return payload, text


def test_poblacion_rulebook_example() -> None:
    payload, text = run("poblacion", "--habitantes", "200", "--dia", "7", "--json")
    assert (payload["zombies"], payload["survivors"]) == (170, 30)
    assert payload["p"] == pytest.approx(169.2814, abs=1e-4)
    assert "170 zombis" in text and "169,28" in text


def test_poblacion_curve() -> None:
    payload, _ = run("poblacion", "--habitantes", "173", "--dia", "5", "--hasta", "8")
    assert [c["day"] for c in payload["curve"]] == [5, 6, 7, 8]
    assert payload["curve"][2]["zombies"] == 150
    with pytest.raises(RulesError):
        run("poblacion", "--habitantes", "173", "--dia", "8", "--hasta", "5")
    with pytest.raises(RulesError):
        run("poblacion", "--habitantes", "-1", "--dia", "8")
    with pytest.raises(RulesError):
        run("poblacion", "--habitantes", "10", "--dia", "1", "--r", "0")


def test_encuentro_rulebook_example() -> None:
    argv = ("encuentro", "--ancho", "100", "--largo", "100", "--zombis", "150", "--recorrido", "20")
    payload, text = run(*argv, "--json")
    assert payload["cells"] == 2500
    assert payload["p_cell"] == pytest.approx(0.06)
    assert payload["cells_swept"] == 75 and payload["radius_m"] == 5
    assert 0 <= payload["zombies_met"] <= 75
    assert "75 espacios útiles al 6 %" in text
    aggressive, _ = run(*argv, "--modo", "agresivo")
    assert aggressive["cells_swept"] == 200 and aggressive["radius_m"] == 10
    by_area, _ = run("encuentro", "--area", "10000", "--zombis", "150", "--recorrido", "20")
    assert by_area["cells"] == 2500


@pytest.mark.parametrize(
    "argv",
    [
        ("encuentro", "--zombis", "1", "--recorrido", "5"),
        ("encuentro", "--ancho", "10", "--zombis", "1", "--recorrido", "5"),
        (
            "encuentro",
            "--area",
            "10",
            "--ancho",
            "10",
            "--largo",
            "1",
            "--zombis",
            "1",
            "--recorrido",
            "5",
        ),
        ("encuentro", "--area", "2", "--zombis", "1", "--recorrido", "5"),
        ("encuentro", "--ancho", "-10", "--largo", "-10", "--zombis", "1", "--recorrido", "5"),
    ],
)
def test_encuentro_bad_areas(argv: tuple[str, ...]) -> None:
    with pytest.raises(RulesError):
        run(*argv)


def test_clima_by_date_and_by_season() -> None:
    payload, text = run("clima", "--fecha", "2024-01-15")
    assert payload["season"] == "invierno" and payload["date"] == "2024-01-15"
    assert str(payload["sky_die"]) in text
    assert 7 <= payload["max_c"] - payload["min_c"] <= 14
    autumn, _ = run("clima", "--estacion", "otono")
    assert autumn["season"] == "otoño" and autumn["date"] is None
    with pytest.raises(RulesError):
        run("clima", "--fecha", "15/01/2024")
    with pytest.raises(RulesError):
        run("clima", "--estacion", "monzón")


def test_cortes() -> None:
    payload, _ = run("cortes", "--dia", "100")
    assert payload["power_cut_today"] and payload["water_cut_today"]
    payload, text = run("cortes", "--dia", "100", "--sin-luz")
    assert payload["power_die"] is None and not payload["power_on"]
    assert "ya estaba cortada" in text
    with pytest.raises(RulesError):
        run("cortes", "--dia", "-1")


def test_busqueda_shows_its_dice() -> None:
    for seed in range(10):
        payload, text = run("busqueda", seed=seed)
        assert payload["kind"] in {"utensils", "pseudo_weapons", "weapons"}
        assert payload["dice"][0] == payload["kind_die"]
        assert f"1d3 = {payload['kind_die']}" in text


def test_suministros() -> None:
    payload, text = run("suministros", "--tipo", "supermercado", "--dia", "40")
    assert payload["share_pct"] == 0 and payload["food_kcal"] == 0
    assert f"d100 = {payload['die']}" in text
    payload, _ = run("suministros", "--tipo", "farmacia", "--dia", "0")
    assert payload["band_min_pct"] <= payload["share_pct"] <= payload["band_max_pct"]
    with pytest.raises(RulesError):
        run("suministros", "--tipo", "armeria", "--dia", "1")
    with pytest.raises(RulesError):
        run("suministros", "--tipo", "tienda", "--dia", "-3")


def test_combate() -> None:
    payload, text = run("combate", "--arma", "fusil_762", "--rasgo", "2", "--distancia", "20")
    assert payload["to_hit"]["threshold"] == 40 and len(payload["to_hit"]["dice"]) == 3
    assert "Impactar" in text
    grabbed, _ = run("combate", "--arma", "hacha", "--agarrado", "--penalizacion", "10")
    assert grabbed["to_hit"]["threshold"] == 30  # 60 − 20 − 10
    with pytest.raises(RulesError):
        run("combate", "--arma", "lanzallamas")
    with pytest.raises(RulesError):
        run("combate", "--rasgo", "-1")


def test_seeded_handlers_are_reproducible() -> None:
    argv = ("clima", "--estacion", "invierno")
    assert run(*argv, seed=9) == run(*argv, seed=9)


# --------------------------------------------------------------------------- through reglas.cli


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from reglas import cli

    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_main_poblacion_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(capsys, "poblacion", "--habitantes", "200", "--dia", "7", "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["zombies"], data["survivors"]) == (170, 30)


def test_main_encuentro_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(
        capsys,
        "encuentro",
        "--ancho",
        "100",
        "--largo",
        "100",
        "--zombis",
        "150",
        "--recorrido",
        "20",
        "--json",
        "--seed",
        "3",
    )
    assert code == 0
    data = json.loads(out)
    assert (data["cells"], data["cells_swept"]) == (2500, 75)
    assert data["p_cell"] == pytest.approx(0.06)


@pytest.mark.parametrize(
    "argv",
    [
        ("clima", "--estacion", "verano", "--seed", "1"),
        ("busqueda", "--seed", "1", "--veces", "3"),
        ("suministros", "--tipo", "gasolinera", "--dia", "5", "--seed", "1"),
        ("cortes", "--dia", "10", "--seed", "1"),
        ("combate", "--arma", "escopeta", "--rasgo", "1", "--distancia", "10", "--seed", "1"),
    ],
)
def test_main_text_subcommands(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]) -> None:
    code, out, err = _main(capsys, *argv)
    assert code == 0 and out.strip() and not err


def test_main_veces_json_is_a_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(capsys, "busqueda", "--json", "--seed", "2", "--veces", "4")
    assert code == 0
    assert len(json.loads(out)) == 4


def test_main_rules_error_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(capsys, "suministros", "--tipo", "armeria", "--dia", "1")
    assert code == 2 and not out
    assert err.startswith("error:") and err.count("\n") == 1
