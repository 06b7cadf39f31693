from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EscenasConfig(AppConfig):
    name = "escenas"
    verbose_name = _("Scenes")
