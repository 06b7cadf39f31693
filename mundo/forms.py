"""Forms of the world's pages."""

from __future__ import annotations

import datetime
from typing import Any

from django import forms
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _

from mundo import rules
from mundo.models import SHOP_TYPE_CHOICES, Campaign, Grid, Location, Settlement
from nucleo import bounds
from nucleo.errors import ServiceError
from nucleo.forms import model_choice_field
from nucleo.text import CleanCharField, CleanMultilineCharField


class CampaignCreateForm(forms.ModelForm):
    """A new campaign: its name, calendar and visibility; the creator becomes its master."""

    class Meta:
        model = Campaign
        fields = ["name", "description", "apocalypse_date", "current_day", "time_zone", "is_public"]
        widgets = {"apocalypse_date": forms.DateInput(attrs={"type": "date"})}
        field_classes = {"name": CleanCharField, "description": CleanMultilineCharField}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["apocalypse_date"].initial = datetime.date.today()


class InvitationCreateForm(forms.Form):
    """Single use, or reusable for a number of days."""

    KIND_CHOICES = [("single", _("Single use")), ("reusable", _("Reusable until it expires"))]
    kind = forms.ChoiceField(label=_("Kind"), choices=KIND_CHOICES, initial="single")
    valid_days = forms.IntegerField(
        label=_("Valid for (days)"),
        min_value=1,
        max_value=365,
        required=False,
        help_text=_("Empty: a single-use link never expires."),
    )

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if data.get("kind") == "reusable" and not data.get("valid_days"):
            self.add_error(
                "valid_days", _("A reusable invitation needs an expiry: say for how many days.")
            )
        return data


# --- the master's world page --------------------------------------------------------------------


class SettlementCreateForm(forms.Form):
    """A new settlement (R17, R18): K inhabitants, area in m², growth rate r."""

    name = CleanCharField(label=_("Name"), max_length=120)
    population = forms.IntegerField(
        label=_("Inhabitants before the apocalypse (K)"), max_value=bounds.COUNT_MAX
    )
    area_m2 = forms.FloatField(label=_("Area (m²)"), max_value=bounds.AREA_M2_MAX)
    growth_rate = forms.FloatField(
        label=_("Growth rate (r)"), initial=1.0, max_value=bounds.GROWTH_RATE_MAX
    )
    own_grid = forms.BooleanField(label=_("Own power and water grid"), required=False)
    own_climate = forms.BooleanField(label=_("Own climate"), required=False)


class SettlementAdjustForm(forms.Form):
    """The master's running tally of a settlement (R17): cumulative counts, never negative."""

    settlement = forms.ModelChoiceField(label=_("Settlement"), queryset=Settlement.objects.none())
    zombies_destroyed = forms.IntegerField(label=_("Zombies destroyed"), max_value=bounds.COUNT_MAX)
    survivors_rescued = forms.IntegerField(label=_("Survivors rescued"), max_value=bounds.COUNT_MAX)
    characters_risen = forms.IntegerField(label=_("Characters risen"), max_value=bounds.COUNT_MAX)

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_choice_field(self, "settlement").queryset = campaign.settlements.all()


class LocationCreateForm(forms.Form):
    """A new place: dwelling, shop (with its type), shelter (with its hygiene) or water source."""

    settlement = forms.ModelChoiceField(label=_("Settlement"), queryset=Settlement.objects.none())
    name = CleanCharField(label=_("Name"), max_length=120)
    kind = forms.ChoiceField(label=_("Kind"), choices=Location.Kind.choices)
    shop_type = forms.ChoiceField(
        label=_("Shop type"), choices=[("", "—"), *SHOP_TYPE_CHOICES], required=False
    )
    latrine_distance_m = forms.FloatField(
        label=_("Latrine distance (m)"),
        required=False,
        max_value=bounds.DISTANCE_M_MAX,
        help_text=_("Shelters: how far the toilet place is from where people live."),
    )
    has_cesspit = forms.BooleanField(label=_("Cesspit"), required=False)
    running_water = forms.BooleanField(label=_("Running water"), required=False)
    paper_substitute = forms.BooleanField(label=_("Toilet paper substitute"), required=False)

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_choice_field(self, "settlement").queryset = campaign.settlements.all()


