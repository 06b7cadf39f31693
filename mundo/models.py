"""The world: campaigns, their members and their settlements.

Source: RULES.md R17 (settlement population), R18 (cells), DESIGN.md (Time, Randomness).
"""

from __future__ import annotations

import datetime
import json
import secrets
import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from mundo.period_models import EntropyPeriod as EntropyPeriod
from mundo.period_models import new_dice_seed
from mundo.rule_models import Arrival as Arrival
from mundo.rule_models import RuleChange as RuleChange
from mundo.rule_models import validate_rule_overrides, validate_rule_tables
from mundo.world_roll_models import DayTick as DayTick
from mundo.world_roll_models import WorldRoll as WorldRoll
from nucleo import bounds
from reglas.settings import RuleSettings
from reglas.supplies import SHOP_TYPES
from reglas.tables import Tables


def new_invitation_token() -> str:
    """A URL-safe, unguessable invitation token (32 characters)."""
    return secrets.token_urlsafe(24)


def new_entropy() -> str:
    """A fresh 128-bit dice secret as 32 hex digits (one per period, made with ``secrets``)."""
    return secrets.token_hex(16)


def validate_time_zone(value: str) -> None:
    """Raise ValidationError unless ``value`` is an IANA time zone name (``Europe/Madrid``)."""
    if value not in zoneinfo.available_timezones():
        raise ValidationError(_("“%(value)s” is not a known time zone."), params={"value": value})


_RULES_ATTR = "_rules_made_from"
"""Where ``Campaign.rules`` keeps its settings and the overrides' JSON they were made from."""


RESERVED_CAMPAIGN_SLUGS = frozenset({"nueva"})
"""Slugs a campaign may not take: ``partidas/<slug>/`` would be another page's address
(``partidas/nueva/``, the new-campaign form, is routed ahead of the campaign page)."""


def validate_campaign_slug(value: str) -> None:
    """Refuses a reserved slug (``RESERVED_CAMPAIGN_SLUGS``). Raises ``ValidationError``
    (code ``reserved``)."""
    if value in RESERVED_CAMPAIGN_SLUGS:
        raise ValidationError(
            _("“%(slug)s” is the address of another page: choose another slug."),
            code="reserved",
            params={"slug": value},
        )


