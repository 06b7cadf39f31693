"""Characters: sheets (traits and their points), condition state, inventory, and rolls.

Source: RULES.md R3 (action rolls), R5 (sheet), R6–R9 and R12–R13 (condition state).
The condition fields carry the names of ``reglas.characters.ConditionState`` one to one;
``personajes.mapping`` translates between them.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from mundo.models import Campaign
from nucleo import bounds
from personajes.death_causes import death_cause_label
from personajes.movement_models import Movement as Movement
from personajes.place_models import CharacterMove as CharacterMove

PORTRAIT_MAX_BYTES = 2 * 1024 * 1024
PORTRAIT_CONTENT_TYPES = ("image/jpeg", "image/png", "image/webp", "image/gif")


class Trait(models.Model):
    """A trait of the campaign's sheet (the default ten of R5, editable by the master).

    Sheets point at the trait by id, so renaming a trait changes no sheet; a trait added later
    counts 0 on existing sheets. Whether its rolls take the dirt penalty (R8) is the
    campaign's setting ``dirt_sensitive_traits`` (``reglas.characters.is_dirt_sensitive``), its
    one source, edited on the campaign's rules page.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="traits", verbose_name=_("campaign")
    )
    slug = models.SlugField(_("slug"), max_length=40)
    name = models.CharField(_("name"), max_length=60)
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        verbose_name = _("trait")
        verbose_name_plural = _("traits")
        ordering = ["campaign", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "slug"], name="trait_unique_slug")
        ]

    def __str__(self) -> str:
        return self.name


