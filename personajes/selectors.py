"""Reads of characters and the rule numbers pages show.

Who may see which character, and how much of it, is decided in ``personajes.access``
(``access_character``, ``can_see_private``): fetch through it first, then read here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import (
    Case,
    Exists,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Coalesce

from mundo.access import is_master
from mundo.models import Campaign
from nucleo.users import AnyUser
from personajes import access
from personajes.mapping import condition_state
from personajes.models import Character, InventoryItem, Roll, SheetChange, Trait, TraitValue
from reglas.characters import action_penalty, is_dirt_sensitive
from reglas.core import Breakdown
from reglas.dice import action_chance
from reglas.health import DiseaseInputs, disease_probability
from reglas.weather import season_for

PUBLIC_STATUSES = access.PUBLIC_STATUSES

REFERENCE_THRESHOLD = 30
"""The threshold (%) of the success chance shown beside each trait: the rulebook's door."""

_STATUS_ORDER = {
    Character.Status.SUBMITTED: 0,  # waiting for the master: first
    Character.Status.DRAFT: 1,
    Character.Status.APPROVED: 2,
    Character.Status.DEAD: 3,
    Character.Status.RISEN: 4,
}


def characters_for_master(*, campaign: Campaign, points: bool = True) -> QuerySet[Character]:
    """Every character of the campaign for the master's list, in one query.

    select_related ``player``; annotated ``points`` (sum of trait points, 0 when none; not
    with ``points=False``: a subquery per row for a page that does not show it) and
    ``status_order`` (submitted first: they wait for the master; then draft, approved, dead,
    risen), ordered by it and the name. Status and condition counters are columns.
    The caller checks the master (``mundo.access.access_campaign(..., master=True)``).
    Source: RULES.md R5.
    """
    characters = Character.objects.filter(campaign=campaign).select_related("player")
    if points:
        total = (
            TraitValue.objects.filter(character=OuterRef("pk"))
            .values("character")
            .annotate(total=Sum("value"))
            .values("total")
        )
        characters = characters.annotate(
            points=Coalesce(Subquery(total, output_field=IntegerField()), Value(0))
        )
    return characters.annotate(
        status_order=Case(
            *(When(status=s, then=Value(n)) for s, n in _STATUS_ORDER.items()),
            default=Value(9),
            output_field=IntegerField(),
        ),
    ).order_by("status_order", "name", "pk")


