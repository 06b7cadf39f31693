"""The engine's breakdown lines worded in the reader's language.

``reglas`` returns each line of a breakdown as a ``Modifier(source, label, points, params)``:
``label`` is the Spanish text the CLI prints, ``params`` the values it is made of (days, a
count, a temperature, the season). The apps show ``line_label(line)`` instead, which words the
line from ``source`` and ``params`` through Django i18n (ngettext for the day counts), the same
way ``nucleo.rules_errors`` words the engine's refusals. Lines stored before the engine gave
their values (diary rows and rolls of older days), and sources with no wording here (combat's
own lines), show their stored ``label`` as written.

Source: RULES.md R9 (action penalty lines), R10 (disease odds lines), R12 (resistance lines).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, ngettext_lazy, pgettext

from reglas.core import Modifier


def _season(name: object) -> str:
    return {
        "invierno": pgettext("season", "winter"),
        "primavera": pgettext("season", "spring"),
        "verano": pgettext("season", "summer"),
        "otoño": pgettext("season", "autumn"),
    }.get(str(name), str(name))


def _temperature(value: object) -> str:
    if value is None:
        return "?"
    number = float(value)  # type: ignore[arg-type]
    decimals = 0 if number.is_integer() else 1
    return f"{number_format(number, decimal_pos=decimals).replace('-', '−')} °C"


# Each source's wording: a function of the line's params (KeyError when one is missing, then
# the stored label is shown). The msgids are the ones makemessages collects from this module.
_WORDINGS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "season": lambda p: _("Season: %(season)s") % {"season": _season(p["season"])},
    "sick_housemates": lambda p: (
        _("Sick people in the shelter (%(count)s)") % {"count": int(p["count"])}
    ),
    "wet": lambda p: _("Wet themselves last night"),
    "soiled": lambda p: _("Soiled themselves last night"),
    "precipitation": lambda p: _("Rain or snow"),
    "cold": lambda p: (
        ngettext(
            "Cold (minimum %(temperature)s: %(degrees)s degree below zero)",
            "Cold (minimum %(temperature)s: %(degrees)s degrees below zero)",
            int(p["degrees"]),
        )
        % {"temperature": _temperature(p["min_temp_c"]), "degrees": int(p["degrees"])}
    ),
    "dirt": lambda p: _("Dirt"),
    "extra_dirt": lambda p: _("Extra dirt"),
}
# The day-counted lines: the plural follows ``days`` (ngettext_lazy picks it from the dict).
_DAY_LINES: dict[str, Any] = {
    "unhygienic": ngettext_lazy(
        "Without adequate hygiene (%(days)s day)",
        "Without adequate hygiene (%(days)s days)",
        "days",
    ),
    "hunger": ngettext_lazy("Hunger (%(days)s day)", "Hunger (%(days)s days)", "days"),
    "thirst": ngettext_lazy("Thirst (%(days)s day)", "Thirst (%(days)s days)", "days"),
    "fatigue": ngettext_lazy("Fatigue (%(days)s day)", "Fatigue (%(days)s days)", "days"),
    "disease": ngettext_lazy("Disease (%(days)s day)", "Disease (%(days)s days)", "days"),
    "infection": ngettext_lazy("Infection (%(days)s day)", "Infection (%(days)s days)", "days"),
    "treated": ngettext_lazy(
        "Treated with medicines (%(days)s day)", "Treated with medicines (%(days)s days)", "days"
    ),
    "unhygienic_sick": ngettext_lazy(
        "Sick without adequate hygiene (%(days)s day)",
        "Sick without adequate hygiene (%(days)s days)",
        "days",
    ),
}


def _day_line(template: Any, params: Mapping[str, Any]) -> str:
    return str(template % {"days": int(params["days"])})


_WORDINGS.update({source: partial(_day_line, t) for source, t in _DAY_LINES.items()})
SOURCES = frozenset(_WORDINGS)
"""The sources worded here: every source of ``reglas``' R9, R10 and R12 lines."""


def line_label(line: Modifier | Mapping[str, Any]) -> str:
    """One breakdown line in the active language.

    ``line`` a ``reglas.core.Modifier`` or its stored dict (``{"source", "label", "points",
    "params"?}``, as ``Modifier.as_dict`` wrote it). Returns the wording of its ``source`` with
    its ``params`` (e.g. source ``hunger``, ``{"days": 2}`` → "Hunger (2 days)" / "Hambre (2
    días)"); the stored ``label`` when the source has no wording here or a value it needs is
    missing (a row written by an older engine). Never raises for a well-formed line.
    Source: RULES.md R9, R10, R12.
    """
    if isinstance(line, Modifier):
        source, label, params = line.source, line.label, line.params
    else:
        source = str(line.get("source", ""))
        label = str(line.get("label", source))
        params = line.get("params") or {}
    wording = _WORDINGS.get(source)
    if wording is None:
        return label
    try:
        return wording(params)
    except (KeyError, TypeError, ValueError):
        return label
