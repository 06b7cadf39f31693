"""Every rule number as a campaign setting, with the RULES.md defaults.

A campaign stores only its overrides (a JSON object such as ``{"trait_cap": 5}``);
``RuleSettings.from_dict(overrides)`` applies them on top of the defaults and rejects unknown
keys, wrong types and impossible values with a Spanish ``RulesError`` naming the key.
Tables (traits, weather, weapon search, shops, combat) live in ``reglas/data`` (``reglas.tables``);
every scalar number is here and only here: a table that needs one (the shops' day factor, the
combat thresholds, the encounter cell and radii) copies it from these settings when built.

Source: RULES.md principle 1 ("every number is a campaign setting"), R5–R23.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reglas.errors import RulesError


def _s(default: Any, rule: str, help_text: str) -> Any:
    """A settings field: its default, the RULES.md rule id and a Spanish help text."""
    return field(default=default, metadata={"rule": rule, "help": help_text})


@dataclass(frozen=True, slots=True)
class RuleSettings:
    """The rule numbers of one campaign (units in the field names: kcal, L, h, m, m², points, %).

    ``*_points`` are percentage points added to a threshold penalty (R9) or to a disease
    probability (R10); ``*_threshold`` are success probabilities in % (R1); ``*_days`` are
    in-game days. Construction validates every field (``RulesError`` naming the field).

    Source: RULES.md R5–R23.
    """

    # R5 characters
    creation_points: int = _s(10, "R5", "Puntos a repartir al crear el personaje.")
    trait_cap: int = _s(10, "R5", "Valor máximo de un rasgo al crear el personaje.")
    # R6 needs
    daily_kcal: float = _s(2000.0, "R6", "Kcal que hay que comer cada día.")
    daily_water_l: float = _s(2.0, "R6", "Litros de agua que hay que beber cada día.")
    daily_sleep_h: float = _s(6.0, "R6", "Horas de sueño necesarias cada día.")
    default_sleep_h: float = _s(8.0, "R15", "Horas dormidas si el día no dice otra cosa.")
    hunger_death_days: int = _s(5, "R6", "Días seguidos sin comer que matan.")
    thirst_death_days: int = _s(3, "R6", "Días seguidos sin beber que matan.")
    fatigue_death_days: int = _s(7, "R6", "Días seguidos sin dormir que matan.")
    need_day_action_points: int = _s(
        10, "R6", "Puntos de penalización a las tiradas por cada día de hambre, sed o fatiga."
    )
    need_day_disease_points: int = _s(
        10, "R6", "Puntos de probabilidad de enfermar por cada día de hambre, sed o fatiga."
    )
    # The rulebook separates a day "con hambre" (the penalty) from a day "sin comer" (death):
    # a day under this fraction of the requirement is a day without (RULES.md R6).
    deprivation_fraction: float = _s(
        0.25,
        "R6",
        "Fracción de la necesidad diaria bajo la que el día cuenta como «sin» comer, beber o "
        "dormir (los días seguidos «sin» matan).",
    )
    # R7 hygiene
    toilet_paper_rolls_per_day: float = _s(0.2, "R7", "Rollos de papel higiénico gastados al día.")
    latrine_min_distance_m: float = _s(
        20.0, "R7", "Distancia mínima (m) del lugar apartado a la zona de vida."
    )
    unhygienic_day_disease_points: int = _s(
        10, "R7", "Puntos de probabilidad de enfermar por día seguido sin higiene adecuada."
    )
    wet_action_points: int = _s(1, "R7", "Penalización el día después de orinarse encima.")
    days_without_defecating: int = _s(
        7, "R7", "Días seguidos sin defecar tras los que el personaje se defeca encima."
    )
    soiled_action_points: int = _s(10, "R7", "Penalización el día después de defecarse encima.")
    auto_relief_inadequate: bool = _s(
        False,
        "R7",
        "Sin condiciones higiénicas adecuadas, el personaje hace sus necesidades igualmente en "
        "un lugar no apropiado (si no, se lo marca el jugador o el máster).",
    )
    # R8 dirt
    dirt_action_points: int = _s(5, "R8", "Penalización por suciedad en tiradas sensibles.")
    dirt_disease_points: int = _s(5, "R8", "Puntos de probabilidad de enfermar por suciedad.")
    extra_dirt_disease_points: int = _s(
        10, "R8", "Puntos de probabilidad de enfermar por suciedad extra."
    )
    bath_water_l: float = _s(20.0, "R8", "Litros de agua almacenada para una ducha o baño.")
    auto_shower: bool = _s(
        False, "R8", "Con agua corriente, el personaje se ducha solo cada día (si no, se marca)."
    )
    dirt_sensitive_traits: tuple[str, ...] = _s(
        ("sigilo",), "R8", "Rasgos cuyas tiradas sufren la penalización por suciedad."
    )
    # R9 / R12 / R13 action penalty from illness
    disease_day_action_points: int = _s(
        5, "R12", "Penalización por cada día transcurrido de la enfermedad actual."
    )
    # The rulebook: infection "no es más que otra enfermedad" (RULES.md R9, R13).
    infection_day_action_points: int = _s(
        5, "R13", "Penalización por cada día transcurrido de la infección actual."
    )
    # R10 disease onset
    season_base_winter: int = _s(5, "R10", "Probabilidad base de enfermar en invierno (%).")
    season_base_spring: int = _s(2, "R10", "Probabilidad base de enfermar en primavera (%).")
    season_base_summer: int = _s(1, "R10", "Probabilidad base de enfermar en verano (%).")
    season_base_autumn: int = _s(2, "R10", "Probabilidad base de enfermar en otoño (%).")
    sick_housemate_disease_points: int = _s(5, "R10", "Puntos por cada enfermo en el refugio.")
    precipitation_disease_points: int = _s(5, "R10", "Puntos si llueve o nieva ese día.")
    cold_degree_disease_points: int = _s(
        1, "R10", "Puntos por cada grado de la mínima del día bajo 0 °C."
    )
    # R12 disease course
    disease_duration: str = _s("1d6+2", "R12", "Duración de una enfermedad (días, tirada).")
    medicine_cure_threshold: int = _s(
        30, "R12", "Umbral base (%) de la tirada de Medicina que cura."
    )
    medicine_requires_trait: bool = _s(
        True, "R12", "Sólo puede curar quien tenga al menos 1 punto de Medicina."
    )
    # The rulebook gives no number for the resistance roll: 50 % is ours (RULES.md R12).
    resistance_base: int = _s(
        50,
        "R12",
        "Umbral base (%) de la tirada de resistencia (el reglamento no da número: el 50 % es "
        "nuestro).",
    )
    resistance_per_treated_day: int = _s(
        5, "R12", "Puntos de resistencia por cada día tratado con medicinas."
    )
    resistance_per_unhygienic_day: int = _s(
        5, "R12", "Puntos de resistencia perdidos por cada día enfermo sin higiene adecuada."
    )
    # R13 infection
    infection_duration: str = _s("1d6+2", "R13", "Duración de la infección (días, tirada).")
    amputation_threshold: int = _s(20, "R13", "Umbral base (%) de la amputación tras un mordisco.")
    # R15 automatic consumption
    allow_shelter_stash: bool = _s(
        True, "R15", "El autoconsumo puede tomar de la despensa común del refugio."
    )
    # Not in the rulebook: food spoiling after a power cut. Off (0) unless the master sets it.
    spoil_after_power_cut_days: int = _s(
        0,
        "R15",
        "Días que aguanta la comida perecedera tras un corte de luz (0: no se estropea).",
    )
    # Not in the rulebook: what a new character carries when its sheet is approved (the
    # arrival kit), in days of the R6 needs, so it follows daily_kcal and daily_water_l.
    arrival_food_days: float = _s(2.0, "R15", "Días de comida con que llega un personaje nuevo.")
    arrival_water_days: float = _s(2.0, "R15", "Días de agua con que llega un personaje nuevo.")
    arrival_toilet_paper_rolls: float = _s(
        1.0, "R15", "Rollos de papel higiénico con que llega un personaje nuevo."
    )
    # R16 utilities
    utility_cut_percent_per_day: float = _s(
        1.0, "R16", "Probabilidad (%) de corte de luz o agua por cada día tras el apocalipsis."
    )
    # R17 population
    growth_rate: float = _s(1.0, "R17", "Tasa de crecimiento r de la curva de zombis.")
    initial_zombies: float = _s(1.0, "R17", "P0: zombis iniciales de la curva.")
    # R18 encounters
    cell_area_m2: float = _s(4.0, "R18", "Área de un espacio útil (m²).")
    detection_radius_m: float = _s(5.0, "R18", "Distancia de detección de un zombi (m).")
    aggressive_detection_radius_m: float = _s(
        10.0, "R18", "Distancia de detección en modo agresivo, caza o persecución (m)."
    )
    # R19–R20 combat
    melee_to_hit: int = _s(60, "R19", "Umbral (%) para impactar cuerpo a cuerpo.")
    grab_threshold: int = _s(40, "R20", "Umbral (%) del zombi para agarrar.")
    escape_threshold: int = _s(40, "R20", "Umbral (%) para zafarse de un agarre.")
    bite_threshold: int = _s(60, "R20", "Umbral (%) del zombi para morder.")
    grabbed_to_hit_penalty: int = _s(20, "R20", "Penalización al impactar estando agarrado.")
    bites_same_turn_to_die: int = _s(3, "R20", "Mordiscos en el mismo turno que matan.")
    consecutive_bites_to_die: int = _s(
        3, "R20", "Turnos seguidos mordido por el mismo zombi que matan."
    )
    # R23 shops
    shop_decay_per_day: int = _s(3, "R23", "Puntos que se suman al d100 de la tienda por día.")

    def __post_init__(self) -> None:
        hints = _hints()
        for f in dataclasses.fields(self):
            _check_value(f.name, hints[f.name], getattr(self, f.name))
        for name in ("disease_duration", "infection_duration"):
            _check_duration(name, getattr(self, name))

    def season_base(self, season: str) -> int:
        """Base disease probability (%) for a season (Spanish or English name, any case).

        Raises RulesError for an unknown season. Source: RULES.md R10.
        """
        canonical = normalise_season(season)
        return {
            "invierno": self.season_base_winter,
            "primavera": self.season_base_spring,
            "verano": self.season_base_summer,
            "otoño": self.season_base_autumn,
        }[canonical]

    def to_dict(self) -> dict[str, Any]:
        """Every setting as a JSON-able dict (tuples become lists)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def overrides(self) -> dict[str, Any]:
        """Only the settings that differ from the RULES.md defaults, JSON-able.

        ``RuleSettings.from_dict(s.overrides()) == s`` always holds.
        """
        defaults = DEFAULT_SETTINGS.to_dict()
        return {k: v for k, v in self.to_dict().items() if defaults[k] != v}

    @classmethod
    def from_dict(cls, overrides: Mapping[str, Any] | None = None) -> RuleSettings:
        """The defaults with ``overrides`` applied (keys are field names).

        JSON types are accepted: an int for a float field, a list of strings for a tuple field.
        Raises RulesError naming the key for an unknown key, a wrong type or an impossible value
        (negative numbers, thresholds over 100, an invalid duration expression).
        """
        if overrides is None:
            return DEFAULT_SETTINGS
        if not isinstance(overrides, Mapping):
            raise RulesError(
                "settings_not_object",
                "Los ajustes de reglas deben ser un objeto JSON (clave: valor).",
            )
        hints = _hints()
        values: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in hints:
                raise RulesError("setting_unknown", f"El ajuste «{key}» no existe.", key=key)
            values[key] = _coerce(key, hints[key], value)
        return dataclasses.replace(DEFAULT_SETTINGS, **values)

    @classmethod
    def describe(cls) -> list[dict[str, Any]]:
        """One dict per setting: ``name``, ``rule``, ``help`` (Spanish), ``default``, ``type``.

        For the admin's settings form.
        """
        hints = _hints()
        defaults = DEFAULT_SETTINGS.to_dict()
        return [
            {
                "name": f.name,
                "rule": f.metadata["rule"],
                "help": f.metadata["help"],
                "default": defaults[f.name],
                "type": _TYPE_NAMES[hints[f.name]],
            }
            for f in dataclasses.fields(cls)
        ]


