"""The rules as the players read them (issue 11 item 8): R1–R25 with the campaign's numbers.

``rule_sections`` words every rule of RULES.md with the campaign's live settings in place of
the defaults, and the readings we chose where the rulebook is silent or contradicts itself
(R6's two counters, R12's resistance base, R18's 52 vs 75 cells). ``table_views`` gives the
campaign's tables (weather, weapon search, shops, combat) read-only. Every text is an English
msgid with its Spanish translation; each section has the anchor ``#R<n>`` that breakdowns link.

Source: RULES.md R1–R25.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from mundo.models import Campaign
from mundo.rules import COLUMN_WORDS, EDITABLE_TABLES, TABLE_TITLES, section_title, table_sections
from reglas.settings import RuleSettings


@dataclass(frozen=True, slots=True)
class RuleSection:
    """One rule: ``anchor`` (``R7``), ``title``, ``paragraphs`` (plain text), ``ours`` (the
    reading we chose, or "")."""

    anchor: str
    title: str
    paragraphs: tuple[str, ...]
    ours: str = ""


def _n(value: float) -> str:
    """A number the campaign's language way, without useless decimals (0,25; 2 000)."""
    if float(value).is_integer():
        return number_format(int(value), force_grouping=True)
    return number_format(round(float(value), 2), decimal_pos=2).rstrip("0").rstrip(",.")


def _needs(s: RuleSettings) -> tuple[str, ...]:
    f = s.deprivation_fraction
    return (
        _(
            "Each day a character needs %(kcal)s kcal of food, %(water)s L of water and "
            "%(sleep)s h of sleep. A day short of a need adds 1 to its counter (hunger, thirst, "
            "fatigue); each counter day costs %(points)s points on rolls and %(disease)s on the "
            "disease roll. A day that meets the need resets it."
        )
        % {
            "kcal": _n(s.daily_kcal),
            "water": _n(s.daily_water_l),
            "sleep": _n(s.daily_sleep_h),
            "points": s.need_day_action_points,
            "disease": s.need_day_disease_points,
        },
        _(
            "A day under %(fraction)s of a need (%(kcal)s kcal, %(water)s L, %(sleep)s h) is a "
            "day without it. Death comes with the %(food)sth day in a row without eating, the "
            "%(drink)srd without drinking or the %(rest)sth without sleeping."
        )
        % {
            "fraction": _n(f),
            "kcal": _n(f * s.daily_kcal),
            "water": _n(f * s.daily_water_l),
            "sleep": _n(f * s.daily_sleep_h),
            "food": s.hunger_death_days,
            "drink": s.thirst_death_days,
            "rest": s.fatigue_death_days,
        },
    )


def _rules_1(s: RuleSettings) -> list[RuleSection]:
    """R1–R3 worded with the settings ``s``."""
    return [
        RuleSection(
            "R1",
            _("Percentile dice"),
            (
                _(
                    "A d100 gives 1 to 100. A die succeeds when it is at or under the threshold, "
                    "which is kept between 0 and 100; a fractional threshold is rounded down "
                    "everywhere (26.6 admits a 26, not a 27)."
                ),
            ),
        ),
        RuleSection(
            "R2",
            _("Event roll"),
            (_("One d100 against a probability: with 26 %, a 96 means nothing happens."),),
        ),
        RuleSection(
            "R3",
            _("Action roll"),
            (
                _(
                    "1 + the trait's value in d100 (a trait of 2 rolls 3 dice); one success is "
                    "enough. The master sets the base threshold; the action penalty (R9) is taken "
                    "off it."
                ),
            ),
        ),
    ]