class Campaign(models.Model):
    """A play-by-web campaign: its calendar, its rule settings and its secret entropy.

    In-game day 0 is the apocalypse; ``current_day`` maps to the date
    ``apocalypse_date + current_day``.
    """

    name = models.CharField(_("name"), max_length=120)
    slug = models.SlugField(
        _("slug"), max_length=120, unique=True, validators=[validate_campaign_slug]
    )
    description = models.TextField(_("description"), blank=True)
    apocalypse_date = models.DateField(
        _("apocalypse date"),
        help_text=_("The calendar date of day 0."),
        validators=bounds.date_validators(),
    )
    current_day = models.PositiveIntegerField(
        _("current day"),
        default=0,
        help_text=_("Days since the apocalypse."),
        validators=bounds.day_validators(),
    )
    time_zone = models.CharField(
        _("time zone"), max_length=64, default="Europe/Madrid", validators=[validate_time_zone]
    )
    is_public = models.BooleanField(
        _("public"),
        default=False,
        help_text=_("Anyone may read a public campaign's pages without signing in."),
    )
    rule_overrides = models.JSONField(
        _("rule settings"),
        default=dict,
        blank=True,
        validators=[validate_rule_overrides],
        help_text=_('Only the numbers that differ from RULES.md, e.g. {"trait_cap": 5}.'),
    )
    rule_tables = models.JSONField(
        _("rule tables"),
        default=dict,
        blank=True,
        validators=[validate_rule_tables],
        help_text=_("Only the tables the master edited, whole, by name (weather, combat…)."),
    )
    # The open dice period's secret (``mundo.periods``): public only as its commitment.
    entropy = models.CharField(
        _("secret entropy"), max_length=64, default=new_entropy, editable=False
    )
    period_days = models.PositiveSmallIntegerField(
        _("dice period (days)"),
        default=30,
        validators=[MinValueValidator(1), bounds.max_validator(3650)],
        help_text=_("In-game days after which the dice period closes and its secret is revealed."),
    )
    # The open period's number and first day: the ledger and the tick read them query-free.
    entropy_period = models.PositiveIntegerField(default=1, editable=False)
    entropy_period_start = models.PositiveIntegerField(default=0, editable=False)
    living_characters_per_player = models.PositiveSmallIntegerField(
        _("living characters per player"),
        default=1,
        validators=[MinValueValidator(1), bounds.max_validator(100)],
        help_text=_("How many living characters a player may have at once in this campaign."),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Schedule(models.TextChoices):
        DAILY = "daily", _("every real day at the tick time")
        MANUAL = "manual", _("only when the master advances it")

    # The daily tick's schedule (DESIGN.md, Time). "Due" is computed from the local wall-clock
    # time in ``time_zone`` (mundo.schedule), so 06:00 stays 06:00 across daylight saving.
    schedule = models.CharField(
        _("schedule"), max_length=10, choices=Schedule.choices, default=Schedule.DAILY
    )
    tick_time = models.TimeField(
        _("tick time"),
        default=datetime.time(6, 0),
        help_text=_("Local time (in the campaign's time zone) at which the day advances."),
    )
    last_scheduled_run = models.DateTimeField(
        _("last scheduled run"),
        null=True,
        blank=True,
        help_text=_("The scheduled time the day last advanced for (empty: never)."),
    )

    class Meta:
        verbose_name = _("campaign")
        verbose_name_plural = _("campaigns")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("mundo:campaign", kwargs={"slug": self.slug})

    @property
    def current_date(self) -> datetime.date:
        """The calendar date of the current in-game day (never raises: ``nucleo.bounds``)."""
        return bounds.day_date(self.apocalypse_date, self.current_day)

    @property
    def rules(self) -> RuleSettings:
        """The campaign's rule settings: RULES.md defaults with its overrides applied.

        Kept on the instance beside the overrides it was made from (their JSON text), since a
        page asks for it once per row (the campaign page's settlements: 0.35 ms each, issue 14);
        overrides changed in any way (a new dict, a key set inside it) make a new one. The
        settings are frozen, so sharing them is safe. Raises what ``RuleSettings.from_dict``
        raises for invalid overrides (nothing is kept then)."""
        made_from = json.dumps(self.rule_overrides, sort_keys=True, default=str)
        kept = self.__dict__.get(_RULES_ATTR)
        if kept is None or kept[0] != made_from:
            kept = (made_from, RuleSettings.from_dict(self.rule_overrides))
            self.__dict__[_RULES_ATTR] = kept
        return kept[1]

    @property
    def tables(self) -> Tables:
        """The campaign's tables: the defaults, its edited tables, the scalars of ``rules``."""
        return Tables.from_overrides(self.rule_tables, self.rules)

    @property
    def entropy_int(self) -> int:
        """The secret entropy as an integer, for ``reglas.core.make_rng``."""
        return int(self.entropy, 16)


class Membership(models.Model):
    """A user's role in a campaign: master or player."""

    class Role(models.TextChoices):
        MASTER = "master", _("master")
        PLAYER = "player", _("player")

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("campaign")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="memberships",
        verbose_name=_("user"),
    )
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.PLAYER)
    dice_seed = models.CharField(
        _("dice seed"),
        max_length=64,
        default=new_dice_seed,
        help_text=_("Mixed into every roll made from your posts; only its hash is published."),
    )
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="membership_unique_user")
        ]

    def __str__(self) -> str:
        return f"{self.user} — {self.campaign} ({self.get_role_display()})"


