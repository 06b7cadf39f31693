"""A campaign's rule numbers and tables: read them, and let its master change them, logged.

``Campaign.tables`` and ``Campaign.rules`` are what the code reads (services, selectors and the
daily tick); ``rule_settings_save`` and ``rule_table_save`` are the master's writes, each taken
under the campaign lock and logged as one ``RuleChange`` (who, when, every old and new value).
The words of the master's page (each setting's label and unit, the tables' columns) live here
too, in English msgids, so the engine keeps its codes and the app words them.

Source: RULES.md principle 1 (every number is a campaign setting, and every setting is live).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _

from mundo.access import require_master
from mundo.models import Arrival, Campaign, Location, RuleChange
from nucleo.errors import ServiceError
from nucleo.locks import campaign_lock
from nucleo.rules_errors import rules_message
from nucleo.users import AnyUser
from reglas.errors import RulesError
from reglas.settings import RuleSettings
from reglas.tables import TABLE_NAMES, Tables, default_tables

# --- what the code reads --------------------------------------------------------------------------


# --- the words of the master's page -----------------------------------------------------------

PERCENT = _("%")
POINTS = _("points")
DAYS = _("days")

# name → (label, unit or ""). Every RuleSettings field has one (a test says so), so a new
# setting appears on the page the day it is added.
SETTING_WORDS: dict[str, tuple[Any, Any]] = {
    "creation_points": (_("Points to share out when creating a character"), POINTS),
    "trait_cap": (_("Highest value of a trait at creation"), POINTS),
    "daily_kcal": (_("Food needed each day"), _("kcal")),
    "daily_water_l": (_("Water needed each day"), _("L")),
    "daily_sleep_h": (_("Sleep needed each day"), _("h")),
    "default_sleep_h": (_("Hours slept when the day says nothing else"), _("h")),
    "hunger_death_days": (_("Days in a row without eating that kill"), DAYS),
    "thirst_death_days": (_("Days in a row without drinking that kill"), DAYS),
    "fatigue_death_days": (_("Days in a row without sleeping that kill"), DAYS),
    "need_day_action_points": (_("Roll penalty per day of hunger, thirst or fatigue"), POINTS),
    "need_day_disease_points": (_("Disease points per day of hunger, thirst or fatigue"), POINTS),
    "deprivation_fraction": (
        _("Share of the daily need under which a day counts as a day without"),
        _("fraction"),
    ),
    "toilet_paper_rolls_per_day": (_("Toilet paper used each day"), _("paper rolls")),
    "latrine_min_distance_m": (_("Least distance of the latrine from the living area"), _("m")),
    "unhygienic_day_disease_points": (_("Disease points per unhygienic day in a row"), POINTS),
    "wet_action_points": (_("Penalty the day after wetting oneself"), POINTS),
    "days_without_defecating": (_("Days without defecating before an accident"), DAYS),
    "soiled_action_points": (_("Penalty the day after soiling oneself"), POINTS),
    "auto_relief_inadequate": (
        _("Without adequate hygiene, characters relieve themselves anywhere without a mark"),
        "",
    ),
    "dirt_action_points": (_("Dirt penalty on dirt-sensitive rolls"), POINTS),
    "dirt_disease_points": (_("Disease points for dirt"), POINTS),
    "extra_dirt_disease_points": (_("Disease points for extra dirt"), POINTS),
    "bath_water_l": (_("Stored water for a shower or bath"), _("L")),
    "auto_shower": (_("With running water, characters shower every day without a mark"), ""),
    "dirt_sensitive_traits": (_("Traits whose rolls take the dirt penalty"), _("trait slugs")),
    "disease_day_action_points": (_("Penalty per day of the current disease"), POINTS),
    "infection_day_action_points": (_("Penalty per day of infection"), POINTS),
    "season_base_winter": (_("Base chance of falling sick in winter"), PERCENT),
    "season_base_spring": (_("Base chance of falling sick in spring"), PERCENT),
    "season_base_summer": (_("Base chance of falling sick in summer"), PERCENT),
    "season_base_autumn": (_("Base chance of falling sick in autumn"), PERCENT),
    "sick_housemate_disease_points": (_("Disease points per sick person in the shelter"), POINTS),
    "precipitation_disease_points": (_("Disease points on a day of rain or snow"), POINTS),
    "cold_degree_disease_points": (
        _("Disease points per degree of the minimum below 0 °C"),
        POINTS,
    ),
    "disease_duration": (_("Length of a disease"), _("dice, days")),
    "medicine_cure_threshold": (_("Threshold of the Medicina roll that cures"), PERCENT),
    "medicine_requires_trait": (_("Only someone with Medicina 1 or more may cure"), ""),
    "resistance_base": (
        _("Base threshold of the resistance roll (the rulebook gives none: 50 % is ours)"),
        PERCENT,
    ),
    "resistance_per_treated_day": (_("Resistance points per day treated with medicine"), POINTS),
    "resistance_per_unhygienic_day": (_("Resistance lost per sick day without hygiene"), POINTS),
    "infection_duration": (_("Length of an infection"), _("dice, days")),
    "amputation_threshold": (_("Threshold of the amputation after a bite"), PERCENT),
    "allow_shelter_stash": (_("Automatic consumption may take from the shelter's stash"), ""),
    "spoil_after_power_cut_days": (
        _("Days perishable food keeps after a power cut (0: it does not spoil)"),
        DAYS,
    ),
    "arrival_food_days": (_("Food a new character arrives with"), DAYS),
    "arrival_water_days": (_("Water a new character arrives with"), DAYS),
    "arrival_toilet_paper_rolls": (
        _("Toilet paper a new character arrives with"),
        _("paper rolls"),
    ),
    "utility_cut_percent_per_day": (_("Chance of a power or water cut per day elapsed"), PERCENT),
    "growth_rate": (_("Growth rate r of a new settlement's zombie curve"), _("per day")),
    "initial_zombies": (_("Zombies at the start of the curve (P0)"), _("zombies")),
    "cell_area_m2": (_("Area of one cell"), _("m²")),
    "detection_radius_m": (_("Detection distance of a zombie"), _("m")),
    "aggressive_detection_radius_m": (_("Detection distance when aggressive or hunting"), _("m")),
    "melee_to_hit": (_("Melee to-hit threshold"), PERCENT),
    "grab_threshold": (_("Zombie grab threshold"), PERCENT),
    "escape_threshold": (_("Threshold to break free of a grab"), PERCENT),
    "bite_threshold": (_("Zombie bite threshold"), PERCENT),
    "grabbed_to_hit_penalty": (_("To-hit penalty while grabbed"), POINTS),
    "bites_same_turn_to_die": (_("Bites in the same turn that kill"), _("bites")),
    "consecutive_bites_to_die": (_("Turns in a row bitten by one zombie that kill"), _("turns")),
    "shop_decay_per_day": (_("Points added to a shop's d100 per day elapsed"), POINTS),
}

TABLE_TITLES: dict[str, Any] = {
    "weather": _("Weather (R11)"),
    "search": _("Weapon search (R22)"),
    "supplies": _("Shop supplies (R23)"),
    "combat": _("Combat and weapons (R19, R20)"),
    "traits": _("Traits of a new sheet (R5)"),
}

# The tables the master page edits. The traits table is left out: a campaign's live traits are
# its ``personajes.Trait`` rows (edited in the admin, seeded from that table on the first sheet),
# and ``mundo`` sits below ``personajes``.
EDITABLE_TABLES: tuple[str, ...] = ("weather", "search", "supplies", "combat")

COLUMN_WORDS: dict[str, Any] = {
    "label": _("Name"),
    "name": _("Name"),
    "slug": _("Code"),
    "examples": _("Examples"),
    "threshold": _("Threshold (%)"),
    "max_m": _("Up to (m)"),
    "upto": _("Up to"),
    "sky": _("Sky"),
    "min_pct": _("Least share (%)"),
    "max_pct": _("Greatest share (%)"),
    "food_kcal": _("Food (kcal)"),
    "water_l": _("Water (L)"),
    "toilet_paper_rolls": _("Toilet paper (rolls)"),
    "medicine_doses": _("Medicine (doses)"),
    "quantity_die": _("Quantity die (faces)"),
    "kind": _("Kind"),
    "caliber": _("Caliber"),
    "two_handed": _("Two-handed"),
    "precipitation": _("Precipitation"),
    "min_cap_c": _("Minimum capped at (°C)"),
    "min_base_c": _("Minimum base (°C)"),
    "min_die": _("Minimum die (faces)"),
    "max_offset_c": _("Maximum above the minimum (°C)"),
    "max_die": _("Maximum die (faces)"),
    "out_of_range": _("Out of range (%)"),
    "two_handed_bonus": _("Two-handed bonus (points)"),
    "two_handed_bonus_beyond_m": _("Two-handed bonus beyond (m)"),
    "ranged": _("Ranged"),
    "melee": _("Melee"),
    "unarmed": _("Unarmed"),
    "wound": _("Wound"),
    "escape": _("Escape (comma-separated)"),
    "value": _("Value"),
}


_SECTION_WORDS: tuple[tuple[str, Any], ...] = (
    (r"weather", _("General")),
    (r"weather\.skies", _("Kinds of sky")),
    (r"weather\.seasons", _("Temperature by season")),
    (r"weather\.seasons\.(?P<name>[^.]+)\.sky", _("Sky bands of the d100: %(name)s")),
    (r"search\.kinds", _("What a search finds (first die)")),
    (r"search\.kinds\[\d+\]\.subtypes", _("Subtypes (second die)")),
    (r"supplies\.bands", _("Bands of d100 + points × day")),
    (r"supplies\.shops", _("Base stock by shop type")),
    (r"combat\.traits", _("Trait of each roll")),
    (r"combat\.to_hit", _("To hit")),
    (r"combat\.to_hit\.ranged", _("Ranged to hit by distance")),
    (r"combat\.wound\.classes", _("Melee wound classes")),
    (r"combat\.wound\.calibers", _("Calibers")),
    (r"combat\.weapons", _("Weapons")),
    (r"traits\.traits", _("Traits")),
)


def section_title(path: str) -> str:
    """The page's heading for a table section (its path when no words are known)."""
    for pattern, words in _SECTION_WORDS:
        match = re.fullmatch(pattern, path)
        if match:
            return str(words) % match.groupdict() if match.groupdict() else str(words)
    return path


