"""Verifiable dice: commitments, the player's share, and the offline verifier of an archive.

A campaign's dice come from one secret entropy per **period** (N in-game days, or until the
master closes it). While a period is open only its commitment is public; when it closes the
entropy is revealed and every roll of the period can be recomputed here, with no database.

The exact scheme (the docs page ``/dados/`` repeats it):

- **Entropy** ``E``: 16 random bytes from ``secrets``, stored and revealed as 32 lowercase hex
  digits; as a number, ``E = int(hex, 16)``.
- **Commitment**: ``SHA-256(hex text of E, ASCII)`` as 64 hex digits (``echo -n HEX | sha256sum``).
- **Player's share** of a roll made from a post: ``post_sha256 = SHA-256(post text, UTF-8)``,
  ``seed_sha256 = SHA-256(player's seed, UTF-8)``, and the share digest
  ``S = SHA-256(b"partida/share/v1" + b"\\x00" + bytes(post_sha256) + bytes(seed_sha256))``
  (32 bytes; the two hashes as their 32 raw bytes, in that order).
- **Entropy words** of ``SeedSequence``: the words numpy makes of ``E`` (32-bit, least
  significant first, no leading zero words), then, for a roll with a share, the 8 words of
  ``S`` (bytes 4i..4i+3 read big-endian, i = 0..7).
- **Generator**: ``Generator(PCG64(SeedSequence(words, spawn_key=[day, purpose, subject,
  sequence])))``. A roll without a post (the tick, the master's world rolls) uses ``E`` alone,
  which is exactly ``SeedSequence(E, spawn_key=key)``.
- **Draws**: a roll's dice are the outputs, in order, of ``rng.integers(low, high, size=count)``
  for each ``[low, high, count]`` of its ``draws`` (``high`` exclusive) and of
  ``rng.binomial(n, p)`` for each ``["binomial", n, p]``.

Source: DESIGN.md "Randomness and the roll ledger"; issue 16 (verifiable dice).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reglas import ENGINE_VERSION
from reglas.core import make_rng
from reglas.errors import RulesError

SHARE_PREFIX = b"partida/share/v1\x00"
"""The bytes the share digest starts with (a domain separator, versioned)."""
REPRODUCIBLE_ENGINES = frozenset({ENGINE_VERSION})
"""The engine versions whose rolls this verifier reproduces."""
ARCHIVE_FORMAT = "partida-dice-archive"
"""The ``format`` field of a period archive (``version`` 1)."""

type Draw = tuple[int, int, int]
"""``(low, high, count)``: one ``rng.integers(low, high, size=count)`` call (high exclusive)."""


def commitment_of(entropy_hex: str) -> str:
    """The public commitment of a period's entropy: SHA-256 of its hex text (ASCII), as 64 hex
    digits. Source: issue 16 item 1."""
    return hashlib.sha256(entropy_hex.strip().lower().encode("ascii")).hexdigest()


def sha256_text(text: str) -> str:
    """SHA-256 of ``text`` encoded as UTF-8, 64 hex digits (a post's text, a player's seed)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _hex32(value: str, what: str) -> bytes:
    try:
        raw = bytes.fromhex(value)
    except (ValueError, TypeError):
        raw = b""
    if len(raw) != 32:
        raise RulesError(
            "share_hash", f"«{what}» debe ser un SHA-256 en hexadecimal (64 cifras).", what=what
        )
    return raw


def share_digest(post_sha256: str, seed_sha256: str) -> bytes:
    """The 32-byte share digest ``S`` of a roll made from a post (see the module docstring).
    Raises RulesError (``share_hash``) unless both are 64 hex digits. Source: issue 16 item 2."""
    return hashlib.sha256(
        SHARE_PREFIX + _hex32(post_sha256, "post_sha256") + _hex32(seed_sha256, "seed_sha256")
    ).digest()