def characters_of_player(*, user: AnyUser | None) -> QuerySet[Character]:
    """The user's characters in every campaign, with ``campaign`` (select_related), ordered
    by campaign name then character name. Empty for anonymous users. One query.
    """
    if user is None or not user.is_authenticated:
        return Character.objects.none()
    return (
        Character.objects.filter(player=user)
        .select_related("campaign")
        .order_by("campaign__name", "name", "pk")
    )


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One line of a character sheet: the trait, its points (0 if the sheet has no value for
    it) and ``p_success``, the exact chance (0..1) of an action roll at 30 % with no penalty,
    ``1 − 0.7^(1 + value)``. Source: RULES.md R3, R5.
    """

    trait: Trait
    value: int
    p_success: float
    dirt_sensitive: bool

    @property
    def dice(self) -> int:
        """Dice of an action roll with this trait (1 + value)."""
        return 1 + self.value

    @property
    def p_success_percent(self) -> float:
        """``p_success`` in % (0..100)."""
        return 100.0 * self.p_success


def sheet_rows(character: Character) -> list[SheetRow]:
    """Every trait of the character's campaign in sheet order with the character's points and
    whether its rolls take the dirt penalty (the campaign's ``dirt_sensitive_traits``).

    Two queries whatever the number of traits: the campaign's traits and the character's
    values (select_related the character's campaign, whose settings it reads). Renaming a
    trait changes no value (rows point at the trait); a trait added later reads 0.
    Source: RULES.md R3, R5, R8.
    """
    rules = character.campaign.rules
    values = dict(TraitValue.objects.filter(character=character).values_list("trait_id", "value"))
    rows = []
    for trait in Trait.objects.filter(campaign_id=character.campaign_id):
        value = values.get(trait.pk, 0)
        rows.append(
            SheetRow(
                trait=trait,
                value=value,
                p_success=action_chance(value, REFERENCE_THRESHOLD).p,
                dirt_sensitive=is_dirt_sensitive(trait.slug, rules),
            )
        )
    return rows


def penalty_breakdown(character: Character, dirt_sensitive: bool = False) -> Breakdown:
    """The R9 action penalty the character's rolls take now: lines of (source, label, points)
    with points subtracted from the threshold; only non-zero lines. Uses the campaign's rule
    settings (``character.campaign``: select_related it to save a query).
    Source: RULES.md R9 (R6, R7, R8, R12).
    """
    return action_penalty(condition_state(character), dirt_sensitive, character.campaign.rules)


def disease_modifier_breakdown(
    character: Character, season: str | None = None
) -> tuple[int, Breakdown]:
    """The character's side of the R10 disease probability: ``(p %, breakdown)``.

    Season base + unhygienic days + dirt + extra dirt + hunger/thirst/fatigue days, from the
    character's condition; the shelter's and the day's terms (sick housemates, rain or snow,
    cold) are left out (they belong to the tick). ``season`` None = the season of the
    campaign's current date (``reglas.weather.season_for``). ``p`` is clamped to 0..100.
    Raises ``reglas.errors.RulesError`` for an unknown season name.
    Source: RULES.md R10, R11.
    """
    campaign = character.campaign
    chosen = season if season is not None else str(season_for(campaign.current_date))
    inputs = DiseaseInputs.from_state(chosen, condition_state(character))
    return disease_probability(inputs, campaign.rules)


def character_inventory(character: Character) -> QuerySet[InventoryItem]:
    """What the character carries (quantity > 0), with ``item_type`` (select_related), by kind
    and name. One query. Private: show it only when ``can_see_private``."""
    return (
        InventoryItem.objects.filter(character=character, quantity__gt=0)
        .select_related("item_type")
        .order_by("item_type__kind", "item_type__name")
    )


def character_history(character: Character) -> QuerySet[SheetChange]:
    """The master's changes to the sheet, newest first, with ``changed_by`` (select_related).
    One query. Private: show it only when ``can_see_private``."""
    return SheetChange.objects.filter(character=character).select_related("changed_by")


def character_rolls(character: Character, user: AnyUser | None) -> QuerySet[Roll]:
    """The character's rolls that ``user`` may see, newest first, with ``made_by``, ``trait``
    and ``campaign`` (select_related). One query (plus the role check).

    The campaign's master sees every roll. Anyone else (call it only when ``can_see_private``)
    does not see the rolls the post pages hide from them: a master-only roll, a roll in a
    deleted post, a roll in a whisper they neither wrote nor received. Rolls made from the
    sheet (no post) are the owner's. The post link is looked up by name (``post_roll`` is
    escenas.PostRoll's reverse accessor): personajes may not import escenas, and the rule must
    hold on the sheet page, the roll page and the API alike.

    Bounded when sliced (a page): the rolls are read newest first along the ``roll_recent``
    index (character, created_at, id) and what hides one is a ``NOT EXISTS`` on its link and
    post, so ``[:50]`` reads about 50 rolls however many the character has made.
    """
    rolls = Roll.objects.filter(character=character).select_related("made_by", "trait", "campaign")
    if is_master(character.campaign_id, user):
        return rolls
    link: Any = Roll._meta.get_field("post_roll").related_model  # escenas.PostRoll, by name
    whisper = Q(post__is_whisper=True)
    if user is not None and user.is_authenticated:
        recipients = link._meta.get_field("post").related_model._meta.get_field("whisper_to")
        received = recipients.remote_field.through.objects.filter(
            post_id=OuterRef("post_id"), user_id=user.pk
        )
        whisper &= ~(Q(post__author_id=user.pk) | Q(Exists(received)))
    unseen = link._default_manager.filter(roll_id=OuterRef("pk")).filter(
        Q(hidden=True) | Q(post__deleted_at__isnull=False) | whisper
    )
    # NOT EXISTS, not an exclude over the joined link and post: the rolls come in page order
    # from roll_recent and the anti-join stops with the page (the link and post are probed by
    # their keys, or read once when that is cheaper).
    return rolls.filter(~Exists(unseen.order_by()))
