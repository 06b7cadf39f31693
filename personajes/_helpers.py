"""What the character services share: the character's row lock, the campaign whose lock they
take, and the parsing of the inputs more than one action group reads (a roll's or an edit's
reason, a base threshold, whole numbers typed in forms).

Private to ``personajes`` by convention (the leading underscore): the app's action modules
(``sheets``, ``inventory``, ``rolls``…) import it; nothing outside the app does.

Source: RULES.md R3 (thresholds), R5 (sheets); DESIGN.md "Randomness and the roll ledger".
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

from nucleo.errors import ServiceError
from nucleo.locks import lock_row
from personajes.models import Character
from reglas.dice import D100

REASON_MAX_LENGTH = 200
"""Most characters of a roll's (or an edit's) reason."""

INTEGER_TEXT = re.compile(r"[+-]?[0-9]{1,12}")
"""A whole number as a form types it: optional sign, at most 12 digits."""


def lock_character(character: Character) -> Character:
    """The character re-read under a row lock, with its campaign (read under the campaign lock
    the service holds: ``by_character``). Raises ``Character.DoesNotExist`` if it is gone."""
    return lock_row(Character.objects.select_related("campaign"), character.pk)


def by_character(*, character: Character, **_kwargs: object) -> int:
    """The campaign id whose lock a service about ``character`` takes (``campaign_locked``)."""
    return int(character.campaign_id)


def clean_reason(reason: str) -> str:
    """The stripped reason of a roll or an edit; raises ServiceError({"reason": …}) over
    ``REASON_MAX_LENGTH`` (200) characters."""
    text = (reason or "").strip()
    if len(text) > REASON_MAX_LENGTH:
        raise ServiceError(
            {
                "reason": _("The reason can have at most %(max)d characters.")
                % {"max": REASON_MAX_LENGTH}
            }
        )
    return text


def parse_threshold(value: object, *, required: bool) -> int | None:
    """A base threshold: an int 0..100 (%, digits text accepted), or None when not required;
    raises ServiceError({"threshold": …}) otherwise. Source: RULES.md R3."""
    if value is None and not required:
        return None
    if isinstance(value, str) and INTEGER_TEXT.fullmatch(value.strip()):
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= D100:
        raise ServiceError(
            {"threshold": _("The threshold must be a whole number from 0 to 100 (%).")}
        )
    return value
