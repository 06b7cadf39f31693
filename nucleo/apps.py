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
        from django.db.backends.signals import connection_created

        connection_created.connect(_sqlite_functions, dispatch_uid="nucleo-sqlite-functions")
