"""``manage.py cargar_demo``: load the demo campaign, idempotently.

Running it twice changes nothing the second time: every object is found by a natural key
(username, campaign slug, settlement slug, item name, (campaign, player, character name)) and
updated in place. Characters are made through the services (creation, sheet, review), as a
player and the master would, only the first time: a second run leaves them as play left them.
"""

import datetime
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand
from django.db import transaction

from mundo.models import Campaign, Membership, Settlement
from mundo.selectors import settlement_status
from nucleo.errors import ServiceError
from partida import (
    demo_dice,
    demo_escenas,
    demo_inbox,
    demo_mundo,
    demo_places,
    demo_portraits,
    demo_readers,
)
from personajes.inventory import inventory_add
from personajes.models import Character, ItemType
from personajes.selectors import sheet_rows
from personajes.sheets import character_create, sheet_review, sheet_save
from personajes.traits import campaign_traits

DEMO_CAMPAIGN = "valle-gris"
# (username, password, role). Ordinary users, none staff nor superuser: the demo master uses
# the admin as any campaign's master may, scoped to the campaigns they master
# (partida.admin_site); the demo makes no account that can do more than play and master.
DEMO_USERS = [
    ("master", "partida-master", Membership.Role.MASTER),
    ("ana", "partida-ana", Membership.Role.PLAYER),
    ("bruno", "partida-bruno", Membership.Role.PLAYER),
    ("carla", "partida-carla", Membership.Role.PLAYER),
]
# The rulebook's campaign starts one week after the apocalypse, and today is that day 7: the
# demo is created on day 4 and demo_mundo plays days 4, 5 and 6, so that a newcomer finds
# three diary rows per character and the rulebook's figures (170 zombies, 30 survivors).
DEMO_DAY = 7

_K = ItemType.Kind
_W = ItemType.WeaponKind
# The item catalogue: name, kind, unit, kcal per unit, litres per unit, weapon kind, caliber
# (RULES.md R19's slugs, reglas/data/combat.json). Canned food and bars keep (perishable=False).
DEMO_ITEMS = [
    ("Lata de conservas", _K.FOOD, "lata", 400, 0, "", ""),
    ("Barrita energética", _K.FOOD, "barrita", 250, 0, "", ""),
    ("Botella de agua", _K.WATER, "botella de 1,5 L", 0, 1.5, "", ""),
    ("Rollo de papel higiénico", _K.TOILET_PAPER, "rollo", 0, 0, "", ""),
    ("Dosis de antibiótico", _K.MEDICINE, "dosis", 0, 0, "", ""),
    ("Cuchillo de cocina", _K.WEAPON, "unidad", 0, 0, _W.UTENSIL, ""),
    ("Bate de béisbol", _K.WEAPON, "unidad", 0, 0, _W.PSEUDO_WEAPON, ""),
    ("Machete", _K.WEAPON, "unidad", 0, 0, _W.HEAVY_BLADE, ""),
    ("Pistola 9 mm", _K.WEAPON, "unidad", 0, 0, _W.FIREARM_ONE_HANDED, "9mm"),
    ("Escopeta", _K.WEAPON, "unidad", 0, 0, _W.FIREARM_TWO_HANDED, "12g"),
]
# One character per demo player: (player, name, concept, 10 points (R5), status, items).
DEMO_CHARACTERS = [
    (
        "ana",
        "Lucía Ferrer",
        "Bombera de Villarejo. Fuerte, terca y acostumbrada a entrar donde otros salen.",
        {"fuerza": 3, "resistencia": 2, "pelea": 2, "armas_cac": 3},
        Character.Status.APPROVED,
        [("Machete", 1), ("Lata de conservas", 3), ("Botella de agua", 2)],
    ),
    (
        "bruno",
        "Tomás Vidal",
        "Cazador de Robledo. Habla poco, ve lejos y no falla dos veces.",
        {"percepcion": 2, "sigilo": 3, "armas_distancia": 3, "supervivencia": 2},
        Character.Status.APPROVED,
        [
            ("Escopeta", 1),
            ("Barrita energética", 4),
            ("Lata de conservas", 8),
            ("Botella de agua", 1),
            ("Rollo de papel higiénico", 1),
        ],
    ),
    (
        "carla",
        "Elena Soto",
        "Enfermera del centro de salud; salió con lo que cabía en la mochila.",
        {"medicina": 4, "agilidad": 2, "percepcion": 2, "resistencia": 2},
        Character.Status.SUBMITTED,  # waiting for the master's approval
        [
            ("Dosis de antibiótico", 3),
            ("Cuchillo de cocina", 1),
            ("Lata de conservas", 5),
            ("Botella de agua", 4),
        ],
    ),
]


