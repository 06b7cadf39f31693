"""Forms of the master's world controls (``partida.world_controls``): moving characters,
their shelters, giving and taking items, moving stock between places, the settlements'
tallies. They check shapes only; the services check the rules and the locks."""

from __future__ import annotations

from functools import partial
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from mundo.models import Campaign, Location, Settlement
from mundo.world_page import WorldScope
from nucleo import bounds
from nucleo.forms import FormsOnDemand, model_choice_field, window_choices
from personajes.models import Character, ItemType

ROUTE_MODES = [("normal", _("normal (5 m)")), ("agresivo", _("aggressive, hunting (10 m)"))]


def _approved(campaign: Campaign) -> Any:
    return Character.objects.filter(campaign=campaign, status=Character.Status.APPROVED).order_by(
        "name"
    )


def _places(campaign: Campaign, kinds: tuple[str, ...] = ()) -> Any:
    """The campaign's places of ``kinds`` (every kind when empty), by settlement and name."""
    rows = (
        Location.objects.filter(settlement__campaign=campaign)
        .select_related("settlement")
        .order_by("settlement__name", "name")
    )
    return rows.filter(kind__in=kinds) if kinds else rows


SHELTERS = (Location.Kind.SHELTER,)
STOCKED = (Location.Kind.SHELTER, Location.Kind.SHOP)
PLACE_KINDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("move", "location"): (),
    ("shelter", "shelter"): SHELTERS,
    ("transfer", "from_place"): STOCKED,
    ("transfer", "to_place"): STOCKED,
}
"""The kinds of place each place field offers (empty: every kind), by (action, field): its
queryset's filter (``_places``), and the test ``window_forms`` applies to the chosen
settlement's places read once."""


ITEMS_LEFT_OUT: dict[tuple[str, str], tuple[str, ...]] = {
    # Weapons are no place's stock.
    ("transfer", "item_type"): (ItemType.Kind.WEAPON,),
}
"""The kinds of item each item field leaves out, by (action, field; none when absent): its
queryset's filter,
and the test ``window_forms`` applies to the campaign's items read once."""


class _CampaignForm(forms.Form):
    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.setup()

    def setup(self) -> None:
        """Give the choice fields the campaign's rows."""


class CharacterMoveForm(_CampaignForm):
    """Characters go to a settlement (and a place in it), with or without a route check."""

    characters = forms.ModelMultipleChoiceField(
        label=_("Characters"),
        queryset=Character.objects.none(),
        widget=forms.CheckboxSelectMultiple,
    )
    settlement = forms.ModelChoiceField(
        label=_("To the settlement"), queryset=Settlement.objects.none()
    )
    location = forms.ModelChoiceField(
        label=_("To the place"),
        queryset=Location.objects.none(),
        required=False,
        empty_label=_("— the streets —"),
    )
    make_home = forms.BooleanField(
        label=_("They live here now"),
        required=False,
        help_text=_("A shelter: its stash, hygiene and cohabitants are theirs from the next day."),
    )
    route_m = forms.FloatField(
        label=_("Route length (m)"),
        required=False,
        min_value=0,
        max_value=100_000,
        help_text=_("Empty: no route check. Otherwise R18 across the destination settlement."),
    )
    route_mode = forms.ChoiceField(
        label=_("Zombies' mode"), choices=ROUTE_MODES, initial="normal", widget=forms.RadioSelect
    )

    def setup(self) -> None:
        model_choice_field(self, "characters").queryset = _approved(self.campaign)
        model_choice_field(self, "settlement").queryset = self.campaign.settlements.all()
        model_choice_field(self, "location").queryset = _places(
            self.campaign, PLACE_KINDS["move", "location"]
        )


class ShelterForm(_CampaignForm):
    """The shelter a character lives in (empty: none, the open)."""

    character = forms.ModelChoiceField(label=_("Character"), queryset=Character.objects.none())
    shelter = forms.ModelChoiceField(
        label=_("Shelter"),
        queryset=Location.objects.none(),
        required=False,
        empty_label=_("— none: the open —"),
    )

    def setup(self) -> None:
        model_choice_field(self, "character").queryset = _approved(self.campaign)
        model_choice_field(self, "shelter").queryset = _places(
            self.campaign, PLACE_KINDS["shelter", "shelter"]
        )


class GiveTakeForm(_CampaignForm):
    """The master gives a character units of any item, or takes them away."""

    character = forms.ModelChoiceField(label=_("Character"), queryset=Character.objects.none())
    direction = forms.ChoiceField(
        label=_("Give or take"),
        choices=[("give", _("give")), ("take", _("take away"))],
        initial="give",
        widget=forms.RadioSelect,
    )
    item_type = forms.ModelChoiceField(label=_("Item"), queryset=ItemType.objects.none())
    quantity = forms.CharField(label=_("Quantity (units)"), max_length=20)

    def setup(self) -> None:
        model_choice_field(self, "character").queryset = _approved(self.campaign)
        model_choice_field(self, "item_type").queryset = self.campaign.item_types.order_by("name")


