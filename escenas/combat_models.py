"""Combat in a scene: the fight, its combatants, the players' declarations, the resolved turns.

A ``Combat`` belongs to a story scene and is run by the master turn by turn: against zombies
(R20) or between humans (R21). Players declare an action for their character for the current
turn (``Declaration``); the master resolves it, which writes a ``CombatTurn`` (once per turn
number: a second resolution is refused), every roll through the ledger, and one narrated summary
post in the scene with those rolls attached. Imported by ``escenas.models``.
Source: RULES.md R13, R17, R19–R21.
"""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from mundo.models import Campaign, Settlement
from personajes.models import Character


class Combat(models.Model):
    """A fight in a scene. ``turn`` is the turn being declared (1 at the start; it goes up by
    one with each resolution). ``settlement``: where the zombies come from; each zombie killed
    is added to its ``zombies_destroyed`` (R17). ``route_roll``: the R18 route check whose
    zombies met this fight is against (one fight per check). ``distance_m`` (m) is the default
    distance of the attacks (firearms, R19). ``turn_hours`` (h of real time, optional) is each
    turn's deadline counted from ``turn_started_at``: before it the master resolves only once
    every living character has declared; after it, with those who did not declare defending
    only. Without it the master resolves when they choose to stop waiting.
    Source: RULES.md R19–R21."""

    class Kind(models.TextChoices):
        ZOMBIES = "zombies", _("against zombies")
        HUMANS = "humans", _("between humans")

    class State(models.TextChoices):
        OPEN = "open", _("in progress")
        FINISHED = "finished", _("finished")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="combats")
    scene = models.ForeignKey("escenas.Scene", on_delete=models.CASCADE, related_name="combats")
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    state = models.CharField(_("state"), max_length=10, choices=State.choices, default="open")
    title = models.CharField(_("title"), max_length=120, blank=True)
    turn = models.PositiveSmallIntegerField(_("turn"), default=1)
    settlement = models.ForeignKey(
        Settlement,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("settlement of the zombies"),
    )
    distance_m = models.FloatField(_("distance (m)"), default=0)
    route_roll = models.OneToOneField(
        "mundo.WorldRoll",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="combat",
        verbose_name=_("route check of the zombies"),
    )
    turn_hours = models.PositiveSmallIntegerField(
        _("hours per turn"),
        null=True,
        blank=True,
        help_text=_("Real hours the players have to declare each turn; empty: no deadline."),
    )
    turn_started_at = models.DateTimeField(_("turn started at"), default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("combat")
        verbose_name_plural = _("combats")
        ordering = ["scene", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(distance_m__gte=0), name="combat_distance_gte_0"),
            models.CheckConstraint(
                condition=Q(turn_hours__isnull=True) | Q(turn_hours__gte=1, turn_hours__lte=720),
                name="combat_turn_hours_1_720",
            ),
        ]

    def __str__(self) -> str:
        return self.title or f"{self.get_kind_display()} #{self.pk}"

    @property
    def is_open(self) -> bool:
        return self.state == self.State.OPEN

    @property
    def deadline(self) -> datetime.datetime | None:
        """When the current turn's declarations close (aware datetime), or None."""
        if not self.turn_hours:
            return None
        return self.turn_started_at + datetime.timedelta(hours=self.turn_hours)

    def deadline_passed(self, now: datetime.datetime | None = None) -> bool:
        """True when the turn has a deadline and it is past (``now``: default the clock)."""
        deadline = self.deadline
        return deadline is not None and (now or timezone.now()) >= deadline


