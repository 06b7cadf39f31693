"""Verifiable dice, the pure part: commitments, the player's share, the archive verifier and
``python -m reglas verificar`` (issue 16 items 1–4)."""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.random.bit_generator import _coerce_to_uint32_array  # type: ignore[attr-defined]

from reglas import ENGINE_VERSION
from reglas.cli import main
from reglas.core import entropy_words, make_rng
from reglas.dice import roll_action
from reglas.errors import RulesError
from reglas.expressions import parse_expression, roll_expression
from reglas.verify import (
    ARCHIVE_FORMAT,
    commitment_of,
    draw_faces,
    flat_faces,
    kind_draws,
    sha256_text,
    share_digest,
    verify_archive,
)

ENTROPY = "00000000ab1e5eed0fa11ab1e5eed0fa"  # leading zero word: numpy drops it
POST = sha256_text("Abro la puerta con cuidado.")
SEED = sha256_text("mi semilla")


def test_commitment_is_sha256_of_the_hex_text() -> None:
    assert commitment_of(ENTROPY) == hashlib.sha256(ENTROPY.encode()).hexdigest()
    assert commitment_of(ENTROPY.upper() + "\n") == commitment_of(ENTROPY)
    # Known vector: echo -n 00 | sha256sum
    assert commitment_of("00") == (
        "f1534392279bddbf9d43dde8701cb5be14b82f76ec6607bf8d6ad557f60f304e"
    )


def test_entropy_words_are_numpys_own_words_of_the_int() -> None:
    e = int(ENTROPY, 16)
    assert list(entropy_words(e)) == list(_coerce_to_uint32_array(e))
    assert len(entropy_words(e)) == 3  # the zero top word is not a word
    assert list(entropy_words(0)) == [0]
    share = bytes(range(32))
    words = entropy_words(e, share)
    assert list(words[3:]) == [0x00010203, 0x04050607, 0x08090A0B, 0x0C0D0E0F,
                               0x10111213, 0x14151617, 0x18191A1B, 0x1C1D1E1F]  # fmt: skip
    with pytest.raises(RulesError):
        entropy_words(e, b"short")


def test_share_digest_is_documented_bytes_in_order() -> None:
    expected = hashlib.sha256(
        b"partida/share/v1\x00" + bytes.fromhex(POST) + bytes.fromhex(SEED)
    ).digest()
    assert share_digest(POST, SEED) == expected
    assert share_digest(SEED, POST) != expected  # the order matters
    with pytest.raises(RulesError) as err:
        share_digest("zz", SEED)
    assert err.value.code == "share_hash"


def test_without_a_share_make_rng_is_the_old_generator() -> None:
    e, key = int(ENTROPY, 16), [3, 1, 7, 0]
    old = np.random.Generator(np.random.PCG64(np.random.SeedSequence(e, spawn_key=key)))
    assert list(make_rng(e, key).integers(1, 101, 10)) == list(old.integers(1, 101, 10))
    mixed = make_rng(e, key, share=share_digest(POST, SEED))
    assert list(mixed.integers(1, 101, 10)) != list(make_rng(e, key).integers(1, 101, 10))


def test_draws_replay_the_engines_own_calls() -> None:
    e, key = int(ENTROPY, 16), [3, 1, 7, 0]
    action = roll_action(2, 40, make_rng(e, key))
    assert draw_faces(make_rng(e, key), kind_draws("action", list(action.dice))) == list(
        action.dice
    )
    rolled = roll_expression(parse_expression("2d6+1d%-3"), make_rng(e, key))
    dice = [t.as_dict() for t in rolled.dice]
    assert kind_draws("expression", dice) == [(1, 7, 2), (1, 101, 1)]
    assert draw_faces(make_rng(e, key), kind_draws("expression", dice)) == flat_faces(dice)
    assert kind_draws("event", [55]) == [(1, 101, 1)]
    with pytest.raises(RulesError):
        kind_draws("magic", [])
    with pytest.raises(RulesError):
        flat_faces([{"no": 1}])


