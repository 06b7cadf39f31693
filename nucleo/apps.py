from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NucleoConfig(AppConfig):
    name = "nucleo"
    verbose_name = _("Kernel")
