"""The odds subcommands of the calculator: combate-zombis, combate-humanos, mordisco, curar.

Source: RULES.md R12, R13, R20, R21 (reglas/cli_combat.py).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from reglas import cli
from reglas.combat.odds import (
    PartyMember,
    bite_odds,
    exact_one_zombie,
    member_chances,
    zombie_odds,
)
from reglas.tables import DEFAULT_COMBAT

KEYS = ("simulations", "p_kill_all", "p_bitten", "p_infected", "p_dead", "exact_one_turn")


def close(p: float, exact: float, n: int) -> bool:
    """Within 4 standard errors (deterministic seeds; a 95 % interval misses 1 time in 20)."""
    return abs(p - exact) <= 4 * math.sqrt(exact * (1 - exact) / n)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0 and not err, err
    data = json.loads(out)
    assert isinstance(data, dict)  # one object, never a list of repeats
    return data


ZOMBIS = (
    "combate-zombis",
    "--zombis",
    "5",
    "--turnos",
    "10",
    "--arma",
    "hacha",
    "--rasgo",
    "2",
    "--fuerza",
    "2",
    "--agilidad",
    "1",
    "--seed",
    "4",
    "--veces",
    "20000",
)


def test_combate_zombis_json_keys_and_values(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, *ZOMBIS, "--medicina", "1")
    for key in KEYS:
        assert key in data, key
    assert (data["simulations"], data["zombies"], data["turns"]) == (20_000, 5, 10)
    for key in ("p_kill_all", "p_bitten", "p_infected", "p_dead"):
        low, high = data["ci"][key]
        assert 0 <= low <= data[key] <= high <= 1
    axe = PartyMember(
        "x", DEFAULT_COMBAT.weapon("hacha"), {"armas_cac": 2, "fuerza": 2, "agilidad": 1}
    )
    one = exact_one_zombie([member_chances(axe)], 1, 0.36, DEFAULT_COMBAT)
    assert data["exact_one_turn"]["p_kill_all"] == pytest.approx(one.p_kill_all)
    # The same numbers as the library with the same seed.
    library = zombie_odds([axe], 5, 10, np.random.default_rng(4), simulations=20_000, medicina=1)
    assert data["p_dead"] == library.dead.p and data["p_kill_all"] == library.kill_all.p


def test_seeds_reproduce_and_differ(capsys: pytest.CaptureFixture[str]) -> None:
    a = run_json(capsys, *ZOMBIS)
    b = run_json(capsys, *ZOMBIS)
    assert a == b
    other = run_json(capsys, *ZOMBIS[:-4], "--seed", "5", "--veces", "20000")
    assert other["p_kill_all"] != a["p_kill_all"]


def test_veces_is_the_number_of_fights(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "combate-zombis", "--zombis", "1", "--seed", "1")
    assert data["simulations"] == 100_000  # the default
    assert data["exact"] is not None  # one zombie: exact over every turn too
    small = run_json(capsys, "combate-zombis", "--zombis", "2", "--seed", "1", "--veces", "7")
    assert small["simulations"] == 7


def test_combate_zombis_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *ZOMBIS, "--humanos", "2", "--agarrado", "zafarse")
    assert code == 0 and not err
    assert "Humano 1, Humano 2 contra 5 zombi(s)" in out
    assert "Acabar con todos los zombis:" in out and "IC 95 %" in out
    assert "Comprobación exacta, un zombi y un turno" in out
    assert "nadie amputa" not in out and "Nadie con Medicina" in out


def test_combate_humanos(capsys: pytest.CaptureFixture[str]) -> None:
    argv = (
        "combate-humanos",
        "--arma",
        "pistola_9mm",
        "--rasgo",
        "1",
        "--rival-arma",
        "cuchillo",
        "--rival-rasgo",
        "2",
        "--distancia",
        "4",
        "--turnos",
        "3",
        "--seed",
        "2",
        "--veces",
        "50000",
    )
    data = run_json(capsys, *argv)
    for key in KEYS:
        assert key in data, key
    assert (data["p_bitten"], data["p_infected"]) == (0.0, 0.0)
    assert close(data["p_kill_all"], data["exact"]["p_kill_all"], 50_000)
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "Humano contra Rival a 4 m" in out and "Valor exacto" in out


def test_mordisco(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "mordisco", "--medicina", "2", "--seed", "3", "--veces", "30000")
    assert data["exact"]["p_amputated"] == pytest.approx(1 - 0.8**3)
    assert (
        data["p_amputated"]
        == bite_odds(2, np.random.default_rng(3), simulations=30_000).amputated.p
    )
    assert data["p_infected"] == pytest.approx(1 - data["p_amputated"])
    code, out, _ = run(capsys, "mordisco", "--medicina", "2", "--penalizacion", "5", "--seed", "1")
    assert code == 0 and "3d100 contra 15 %" in out


def test_curar(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "curar",
        "--medicina",
        "1",
        "--umbral",
        "40",
        "--dias",
        "3",
        "--seed",
        "1",
        "--veces",
        "40000",
    )
    assert (data["threshold"], data["days"], data["simulations"]) == (40, 3, 40_000)
    assert data["exact"]["p_cure_first"] == pytest.approx(1 - 0.6**2)
    assert close(data["p_cure"], data["exact"]["p_cure"], 40_000)
    default = run_json(capsys, "curar", "--medicina", "1", "--seed", "1", "--veces", "10")
    assert default["threshold"] == 30


@pytest.mark.parametrize(
    "argv",
    [
        ("combate-zombis",),
        ("combate-zombis", "--zombis", "0"),
        ("combate-zombis", "--zombis", "101"),
        ("combate-zombis", "--zombis", "2", "--veces", "1000001"),
        ("combate-zombis", "--zombis", "2", "--veces", "0"),
        ("combate-zombis", "--zombis", "2", "--turnos", "0"),
        ("combate-zombis", "--zombis", "2", "--arma", "lanza"),
        ("combate-zombis", "--zombis", "2", "--rasgo", "-1"),
        ("combate-zombis", "--zombis", "2", "--agarrado", "correr"),
        ("combate-zombis", "--zombis", "2", "--medicina", "0"),
        ("combate-zombis", "--zombis", "2", "--distancia", "-3"),
        ("combate-humanos", "--rivales", "0"),
        ("combate-humanos", "--rival-arma", "lanza"),
        ("mordisco",),
        ("mordisco", "--medicina", "0"),
        ("mordisco", "--medicina", "dos"),
        ("curar", "--medicina", "1", "--umbral", "101"),
        ("curar", "--medicina", "1", "--dias", "0"),
    ],
)
def test_bad_arguments_are_one_error_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert err.startswith("error: ") and err.count("\n") == 1, err


def test_python_dash_m() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "reglas", "mordisco", "--medicina", "1", "--json", "--veces", "10"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["simulations"] == 10