class Combatant(models.Model):
    """One side of a fight: a character of the scene, an NPC human (``traits`` by slug and a
    ``weapon``) or a zombie. A zombie attacks one human (``victim``); ``grabbing`` says it holds
    it and ``consecutive_bites`` counts its bites on consecutive turns (R20). A human's
    ``infected``/``amputated`` are this fight's bites (R13); ``amputation_open``: a bite opened
    the one immediate amputation try and nobody has made it yet. ``weapon`` is the JSON of a
    ``reglas.tables.Weapon`` (slug, label, kind, caliber, two_handed); empty = unarmed.
    Source: RULES.md R13, R19, R20."""

    class Side(models.TextChoices):
        CHARACTER = "character", _("character")
        NPC = "npc", _("non-player character")
        ZOMBIE = "zombie", _("zombie")

    combat = models.ForeignKey(Combat, on_delete=models.CASCADE, related_name="combatants")
    side = models.CharField(_("side"), max_length=10, choices=Side.choices)
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, null=True, blank=True, related_name="combatants"
    )
    name = models.CharField(_("name"), max_length=80)
    traits = models.JSONField(_("traits"), default=dict, blank=True)
    weapon = models.JSONField(_("weapon"), default=dict, blank=True)
    alive = models.BooleanField(_("standing"), default=True)
    victim = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="attackers"
    )
    grabbing = models.BooleanField(_("grabbing"), default=False)
    consecutive_bites = models.PositiveSmallIntegerField(_("consecutive bites"), default=0)
    infected = models.BooleanField(_("infected"), default=False)
    amputated = models.BooleanField(_("amputated"), default=False)
    amputation_open = models.BooleanField(_("amputation try open"), default=False)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        verbose_name = _("combatant")
        verbose_name_plural = _("combatants")
        ordering = ["combat", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["combat", "character"],
                condition=Q(character__isnull=False),
                name="combatant_character_once",
            ),
            models.CheckConstraint(
                condition=~Q(side="character") | Q(character__isnull=False),
                name="combatant_character_side_has_character",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_zombie(self) -> bool:
        return self.side == self.Side.ZOMBIE


class Declaration(models.Model):
    """A human's action for one turn: ``attack`` a ``target`` with ``weapon`` (JSON as on
    ``Combatant``), ``escape`` from the grabbing ``target`` (``escape_trait`` Agilidad/Pelea or
    empty for the better), or ``defend`` (do nothing but escape if grabbed). One per combatant and
    turn; declaring again before the resolution replaces it. ``post``: the post it came with.
    Source: RULES.md R20, R21."""

    class Action(models.TextChoices):
        ATTACK = "attack", _("attack")
        ESCAPE = "escape", _("escape")
        DEFEND = "defend", _("defend only")

    combat = models.ForeignKey(Combat, on_delete=models.CASCADE, related_name="declarations")
    turn = models.PositiveSmallIntegerField(_("turn"))
    combatant = models.ForeignKey(Combatant, on_delete=models.CASCADE, related_name="declarations")
    action = models.CharField(_("action"), max_length=10, choices=Action.choices)
    target = models.ForeignKey(
        Combatant, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    weapon = models.JSONField(_("weapon"), default=dict, blank=True)
    escape_trait = models.CharField(_("escape trait"), max_length=40, blank=True)
    post = models.ForeignKey(
        "escenas.Post", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    declared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    declared_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("combat declaration")
        verbose_name_plural = _("combat declarations")
        ordering = ["combat", "turn", "combatant__position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["combat", "turn", "combatant"], name="declaration_once_per_turn"
            )
        ]

    def __str__(self) -> str:
        return f"{self.combatant} · {self.turn} · {self.action}"


class CombatTurn(models.Model):
    """A resolved turn: written once per (combat, number) — the database refuses a second one.
    ``log`` is the engine's record of the turn (every roll as a dict, who died, who was bitten,
    zombies killed); its ledger rows are ``turn_rolls`` (``CombatTurnRoll``, in the order of
    ``log``; ``roll_ids`` lists them); ``post`` the narrated summary in the scene.
    Source: RULES.md R20, R21."""

    combat = models.ForeignKey(Combat, on_delete=models.CASCADE, related_name="turns")
    number = models.PositiveSmallIntegerField(_("turn"))
    day = models.PositiveIntegerField(_("in-game day"))
    log = models.JSONField(_("record"), default=dict)
    post = models.ForeignKey(
        "escenas.Post", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    resolved_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("combat turn")
        verbose_name_plural = _("combat turns")
        ordering = ["combat", "number"]
        constraints = [
            models.UniqueConstraint(fields=["combat", "number"], name="combat_turn_once")
        ]

    def __str__(self) -> str:
        return f"{self.combat} · {self.number}"

    @property
    def roll_ids(self) -> list[int]:
        """The ids of the turn's rolls in draw order (prefetch ``turn_rolls`` to save a query)."""
        return [link.roll_id for link in self.turn_rolls.all()]


class CombatTurnRoll(models.Model):
    """One roll of the ledger made by a resolved turn, at ``position`` in the turn's draw order
    (a roll belongs to at most one turn). A real relation, so a campaign's export and import
    (``partida.archive``) remap it like every other foreign key. Source: RULES.md R19–R21."""

    turn = models.ForeignKey(CombatTurn, on_delete=models.CASCADE, related_name="turn_rolls")
    roll = models.OneToOneField(
        "personajes.Roll", on_delete=models.PROTECT, related_name="combat_turn_roll"
    )
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        verbose_name = _("roll of a combat turn")
        verbose_name_plural = _("rolls of combat turns")
        ordering = ["turn", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["turn", "position"], name="combat_turn_roll_position_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.turn} · {self.position}"


class MedicineCure(models.Model):
    """A Medicina cure try (R12) on a sick patient: once per in-game day per patient, whoever
    tries it. ``roll`` is the healer's action roll; ``cured`` its outcome. Source: RULES.md R12."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    patient = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="cure_tries")
    healer = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="+")
    day = models.PositiveIntegerField(_("in-game day"))
    roll = models.OneToOneField("personajes.Roll", on_delete=models.PROTECT, related_name="+")
    cured = models.BooleanField(_("cured"))
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("Medicina cure try")
        verbose_name_plural = _("Medicina cure tries")
        ordering = ["patient", "day"]
        constraints = [
            models.UniqueConstraint(fields=["patient", "day"], name="medicine_cure_once_a_day")
        ]

    def __str__(self) -> str:
        return f"{self.patient} · {self.day}"
