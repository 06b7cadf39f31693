"""Forms of the character pages: the sheet builder, the master's edit, the review and the roll.

Forms check only the shape of what was typed (a whole number, a threshold in 0..100); the rules
(R5's points, who may do what) are the services' (``personajes.sheets``, ``personajes.rolls``),
whose errors the views put back on these forms with :func:`add_service_errors`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from nucleo import forms as nucleo_forms
from nucleo.errors import ServiceError
from nucleo.text import CleanCharField
from personajes import portraits
from personajes.mapping import CONDITION_FIELDS
from personajes.models import Character, Trait
from personajes.selectors import REFERENCE_THRESHOLD
from reglas.dice import action_chance


def trait_field_name(slug: str) -> str:
    """The form field of a trait (prefixed so a trait slug never clashes with ``name``)."""
    return f"trait_{slug}"


def add_service_errors(form: forms.BaseForm, exc: ServiceError) -> None:
    """Put a ServiceError's messages on ``form``: a trait slug's next to that trait's input,
    the rest as :func:`nucleo.forms.add_service_errors` does."""
    field_for = {
        key: trait_field_name(key)
        for key in getattr(exc, "error_dict", {})
        if key not in form.fields and trait_field_name(key) in form.fields
    }
    nucleo_forms.add_service_errors(form, exc, field_for)


def _trait_field(trait: Trait, *, maximum: int | None, htmx_url: str | None) -> forms.Field:
    attrs: dict[str, Any] = {"min": 0, "step": 1, "inputmode": "numeric", "class": "trait-input"}
    if htmx_url:
        # Live counter: the trait inputs post the whole form to the same URL; the view answers
        # an htmx request with the points fragment only and saves nothing. The live hint
        # (chance and errors) describes the input.
        attrs |= {
            "hx-post": htmx_url,
            "hx-trigger": "input changed delay:200ms",
            "aria-describedby": f"live-{trait.slug}",
        }
    error_messages = {
        "invalid": _("Write a whole number."),
        "min_value": _("It cannot be negative."),
        "required": _("Write a whole number."),
    }
    if maximum is not None:
        attrs["max"] = maximum
        error_messages["max_value"] = _("The most for one trait is %(limit_value)s.")
    return forms.IntegerField(
        label=trait.name,
        min_value=0,
        max_value=maximum,
        required=False,
        initial=0,
        error_messages=error_messages,
        widget=forms.NumberInput(attrs=attrs),
    )


@dataclass(frozen=True, slots=True)
class TraitRow:
    """One trait of a form: its field, the value typed (None when not a valid number) and the
    chance (0..1) of an action at REFERENCE_THRESHOLD % with that value."""

    trait: Trait
    field: forms.BoundField
    value: int | None
    p30: float | None


class TraitFieldsMixin:
    """Adds one number field per campaign trait and reads them back (``allocation``)."""

    fields: dict[str, forms.Field]
    traits: list[Trait]

    def add_trait_fields(
        self,
        traits: Iterable[Trait],
        *,
        maximum: int | None,
        htmx_url: str | None = None,
        required: bool = False,
    ) -> None:
        self.traits = list(traits)
        for trait in self.traits:
            field = _trait_field(trait, maximum=maximum, htmx_url=htmx_url)
            field.required = required
            self.fields[trait_field_name(trait.slug)] = field

    def trait_value(self, trait: Trait) -> int | None:
        """The trait's points as typed (blank = 0), or None when they are not valid."""
        form: forms.Form = self  # type: ignore[assignment]
        name = trait_field_name(trait.slug)
        if not form.is_bound:
            value = form.get_initial_for_field(form.fields[name], name)
            return int(value or 0)
        if name in form.errors:
            return None
        if name not in getattr(form, "cleaned_data", {}):
            return None
        return form.cleaned_data[name] or 0

    def allocation(self) -> dict[str, int]:
        """``{trait slug: points}`` of the valid trait fields (call after ``is_valid``)."""
        out = {}
        for trait in self.traits:
            value = self.trait_value(trait)
            if value is not None:
                out[trait.slug] = value
        return out

    def trait_rows(self) -> list[TraitRow]:
        """Every trait with its bound field, the value typed and its 30 % chance."""
        form: forms.Form = self  # type: ignore[assignment]
        rows = []
        for trait in self.traits:
            value = self.trait_value(trait)
            p30 = action_chance(value, REFERENCE_THRESHOLD).p if value is not None else None
            rows.append(TraitRow(trait, form[trait_field_name(trait.slug)], value, p30))
        return rows


