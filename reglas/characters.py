"""Characters: the trait list, creation points, the condition state and the action penalty.

Source: RULES.md R5 (traits, creation), R9 (action penalty), with the counters of R6–R8 and
R12–R13 kept in ``ConditionState``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray

from reglas.core import Breakdown, Modifier, column
from reglas.errors import RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.tables import DEFAULT_TRAIT_TABLE
from reglas.tables import TraitDefinition as TraitDefinition

DEFAULT_TRAITS: tuple[TraitDefinition, ...] = DEFAULT_TRAIT_TABLE.traits
"""The default traits in sheet order, from ``reglas/data/traits.json``. Source: RULES.md R5."""


def is_dirt_sensitive(trait_slug: str, settings: RuleSettings = DEFAULT_SETTINGS) -> bool:
    """True when rolls of this trait take the dirt penalty by default (``sigilo``).

    The master may also flag any single roll (e.g. social rolls). Source: RULES.md R8.
    """
    return trait_slug in settings.dirt_sensitive_traits


# --- R5 creation ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AllocationProblem:
    """One reason a trait allocation is invalid.

    ``code`` is one of ``unknown_trait``, ``not_int``, ``negative``, ``over_cap``,
    ``total_over`` (a draft over the creation points), ``total_mismatch`` (a submitted sheet
    whose total is not the creation points); ``trait`` the slug or None for totals; ``message``
    a Spanish sentence for the form.
    """

    code: str
    trait: str | None
    message: str


def _slugs(traits: Iterable[TraitDefinition | str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for t in traits:
        if isinstance(t, TraitDefinition):
            out[t.slug] = t.name
        else:
            out[str(t)] = str(t)
    return out


def validate_allocation(
    allocation: Mapping[str, Any],
    traits: Iterable[TraitDefinition | str] = DEFAULT_TRAITS,
    *,
    creation_points: int = 10,
    trait_cap: int = 10,
    submitting: bool = False,
    raise_errors: bool = False,
) -> list[AllocationProblem]:
    """Check a trait allocation ``{slug: points}`` (missing traits count as 0).

    Every value must be a non-negative int (bools are not ints here) ≤ ``trait_cap``; the total
    must equal ``creation_points`` when ``submitting`` and must not exceed it for a draft.
    Returns every problem found (empty list = valid). With ``raise_errors`` raises RulesError
    joining the messages instead of returning a non-empty list.
    Source: RULES.md R5.
    """
    names = _slugs(traits)
    problems: list[AllocationProblem] = []
    total = 0
    for slug, value in allocation.items():
        if slug not in names:
            problems.append(
                AllocationProblem("unknown_trait", str(slug), f"El rasgo «{slug}» no existe.")
            )
            continue
        name = names[slug]
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            problems.append(
                AllocationProblem(
                    "not_int", slug, f"{name}: los puntos deben ser un número entero ({value!r})."
                )
            )
            continue
        if value < 0:
            problems.append(
                AllocationProblem("negative", slug, f"{name}: no puede ser negativo ({value}).")
            )
            continue
        if value > trait_cap:
            problems.append(
                AllocationProblem(
                    "over_cap", slug, f"{name}: el máximo por rasgo es {trait_cap} ({value})."
                )
            )
        total += int(value)
    if submitting and total != creation_points:
        problems.append(
            AllocationProblem(
                "total_mismatch",
                None,
                f"Hay que repartir exactamente {creation_points} puntos (llevas {total}).",
            )
        )
    elif not submitting and total > creation_points:
        problems.append(
            AllocationProblem(
                "total_over",
                None,
                f"Sólo hay {creation_points} puntos para repartir (llevas {total}).",
            )
        )
    if raise_errors and problems:
        raise RulesError(
            "trait_allocation_invalid",
            " ".join(p.message for p in problems),
            detail=" ".join(p.message for p in problems),
        )
    return problems


def complete_allocation(
    allocation: Mapping[str, int], traits: Iterable[TraitDefinition | str] = DEFAULT_TRAITS
) -> dict[str, int]:
    """Every trait slug in sheet order with its points (0 when missing). Source: RULES.md R5."""
    return {slug: int(allocation.get(slug, 0)) for slug in _slugs(traits)}


# --- condition state ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConditionState:
    """A character's survival and health counters between two ticks (all ints ≥ 0 or bools).

    - ``hunger_days``/``thirst_days``/``fatigue_days``: consecutive short days (R6).
    - ``days_without_food``/``days_without_water``/``days_without_sleep``: consecutive days
      under ``deprivation_fraction`` of the need (R6; these kill).
    - ``unhygienic_days``: consecutive days in inadequate hygiene (R7).
    - ``days_without_defecating``: consecutive marked days (R7; 7 → soiled, reset).
    - ``wet_last_night``/``soiled_last_night``: accidents of the last night (R7), they penalise
      the current day only.
    - ``dirty``/``extra_dirt``: until a shower or bath (R8).
    - ``disease_day``: 0 = healthy, else the day x (1-based) of ``disease_duration`` days (R12);
      ``disease_days_treated`` days with a medicine dose, ``disease_unhygienic_days`` sick days
      in inadequate hygiene (both for the resistance roll).
    - ``infection_day``/``infection_duration``: the same for an infection (R13), 0 = none.

    Raises RulesError for a negative or non-int counter. Source: RULES.md R6–R9, R12, R13.
    """

    hunger_days: int = 0
    thirst_days: int = 0
    fatigue_days: int = 0
    unhygienic_days: int = 0
    days_without_defecating: int = 0
    wet_last_night: bool = False
    soiled_last_night: bool = False
    dirty: bool = False
    extra_dirt: bool = False
    disease_day: int = 0
    disease_duration: int = 0
    disease_days_treated: int = 0
    disease_unhygienic_days: int = 0
    infection_day: int = 0
    infection_duration: int = 0
    days_without_food: int = 0
    days_without_water: int = 0
    days_without_sleep: int = 0

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type == "bool":
                if not isinstance(value, bool | np.bool_):
                    raise RulesError(
                        "state_field_not_bool",
                        f"«{f.name}» debe ser verdadero o falso ({value!r}).",
                        name=f.name,
                        value=repr(value),
                    )
            elif isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise RulesError(
                    "state_field_not_int",
                    f"«{f.name}» debe ser un número entero ({value!r}).",
                    name=f.name,
                    value=repr(value),
                )
            elif value < 0:
                raise RulesError(
                    "state_field_negative",
                    f"«{f.name}» no puede ser negativo ({value}).",
                    name=f.name,
                    value=int(value),  # numpy ints too: params stay JSON-able
                )

    @property
    def sick(self) -> bool:
        """True while a disease runs (R12)."""
        return self.disease_day > 0

    @property
    def infected(self) -> bool:
        """True while an infection runs (R13)."""
        return self.infection_day > 0

    def as_dict(self) -> dict[str, int | bool]:
        """JSON-able: every field by name."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> Self:
        """Build from a mapping of field names (missing ones default). Raises RulesError for
        unknown keys or bad values."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(values) - names
        if unknown:
            raise RulesError(
                "state_unknown_fields",
                f"Campos desconocidos en el estado: {', '.join(sorted(unknown))}.",
                names=", ".join(sorted(unknown)),
            )
        return cls(**values)


_INT_FIELDS = tuple(f.name for f in dataclasses.fields(ConditionState) if f.type != "bool")
_BOOL_FIELDS = tuple(f.name for f in dataclasses.fields(ConditionState) if f.type == "bool")


@dataclass(frozen=True, slots=True)
class ConditionArrays:
    """``ConditionState`` for n characters: each field an array of shape ``(n,)``
    (int64 counters, bool flags). The state the daily tick passes along.

    Build with ``from_states`` or ``from_columns``; read one back with ``state(i)``.
    Source: RULES.md R6–R9, R12, R13, R24.
    """

    hunger_days: NDArray[np.int64]
    thirst_days: NDArray[np.int64]
    fatigue_days: NDArray[np.int64]
    unhygienic_days: NDArray[np.int64]
    days_without_defecating: NDArray[np.int64]
    wet_last_night: NDArray[np.bool_]
    soiled_last_night: NDArray[np.bool_]
    dirty: NDArray[np.bool_]
    extra_dirt: NDArray[np.bool_]
    disease_day: NDArray[np.int64]
    disease_duration: NDArray[np.int64]
    disease_days_treated: NDArray[np.int64]
    disease_unhygienic_days: NDArray[np.int64]
    infection_day: NDArray[np.int64]
    infection_duration: NDArray[np.int64]
    days_without_food: NDArray[np.int64]
    days_without_water: NDArray[np.int64]
    days_without_sleep: NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.hunger_days.shape[0])

    @classmethod
    def from_states(cls, states: Sequence[ConditionState]) -> Self:
        """Stack scalar states into arrays (n = len(states))."""
        columns: dict[str, Any] = {}
        for name in _INT_FIELDS:
            columns[name] = np.array([getattr(s, name) for s in states], dtype=np.int64)
        for name in _BOOL_FIELDS:
            columns[name] = np.array([getattr(s, name) for s in states], dtype=np.bool_)
        return cls(**columns)

    @classmethod
    def from_columns(cls, n: int, **columns: ArrayLike) -> Self:
        """Arrays of length ``n`` from the given columns (missing ones are zeros/False).

        Raises RulesError for unknown names, wrong lengths or negative counters.
        """
        names = set(_INT_FIELDS) | set(_BOOL_FIELDS)
        unknown = set(columns) - names
        if unknown:
            raise RulesError(
                "unknown_columns",
                f"Columnas desconocidas: {', '.join(sorted(unknown))}.",
                names=", ".join(sorted(unknown)),
            )
        out: dict[str, Any] = {}
        for name in _INT_FIELDS:
            out[name] = column(columns.get(name, 0), n, name, np.int64)
            if np.any(out[name] < 0):
                raise RulesError("column_negative", f"«{name}» no puede ser negativo.", name=name)
        for name in _BOOL_FIELDS:
            out[name] = column(columns.get(name, False), n, name, np.bool_)
        return cls(**out)

    def replace(self, **changes: NDArray[Any]) -> Self:
        """A copy with some columns replaced (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)

    def state(self, i: int) -> ConditionState:
        """The scalar state of character ``i``."""
        values: dict[str, Any] = {name: int(getattr(self, name)[i]) for name in _INT_FIELDS}
        values.update({name: bool(getattr(self, name)[i]) for name in _BOOL_FIELDS})
        return ConditionState(**values)

    def states(self) -> list[ConditionState]:
        """Every character's scalar state, in order."""
        return [self.state(i) for i in range(len(self))]


