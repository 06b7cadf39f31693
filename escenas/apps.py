from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EscenasConfig(AppConfig):
    name = "escenas"
    verbose_name = _("Scenes")

    def ready(self) -> None:
        # The sheet workflow's events (personajes sits below escenas and cannot call it).
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from escenas import fragments, sheet_notices
        from personajes import signals
        from personajes.models import Character

        signals.sheet_submitted.connect(
            sheet_notices.on_sheet_submitted, dispatch_uid="sheet-submitted"
        )
        signals.sheet_reviewed.connect(
            sheet_notices.on_sheet_reviewed, dispatch_uid="sheet-reviewed"
        )
        from escenas.models import Draft, NonPlayerCharacter, SceneRead
        from nucleo import table_writes

        # Read markers and drafts: a page shows only its viewer's, so one user's write keeps
        # the others' kept pages (escenas.viewer_pages).
        for owned in (SceneRead, Draft):
            table_writes.per_user(owned._meta.db_table, owned._meta.get_field("user").column)

        # Post fragments show character and NPC names and portraits, and usernames: a rename
        # or a new portrait changes every key.
        for model in (Character, get_user_model(), NonPlayerCharacter):
            post_save.connect(
                fragments.names_changed, sender=model, dispatch_uid=f"names-{model.__name__}"
            )
