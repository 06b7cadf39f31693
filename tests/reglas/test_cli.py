"""The master's calculator, ``python -m reglas`` (RULES.md R2–R4, R10)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from reglas.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    assert err == ""
    return json.loads(out)


def test_accion_door(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "accion", "--rasgo", "2", "--umbral", "30", "--seed", "1")
    assert len(data["dice"]) == 3
    assert data["threshold"] == 30
    assert data["base_threshold"] == 30
    assert data["penalty"] == 0
    assert data["successes"] == sum(d <= 30 for d in data["dice"])
    assert data["success"] == (data["successes"] >= 1)
    assert data["p_success"] == pytest.approx(1 - 0.7**3)


def test_accion_with_penalty(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "accion", "--rasgo", "0", "--umbral", "30", "--penalizacion", "40")
    assert data["threshold"] == 0
    assert data["penalty"] == 40
    assert data["success"] is False


def test_same_seed_same_dice(capsys: pytest.CaptureFixture[str]) -> None:
    a = run_json(capsys, "accion", "--rasgo", "4", "--umbral", "50", "--seed", "42")
    b = run_json(capsys, "accion", "--rasgo", "4", "--umbral", "50", "--seed", "42")
    assert a == b


def test_veces_gives_a_list(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "evento", "--prob", "26", "--veces", "3", "--seed", "5")
    assert isinstance(data, list)
    assert len(data) == 3
    for roll in data:
        assert set(roll) >= {"die", "threshold", "success"}
        assert roll["success"] == (roll["die"] <= 26)


def test_text_output_shows_every_die(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "accion", "--rasgo", "2", "--umbral", "30", "--seed", "3")
    code, out, _ = run(capsys, "accion", "--rasgo", "2", "--umbral", "30", "--seed", "3")
    assert code == 0
    assert f"[{', '.join(str(d) for d in data['dice'])}]" in out
    assert "30 %" in out


def test_tirada_joins_words_and_keeps_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "tirada", "2d6+1", "daño", "del", "hacha", "--seed", "1")
    assert data["reason"] == "daño del hacha"
    assert data["total"] == sum(data["dice"][0]["faces"]) + 1
    assert data["successes"] is None


def test_tirada_counts_successes(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "tirada", "3d100<=40", "--seed", "1")
    assert data["successes"] == sum(f <= 40 for f in data["dice"][0]["faces"])


def test_tirada_with_a_negative_term_as_its_own_word(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "tirada", "4d6", "-1d4", "+3", "--seed", "1")
    assert data["expression"] == "4d6-1d4+3"


def test_enfermedad_rulebook_example(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        "enfermedad",
        "--estacion",
        "invierno",
        "--enfermos",
        "1",
        "--precipitacion",
        "--minima",
        "-3",
        "--hambre",
        "1",
        "--seed",
        "1",
    )
    assert data["p"] == 28
    assert [b["points"] for b in data["breakdown"]] == [5, 5, 5, 3, 10]
    assert data["success"] == (data["die"] <= 28)
    # The season line carries its value apart from its Spanish words; the rain line has none.
    assert data["breakdown"][0]["params"] == {"season": "invierno"}
    assert set(data["breakdown"][2]) == {"source", "label", "points"}


def test_enfermedad_accepts_otono_and_otoño(capsys: pytest.CaptureFixture[str]) -> None:
    a = run_json(capsys, "enfermedad", "--estacion", "otoño", "--sin-tirar")
    b = run_json(capsys, "enfermedad", "--estacion", "otono", "--sin-tirar")
    assert a == b
    assert a["p"] == 2
    assert a["die"] is None


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["tirada", "2d"], "la expresión «2d» no es válida"),
        (["tirada", "101d6"], "máximo es 100"),
        (["accion", "--rasgo", "x", "--umbral", "30"], "--rasgo"),
        (["accion", "--rasgo", "-1", "--umbral", "30"], "rasgo"),
        (["accion", "--umbral", "30"], "faltan argumentos"),
        (["accion", "--rasgo", "1", "--umbral", "treinta"], "--umbral"),
        (["accion", "--rasgo", "1", "--umbral", "nan"], "--umbral"),
        (["evento", "--prob", "26", "--veces", "0"], "--veces"),
        (["evento", "--prob", "26", "--veces", "10001"], "--veces"),
        (["evento", "--prob", "26", "--seed", "-4"], "--seed"),
        (["enfermedad", "--estacion", "monzón"], "estación"),
        (["nada"], "nada"),
        ([], "subcomando"),
        (["evento", "--prob", "26", "--sobra"], "no reconocidos"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    assert err.count("\n") == 1
    assert fragment in err
    assert "Traceback" not in err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "tirada" in out
    assert "poblacion" in out  # the world subcommands are registered too


def test_world_subcommand_through_the_same_main(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "poblacion", "--habitantes", "200", "--dia", "7")
    assert data["zombies"] == 170


def test_python_dash_m_reglas_runs_and_fails_cleanly() -> None:
    ok = subprocess.run(
        [
            sys.executable,
            "-m",
            "reglas",
            "accion",
            "--rasgo",
            "2",
            "--umbral",
            "30",
            "--seed",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0
    assert len(json.loads(ok.stdout)["dice"]) == 3
    bad = subprocess.run(
        [sys.executable, "-m", "reglas", "tirada", "2d"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.startswith("error: la expresión «2d» no es válida")
    assert bad.stderr.count("\n") == 1
    assert "Traceback" not in bad.stderr