class Character(models.Model):
    """A player's character in a campaign, with its sheet status and condition state.

    Condition counters are consecutive days (R6, R7); ``disease_day`` 0 = healthy, else day x
    of ``disease_duration`` (R12); the same for infection (R13).
    """

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        SUBMITTED = "submitted", _("submitted")
        APPROVED = "approved", _("approved")
        DEAD = "dead", _("dead")
        RISEN = "risen", _("risen as a zombie")

    LIVING_STATUSES = (Status.DRAFT, Status.SUBMITTED, Status.APPROVED)

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="characters", verbose_name=_("campaign")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="characters",
        verbose_name=_("player"),
    )
    name = models.CharField(_("name"), max_length=80)
    concept = models.TextField(_("concept and background"), blank=True)
    portrait = models.ImageField(_("portrait"), upload_to="portraits/%Y/%m/", blank=True)
    portrait_thumb = models.ImageField(
        _("portrait thumbnail"), upload_to="portraits/%Y/%m/", blank=True
    )
    portrait_thumb_2x = models.ImageField(
        _("portrait thumbnail (2x)"), upload_to="portraits/%Y/%m/", blank=True
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.DRAFT
    )
    review_comment = models.TextField(_("master's comment"), blank=True)
    death_cause = models.CharField(_("cause of death"), max_length=40, blank=True)
    death_day = models.PositiveIntegerField(
        _("day of death"), null=True, blank=True, validators=bounds.day_validators()
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    # Condition state (R6–R9, R12, R13): the fields of reglas.characters.ConditionState.
    hunger_days = models.PositiveSmallIntegerField(_("hungry days"), default=0)
    thirst_days = models.PositiveSmallIntegerField(_("thirsty days"), default=0)
    fatigue_days = models.PositiveSmallIntegerField(_("days without enough sleep"), default=0)
    unhygienic_days = models.PositiveSmallIntegerField(_("days without hygiene"), default=0)
    days_without_defecating = models.PositiveSmallIntegerField(
        _("days without defecating"), default=0
    )
    wet_last_night = models.BooleanField(_("wet themself last night"), default=False)
    soiled_last_night = models.BooleanField(_("soiled themself last night"), default=False)
    dirty = models.BooleanField(_("dirty"), default=False)
    extra_dirt = models.BooleanField(_("extra dirt"), default=False)
    disease_day = models.PositiveSmallIntegerField(_("disease day"), default=0)
    disease_duration = models.PositiveSmallIntegerField(_("disease duration (days)"), default=0)
    disease_days_treated = models.PositiveSmallIntegerField(_("days treated"), default=0)
    disease_unhygienic_days = models.PositiveSmallIntegerField(
        _("sick days without hygiene"), default=0
    )
    infection_day = models.PositiveSmallIntegerField(_("infection day"), default=0)
    infection_duration = models.PositiveSmallIntegerField(_("infection duration (days)"), default=0)
    # R6's second counters: consecutive days under a quarter of the need (these kill).
    days_without_food = models.PositiveSmallIntegerField(_("days without eating"), default=0)
    days_without_water = models.PositiveSmallIntegerField(_("days without drinking"), default=0)
    days_without_sleep = models.PositiveSmallIntegerField(_("days without sleeping"), default=0)
    amputations = models.JSONField(_("amputations"), default=list, blank=True)
    # Where the character is (settlement, and the place in it: empty = the streets) and which
    # shelter it lives in. The shelter is the one field the tick reads for hygiene (R7), the
    # stash (R15) and cohabitants (R10); moves change these through ``personajes.places``.
    settlement = models.ForeignKey(
        "mundo.Settlement",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="characters",
        verbose_name=_("settlement"),
    )
    shelter = models.ForeignKey(
        "mundo.Location",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="residents",
        verbose_name=_("shelter"),
        limit_choices_to={"kind": "shelter"},
    )
    location = models.ForeignKey(
        "mundo.Location",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="present",
        verbose_name=_("current place"),
        help_text=_("Where in its settlement the character is now (empty: the streets)."),
    )

    class Meta:
        verbose_name = _("character")
        verbose_name_plural = _("characters")
        ordering = ["campaign", "name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(disease_day__lte=models.F("disease_duration")),
                name="character_disease_day_within_duration",
            ),
            models.CheckConstraint(
                condition=Q(infection_day__lte=models.F("infection_duration")),
                name="character_infection_day_within_duration",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("personajes:character", kwargs={"pk": self.pk})

    @property
    def death_cause_label(self) -> str:
        """The cause of death in the reader's language (``personajes.death_causes``)."""
        return death_cause_label(self.death_cause)

    @property
    def is_alive(self) -> bool:
        return self.status in self.LIVING_STATUSES


class TraitValue(models.Model):
    """The points a character has in one trait (R5: a non-negative integer)."""

    # No index of its own: trait_value_unique (character, trait) leads with it.
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="trait_values", db_index=False
    )
    trait = models.ForeignKey(Trait, on_delete=models.CASCADE, related_name="values")
    value = models.PositiveSmallIntegerField(_("points"), default=0)

    class Meta:
        verbose_name = _("trait value")
        verbose_name_plural = _("trait values")
        constraints = [
            models.UniqueConstraint(fields=["character", "trait"], name="trait_value_unique")
        ]

    def __str__(self) -> str:
        return f"{self.trait}: {self.value}"


class SheetChange(models.Model):
    """One change the master made to a sheet: who, when, what, old → new, and why.

    ``field`` is the trait's name or the condition field's verbose name at the time of the
    change (a later rename does not rewrite history). Written by
    ``personajes.sheets.sheet_master_edit`` only. Source: RULES.md R5.
    """

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="sheet_changes")
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    changed_at = models.DateTimeField(_("when"), auto_now_add=True)
    field = models.CharField(_("field"), max_length=80)
    old_value = models.CharField(_("old value"), max_length=200, blank=True)
    new_value = models.CharField(_("new value"), max_length=200, blank=True)
    reason = models.CharField(_("reason"), max_length=200, blank=True)

    class Meta:
        verbose_name = _("sheet change")
        verbose_name_plural = _("sheet changes")
        ordering = ["-changed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.field}: {self.old_value} → {self.new_value}"


class ItemType(models.Model):
    """An entry of the campaign's item catalogue.

    Food has ``kcal_per_unit`` (kcal) and, when perishable, spoils (R15); water has
    ``litres_per_unit`` (L); weapons have a ``weapon_kind`` and, for firearms, a ``caliber``
    (R19's table slugs, e.g. ``9mm``).
    """

    class Kind(models.TextChoices):
        FOOD = "food", _("food")
        WATER = "water", _("water")
        TOILET_PAPER = "toilet_paper", _("toilet paper")
        MEDICINE = "medicine", _("medicine")
        WEAPON = "weapon", _("weapon")
        GEAR = "gear", _("other gear")

    class WeaponKind(models.TextChoices):
        UTENSIL = "utensil", _("utensil")
        PSEUDO_WEAPON = "pseudo_weapon", _("pseudo-weapon")
        BLADE = "blade", _("blade")
        HEAVY_BLADE = "heavy_blade", _("heavy blade")
        FIREARM_ONE_HANDED = "firearm_one_handed", _("one-handed firearm")
        FIREARM_TWO_HANDED = "firearm_two_handed", _("two-handed firearm")

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="item_types", verbose_name=_("campaign")
    )
    name = models.CharField(_("name"), max_length=80)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    unit = models.CharField(_("unit"), max_length=20, blank=True, help_text=_("e.g. can, bottle"))
    kcal_per_unit = models.FloatField(
        _("kcal per unit"),
        default=0,
        validators=[MinValueValidator(0), bounds.max_validator(bounds.KCAL_PER_UNIT_MAX)],
    )
    litres_per_unit = models.FloatField(
        _("litres per unit"),
        default=0,
        validators=[MinValueValidator(0), bounds.max_validator(bounds.LITRES_PER_UNIT_MAX)],
    )
    perishable = models.BooleanField(_("perishable"), default=False)
    spoil_day = models.PositiveIntegerField(
        _("spoils on day"),
        null=True,
        blank=True,
        help_text=_("In-game day it goes bad."),
        validators=bounds.day_validators(),
    )
    weapon_kind = models.CharField(
        _("weapon kind"), max_length=20, choices=WeaponKind.choices, blank=True
    )
    caliber = models.CharField(_("caliber"), max_length=20, blank=True)

    class Meta:
        verbose_name = _("item type")
        verbose_name_plural = _("item types")
        ordering = ["campaign", "kind", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="item_type_unique_name"),
            models.CheckConstraint(condition=Q(kcal_per_unit__gte=0), name="item_kcal_gte_0"),
            models.CheckConstraint(condition=Q(litres_per_unit__gte=0), name="item_litres_gte_0"),
        ]

    def __str__(self) -> str:
        return self.name


