"""Who may see or do what with characters and their rolls: built on ``mundo.access``.

The campaign role comes from membership alone (``mundo.access``; a superuser is no master by
being one). On top of it:

- the owner (the character's player) and the campaign's master see a character in full, at
  every status: condition state, inventory, change history and rolls;
- anyone who may read the campaign sees approved, dead and risen characters, public part only
  (name, concept, portrait, status, traits); drafts and submitted sheets are between the player
  and the master;
- the owner and the master may roll for a living character; the master reviews and edits;
- a roll without a character: its maker and the master.

A fetch that fails raises ``nucleo.errors.NotFound`` whether the thing is missing or hidden, and
``Forbidden`` when the viewer sees it but may not do this. Source: RULES.md R5.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from mundo.access import Viewer, campaign_role, campaign_roles, is_master, viewer_for
from mundo.models import Campaign, Membership
from nucleo.compiled import CompiledQuery
from nucleo.errors import Forbidden, NotFound
from nucleo.users import AnyUser
from personajes.models import Character, Roll

PUBLIC_STATUSES = (Character.Status.APPROVED, Character.Status.DEAD, Character.Status.RISEN)
"""Statuses whose sheet anyone who may read the campaign may see."""


@dataclass(frozen=True, slots=True)
class CharacterViewer(Viewer):
    """A campaign viewer with their characters in it: ``character_ids`` (any status) and
    ``living_character_ids`` (draft, submitted or approved)."""

    character_ids: frozenset[int] = field(default_factory=frozenset)
    living_character_ids: frozenset[int] = field(default_factory=frozenset)


def _viewer(user: Any, role: str | None, characters: Iterable[tuple[int, str]]) -> CharacterViewer:
    own = list(characters)
    return CharacterViewer(
        user=user,
        role=role,
        character_ids=frozenset(pk for pk, _status in own),
        living_character_ids=frozenset(
            pk for pk, status in own if status in Character.LIVING_STATUSES
        ),
    )


@dataclass(frozen=True, slots=True)
class _UserId:
    """A signed-in user known by id alone: what the visibility filters read of one."""

    pk: int
    is_authenticated: bool = True


def viewer_by_id(role: str | None, user_id: int | None) -> CharacterViewer:
    """A viewer known by its ``role`` and user id alone (None: anonymous), without characters:
    what the visibility filters (``escenas.access.scenes_readable_q``, ``posts_visible_q``)
    read of one, for a query built from values (``nucleo.compiled``). No query."""
    user = _UserId(user_id) if user_id is not None else AnonymousUser()
    return CharacterViewer(user=user, role=role)


def character_viewer_from_rows(
    user: Any, role: str | None, characters: Iterable[tuple[int, str]]
) -> CharacterViewer:
    """The viewer of a campaign built from rows already read: ``role`` (the membership's, None
    for a non-member) and ``characters`` the user's ``(id, status)`` there. No query (for a
    caller that read them inside a larger query, as ``escenas.access`` does for scene pages)."""
    return _viewer(user, role, characters)


def character_viewer_for(campaign: Campaign | int, user: AnyUser | None) -> CharacterViewer:
    """The viewer of ``campaign`` for ``user`` with their characters (anonymous when None or
    not signed in). Two queries for a signed-in user (role, characters), none for anonymous."""
    return with_characters(campaign, viewer_for(campaign, user))


def with_characters(campaign: Campaign | int, viewer: Viewer) -> CharacterViewer:
    """``viewer`` (from ``mundo.access``) with the user's characters in the campaign: one query
    for a signed-in user, none for anonymous (the role is not asked again)."""
    if viewer.user_id is None:
        return CharacterViewer(user=viewer.user, role=viewer.role)
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    rows = _OWN_CHARACTERS.rows(campaign_id=campaign_id, user_id=viewer.user_id)
    return _viewer(viewer.user, viewer.role, rows)


def _own_characters(*, campaign_id: int, user_id: int) -> QuerySet[Character, tuple[int, str]]:
    """``(pk, status)`` of the user's characters in the campaign. Unordered: the model's order
    (campaign, name) joined the campaign and sorted for nothing (1.7 ms for a player of 500
    characters)."""
    own = Character.objects.filter(campaign_id=campaign_id, player_id=user_id)
    return own.order_by().values_list("pk", "status")


# Built and compiled once: every campaign page asks it (nucleo.compiled).
_OWN_CHARACTERS = CompiledQuery(_own_characters)


def viewers_for_users(campaign: Campaign, users: Iterable[Any]) -> dict[int, CharacterViewer]:
    """``character_viewer_for`` for many users at once (two queries), keyed by user id."""
    users = list(users)
    ids = [u.pk for u in users]
    roles = campaign_roles(campaign, ids)
    chars: dict[int, list[tuple[int, str]]] = {}
    for pk, player_id, status in (
        Character.objects.filter(campaign=campaign, player_id__in=ids)
        .order_by()
        .values_list("pk", "player_id", "status")
    ):
        chars.setdefault(player_id, []).append((pk, status))
    return {u.pk: _viewer(u, roles.get(u.pk), chars.get(u.pk, [])) for u in users}


def member_viewers(
    memberships: dict[int, list[Membership]],
) -> dict[tuple[int, int], CharacterViewer]:
    """The viewer of every member of the given campaigns (memberships with their users, keyed
    by campaign id), keyed ``(campaign id, user id)``; the same viewers as
    ``character_viewer_for``. One query (characters)."""
    chars: dict[tuple[int, int], list[tuple[int, str]]] = {}
    rows = Character.objects.filter(
        campaign_id__in=list(memberships),
        player_id__in={m.user_id for ms in memberships.values() for m in ms},
    ).values_list("pk", "campaign_id", "player_id", "status")
    for pk, campaign_id, player_id, status in rows:
        chars.setdefault((campaign_id, player_id), []).append((pk, status))
    return {
        (campaign_id, m.user_id): _viewer(m.user, m.role, chars.get((campaign_id, m.user_id), []))
        for campaign_id, ms in memberships.items()
        for m in ms
    }


# --- characters --------------------------------------------------------------------------------


class CharacterAccess:
    """A character with what its viewer may do: ``is_owner``, ``is_master``, ``private`` (sees
    it in full), ``can_roll``. The role is read on first use (one query), so an owner's fetch
    costs none."""

    def __init__(self, character: Character, user: AnyUser | None) -> None:
        self.character = character
        self.user = user or AnonymousUser()

    @cached_property
    def viewer(self) -> Viewer:
        return Viewer(user=self.user, role=campaign_role(self.character.campaign_id, self.user))

    @property
    def is_owner(self) -> bool:
        return self.user.is_authenticated and self.character.player_id == self.user.pk

    @property
    def is_master(self) -> bool:
        return self.viewer.is_master

    @property
    def private(self) -> bool:
        return self.is_owner or self.is_master

    @property
    def can_roll(self) -> bool:
        return self.private and self.character.is_alive


def can_see_private(character: Character, user: AnyUser | None) -> bool:
    """True when ``user`` sees the character in full (condition state, inventory, change
    history and rolls): its owner and the campaign's master. At most one query (the role).
    Source: RULES.md R5."""
    if user is None or not user.is_authenticated:
        return False
    return character.player_id == user.pk or is_master(character.campaign_id, user)


def access_character(
    user: AnyUser | None, pk: int | str | None, *, master: bool = False, roll: bool = False
) -> CharacterAccess:
    """The character ``pk`` (``campaign`` and ``player`` select_related) with the viewer's
    rights, if ``user`` may see it.

    Owner and master see every status; anyone who may read the campaign sees approved, dead and
    risen characters. Raises ``NotFound`` otherwise, for a missing or malformed pk, and when
    ``master`` is set and the user is not the campaign's master (master pages do not reveal
    themselves). Raises ``Forbidden`` when ``roll`` is set and the viewer may not roll for it
    (not its owner or master). Queries: the character (with campaign and player), and the role
    unless the owner asks (anonymous: none).
    """
    if pk is None:
        raise NotFound("No such character")
    try:
        character = Character.objects.select_related(
            "campaign", "player", "settlement", "location", "shelter"
        ).get(pk=pk)
    except (Character.DoesNotExist, ValueError, TypeError):
        raise NotFound("No such character") from None
    access = CharacterAccess(character, user)
    if not access.private and not (
        character.status in PUBLIC_STATUSES
        and (character.campaign.is_public or access.viewer.is_member)
    ):
        raise NotFound("No such character")
    if master and not access.is_master:
        raise NotFound("No such character")
    if roll and not access.private:
        raise Forbidden(_("Only the character's player or the campaign's master can roll for it."))
    return access


def characters_visible_in(campaign: Campaign, viewer: Viewer) -> QuerySet[Character]:
    """The campaign's characters ``viewer`` may see, as ``access_character`` decides one by
    one: the master all of them; others the approved, dead and risen ones and their own.
    ``campaign`` and ``player`` select_related; by name. One query."""
    qs = Character.objects.filter(campaign=campaign).select_related("campaign", "player")
    if not viewer.is_master:
        mine = Q(player_id=viewer.user_id) if viewer.user_id is not None else Q(pk__in=[])
        qs = qs.filter(Q(status__in=PUBLIC_STATUSES) | mine)
    return qs.order_by("name", "pk")


# --- rolls -------------------------------------------------------------------------------------


def access_roll(user: AnyUser | None, pk: int | str | None) -> Roll:
    """The roll ``pk`` (``campaign``, ``character__campaign``, ``made_by``, ``trait``
    select_related) if ``user`` may see it: a character's roll whoever sees that character in
    full (``can_see_private``); a roll without a character its maker and the master. Raises
    ``NotFound`` otherwise (its existence is not revealed). Rolls in posts follow the post's
    visibility as well (``escenas.access``)."""
    if pk is None:
        raise NotFound("No such roll")
    try:
        roll = Roll.objects.select_related(
            "campaign", "character__campaign", "made_by", "trait"
        ).get(pk=pk)
    except (Roll.DoesNotExist, ValueError, TypeError):
        raise NotFound("No such roll") from None
    if roll.character is not None:
        if can_see_private(roll.character, user):
            return roll
        raise NotFound("No such roll")
    maker = user is not None and user.is_authenticated and roll.made_by_id == user.pk
    if maker or is_master(roll.campaign_id, user):
        return roll
    raise NotFound("No such roll")
