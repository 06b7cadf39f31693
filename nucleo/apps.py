from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def _sqlite_functions(sender: object, connection: object, **kwargs: object) -> None:
    """Give every SQLite connection ``partida_fold(text)`` (``nucleo.text.fold``), which the
    post search uses where PostgreSQL would use ``unaccent`` and full-text search."""
    from nucleo.text import fold

    if getattr(connection, "vendor", "") == "sqlite":
        connection.connection.create_function(  # type: ignore[attr-defined]
            "partida_fold", 1, lambda v: fold(v) if v is not None else None, deterministic=True
        )


class NucleoConfig(AppConfig):
    name = "nucleo"
    verbose_name = _("Kernel")

    def ready(self) -> None:
        # Django 6.1's blank choice of a select ("- Select an option -") has no Spanish in
        # Django's own catalogue; this is the hook Django documents for it (the module
        # attribute ``get_blank_choice_label`` reads), with a label of ours in our catalogue.
        from django.db.models import fields

        fields.BLANK_CHOICE_LABEL = _("— choose —")
        from django.db.backends.signals import connection_created

        connection_created.connect(_sqlite_functions, dispatch_uid="nucleo-sqlite-functions")
        # Every statement's tables: the write generations cached pages are checked against.
        from nucleo import table_writes

        connection_created.connect(table_writes.install, dispatch_uid="nucleo-table-writes")
        from nucleo import checks  # noqa: F401  (registers the system checks)