class SheetForm(TraitFieldsMixin, forms.Form):
    """The player's sheet: name, concept, portrait and the points of every trait (R5).

    ``traits`` the campaign's traits in order, ``trait_cap`` the most for one trait,
    ``htmx_url`` where the trait inputs post for the live counter.
    """

    name = CleanCharField(label=_("Name"), max_length=80)
    concept = CleanCharField(
        multiline=True,
        label=_("Concept and background"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_("Who they were before, what they carry, what they fear."),
    )
    portrait = forms.FileField(
        label=_("Portrait"),
        required=False,
        widget=forms.ClearableFileInput(attrs={"accept": "image/*"}),
        help_text=_("A JPEG, PNG, WebP or GIF image of at most 2 MB."),
    )

    def __init__(
        self,
        *args: Any,
        traits: Iterable[Trait],
        trait_cap: int,
        htmx_url: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.add_trait_fields(traits, maximum=trait_cap, htmx_url=htmx_url)

    def clean_portrait(self) -> Any:
        portrait = self.cleaned_data.get("portrait")
        if portrait and hasattr(portrait, "size") and not isinstance(portrait, str):
            try:
                portraits.validate_portrait(portrait)
            except ValidationError as exc:
                # A dict error cannot go on one field: keep only its messages.
                raise ValidationError(exc.messages) from None
        return portrait

    def detail_fields(self) -> list[forms.BoundField]:
        """The fields above the traits: name, concept, portrait."""
        return [self["name"], self["concept"], self["portrait"]]


class MasterSheetForm(TraitFieldsMixin, forms.ModelForm):
    """The master's edit of any sheet: every trait (no cap) and the condition state, with a
    reason written to the change log (R5: the master's changes are logged)."""

    reason = CleanCharField(
        label=_("Reason"),
        required=False,
        max_length=200,
        help_text=_("Written in the sheet's history next to each change."),
    )

    class Meta:
        model = Character
        fields = CONDITION_FIELDS

    def __init__(
        self, *args: Any, traits: Iterable[Trait], values: Mapping[str, int], **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        # Required: every value is shown filled in, and a blank must not read as 0 points.
        self.add_trait_fields(traits, maximum=None, required=True)
        for trait in self.traits:
            self.fields[trait_field_name(trait.slug)].initial = values.get(trait.slug, 0)

    def _post_clean(self) -> None:
        # The service writes the character (and logs each change); the form only reads values.
        pass

    def condition(self) -> dict[str, object]:
        """The condition values typed, by ``ConditionState`` field name."""
        return {name: self.cleaned_data[name] for name in CONDITION_FIELDS}

    def trait_fields(self) -> list[forms.BoundField]:
        return [self[trait_field_name(t.slug)] for t in self.traits]

    def condition_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in CONDITION_FIELDS]


class ReviewForm(forms.Form):
    """The master's verdict on a submitted sheet: approve, or return it with a comment."""

    APPROVE = "approve"
    RETURN = "return"

    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[(APPROVE, _("Approve")), (RETURN, _("Return to the player"))],
    )
    comment = CleanCharField(
        multiline=True,
        label=_("Comment for the player"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("What to change before sending it again."),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("decision") == self.RETURN and not data.get("comment", "").strip():
            self.add_error("comment", _("Say what the player should change."))
        return data


class RollForm(forms.Form):
    """An action roll from the sheet (R3): trait, (base) threshold (%), dirt, reason — the roll
    vocabulary of ``personajes.rolls``.

    ``master``: the master may leave the threshold blank (set later) and may clear the dirt
    flag of a trait; a player must give a threshold and may only add the flag (R8: the master
    decides which rolls are dirt-sensitive).
    """

    trait = forms.ChoiceField(label=_("Trait"))
    threshold = forms.IntegerField(
        label=_("Base threshold (%)"),
        min_value=0,
        max_value=100,
        required=False,
        error_messages={
            "invalid": _("The threshold is a whole number from 0 to 100."),
            "min_value": _("The threshold is a whole number from 0 to 100."),
            "max_value": _("The threshold is a whole number from 0 to 100."),
        },
        widget=forms.NumberInput(attrs={"min": 0, "max": 100, "step": 1, "inputmode": "numeric"}),
    )
    dirt_sensitive = forms.BooleanField(
        label=_("Dirt-sensitive roll"),
        required=False,
        help_text=_("A dirty character takes 5 more points of penalty on this roll (R8)."),
    )
    reason = CleanCharField(
        label=_("What are you trying?"),
        required=False,
        max_length=200,
        widget=forms.TextInput(attrs={"placeholder": _("Force the pharmacy's door")}),
    )

    def __init__(
        self,
        *args: Any,
        traits: Iterable[Trait],
        master: bool,
        dirt_traits: Collection[str] = (),
        htmx_url: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.traits = {t.slug: t for t in traits}
        self.dirt_traits = frozenset(dirt_traits)
        self.master = master
        trait_choice = self.fields["trait"]
        assert isinstance(trait_choice, forms.ChoiceField)  # declared above
        trait_choice.choices = [(t.slug, t.name) for t in self.traits.values()]
        threshold = self.fields["threshold"]
        threshold.widget.attrs["required"] = not master
        threshold.help_text = (
            _("Leave it blank to set it later; the dice are rolled now either way.")
            if master
            else _("The threshold the master gave you, from 0 to 100.")
        )
        if htmx_url:
            # Live chance: these inputs post the form to the same URL; an htmx request gets the
            # chance fragment back and nothing is rolled.
            triggers = {
                "trait": "change",
                "threshold": "input changed delay:200ms",
                "dirt_sensitive": "change",
            }
            for name, trigger in triggers.items():
                self.fields[name].widget.attrs |= {
                    "hx-post": htmx_url,
                    "hx-trigger": trigger,
                    "hx-target": "#chance",
                    "hx-swap": "innerHTML",
                    "aria-controls": "chance",
                }
        trait = self.selected_trait()
        if not master and trait is not None and trait.slug in self.dirt_traits:
            self.fields["dirt_sensitive"].widget.attrs |= {"checked": True, "disabled": True}
            self.fields["dirt_sensitive"].help_text = _(
                "The master made every roll of this trait dirt-sensitive (R8)."
            )

    def clean_threshold(self) -> int | None:
        value = self.cleaned_data.get("threshold")
        if value is None and not self.master:
            raise ValidationError(_("The threshold is a whole number from 0 to 100."))
        return value

    def selected_trait(self) -> Trait | None:
        """The trait chosen (as posted, or the initial one); None if unknown."""
        slug = self.data.get("trait") if self.is_bound else self.initial.get("trait")
        return self.traits.get(str(slug)) if slug else None

    def dirt_choice(self) -> bool | None:
        """What to pass as ``dirt_sensitive`` (after ``is_valid``): the master's checkbox as it
        is; a player's tick adds the flag, no tick leaves the trait's own flag (None)."""
        checked = bool(self.cleaned_data.get("dirt_sensitive"))
        if self.master:
            return checked
        return True if checked else None

    def dirt_for_preview(self) -> bool:
        """Whether the roll being typed would take the dirt penalty."""
        checked = bool(self.data.get("dirt_sensitive")) if self.is_bound else False
        if not self.is_bound:
            checked = bool(self.initial.get("dirt_sensitive"))
        trait = self.selected_trait()
        flagged = trait is not None and trait.slug in self.dirt_traits
        choice = checked if self.master else (checked or flagged)
        return choice

    def threshold_for_preview(self) -> int | None:
        """The base threshold typed, when it is a whole number in 0..100; else None."""
        raw = self.data.get("threshold") if self.is_bound else self.initial.get("threshold")
        try:
            value = int(str(raw).strip())
        except (TypeError, ValueError):
            return None
        return value if 0 <= value <= 100 else None