class LocationChoiceForm(forms.Form):
    """Pick one place of the campaign (discover a shop, search a place)."""

    location = forms.ModelChoiceField(label=_("Place"), queryset=Location.objects.none())

    def __init__(self, *args: Any, queryset: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_choice_field(self, "location").queryset = queryset


class ArrivalForm(forms.Form):
    """The default shelter of new characters (empty: none)."""

    shelter = forms.ModelChoiceField(
        label=_("Default shelter"),
        queryset=Location.objects.none(),
        required=False,
        empty_label=_("— none —"),
        help_text=_("Where a character without a shelter lives once its sheet is approved."),
    )

    def __init__(self, *args: Any, campaign: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_choice_field(self, "shelter").queryset = (
            Location.objects.filter(settlement__campaign=campaign, kind=Location.Kind.SHELTER)
            .select_related("settlement")
            .order_by("settlement__name", "name")
        )


class RouteCheckForm(forms.Form):
    """A route across a settlement (R18): its length in m and the zombies' mode."""

    settlement = forms.ModelChoiceField(label=_("Settlement"), queryset=Settlement.objects.none())
    # The service refuses a negative length with its own message; 100 km is a route, not a
    # country (beyond it the cells swept exceed any settlement's).
    path_m = forms.FloatField(label=_("Route length (m)"), max_value=100_000)
    mode = forms.ChoiceField(
        label=_("Mode"),
        choices=[("normal", _("normal (5 m)")), ("agresivo", _("aggressive, hunting (10 m)"))],
        initial="normal",
        widget=forms.RadioSelect,
    )

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_choice_field(self, "settlement").queryset = campaign.settlements.all()


class RestoreForm(forms.Form):
    """Restore power and/or water on a grid (R16)."""

    grid = forms.ModelChoiceField(label=_("Grid"), queryset=Grid.objects.none())
    power = forms.BooleanField(label=_("Power"), required=False)
    water = forms.BooleanField(label=_("Water"), required=False)

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_choice_field(self, "grid").queryset = campaign.grids.select_related("settlement")


class ScheduleForm(forms.Form):
    """The campaign's schedule: every real day at a local time, or manual only."""

    schedule = forms.ChoiceField(label=_("Schedule"), choices=Campaign.Schedule.choices)
    tick_time = forms.TimeField(
        label=_("Tick time"), widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M")
    )


# --- the master's rules page -----------------------------------------------------------------


def _setting_field(row: dict[str, Any]) -> forms.Field:
    """The form field of one setting: its label and unit, its rule id and default below it."""
    label, unit = rules.SETTING_WORDS[row["name"]]
    text = f"{label} ({unit})" if unit else str(label)
    default = row["default"]
    if isinstance(default, bool):
        default = _("yes") if default else _("no")
    elif isinstance(default, list):
        default = ", ".join(default)
    elif isinstance(default, int | float):
        # 4.0 reads "4", 0.2 reads "0,2" in Spanish.
        whole = isinstance(default, float) and default.is_integer()
        default = number_format(int(default) if whole else default)
    help_text = _("%(rule)s — default %(default)s") % {"rule": row["rule"], "default": default}
    kind = row["type"]
    if kind == "bool":
        return forms.BooleanField(label=text, help_text=help_text, required=False)
    if kind == "int":
        return forms.IntegerField(label=text, help_text=help_text)
    if kind == "float":
        return forms.FloatField(label=text, help_text=help_text)
    return forms.CharField(label=text, help_text=help_text, required=kind == "str")


class RuleSettingsForm(forms.Form):
    """The settings of one rule (``group``, e.g. ``R20``), each with its default and unit."""

    def __init__(self, *args: Any, group: str, rows: list[dict[str, Any]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.group = group
        for row in rows:
            self.fields[row["name"]] = _setting_field(row)
            if row["type"] == "list[str]":
                self.fields[row["name"]].widget.attrs["placeholder"] = "sigilo, pelea"

    def values(self) -> dict[str, Any]:
        """The cleaned values as JSON (a list of text from a comma-separated field)."""
        out: dict[str, Any] = {}
        for name, value in self.cleaned_data.items():
            if isinstance(self.initial.get(name), list):
                value = [v.strip() for v in str(value).split(",") if v.strip()]
            out[name] = value
        return out


# Cells whose value may be empty (null in the table's JSON) and the type they hold otherwise.
_NULLABLE: dict[str, type] = {"upto": int, "min_cap_c": int, "quantity_die": int, "caliber": str}
_DECIMAL_COLUMNS = {"max_m", "two_handed_bonus_beyond_m"}


def _cell_field(cell: rules.Cell, label: str) -> forms.Field:
    key = cell.keys[-1] if isinstance(cell.keys[-1], str) else cell.column
    if isinstance(cell.value, bool):
        return forms.BooleanField(label=label, required=False)
    if key in _NULLABLE:
        field_class = forms.IntegerField if _NULLABLE[key] is int else forms.CharField
        return field_class(label=label, required=False)
    if key in _DECIMAL_COLUMNS or isinstance(cell.value, float):
        return forms.FloatField(label=label)
    if isinstance(cell.value, int):
        return forms.IntegerField(label=label)
    return forms.CharField(label=label, required=not isinstance(cell.value, list))


class RuleTableForm(forms.Form):
    """One table of the campaign as rows of inputs (one field per cell, ``c0``, ``c1``, …).

    ``sections`` gives the template the rows and columns; ``table_json()`` the edited table.
    """

    def __init__(self, *args: Any, table: str, data: dict[str, Any], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.table = table
        self.data_before = data
        self.cells: dict[str, rules.Cell] = {}
        self.sections: list[dict[str, Any]] = []
        for section in rules.table_sections(data, table):
            rows = []
            for row_label, cells in section.rows:
                bound: list[str | None] = []
                for cell in cells:
                    if cell is None:
                        bound.append(None)
                        continue
                    name = f"c{len(self.cells)}"
                    self.cells[name] = cell
                    label = f"{row_label} · {rules.COLUMN_WORDS.get(cell.column, cell.column)}"
                    self.fields[name] = _cell_field(cell, label)
                    value = cell.value
                    self.initial[name] = ", ".join(value) if isinstance(value, list) else value
                    bound.append(name)
                words = rules.COLUMN_WORDS.get(row_label)
                rows.append((str(words) if words else row_label, bound))
            self.sections.append(
                {
                    "title": rules.section_title(section.path),
                    "columns": [rules.COLUMN_WORDS.get(c, c) for c in section.columns],
                    "rows": rows,
                }
            )

    def bound_sections(self) -> list[dict[str, Any]]:
        """``sections`` with each field name replaced by its bound field (for the template)."""
        return [
            {
                **section,
                "rows": [
                    (label, [self[name] if name else None for name in names])
                    for label, names in section["rows"]
                ],
            }
            for section in self.sections
        ]

    def table_json(self) -> dict[str, Any]:
        """The table with the posted values (empty optional cells become null)."""
        values: dict[tuple[str | int, ...], Any] = {}
        for name, cell in self.cells.items():
            value = self.cleaned_data.get(name)
            if isinstance(cell.value, list):
                value = [v.strip() for v in str(value or "").split(",") if v.strip()]
            elif value == "" or (value is None and not isinstance(cell.value, bool)):
                value = None
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            values[cell.keys] = value
        return rules.with_values(self.data_before, values)

    def add_path_errors(self, exc: ServiceError) -> None:
        """Put a service error named by a table path next to that cell (else on the form)."""
        by_path = {cell.path: name for name, cell in self.cells.items()}
        for path, messages in exc.message_dict.items():
            self.add_error(by_path.get(path), messages)
