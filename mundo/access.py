"""Who may see or do what in a campaign: the one place that decides a user's campaign role.

**The role comes from membership, and only from it.** A user is a campaign's master or player
when a ``Membership`` row says so; anyone else (anonymous visitors, signed-in outsiders, former
members whose row was deleted) is an outsider. A superuser is NOT a master or a player of a
campaign by being a superuser: on pages, feeds, e-mails and the API they are whatever their
membership makes them. The superuser's powers live in the Django admin only
(``partida.admin_site``), where a superuser sees every campaign and a master sees the ones they
master.

Every permission-checked fetch of a campaign goes through ``access_campaign``, which returns
the campaign with a ``Viewer`` (user and role) or raises ``nucleo.errors.NotFound`` — the same
error whether the campaign is missing or hidden — or ``Forbidden`` (the viewer may see it but
not do this). ``personajes.access`` and ``escenas.access`` build on it and extend the viewer
with the user's characters. Services check the master with ``require_master``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.utils.translation import gettext as _

from mundo.models import Campaign, Membership
from nucleo.bounds import row_id
from nucleo.compiled import CompiledQuery
from nucleo.errors import Forbidden, NotFound, ServiceError
from nucleo.locks import require_campaign_lock
from nucleo.users import AnyUser

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

MASTER = Membership.Role.MASTER
PLAYER = Membership.Role.PLAYER


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking at a campaign: the user and their role in it.

    ``user`` is a signed-in user or ``AnonymousUser``; ``role`` is ``"master"``, ``"player"`` or
    None (not a member: anonymous, outsider, former member; a superuser too unless a member).
    ``personajes.access.CharacterViewer`` adds the user's characters.
    """

    user: Any
    role: str | None

    @property
    def user_id(self) -> int | None:
        """The user's pk, None for anonymous."""
        return self.user.pk if self.user is not None and self.user.is_authenticated else None

    @property
    def is_master(self) -> bool:
        return is_master_role(self.role)

    @property
    def is_member(self) -> bool:
        return self.role is not None


def is_master_role(role: str | None) -> bool:
    """True for the master's membership role (a ``Membership.role`` value or None)."""
    return role == MASTER


def _campaign_id(campaign: Campaign | int) -> int:
    return campaign if isinstance(campaign, int) else campaign.pk


def campaign_role(campaign: Campaign | int, user: AnyUser | None) -> str | None:
    """The user's role in the campaign (``"master"``/``"player"``) or None for a non-member,
    anonymous or None. One query for a signed-in user, none otherwise. Membership alone
    decides (see the module docstring)."""
    if user is None or not user.is_authenticated:
        return None
    return (
        Membership.objects.filter(campaign_id=_campaign_id(campaign), user=user)
        .values_list("role", flat=True)
        .first()
    )


def campaign_roles(campaign: Campaign | int, user_ids: list[int]) -> dict[int, str]:
    """The role of each of ``user_ids`` who is a member, keyed by user id (one query)."""
    return dict(
        Membership.objects.filter(
            campaign_id=_campaign_id(campaign), user_id__in=user_ids
        ).values_list("user_id", "role")
    )


def viewer_for(campaign: Campaign | int, user: AnyUser | None) -> Viewer:
    """The campaign-level viewer of ``user`` (anonymous when None). One query when signed in."""
    return Viewer(user=user or AnonymousUser(), role=campaign_role(campaign, user))


def is_master(campaign: Campaign | int, user: AnyUser | None) -> bool:
    """True when ``user`` is a master of the campaign by membership (a superuser is not)."""
    return campaign_role(campaign, user) == MASTER


def require_master(
    campaign: Campaign | int, user: AnyUser | None, message: StrOrPromise | None = None
) -> None:
    """Raise ``ServiceError`` (``message``, or "Only the campaign's master can do that.")
    unless ``user`` masters the campaign. One query. The services' master check."""
    if not is_master(campaign, user):
        raise ServiceError(message or _("Only the campaign's master can do that."))


