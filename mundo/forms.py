"""Forms of the world's pages."""

from __future__ import annotations

import datetime
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from mundo.models import SHOP_TYPE_CHOICES, Campaign, Grid, Location, Settlement


class CampaignCreateForm(forms.ModelForm):
    """A new campaign: its name, calendar and visibility; the creator becomes its master."""

    class Meta:
        model = Campaign
        fields = ["name", "description", "apocalypse_date", "current_day", "time_zone", "is_public"]
        widgets = {"apocalypse_date": forms.DateInput(attrs={"type": "date"})}

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

    name = forms.CharField(label=_("Name"), max_length=120)
    population = forms.IntegerField(label=_("Inhabitants before the apocalypse (K)"))
    area_m2 = forms.FloatField(label=_("Area (m²)"))
    growth_rate = forms.FloatField(label=_("Growth rate (r)"), initial=1.0)
    own_grid = forms.BooleanField(label=_("Own power and water grid"), required=False)
    own_climate = forms.BooleanField(label=_("Own climate"), required=False)


class SettlementAdjustForm(forms.Form):
    """The master's running tally of a settlement (R17): cumulative counts, never negative."""

    settlement = forms.ModelChoiceField(label=_("Settlement"), queryset=Settlement.objects.none())
    zombies_destroyed = forms.IntegerField(label=_("Zombies destroyed"))
    survivors_rescued = forms.IntegerField(label=_("Survivors rescued"))
    characters_risen = forms.IntegerField(label=_("Characters risen"))

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["settlement"].queryset = campaign.settlements.all()  # type: ignore[attr-defined]


class LocationCreateForm(forms.Form):
    """A new place: dwelling, shop (with its type), shelter (with its hygiene) or water source."""

    settlement = forms.ModelChoiceField(label=_("Settlement"), queryset=Settlement.objects.none())
    name = forms.CharField(label=_("Name"), max_length=120)
    kind = forms.ChoiceField(label=_("Kind"), choices=Location.Kind.choices)
    shop_type = forms.ChoiceField(
        label=_("Shop type"), choices=[("", "—"), *SHOP_TYPE_CHOICES], required=False
    )
    latrine_distance_m = forms.FloatField(
        label=_("Latrine distance (m)"),
        required=False,
        help_text=_("Shelters: how far the toilet place is from where people live."),
    )
    has_cesspit = forms.BooleanField(label=_("Cesspit"), required=False)
    running_water = forms.BooleanField(label=_("Running water"), required=False)
    paper_substitute = forms.BooleanField(label=_("Toilet paper substitute"), required=False)

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["settlement"].queryset = campaign.settlements.all()  # type: ignore[attr-defined]


class LocationChoiceForm(forms.Form):
    """Pick one place of the campaign (discover a shop, search a place)."""

    location = forms.ModelChoiceField(label=_("Place"), queryset=Location.objects.none())

    def __init__(self, *args: Any, queryset: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["location"].queryset = queryset  # type: ignore[attr-defined]


class RouteCheckForm(forms.Form):
    """A route across a settlement (R18): its length in m and the zombies' mode."""

    settlement = forms.ModelChoiceField(label=_("Settlement"), queryset=Settlement.objects.none())
    # The service refuses a negative length with its own message; 100 km is a route, not a
    # country (beyond it the cells swept exceed any settlement's).
    path_m = forms.FloatField(label=_("Route length (m)"), max_value=100_000)
    mode = forms.ChoiceField(
        label=_("Mode"),
        choices=[("normal", _("normal (5 m)")), ("agresivo", _("aggressive, hunting (10 m)"))],
    )

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["settlement"].queryset = campaign.settlements.all()  # type: ignore[attr-defined]


class RestoreForm(forms.Form):
    """Restore power and/or water on a grid (R16)."""

    grid = forms.ModelChoiceField(label=_("Grid"), queryset=Grid.objects.none())
    power = forms.BooleanField(label=_("Power"), required=False)
    water = forms.BooleanField(label=_("Water"), required=False)

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["grid"].queryset = campaign.grids.select_related("settlement")  # type: ignore[attr-defined]


class ScheduleForm(forms.Form):
    """The campaign's schedule: every real day at a local time, or manual only."""

    schedule = forms.ChoiceField(label=_("Schedule"), choices=Campaign.Schedule.choices)
    tick_time = forms.TimeField(
        label=_("Tick time"), widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M")
    )
