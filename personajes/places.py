"""Where characters are and live: the master moves them (with the R18 route check on the way),
assigns their shelter, and undoes a move.

A character has a settlement, a place in it (``Character.location``; empty: the streets) and
the shelter it lives in (``Character.shelter``). The shelter is the one field the daily tick
reads for hygiene (R7), the shared stash (R15) and cohabitants (R10), so a move that makes a
new place home changes all three at once. Every change is a ``CharacterMove`` row written in
the transaction that changes the character, under the campaign lock (characters locked in
primary-key order). A move across a settlement may be checked for zombies: the master's route
check (``mundo.services.route_check``, R18) is made once for the whole group, and the zombies
met wait as ``pending`` until the master plays them as a fight or narrates them.

Source: RULES.md R7, R10, R15, R18.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from mundo import services as world
from mundo.access import is_master
from mundo.models import Location, Settlement, WorldRoll
from nucleo.errors import NotFound, ServiceError
from nucleo.locks import campaign_lock, lock_row, lock_rows
from nucleo.users import AnyUser
from personajes.models import Character, CharacterMove

MOVE_GROUP_MAX = 50
"""Most characters one move takes along (a group crossing together shares a route check)."""


@dataclass(frozen=True, slots=True)
class MoveResult:
    """What a move did: one ``CharacterMove`` per character (in id order) and the route check
    made for it (None when no route was checked). ``route_check.result["zombies_met"]`` is
    the zombies met (R18)."""

    moves: tuple[CharacterMove, ...]
    route_check: WorldRoll | None

    @property
    def zombies_met(self) -> int:
        """Zombies the group met on the way (0 without a route check)."""
        return self.moves[0].zombies_met if self.moves else 0


def _require_master(campaign_id: int, user: AnyUser) -> None:
    if not is_master(campaign_id, user):
        raise ServiceError(_("Only the campaign's master can do that."))


def _destination(
    campaign_id: int, settlement_id: Any, location_id: Any, make_home: bool
) -> tuple[Settlement, Location | None]:
    settlement = Settlement.objects.filter(pk=settlement_id or 0, campaign_id=campaign_id).first()
    location = None
    if location_id:
        location = (
            Location.objects.select_related("settlement")
            .filter(pk=location_id, settlement__campaign_id=campaign_id)
            .first()
        )
        if location is None:
            raise ServiceError({"location": _("Choose a place of this campaign.")})
        if settlement is not None and location.settlement_id != settlement.pk:
            raise ServiceError({"location": _("That place is in another settlement.")})
        settlement = location.settlement
    if settlement is None:
        raise ServiceError({"settlement": _("Choose a settlement of this campaign.")})
    if make_home and (location is None or location.kind != Location.Kind.SHELTER):
        raise ServiceError({"make_home": _("Only a shelter can become where the characters live.")})
    return settlement, location


def _lock_characters(campaign_id: int, ids: Sequence[Any]) -> list[Character]:
    try:
        wanted = {int(i) for i in ids}
    except (TypeError, ValueError):
        raise ServiceError({"characters": _("Choose approved characters.")}) from None
    if not wanted or len(wanted) > MOVE_GROUP_MAX:
        raise ServiceError(
            {"characters": _("Choose from 1 to %(max)s characters.") % {"max": MOVE_GROUP_MAX}}
        )
    rows = lock_rows(
        Character.objects.filter(
            campaign_id=campaign_id, pk__in=wanted, status=Character.Status.APPROVED
        )
    )
    if len(rows) != len(wanted):
        raise ServiceError({"characters": _("Choose approved characters.")})
    return rows


def character_move(
    *,
    campaign_id: int,
    user: AnyUser,
    character_ids: Sequence[Any],
    settlement_id: Any = None,
    location_id: Any = None,
    make_home: bool = False,
    route_m: float | None = None,
    route_mode: str = "normal",
) -> MoveResult:
    """Move approved characters to a settlement and, optionally, a place in it
    (``location_id``; None: the streets). ``make_home`` makes that place (a shelter) where they
    live (their stash R15, hygiene R7, cohabitants R10). With ``route_m`` (m ≥ 0) the master's
    route check (R18, ``route_mode`` normal or aggressive) is made once across the destination
    settlement and its zombies met are recorded on every move (``pending`` when > 0).

    Raises ServiceError (field errors, Spanish): not the master; no or unknown characters, or
    not approved; a place of another settlement or campaign; ``make_home`` on a non-shelter;
    a bad route (from ``route_check``). Nothing changes then. Source: RULES.md R7, R15, R18.
    """
    with campaign_lock(campaign_id) as campaign:
        _require_master(campaign.pk, user)
        settlement, location = _destination(campaign.pk, settlement_id, location_id, make_home)
        characters = _lock_characters(campaign.pk, character_ids)
        roll = None
        met = 0
        if route_m is not None:
            roll = world.route_check(
                settlement=settlement,
                user=user if user.is_authenticated else None,
                path_m=route_m,
                mode=route_mode,
            )
            met = int(roll.result.get("zombies_met", 0))
        moves = []
        for character in characters:
            shelter_id = location.pk if make_home and location else character.shelter_id
            moves.append(
                CharacterMove(
                    campaign_id=campaign.pk,
                    character=character,
                    day=campaign.current_day,
                    from_settlement_id=character.settlement_id,
                    from_location_id=character.location_id,
                    from_shelter_id=character.shelter_id,
                    to_settlement_id=settlement.pk,
                    to_location_id=location.pk if location else None,
                    to_shelter_id=shelter_id,
                    route_check=roll,
                    zombies_met=met,
                    outcome=CharacterMove.Outcome.PENDING if met else CharacterMove.Outcome.NONE,
                    made_by=user if user is not None and user.is_authenticated else None,
                )
            )
            Character.objects.filter(pk=character.pk).update(
                settlement_id=settlement.pk,
                location_id=location.pk if location else None,
                shelter_id=shelter_id,
            )
        CharacterMove.objects.bulk_create(moves)
        return MoveResult(tuple(moves), roll)


def character_shelter_set(
    *, character: Character, user: AnyUser, shelter_id: Any = None
) -> CharacterMove:
    """Assign the shelter a character lives in (None: none, it lives in the open) without
    moving it: its hygiene (R7), stash (R15) and cohabitants (R10) follow from the next tick.
    Logged as a move (no route). Raises ServiceError: not the master; not a shelter of this
    campaign; not an approved character; already its shelter."""
    with campaign_lock(character.campaign_id) as campaign:
        _require_master(campaign.pk, user)
        locked = _lock_characters(campaign.pk, [character.pk])[0]
        shelter = None
        if shelter_id:
            shelter = Location.objects.filter(
                pk=shelter_id, kind=Location.Kind.SHELTER, settlement__campaign_id=campaign.pk
            ).first()
            if shelter is None:
                raise ServiceError({"shelter": _("Choose a shelter of this campaign.")})
        new_id = shelter.pk if shelter else None
        if new_id == locked.shelter_id:
            raise ServiceError({"shelter": _("That is already where the character lives.")})
        move = CharacterMove.objects.create(
            campaign_id=campaign.pk,
            character=locked,
            day=campaign.current_day,
            from_settlement_id=locked.settlement_id,
            from_location_id=locked.location_id,
            from_shelter_id=locked.shelter_id,
            to_settlement_id=locked.settlement_id,
            to_location_id=locked.location_id,
            to_shelter_id=new_id,
            made_by=user if user is not None and user.is_authenticated else None,
        )
        Character.objects.filter(pk=locked.pk).update(shelter_id=new_id)
        return move


def character_move_undo(*, campaign_id: int, user: AnyUser, move_id: Any) -> CharacterMove:
    """Undo a move: the character goes back where it was (settlement, place, shelter), logged
    as a move that ``reverses`` it, with no route check. Raises NotFound for a move of another
    campaign; ServiceError: not the master; already undone; the character moved since or is no
    longer in play."""
    with campaign_lock(campaign_id) as campaign:
        _require_master(campaign.pk, user)
        try:
            move = lock_row(CharacterMove.objects.filter(campaign_id=campaign.pk), int(move_id))
        except (CharacterMove.DoesNotExist, TypeError, ValueError):
            raise NotFound("No such move") from None
        if CharacterMove.objects.filter(reverses=move).exists():
            raise ServiceError(_("This move was already undone."))
        character = lock_row(Character.objects, move.character_id)
        here = (character.settlement_id, character.location_id, character.shelter_id)
        if here != (move.to_settlement_id, move.to_location_id, move.to_shelter_id):
            raise ServiceError(_("The character has moved since: undo its later moves first."))
        if character.status != Character.Status.APPROVED:
            raise ServiceError(_("Only a living character in play moves."))
        back = CharacterMove.objects.create(
            campaign_id=campaign.pk,
            character=character,
            day=campaign.current_day,
            from_settlement_id=move.to_settlement_id,
            from_location_id=move.to_location_id,
            from_shelter_id=move.to_shelter_id,
            to_settlement_id=move.from_settlement_id,
            to_location_id=move.from_location_id,
            to_shelter_id=move.from_shelter_id,
            reverses=move,
            made_by=user if user is not None and user.is_authenticated else None,
        )
        Character.objects.filter(pk=character.pk).update(
            settlement_id=move.from_settlement_id,
            location_id=move.from_location_id,
            shelter_id=move.from_shelter_id,
        )
        return back


def move_outcome_set(*, campaign_id: int, user: AnyUser, route_check_id: Any, outcome: str) -> int:
    """Say what became of the zombies a route check met: ``combat`` (played as a fight) or
    ``narrated``; every pending move of that check takes it. Returns how many moves changed.
    Raises ServiceError: not the master; an unknown outcome; nothing pending for that check."""
    if outcome not in (CharacterMove.Outcome.COMBAT, CharacterMove.Outcome.NARRATED):
        raise ServiceError({"outcome": _("Choose a fight or narrated.")})
    with campaign_lock(campaign_id) as campaign:
        _require_master(campaign.pk, user)
        changed = CharacterMove.objects.filter(
            campaign_id=campaign.pk,
            route_check_id=route_check_id,
            outcome=CharacterMove.Outcome.PENDING,
        ).update(outcome=outcome)
        if not changed:
            raise ServiceError(_("No zombies of that route check are waiting."))
        return changed


_MOVE_COLUMNS = tuple(f.name for f in CharacterMove._meta.concrete_fields)


def recent_moves(campaign_id: int, limit: int = 10) -> list[CharacterMove]:
    """The campaign's latest moves, newest first, with their places and route check and
    whether they were undone: one query with the places joined, and one each for the
    characters, settlements (from, to), route checks and reversals of those rows (none when
    there is no move). Nine joins in one query cost PostgreSQL more to plan than the five
    small queries take (20–55 ms planning under load, against 0.5 ms with four). Of the
    joined places only the names are read (the list shows no more; a third of the query's
    cost was building their other columns)."""
    joined = ("from_location", "to_location", "from_shelter", "to_shelter")
    return list(
        CharacterMove.objects.filter(campaign_id=campaign_id)
        .select_related(*joined)
        .only(*_MOVE_COLUMNS, *(f"{name}__name" for name in joined))
        .prefetch_related(
            "character", "from_settlement", "to_settlement", "route_check", "reversal"
        )
        .order_by("-created_at", "-id")[:limit]
    )