def campaigns_visible_to(user: AnyUser | None) -> QuerySet[Campaign]:
    """Campaigns the user may read: public ones and the ones they belong to (anonymous: public
    only). A superuser reads what their memberships allow, like anyone else."""
    if user is None or not user.is_authenticated:
        return _visible_campaigns(None)
    return _visible_campaigns(user.pk)


def _visible_campaigns(user_id: int | None) -> QuerySet[Campaign]:
    """``campaigns_visible_to`` by the user's id (None: anonymous)."""
    qs = Campaign.objects.all()
    if user_id is None:
        return qs.filter(is_public=True)
    member = Membership.objects.filter(campaign=OuterRef("pk"), user_id=user_id)
    return qs.filter(Q(is_public=True) | Q(Exists(member)))


def campaigns_mastered_by(user: AnyUser | None) -> QuerySet[Campaign]:
    """The campaigns ``user`` masters (none for anonymous). Used by the admin's scoping."""
    if user is None or not user.is_authenticated:
        return Campaign.objects.none()
    return Campaign.objects.filter(memberships__user=user, memberships__role=MASTER)


def access_campaign(
    user: AnyUser | None,
    *,
    slug: str | None = None,
    pk: int | str | None = None,
    master: bool = False,
    member: bool = False,
    lock: bool = False,
) -> tuple[Campaign, Viewer]:
    """The campaign (by ``slug`` or ``pk``) and the user's ``Viewer``, if the user may read it.

    Raises ``NotFound`` when it does not exist, the pk is malformed or the user may not read it
    (a private campaign's existence is not revealed), and when ``master`` is set and the user is
    not its master (master pages do not reveal themselves either). Raises ``Forbidden`` when
    ``member`` is set and a reader who is not a member asks. With ``lock`` the caller runs inside
    ``nucleo.locks.campaign_lock`` of this campaign (``LockOrderError`` otherwise) and the row is
    read under it (one more query). One query: the campaign with the user's role beside it.
    """
    if (slug is None) == (pk is None):
        raise TypeError("access_campaign takes slug or pk")
    values: dict[str, int | str] = {}
    if slug is not None:
        values["slug"] = str(slug)
    elif (campaign_id := row_id(pk)) is not None:
        values["pk"] = campaign_id
    else:
        raise NotFound("No such campaign")
    if user is not None and user.is_authenticated:
        values["user_id"] = int(user.pk)
    found = _CAMPAIGN_WITH_ROLE.rows(**values)
    if len(found) != 1:
        raise NotFound("No such campaign")
    campaign = found[0]
    viewer = Viewer(user=user or AnonymousUser(), role=getattr(campaign, "viewer_role", None))
    if master and not viewer.is_master:
        raise NotFound("No such campaign")
    if member and not viewer.is_member:
        raise Forbidden(_("Only the campaign's members can do that."))
    if lock:
        # The caller holds the campaign's lock (nucleo.locks): re-read the row under it.
        require_campaign_lock(campaign.pk)
        campaign = Campaign.objects.get(pk=campaign.pk)
    return campaign, viewer


def _campaign_with_role(
    *, slug: str | None = None, pk: int | None = None, user_id: int | None = None
) -> QuerySet[Campaign]:
    """The campaign with this slug or pk if the user may read it (``_visible_campaigns``),
    with their membership role (``viewer_role``) when signed in: at most two rows, so that a
    second one would show."""
    qs = _visible_campaigns(user_id)
    if user_id is not None:
        role = Membership.objects.filter(campaign=OuterRef("pk"), user_id=user_id)
        qs = qs.annotate(viewer_role=Subquery(role.values("role")[:1]))
    lookup = {"slug": slug} if slug is not None else {"pk": pk}
    return qs.filter(**lookup).order_by()[:2]


# Built and compiled once per shape: every campaign page asks it (nucleo.compiled).
_CAMPAIGN_WITH_ROLE = CompiledQuery(_campaign_with_role)
