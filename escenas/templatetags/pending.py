"""The master's pending list on the campaign page: characters in danger, sheets to review and
requests to enter (``escenas.pending.master_pending_items``).

A template tag, so the campaign page (``mundo``, below the apps whose rows it lists) shows it
without ``mundo`` importing them.
"""

from __future__ import annotations

from collections.abc import Sequence

from django import template

from escenas.pending import PendingItem, master_pending_items
from mundo.models import Campaign
from nucleo.users import AnyUser
from personajes.forecast import CharacterForecast

register = template.Library()


@register.simple_tag
def master_pending(
    campaign: Campaign,
    user: AnyUser | None,
    forecasts: Sequence[CharacterForecast] | None = None,
) -> list[PendingItem]:
    """``{% master_pending campaign request.user forecasts as pending %}``: see
    ``master_pending_items`` (``forecasts``: the page's own ``{% campaign_forecasts %}``,
    so they are read once)."""
    return master_pending_items(campaign, user=user, forecasts=forecasts)
