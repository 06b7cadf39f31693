"""Template tags of the characters' foresight (issue 11 item 5; ``personajes.forecast``).

``{% campaign_forecasts campaign as forecasts %}`` every living approved character's forecast,
in danger first (five queries, whatever their number); ``{% character_forecast character as
forecast %}`` one character's (None when it is not alive and approved). The campaign page is
``mundo``'s, below ``personajes``, so it reads them through these tags.

Source: RULES.md R6, R10, R15.
"""

from __future__ import annotations

from django import template

from mundo.models import Campaign
from personajes import forecast as forecasts
from personajes.models import Character
from reglas.forecast import Forecast

register = template.Library()


@register.simple_tag
def campaign_forecasts(campaign: Campaign) -> list[forecasts.CharacterForecast]:
    """See ``personajes.forecast.campaign_forecasts``."""
    return forecasts.campaign_forecasts(campaign)


@register.simple_tag
def character_forecast(character: Character) -> Forecast | None:
    """See ``personajes.forecast.character_forecast``."""
    return forecasts.character_forecast(character)