def load_characters(campaign: Campaign, users: dict[str, User], master: User) -> list[Character]:
    """The campaign's traits, item catalogue and demo characters (idempotent).

    A character is found by (campaign, player, name); only a missing one is created, through
    the services, with its items. Returns the demo characters.
    """
    campaign_traits(campaign=campaign)
    items = {}
    for name, kind, unit, kcal, litres, weapon_kind, caliber in DEMO_ITEMS:
        items[name], _ = ItemType.objects.update_or_create(
            campaign=campaign,
            name=name,
            defaults={
                "kind": kind,
                "unit": unit,
                "kcal_per_unit": kcal,
                "litres_per_unit": litres,
                "perishable": False,
                "weapon_kind": weapon_kind,
                "caliber": caliber,
            },
        )
    characters = []
    for username, name, concept, points, status, inventory in DEMO_CHARACTERS:
        player = users[username]
        character = Character.objects.filter(campaign=campaign, player=player, name=name).first()
        if character is None:
            character = character_create(
                campaign=campaign, player=player, name=name, concept=concept
            )
            character = sheet_save(character=character, user=player, allocation=points, submit=True)
            if status == Character.Status.APPROVED:
                character = sheet_review(character=character, master=master, approve=True)
            for item_name, quantity in inventory:
                inventory_add(
                    character=character,
                    item_type=items[item_name],
                    quantity=quantity,
                    user=master,
                )
        characters.append(character)
    return characters


def load_users() -> dict[str, User]:
    """The demo users of DEMO_USERS by username, made or brought back to their demo state.

    A missing user is created; an existing one gets its demo password back only when it no
    longer matches (so a second run does not rehash it), and loses any staff or superuser
    flag (an older demo made the master a superuser).
    """
    user_model = get_user_model()
    users = {}
    for username, password, _role in DEMO_USERS:
        user, created = user_model.objects.get_or_create(
            username=username, defaults={"email": f"{username}@partida.invalid"}
        )
        if created or not user.check_password(password):
            user.set_password(password)
        user.is_staff = user.is_superuser = False
        user.save()
        # The demo's addresses are taken as verified: sign-in by password works at once.
        EmailAddress.objects.update_or_create(
            user=user, email=user.email, defaults={"verified": True, "primary": True}
        )
        users[username] = user
    return users


def load_campaign(users: dict[str, User]) -> Campaign:
    """The demo campaign (slug DEMO_CAMPAIGN) with every demo user a member in their role.

    Its name, description, time zone and visibility are set on every run; its calendar only
    when it is created, so that today is day 7 as in the rulebook's example: the apocalypse
    DEMO_DAY days ago and the current day set back by the days demo_mundo plays. A later run
    keeps the calendar (days already played are not rewound).
    """
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
            "current_day": DEMO_DAY - demo_mundo.DAYS_PLAYED,
        },
    )
    for username, _password, role in DEMO_USERS:
        Membership.objects.update_or_create(
            campaign=campaign, user=users[username], defaults={"role": role}
        )
    return campaign


def load_settlements(campaign: Campaign) -> None:
    """The rulebook's two places, found by slug and updated in place.

    Villarejo: 200 inhabitants on 160 000 m² (170 zombies and 30 survivors on day 7, R17);
    Robledo: 173 inhabitants on a 100 × 100 m town (150 zombies on day 7, R18's example, K = 173).
    Source: RULES.md R17, R18.
    """
    for slug, name, population, area in [
        ("villarejo", "Villarejo", 200, 160_000.0),
        ("robledo", "Robledo", 173, 10_000.0),
    ]:
        Settlement.objects.update_or_create(
            campaign=campaign,
            slug=slug,
            defaults={"name": name, "population": population, "area_m2": area},
        )


