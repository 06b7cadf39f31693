from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MundoConfig(AppConfig):
    name = "mundo"
    verbose_name = _("World")
