"""The master's calculator: ``python -m reglas SUBCOMMAND`` (also ``manage.py reglas``).

Every subcommand shows every die, in Spanish, or prints JSON with ``--json``. Common options on
every subcommand: ``--json``, ``--seed N`` (default: an unseeded generator), ``--veces N``
(repeat N times, 1..10000; JSON is then a list of N objects).

Subcommands here: ``tirada`` (R4), ``accion`` (R3), ``evento`` (R2), ``enfermedad`` (R10);
the world ones (``poblacion``, ``encuentro``, ``clima``…) come from ``reglas.cli_world``, the
odds simulators (``combate-zombis``, ``combate-humanos``, ``mordisco``, ``curar``) from
``reglas.cli_combat``, ``verificar ARCHIVO`` (every roll of a closed period) from
``reglas.cli_verify``.

Protocol for subcommand modules: ``add_subcommands(subparsers, parent)`` registers parsers with
``parents=[parent]`` and ``set_defaults(handler=fn)``, where
``fn(args, rng) -> (payload, text)`` returns a JSON-able payload and the Spanish text. A
simulator sets ``simulator=True`` too: its ``--veces`` is the number of simulated fights, so
the handler is called once and ``--json`` prints its one object.

Bad arguments or a ``RulesError`` print one line on stderr (``error: …``) and exit with 2,
never a traceback. Source: RULES.md R1–R4, R10 ("recordar desglosar los dados").
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, cast

import numpy as np

from reglas.core import Modifier
from reglas.dice import roll_action, roll_event
from reglas.errors import RulesError
from reglas.expressions import roll_expression
from reglas.health import DiseaseInputs, disease_probability
from reglas.settings import DEFAULT_SETTINGS, normalise_season

MAX_VECES = 10_000
"""Most repetitions of one command (``--veces``)."""

Payload = dict[str, Any]
Handler = Callable[[argparse.Namespace, np.random.Generator], tuple[Payload, str]]


class CliError(Exception):
    """A bad command line: the message is one Spanish line."""


class _Done(Exception):
    """argparse finished on its own (``--help``): exit with ``status``."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


# argparse's own messages are English; translate the common ones so the calculator speaks one
# language. Anything not matched is shown as argparse wrote it.
_TRANSLATIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"the following arguments are required: (.*)"), r"faltan argumentos: \1"),
    (re.compile(r"unrecognized arguments: (.*)"), r"argumentos no reconocidos: \1"),
    (re.compile(r"argument (\S+): expected one argument"), r"«\1» necesita un valor"),
    (
        re.compile(r"argument (\S+): invalid choice: (.*?) \(choose from (.*)\)"),
        r"«\1»: \2 no es una opción válida (opciones: \3)",
    ),
    (re.compile(r"argument (\S+): invalid \S+ value: (.*)"), r"«\1»: valor no válido: \2"),
    (re.compile(r"argument (\S+): (.*)"), r"«\1»: \2"),
)


def _translate(message: str) -> str:
    for pattern, replacement in _TRANSLATIONS:
        if pattern.fullmatch(message):
            return pattern.sub(replacement, message)
    return message


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises ``CliError`` instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise CliError(_translate(message))

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if status:
            raise CliError(_translate((message or "error").strip()))
        if message:
            sys.stderr.write(message)
        raise _Done(status)


# --- argument types ----------------------------------------------------------------------------


def _int_type(minimum: int | None = None, maximum: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"«{text}» no es un número entero") from None
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"{value} es menor que {minimum}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{value} es mayor que {maximum}")
        return value

    return parse


def _number(text: str) -> float:
    try:
        value = float(text.replace(",", "."))
    except ValueError:
        raise argparse.ArgumentTypeError(f"«{text}» no es un número") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"«{text}» no es un número finito")
    return value


def _season(text: str) -> str:
    try:
        return normalise_season(text)
    except RulesError:
        raise argparse.ArgumentTypeError(
            f"«{text}» no es una estación: usa invierno, primavera, verano u otoño"
        ) from None


def _plain(value: float) -> int | float:
    """Whole floats as ints in payloads (30, not 30.0)."""
    return int(value) if float(value).is_integer() else value


