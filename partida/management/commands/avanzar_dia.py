"""``manage.py avanzar_dia (--partida SLUG_OR_ID [--dia N] | --todas) [--ventana S]``: advance
campaigns by one day.

For operators and scripts: the same guarded service as the master's button and the schedule
(``partida.tick.advance_day``, exactly once per (campaign, day) under the campaign lock). The
button knows the day the master saw, and beat the slot it runs for; a command knows neither, and
two runs started together (a cron and a hand, two terminals) used to advance two days when the
second read the day after the first had finished. So:

- ``--dia N``: the day to close, as the button sends it: any number of runs with the same N
  advance once (a run that finds the campaign past N reports the tick that moved it);
- otherwise, a campaign whose last tick is under ``--ventana`` seconds old (default 60) is not
  advanced again: the run reports that tick (``--ventana 0`` turns the guard off).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from mundo.models import Campaign, DayTick
from nucleo.errors import ServiceError
from partida.tick import advance_day

DEFAULT_WINDOW_S = 60


class Command(BaseCommand):
    help = "Avanza un día la partida indicada, o todas (el mismo servicio que el botón del máster)."

    def add_arguments(self, parser: CommandParser) -> None:
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--partida", help="slug o id de la partida")
        target.add_argument("--todas", action="store_true", help="todas las partidas")
        parser.add_argument(
            "--dia",
            type=int,
            help="el día que se cierra (con --partida): repetir la orden con el mismo día no "
            "avanza otro",
        )
        parser.add_argument(
            "--ventana",
            type=int,
            default=DEFAULT_WINDOW_S,
            help="no avanzar una partida que avanzó hace menos de estos segundos (0: avanzar "
            f"siempre; por defecto {DEFAULT_WINDOW_S})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        # Taken first: a tick recorded after this moment minus the window is this run's too.
        started = timezone.now()
        if options["dia"] is not None and options["todas"]:
            raise CommandError("--dia va con --partida, no con --todas.")
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
        window = max(0, options["ventana"])
        since = started - datetime.timedelta(seconds=window) if window else None
        failed = 0
        for campaign in campaigns:
            try:
                result = advance_day(
                    campaign,
                    expected_day=options["dia"],
                    trigger=DayTick.Trigger.COMMAND,
                    unless_ticked_since=None if options["dia"] is not None else since,
                )
            except ServiceError as exc:
                failed += 1
                self.stderr.write(f"{campaign.slug}: {' '.join(exc.messages)}")
                continue
            if result.advanced:
                self.stdout.write(f"{campaign.slug}: día {result.day}. {result.message}")
            else:
                self.stdout.write(
                    f"{campaign.slug}: ya había avanzado al día {result.day}; no se avanza otro."
                )
        if failed:
            raise CommandError(f"{failed} partida(s) no avanzaron.")