class Settlement(models.Model):
    """A settlement whose zombie population follows the logistic curve of R17.

    ``population`` is K (pre-apocalypse inhabitants), ``area_m2`` its populated area in m²,
    ``growth_rate`` r per day. Source: RULES.md R17, R18.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="settlements", verbose_name=_("campaign")
    )
    name = models.CharField(_("name"), max_length=120)
    slug = models.SlugField(_("slug"), max_length=120)
    population = models.PositiveIntegerField(
        _("pre-apocalypse population (K)"),
        validators=[
            MinValueValidator(1, message=_("The population (K) must be at least 1 inhabitant.")),
            bounds.max_validator(bounds.COUNT_MAX),
        ],
    )
    area_m2 = models.FloatField(
        _("area (m²)"),
        validators=[
            MinValueValidator(4.0, message=_("The area must be at least one 2 × 2 m cell (4 m²).")),
            bounds.max_validator(bounds.AREA_M2_MAX),
        ],
        help_text=_("Populated area; cells of 2 × 2 m = area / 4."),
    )
    growth_rate = models.FloatField(
        _("growth rate (r)"),
        default=1.0,
        validators=[
            MinValueValidator(0.001, message=_("The growth rate r must be above 0.")),
            bounds.max_validator(bounds.GROWTH_RATE_MAX),
        ],
    )
    # R17: the master's running tally, applied on top of the curve (never below 0).
    zombies_destroyed = models.PositiveIntegerField(
        _("zombies destroyed"), default=0, validators=bounds.count_validators()
    )
    survivors_rescued = models.PositiveIntegerField(
        _("survivors rescued"), default=0, validators=bounds.count_validators()
    )
    characters_risen = models.PositiveIntegerField(
        _("characters risen"),
        default=0,
        help_text=_("Characters who rose as zombies here."),
        validators=bounds.count_validators(),
    )
    # R16 / R11: the campaign's regional grid and weather unless the settlement has its own.
    own_grid = models.BooleanField(
        _("own power and water grid"),
        default=False,
        help_text=_("Otherwise it shares the campaign's regional grid."),
    )
    own_climate = models.BooleanField(
        _("own climate"),
        default=False,
        help_text=_("Roll its own weather each day instead of the campaign's."),
    )

    class Meta:
        verbose_name = _("settlement")
        verbose_name_plural = _("settlements")
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "slug"], name="settlement_unique_slug"),
            models.CheckConstraint(
                condition=models.Q(population__gte=1), name="settlement_population_positive"
            ),
            models.CheckConstraint(
                condition=models.Q(area_m2__gte=4), name="settlement_area_at_least_one_cell"
            ),
            models.CheckConstraint(
                condition=models.Q(growth_rate__gt=0), name="settlement_growth_rate_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse(
            "mundo:settlement", kwargs={"slug": self.campaign.slug, "settlement": self.slug}
        )


class Invitation(models.Model):
    """A link the master shares so that someone joins the campaign as a player.

    Single use (consumed by the first person who accepts it) or reusable until it expires;
    the master may revoke it at any time.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("campaign")
    )
    token = models.CharField(
        _("token"), max_length=64, unique=True, default=new_invitation_token, editable=False
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"), null=True, blank=True)
    single_use = models.BooleanField(_("single use"), default=True)
    uses = models.PositiveIntegerField(_("uses"), default=0)
    revoked = models.BooleanField(_("revoked"), default=False)

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.campaign} · {self.token[:8]}…"

    def get_absolute_url(self) -> str:
        return reverse("mundo:invitation", kwargs={"token": self.token})


# --- places (R7, R22, R23) ---------------------------------------------------------------------

SHOP_TYPE_CHOICES = [
    ("supermercado", _("supermarket")),
    ("comercio_alimenticio", _("food shop")),
    ("tienda", _("shop")),
    ("gasolinera", _("petrol station")),
    ("farmacia", _("pharmacy")),
]
# The choices must follow the engine's table (RULES.md R23); a test checks they agree.
assert [c for c, _label in SHOP_TYPE_CHOICES] == list(SHOP_TYPES)


