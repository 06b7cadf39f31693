"""The master's admin for characters, traits, the item catalogue, inventories and rolls.

Changes that RULES.md R5 wants logged go through the services, not through ``save()``:
- trait points and condition fields of an existing character are written by
  ``sheet_master_edit`` (one SheetChange per changed value, with who changed it);
- "approve selected sheets" calls ``sheet_review``.
The master role is checked in the forms, so a refusal shows on the page and nothing is saved.
Rolls and the change log are read-only: they are records.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import IntegerField, OuterRef, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from mundo.access import is_master
from mundo.admin_scope import CampaignScopedAdmin, ScopedTabularInline
from nucleo.errors import ServiceError
from personajes.mapping import CONDITION_FIELDS
from personajes.models import (
    Character,
    DayRecord,
    DiaryEntry,
    InventoryItem,
    ItemType,
    Roll,
    SheetChange,
    ShelterStash,
    Trait,
    TraitValue,
)
from personajes.portraits import clean_admin_portrait, portrait_from_admin_form
from personajes.sheets import sheet_master_edit, sheet_review


def _is_master_of(character: Character, request: HttpRequest) -> bool:
    # Membership decides, here too: a superuser who is not the master may look, not edit
    # points or condition (those are logged as the master's changes).
    return is_master(character.campaign_id, request.user)


def _admin_reason() -> str:
    return gettext("Changed in the admin")


# --- inlines -----------------------------------------------------------------------------------


class TraitValueForm(forms.ModelForm):
    class Meta:
        model = TraitValue
        fields = ["trait", "value"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # An existing row's trait is fixed: changing it would move points between traits
        # without a log line for either.
        if self.instance.pk:
            self.fields["trait"].disabled = True


class TraitValueFormSet(BaseInlineFormSet):
    """Refuses changes by anyone but the campaign's master (``request`` set by the inline)."""

    request: HttpRequest | None = None

    def clean(self) -> None:
        super().clean()
        character = self.instance
        if character.pk is None or self.request is None:
            return
        if any(f.has_changed() for f in self.forms) and not _is_master_of(character, self.request):
            raise forms.ValidationError(
                _("Only the campaign's master can change trait points; they are logged.")
            )


class TraitValueInline(ScopedTabularInline):
    """Trait points. Saving goes through ``sheet_master_edit`` (see CharacterAdmin)."""

    model = TraitValue
    form = TraitValueForm
    formset = TraitValueFormSet
    extra = 0
    can_delete = False
    fields = ["trait", "value"]

    def get_formset(
        self, request: HttpRequest, obj: Character | None = None, **kwargs: Any
    ) -> type[BaseInlineFormSet[Any, Any, Any]]:
        formset = super().get_formset(request, obj, **kwargs)
        assert issubclass(formset, TraitValueFormSet)  # made from ``formset`` above
        # get_formset builds a fresh class per call: setting attributes on it is per request.
        formset.request = request
        trait_field = formset.form.base_fields["trait"]
        assert isinstance(trait_field, forms.ModelChoiceField)  # the model's foreign key
        if obj is not None:
            trait_field.queryset = Trait.objects.filter(campaign_id=obj.campaign_id)
        return formset


class InventoryItemInline(ScopedTabularInline):
    model = InventoryItem
    extra = 0
    fields = ["item_type", "quantity"]

    def get_formset(
        self, request: HttpRequest, obj: Character | None = None, **kwargs: Any
    ) -> type[BaseInlineFormSet[Any, Any, Any]]:
        formset = super().get_formset(request, obj, **kwargs)
        item_field = formset.form.base_fields["item_type"]
        assert isinstance(item_field, forms.ModelChoiceField)  # the model's foreign key
        if obj is not None:
            item_field.queryset = ItemType.objects.filter(campaign_id=obj.campaign_id)
        return formset


_SHEET_CHANGE_FIELDS = ("changed_at", "changed_by", "field", "old_value", "new_value", "reason")


class SheetChangeInline(ScopedTabularInline):
    """The change log, read-only (written by ``sheet_master_edit`` only)."""

    model = SheetChange
    extra = 0
    can_delete = False
    fields = _SHEET_CHANGE_FIELDS
    readonly_fields = _SHEET_CHANGE_FIELDS

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# --- characters --------------------------------------------------------------------------------


