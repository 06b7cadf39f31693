"""Admin of scenes: the master browses scenes and posts of the campaigns they master
(``mundo.admin_scope``); rolls and revisions are read-only."""

from __future__ import annotations

from django.contrib import admin

from escenas.models import (
    Draft,
    NotificationPreference,
    Post,
    PostRevision,
    PostRoll,
    RollRequest,
    Scene,
)
from mundo.admin_scope import CampaignScopedAdmin, ScopedTabularInline


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
        "idempotency_key", "created_at", "updated_at", "edited_at", "edited_after_roll",
    ]  # fmt: skip
    inlines = [PostRollInline, PostRevisionInline]


@admin.register(RollRequest)
class RollRequestAdmin(CampaignScopedAdmin):
    campaign_path = "scene__campaign"
    list_display = ["character", "trait", "base_threshold", "scene", "created_at", "fulfilled_at"]
    raw_id_fields = ["scene", "character", "fulfilled_roll", "requested_by"]


# A user's notification settings and drafts are theirs, not the campaign's: superusers only.
admin.site.register(NotificationPreference)
admin.site.register(Draft)