class Location(models.Model):
    """A place in a settlement: a dwelling, a shop (R22, R23), a shelter (R7) or a water source.

    Shelter hygiene (R7): ``latrine_distance_m`` is the distance (m) of the place used as a
    toilet from the living/eating/sleeping area (empty = none apart), ``has_cesspit``,
    ``running_water`` (plumbing: water flows while its grid's water is on, R16) and
    ``paper_substitute`` (leaves, newspaper…). Toilet paper itself is stock in the shelter's
    stash. A shop's stock (kcal, L, rolls, doses) is rolled once, when it is discovered (R23);
    a search for weapons (R22) is made once per place.
    """

    class Kind(models.TextChoices):
        DWELLING = "dwelling", _("dwelling")
        SHOP = "shop", _("shop")
        SHELTER = "shelter", _("shelter")
        WATER_SOURCE = "water_source", _("water source")

    settlement = models.ForeignKey(
        Settlement, on_delete=models.CASCADE, related_name="locations", verbose_name=_("settlement")
    )
    name = models.CharField(_("name"), max_length=120)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    description = models.TextField(_("description"), blank=True)
    shop_type = models.CharField(
        _("shop type"), max_length=30, choices=SHOP_TYPE_CHOICES, blank=True
    )
    latrine_distance_m = models.FloatField(
        _("latrine distance (m)"),
        null=True,
        blank=True,
        validators=[
            MinValueValidator(0.0, message=_("A distance cannot be negative.")),
            bounds.max_validator(bounds.DISTANCE_M_MAX),
        ],
        help_text=_("Distance of the toilet place from where people live; empty: none apart."),
    )
    has_cesspit = models.BooleanField(_("cesspit"), default=False)
    running_water = models.BooleanField(
        _("running water"), default=False, help_text=_("Plumbing: works while the grid has water.")
    )
    paper_substitute = models.BooleanField(
        _("toilet paper substitute"), default=False, help_text=_("Leaves, newspaper…")
    )
    discovered_day = models.PositiveIntegerField(
        _("discovered on day"), null=True, blank=True, validators=bounds.day_validators()
    )
    stock_food_kcal = models.PositiveIntegerField(
        _("food left (kcal)"), null=True, blank=True, validators=bounds.count_validators()
    )
    stock_water_l = models.PositiveIntegerField(
        _("water left (L)"), null=True, blank=True, validators=bounds.count_validators()
    )
    stock_toilet_paper_rolls = models.PositiveIntegerField(
        _("toilet paper left (rolls)"), null=True, blank=True, validators=bounds.count_validators()
    )
    stock_medicine_doses = models.PositiveIntegerField(
        _("medicine left (doses)"), null=True, blank=True, validators=bounds.count_validators()
    )
    searched_day = models.PositiveIntegerField(
        _("searched on day"), null=True, blank=True, validators=bounds.day_validators()
    )

    class Meta:
        verbose_name = _("place")
        verbose_name_plural = _("places")
        ordering = ["settlement", "kind", "name"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(kind="shop") & ~Q(shop_type="")) | (~Q(kind="shop") & Q(shop_type="")),
                name="location_shop_type_iff_shop",
            ),
            models.CheckConstraint(
                condition=Q(latrine_distance_m__isnull=True) | Q(latrine_distance_m__gte=0),
                name="location_latrine_distance_gte_0",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_kind_display()})"

    def clean(self) -> None:
        if self.kind == self.Kind.SHOP and not self.shop_type:
            raise ValidationError({"shop_type": _("A shop needs a shop type.")})
        if self.kind != self.Kind.SHOP and self.shop_type:
            raise ValidationError({"shop_type": _("Only shops have a shop type.")})

    @property
    def discovered(self) -> bool:
        return self.discovered_day is not None


# --- power and water (R16), weather (R11), populations (R17) ----------------------------------