_SEASONS = {
    "invierno": "invierno",
    "winter": "invierno",
    "primavera": "primavera",
    "spring": "primavera",
    "verano": "verano",
    "summer": "verano",
    "otoño": "otoño",
    "otono": "otoño",
    "autumn": "otoño",
    "fall": "otoño",
}

SEASONS: tuple[str, ...] = ("invierno", "primavera", "verano", "otoño")
"""Canonical season names (the keys of ``reglas/data/weather.json``)."""


def normalise_season(season: str) -> str:
    """The canonical Spanish name (``invierno``, ``primavera``, ``verano``, ``otoño``).

    Accepts Spanish (with or without ñ) and English names in any case.
    Raises RulesError for anything else. Source: RULES.md R10, R11.
    """
    if isinstance(season, str):
        canonical = _SEASONS.get(season.strip().lower())
        if canonical is not None:
            return canonical
    raise RulesError(
        "season_not_exist",
        f"La estación «{season}» no existe: usa invierno, primavera, verano u otoño.",
        season=str(season),
    )


_TYPE_NAMES: dict[Any, str] = {int: "int", float: "float", bool: "bool", str: "str"}
_TYPE_NAMES[tuple[str, ...]] = "list[str]"


def _hints() -> dict[str, Any]:
    global _HINTS
    if _HINTS is None:
        _HINTS = typing.get_type_hints(RuleSettings)
    return _HINTS


