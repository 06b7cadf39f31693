"""``python -m reglas verificar ARCHIVO``: check every roll of a closed period, offline.

The archive is the JSON a member downloads from the period's page once it is closed
(``reglas.verify.ARCHIVE_FORMAT``). The command recomputes every roll from the revealed
entropy, its key, its draws and its player's share, prints each roll whose stored faces
differ and exits with 1 when any does (or the entropy does not match its commitment), 0 when
none, 2 for an unreadable archive or an engine version it cannot reproduce.
Source: issue 16 item 3; ``reglas.verify``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from reglas.errors import RulesError
from reglas.verify import verify_archive


def add_subcommands(sub: argparse._SubParsersAction[argparse.ArgumentParser], parent: Any) -> None:
    """Register ``verificar`` (the protocol of ``reglas.cli``)."""
    p = sub.add_parser(
        "verificar",
        parents=[parent],
        help="comprueba todas las tiradas de un periodo cerrado (archivo JSON)",
    )
    p.add_argument("archivo", help="el archivo JSON del periodo, descargado de su página")
    p.set_defaults(handler=_verificar)


def _read(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as exc:
        raise RulesError("archive_format", f"No se puede leer «{path}»: {exc.strerror}.") from None
    except ValueError:
        raise RulesError("archive_format", f"«{path}» no es un JSON válido.") from None


def _verificar(args: argparse.Namespace, rng: np.random.Generator) -> tuple[dict[str, Any], str]:
    archive = _read(args.archivo)
    if not isinstance(archive, dict):
        raise RulesError("archive_format", "Esto no es un archivo de tiradas de Partida (v1).")
    report = verify_archive(archive)
    args.exit_status = 0 if report.ok else 1
    payload = {
        "ok": report.ok,
        "checked": report.checked,
        "secret": report.secret,
        "commitment_ok": report.commitment_ok,
        "before_commitment": list(report.before_commitment),
        "unverifiable": list(report.unverifiable),
        "reported": list(report.reported),
        "differences": [
            {
                "roll": d.roll,
                "key": list(d.key),
                "stored": list(d.stored),
                "recomputed": list(d.recomputed),
            }
            for d in report.differences
        ],
    }
    lines = [
        f"Periodo {archive.get('period')} de «{archive.get('campaign')}»: "
        f"{report.checked} tiradas comprobadas ({report.secret} secretas)."
    ]
    lines.append(
        "La entropía revelada coincide con el compromiso publicado."
        if report.commitment_ok
        else "¡La entropía revelada NO coincide con el compromiso publicado! "
        "Ninguna tirada del periodo queda probada."
    )
    for d in report.differences:
        lines.append(
            f"DIFIERE {d.roll} clave {list(d.key)}: guardado {list(d.stored)}, "
            f"recalculado {list(d.recomputed)}"
        )
    if report.before_commitment:
        lines.append(
            f"{len(report.before_commitment)} tiradas se hicieron antes de publicar el compromiso "
            "(no prueban nada sobre el máster)."
        )
    if report.unverifiable:
        lines.append(
            f"{len(report.unverifiable)} tiradas no se pueden repetir (sin plan de dados "
            "guardado: anteriores a los dados verificables)."
        )
    lines.append(
        "Ninguna tirada difiere."
        if not report.differences
        else f"{len(report.differences)} tiradas difieren."
    )
    return payload, "\n".join(lines)