def draw_faces(rng: np.random.Generator, draws: Iterable[Sequence[Any]]) -> list[int]:
    """The faces ``draws`` give, in order: ``rng.integers(low, high, size=count)`` per draw
    ``[low, high, count]``; ``rng.binomial(n, p)`` (one value) per ``["binomial", n, p]`` (a
    route's zombies met, R18). Raises RulesError (``draw_plan``) for any other draw, low ≥ high
    or a negative count."""
    faces: list[int] = []
    for draw in draws:
        try:
            if len(draw) == 3 and draw[0] == "binomial":
                faces.append(int(rng.binomial(int(draw[1]), float(draw[2]))))
                continue
            low, high, count = (int(v) for v in draw)
        except (TypeError, ValueError):
            raise RulesError(
                "draw_plan", "Una tirada del archivo tiene un plan ilegible."
            ) from None
        if low >= high or count < 0:
            raise RulesError("draw_plan", "Una tirada del archivo tiene un plan imposible.")
        faces += [int(x) for x in rng.integers(low, high, size=count)]
    return faces


class RecordingGenerator(np.random.Generator):
    """A ``numpy.random.Generator`` that writes down its calls as ``draws`` (the plan
    ``draw_faces`` replays): ``integers`` as ``[low, high, count]``, ``binomial`` as
    ``["binomial", n, p]`` (scalar n and p only). Its stream is the plain generator's on the
    same bit generator. Any other draw raises RulesError (``draw_plan``): a roll the verifier
    could not replay is refused when it is made, not found out later."""

    def __init__(self, bit_generator: np.random.BitGenerator) -> None:
        super().__init__(bit_generator)
        self.draws: list[list[Any]] = []

    def integers(
        self,
        low: Any,
        high: Any = None,
        size: Any = None,
        dtype: Any = np.int64,
        endpoint: bool = False,
    ) -> Any:
        lo, hi = (0, int(low)) if high is None else (int(low), int(high))
        if endpoint:
            hi += 1
        count = 1 if size is None else int(np.prod(size))
        self.draws.append([lo, hi, count])
        return super().integers(lo, hi, size=size, dtype=dtype)

    def binomial(self, n: Any, p: Any, size: Any = None) -> Any:
        if size is not None or np.ndim(n) or np.ndim(p):
            raise RulesError("draw_plan", "Sólo se graban binomiales de un valor.")
        self.draws.append(["binomial", int(n), float(p)])
        return super().binomial(int(n), float(p))

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise RulesError("draw_plan", "Esta tirada usa un sorteo que el verificador no repite.")

    random = choice = normal = uniform = poisson = permutation = shuffle = _refuse


def flat_faces(dice: Any) -> list[int]:
    """The faces of a stored ``dice`` value in draw order: a list of ints as it is; a list of
    expression terms (``{"faces": [...]}``) their faces concatenated. Raises RulesError
    (``dice_shape``) for anything else."""
    out: list[int] = []
    for item in dice if isinstance(dice, list) else [None]:
        if isinstance(item, bool):
            item = None
        if isinstance(item, int):
            out.append(item)
        elif isinstance(item, Mapping) and isinstance(item.get("faces"), list):
            out += [int(f) for f in item["faces"]]
        else:
            raise RulesError("dice_shape", "Los dados guardados de una tirada son ilegibles.")
    return out


_TERM = re.compile(r"^\s*(\d+)\s*[dD]\s*(\d+)")


def kind_draws(kind: str, dice: Any) -> list[Draw]:
    """The draws of a character or post roll from its kind and stored dice: an action roll
    ``(1, 101, n)`` (its ``n`` d100 in one call, R3), an event ``(1, 101, 1)`` (R2), an
    expression one ``(1, sides + 1, count)`` per dice term, read from the term's own text
    (``"3d6"``, R4). Raises RulesError (``dice_shape``) for a term without
    its dice, ``roll_kind_unknown`` for another kind. Source: RULES.md R2–R4."""
    if kind == "action":
        return [(1, 101, len(flat_faces(dice)))]
    if kind == "event":
        return [(1, 101, 1)]
    if kind == "expression" and isinstance(dice, list):
        draws = []
        for term in dice:
            found = _TERM.match(str(term.get("expression", ""))) if isinstance(term, dict) else None
            if found is None:
                raise RulesError("dice_shape", "Un término de la expresión no dice sus dados.")
            draws.append((1, int(found.group(2)) + 1, int(found.group(1))))
        return draws
    raise RulesError("roll_kind_unknown", f"Tipo de tirada desconocido: «{kind}».", kind=kind)


