"""``manage.py avanzar_dia (--partida SLUG_OR_ID | --todas)``: advance campaigns by one day.

For operators and scripts: the same service as the master's button and the schedule
(``partida.tick.advance_day``), so a day is still advanced once however it is called.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from mundo.models import Campaign, DayTick
from nucleo.errors import ServiceError
from partida.tick import advance_day


class Command(BaseCommand):
    help = "Avanza un día la partida indicada, o todas (el mismo servicio que el botón del máster)."

    def add_arguments(self, parser: CommandParser) -> None:
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--partida", help="slug o id de la partida")
        target.add_argument("--todas", action="store_true", help="todas las partidas")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["todas"]:
            campaigns = list(Campaign.objects.order_by("id"))
        else:
            key = options["partida"]
            query = Campaign.objects.filter(slug=key)
            if key.isdigit():
                query = Campaign.objects.filter(pk=int(key)) | query
            campaigns = list(query)
            if not campaigns:
                raise CommandError(f"No existe la partida «{key}».")
        failed = 0
        for campaign in campaigns:
            try:
                result = advance_day(campaign, trigger=DayTick.Trigger.COMMAND)
            except ServiceError as exc:
                failed += 1
                self.stderr.write(f"{campaign.slug}: {' '.join(exc.messages)}")
                continue
            self.stdout.write(f"{campaign.slug}: día {result.day}. {result.message}")
        if failed:
            raise CommandError(f"{failed} partida(s) no avanzaron.")
