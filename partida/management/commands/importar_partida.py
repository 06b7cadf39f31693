"""``manage.py importar_partida FILE [--slug NEW]``: restore an ``exportar_partida`` archive.

New ids everywhere; users matched by e-mail or created inactive (``partida.archive``).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from nucleo.errors import ServiceError
from partida.archive import campaign_import


class Command(BaseCommand):
    help = "Importa una partida exportada con exportar_partida (ids nuevos, usuarios por e-mail)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archivo", help="el zip de exportar_partida")
        parser.add_argument("--slug", help="otro slug para la partida importada")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["archivo"])
        if not path.is_file():
            raise CommandError(f"No existe el fichero «{path}».")
        try:
            with path.open("rb") as data:
                result = campaign_import(data, slug=options["slug"])
        except ServiceError as error:
            raise CommandError(" ".join(error.messages)) from error
        except (zipfile.BadZipFile, KeyError, ValueError) as error:  # a damaged archive
            raise CommandError(f"No es un archivo de partida: {error}") from error
        rows = sum(result.rows.values())
        self.stdout.write(
            f"Partida «{result.campaign.slug}» importada: {rows} filas, "
            f"{result.users_created} usuarios nuevos (inactivos)"
        )