def _rules_2(s: RuleSettings) -> list[RuleSection]:
    """R4–R6 worded with the settings ``s``."""
    return [
        RuleSection(
            "R4",
            _("Other dice"),
            (
                _(
                    "1d3, 1d6, 1d6+2… are ordinary dice. Posts may hold dice expressions such as "
                    "2d6+1 or 3d100<=40 (at most 100 dice a term, 1000 in all)."
                ),
            ),
        ),
        RuleSection(
            "R5",
            _("Characters"),
            (
                _(
                    "A new sheet shares out %(points)s points among the traits, at most %(cap)s "
                    "in one; the master approves it."
                )
                % {"points": s.creation_points, "cap": s.trait_cap},
            ),
        ),
        RuleSection(
            "R6",
            _("Needs"),
            _needs(s),
            ours=_(
                "The rulebook separates a day with hunger (the penalty) from a day without eating "
                "(death): we keep two counters."
            ),
        ),
    ]


def _rules_3(s: RuleSettings) -> list[RuleSection]:
    """R7–R9 worded with the settings ``s``."""
    auto = _("switched on") if s.auto_shower else _("switched off")
    relief = _("switched on") if s.auto_relief_inadequate else _("switched off")
    return [
        RuleSection(
            "R7",
            _("Hygiene"),
            (
                _(
                    "Adequate conditions: toilet paper or a substitute, and a place at least "
                    "%(m)s m from where one lives or a cesspit. Each day in a row without them "
                    "adds %(points)s disease points; paper goes at %(paper)s roll a day."
                )
                % {
                    "m": _n(s.latrine_min_distance_m),
                    "points": s.unhygienic_day_disease_points,
                    "paper": _n(s.toilet_paper_rolls_per_day),
                },
                _(
                    "Without adequate conditions a character does not relieve itself in an "
                    "inappropriate place on its own: unless the day is marked so, it wets itself "
                    "that night (+%(wet)s on every roll and the disease roll of the next day) "
                    "and, after %(days)s days without defecating, soils itself (+%(soiled)s). "
                    "Automatic relief anywhere: %(relief)s."
                )
                % {
                    "wet": s.wet_action_points,
                    "days": s.days_without_defecating,
                    "soiled": s.soiled_action_points,
                    "relief": relief,
                },
            ),
        ),
        RuleSection(
            "R8",
            _("Dirt"),
            (
                _(
                    "Dirt: +%(disease)s disease points and +%(rolls)s on dirt-sensitive rolls; "
                    "extra dirt another +%(extra)s. Both last until a shower (running water, or "
                    "%(bath)s L of stored water). A shower is marked by the player or the master; "
                    "daily shower with running water: %(auto)s."
                )
                % {
                    "disease": s.dirt_disease_points,
                    "rolls": s.dirt_action_points,
                    "extra": s.extra_dirt_disease_points,
                    "bath": _n(s.bath_water_l),
                    "auto": auto,
                },
            ),
        ),
        RuleSection(
            "R9",
            _("Action penalty"),
            (
                _(
                    "Points taken off action thresholds: %(need)s per hunger, thirst and fatigue "
                    "day, %(disease)s per day of the current disease, %(infection)s per day of "
                    "infection, %(wet)s after wetting oneself, %(soiled)s after soiling oneself, "
                    "%(dirt)s for dirt on dirt-sensitive rolls."
                )
                % {
                    "need": s.need_day_action_points,
                    "disease": s.disease_day_action_points,
                    "infection": s.infection_day_action_points,
                    "wet": s.wet_action_points,
                    "soiled": s.soiled_action_points,
                    "dirt": s.dirt_action_points,
                },
            ),
        ),
    ]


