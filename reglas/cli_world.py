"""World subcommands of the master's calculator (``python -m reglas …``).

Protocol with ``reglas/cli.py``: it calls :func:`add_subcommands` with its subparsers and a
``parent`` parser (``add_help=False``) holding the common options (``--json``, ``--seed``,
``--veces``). Each subcommand sets ``handler``: ``fn(args, rng) -> (payload, text)`` where
``payload`` is JSON-able and ``text`` is Spanish and shows every die. Bad values raise
:class:`~reglas.errors.RulesError` (``cli.py`` prints one line to stderr and exits with 2).

Subcommands: ``poblacion`` (R17), ``encuentro`` (R18), ``clima`` (R11), ``cortes`` (R16),
``busqueda`` (R22), ``suministros`` (R23), ``combate`` (R19).
Source: RULES.md R11, R16, R17, R18, R19, R22, R23.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Callable
from typing import Any

import numpy as np

from reglas.combat import attack
from reglas.core import Breakdown, Modifier
from reglas.encounters import CORRIDOR_NOTE, roll_encounter
from reglas.errors import RulesError
from reglas.population import population, population_curve
from reglas.search import roll_search
from reglas.supplies import roll_shop_supplies
from reglas.tables import DEFAULT_COMBAT, DEFAULT_SUPPLIES, MODE_ALIASES, DetectionMode, Season
from reglas.utilities import roll_utilities
from reglas.weather import roll_weather, season_for

__all__ = [
    "MAX_CURVE_DAYS",
    "add_subcommands",
    "handle_busqueda",
    "handle_clima",
    "handle_combate",
    "handle_cortes",
    "handle_encuentro",
    "handle_poblacion",
    "handle_suministros",
]

Payload = dict[str, Any]
Handler = Callable[[argparse.Namespace, np.random.Generator], tuple[Payload, str]]

MAX_CURVE_DAYS = 3650
"""Longest ``poblacion --hasta`` curve (days), so a typo cannot print a million lines."""


def _num(value: float, decimals: int = 2) -> str:
    """A number the Spanish way, without useless decimals: 169,28 / 6 / 0,5."""
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return text.replace(".", ",")


# -------------------------------------------------------------------------------- poblacion


def handle_poblacion(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """Zombies and survivors of a settlement (R17); no dice. ``--hasta`` adds a curve."""
    pop = population(args.habitantes, args.dia, args.r)
    payload: Payload = {
        "k": pop.k,
        "day": args.dia,
        "r": pop.r,
        "p": pop.p,
        "zombies": pop.zombies,
        "survivors": pop.survivors,
    }
    lines = [
        f"Población de {pop.k} habitantes, día {args.dia} (r = {_num(pop.r, 4)}): "
        f"P({args.dia}) = {_num(pop.p)} → {pop.zombies} zombis y {pop.survivors} supervivientes."
    ]
    if args.hasta is not None:
        if args.hasta < args.dia:
            raise RulesError(
                "cli_until_before_day",
                f"--hasta ({args.hasta}) no puede ser anterior a --dia ({args.dia}).",
                hasta=args.hasta,
                dia=args.dia,
            )
        if args.hasta - args.dia + 1 > MAX_CURVE_DAYS:
            raise RulesError(
                "cli_curve_too_long",
                f"La curva no puede pasar de {MAX_CURVE_DAYS} días.",
                maximum=MAX_CURVE_DAYS,
            )
        curve = population_curve(args.habitantes, range(args.dia, args.hasta + 1), args.r)
        payload["curve"] = [
            {"day": args.dia + i, "p": c.p, "zombies": c.zombies, "survivors": c.survivors}
            for i, c in enumerate(curve)
        ]
        lines.append("día  P(t)  zombis  supervivientes")
        lines += [
            f"{args.dia + i:>4}  {_num(c.p)}  {c.zombies}  {c.survivors}"
            for i, c in enumerate(curve)
        ]
    return payload, "\n".join(lines)


# -------------------------------------------------------------------------------- encuentro


def handle_encuentro(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """Zombies met on a path (R18): one binomial draw over the cells swept."""
    if args.area is not None:
        if args.ancho is not None or args.largo is not None:
            raise RulesError("cli_area_twice", "Usa --area o bien --ancho y --largo, no ambos.")
        area = float(args.area)
    elif args.ancho is not None and args.largo is not None:
        if args.ancho < 0 or args.largo < 0:
            raise RulesError("cli_size_negative", "El ancho y el largo no pueden ser negativos.")
        area = float(args.ancho) * float(args.largo)
    else:
        raise RulesError(
            "cli_area_missing", "Indica el área con --area o con --ancho y --largo (en metros)."
        )
    encounter = roll_encounter(
        area, args.zombis, args.recorrido, DetectionMode.parse(args.modo), rng
    )
    payload = encounter.as_dict()
    payload["p_percent"] = encounter.p_percent
    payload["summary"] = f"{encounter.cells_swept} cells at {_num(encounter.p_percent)} %"
    payload["note"] = CORRIDOR_NOTE
    return payload, f"{encounter.describe()}\n{CORRIDOR_NOTE}"


# ------------------------------------------------------------------------------------ clima


def handle_clima(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """One day's weather (R11) for a date or a season."""
    date: dt.date | None = None
    if args.fecha is not None:
        try:
            date = dt.date.fromisoformat(args.fecha)
        except ValueError as exc:
            raise RulesError(
                "cli_date_invalid",
                f"Fecha no válida «{args.fecha}»: usa AAAA-MM-DD.",
                fecha=args.fecha,
            ) from exc
        season = season_for(date)
    else:
        season = Season.parse(args.estacion)
    weather = roll_weather(season, rng)
    payload = weather.as_dict()
    payload["date"] = None if date is None else date.isoformat()
    text = weather.describe()
    if date is not None:
        text = f"{date.isoformat()} — {text}"
    return payload, text