class CharacterAdminForm(forms.ModelForm):
    """Condition changes of an existing character are the master's only (they are logged)."""

    request: HttpRequest | None = None

    class Meta:
        model = Character
        fields = [
            "campaign",
            "player",
            "name",
            "concept",
            "portrait",
            "status",
            "death_cause",
            "death_day",
            "amputations",
            "settlement",
            "shelter",
            *CONDITION_FIELDS,
        ]

    def clean_portrait(self) -> Any:
        return clean_admin_portrait(self)

    def clean(self) -> dict[str, Any] | None:
        cleaned = super().clean()
        if (
            self.instance.pk
            and self.request is not None
            and set(self.changed_data) & set(CONDITION_FIELDS)
            and not _is_master_of(self.instance, self.request)
        ):
            raise forms.ValidationError(
                _("Only the campaign's master can change a character's condition; it is logged.")
            )
        return cleaned


@admin.register(Character)
class CharacterAdmin(CampaignScopedAdmin):
    form = CharacterAdminForm
    list_display = [
        "name",
        "player",
        "campaign",
        "status",
        "points",
        "hunger_days",
        "thirst_days",
        "fatigue_days",
        "dirty",
        "disease_day",
        "infection_day",
    ]
    list_filter = ["status", "campaign", "dirty"]
    list_select_related = ["player", "campaign"]
    search_fields = ["name", "player__username", "campaign__name"]
    autocomplete_fields = ["player", "campaign"]
    readonly_fields = ["review_comment", "created_at", "updated_at"]
    inlines = [TraitValueInline, InventoryItemInline, SheetChangeInline]
    actions = ["approve_sheets"]
    fieldsets = [
        (None, {"fields": ["campaign", "player", "name", "concept", "portrait"]}),
        (
            _("Sheet"),
            {"fields": ["status", "review_comment", "death_cause", "death_day", "amputations"]},
        ),
        (_("Where it lives"), {"fields": ["settlement", "shelter"]}),
        (_("Condition (changes are logged)"), {"fields": list(CONDITION_FIELDS)}),
        (_("Dates"), {"fields": ["created_at", "updated_at"]}),
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Character]:
        points = (
            TraitValue.objects.filter(character=OuterRef("pk"))
            .values("character")
            .annotate(total=Sum("value"))
            .values("total")
        )
        return (
            super()
            .get_queryset(request)
            .annotate(points=Coalesce(Subquery(points, output_field=IntegerField()), Value(0)))
        )

    @admin.display(description=_("points"), ordering="points")
    def points(self, obj: Character) -> int:
        return obj.points  # type: ignore[attr-defined]

    def get_form(
        self,
        request: HttpRequest,
        obj: Character | None = None,
        change: bool = False,
        **kwargs: Any,
    ) -> type[forms.ModelForm[Any]]:
        form = super().get_form(request, obj, change, **kwargs)
        assert issubclass(form, CharacterAdminForm)  # made from ``form`` above
        form.request = request  # a fresh class per call, as in the inline
        return form

    def save_model(
        self, request: HttpRequest, obj: Character, form: forms.ModelForm, change: bool
    ) -> None:
        portrait_from_admin_form(obj, form)  # re-encoded, with its thumbnails
        if not change:
            super().save_model(request, obj, form, change)
            return
        # Condition fields go through sheet_master_edit (logged): save the rest with the old
        # condition values, then let the service write the new ones and their log lines.
        condition = {
            name: form.cleaned_data[name] for name in form.changed_data if name in CONDITION_FIELDS
        }
        for name in condition:
            setattr(obj, name, form.initial[name])
        super().save_model(request, obj, form, change)
        if condition:
            self._master_edit(request, obj, condition=condition)

    def save_formset(
        self, request: HttpRequest, form: forms.ModelForm, formset: Any, change: bool
    ) -> None:
        if formset.model is not TraitValue or not change:
            super().save_formset(request, form, formset, change)
            return
        allocation = {}
        for row in formset.forms:
            if row.has_changed():
                trait = row.instance.trait if row.instance.pk else row.cleaned_data["trait"]
                allocation[trait.slug] = row.cleaned_data["value"]
        # The admin's change message reads these after save_formset.
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        if allocation:
            self._master_edit(request, form.instance, allocation=allocation)

    def _master_edit(self, request: HttpRequest, character: Character, **changes: Any) -> None:
        try:
            logged = sheet_master_edit(
                character=character, master=request.user, reason=_admin_reason(), **changes
            )
        except ServiceError as exc:
            # The forms checked the role and the values; this is a race (e.g. the role was
            # removed meanwhile). Show it rather than fail the page.
            self.message_user(request, " ".join(exc.messages), messages.ERROR)
            return
        if logged:
            self.message_user(
                request,
                ngettext(
                    "%(count)d change logged on the sheet.",
                    "%(count)d changes logged on the sheet.",
                    len(logged),
                )
                % {"count": len(logged)},
                messages.INFO,
            )

    @admin.action(description=_("Approve selected sheets"))
    def approve_sheets(self, request: HttpRequest, queryset: QuerySet[Character]) -> None:
        approved = 0
        for character in queryset:
            try:
                sheet_review(character=character, master=request.user, approve=True)
            except ServiceError as exc:
                self.message_user(
                    request, f"{character.name}: {' '.join(exc.messages)}", messages.WARNING
                )
            else:
                approved += 1
        if approved:
            self.message_user(
                request,
                ngettext("%(count)d sheet approved.", "%(count)d sheets approved.", approved)
                % {"count": approved},
                messages.SUCCESS,
            )


