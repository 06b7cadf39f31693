"""Forms of the world's pages."""

from __future__ import annotations

import datetime

from django import forms
from django.utils.translation import gettext_lazy as _

from mundo.models import Campaign


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
