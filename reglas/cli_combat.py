"""Odds subcommands of the master's calculator (``python -m reglas …``): simulated fights.

Protocol with ``reglas/cli.py`` as ``reglas.cli_world``: :func:`add_subcommands` registers the
parsers with the common options and a ``handler`` ``fn(args, rng) -> (payload,
text)``. These are simulators: their ``--veces N`` is the number of simulated fights (1..10⁶,
default 100 000), not a repetition, so they set ``simulator=True`` and ``cli.py`` calls the
handler once; ``--json`` prints one object (``simulations``, ``p_kill_all``, ``p_bitten``,
``p_infected``, ``p_dead``, their ``ci`` and ``exact_one_turn`` for the fights).

Subcommands: ``combate-zombis`` (R20), ``combate-humanos`` (R21), ``mordisco`` (R13),
``curar`` (R12). Source: RULES.md R12, R13, R19, R20, R21.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from reglas.combat.attacks import to_hit_trait
from reglas.combat.odds import (
    DEFAULT_SIMULATIONS,
    MAX_CURE_DAYS,
    MAX_HUMANS,
    MAX_SIMULATIONS,
    MAX_TURNS,
    MAX_ZOMBIES,
    GrabbedChoice,
    PartyMember,
    bite_odds,
    cure_odds,
    human_odds,
    zombie_odds,
)
from reglas.settings import DEFAULT_SETTINGS
from reglas.tables import DEFAULT_COMBAT

__all__ = [
    "add_subcommands",
    "handle_combate_humanos",
    "handle_combate_zombis",
    "handle_curar",
    "handle_mordisco",
]

Payload = dict[str, Any]
Handler = Callable[[argparse.Namespace, np.random.Generator], tuple[Payload, str]]

GRABBED_CHOICES: dict[str, GrabbedChoice] = {"atacar": "attack", "zafarse": "escape"}
"""Spanish choice of ``--agarrado`` → ``PartyMember.when_grabbed``."""


def _int(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"«{text}» no es un número entero") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} es menor que {minimum}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{value} es mayor que {maximum}")
        return value

    return parse


def _distance(text: str) -> float:
    try:
        value = float(text.replace(",", "."))
    except ValueError:
        raise argparse.ArgumentTypeError(f"«{text}» no es un número") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"«{text}» no es una distancia válida (m, ≥ 0)")
    return value


def _weapon(text: str) -> str:
    known = {w.slug for w in DEFAULT_COMBAT.weapons}
    if text not in known:
        raise argparse.ArgumentTypeError(
            f"arma desconocida «{text}»: usa una de {', '.join(sorted(known))}"
        )
    return text


def _members(args: argparse.Namespace, prefix: str, label: str, count: int) -> list[PartyMember]:
    """``count`` identical fighters from the options named ``prefix`` + arma/rasgo/…."""
    table = DEFAULT_COMBAT
    weapon = table.weapon(getattr(args, f"{prefix}arma"))
    traits = {
        table.trait_wound: getattr(args, f"{prefix}fuerza"),
        "agilidad": getattr(args, f"{prefix}agilidad", 0),
        "pelea": getattr(args, f"{prefix}pelea", 0),
    }
    rasgo = getattr(args, f"{prefix}rasgo")
    if rasgo is not None:
        traits[to_hit_trait(weapon, table)] = rasgo
    grabbed = GRABBED_CHOICES[getattr(args, "agarrado", "atacar")]
    return [
        PartyMember(
            name=f"{label} {i}" if count > 1 else label,
            weapon=weapon,
            traits=traits,
            penalty=getattr(args, f"{prefix}penalizacion", 0),
            distance_m=args.distancia,
            when_grabbed=grabbed,
        )
        for i in range(1, count + 1)
    ]


def handle_combate_zombis(
    args: argparse.Namespace, rng: np.random.Generator
) -> tuple[Payload, str]:
    """Odds of a party against zombies (R20) with the bites' amputation tries (R13)."""
    party = _members(args, "", "Humano", args.humanos)
    odds = zombie_odds(
        party,
        args.zombis,
        args.turnos,
        rng,
        simulations=args.veces,
        medicina=args.medicina,
    )
    return odds.as_dict(), odds.describe()


def handle_combate_humanos(
    args: argparse.Namespace, rng: np.random.Generator
) -> tuple[Payload, str]:
    """Odds of a fight between humans (R21)."""
    party = _members(args, "", "Humano", args.humanos)
    rivals = _members(args, "rival_", "Rival", args.rivales)
    odds = human_odds(
        party, rivals, args.turnos, rng, distance_m=args.distancia, simulations=args.veces
    )
    return odds.as_dict(), odds.describe()