# --- the rest ----------------------------------------------------------------------------------


@admin.register(Trait)
class TraitAdmin(CampaignScopedAdmin):
    # Which traits' rolls take the dirt penalty is the campaign's setting (its rules page).
    list_display = ["name", "slug", "campaign", "position"]
    list_editable = ["position"]
    list_filter = ["campaign"]
    list_select_related = ["campaign"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ("name",)}
    autocomplete_fields = ["campaign"]


@admin.register(ItemType)
class ItemTypeAdmin(CampaignScopedAdmin):
    list_display = [
        "name",
        "campaign",
        "kind",
        "unit",
        "kcal_per_unit",
        "litres_per_unit",
        "perishable",
        "weapon_kind",
        "caliber",
    ]
    list_filter = ["campaign", "kind", "weapon_kind", "perishable"]
    list_select_related = ["campaign"]
    search_fields = ["name"]
    autocomplete_fields = ["campaign"]


@admin.register(InventoryItem)
class InventoryItemAdmin(CampaignScopedAdmin):
    campaign_path = "character__campaign"
    list_display = ["character", "item_type", "quantity"]
    list_filter = ["item_type__kind", "character__campaign"]
    list_select_related = ["character", "item_type"]
    search_fields = ["character__name", "item_type__name"]
    autocomplete_fields = ["character", "item_type"]


class ReadOnlyAdmin(CampaignScopedAdmin):
    """A record: it can be looked at, never added, changed or deleted from the admin."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(SheetChange)
class SheetChangeAdmin(ReadOnlyAdmin):
    campaign_path = "character__campaign"
    list_display = ["changed_at", "character", "field", "old_value", "new_value", "changed_by"]
    list_filter = ["character__campaign"]
    list_select_related = ["character", "changed_by"]
    search_fields = ["character__name", "field", "reason"]


@admin.register(Roll)
class RollAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at",
        "campaign",
        "day",
        "character",
        "kind",
        "trait_name",
        "trait_value",
        "base_threshold",
        "effective_threshold",
        "dice",
        "successes",
        "success",
    ]
    list_filter = ["kind", "campaign", "success"]
    list_select_related = ["campaign", "character"]
    search_fields = ["character__name", "reason", "trait_name"]


# --- the world's tick: marked days, shelter stashes, diaries ----------------------------------


@admin.register(DayRecord)
class DayRecordAdmin(CampaignScopedAdmin):
    campaign_path = "character__campaign"
    # Showers and water: the master's page (personajes.days.day_record_save) takes the 20 L;
    # an edit here only records what happened.
    list_display = ["character", "day", "sleep_h", "could_not_urinate", "got_dirty", "showered"]
    list_filter = ["character__campaign"]
    list_select_related = ["character"]
    autocomplete_fields = ["character"]
    readonly_fields = ["marked_by", "updated_at"]


@admin.register(ShelterStash)
class ShelterStashAdmin(CampaignScopedAdmin):
    campaign_path = "shelter__settlement__campaign"
    list_display = ["shelter", "item_type", "quantity"]
    list_filter = ["shelter__settlement__campaign"]
    list_select_related = ["shelter", "item_type"]


@admin.register(DiaryEntry)
class DiaryEntryAdmin(ReadOnlyAdmin):
    campaign_path = "character__campaign"
    list_display = ["character", "day", "date", "kcal_eaten", "water_l", "sleep_h", "status"]
    list_filter = ["character__campaign", "status"]
    list_select_related = ["character"]
