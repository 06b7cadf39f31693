"""Writes of the world: campaigns, invitations and members, settlements and places, and the
master's world actions (shops R23, searches R22, routes R18, restoring supplies R16).

Services are keyword-only, validate their input, and raise ``ServiceError`` (a Django
ValidationError) with a Spanish message the page shows where the user is. Every write on an
existing campaign runs under its lock (``nucleo.locks.campaign_locked``), the master check
(``mundo.access.require_master``) included, so a role and a day checked are still true when
the write lands.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable

import numpy as np
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from mundo.access import require_master
from mundo.models import (
    RESERVED_CAMPAIGN_SLUGS,
    Campaign,
    Grid,
    Invitation,
    Location,
    Membership,
    Settlement,
    WorldRoll,
)
from nucleo import bounds
from nucleo.errors import ServiceError
from nucleo.ledger import roll_record
from nucleo.locks import campaign_lock, campaign_locked, lock_row, lock_rows
from nucleo.text import clean_line, clean_text
from reglas.core import RollPurpose
from reglas.encounters import cells as cells_in_area
from reglas.encounters import roll_encounter
from reglas.errors import RulesError
from reglas.population import AdjustedPopulation, apply_adjustments, population
from reglas.search import roll_search
from reglas.supplies import ShopSupplies, roll_shop_supplies
from reglas.tables import DetectionMode
from reglas.verify import RecordingGenerator


def _unique_campaign_slug(name: str) -> str:
    base = slugify(name)[:100] or "partida"
    slug, n = base, 1
    while slug in RESERVED_CAMPAIGN_SLUGS or Campaign.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


@transaction.atomic
def campaign_create(
    *,
    user: User,
    name: str,
    apocalypse_date: datetime.date,
    current_day: int = 0,
    is_public: bool = False,
    description: str = "",
    time_zone: str = "Europe/Madrid",
) -> Campaign:
    """Create a campaign with ``user`` as its master (one Membership with role master).

    Raises ServiceError (field errors) when a value is invalid; nothing is saved then.
    """
    campaign = Campaign(
        name=clean_line(name).strip(),
        slug=_unique_campaign_slug(name),
        apocalypse_date=apocalypse_date,
        current_day=current_day,
        is_public=is_public,
        description=clean_text(description),
        time_zone=time_zone,
    )
    campaign.full_clean()
    campaign.save()
    Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.MASTER)
    return campaign


@campaign_locked(lambda campaign, **_: campaign.pk)
def invitation_create(
    *,
    campaign: Campaign,
    created_by: User,
    single_use: bool = True,
    valid_days: int | None = None,
) -> Invitation:
    """A new invitation link: single use, or reusable until ``valid_days`` days from now.

    Raises ServiceError when ``created_by`` is not the campaign's master, or when a reusable
    invitation has no expiry (an open door forever is refused), or ``valid_days`` < 1.
    """
    require_master(campaign, created_by, _("Only the campaign's master can invite players."))
    if valid_days is not None and valid_days < 1:
        raise ServiceError({"valid_days": _("An invitation must be valid for at least 1 day.")})
    if not single_use and valid_days is None:
        raise ServiceError(
            {"valid_days": _("A reusable invitation needs an expiry: say for how many days.")}
        )
    expires_at = timezone.now() + datetime.timedelta(days=valid_days) if valid_days else None
    return Invitation.objects.create(
        campaign=campaign, created_by=created_by, single_use=single_use, expires_at=expires_at
    )


def invitation_problem(invitation: Invitation) -> str | None:
    """Why the invitation can no longer be used (Spanish sentence), or None when it can."""
    if invitation.revoked:
        return _("This invitation has been revoked by the master.")
    if invitation.expires_at is not None and invitation.expires_at <= timezone.now():
        return _("This invitation has expired. Ask the master for a new one.")
    if invitation.single_use and invitation.uses > 0:
        return _("This invitation has already been used. Ask the master for a new one.")
    return None


def invitation_accept(*, token: str, user: User) -> Membership:
    """Join the invitation's campaign as a player; returns the membership.

    A member who follows the link again keeps their role and uses nothing. Raises ServiceError
    when the invitation does not exist, was revoked, has expired or was already used. The
    invitation row is locked (after its campaign) so two people cannot both consume a
    single-use link.
    """
    campaign_id = Invitation.objects.filter(token=token).values_list("campaign_id", flat=True)
    if not campaign_id:
        raise ServiceError(_("This invitation does not exist."))
    with campaign_lock(campaign_id[0]):
        locked = lock_rows(Invitation.objects.select_related("campaign").filter(token=token))
        if not locked:
            raise ServiceError(_("This invitation does not exist."))
        invitation = locked[0]
        existing = Membership.objects.filter(campaign=invitation.campaign, user=user).first()
        if existing is not None:
            return existing
        problem = invitation_problem(invitation)
        if problem:
            raise ServiceError(problem)
        membership = Membership.objects.create(
            campaign=invitation.campaign, user=user, role=Membership.Role.PLAYER
        )
        Invitation.objects.filter(pk=invitation.pk).update(uses=invitation.uses + 1)
        return membership


@campaign_locked(lambda invitation, **_: invitation.campaign_id)
def invitation_revoke(*, invitation: Invitation, user: User) -> None:
    """Revoke an invitation. Raises ServiceError unless ``user`` is the campaign's master."""
    require_master(
        invitation.campaign_id, user, _("Only the campaign's master can revoke invitations.")
    )
    Invitation.objects.filter(pk=invitation.pk).update(revoked=True)


