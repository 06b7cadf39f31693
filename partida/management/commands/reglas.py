"""``manage.py reglas …``: the master's calculator, the same as ``python -m reglas …``."""

import sys

from django.core.management.base import BaseCommand

from reglas import cli


class Command(BaseCommand):
    help = "La calculadora del máster (python -m reglas): tiradas, población, encuentros…"

    def run_from_argv(self, argv: list[str]) -> None:
        # The calculator has its own parser (subcommands, --json, --seed, --veces); Django's
        # parser would reject its options, so hand it everything after "reglas".
        sys.exit(cli.main(argv[2:], prog="manage.py reglas"))
