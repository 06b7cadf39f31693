"""The tick's words: its summary is stored as a code and values, worded where it is shown.

``DayTick.summary["message"]`` holds ``{"code": …, "params": {…}}``; ``tick_message`` words it
in the active language (``gettext`` with named placeholders). ``DayTick.message`` keeps the
same text in the site's language for the lists that read the column.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, ngettext

CLOSED = "closed"
"""Characters ticked: params ``day`` (closed), ``characters``, ``deaths``, ``risen``."""
WORLD_ONLY = "world_only"
"""No living approved character: params ``day`` (closed)."""


def message_code(closed: int, characters: int, deaths: int, risen: int) -> dict[str, Any]:
    """The summary's message entry for a tick that closed ``closed``."""
    if characters == 0:
        return {"code": WORLD_ONLY, "params": {"day": closed}}
    return {
        "code": CLOSED,
        "params": {"day": closed, "characters": characters, "deaths": deaths, "risen": risen},
    }


def tick_message(message: Mapping[str, Any]) -> str:
    """The words of a summary's message entry in the active language ("" for an unknown
    code, e.g. a tick stored before codes were)."""
    params = dict(message.get("params", {}))
    if message.get("code") == WORLD_ONLY:
        return (
            gettext(
                "Day %(day)s closed: there are no living approved characters, so only the world "
                "advanced (weather, utilities and populations)."
            )
            % params
        )
    if message.get("code") == CLOSED:
        return gettext("Day %(day)s closed: %(characters)s, %(deaths)s, %(risen)s.") % {
            "day": params.get("day"),
            **_counts(params),
        }
    return ""


def _counts(params: Mapping[str, Any]) -> dict[str, str]:
    """The three counts of a closed day, each with its plural (ngettext: "1 muerte")."""
    characters, deaths, risen = (int(params.get(k, 0)) for k in ("characters", "deaths", "risen"))
    return {
        "characters": ngettext("%(n)s character", "%(n)s characters", characters)
        % {"n": characters},
        "deaths": ngettext("%(n)s death", "%(n)s deaths", deaths) % {"n": deaths},
        "risen": ngettext("%(n)s risen as a zombie", "%(n)s risen as zombies", risen)
        % {"n": risen},
    }


def stored_message(message: Mapping[str, Any]) -> str:
    """``tick_message`` in the site's language, for the ``DayTick.message`` column."""
    with translation.override(settings.LANGUAGE_CODE):
        return tick_message(message)


def last_day_message(limit: int) -> str:
    """Why a tick was refused at the calendar's end (``nucleo.bounds``)."""
    return gettext(
        "The campaign has reached the last day the calendar allows (day %(limit)s or the year "
        "2999): it cannot advance further."
    ) % {"limit": limit}


def refused_message(expected: int, current: int) -> str:
    """Why a tick was refused: the campaign moved to another day than the caller saw."""
    return gettext(
        "The campaign is no longer on day %(expected)s (it is on day %(current)s): reload the page."
    ) % {"expected": expected, "current": current}