# --- handlers ----------------------------------------------------------------------------------


def handle_tirada(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """A free dice expression (R4): ``tirada 2d6+1 daño del hacha``."""
    text = " ".join(args.expresion).strip()
    roll = roll_expression(text, rng)
    return roll.as_dict(), roll.describe()


def handle_accion(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """An action roll (R3): ``accion --rasgo 2 --umbral 30 [--penalizacion 10]``."""
    penalty: tuple[Modifier, ...] = ()
    if args.penalizacion:
        penalty = (Modifier("manual", "Penalización indicada", args.penalizacion),)
    roll = roll_action(args.rasgo, _plain(args.umbral), rng, penalty)
    return roll.as_dict(), roll.describe()


def handle_evento(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """An event roll (R2): ``evento --prob 26``."""
    roll = roll_event(_plain(args.prob), rng)
    payload = roll.as_dict()
    payload["probability"] = _plain(roll.probability)
    return payload, roll.describe()


def handle_enfermedad(args: argparse.Namespace, rng: np.random.Generator) -> tuple[Payload, str]:
    """The day's disease probability (R10) with its breakdown, and its event roll."""
    inputs = DiseaseInputs(
        season=args.estacion,
        sick_housemates=args.enfermos,
        precipitation=args.precipitacion,
        min_temp_c=args.minima,
        unhygienic_days=args.dias_antihigienicos,
        dirty=args.suciedad,
        extra_dirt=args.suciedad_extra,
        hunger_days=args.hambre,
        thirst_days=args.sed,
        fatigue_days=args.fatiga,
    )
    p, breakdown = disease_probability(inputs, DEFAULT_SETTINGS)
    payload: Payload = {
        "p": p,
        "breakdown": [m.as_dict() for m in breakdown],
        "die": None,
        "threshold": p,
        "success": None,
        "duration": None,
        "duration_dice": None,
    }
    lines = [f"Probabilidad de enfermar: {p} %"]
    lines += [f"  {m.label}: {m.points:+d}" for m in breakdown]
    if not args.sin_tirar:
        roll = roll_event(p, rng)
        payload.update(die=roll.die, threshold=roll.threshold, success=roll.success)
        outcome = "enferma" if roll.success else "no enferma"
        lines.append(f"d100 = {roll.die} contra {roll.threshold} % → {outcome}")
        if roll.success:
            duration = roll_expression(DEFAULT_SETTINGS.disease_duration, rng)
            payload.update(duration=duration.total, duration_dice=duration.as_dict())
            lines.append(f"Duración: {duration.describe()} días")
    return payload, "\n".join(lines)


# --- parser ------------------------------------------------------------------------------------


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The calculator's parser: the subcommands here and those of ``reglas.cli_world``."""
    parser = _Parser(
        prog=prog or "python -m reglas",
        description="Calculadora del máster de Partida: tiradas con todos sus dados.",
    )
    parent = _Parser(add_help=False)
    parent.add_argument("--json", action="store_true", help="salida en JSON")
    parent.add_argument(
        "--seed", type=_int_type(0), default=None, help="semilla (por defecto, al azar)"
    )
    parent.add_argument(
        "--veces",
        type=_int_type(1, MAX_VECES),
        default=1,
        help=f"repetir la tirada N veces (1..{MAX_VECES})",
    )
    sub = parser.add_subparsers(title="subcomandos", dest="subcomando", metavar="SUBCOMANDO")

    def add(name: str, help_text: str, handler: Handler) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[parent], help=help_text, description=help_text)
        p.set_defaults(handler=handler)
        return p

    p = add("tirada", "Una expresión de dados libre, p. ej. 2d6+1 o 3d100<=40 (R4).", handle_tirada)
    p.add_argument("expresion", nargs="+", metavar="EXPR", help="p. ej. 1d100 disparo")

    p = add("accion", "Tirada de acción: 1 + rasgo dados d100 (R3).", handle_accion)
    p.add_argument("--rasgo", type=_int_type(), required=True, help="valor del rasgo (≥ 0)")
    p.add_argument("--umbral", type=_number, required=True, help="umbral base en %%")
    p.add_argument(
        "--penalizacion", type=_int_type(), default=0, help="penalización de acción (puntos)"
    )

    p = add(
        "evento", "Tirada de acontecimiento: 1d100 contra una probabilidad (R2).", handle_evento
    )
    p.add_argument("--prob", type=_number, required=True, help="probabilidad en %%")

    p = add("enfermedad", "Probabilidad de enfermar del día y su tirada (R10).", handle_enfermedad)
    p.add_argument(
        "--estacion",
        type=_season,
        required=True,
        help="invierno, primavera, verano u otoño",
    )
    p.add_argument("--enfermos", type=_int_type(0), default=0, help="enfermos en el refugio")
    p.add_argument("--precipitacion", action="store_true", help="llueve o nieva")
    p.add_argument("--minima", type=_number, default=None, help="temperatura mínima del día (°C)")
    p.add_argument(
        "--dias-antihigienicos",
        type=_int_type(0),
        default=0,
        help="días seguidos sin higiene adecuada",
    )
    p.add_argument("--suciedad", action="store_true", help="el personaje está sucio")
    p.add_argument("--suciedad-extra", action="store_true", help="suciedad extra")
    p.add_argument("--hambre", type=_int_type(0), default=0, help="días seguidos con hambre")
    p.add_argument("--sed", type=_int_type(0), default=0, help="días seguidos con sed")
    p.add_argument("--fatiga", type=_int_type(0), default=0, help="días seguidos con fatiga")
    p.add_argument("--sin-tirar", action="store_true", help="sólo la probabilidad, sin tirada")

    # Imported here so a problem in the world commands cannot break ``import reglas.cli``.
    from reglas import cli_combat, cli_verify, cli_world

    # Our subparsers are _Parser instances; the protocol types them as ArgumentParser.
    world_sub = cast("argparse._SubParsersAction[argparse.ArgumentParser]", sub)
    cli_world.add_subcommands(world_sub, parent)
    cli_combat.add_subcommands(world_sub, parent)
    cli_verify.add_subcommands(world_sub, parent)
    return parser


_DICE_WORD = re.compile(r"-(\d*[dD](\d+|%)|\d)")


def _protect_expression(argv: list[str]) -> list[str]:
    """``tirada 4d6 -1d4``: argparse would take ``-1d4`` for an option. A leading space keeps
    such words positional; the expression parser ignores it."""
    if not argv or argv[0] != "tirada":
        return argv
    return [argv[0]] + [f" {w}" if _DICE_WORD.match(w) else w for w in argv[1:]]


def _json_default(value: object) -> Any:
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} no se puede escribir en JSON")


def _one_line(message: str) -> str:
    text = " ".join(str(message).split())
    return text[:1].lower() + text[1:] if text else "error desconocido"


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the calculator; returns the exit code (0 ok, 2 bad arguments or rule error).

    ``argv`` without the program name (default ``sys.argv[1:]``); ``prog`` the name shown in
    help (``manage.py reglas``). Output on stdout; errors as one ``error: …`` line on stderr.
    """
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser(prog)
        args = parser.parse_args(_protect_expression(words))
        handler: Handler | None = getattr(args, "handler", None)
        if handler is None:
            raise CliError("falta el subcomando (tirada, accion, evento, enfermedad…); usa --help")
        rng = np.random.default_rng(args.seed)
        repeats = 1 if getattr(args, "simulator", False) else args.veces
        results = [handler(args, rng) for _ in range(repeats)]
        if args.json:
            data: Any = results[0][0] if repeats == 1 else [r[0] for r in results]
            out = json.dumps(data, ensure_ascii=False, default=_json_default)
        elif repeats == 1:
            out = results[0][1]
        else:
            out = "\n\n".join(f"[{i}/{repeats}] {text}" for i, (_, text) in enumerate(results, 1))
    except _Done as done:
        return done.status
    except (CliError, ValueError, OverflowError) as exc:
        # RulesError is a ValueError; other ValueErrors are bad input reaching numpy.
        sys.stderr.write(f"error: {_one_line(str(exc))}\n")
        return 2
    sys.stdout.write(out + "\n")
    return int(getattr(args, "exit_status", 0))  # verificar: 1 when a roll differs