_HINTS: dict[str, Any] | None = None


def _coerce(key: str, kind: Any, value: Any) -> Any:
    """Turn a JSON value into the field's Python type (int → float, list → tuple)."""
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind == tuple[str, ...] and isinstance(value, list):
        return tuple(value)
    return value


def _check_value(key: str, kind: Any, value: Any) -> None:
    if kind is bool:
        if not isinstance(value, bool):
            raise RulesError(
                "setting_not_bool", f"El ajuste «{key}» debe ser verdadero o falso.", key=key
            )
        return
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(
                "setting_not_int", f"El ajuste «{key}» debe ser un número entero.", key=key
            )
    elif kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise RulesError(
                "setting_not_number", f"El ajuste «{key}» debe ser un número.", key=key
            )
        if not math.isfinite(value):
            raise RulesError(
                "setting_not_finite", f"El ajuste «{key}» debe ser un número finito.", key=key
            )
    elif kind is str:
        if not isinstance(value, str):
            raise RulesError("setting_not_text", f"El ajuste «{key}» debe ser un texto.", key=key)
        return
    else:  # tuple[str, ...]
        if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
            raise RulesError(
                "setting_not_text_list", f"El ajuste «{key}» debe ser una lista de textos.", key=key
            )
        return
    if value < 0:
        raise RulesError(
            "setting_negative",
            f"El ajuste «{key}» no puede ser negativo ({value}).",
            key=key,
            value=value,
        )
    if key in _PERCENT_KEYS and value > 100:
        raise RulesError(
            "setting_percent_over",
            f"El ajuste «{key}» es un porcentaje: no puede pasar de 100 ({value}).",
            key=key,
            value=value,
        )
    if key in _FRACTION_KEYS and value > 1:
        raise RulesError(
            "setting_fraction_over",
            f"El ajuste «{key}» es una fracción: no puede pasar de 1 ({value}).",
            key=key,
            value=value,
        )
    if key in _AT_LEAST_ONE_KEYS and value < 1:
        raise RulesError("setting_at_least_one", f"El ajuste «{key}» debe ser al menos 1.", key=key)
    if key in _POSITIVE_KEYS and value <= 0:
        raise RulesError(
            "setting_not_positive",
            f"El ajuste «{key}» debe ser mayor que 0 ({value}).",
            key=key,
            value=value,
        )


