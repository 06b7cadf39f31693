from django.apps import AppConfig


class PartidaConfig(AppConfig):
    name = "partida"
    verbose_name = "Partida"