class Grid(models.Model):
    """A power and water grid: the campaign's regional one (``settlement`` empty) or a
    settlement's own. A cut stays cut until the master restores it. Source: RULES.md R16."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="grids", verbose_name=_("campaign")
    )
    settlement = models.OneToOneField(
        Settlement,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="grid",
        verbose_name=_("settlement"),
    )
    power_on = models.BooleanField(_("power on"), default=True)
    water_on = models.BooleanField(_("water on"), default=True)
    power_cut_day = models.PositiveIntegerField(
        _("power cut on day"), null=True, blank=True, validators=bounds.day_validators()
    )
    water_cut_day = models.PositiveIntegerField(
        _("water cut on day"), null=True, blank=True, validators=bounds.day_validators()
    )

    class Meta:
        verbose_name = _("grid")
        verbose_name_plural = _("grids")
        ordering = ["campaign", "settlement__name"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign"],
                condition=Q(settlement__isnull=True),
                name="grid_one_regional_per_campaign",
            )
        ]

    def __str__(self) -> str:
        settlement = self.settlement if self.settlement_id else None  # regional: no query
        return settlement.name if settlement is not None else str(_("regional grid"))


class GridDay(models.Model):
    """One grid on one day: the cut probability (%), each d100 (0 = not rolled, already cut)
    and the state after the roll. Source: RULES.md R16."""

    grid = models.ForeignKey(Grid, on_delete=models.CASCADE, related_name="days", db_index=False)
    day = models.PositiveIntegerField(_("day"))
    probability = models.PositiveSmallIntegerField(_("cut probability (%)"))
    power_die = models.PositiveSmallIntegerField(_("power d100"), default=0)
    water_die = models.PositiveSmallIntegerField(_("water d100"), default=0)
    power_cut_today = models.BooleanField(_("power cut today"), default=False)
    water_cut_today = models.BooleanField(_("water cut today"), default=False)
    power_on = models.BooleanField(_("power on"))
    water_on = models.BooleanField(_("water on"))

    class Meta:
        verbose_name = _("grid day")
        verbose_name_plural = _("grid days")
        ordering = ["-day"]
        constraints = [models.UniqueConstraint(fields=["grid", "day"], name="grid_day_unique")]

    def __str__(self) -> str:
        return f"{self.grid} · {self.day}"


class WeatherRecord(models.Model):
    """The weather of one campaign-day: the region's (``settlement`` empty) or a settlement's
    with its own climate. Temperatures in °C; ``dice`` every die (``reglas.weather.Weather``).
    Source: RULES.md R11."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="weather")
    settlement = models.ForeignKey(
        Settlement, on_delete=models.CASCADE, null=True, blank=True, related_name="weather"
    )
    day = models.PositiveIntegerField(_("day"))
    season = models.CharField(_("season"), max_length=12)
    sky = models.CharField(_("sky"), max_length=20)
    sky_label = models.CharField(_("sky label"), max_length=40)
    precipitation = models.BooleanField(_("precipitation"))
    min_c = models.SmallIntegerField(_("minimum (°C)"))
    max_c = models.SmallIntegerField(_("maximum (°C)"))
    dice = models.JSONField(_("dice"), default=dict)
    generator_key = models.JSONField(_("generator key"), default=list)

    class Meta:
        verbose_name = _("weather record")
        verbose_name_plural = _("weather records")
        ordering = ["-day"]
        constraints = [
            # Two partial constraints: NULL settlements are distinct in a plain unique index.
            models.UniqueConstraint(
                fields=["campaign", "day"],
                condition=Q(settlement__isnull=True),
                name="weather_unique_regional_day",
            ),
            models.UniqueConstraint(
                fields=["campaign", "settlement", "day"],
                condition=Q(settlement__isnull=False),
                name="weather_unique_settlement_day",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.day}: {self.sky_label}, {self.min_c}/{self.max_c} °C"


class SettlementDay(models.Model):
    """A settlement's population on one played day: the curve (R17) and the master's tally
    at that time, so the history page shows what was true then."""

    settlement = models.ForeignKey(
        Settlement, on_delete=models.CASCADE, related_name="days", db_index=False
    )
    day = models.PositiveIntegerField(_("day"))
    base_zombies = models.PositiveIntegerField(_("zombies by the curve"))
    zombies = models.PositiveIntegerField(_("zombies"))
    survivors = models.PositiveIntegerField(_("survivors"))
    destroyed = models.PositiveIntegerField(_("zombies destroyed"), default=0)
    rescued = models.PositiveIntegerField(_("survivors rescued"), default=0)
    risen = models.PositiveIntegerField(_("characters risen"), default=0)

    class Meta:
        verbose_name = _("settlement day")
        verbose_name_plural = _("settlement days")
        ordering = ["settlement", "day"]
        constraints = [
            models.UniqueConstraint(fields=["settlement", "day"], name="settlement_day_unique")
        ]

    def __str__(self) -> str:
        return f"{self.settlement} · {self.day}"