_PERCENT_KEYS = frozenset(
    {
        "medicine_cure_threshold",
        "resistance_base",
        "amputation_threshold",
        "utility_cut_percent_per_day",
        "melee_to_hit",
        "grab_threshold",
        "escape_threshold",
        "bite_threshold",
        "grabbed_to_hit_penalty",
        *(f"season_base_{s}" for s in ("winter", "spring", "summer", "autumn")),
    }
)
_FRACTION_KEYS = frozenset({"deprivation_fraction"})
_AT_LEAST_ONE_KEYS = frozenset(
    {
        "hunger_death_days",
        "thirst_death_days",
        "fatigue_death_days",
        "days_without_defecating",
        "bites_same_turn_to_die",
        "consecutive_bites_to_die",
    }
)
# A cell of 0 m² would divide by zero; a curve needs at least a fraction of a first zombie.
_POSITIVE_KEYS = frozenset({"cell_area_m2", "initial_zombies", "growth_rate"})


def _check_duration(key: str, text: str) -> None:
    # Imported here: expressions does not need settings, but keeping the import local avoids
    # a cycle if it ever does.
    from reglas.expressions import parse_expression

    try:
        parsed = parse_expression(text)
    except RulesError as exc:
        raise RulesError(
            "setting_roll_invalid",
            f"El ajuste «{key}» no es una tirada válida: {exc}",
            key=key,
            detail=str(exc),
        ) from exc
    if parsed.has_comparison or parsed.reason:
        raise RulesError(
            "setting_roll_not_simple",
            f"El ajuste «{key}» debe ser una tirada simple como 1d6+2.",
            key=key,
        )
    if parsed.minimum < 1:
        raise RulesError(
            "setting_roll_too_short",
            f"El ajuste «{key}» debe durar al menos 1 día (mínimo {parsed.minimum}).",
            key=key,
            minimum=parsed.minimum,
        )


DEFAULT_SETTINGS = RuleSettings()
"""The RULES.md defaults."""
