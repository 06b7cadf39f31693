"""Forms of the pages that compose the apps (``partida.world_views``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from mundo.models import Campaign
from nucleo import bounds
from nucleo.forms import model_choice_field
from personajes.models import Character


class DayRecordForm(forms.Form):
    """The master marks a character's day (R7, R8, R15). The form checks shapes only; the
    service (``personajes.days.day_record_save``) checks the rules (0..24 h, water)."""

    character = forms.ModelChoiceField(label=_("Character"), queryset=Character.objects.none())
    day = forms.IntegerField(label=_("Day"), min_value=0, max_value=bounds.DAY_MAX)
    sleep_h = forms.FloatField(
        label=_("Hours slept"), required=False, help_text=_("Empty: the usual 8 h.")
    )
    sleep_reason = forms.ChoiceField(
        label=_("Why the sleep differs"),
        choices=[
            ("", _("usual day")),
            ("guard_duty", _("guard duty")),
            ("travel", _("travel")),
        ],
        required=False,
        widget=forms.RadioSelect,
        help_text=_("Guard duty or travel: write the hours slept."),
    )
    could_not_urinate = forms.BooleanField(label=_("Could not urinate"), required=False)
    relieved_inappropriately = forms.BooleanField(
        label=_("Relieved in an inappropriate place"),
        required=False,
        help_text=_("Where hygiene is inadequate this avoids wetting themself tonight (R7)."),
    )
    could_not_defecate = forms.BooleanField(label=_("Could not defecate"), required=False)
    got_dirty = forms.BooleanField(label=_("Got dirty"), required=False)
    showered = forms.BooleanField(
        label=_("Showered"),
        required=False,
        help_text=_("Needs running water in the shelter, or 20 L of stored water (taken now)."),
    )

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_choice_field(self, "character").queryset = Character.objects.filter(
            campaign=campaign, status=Character.Status.APPROVED
        ).order_by("name")
        self.fields["day"].initial = campaign.current_day