# --- the world: settlements, places, master actions (R16–R18, R22, R23) -----------------------


def _world_roll(
    *,
    campaign: Campaign,
    kind: str,
    purpose: int,
    subject_id: int,
    user: User | None,
    roller: Callable[[np.random.Generator], tuple[list[int], dict[str, object], str]],
    settlement: Settlement | None = None,
    location: Location | None = None,
) -> WorldRoll:
    """Make one world roll and write it through the ledger (``nucleo.ledger.roll_record``):
    key ``[day, purpose, subject id, sequence]`` under the campaign lock the caller holds.
    ``roller`` returns the dice, the engine's result (JSON) and its description; the
    generator's calls are stored as ``draws`` (``reglas.verify.RecordingGenerator``), so the
    roll can be verified once its dice period is revealed."""

    def fields(rng: np.random.Generator) -> dict[str, object]:
        recording = RecordingGenerator(rng.bit_generator)
        dice, result, description = roller(recording)
        return {
            "dice": dice,
            "result": result,
            "description": description,
            "draws": recording.draws,
        }

    return roll_record(
        WorldRoll,
        campaign=campaign,
        purpose=purpose,
        subject=subject_id,
        roller=fields,
        kind=kind,
        settlement=settlement,
        location=location,
        made_by=user if user is not None and user.is_authenticated else None,
    )


def _check_settlement_values(*, population: object, area_m2: object, growth_rate: object) -> None:
    errors: dict[str, str] = {}
    if not isinstance(population, int) or isinstance(population, bool) or population < 1:
        errors["population"] = _("The population (K) must be at least 1 inhabitant.")
    elif population > bounds.COUNT_MAX:
        errors["population"] = _("At most %(limit_value)s.") % {"limit_value": bounds.COUNT_MAX}
    if not isinstance(area_m2, int | float) or not math.isfinite(area_m2) or area_m2 < 4:
        errors["area_m2"] = _("The area must be at least one 2 × 2 m cell (4 m²).")
    elif area_m2 > bounds.AREA_M2_MAX:
        errors["area_m2"] = _("At most %(limit_value)s.") % {"limit_value": bounds.AREA_M2_MAX}
    if (
        not isinstance(growth_rate, int | float)
        or not math.isfinite(growth_rate)
        or growth_rate <= 0
    ):
        errors["growth_rate"] = _("The growth rate r must be above 0.")
    elif growth_rate > bounds.GROWTH_RATE_MAX:
        errors["growth_rate"] = _("At most %(limit_value)s.") % {
            "limit_value": bounds.GROWTH_RATE_MAX
        }
    if errors:
        raise ServiceError(errors)


