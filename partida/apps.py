from django.apps import AppConfig


class PartidaConfig(AppConfig):
    name = "partida"
    verbose_name = "Partida"

    def ready(self) -> None:
        from partida import signals  # noqa: F401 — a password change revokes API tokens