class PlaceTransferForm(_CampaignForm):
    """Stock moves from one place (a shelter's stash, a discovered shop) to another; with no
    source the master stocks the place with new supplies, with no destination takes them away.
    """

    from_place = forms.ModelChoiceField(
        label=_("From"),
        queryset=Location.objects.none(),
        required=False,
        empty_label=_("— the master: new supplies —"),
    )
    to_place = forms.ModelChoiceField(
        label=_("To"),
        queryset=Location.objects.none(),
        required=False,
        empty_label=_("— the master: taken away —"),
    )
    item_type = forms.ModelChoiceField(label=_("Item"), queryset=ItemType.objects.none())
    quantity = forms.CharField(label=_("Quantity (units)"), max_length=20)

    def setup(self) -> None:
        for name in ("from_place", "to_place"):
            model_choice_field(self, name).queryset = _places(
                self.campaign, PLACE_KINDS["transfer", name]
            )
        model_choice_field(self, "item_type").queryset = self.campaign.item_types.exclude(
            kind__in=ITEMS_LEFT_OUT["transfer", "item_type"]
        ).order_by("name")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("from_place") is None and data.get("to_place") is None and not self.errors:
            self.add_error("to_place", _("Choose the place that gives or receives it."))
        return data


class TallyForm(_CampaignForm):
    """Zombies destroyed and survivors rescued in a settlement, added to its tally (R17)."""

    settlement = forms.ModelChoiceField(label=_("Settlement"), queryset=Settlement.objects.none())
    destroyed = forms.IntegerField(
        label=_("Zombies destroyed"), min_value=0, max_value=bounds.COUNT_MAX, initial=0
    )
    rescued = forms.IntegerField(
        label=_("Survivors rescued"), min_value=0, max_value=bounds.COUNT_MAX, initial=0
    )

    def setup(self) -> None:
        model_choice_field(self, "settlement").queryset = self.campaign.settlements.all()


CONTROL_FORMS: dict[str, type[_CampaignForm]] = {
    "move": CharacterMoveForm,
    "shelter": ShelterForm,
    "give": GiveTakeForm,
    "transfer": PlaceTransferForm,
    "tally": TallyForm,
}
"""The world controls by action name (the URL's ``action``)."""


def _of_kinds(kinds: tuple[str, ...]) -> Any:
    return lambda place: not kinds or place.kind in kinds


def window_forms(forms_by_action: dict[str, _CampaignForm], scope: WorldScope) -> None:
    """Offer only the ``scope``'s rows in the controls' choices (``mundo.world_page``): the
    chosen settlement's characters (and those not placed yet) and places, the page's
    settlements; the campaign's items, read once for every item field. The forms still accept
    any row of the campaign."""
    for name, form in forms_by_action.items():
        for field_name, field in form.fields.items():
            if not isinstance(field, forms.ModelChoiceField):
                continue
            model = field.queryset.model  # type: ignore[union-attr]
            if model is Character:
                window_choices(field, scope.characters(field.queryset))  # type: ignore[arg-type]
            elif model is Location:
                kinds = PLACE_KINDS.get((name, field_name))
                keep = None if kinds is None else _of_kinds(kinds)
                window_choices(field, scope.places(field.queryset, keep))  # type: ignore[arg-type]
            elif model is ItemType:
                left_out = ITEMS_LEFT_OUT.get((name, field_name), ())
                items = scope.rows(
                    "items", ItemType.objects.filter(campaign=form.campaign).order_by("name", "pk")
                )
                window_choices(field, [i for i in items if i.kind not in left_out])
            elif model is Settlement and name == "move":
                window_choices(field, scope.settlements())
            elif model is Settlement:
                window_choices(field, scope.chosen())
                if scope.settlement is not None and not form.is_bound:
                    form.initial[field_name] = scope.settlement.pk


def control_forms(
    campaign: Campaign, query: Any = None, scope: WorldScope | None = None
) -> FormsOnDemand[_CampaignForm]:
    """Every control's unbound form, by action (for the world page), each built when first
    read (``FormsOnDemand``: a closed section's forms cost nothing), offering the ``scope``'s
    rows when given (``window_forms``). ``query`` (the page's GET) may preset the give form:
    ``give`` a character id and ``kind`` an item kind (the pending list's "give water" link);
    one query then, for the first item of that kind."""

    def build(name: str) -> _CampaignForm:
        form = CONTROL_FORMS[name](campaign=campaign, prefix=name)
        if scope is not None:
            window_forms({name: form}, scope)
        preset = give_preset(campaign, query) if name == "give" else {}
        if preset:
            form.initial.update(preset)
            if scope is not None:
                field = form.fields["character"]
                also = preset["character"]
                window_choices(field, scope.characters(field.queryset, also=also))  # type: ignore[attr-defined]
        return form

    return FormsOnDemand({name: partial(build, name) for name in CONTROL_FORMS})


def give_preset(campaign: Campaign, query: Any) -> dict[str, Any]:
    """The give form's initial ``character`` and ``item_type`` from ``?give=<id>&kind=<kind>``
    (empty without a valid ``give``; a bad id selects nothing, it is only a preset)."""
    character_id = bounds.row_id(query.get("give", "")) if query else None
    if character_id is None:
        return {}
    preset: dict[str, Any] = {"character": character_id, "direction": "give"}
    kind = query.get("kind", "")
    if kind in ItemType.Kind.values:
        found = (
            campaign.item_types.filter(kind=kind)
            .order_by("name")
            .values_list("pk", flat=True)
            .first()
        )
        if found is not None:
            preset["item_type"] = found
    return preset
