"""Admin of scenes: the master browses scenes and posts of the campaigns they master
(``mundo.admin_scope``); rolls and revisions are read-only."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from escenas.models import (
    Draft,
    NonPlayerCharacter,
    NotificationPreference,
    Post,
    PostRevision,
    PostRoll,
    RollRequest,
    Scene,
)
from mundo.admin_scope import CampaignScopedAdmin, ScopedTabularInline
from personajes.portraits import clean_admin_portrait, portrait_from_admin_form


@admin.register(Scene)
class SceneAdmin(CampaignScopedAdmin):
    list_display = ["title", "campaign", "kind", "readers", "last_post_at"]
    list_filter = ["kind", "readers", "campaign"]
    search_fields = ["title"]
    filter_horizontal = ["participants"]
    raw_id_fields = ["diary_character"]


class PostRollInline(ScopedTabularInline):
    model = PostRoll
    extra = 0
    can_delete = False
    readonly_fields = ["roll", "hidden", "request", "position"]

    def has_add_permission(self, request, obj=None):
        return False  # rolls are made by the server inside posts, never by hand


class PostRevisionInline(ScopedTabularInline):
    model = PostRevision
    extra = 0
    can_delete = False
    readonly_fields = ["body", "note_to_master", "edited_by", "edited_at", "after_roll"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Post)
class PostAdmin(CampaignScopedAdmin):
    list_display = [
        "pk",
        "scene",
        "speaker_name",
        "voice",
        "created_at",
        "is_whisper",
        "deleted_at",
    ]
    list_filter = ["voice", "is_whisper", "campaign"]
    search_fields = ["body", "speaker_name"]
    raw_id_fields = ["scene", "author", "character", "deleted_by", "campaign"]
    # A post changes only through the pages (escenas.services.post_edit: a revision is kept and
    # the HTML re-rendered and sanitised); the admin reads it, and may delete it outright.
    readonly_fields = [
        "scene", "campaign", "author", "character", "voice", "speaker_name", "body", "body_html",
        "by_master", "note_to_master", "note_html", "is_whisper", "whisper_to", "day",
        "idempotency_key", "created_at", "updated_at", "edited_at", "edited_after_roll", "npc",
    ]  # fmt: skip
    inlines = [PostRollInline, PostRevisionInline]


class NpcAdminForm(forms.ModelForm):
    class Meta:
        model = NonPlayerCharacter
        fields = ["campaign", "name", "description", "portrait"]

    def clean_portrait(self) -> Any:
        return clean_admin_portrait(self)  # the characters' checks (2 MB, a real image)


@admin.register(NonPlayerCharacter)
class NonPlayerCharacterAdmin(CampaignScopedAdmin):
    """The master's NPCs (also on the master's page ``escenas:npcs``); an uploaded portrait is
    re-encoded with its thumbnails as on that page."""

    form = NpcAdminForm
    list_display = ["name", "campaign", "created_at"]
    list_filter = ["campaign"]
    search_fields = ["name"]

    def save_model(
        self, request: HttpRequest, obj: NonPlayerCharacter, form: Any, change: bool
    ) -> None:
        portrait_from_admin_form(obj, form)
        super().save_model(request, obj, form, change)


@admin.register(RollRequest)
class RollRequestAdmin(CampaignScopedAdmin):
    campaign_path = "scene__campaign"
    list_display = ["character", "trait", "base_threshold", "scene", "created_at", "fulfilled_at"]
    raw_id_fields = ["scene", "character", "fulfilled_roll", "requested_by"]


# A user's notification settings and drafts are theirs, not the campaign's: superusers only.
admin.site.register(NotificationPreference)
admin.site.register(Draft)
