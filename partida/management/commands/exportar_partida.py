"""``manage.py exportar_partida SLUG [-o FILE]``: the whole campaign as one zip archive.

Rows, files and users as ``partida.archive.campaign_export`` writes them; restore with
``importar_partida``.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from mundo.models import Campaign
from partida.archive import campaign_export


class Command(BaseCommand):
    help = "Exporta una partida entera (filas, ficheros y usuarios) a un archivo zip."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="slug de la partida")
        parser.add_argument(
            "-o", "--output", help="fichero zip (por defecto partida-SLUG-FECHA.zip)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = Campaign.objects.filter(slug=options["slug"]).first()
        if campaign is None:
            raise CommandError(f"No existe la partida «{options['slug']}».")
        today = datetime.date.today().isoformat()
        path = Path(options["output"] or f"partida-{campaign.slug}-{today}.zip")
        with path.open("wb") as out:
            result = campaign_export(campaign, out)
        rows = sum(result.rows.values())
        self.stdout.write(f"{path}: {rows} filas, {len(set(result.files))} ficheros")