def _archive(entropy: str = ENTROPY) -> dict[str, Any]:
    """Three rolls made as the server makes them: a tick roll, a post roll with its share, a
    secret post roll (no reason, no target)."""
    e = int(ENTROPY, 16)
    share = share_digest(POST, SEED)
    rolls = []
    for i, (key, with_share, secret) in enumerate(
        [([5, 22, 9, 0], False, False), ([5, 1, 9, 0], True, False), ([6, 1, 9, 0], True, True)]
    ):
        rng = make_rng(e, key, share=share if with_share else None)
        dice = [int(x) for x in rng.integers(1, 101, size=3)]
        roll: dict[str, Any] = {
            "id": f"roll:{i}",
            "key": key,
            "engine_version": ENGINE_VERSION,
            "draws": [[1, 101, 3]],
            "dice": dice,
            "created_at": f"2026-12-01T10:0{i}:00+00:00",
            "secret": secret,
        }
        if with_share:
            roll["share"] = {"post_sha256": POST, "seed_sha256": SEED}
        if not secret:
            roll["reason"] = "Abrir la puerta"
        rolls.append(roll)
    return {
        "format": ARCHIVE_FORMAT,
        "version": 1,
        "campaign": "prueba",
        "period": 1,
        "commitment": commitment_of(ENTROPY),
        "entropy": entropy,
        "opened_at": "2026-12-01T09:00:00+00:00",
        "rolls": rolls,
    }


def test_an_untouched_archive_verifies() -> None:
    report = verify_archive(_archive())
    assert report.ok and report.commitment_ok
    assert report.checked == 3 and report.secret == 1
    assert report.differences == () and report.before_commitment == ()


def test_one_changed_face_reports_exactly_that_roll() -> None:
    archive = _archive()
    archive["rolls"][1]["dice"][2] = archive["rolls"][1]["dice"][2] % 100 + 1
    report = verify_archive(archive)
    assert [d.roll for d in report.differences] == ["roll:1"]
    assert report.differences[0].recomputed == tuple(_archive()["rolls"][1]["dice"])
    assert report.commitment_ok and not report.ok


def test_a_changed_share_reports_that_roll() -> None:
    archive = _archive()
    archive["rolls"][2]["share"]["post_sha256"] = sha256_text("otro texto")
    assert [d.roll for d in verify_archive(archive).differences] == ["roll:2"]


def test_a_wrong_entropy_reports_every_roll() -> None:
    report = verify_archive(_archive(entropy="1" * 32))
    # Three d100 each: a chance match is 1 in 10⁶ per roll, and these keys are fixed.
    assert [d.roll for d in report.differences] == ["roll:0", "roll:1", "roll:2"]
    assert not report.commitment_ok
    assert report.reported == ("roll:0", "roll:1", "roll:2")
    assert verify_archive(_archive()).reported == ()


def test_rolls_before_the_commitment_are_named() -> None:
    archive = _archive()
    archive["opened_at"] = "2026-12-01T10:01:00+00:00"
    assert verify_archive(archive).before_commitment == ("roll:0",)


def test_rolls_without_recorded_draws_are_unverifiable_not_different() -> None:
    archive = _archive()
    archive["rolls"][0]["draws"] = None
    report = verify_archive(archive)
    assert report.ok and report.checked == 2 and report.unverifiable == ("roll:0",)


def test_an_unknown_engine_version_is_refused_clearly() -> None:
    archive = _archive()
    archive["rolls"][0]["engine_version"] = "99"
    with pytest.raises(RulesError) as err:
        verify_archive(archive)
    assert err.value.code == "engine_version"
    assert "«99»" in str(err.value)


def test_an_open_period_archive_is_refused() -> None:
    archive = _archive(entropy="")
    with pytest.raises(RulesError) as err:
        verify_archive(archive)
    assert err.value.code == "archive_format"


def test_cli_verificar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "bueno.json"
    good.write_text(json.dumps(_archive()))
    assert main(["verificar", str(good)]) == 0
    out = capsys.readouterr().out
    assert "3 tiradas comprobadas (1 secretas)" in out and "Ninguna tirada difiere." in out
    bad_archive = copy.deepcopy(_archive())
    bad_archive["rolls"][0]["dice"][0] = bad_archive["rolls"][0]["dice"][0] % 100 + 1
    bad = tmp_path / "malo.json"
    bad.write_text(json.dumps(bad_archive))
    assert main(["verificar", str(bad), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [d["roll"] for d in data["differences"]] == ["roll:0"]
    assert main(["verificar", str(tmp_path / "no.json")]) == 2
    assert capsys.readouterr().err.startswith("error: no se puede leer")


def test_cli_verificar_runs_as_a_module_without_django(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps(_archive()))
    code = (
        f"import sys, runpy; sys.argv=['reglas','verificar',{str(path)!r}]; "
        "runpy.run_module('reglas', run_name='__main__')"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['django']=None; " + code],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Ninguna tirada difiere." in done.stdout