# ------------------------------------------------------------------------------------ cortes


def handle_cortes(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """Power and water cuts for one day (R16)."""
    roll = roll_utilities(args.dia, not args.sin_luz, not args.sin_agua, rng)
    return roll.as_dict(), roll.describe()


# ---------------------------------------------------------------------------------- busqueda


def handle_busqueda(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """A weapon search in a dwelling (R22)."""
    result = roll_search(rng)
    return result.as_dict(), result.describe()


# ------------------------------------------------------------------------------- suministros


def handle_suministros(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """What is left in a newly discovered shop (R23)."""
    supplies = roll_shop_supplies(args.tipo, args.dia, rng)
    return supplies.as_dict(), supplies.describe()


# ----------------------------------------------------------------------------------- combate


def handle_combate(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """One attack (R19): to-hit action roll and, if it hits, the wound roll."""
    weapon = DEFAULT_COMBAT.weapon(args.arma)
    if args.rasgo < 0 or args.fuerza < 0:
        raise RulesError("cli_traits_negative", "Los rasgos no pueden ser negativos.")
    if args.penalizacion < 0:
        raise RulesError(
            "cli_penalty_negative", "La penalización se indica en puntos positivos (se restan)."
        )
    table = DEFAULT_COMBAT
    traits = {
        table.trait_ranged: args.rasgo,
        table.trait_melee: args.rasgo,
        table.trait_unarmed: args.rasgo,
        table.trait_wound: args.fuerza,
    }
    modifiers: Breakdown = ()
    if args.agarrado:
        modifiers = (Modifier("grabbed", "agarrado por el zombi", -table.grabbed_to_hit_penalty),)
    penalty: Breakdown = ()
    if args.penalizacion:
        penalty = (Modifier("penalty", "penalización de acción", args.penalizacion),)
    result = attack(
        weapon,
        traits,
        rng,
        distance_m=args.distancia,
        modifiers=modifiers,
        penalty=penalty,
    )
    return result.as_dict(), result.describe()


# ------------------------------------------------------------------------------ registration


def add_subcommands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parent: argparse.ArgumentParser,
) -> None:
    """Register the world subcommands on ``subparsers``; each inherits ``parent``'s options
    and sets ``handler`` (see the module docstring for the protocol)."""

    def add(name: str, help_text: str, handler: Handler) -> argparse.ArgumentParser:
        parser = subparsers.add_parser(
            name, parents=[parent], help=help_text, description=help_text
        )
        parser.set_defaults(handler=handler)
        return parser

    p = add("poblacion", "Zombis y supervivientes de una población (R17).", handle_poblacion)
    p.add_argument(
        "--habitantes", type=int, required=True, help="población antes del apocalipsis (K)"
    )
    p.add_argument("--dia", type=int, required=True, help="días desde el apocalipsis (t)")
    p.add_argument("--r", type=float, default=1.0, help="tasa de crecimiento (por defecto 1)")
    p.add_argument("--hasta", type=int, default=None, help="último día de una curva día a día")

    p = add("encuentro", "Zombis encontrados en un recorrido (R18).", handle_encuentro)
    p.add_argument("--area", type=float, default=None, help="área de la zona en m²")
    p.add_argument("--ancho", type=float, default=None, help="ancho de la zona en m")
    p.add_argument("--largo", type=float, default=None, help="largo de la zona en m")
    p.add_argument("--zombis", type=int, required=True, help="zombis en la zona")
    p.add_argument("--recorrido", type=float, required=True, help="longitud del recorrido en m")
    p.add_argument(
        "--modo",
        default=DetectionMode.NORMAL.value,
        choices=[m.value for m in DetectionMode] + list(MODE_ALIASES),
        help="normal (5 m) o agresivo, caza o persecución (10 m)",
    )

    p = add("clima", "Tiempo de un día (R11).", handle_clima)
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--fecha", default=None, help="fecha AAAA-MM-DD (da la estación)")
    group.add_argument("--estacion", default=None, help="invierno, primavera, verano u otoño")

    p = add("cortes", "Cortes de luz y agua de un día (R16).", handle_cortes)
    p.add_argument("--dia", type=int, required=True, help="días desde el apocalipsis")
    p.add_argument("--sin-luz", action="store_true", help="la luz ya estaba cortada")
    p.add_argument("--sin-agua", action="store_true", help="el agua ya estaba cortada")

    add("busqueda", "Búsqueda de armamento en una vivienda (R22).", handle_busqueda)

    p = add("suministros", "Suministros que quedan en una tienda (R23).", handle_suministros)
    p.add_argument(
        "--tipo",
        required=True,
        help="tipo de tienda: " + ", ".join(s.shop_type for s in DEFAULT_SUPPLIES.shops),
    )
    p.add_argument("--dia", type=int, required=True, help="días desde el apocalipsis")

    p = add("combate", "Un ataque: impactar y herir (R19).", handle_combate)
    p.add_argument(
        "--arma",
        default="desarmado",
        help="arma: " + ", ".join(w.slug for w in DEFAULT_COMBAT.weapons),
    )
    p.add_argument("--rasgo", type=int, default=0, help="valor del rasgo para impactar")
    p.add_argument("--fuerza", type=int, default=0, help="Fuerza (para herir cuerpo a cuerpo)")
    p.add_argument("--distancia", type=float, default=0.0, help="distancia en m (armas de fuego)")
    p.add_argument("--agarrado", action="store_true", help="el atacante está agarrado (−20)")
    p.add_argument("--penalizacion", type=int, default=0, help="penalización de acción (puntos)")
