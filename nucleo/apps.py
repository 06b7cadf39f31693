from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NucleoConfig(AppConfig):
    name = "nucleo"
    verbose_name = _("Kernel")

    def ready(self) -> None:
        # Django 6.1's blank choice of a select ("- Select an option -") has no Spanish in
        # Django's own catalogue; this is the hook Django documents for it (the module
        # attribute ``get_blank_choice_label`` reads), with a label of ours in our catalogue.
        from django.db.models import fields

        fields.BLANK_CHOICE_LABEL = _("— choose —")