class Stock(models.Model):
    """Units of one item held somewhere: what ``InventoryItem`` (a character carries) and
    ``ShelterStash`` (a shelter's shared stash) have in common; quantities ≥ 0, fractional for
    rolls of paper (3 decimals).

    Two tables, not one with two nullable holders: each row then has exactly one holder by its
    NOT NULL foreign key, the unique (holder, item) pair is a plain constraint (not two partial
    indexes), and the daily tick rewrites each table's quantities with one column update.
    Source: RULES.md R15.
    """

    item_type = models.ForeignKey(ItemType, on_delete=models.PROTECT, related_name="+")
    quantity = models.DecimalField(
        _("quantity"),
        max_digits=12,
        decimal_places=3,
        default=0,
        validators=[MinValueValidator(0), bounds.max_validator(bounds.COUNT_MAX)],
    )

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.quantity} × {self.item_type}"


class InventoryItem(Stock):
    """How much of an item a character carries (units; fractional for rolls of paper)."""

    # No index of its own: inventory_unique (character, item_type) leads with it (the tick).
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="inventory", db_index=False
    )

    class Meta:
        verbose_name = _("inventory item")
        verbose_name_plural = _("inventory")
        ordering = ["item_type__kind", "item_type__name"]
        constraints = [
            models.UniqueConstraint(fields=["character", "item_type"], name="inventory_unique"),
            models.CheckConstraint(condition=Q(quantity__gte=0), name="inventory_quantity_gte_0"),
        ]