@campaign_locked(lambda campaign, **_: campaign.pk)
def settlement_create(
    *,
    campaign: Campaign,
    user: User | None,
    name: str,
    population: int,
    area_m2: float,
    growth_rate: float | None = None,
    own_grid: bool = False,
    own_climate: bool = False,
) -> Settlement:
    """A new settlement of ``population`` (K ≥ 1) inhabitants over ``area_m2`` m² (≥ 4 m²,
    one cell), growth rate r > 0 (None: the campaign's ``growth_rate`` setting, 1 by default).
    Raises ServiceError (field errors, Spanish) otherwise; nothing is saved then.
    Source: RULES.md R17, R18.
    """
    require_master(campaign, user)
    if growth_rate is None:
        growth_rate = campaign.rules.growth_rate
    _check_settlement_values(population=population, area_m2=area_m2, growth_rate=growth_rate)
    base = slugify(name)[:100] or "poblacion"
    slug, n = base, 1
    while Settlement.objects.filter(campaign=campaign, slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    settlement = Settlement(
        campaign=campaign,
        name=clean_line(name).strip(),
        slug=slug,
        population=population,
        area_m2=float(area_m2),
        growth_rate=float(growth_rate),
        own_grid=own_grid,
        own_climate=own_climate,
    )
    try:
        settlement.full_clean()
    except ValidationError as exc:
        raise ServiceError(exc.message_dict) from None
    settlement.save()
    return settlement


@campaign_locked(lambda settlement, **_: settlement.campaign_id)
def settlement_adjust(
    *,
    settlement: Settlement,
    user: User | None,
    zombies_destroyed: int | None = None,
    survivors_rescued: int | None = None,
    characters_risen: int | None = None,
) -> Settlement:
    """Set the master's running tally of a settlement (cumulative counts since day 0, ≥ 0).

    Applied on top of the curve, never below 0 (``reglas.population.apply_adjustments``).
    Raises ServiceError for a negative count; nothing changes then. Source: RULES.md R17.
    """
    require_master(settlement.campaign, user)
    values = {
        "zombies_destroyed": zombies_destroyed,
        "survivors_rescued": survivors_rescued,
        "characters_risen": characters_risen,
    }
    changes = {k: v for k, v in values.items() if v is not None}
    errors = {
        k: _("A count cannot be negative.")
        for k, v in changes.items()
        if isinstance(v, bool) or not isinstance(v, int) or v < 0
    }
    errors |= {
        k: _("At most %(limit_value)s.") % {"limit_value": bounds.COUNT_MAX}
        for k, v in changes.items()
        if k not in errors and v > bounds.COUNT_MAX
    }
    if errors:
        raise ServiceError(errors)
    with campaign_lock(settlement.campaign_id):
        Settlement.objects.filter(pk=settlement.pk).update(**changes)
    settlement.refresh_from_db()
    return settlement


@campaign_locked(lambda settlement, **_: settlement.campaign_id)
def location_create(
    *,
    settlement: Settlement,
    user: User | None,
    name: str,
    kind: str,
    shop_type: str = "",
    description: str = "",
    latrine_distance_m: float | None = None,
    has_cesspit: bool = False,
    running_water: bool = False,
    paper_substitute: bool = False,
) -> Location:
    """A new place in a settlement: a dwelling, a shop of a type of R23, a shelter with its
    hygiene features (R7: latrine distance in m ≥ 0, cesspit, running water) or a water source.

    Raises ServiceError (Spanish) for a shop without type, a type on a non-shop, a negative
    distance or an unknown kind; nothing is saved then.
    """
    require_master(settlement.campaign, user)
    if latrine_distance_m is not None and (
        not math.isfinite(latrine_distance_m) or latrine_distance_m < 0
    ):
        raise ServiceError({"latrine_distance_m": _("A distance cannot be negative.")})
    location = Location(
        settlement=settlement,
        name=clean_line(name).strip(),
        kind=kind,
        shop_type=shop_type if kind == Location.Kind.SHOP else shop_type or "",
        description=clean_text(description),
        latrine_distance_m=latrine_distance_m,
        has_cesspit=has_cesspit,
        running_water=running_water,
        paper_substitute=paper_substitute,
    )
    try:
        location.full_clean()
    except ValidationError as exc:
        raise ServiceError(exc.message_dict) from None
    location.save()
    return location


@campaign_locked(lambda location, **_: location.settlement.campaign_id)
def shop_discover(*, location: Location, user: User | None) -> WorldRoll:
    """Discover a shop: roll what is left in it on the current day, once (R23).

    d100 + ``shop_decay_per_day`` (3) × day → band of the campaign's supplies table → share
    of the shop type's base stock (kcal, L, rolls, doses),
    stored on the place and in the ledger with its dice. Raises ServiceError when the place is
    not a shop or was already discovered (the stock is never re-rolled). Source: RULES.md R23.
    """
    campaign = location.settlement.campaign
    require_master(campaign, user)
    # Every world write locks the campaign first (the tick does too): a master's roll never
    # lands on a day the tick is closing.
    with campaign_lock(campaign.pk) as campaign:
        place = lock_row(Location.objects, location.pk)
        if place.kind != Location.Kind.SHOP:
            raise ServiceError(_("Only a shop can be discovered."))
        if place.discovered_day is not None:
            raise ServiceError(
                _("This shop was already discovered on day %(day)s: its stock is not rolled again.")
                % {"day": place.discovered_day}
            )
        day = campaign.current_day
        tables = campaign.tables
        stock: dict[str, ShopSupplies] = {}

        def roll(rng: np.random.Generator) -> tuple[list[int], dict[str, object], str]:
            found = roll_shop_supplies(place.shop_type, day, rng, tables.supplies)
            stock["s"] = found
            dice = [found.die] + ([found.share_roll] if found.share_roll is not None else [])
            return dice, found.as_dict(), found.describe()

        record = _world_roll(
            campaign=campaign,
            kind=WorldRoll.Kind.SHOP,
            purpose=RollPurpose.SHOP,
            subject_id=place.pk,
            user=user,
            roller=roll,
            settlement=place.settlement,
            location=place,
        )
        found = stock["s"]
        Location.objects.filter(pk=place.pk).update(
            discovered_day=day,
            stock_food_kcal=found.food_kcal,
            stock_water_l=found.water_l,
            stock_toilet_paper_rolls=found.toilet_paper_rolls,
            stock_medicine_doses=found.medicine_doses,
        )
    return record


@campaign_locked(lambda location, **_: location.settlement.campaign_id)
def location_search(*, location: Location, user: User | None) -> WorldRoll:
    """Search a dwelling or a shop for weapons (R22), once per place; the dice and what was
    found go to the ledger. Raises ServiceError for another kind of place or a second search.
    Source: RULES.md R22.
    """
    campaign = location.settlement.campaign
    require_master(campaign, user)
    # Every world write locks the campaign first (the tick does too): a master's roll never
    # lands on a day the tick is closing.
    with campaign_lock(campaign.pk) as campaign:
        place = lock_row(Location.objects, location.pk)
        if place.kind not in (Location.Kind.DWELLING, Location.Kind.SHOP):
            raise ServiceError(_("Only a dwelling or a shop can be searched for weapons."))
        if place.searched_day is not None:
            raise ServiceError(
                _("This place was already searched on day %(day)s.") % {"day": place.searched_day}
            )

        def roll(rng: np.random.Generator) -> tuple[list[int], dict[str, object], str]:
            found = roll_search(rng, campaign.tables.search)
            return list(found.dice), found.as_dict(), found.describe()

        record = _world_roll(
            campaign=campaign,
            kind=WorldRoll.Kind.SEARCH,
            purpose=RollPurpose.SEARCH,
            subject_id=place.pk,
            user=user,
            roller=roll,
            settlement=place.settlement,
            location=place,
        )
        Location.objects.filter(pk=place.pk).update(searched_day=campaign.current_day)
    return record


@campaign_locked(lambda settlement, **_: settlement.campaign_id)
def route_check(
    *,
    settlement: Settlement,
    user: User | None,
    path_m: float,
    mode: str = DetectionMode.NORMAL.value,
) -> WorldRoll:
    """Check a route of ``path_m`` m across a settlement for zombies (R18), in normal or
    aggressive mode, with today's zombies (curve and the master's tally, R17).

    Raises ServiceError for a negative or non-finite length or an unknown mode.
    Source: RULES.md R18.
    """
    campaign = settlement.campaign
    require_master(campaign, user)
    if not isinstance(path_m, int | float) or not math.isfinite(path_m) or path_m < 0:
        raise ServiceError({"path_m": _("The route length cannot be negative.")})
    try:
        detection = DetectionMode.parse(mode)
    except RulesError:
        raise ServiceError({"mode": _("Unknown detection mode.")}) from None
    # Every world write locks the campaign first (the tick does too): a master's roll never
    # lands on a day the tick is closing.
    with campaign_lock(campaign.pk) as campaign:
        place = Settlement.objects.get(pk=settlement.pk)
        zombies = adjusted_population(place, campaign.current_day).zombies
        tables = campaign.tables
        if cells_in_area(place.area_m2, tables.encounters) == 0:
            raise ServiceError(
                {"settlement": _("This settlement is smaller than one cell of the campaign.")}
            )

        def roll(rng: np.random.Generator) -> tuple[list[int], dict[str, object], str]:
            met = roll_encounter(
                place.area_m2, zombies, float(path_m), detection, rng, tables.encounters
            )
            return [met.drawn], met.as_dict(), met.describe()

        return _world_roll(
            campaign=campaign,
            kind=WorldRoll.Kind.ROUTE,
            purpose=RollPurpose.ROUTE,
            subject_id=place.pk,
            user=user,
            roller=roll,
            settlement=place,
        )


def adjusted_population(settlement: Settlement, day: int) -> AdjustedPopulation:
    """The settlement's zombies and survivors on ``day``: the curve with the master's tally on
    top, never below 0. No query. Source: RULES.md R17."""
    rules = settlement.campaign.rules
    base = population(settlement.population, day, settlement.growth_rate, rules.initial_zombies)
    return apply_adjustments(
        base,
        destroyed=settlement.zombies_destroyed,
        rescued=settlement.survivors_rescued,
        risen=settlement.characters_risen,
    )


def grid_for(*, campaign: Campaign, settlement: Settlement | None = None) -> Grid:
    """The grid that serves a settlement (its own, or the campaign's regional one), created
    on first use with power and water on. Source: RULES.md R16."""
    if settlement is not None and settlement.own_grid:
        grid, _created = Grid.objects.get_or_create(campaign=campaign, settlement=settlement)
    else:
        grid, _created = Grid.objects.get_or_create(campaign=campaign, settlement=None)
    return grid


@campaign_locked(lambda grid, **_: grid.campaign_id)
def utility_restore(
    *, grid: Grid, user: User | None, power: bool = False, water: bool = False
) -> WorldRoll:
    """Restore power and/or water on a grid (R16: a cut stays cut until the master restores
    it). Recorded in the ledger (no dice). Raises ServiceError when nothing was chosen or what
    was chosen is already on. Source: RULES.md R16.
    """
    campaign = grid.campaign
    require_master(campaign, user)
    if not power and not water:
        raise ServiceError(_("Choose power, water or both."))
    # Every world write locks the campaign first (the tick does too): a master's roll never
    # lands on a day the tick is closing.
    with campaign_lock(campaign.pk) as campaign:
        current = lock_row(Grid.objects, grid.pk)
        restored = []
        changes: dict[str, object] = {}
        if power and not current.power_on:
            changes.update(power_on=True, power_cut_day=None)
            restored.append("luz")
        if water and not current.water_on:
            changes.update(water_on=True, water_cut_day=None)
            restored.append("agua")
        if not restored:
            raise ServiceError(_("That supply is not cut: there is nothing to restore."))
        Grid.objects.filter(pk=current.pk).update(**changes)
        what = " y ".join(restored)
        return _world_roll(
            campaign=campaign,
            kind=WorldRoll.Kind.RESTORE,
            purpose=RollPurpose.RESTORE,
            subject_id=current.pk,
            user=user,
            roller=lambda _rng: (
                [],
                {"power": "luz" in restored, "water": "agua" in restored},
                f"Restablecido el suministro de {what} ({current}).",
            ),
            settlement=current.settlement,
        )


@campaign_locked(lambda campaign, **_: campaign.pk)
def campaign_schedule_set(
    *,
    campaign: Campaign,
    user: User | None,
    schedule: str,
    tick_time: datetime.time | None = None,
) -> Campaign:
    """Set the campaign's schedule: ``daily`` at ``tick_time`` (local) or ``manual``.

    Raises ServiceError for an unknown schedule. Source: DESIGN.md "Time".
    """
    require_master(campaign, user)
    if schedule not in Campaign.Schedule.values:
        raise ServiceError({"schedule": _("Unknown schedule.")})
    changes: dict[str, object] = {"schedule": schedule}
    if tick_time is not None:
        changes["tick_time"] = tick_time
    Campaign.objects.filter(pk=campaign.pk).update(**changes)
    campaign.refresh_from_db()
    return campaign