def setting_groups() -> list[tuple[str, list[dict[str, Any]]]]:
    """The settings grouped by rule id, in RULES.md order: ``[(rule, [describe() row, …])]``."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in RuleSettings.describe():
        groups.setdefault(row["rule"], []).append(row)
    return list(groups.items())


# --- table cells: a table's JSON as rows of editable values ---------------------------------------


@dataclass(frozen=True, slots=True)
class Cell:
    """One editable value of a table: ``keys`` into its JSON, ``path`` as reglas names it in its
    errors (``combat.wound.calibers.9mm.threshold``), the current ``value``."""

    keys: tuple[str | int, ...]
    path: str
    column: str
    value: Any


@dataclass(frozen=True, slots=True)
class Section:
    """Rows of cells with the same columns: ``rows`` is ``[(row label, [Cell | None, …])]``."""

    path: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[Cell | None, ...]], ...]


def _is_scalar(value: Any) -> bool:
    """A plain value, or a non-empty list of text (edited as one comma-separated cell)."""
    return not isinstance(value, Mapping | list) or (
        isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)
    )


def _rows_section(
    path: str, keys: tuple[str | int, ...], items: Sequence[tuple[str, Any, str, Any]]
) -> list[Section]:
    """A section of one row per item ``(label, key, row path, object)``, then its children."""
    columns: list[str] = []
    for _label, _key, _path, obj in items:
        columns += [k for k, v in obj.items() if _is_scalar(v) and k not in columns]
    rows = []
    children: list[Section] = []
    for label, key, row_path, obj in items:
        cells = tuple(
            Cell((*keys, key, c), f"{row_path}.{c}", c, obj[c]) if c in obj else None
            for c in columns
        )
        rows.append((label, cells))
        for child, value in obj.items():
            if not _is_scalar(value):
                children += table_sections(value, f"{row_path}.{child}", (*keys, key, child))
    return [Section(path, tuple(columns), tuple(rows))] * bool(rows) + children


def table_sections(data: Any, path: str, keys: tuple[str | int, ...] = ()) -> list[Section]:
    """A table's JSON as sections of rows: a list of objects or an object of objects is one
    row per entry; an object's plain values are one "value" row each. Lists of text (e.g.
    the escape traits) are one cell."""
    if isinstance(data, list):
        items = [
            (str(obj.get("slug") or i + 1), i, f"{path}[{i}]", obj) for i, obj in enumerate(data)
        ]
        return _rows_section(path, keys, items)
    if data and all(
        isinstance(v, Mapping) and any(_is_scalar(x) for x in v.values()) for v in data.values()
    ):
        items = [(str(k), k, f"{path}.{k}", v) for k, v in data.items()]
        return _rows_section(path, keys, items)
    plain = [(k, v) for k, v in data.items() if _is_scalar(v)]
    sections: list[Section] = []
    if plain:
        rows = tuple((k, (Cell((*keys, k), f"{path}.{k}", "value", v),)) for k, v in plain)
        sections.append(Section(path, ("value",), rows))
    for k, v in data.items():
        if not _is_scalar(v):
            sections += table_sections(v, f"{path}.{k}", (*keys, k))
    return sections


def table_cells(name: str, data: Any) -> list[Cell]:
    """Every editable cell of table ``name`` in page order."""
    return [c for s in table_sections(data, name) for _l, row in s.rows for c in row if c]


def with_values(data: Any, values: Mapping[tuple[str | int, ...], Any]) -> Any:
    """A copy of ``data`` with the value at each key path replaced."""
    out = copy.deepcopy(data)
    for keys, value in values.items():
        target = out
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
    return out


# --- the master's writes ----------------------------------------------------------------------

_NAMED = re.compile(r"«([^»]+)»")


def _named_field(exc: RulesError, known: Sequence[str]) -> str | None:
    """The first name between «» in an engine message that is one of ``known``."""
    for name in _NAMED.findall(str(exc)):
        if name in known:
            return name
    return None


def _log(campaign: Campaign, user: AnyUser, group: str, changes: list[dict[str, Any]]) -> Any:
    return RuleChange.objects.create(
        campaign=campaign,
        user=user if user is not None and user.is_authenticated else None,
        group=group,
        changes=changes,
    )


def rule_settings_save(
    *, campaign: Campaign, user: AnyUser, group: str, values: Mapping[str, Any]
) -> RuleChange | None:
    """Set the settings of one group (``values``: field name → JSON value) and log the change.

    Only the values that differ from RULES.md are stored. Returns the ``RuleChange``, or None
    when nothing changed. Raises ServiceError ``{field: message}`` for a bad value (nothing is
    saved then) and for a user who is not the campaign's master. Source: RULES.md principle 1.
    """
    require_master(campaign, user, _("Only the campaign's master can change its rules."))
    known = [name for name in values]
    with campaign_lock(campaign.pk) as locked:
        before = locked.rules.to_dict()
        try:
            after = RuleSettings.from_dict({**locked.rule_overrides, **values})
        except RulesError as exc:
            raise ServiceError(
                {_named_field(exc, known) or "__all__": rules_message(exc)}
            ) from None
        new = after.to_dict()
        changes = [
            {"name": n, "old": before[n], "new": new[n]} for n in known if before[n] != new[n]
        ]
        if not changes:
            return None
        locked.rule_overrides = after.overrides()
        locked.save(update_fields=["rule_overrides"])
        campaign.rule_overrides = locked.rule_overrides
        return _log(locked, user, group, changes)


def rule_table_save(
    *, campaign: Campaign, user: AnyUser, table: str, data: Mapping[str, Any]
) -> RuleChange | None:
    """Replace the campaign's copy of one table (``data``: its whole JSON) and log each changed
    cell. A table equal to the default is not stored. Returns the ``RuleChange``, or None when
    nothing changed. Raises ServiceError ``{path: message}`` naming the bad cell (reglas' dotted
    path, e.g. ``supplies.bands[1].max_pct``), nothing saved then; and for a user who is not the
    campaign's master. Source: RULES.md principle 1, R11, R19–R23.
    """
    require_master(campaign, user, _("Only the campaign's master can change its rules."))
    if table not in TABLE_NAMES:
        raise ServiceError(_("There is no such table."))
    with campaign_lock(campaign.pk) as locked:
        before = locked.tables.to_dict()[table]
        stored = dict(locked.rule_tables)
        if dict(data) == default_tables().to_dict()[table]:
            stored.pop(table, None)
        else:
            stored[table] = copy.deepcopy(dict(data))
        try:
            Tables.from_overrides(stored, locked.rules)
        except RulesError as exc:
            paths = [c.path for c in table_cells(table, before)]
            raise ServiceError(
                {_named_field(exc, paths) or "__all__": rules_message(exc)}
            ) from None
        old = {c.path: c.value for c in table_cells(table, before)}
        changes = [
            {"name": c.path, "old": old.get(c.path), "new": c.value}
            for c in table_cells(table, data)
            if old.get(c.path) != c.value
        ]
        if not changes:
            return None
        locked.rule_tables = stored
        locked.save(update_fields=["rule_tables"])
        campaign.rule_tables = stored
        return _log(locked, user, f"table:{table}", changes)


def rule_changes(campaign: Campaign, limit: int = 30) -> list[RuleChange]:
    """The campaign's latest rule changes, newest first, with their user (one query)."""
    return list(RuleChange.objects.filter(campaign=campaign).select_related("user")[:limit])