@dataclass(frozen=True, slots=True)
class Difference:
    """A roll whose stored faces are not what its key gives: ``roll`` its archive id
    (``"roll:12"``), ``stored`` and ``recomputed`` faces."""

    roll: str
    key: tuple[int, ...]
    stored: tuple[int, ...]
    recomputed: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Verification:
    """The verifier's report on one archive: ``checked`` rolls, their ``differences``,
    ``commitment_ok`` (the revealed entropy hashes to the commitment), ``before_commitment``
    (ids of rolls stored before the commitment was published), ``secret`` (how many of the
    checked rolls were secret), ``unverifiable`` (ids of rolls whose draws were not recorded:
    world rolls made before verifiable dice; not counted as checked)."""

    checked: int
    differences: tuple[Difference, ...]
    commitment_ok: bool
    before_commitment: tuple[str, ...] = field(default=())
    secret: int = 0
    unverifiable: tuple[str, ...] = field(default=())

    checked_ids: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """No roll differs and the entropy matches its commitment."""
        return self.commitment_ok and not self.differences

    @property
    def reported(self) -> tuple[str, ...]:
        """The rolls the archive does not prove: those that differ or, when the revealed
        entropy is not the committed one, every checked roll (a roll of few small dice may
        still match a wrong entropy by chance, 1 in 6 for a d6; none is proven)."""
        if not self.commitment_ok:
            return self.checked_ids
        return tuple(d.roll for d in self.differences)


def _roll_share(roll: Mapping[str, Any]) -> bytes | None:
    share = roll.get("share")
    if not share:
        return None
    return share_digest(str(share.get("post_sha256", "")), str(share.get("seed_sha256", "")))


def verify_archive(archive: Mapping[str, Any]) -> Verification:
    """Recompute every roll of a closed period's archive (``ARCHIVE_FORMAT``, version 1) from
    its revealed entropy, keys, draws and shares, and report the rolls whose stored faces
    differ (a roll with ``draws`` null is listed as unverifiable instead). Raises RulesError:
    ``archive_format`` (not an archive, or the period is not closed: no entropy),
    ``engine_version`` (a roll made by an engine this verifier cannot reproduce).
    Source: issue 16 item 3.
    """
    if archive.get("format") != ARCHIVE_FORMAT or archive.get("version") != 1:
        raise RulesError("archive_format", "Esto no es un archivo de tiradas de Partida (v1).")
    entropy_hex = str(archive.get("entropy") or "")
    try:
        entropy = int(entropy_hex, 16)
    except ValueError:
        raise RulesError(
            "archive_format", "El archivo no trae la entropía revelada: ¿está cerrado el periodo?"
        ) from None
    rolls = list(archive.get("rolls") or [])
    for roll in rolls:
        version = str(roll.get("engine_version", ""))
        if version not in REPRODUCIBLE_ENGINES:
            raise RulesError(
                "engine_version",
                f"La tirada {roll.get('id')} se hizo con el motor «{version}» y este verificador "
                f"sólo reproduce {', '.join(sorted(REPRODUCIBLE_ENGINES))}: usa su versión.",
                version=version,
            )
    differences = []
    opened = str(archive.get("opened_at") or "")
    early = []
    unverifiable = [str(r["id"]) for r in rolls if r.get("draws") is None]
    rolls = [r for r in rolls if r.get("draws") is not None]
    for roll in rolls:
        key = tuple(int(k) for k in roll["key"])
        stored = tuple(flat_faces(roll["dice"]))
        again = tuple(draw_faces(make_rng(entropy, key, share=_roll_share(roll)), roll["draws"]))
        if again != stored:
            differences.append(Difference(str(roll["id"]), key, stored, again))
        if opened and str(roll.get("created_at") or "") < opened:
            early.append(str(roll["id"]))
    return Verification(
        checked=len(rolls),
        differences=tuple(differences),
        commitment_ok=commitment_of(entropy_hex) == str(archive.get("commitment", "")),
        before_commitment=tuple(early),
        secret=sum(1 for r in rolls if r.get("secret")),
        unverifiable=tuple(unverifiable),
        checked_ids=tuple(str(r["id"]) for r in rolls),
    )
