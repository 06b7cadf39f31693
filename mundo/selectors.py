"""Reads of the world, with their permission checks and the rules they compute.

``campaign_get_for_user`` is the one permission-checked fetch of a campaign: pages, API, feeds
and e-mails all go through it, so every surface shows the same thing to the same person.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q, QuerySet
from django.http import Http404

from mundo.models import Campaign, Membership, Settlement
from reglas.encounters import cells as cells_in_area
from reglas.encounters import p_cell
from reglas.population import Population, population, population_curve

type AnyUser = AbstractBaseUser | AnonymousUser


def campaign_role(campaign: Campaign, user: AnyUser) -> str | None:
    """The user's role in the campaign (``"master"``/``"player"``) or None (one query)."""
    if not user.is_authenticated:
        return None
    return (
        Membership.objects.filter(campaign=campaign, user=user)
        .values_list("role", flat=True)
        .first()
    )


def campaigns_visible_to(user: AnyUser) -> QuerySet[Campaign]:
    """Campaigns the user may read: public ones, the ones they belong to, all for superusers."""
    qs = Campaign.objects.all()
    if user.is_authenticated and user.is_superuser:
        return qs
    if user.is_authenticated:
        return qs.filter(Q(is_public=True) | Q(memberships__user=user)).distinct()
    return qs.filter(is_public=True)


def campaign_get_for_user(*, slug: str, user: AnyUser) -> Campaign:
    """The campaign with this slug if the user may read it.

    Raises Http404 when it does not exist or the user may not read it (a private campaign's
    existence is not revealed).
    """
    try:
        return campaigns_visible_to(user).get(slug=slug)
    except Campaign.DoesNotExist:
        raise Http404("No such campaign") from None


def campaign_get_for_master(*, slug: str, user: AnyUser) -> Campaign:
    """The campaign with this slug if ``user`` is its master; Http404 otherwise.

    Players get 404 too: master pages do not reveal themselves.
    """
    if not user.is_authenticated:
        raise Http404("No such campaign")
    try:
        return Campaign.objects.get(
            slug=slug, memberships__user=user, memberships__role=Membership.Role.MASTER
        )
    except Campaign.DoesNotExist:
        raise Http404("No such campaign") from None


@dataclass(frozen=True, slots=True)
class SettlementStatus:
    """A settlement on one day: population (R17) and zombies per cell (R18).

    ``cells`` = ⌊area / 4 m²⌋, ``p_cell`` a probability 0..1, ``p_cell_percent`` in %.
    """

    settlement: Settlement
    day: int
    population: Population
    cells: int
    p_cell: float

    @property
    def zombies(self) -> int:
        return self.population.zombies

    @property
    def survivors(self) -> int:
        return self.population.survivors

    @property
    def p_cell_percent(self) -> float:
        return 100.0 * self.p_cell


def settlement_status(settlement: Settlement, day: int) -> SettlementStatus:
    """Zombies, survivors and p per cell of a settlement on ``day``. No query.

    Source: RULES.md R17, R18.
    """
    pop = population(settlement.population, day, settlement.growth_rate)
    cells = cells_in_area(settlement.area_m2)
    return SettlementStatus(
        settlement=settlement,
        day=day,
        population=pop,
        cells=cells,
        p_cell=p_cell(pop.zombies, cells),
    )


def settlements_with_status(campaign: Campaign) -> list[SettlementStatus]:
    """Every settlement of the campaign with its status today (one query)."""
    return [
        settlement_status(s, campaign.current_day)
        for s in Settlement.objects.filter(campaign=campaign).select_related("campaign")
    ]


def settlement_get(*, campaign: Campaign, slug: str) -> Settlement:
    """The campaign's settlement with this slug; Http404 if there is none."""
    try:
        return Settlement.objects.select_related("campaign").get(campaign=campaign, slug=slug)
    except Settlement.DoesNotExist:
        raise Http404("No such settlement") from None


def settlement_curve(settlement: Settlement, first_day: int, last_day: int) -> list[Population]:
    """The settlement's population for each day in ``first_day..last_day`` (inclusive).

    Source: RULES.md R17.
    """
    return population_curve(
        settlement.population, range(first_day, last_day + 1), settlement.growth_rate
    )
