"""Disease onset odds: the daily probability that a healthy character falls sick.

``disease_probability`` for one character with its labelled breakdown, ``disease_odds`` the
same for n characters in one vectorised pass, ``count_sick_housemates`` the shelter count it
needs. The roll itself is ``reglas.health.disease.roll_onset`` (scalar) or part of
``reglas.health.tick.advance_health`` (the tick).

Source: RULES.md R10 (seed: "Salud/Enfermedad").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Self

import numpy as np
from numpy.typing import ArrayLike, NDArray

from reglas.characters import ConditionArrays, ConditionState
from reglas.core import Breakdown, Modifier, breakdown_total, clamp_threshold, column
from reglas.errors import RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings, normalise_season

I64 = NDArray[np.int64]
B = NDArray[np.bool_]


def _days(n: int) -> str:
    return "1 día" if n == 1 else f"{n} días"


def cold_degrees(min_temp_c: float | None) -> int:
    """Whole degrees of the day's minimum below 0 °C (−3 → 3, −2.5 → 2, 4 → 0, None → 0).

    "+1 % por cada grado < 0": we count whole degrees, so −0.5 °C adds nothing.
    Source: RULES.md R10.
    """
    if min_temp_c is None or math.isnan(min_temp_c):
        return 0
    return max(0, math.floor(-float(min_temp_c)))


@dataclass(frozen=True, slots=True)
class DiseaseInputs:
    """The R10 inputs for one character on one day.

    ``season`` (invierno/primavera/verano/otoño, English accepted), ``sick_housemates`` (people
    sick in the same shelter, the character excluded), ``precipitation`` (rain, storm or snow
    that day), ``min_temp_c`` (the day's minimum, °C; None = unknown, no cold points),
    ``unhygienic_days`` (consecutive, R7), ``wet_last_night``/``soiled_last_night`` (the
    accidents of the night before the day, R7: "todas las dificultades" of the next day),
    ``dirty``/``extra_dirt`` (R8) and the ``hunger_days``/``thirst_days``/``fatigue_days``
    counters (R6).
    """

    season: str
    sick_housemates: int = 0
    precipitation: bool = False
    min_temp_c: float | None = None
    unhygienic_days: int = 0
    dirty: bool = False
    extra_dirt: bool = False
    hunger_days: int = 0
    thirst_days: int = 0
    fatigue_days: int = 0
    wet_last_night: bool = False
    soiled_last_night: bool = False

    def __post_init__(self) -> None:
        normalise_season(self.season)
        for name in (
            "sick_housemates",
            "unhygienic_days",
            "hunger_days",
            "thirst_days",
            "fatigue_days",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
                raise RulesError(
                    "field_not_non_negative_int",
                    f"«{name}» debe ser un entero no negativo ({value!r}).",
                    name=name,
                    value=repr(value),
                )
        if self.min_temp_c is not None and (
            isinstance(self.min_temp_c, bool)
            or not isinstance(self.min_temp_c, int | float | np.integer | np.floating)
            or math.isinf(self.min_temp_c)
        ):
            raise RulesError(
                "min_temp_invalid",
                f"La temperatura mínima debe ser un número ({self.min_temp_c!r}).",
                value=repr(self.min_temp_c),
            )

    @classmethod
    def from_state(
        cls,
        season: str,
        state: ConditionState,
        *,
        sick_housemates: int = 0,
        precipitation: bool = False,
        min_temp_c: float | None = None,
    ) -> Self:
        """The inputs for a character's condition state and the day's weather."""
        return cls(
            season=season,
            sick_housemates=sick_housemates,
            precipitation=precipitation,
            min_temp_c=min_temp_c,
            unhygienic_days=state.unhygienic_days,
            dirty=state.dirty,
            extra_dirt=state.extra_dirt,
            hunger_days=state.hunger_days,
            thirst_days=state.thirst_days,
            fatigue_days=state.fatigue_days,
            wet_last_night=state.wet_last_night,
            soiled_last_night=state.soiled_last_night,
        )


def disease_probability(
    inputs: DiseaseInputs, settings: RuleSettings = DEFAULT_SETTINGS
) -> tuple[int, Breakdown]:
    """The daily disease probability p (%, clamped to 0..100) and its breakdown.

    Season base + 5 × sick or infected housemates + 1 if wet last night + 10 if soiled last
    night + 5 if precipitation + 1 per whole degree of the minimum below 0 °C + 10 ×
    unhygienic days + 5 dirt + 10 extra dirt + 10 × hunger, thirst and fatigue days. The
    breakdown has only non-zero lines except the season base, always shown; its total may exceed
    100 (p does not). Each line's ``params`` hold its values: ``season`` (the canonical name),
    ``count`` (sick housemates), ``min_temp_c`` and ``degrees`` (cold), ``days`` (unhygienic,
    hunger, thirst, fatigue). Rulebook example: winter, one sick housemate, snow,
    −3 °C, one hungry day → 28. Raises RulesError for an unknown season.
    Source: RULES.md R10.
    """
    s = settings
    season = normalise_season(inputs.season)
    lines: list[Modifier] = [
        Modifier("season", f"Estación: {season}", s.season_base(season), {"season": season})
    ]

    def add(source: str, label: str, points: int, **params: int | float | None) -> None:
        if points:
            lines.append(Modifier(source, label, int(points), params))

    add(
        "sick_housemates",
        f"Enfermos en el refugio ({inputs.sick_housemates})",
        s.sick_housemate_disease_points * inputs.sick_housemates,
        count=int(inputs.sick_housemates),
    )
    add("wet", "Se orinó encima anoche", s.wet_action_points if inputs.wet_last_night else 0)
    add(
        "soiled",
        "Se defecó encima anoche",
        s.soiled_action_points if inputs.soiled_last_night else 0,
    )
    add(
        "precipitation",
        "Lluvia o nieve",
        s.precipitation_disease_points if inputs.precipitation else 0,
    )
    degrees = cold_degrees(inputs.min_temp_c)
    add(
        "cold",
        f"Frío (mínima {_temp(inputs.min_temp_c)}: {degrees} bajo cero)",
        s.cold_degree_disease_points * degrees,
        min_temp_c=None if inputs.min_temp_c is None else float(inputs.min_temp_c),
        degrees=degrees,
    )
    add(
        "unhygienic",
        f"Sin higiene adecuada ({_days(inputs.unhygienic_days)})",
        s.unhygienic_day_disease_points * inputs.unhygienic_days,
        days=inputs.unhygienic_days,
    )
    add("dirt", "Suciedad", s.dirt_disease_points if inputs.dirty else 0)
    add("extra_dirt", "Suciedad extra", s.extra_dirt_disease_points if inputs.extra_dirt else 0)
    need = s.need_day_disease_points
    for source, word, days in (
        ("hunger", "Hambre", inputs.hunger_days),
        ("thirst", "Sed", inputs.thirst_days),
        ("fatigue", "Fatiga", inputs.fatigue_days),
    ):
        add(source, f"{word} ({_days(days)})", need * days, days=int(days))
    breakdown = tuple(lines)
    return clamp_threshold(breakdown_total(breakdown)), breakdown


def _temp(value: float | None) -> str:
    if value is None:
        return "?"
    text = f"{value:g}".replace("-", "−").replace(".", ",")
    return f"{text} °C"


@dataclass(frozen=True, slots=True)
class DiseaseInputArrays:
    """R10 inputs for n characters, shape ``(n,)`` (the season is one for the whole tick).

    ``min_temp_c`` NaN = unknown (no cold points); ``wet_last_night``/``soiled_last_night``
    the accidents of the night before the day (R7). Build with ``from_condition``.
    """

    sick_housemates: I64
    wet_last_night: B
    soiled_last_night: B
    precipitation: B
    min_temp_c: NDArray[np.float64]
    unhygienic_days: I64
    dirty: B
    extra_dirt: B
    hunger_days: I64
    thirst_days: I64
    fatigue_days: I64

    @classmethod
    def from_condition(
        cls,
        condition: ConditionArrays,
        *,
        sick_housemates: ArrayLike = 0,
        precipitation: ArrayLike = False,
        min_temp_c: ArrayLike = np.nan,
        wet_last_night: ArrayLike | None = None,
        soiled_last_night: ArrayLike | None = None,
    ) -> Self:
        """Inputs from the condition arrays and the day's facts (scalars broadcast).

        ``wet_last_night``/``soiled_last_night`` None: the condition's own flags (pass the
        start-of-day ones when ``condition`` already holds the coming night's accidents).
        Raises RulesError for wrong shapes or negative housemate counts.
        """
        n = len(condition)
        housemates = np.broadcast_to(np.asarray(sick_housemates), (n,)).astype(np.int64)
        if np.any(housemates < 0):
            raise RulesError(
                "sick_housemates_negative",
                "El número de enfermos en el refugio no puede ser negativo.",
            )
        temps = np.broadcast_to(np.asarray(min_temp_c, dtype=np.float64), (n,)).copy()
        if np.any(np.isinf(temps)):
            raise RulesError(
                "min_temp_not_finite", "La temperatura mínima debe ser un número finito."
            )
        wet = condition.wet_last_night if wet_last_night is None else wet_last_night
        soiled = condition.soiled_last_night if soiled_last_night is None else soiled_last_night
        return cls(
            sick_housemates=housemates,
            wet_last_night=column(wet, n, "wet_last_night", np.bool_),
            soiled_last_night=column(soiled, n, "soiled_last_night", np.bool_),
            precipitation=np.broadcast_to(np.asarray(precipitation, np.bool_), (n,)).copy(),
            min_temp_c=temps,
            unhygienic_days=condition.unhygienic_days,
            dirty=condition.dirty,
            extra_dirt=condition.extra_dirt,
            hunger_days=condition.hunger_days,
            thirst_days=condition.thirst_days,
            fatigue_days=condition.fatigue_days,
        )

    def inputs(self, season: str, i: int) -> DiseaseInputs:
        """The scalar inputs of character ``i``."""
        temp = float(self.min_temp_c[i])
        return DiseaseInputs(
            season=season,
            sick_housemates=int(self.sick_housemates[i]),
            precipitation=bool(self.precipitation[i]),
            min_temp_c=None if math.isnan(temp) else temp,
            unhygienic_days=int(self.unhygienic_days[i]),
            dirty=bool(self.dirty[i]),
            extra_dirt=bool(self.extra_dirt[i]),
            hunger_days=int(self.hunger_days[i]),
            thirst_days=int(self.thirst_days[i]),
            fatigue_days=int(self.fatigue_days[i]),
            wet_last_night=bool(self.wet_last_night[i]),
            soiled_last_night=bool(self.soiled_last_night[i]),
        )


@dataclass(frozen=True, slots=True)
class DiseaseOdds:
    """R10 probabilities for n characters: ``p`` (int %, clamped, ``(n,)``), ``total``
    (unclamped sum), ``parts`` ``{source: points (n,)}``; ``breakdown(i)`` gives the labelled
    breakdown of one character (the same as ``disease_probability``)."""

    season: str
    inputs: DiseaseInputArrays
    p: I64
    total: I64
    parts: dict[str, I64]
    settings: RuleSettings

    def breakdown(self, i: int) -> Breakdown:
        """The labelled breakdown of character ``i``."""
        return disease_probability(self.inputs.inputs(self.season, i), self.settings)[1]


def disease_odds(
    season: str, inputs: DiseaseInputArrays, settings: RuleSettings = DEFAULT_SETTINGS
) -> DiseaseOdds:
    """Vectorised ``disease_probability`` for n characters. Raises RulesError for an unknown
    season. Source: RULES.md R10."""
    s = settings
    canonical = normalise_season(season)
    n = inputs.hunger_days.shape[0]
    temps = np.nan_to_num(inputs.min_temp_c, nan=0.0)
    degrees = np.maximum(0, np.floor(-temps)).astype(np.int64)
    need = s.need_day_disease_points
    parts: dict[str, I64] = {
        "season": np.full(n, s.season_base(canonical), dtype=np.int64),
        "sick_housemates": s.sick_housemate_disease_points * inputs.sick_housemates,
        "wet": np.where(inputs.wet_last_night, s.wet_action_points, 0),
        "soiled": np.where(inputs.soiled_last_night, s.soiled_action_points, 0),
        "precipitation": np.where(inputs.precipitation, s.precipitation_disease_points, 0),
        "cold": s.cold_degree_disease_points * degrees,
        "unhygienic": s.unhygienic_day_disease_points * inputs.unhygienic_days,
        "dirt": np.where(inputs.dirty, s.dirt_disease_points, 0),
        "extra_dirt": np.where(inputs.extra_dirt, s.extra_dirt_disease_points, 0),
        "hunger": need * inputs.hunger_days,
        "thirst": need * inputs.thirst_days,
        "fatigue": need * inputs.fatigue_days,
    }
    parts = {k: np.asarray(v, dtype=np.int64) for k, v in parts.items()}
    total = np.zeros(n, dtype=np.int64)
    for points in parts.values():
        total += points
    return DiseaseOdds(
        season=canonical,
        inputs=inputs,
        p=np.clip(total, 0, 100),
        total=total,
        parts=parts,
        settings=settings,
    )


def count_sick_housemates(shelter: ArrayLike, sick: ArrayLike) -> I64:
    """For each of n characters, how many *other* characters in its shelter are ``sick``.

    ``shelter`` int (n,), −1 = none (then 0); ``sick`` bool (n,). Who counts as sick is the
    caller's choice (the tick: a running disease or infection, R13). Source: RULES.md R10.
    """
    g = np.asarray(shelter, dtype=np.int64)
    s = np.asarray(sick, dtype=np.bool_)
    if g.shape != s.shape:
        raise RulesError("shelter_sick_shape", "«shelter» y «sick» deben tener la misma forma.")
    housed = g >= 0
    if not np.any(housed):
        return np.zeros(g.shape, dtype=np.int64)
    counts = np.bincount(g[housed & s], minlength=int(g.max()) + 1)
    return np.where(housed, counts[np.where(housed, g, 0)] - (s & housed), 0).astype(np.int64)