class Roll(models.Model):
    """An immutable roll record: every die, the modifiers with their source, the outcome.

    ``kind`` action (R3 with R9), event (R2) or expression (R4). ``base_threshold`` may be
    empty when the master sets it later; the dice are fixed at creation either way and
    ``effective_threshold``/``successes``/``success`` are filled when the threshold is known.
    ``generator_key`` is the ``spawn_key`` of the roll's SeedSequence (DESIGN.md), stored with
    ``engine_version`` as a cross-check; the stored dice are the record. ``period`` is the
    number of the dice period it was drawn in; ``post_sha256``/``seed_sha256`` the player's
    share (``reglas.verify``), empty for a roll made without a post.
    """

    class Kind(models.TextChoices):
        ACTION = "action", _("action roll")
        EVENT = "event", _("event roll")
        EXPRESSION = "expression", _("dice expression")

    # No index of its own: roll_unique_generator_key's leads with it (one less for the tick).
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="rolls", db_index=False
    )
    character = models.ForeignKey(  # no index of its own: roll_recent (pages of rolls) leads
        Character, models.CASCADE, null=True, blank=True, related_name="rolls", db_index=False
    )
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    day = models.PositiveIntegerField(_("in-game day"), validators=bounds.day_validators())
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    expression = models.CharField(_("expression"), max_length=200, blank=True)
    trait = models.ForeignKey(Trait, on_delete=models.SET_NULL, null=True, blank=True)
    trait_name = models.CharField(_("trait"), max_length=60, blank=True)
    trait_value = models.PositiveSmallIntegerField(_("trait value"), null=True, blank=True)
    dirt_sensitive = models.BooleanField(_("dirt-sensitive"), default=False)
    base_threshold = models.PositiveSmallIntegerField(
        _("base threshold (%)"),
        null=True,
        blank=True,
        validators=[MaxValueValidator(100)],
    )
    modifiers = models.JSONField(_("modifiers"), default=list, blank=True)
    effective_threshold = models.PositiveSmallIntegerField(
        _("effective threshold (%)"), null=True, blank=True
    )
    dice = models.JSONField(_("dice"), default=list)
    total = models.IntegerField(_("total"), null=True, blank=True)
    successes = models.PositiveSmallIntegerField(_("successes"), null=True, blank=True)
    success = models.BooleanField(_("success"), null=True, blank=True)
    generator_key = models.JSONField(_("generator key"))
    engine_version = models.CharField(_("engine version"), max_length=10)
    # Verifiable dice (issue 16): the dice period that drew the roll (number and public
    # commitment, shown with it) and the player's share of a roll from a post (else empty):
    # SHA-256 of the post's text and of the author's dice seed, mixed in as ``reglas.verify`` says.
    period = models.PositiveIntegerField(_("dice period"), default=1)
    commitment = models.CharField(_("period commitment (SHA-256)"), max_length=64, blank=True)
    post_sha256 = models.CharField(_("post text SHA-256"), max_length=64, blank=True)
    seed_sha256 = models.CharField(_("dice seed SHA-256"), max_length=64, blank=True)

    class Meta:
        verbose_name = _("roll")
        verbose_name_plural = _("rolls")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["character", "-created_at", "-id"], name="roll_recent")]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "generator_key"], name="roll_unique_generator_key"
            ),
            models.CheckConstraint(
                condition=Q(base_threshold__isnull=True) | Q(base_threshold__lte=100),
                name="roll_base_threshold_0_100",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.dice}"

    def save(self, *args: object, **kwargs: object) -> None:
        # Rolls are append-only: a roll is written once; the only later change (setting a
        # threshold the master left open) goes through a compare-and-swap update in
        # personajes.rolls, never through save().
        if self.pk is not None and not self._state.adding:
            raise ValueError("Rolls are immutable: they are never changed once made.")
        super().save(*args, **kwargs)  # type: ignore[arg-type]


# --- where characters live, their days and their diaries (the daily tick reads and writes them) ---