def _rules_4(s: RuleSettings) -> list[RuleSection]:
    """R10–R12 worded with the settings ``s``."""
    return [
        RuleSection(
            "R10",
            _("Falling sick"),
            (
                _(
                    "Each day a healthy character rolls against: the season (winter %(w)s, spring "
                    "%(sp)s, summer %(su)s, autumn %(a)s) + %(house)s per sick or infected "
                    "housemate + last night's accidents + %(rain)s if it rains or snows + "
                    "%(cold)s per degree under 0 °C + the hygiene, dirt and needs points."
                )
                % {
                    "w": s.season_base_winter,
                    "sp": s.season_base_spring,
                    "su": s.season_base_summer,
                    "a": s.season_base_autumn,
                    "house": s.sick_housemate_disease_points,
                    "rain": s.precipitation_disease_points,
                    "cold": s.cold_degree_disease_points,
                },
            ),
        ),
        RuleSection(
            "R11",
            _("Weather"),
            (
                _(
                    "Rolled each day for the region (a settlement may have its own); the table is "
                    "below."
                ),
            ),
        ),
        RuleSection(
            "R12",
            _("Disease"),
            (
                _(
                    "A disease lasts %(duration)s days. Medicina cures with a roll at %(cure)s %% "
                    "(once a day per patient). After the last day: a Resistencia roll at %(base)s "
                    "%% + %(treated)s per day treated with medicines − %(dirty)s per day in bad "
                    "hygiene, minus the action penalty; failing it kills."
                )
                % {
                    "duration": s.disease_duration,
                    "cure": s.medicine_cure_threshold,
                    "base": s.resistance_base,
                    "treated": s.resistance_per_treated_day,
                    "dirty": s.resistance_per_unhygienic_day,
                },
            ),
            ours=_("The rulebook gives no number for the resistance roll: the 50 % base is ours."),
        ),
    ]


def _rules_5(s: RuleSettings) -> list[RuleSection]:
    """R13–R15 worded with the settings ``s``."""
    spoil = (
        _("off: food does not spoil after a power cut")
        if s.spoil_after_power_cut_days == 0
        else _("perishable food spoils %(days)s days after the power goes")
        % {"days": s.spoil_after_power_cut_days}
    )
    return [
        RuleSection(
            "R13",
            _("Infection"),
            (
                _(
                    "A bite infects. The only cure: amputating the limb right after the bite "
                    "(Medicina at %(amp)s %%). Infection counts as a disease (+%(points)s a day, "
                    "a sick housemate for others); a second bite does not restart it. It lasts "
                    "%(duration)s days; then the character dies and rises as a zombie."
                )
                % {
                    "amp": s.amputation_threshold,
                    "points": s.infection_day_action_points,
                    "duration": s.infection_duration,
                },
            ),
        ),
        RuleSection(
            "R14",
            _("Deaths"),
            (
                _(
                    "By deprivation (R6), disease (R12), infection (R13) or combat (R19–R21). The "
                    "dead keep their sheet and diary."
                ),
            ),
        ),
        RuleSection(
            "R15",
            _("Automatic consumption"),
            (
                _(
                    "Each day the character eats and drinks what it needs from what it carries, "
                    "then from its shelter's stash (%(stash)s), soonest-spoiling food first. "
                    "Spoilage: %(spoil)s."
                )
                % {
                    "stash": _("allowed") if s.allow_shelter_stash else _("not allowed"),
                    "spoil": spoil,
                },
            ),
        ),
    ]


def _rules_6(s: RuleSettings) -> list[RuleSection]:
    """R16–R18 worded with the settings ``s``."""
    return [
        RuleSection(
            "R16",
            _("Power and water"),
            (
                _(
                    "Each day, while on, each is cut with a chance of %(pct)s %% per day since "
                    "the apocalypse. A cut stays cut unless the master restores it."
                )
                % {"pct": _n(s.utility_cut_percent_per_day)},
            ),
        ),
        RuleSection(
            "R17",
            _("Populations"),
            (
                _(
                    "Zombies follow a logistic curve (r = %(r)s by default); the master's zombies "
                    "destroyed and survivors rescued apply on top. A risen character moves one "
                    "survivor to the zombies."
                )
                % {"r": _n(s.growth_rate)},
            ),
        ),
        RuleSection(
            "R18",
            _("Meeting zombies"),
            (
                _(
                    "Cells of %(cell)s m²; each holds a zombie with p = zombies / cells. A route "
                    "of L m sweeps a corridor 2d wide and L + 2d long, d = %(d)s m (%(d2)s m when "
                    'hunting or chasing); the zombies met are shown as "n cells at p %%".'
                )
                % {
                    "cell": _n(s.cell_area_m2),
                    "d": _n(s.detection_radius_m),
                    "d2": _n(s.aggressive_detection_radius_m),
                },
            ),
            ours=_(
                "For 20 m at 5 m the rulebook writes 52 cells; its own words (10 m × 30 m = 300 "
                "m²) give 75, which we use."
            ),
        ),
    ]


