"""Forms of the combat panel: open a fight, add combatants, declare, resolve, amputate.

Thin: they parse the fields; every check is the service's (``escenas.combat``).
Source: RULES.md R13, R19–R21.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from escenas.combat import MAX_TURN_HOURS, MAX_ZOMBIES
from escenas.combat_models import Combat, Declaration
from mundo.models import Campaign, Settlement
from nucleo.forms import choice_field, model_choice_field


class CombatOpenForm(forms.Form):
    """The master opens a fight with every living character of the scene."""

    kind = forms.ChoiceField(label=_("Kind"), choices=Combat.Kind.choices)
    title = forms.CharField(label=_("Title"), max_length=120, required=False)
    zombies = forms.IntegerField(
        label=_("Zombies"), min_value=0, max_value=MAX_ZOMBIES, initial=0, required=False
    )
    settlement = forms.ModelChoiceField(
        label=_("Settlement of the zombies"),
        queryset=Settlement.objects.none(),
        required=False,
        help_text=_("Zombies killed leave its count (R17)."),
    )
    distance_m = forms.FloatField(label=_("Distance (m)"), min_value=0, initial=0, required=False)
    victim = forms.TypedChoiceField(
        label=_("The zombies go for"),
        coerce=int,
        empty_value=None,
        required=False,
        help_text=_("Empty: spread over the humans."),
    )
    turn_hours = forms.IntegerField(
        label=_("Hours per turn"),
        min_value=1,
        max_value=MAX_TURN_HOURS,
        required=False,
        help_text=_("Real hours the players have to declare each turn; empty: no deadline."),
    )

    def __init__(self, *args: Any, campaign: Campaign, characters: Any = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_choice_field(self, "settlement").queryset = Settlement.objects.filter(
            campaign=campaign
        )
        people = [(c.pk, c.name) for c in characters]
        choice_field(self, "victim").choices = [("", _("automatic")), *people]


def parse_traits(text: str) -> dict[str, int]:
    """``"armas_cac=2, fuerza=1"`` → ``{"armas_cac": 2, "fuerza": 1}``. Raises ValidationError."""
    out: dict[str, int] = {}
    for part in (text or "").replace(";", ",").split(","):
        if not part.strip():
            continue
        slug, sep, value = part.partition("=")
        points = value.strip()
        if not sep or not (points.isascii() and points.isdigit()):
            raise forms.ValidationError(_("Write traits as slug=points, separated by commas."))
        out[slug.strip()] = int(points)
    return out


class CombatantsAddForm(forms.Form):
    """The master adds zombies and/or one NPC human to an open fight."""

    zombies = forms.IntegerField(
        label=_("Zombies"), min_value=0, max_value=MAX_ZOMBIES, initial=0, required=False
    )
    npc_name = forms.CharField(label=_("NPC's name"), max_length=80, required=False)
    npc_traits = forms.CharField(
        label=_("NPC's traits"),
        required=False,
        help_text=_("e.g. armas_cac=2, fuerza=1"),
    )
    npc_weapon = forms.ChoiceField(label=_("NPC's weapon"), required=False)

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        weapons = [(w.slug, w.label) for w in campaign.tables.combat.weapons]
        choice_field(self, "npc_weapon").choices = [("", "—"), *weapons]

    def clean_npc_traits(self) -> dict[str, int]:
        return parse_traits(self.cleaned_data.get("npc_traits", ""))


class DeclarationForm(forms.Form):
    """A human's action for the turn."""

    combatant = forms.IntegerField(widget=forms.HiddenInput)
    turn = forms.IntegerField(widget=forms.HiddenInput, required=False)
    action = forms.ChoiceField(label=_("Action"), choices=Declaration.Action.choices)
    target = forms.IntegerField(label=_("Target"), required=False)
    weapon = forms.CharField(label=_("Weapon"), required=False, max_length=40)
    escape_trait = forms.CharField(label=_("Escape with"), required=False, max_length=40)


class TurnForm(forms.Form):
    """The turn the master sees on the page (a stale page cannot resolve twice), and an
    optional zombie sent for a chosen human before it (``escenas.combat.zombies_aim``)."""

    turn = forms.IntegerField(widget=forms.HiddenInput)
    zombie = forms.IntegerField(label=_("Zombie"), required=False)
    victim = forms.IntegerField(label=_("goes for"), required=False)


class AmputationForm(forms.Form):
    """The one amputation try after a bite."""

    patient = forms.IntegerField(widget=forms.HiddenInput)
    healer = forms.IntegerField(label=_("Healer"))


class CureForm(forms.Form):
    """A Medicina cure try (R12)."""

    patient = forms.IntegerField(label=_("Patient"))
    healer = forms.IntegerField(label=_("Healer"))


class OddsForm(forms.Form):
    """The master's odds before a fight: how many zombies, turns and simulated fights."""

    zombies = forms.IntegerField(label=_("Zombies"), min_value=1, max_value=100, initial=3)
    turns = forms.IntegerField(label=_("Turns"), min_value=1, max_value=100, initial=5)
    simulations = forms.IntegerField(
        label=_("Simulated fights"), min_value=100, max_value=100_000, initial=20_000
    )
    seed = forms.IntegerField(
        label=_("Seed"),
        min_value=0,
        required=False,
        help_text=_("Optional: the same seed gives the same answer."),
    )
