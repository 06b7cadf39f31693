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
        # Post fragments show character names and usernames: a rename changes every key.
        for model in (Character, get_user_model()):
            post_save.connect(
                fragments.names_changed, sender=model, dispatch_uid=f"names-{model.__name__}"
            )