def _rules_7(s: RuleSettings) -> list[RuleSection]:
    """R19–R21 worded with the settings ``s``."""
    return [
        RuleSection(
            "R19",
            _("Combat: to hit and to wound"),
            (
                _(
                    "Melee to hit at %(melee)s %%; ranged by distance (table below). One wound "
                    "kills."
                )
                % {"melee": s.melee_to_hit},
            ),
        ),
        RuleSection(
            "R20",
            _("Combat against zombies"),
            (
                _(
                    "Humans act first. Each zombie grabs at %(grab)s %%; a grabbed victim escapes "
                    "at %(escape)s %% or attacks at −%(minus)s; a zombie holding a victim bites "
                    "at %(bite)s %%. %(same)s bites in one turn, or %(row)s turns in a row by the "
                    "same zombie, kill."
                )
                % {
                    "grab": s.grab_threshold,
                    "escape": s.escape_threshold,
                    "minus": s.grabbed_to_hit_penalty,
                    "bite": s.bite_threshold,
                    "same": s.bites_same_turn_to_die,
                    "row": s.consecutive_bites_to_die,
                },
            ),
        ),
        RuleSection(
            "R21",
            _("Combat between humans"),
            (_("Both roll at once; each who hits rolls to wound; both can die."),),
        ),
    ]


def _rules_8(s: RuleSettings) -> list[RuleSection]:
    """R22–R24 worded with the settings ``s``."""
    return [
        RuleSection(
            "R22",
            _("Weapon search"),
            (
                _(
                    "Searching a dwelling rolls 1d3 (utensils, pseudo-weapons, weapons), then the "
                    "kind and the quantity (table below)."
                ),
            ),
        ),
        RuleSection(
            "R23",
            _("Shop supplies"),
            (
                _(
                    "Computed when a shop is discovered: d100 + %(decay)s × the day gives the "
                    "share of the base stock left (table below)."
                )
                % {"decay": s.shop_decay_per_day},
            ),
        ),
        RuleSection(
            "R24",
            _("The daily tick"),
            (
                _(
                    "Each day closes in order: weather, power and water, populations, then each "
                    "living character's consumption, needs, hygiene, disease and death, and one "
                    "diary row each."
                ),
            ),
        ),
    ]


def _rules_9(s: RuleSettings) -> list[RuleSection]:
    """R25–R25 worded with the settings ``s``."""
    return [
        RuleSection(
            "R25",
            _("The diary"),
            (
                _(
                    "One row per character and day: food, water and sleep, hygiene, the counters, "
                    "dirt, disease and infection (day x of y), the action penalty with its "
                    "breakdown, the disease roll and the status."
                ),
            ),
        ),
    ]


_PARTS = (
    _rules_1,
    _rules_2,
    _rules_3,
    _rules_4,
    _rules_5,
    _rules_6,
    _rules_7,
    _rules_8,
    _rules_9,
)


def rule_sections(campaign: Campaign) -> list[RuleSection]:
    """Every rule R1–R25 worded with ``campaign.rules`` (no query). Source: RULES.md R1–R25."""
    s = campaign.rules
    return [r for part in _PARTS for r in part(s)]


def table_views(campaign: Campaign) -> list[dict[str, Any]]:
    """The campaign's editable tables read-only: ``[{"name", "title", "sections": [{"title",
    "columns", "rows": [(label, [value | None, …])]}]}]`` (no query)."""
    data = campaign.tables.to_dict()
    out = []
    for name in EDITABLE_TABLES:
        sections = [
            {
                "title": section_title(sec.path),
                "columns": [str(COLUMN_WORDS.get(c, c)) for c in sec.columns],
                "rows": [
                    (label, [None if c is None else c.value for c in cells])
                    for label, cells in sec.rows
                ],
            }
            for sec in table_sections(data[name], name)
        ]
        out.append({"name": name, "title": str(TABLE_TITLES[name]), "sections": sections})
    return out
