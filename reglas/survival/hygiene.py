"""Hygiene and dirt: adequate conditions, the unhygienic counter, accidents, washing, dirt.

Source: RULES.md R7, R8, R15.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Self

import numpy as np
from numpy.typing import ArrayLike

from reglas.errors import RulesError
from reglas.settings import DEFAULT_SETTINGS, RuleSettings
from reglas.survival.columns import EPSILON, F64, I64, B, bool_column, float_column, int_column


@dataclass(frozen=True, slots=True)
class HygieneArrays:
    """One day of hygiene for n characters, shape ``(n,)``.

    - ``has_paper``: toilet paper was available that day (carried or in the shelter's stash).
    - ``has_paper_substitute``: a substitute was available (leaves, newspaper…).
    - ``toilet_distance_m``: distance (m) of the place used from the living/eating/sleeping
      area; NaN = no such place.
    - ``has_cesspit``: a cesspit is available.
    - ``could_not_urinate`` / ``could_not_defecate``: the day's marks (default False: a
      character relieves themself every day where conditions are adequate).
    - ``relieved_inappropriately``: the day's mark "relieved in an inappropriate place" (R7:
      where conditions are inadequate, only this mark, or ``auto_relief_inadequate``, avoids
      the night's accident).
    - ``running_water``; ``bath_requested`` (the player asked for a bath/shower);
      ``bath_water_available_l`` (L of stored water the bath may use).
    - the counters and dirt flags at the start of the tick.
    """

    has_paper: B
    has_paper_substitute: B
    toilet_distance_m: F64
    has_cesspit: B
    could_not_urinate: B
    could_not_defecate: B
    relieved_inappropriately: B
    running_water: B
    bath_requested: B
    bath_water_available_l: F64
    unhygienic_days: I64
    days_without_defecating: I64
    dirty: B
    extra_dirt: B

    @classmethod
    def of(cls, n: int, **columns: ArrayLike) -> Self:
        """Arrays of length ``n`` from the given columns; missing ones default to 0 / False /
        NaN (no apart place). Raises RulesError for unknown names or bad values."""
        defaults: dict[str, Any] = {
            "has_paper": False,
            "has_paper_substitute": False,
            "toilet_distance_m": np.nan,
            "has_cesspit": False,
            "could_not_urinate": False,
            "could_not_defecate": False,
            "relieved_inappropriately": False,
            "running_water": False,
            "bath_requested": False,
            "bath_water_available_l": 0.0,
            "unhygienic_days": 0,
            "days_without_defecating": 0,
            "dirty": False,
            "extra_dirt": False,
        }
        unknown = set(columns) - set(defaults)
        if unknown:
            raise RulesError(
                "unknown_columns",
                f"Columnas desconocidas: {', '.join(sorted(unknown))}.",
                names=", ".join(sorted(unknown)),
            )
        values = {**defaults, **columns}
        out: dict[str, Any] = {}
        for name, value in values.items():
            default = defaults[name]
            if isinstance(default, bool):
                out[name] = bool_column(value, n, name)
            elif isinstance(default, int):
                out[name] = int_column(value, n, name)
            else:
                out[name] = float_column(value, n, name, allow_nan=name == "toilet_distance_m")
        return cls(**out)


@dataclass(frozen=True, slots=True)
class HygieneOutcome:
    """Hygiene after the day, shape ``(n,)``.

    ``paper_ok`` (paper or substitute), ``place_ok`` (≥ 20 m or cesspit), ``adequate`` both;
    ``held`` the character did not relieve itself that day (inadequate conditions, no mark);
    the new ``unhygienic_days`` and ``days_without_defecating``; last night's accidents
    ``wet_last_night``/``soiled_last_night``; ``washed`` and the stored water it used
    ``bath_water_used_l``; the new ``dirty``/``extra_dirt``.
    """

    paper_ok: B
    place_ok: B
    adequate: B
    held: B
    unhygienic_days: I64
    days_without_defecating: I64
    wet_last_night: B
    soiled_last_night: B
    washed: B
    bath_water_used_l: F64
    dirty: B
    extra_dirt: B


def advance_hygiene(
    hygiene: HygieneArrays, settings: RuleSettings = DEFAULT_SETTINGS
) -> HygieneOutcome:
    """Hygiene conditions, the unhygienic counter, accidents and dirt for one day.

    Adequate = (paper or a substitute) and (a place ≥ ``latrine_min_distance_m`` or a
    cesspit); an inadequate day adds 1 to the consecutive counter, an adequate one resets it.
    Order within the day (our reading: the day's hygiene, then the night): a wash first — with
    running water (automatic if ``auto_shower_with_running_water``, or on request), or on
    request with ``bath_water_l`` of stored water — clears dirt and extra dirt; then the night:
    a day marked "could not urinate" wets the character (wet last night, dirty); the
    ``days_without_defecating``-th consecutive marked day soils them (soiled, dirty, extra
    dirt) and resets that counter. Source: RULES.md R7, R8, R15.
    """
    s = settings
    paper_ok = hygiene.has_paper | hygiene.has_paper_substitute
    distance = np.nan_to_num(hygiene.toilet_distance_m, nan=-1.0)
    place_ok = (distance >= s.latrine_min_distance_m) | hygiene.has_cesspit
    adequate = paper_ok & place_ok
    unhygienic = np.where(adequate, 0, hygiene.unhygienic_days + 1).astype(np.int64)
    held_in = ~adequate & ~hygiene.relieved_inappropriately & (not s.auto_relief_inadequate)

    running_wash = hygiene.running_water & (hygiene.bath_requested | s.auto_shower)
    stored_wash = (
        hygiene.bath_requested
        & ~hygiene.running_water
        & (hygiene.bath_water_available_l >= s.bath_water_l - EPSILON)
    )
    washed = running_wash | stored_wash
    bath_water = np.where(
        stored_wash, np.minimum(s.bath_water_l, hygiene.bath_water_available_l), 0.0
    )

    wet = hygiene.could_not_urinate | held_in
    held = np.where(hygiene.could_not_defecate | held_in, hygiene.days_without_defecating + 1, 0)
    soiled = held >= s.days_without_defecating
    held = np.where(soiled, 0, held).astype(np.int64)

    dirty = (hygiene.dirty & ~washed) | wet | soiled
    extra = (hygiene.extra_dirt & ~washed) | soiled
    return HygieneOutcome(
        paper_ok=paper_ok,
        place_ok=place_ok,
        adequate=adequate,
        held=held_in,
        unhygienic_days=unhygienic,
        days_without_defecating=held,
        wet_last_night=wet,
        soiled_last_night=soiled,
        washed=washed,
        bath_water_used_l=bath_water,
        dirty=dirty,
        extra_dirt=extra,
    )
