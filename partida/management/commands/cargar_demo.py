"""``manage.py cargar_demo``: load the demo campaign, idempotently.

Running it twice changes nothing the second time: every object is found by a natural key
(username, campaign slug, settlement slug) and updated in place.
"""

import datetime

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from mundo.models import Campaign, Membership, Settlement
from mundo.selectors import settlement_status

DEMO_CAMPAIGN = "valle-gris"
# (username, password, role, is_staff)
DEMO_USERS = [
    ("master", "partida-master", Membership.Role.MASTER, True),
    ("ana", "partida-ana", Membership.Role.PLAYER, False),
    ("bruno", "partida-bruno", Membership.Role.PLAYER, False),
]
DEMO_DAY = 7  # the rulebook's campaign starts one week after the apocalypse


class Command(BaseCommand):
    help = "Carga la partida de demostración (se puede ejecutar varias veces sin duplicar nada)."

    @transaction.atomic
    def handle(self, *args: object, **options: object) -> None:
        user_model = get_user_model()
        users = {}
        for username, password, _role, is_staff in DEMO_USERS:
            user, created = user_model.objects.get_or_create(
                username=username, defaults={"email": f"{username}@partida.invalid"}
            )
            if created or not user.check_password(password):
                user.set_password(password)
            user.is_staff = is_staff
            user.is_superuser = is_staff  # the demo master runs the world from the admin
            user.save()
            users[username] = user

        # Created on day 7, today: the apocalypse began a week ago, as in the rulebook's
        # example. A later run keeps the calendar (days already played are not rewound).
        details = {
            "name": "El Valle Gris",
            "description": (
                "Una semana después del apocalipsis, los supervivientes de Villarejo y "
                "Robledo intentan resistir. Partida de demostración construida con los "
                "ejemplos del reglamento."
            ),
            "time_zone": "Europe/Madrid",
            "is_public": True,
        }
        campaign, _ = Campaign.objects.update_or_create(
            slug=DEMO_CAMPAIGN,
            defaults=details,
            create_defaults={
                **details,
                "apocalypse_date": datetime.date.today() - datetime.timedelta(days=DEMO_DAY),
                "current_day": DEMO_DAY,
            },
        )
        for username, _password, role, _staff in DEMO_USERS:
            Membership.objects.update_or_create(
                campaign=campaign, user=users[username], defaults={"role": role}
            )

        # The rulebook's places: a village of 200 inhabitants (170 zombies and 30 survivors on
        # day 7, R17) and a 100 × 100 m town with 150 zombies on day 7 (R18's example; K = 173).
        for slug, name, population, area in [
            ("villarejo", "Villarejo", 200, 160_000.0),
            ("robledo", "Robledo", 173, 10_000.0),
        ]:
            Settlement.objects.update_or_create(
                campaign=campaign,
                slug=slug,
                defaults={"name": name, "population": population, "area_m2": area},
            )

        self.stdout.write(self.style.SUCCESS(f"Partida de demostración: {campaign.name}"))
        self.stdout.write(f"  Día {campaign.current_day} ({campaign.current_date.isoformat()})")
        for settlement in campaign.settlements.all():
            status = settlement_status(settlement, campaign.current_day)
            p_cell = f"{status.p_cell_percent:.2f}".replace(".", ",")  # Spanish decimal comma
            self.stdout.write(
                f"  {settlement.name}: {status.zombies} zombis, {status.survivors} "
                f"supervivientes, {p_cell} % por casilla"
            )
        self.stdout.write("Usuarios (usuario / contraseña):")
        for username, password, role, _staff in DEMO_USERS:
            self.stdout.write(f"  {username} / {password}  ({Membership.Role(role).label})")