# --- R9 action penalty -------------------------------------------------------------------------


def _days(n: int) -> str:
    return "1 día" if n == 1 else f"{n} días"


def action_penalty(
    state: ConditionState,
    dirt_sensitive: bool = False,
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> Breakdown:
    """The R9 action penalty of a character as a breakdown (only non-zero lines).

    10 × hunger days + 10 × thirst days + 10 × fatigue days + 5 × days of the current disease
    (``disease_day``, the current day counted: a disease's first day already costs 5)
    + 1 if wet last night + 10 if soiled last night + 5 if dirty and the roll is
    ``dirt_sensitive``; plus ``infection_day_action_points`` × infection days (0 by default).
    Points are subtracted from action thresholds. Labels are Spanish, e.g. "Hambre (2 días)";
    the day-counted lines (hunger, thirst, fatigue, disease, infection) carry ``{"days": n}`` in
    their ``params``.
    Source: RULES.md R9 (R6, R7, R8, R12).
    """
    s = settings
    lines: list[Modifier] = []

    def add(source: str, label: str, points: int, **params: int) -> None:
        if points:
            lines.append(Modifier(source, label, int(points), params))

    for source, word, days, per_day in (
        ("hunger", "Hambre", state.hunger_days, s.need_day_action_points),
        ("thirst", "Sed", state.thirst_days, s.need_day_action_points),
        ("fatigue", "Fatiga", state.fatigue_days, s.need_day_action_points),
        ("disease", "Enfermedad", state.disease_day, s.disease_day_action_points),
        ("infection", "Infección", state.infection_day, s.infection_day_action_points),
    ):
        add(source, f"{word} ({_days(days)})", per_day * days, days=int(days))
    add("wet", "Se orinó encima anoche", s.wet_action_points if state.wet_last_night else 0)
    add(
        "soiled",
        "Se defecó encima anoche",
        s.soiled_action_points if state.soiled_last_night else 0,
    )
    add("dirt", "Suciedad", s.dirt_action_points if (state.dirty and dirt_sensitive) else 0)
    return tuple(lines)


def action_penalty_parts(
    condition: ConditionArrays,
    dirt_sensitive: bool | ArrayLike = False,
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> dict[str, NDArray[np.int64]]:
    """The R9 penalty per source for n characters: ``{source: points (n,)}``.

    Sources as in ``action_penalty`` (hunger, thirst, fatigue, disease, infection, wet, soiled,
    dirt), every one present (zeros included). ``dirt_sensitive`` a bool or bool array (n,).
    Source: RULES.md R9.
    """
    s = settings
    sensitive = np.broadcast_to(np.asarray(dirt_sensitive, dtype=np.bool_), condition.dirty.shape)
    return {
        "hunger": s.need_day_action_points * condition.hunger_days,
        "thirst": s.need_day_action_points * condition.thirst_days,
        "fatigue": s.need_day_action_points * condition.fatigue_days,
        "disease": s.disease_day_action_points * condition.disease_day,
        "infection": s.infection_day_action_points * condition.infection_day,
        "wet": np.where(condition.wet_last_night, s.wet_action_points, 0).astype(np.int64),
        "soiled": np.where(condition.soiled_last_night, s.soiled_action_points, 0).astype(np.int64),
        "dirt": np.where(condition.dirty & sensitive, s.dirt_action_points, 0).astype(np.int64),
    }


def action_penalty_points(
    condition: ConditionArrays,
    dirt_sensitive: bool | ArrayLike = False,
    settings: RuleSettings = DEFAULT_SETTINGS,
) -> NDArray[np.int64]:
    """Total R9 penalty (points, int64 shape ``(n,)``) for n characters.

    Equals ``breakdown_total(action_penalty(condition.state(i), …))`` for every i.
    Source: RULES.md R9.
    """
    parts = action_penalty_parts(condition, dirt_sensitive, settings)
    total = np.zeros(len(condition), dtype=np.int64)
    for points in parts.values():
        total += points
    return total
