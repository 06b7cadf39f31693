"""The master's pending list on the campaign page: sheets to review and requests to enter.

A template tag, so the campaign page (``mundo``, below the apps whose rows it lists) shows it
without ``mundo`` importing them.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import template

from escenas.inbox import InboxItem, master_pending_batch
from escenas.joining import pending_join_requests
from escenas.models import JoinRequest
from mundo.access import is_master
from mundo.models import Campaign
from nucleo.users import AnyUser
from personajes.models import Character

register = template.Library()


@dataclass(frozen=True, slots=True)
class Pending:
    """What waits for the master: ``sheets`` submitted (oldest first) and ``joins``."""

    sheets: tuple[Character, ...]
    joins: tuple[JoinRequest, ...]

    @property
    def count(self) -> int:
        return len(self.sheets) + len(self.joins)


def master_pending_for(campaign: Campaign) -> Pending:
    """The campaign's pending items for its master. Two queries, whatever their number."""
    sheets = (
        Character.objects.filter(campaign=campaign, status=Character.Status.SUBMITTED)
        .select_related("player")
        .order_by("updated_at", "pk")
    )
    return Pending(tuple(sheets), tuple(pending_join_requests(campaign)))


@register.simple_tag
def master_pending(campaign: Campaign) -> Pending:
    """``{% master_pending campaign as pending %}``: see ``master_pending_for``."""
    return master_pending_for(campaign)


def master_pending_items(campaign: Campaign, *, user: AnyUser) -> list[InboxItem]:
    """The campaign's pending items for its master as plain items (kind, label, url; see
    ``escenas.inbox.master_pending_batch``, which «Mi mesa» calls for all the master's
    campaigns at once); empty when ``user`` is not its master. One query (the role) + nine."""
    if not is_master(campaign, user):
        return []
    return master_pending_batch([campaign]).get(campaign.pk, [])
