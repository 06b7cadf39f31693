from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EscenasConfig(AppConfig):
    name = "escenas"
    verbose_name = _("Scenes")

    def ready(self) -> None:
        # The sheet workflow's events (personajes sits below escenas and cannot call it).
        from escenas import sheet_notices
        from personajes import signals

        signals.sheet_submitted.connect(
            sheet_notices.on_sheet_submitted, dispatch_uid="sheet-submitted"
        )
        signals.sheet_reviewed.connect(
            sheet_notices.on_sheet_reviewed, dispatch_uid="sheet-reviewed"
        )
