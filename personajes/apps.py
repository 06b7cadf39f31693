from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PersonajesConfig(AppConfig):
    name = "personajes"
    verbose_name = _("Characters")
