"""The words of a world roll, in the reader's language, from what the roll stored.

The engine returns values (``result``, the JSON of ``reglas`` outcomes); the apps word them
(RULES.md conventions: "recordar desglosar los dados", every die shown). A world roll also
keeps ``description``, the Spanish text written when it was made: it is the record a master
read at the time and the fallback for a row whose ``result`` lacks a value these texts need
(rows written by an older engine).

Source: RULES.md R16 (restorations), R18 (route checks), R22 (weapon search), R23 (shops).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from reglas.tables import DEFAULT_WEATHER, DetectionMode


class WorldRoll(Protocol):
    """What these texts read of a ``mundo.models.WorldRoll``."""

    kind: str
    dice: Any
    result: Any
    description: str
    settlement_id: int | None
    settlement: Any


def _n(value: Any, decimals: int | None = None) -> str:
    """A number as the active language writes it, grouped (150 000 / 150,000), with at most
    ``decimals`` decimals and none that are useless (6.0 → 6, 0.5 → 0,5)."""
    number = float(value)
    if decimals is None:
        decimals = 0 if number.is_integer() else 2
    while decimals > 0 and round(number, decimals - 1) == round(number, decimals):
        decimals -= 1
    return number_format(round(number, decimals), decimal_pos=decimals, force_grouping=True)


def _shop(r: Mapping[str, Any]) -> str:
    if r["band_max_pct"] > 0:
        band = _("band %(low)s–%(high)s %%") % {"low": r["band_min_pct"], "high": r["band_max_pct"]}
    else:
        band = _("empty band")
    if r["share_roll"] is not None:
        share = _("random share within the band: %(pct)s %%") % {"pct": r["share_roll"]}
    else:
        share = _("%(pct)s %% is left") % {"pct": r["share_pct"]}
    return _(
        "%(shop)s, day %(day)s: d100 = %(die)s + %(mod)s (3 × day) = %(total)s → %(band)s; "
        "%(share)s. Left: %(kcal)s kcal of food, %(water)s L of water, %(paper)s toilet rolls "
        "and %(doses)s doses of medicine."
    ) % {
        "shop": r["shop_label"],
        "day": r["day"],
        "die": r["die"],
        "mod": r["day_modifier"],
        "total": r["total"],
        "band": band,
        "share": share,
        "kcal": _n(r["food_kcal"]),
        "water": _n(r["water_l"]),
        "paper": _n(r["toilet_paper_rolls"]),
        "doses": _n(r["medicine_doses"]),
    }


def _search(r: Mapping[str, Any]) -> str:
    parts = [
        _("Kind 1d%(faces)s = %(die)s: %(label)s")
        % {"faces": r["kind_faces"], "die": r["kind_die"], "label": r["kind_label"]}
    ]
    if r["subtype_die"] is not None:
        examples = f" ({r['subtype_examples']})" if r.get("subtype_examples") else ""
        parts.append(f"1d{r['subtype_faces']} = {r['subtype_die']}: {r['subtype_label']}{examples}")
    elif r.get("kind_examples"):
        parts.append(str(r["kind_examples"]))
    if r["quantity_die"] is not None:
        parts.append(
            _("quantity 1d%(faces)s = %(die)s")
            % {"faces": r["quantity_faces"], "die": r["quantity_die"]}
        )
    else:
        parts.append(_("no set limit on the quantity"))
    return "; ".join(parts) + "."


def _route(r: Mapping[str, Any]) -> str:
    mode = _("aggressive") if r["mode"] == DetectionMode.AGGRESSIVE else _("normal")
    text = _(
        "An area of %(area)s m² = %(cells)s cells; %(zombies)s zombies → p = %(p)s %% per cell. "
        "Mode %(mode)s, detection at %(radius)s m; a route of %(path)s m → %(swept)s cells at "
        "%(p)s %% → %(met)s zombies met."
    ) % {
        "area": _n(r["area_m2"]),
        "cells": _n(r["cells"]),
        "zombies": _n(r["zombies"]),
        "p": _n(100 * r["p_cell"], 2),
        "mode": mode,
        "radius": _n(r["radius_m"]),
        "path": _n(r["path_m"]),
        "swept": _n(r["cells_swept"]),
        "met": _n(r["zombies_met"]),
    }
    if r["capped"]:
        text += " " + _("(%(drawn)s were drawn, but there are only %(zombies)s.)") % {
            "drawn": r["drawn"],
            "zombies": r["zombies"],
        }
    return f"{text} {CORRIDOR_NOTE}"


CORRIDOR_NOTE = gettext_lazy(
    "(R18: for 20 m at 5 m the rulebook writes 52 cells; its own words, 10 m wide × 30 m, give "
    "300 m² = 75 cells, which we use.)"
)


def _restore(r: Mapping[str, Any], roll: WorldRoll) -> str:
    where = roll.settlement.name if roll.settlement_id and roll.settlement else _("regional grid")
    if r["power"] and r["water"]:
        return _("Power and water restored (%(where)s).") % {"where": where}
    if r["power"]:
        return _("Power restored (%(where)s).") % {"where": where}
    return _("Water restored (%(where)s).") % {"where": where}


def _tally(r: Mapping[str, Any], roll: WorldRoll) -> str:
    where = roll.settlement.name if roll.settlement_id and roll.settlement else "—"
    words = {
        "where": where,
        "destroyed": f"{int(r['destroyed']):+d}",
        "rescued": f"{int(r['rescued']):+d}",
    }
    if "undoes" in r:
        return (
            _(
                "Tally of %(where)s undone: %(destroyed)s zombies destroyed, "
                "%(rescued)s survivors rescued."
            )
            % words
        )
    return (
        _("Tally of %(where)s: %(destroyed)s zombies destroyed, %(rescued)s survivors rescued.")
        % words
    )


_TEXTS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "shop": _shop,
    "search": _search,
    "route": _route,
}


def world_roll_text(roll: WorldRoll) -> str:
    """What the roll found, every die shown, in the active language (Spanish or English).

    ``roll.result`` is the engine's JSON (``reglas`` ``as_dict()``); a row without a value these
    texts need falls back to the Spanish ``roll.description`` stored when it was made.
    Raises nothing. Source: RULES.md R16, R18, R22, R23.
    """
    result = roll.result or {}
    try:
        if roll.kind == "restore":
            return _restore(result, roll)
        if roll.kind == "tally":
            return _tally(result, roll)
        words = _TEXTS.get(roll.kind)
        return words(result) if words else roll.description
    except (KeyError, TypeError, ValueError):
        return roll.description


def world_roll_dice(roll: WorldRoll) -> list[int]:
    """The dice of a shop (R23) or a weapon search (R22) to show beside the text; none for a
    route check, whose stored ``dice`` is its binomial draw (the zombies met, already in the
    text), nor for a restoration (no dice)."""
    return list(roll.dice) if roll.kind in ("shop", "search") and roll.dice else []


SKY_NAMES = {
    "clear": pgettext_lazy("sky", "clear"),
    "cloudy": pgettext_lazy("sky", "cloudy"),
    "rain": pgettext_lazy("sky", "rain"),
    "storm": pgettext_lazy("sky", "storm"),
    "fog": pgettext_lazy("sky", "fog"),
    "heat_wave": pgettext_lazy("sky", "heat wave"),
    "snow": pgettext_lazy("sky", "snow"),
    "frost": pgettext_lazy("sky", "frost"),
}
"""The default weather table's skies (``reglas/data/weather.json``), by slug, translated."""

_DEFAULT_SKY_SLUGS = {sky.label: sky.slug for sky in DEFAULT_WEATHER.skies}


def sky_name(label: str) -> str:
    """The sky in the reader's language, from the label the tick stored (the table's Spanish
    label, e.g. ``"nublado"`` → "cloudy" in English). A campaign's own sky labels are shown as
    written. Source: RULES.md R11."""
    slug = _DEFAULT_SKY_SLUGS.get(label)
    return str(SKY_NAMES[slug]) if slug in SKY_NAMES else label
