from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MundoConfig(AppConfig):
    name = "mundo"
    verbose_name = _("World")

    def ready(self) -> None:
        # Connects the signal that publishes a new campaign's first dice period.
        from mundo import periods  # noqa: F401