class Command(BaseCommand):
    help = "Carga la partida de demostración (se puede ejecutar varias veces sin duplicar nada)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--url",
            default="",
            help="La dirección donde se sirve la demo (make demo la pasa), impresa al final.",
        )

    def handle(self, *args: object, **options: Any) -> None:
        """Load everything in one transaction (idempotent), then, once its after-commit work
        (the e-mails, the diary posts) has run, print what was set up, the URL (``--url``)
        and, last, the logins: the lines a newcomer needs are the last on the screen."""
        with transaction.atomic():
            campaign, characters = self._load()
        self._write_summary(campaign, characters)
        if options.get("url"):
            self.stdout.write("")
            self.stdout.write(
                self.style.SUCCESS(f"La demo se sirve en {options['url']}  (Ctrl-C la detiene)")
            )
            self.stdout.write(f"  Los correos se guardan en {mail_destination()}")
        self._write_logins()

    def _load(self) -> tuple[Campaign, list[Character]]:
        users = load_users()
        campaign = load_campaign(users)
        load_settlements(campaign)
        try:
            characters = load_characters(campaign, users, users["master"])
        except ServiceError as exc:
            # E.g. a demo player already made another living character by hand.
            self.stderr.write(f"Personajes de demostración no cargados: {' '.join(exc.messages)}")
            characters = []
        demo_portraits.load(characters, self.stdout)
        # The world (places, shelters, stashes) and the three days already played: after the
        # characters, so that they are housed and their diaries have rows.
        demo_mundo.load(campaign, self.stdout)
        demo_places.load(campaign, self.stdout)  # a move with a route check, stock moved
        # The scenes after everything else: their posts are written by the approved characters.
        demo_escenas.load(campaign, self.stdout)
        demo_readers.load(campaign, self.stdout)  # an English reader in Mexico, a follower
        demo_inbox.load(campaign, self.stdout)  # «Mi mesa»: ana's roll request, what it shows
        # Last, so the closed dice period holds every roll above (partida.demo_dice).
        demo_dice.load(campaign, self.stdout)
        campaign.refresh_from_db()
        return campaign, characters

    def _write_summary(self, campaign: Campaign, characters: list[Character]) -> None:
        """Print the campaign's day, each place's zombies, survivors and chance per cell
        (Spanish decimal comma) and each character's non-zero traits."""
        self.stdout.write(self.style.SUCCESS(f"Partida de demostración: {campaign.name}"))
        self.stdout.write(f"  Día {campaign.current_day} ({campaign.current_date.isoformat()})")
        for settlement in campaign.settlements.all():
            status = settlement_status(settlement, campaign.current_day)
            p_cell = f"{status.p_cell_percent:.2f}".replace(".", ",")  # Spanish decimal comma
            self.stdout.write(
                f"  {settlement.name}: {status.zombies} zombis, {status.survivors} "
                f"supervivientes, {p_cell} % por casilla"
            )
        self.stdout.write("Personajes:")
        for character in characters:
            build = ", ".join(f"{r.trait.name} {r.value}" for r in sheet_rows(character) if r.value)
            self.stdout.write(
                f"  {character.name} ({character.player.username}, "
                f"{character.get_status_display()}): {build}"
            )

    def _write_logins(self) -> None:
        """The demo logins, last."""
        self.stdout.write("Usuarios (usuario / contraseña):")
        for username, password, role in DEMO_USERS:
            self.stdout.write(f"  {username} / {password}  ({Membership.Role(role).label})")


def mail_destination() -> str:
    """Where the demo's e-mails go: the file back end's folder, or the back end's path."""
    mailer = settings.MAILERS["default"]
    options: Any = mailer.get("OPTIONS", {})
    return str(options.get("file_path") or mailer["BACKEND"])