class DayRecord(models.Model):
    """The master's mark of what happened to a character on one in-game day ("mark a
    character's day"): hours slept (0..24 h; empty = the default 8 h, R15), could not urinate
    or defecate (R7), relieved in an inappropriate place (R7: no accident where conditions are
    inadequate), got dirty (R8), showered (R8; the water was taken when it was marked), and
    why the sleep differs (``sleep_reason``: guard duty or travel, R15).
    The tick that closes ``day`` reads it. Written by ``personajes.days.day_record_save``.
    """

    character = models.ForeignKey(
        Character,
        on_delete=models.CASCADE,
        related_name="day_records",
        verbose_name=_("character"),
        db_index=False,  # day_record_unique (character, day) leads with it
    )
    day = models.PositiveIntegerField(_("in-game day"), validators=bounds.day_validators())
    sleep_h = models.FloatField(
        _("hours slept"),
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(24)],
        help_text=_("Empty: the usual 8 h."),
    )

    class SleepReason(models.TextChoices):
        NONE = "", _("—")
        GUARD_DUTY = "guard_duty", _("guard duty")
        TRAVEL = "travel", _("travel")

    sleep_reason = models.CharField(
        _("why the sleep differs"),
        max_length=12,
        choices=SleepReason.choices,
        blank=True,
        default="",
        help_text=_("Guard duty or travel: the hours slept say how much."),
    )
    could_not_urinate = models.BooleanField(_("could not urinate"), default=False)
    relieved_inappropriately = models.BooleanField(
        _("relieved in an inappropriate place"),
        default=False,
        help_text=_("R7: avoids the accident where conditions are inadequate."),
    )
    could_not_defecate = models.BooleanField(_("could not defecate"), default=False)
    got_dirty = models.BooleanField(_("got dirty"), default=False)
    showered = models.BooleanField(_("showered"), default=False)
    marked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("character's day")
        verbose_name_plural = _("characters' days")
        ordering = ["-day", "character"]
        constraints = [
            models.UniqueConstraint(fields=["character", "day"], name="day_record_unique"),
            models.CheckConstraint(
                condition=Q(sleep_h__isnull=True) | (Q(sleep_h__gte=0) & Q(sleep_h__lte=24)),
                name="day_record_sleep_0_24",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.character} · {self.day}"


class ShelterStash(Stock):
    """A shelter's shared stash: units of an item that the residents' automatic consumption
    may take from (R15, setting ``allow_shelter_stash``); toilet paper here is the shelter's."""

    shelter = models.ForeignKey(
        "mundo.Location",
        on_delete=models.CASCADE,
        related_name="stash",
        verbose_name=_("shelter"),
        db_index=False,  # stash_unique (shelter, item_type) leads with it
    )

    class Meta:
        verbose_name = _("shelter stash item")
        verbose_name_plural = _("shelter stash")
        ordering = ["shelter", "item_type__kind", "item_type__name"]
        constraints = [
            models.UniqueConstraint(fields=["shelter", "item_type"], name="stash_unique"),
            models.CheckConstraint(condition=Q(quantity__gte=0), name="stash_quantity_gte_0"),
        ]


class DiaryEntry(models.Model):
    """One row of a character's needs record (RULES.md R25) for one in-game day, written by
    the daily tick (``partida.tick``). Amounts in kcal, L and h; counters in consecutive days;
    disease and infection "day x of y"; the R9 penalty with its breakdown (list of
    ``{source, label, points}``); the R10 disease roll (p %, breakdown, d100, fell ill; None
    when the character was already sick); ``status`` alive/sick/infected/dead/risen.
    Counters and penalty are as the tick left them (they apply to the next day).
    """

    # No index of its own: diary_entry_unique_day (character, day) leads with it (one index
    # less for the tick's daily insert).
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="diary_entries", db_index=False
    )
    day = models.PositiveIntegerField(_("in-game day"), validators=bounds.day_validators())
    date = models.DateField(_("date"))
    weather_label = models.CharField(_("weather"), max_length=60, blank=True)
    min_temp_c = models.FloatField(_("minimum temperature (°C)"), null=True, blank=True)
    kcal_eaten = models.FloatField(_("kcal eaten"))
    kcal_needed = models.FloatField(_("kcal needed"))
    water_l = models.FloatField(_("water drunk (L)"))
    water_needed_l = models.FloatField(_("water needed (L)"))
    sleep_h = models.FloatField(_("sleep (h)"))
    sleep_needed_h = models.FloatField(_("sleep needed (h)"))
    hygiene_ok = models.BooleanField(_("adequate hygiene"))
    hunger_days = models.PositiveSmallIntegerField(_("hungry days"))
    thirst_days = models.PositiveSmallIntegerField(_("thirsty days"))
    fatigue_days = models.PositiveSmallIntegerField(_("days without enough sleep"))
    unhygienic_days = models.PositiveSmallIntegerField(_("days without hygiene"))
    dirty = models.BooleanField(_("dirty"))
    extra_dirt = models.BooleanField(_("extra dirt"))
    disease_day = models.PositiveSmallIntegerField(_("disease day"))
    disease_duration = models.PositiveSmallIntegerField(_("disease duration (days)"))
    infection_day = models.PositiveSmallIntegerField(_("infection day"))
    infection_duration = models.PositiveSmallIntegerField(_("infection duration (days)"))
    days_without_food = models.PositiveSmallIntegerField(_("days without eating"), default=0)
    days_without_water = models.PositiveSmallIntegerField(_("days without drinking"), default=0)
    days_without_sleep = models.PositiveSmallIntegerField(_("days without sleeping"), default=0)
    penalty_total = models.IntegerField(_("action penalty"))
    penalty_breakdown = models.JSONField(_("penalty breakdown"), default=list)
    disease_p = models.PositiveSmallIntegerField(_("disease probability (%)"), null=True)
    disease_breakdown = models.JSONField(_("disease breakdown"), default=list)
    disease_die = models.PositiveSmallIntegerField(_("disease d100"), null=True)
    fell_ill = models.BooleanField(_("fell ill"), default=False)
    status = models.CharField(_("status"), max_length=10)
    death_cause = models.CharField(_("cause of death"), max_length=40, blank=True)

    class Meta:
        verbose_name = _("diary entry")
        verbose_name_plural = _("diary entries")
        ordering = ["character", "day"]
        constraints = [
            models.UniqueConstraint(fields=["character", "day"], name="diary_entry_unique_day")
        ]

    STATUS_LABELS = {
        "alive": _("alive"),
        "sick": _("sick"),
        "infected": _("infected"),
        "dead": _("dead"),
        "risen": _("risen as a zombie"),
    }

    def __str__(self) -> str:
        return f"{self.character} · {self.day}"

    @property
    def death_cause_label(self) -> str:
        """The cause of death in the reader's language (``personajes.death_causes``)."""
        return death_cause_label(self.death_cause)

    @property
    def status_label(self) -> str:
        """The status in the reader's language (``status`` keeps the stable slug)."""
        return str(self.STATUS_LABELS.get(self.status, self.status))