def handle_mordisco(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """Odds of the amputation try after a bite (R13)."""
    odds = bite_odds(args.medicina, rng, penalty=args.penalizacion, simulations=args.veces)
    return odds.as_dict(), odds.describe()


def handle_curar(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """Odds of the Medicina cure of a disease (R12), one try a day."""
    odds = cure_odds(
        args.medicina,
        rng,
        threshold=args.umbral,
        penalty=args.penalizacion,
        days=args.dias,
        simulations=args.veces,
    )
    return odds.as_dict(), odds.describe()


def _fighter_options(p: argparse.ArgumentParser, prefix: str, who: str) -> None:
    weapons = ", ".join(w.slug for w in DEFAULT_COMBAT.weapons)
    p.add_argument(
        f"--{prefix}arma", type=_weapon, default="desarmado", help=f"arma {who}: {weapons}"
    )
    p.add_argument(
        f"--{prefix}rasgo",
        type=_int(0),
        default=None,
        help=f"rasgo para impactar {who} (Armas a distancia, cuerpo a cuerpo o Pelea)",
    )
    p.add_argument(f"--{prefix}fuerza", type=_int(0), default=0, help=f"Fuerza {who}")
    p.add_argument(
        f"--{prefix}penalizacion",
        type=_int(0),
        default=0,
        help=f"penalización de acción {who} (puntos)",
    )


def add_subcommands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parent: argparse.ArgumentParser,
) -> None:
    """Register the odds subcommands on ``subparsers``. They take ``parent``'s options
    (``--json``, ``--seed``) from a parent of their own, of the same class, whose ``--veces`` is
    the number of simulated fights; each sets ``handler`` and ``simulator``."""
    own = type(parent)(add_help=False)
    own.add_argument("--json", action="store_true", help="salida en JSON (un objeto)")
    own.add_argument("--seed", type=_int(0), default=None, help="semilla (por defecto, al azar)")
    own.add_argument(
        "--veces",
        type=_int(1, MAX_SIMULATIONS),
        default=DEFAULT_SIMULATIONS,
        help=f"combates simulados (1..{MAX_SIMULATIONS}, por defecto {DEFAULT_SIMULATIONS})",
    )

    def add(name: str, help_text: str, handler: Handler) -> argparse.ArgumentParser:
        parser = subparsers.add_parser(name, parents=[own], help=help_text, description=help_text)
        parser.set_defaults(handler=handler, simulator=True)
        return parser

    p = add(
        "combate-zombis", "Probabilidades de un combate contra zombis (R20).", handle_combate_zombis
    )
    p.add_argument("--zombis", type=_int(1, MAX_ZOMBIES), required=True, help="número de zombis")
    p.add_argument("--turnos", type=_int(1, MAX_TURNS), default=10, help="turnos (por defecto 10)")
    p.add_argument(
        "--humanos", type=_int(1, MAX_HUMANS), default=1, help="personas iguales en el grupo"
    )
    _fighter_options(p, "", "del grupo")
    p.add_argument("--agilidad", type=_int(0), default=0, help="Agilidad (para zafarse)")
    p.add_argument("--pelea", type=_int(0), default=0, help="Pelea (para zafarse o desarmado)")
    p.add_argument(
        "--agarrado",
        choices=sorted(GRABBED_CHOICES),
        default="atacar",
        help="agarrado: atacar al zombi (−20) o zafarse",
    )
    p.add_argument(
        "--medicina",
        type=_int(0),
        default=None,
        help="Medicina de quien amputa tras un mordisco (sin ella, nadie amputa)",
    )
    p.add_argument("--distancia", type=_distance, default=0.0, help="distancia de tiro (m)")

    p = add(
        "combate-humanos",
        "Probabilidades de un combate entre humanos (R21).",
        handle_combate_humanos,
    )
    p.add_argument("--turnos", type=_int(1, MAX_TURNS), default=10, help="intercambios")
    p.add_argument("--humanos", type=_int(1, MAX_HUMANS), default=1, help="personas del grupo")
    p.add_argument("--rivales", type=_int(1, MAX_HUMANS), default=1, help="rivales")
    _fighter_options(p, "", "del grupo")
    _fighter_options(p, "rival-", "de los rivales")
    p.add_argument("--distancia", type=_distance, default=0.0, help="distancia (m)")

    p = add("mordisco", "Amputación inmediata tras un mordisco (R13).", handle_mordisco)
    p.add_argument("--medicina", type=_int(0), required=True, help="Medicina de quien amputa")
    p.add_argument("--penalizacion", type=_int(0), default=0, help="penalización (puntos)")

    p = add("curar", "Curar una enfermedad con Medicina (R12).", handle_curar)
    p.add_argument("--medicina", type=_int(0), required=True, help="Medicina de quien cura")
    p.add_argument(
        "--umbral",
        type=_int(0, 100),
        default=DEFAULT_SETTINGS.medicine_cure_threshold,
        help=f"umbral base en %% (por defecto {DEFAULT_SETTINGS.medicine_cure_threshold})",
    )
    p.add_argument("--penalizacion", type=_int(0), default=0, help="penalización (puntos)")
    p.add_argument(
        "--dias", type=_int(1, MAX_CURE_DAYS), default=1, help="días con un intento cada uno"
    )