# --- arrival: the default shelter of new characters ---------------------------------------------


def arrival_shelter(campaign: Campaign) -> Location | None:
    """The shelter a newly approved character moves into, or None (one query)."""
    found = Arrival.objects.filter(campaign=campaign).select_related("shelter__settlement").first()
    return found.shelter if found is not None else None


def arrival_shelter_set(
    *, campaign: Campaign, user: AnyUser, shelter_id: int | None
) -> RuleChange | None:
    """Choose the default shelter of new characters (None: none) and log the change as the
    group ``arrival``. Returns the ``RuleChange``, or None when nothing changed. Raises
    ServiceError ``{"shelter": …}`` for a place that is not a shelter of this campaign, and
    for a user who is not the campaign's master."""
    require_master(campaign, user, _("Only the campaign's master can change its rules."))
    with campaign_lock(campaign.pk) as locked:
        shelter = None
        if shelter_id is not None:
            shelter = Location.objects.filter(
                pk=shelter_id, kind=Location.Kind.SHELTER, settlement__campaign=locked
            ).first()
            if shelter is None:
                raise ServiceError({"shelter": _("Choose one of this campaign's shelters.")})
        arrival, _created = Arrival.objects.get_or_create(campaign=locked)
        if arrival.shelter_id == (shelter.pk if shelter else None):
            return None
        old = str(arrival.shelter) if arrival.shelter_id else None
        arrival.shelter = shelter
        arrival.save(update_fields=["shelter"])
        change = {"name": "arrival.shelter", "old": old, "new": str(shelter) if shelter else None}
        return _log(locked, user, "arrival", [change])
