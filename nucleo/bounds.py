"""The bounds of every day, date and count the models store, and the one date arithmetic.

A stored number that no page can display or no rule can use takes the site down (a campaign on
9999-12-31 made ``apocalypse_date + current_day`` overflow for every visitor of ``/``). Every
model field of a day, a date or a count takes its validators from here, so model forms, the
admin, ``full_clean`` in services and model serializers refuse the same values with the same
message; plain forms take ``max_value`` from the same constants.

- ``DAY_MAX``: in-game days since the apocalypse, 0..36 600 (a century of play);
- ``DATE_MIN``..``DATE_MAX``: calendar dates, 1000-01-01..2999-12-31, so a date plus
  ``DAY_MAX`` days is always a date Python can hold;
- ``COUNT_MAX``: counts of people, zombies, units: 0..10⁹ (fits every integer column);
- ``AREA_M2_MAX`` (m²) and ``DISTANCE_M_MAX`` (m): 10¹² m² (a million km²) and 10⁶ m (1 000 km);
- ``GROWTH_RATE_MAX``: the logistic r per day (RULES.md R17), at most 100;
- ``ID_MAX``: a row id sent in a body (18 digits, as the URLs' ``mundo.converters.IdConverter``:
  a bigger one overflows the database's integer and was a 500);
- ``KCAL_PER_UNIT_MAX`` (kcal) and ``LITRES_PER_UNIT_MAX`` (L): one unit of an item, 10⁶ kcal
  and 10⁴ L (a pallet, a tank).

``row_id`` reads a row id from text (a URL, a query string, a form), refusing what is not one.

``day_date`` is the one way to turn (start date, day) into a date: it never raises, whatever is
stored (rows written before these bounds existed).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils.translation import gettext_lazy as _

DAY_MAX = 36_600
DATE_MIN = datetime.date(1000, 1, 1)
DATE_MAX = datetime.date(2999, 12, 31)
COUNT_MAX = 1_000_000_000
AREA_M2_MAX = 1e12
DISTANCE_M_MAX = 1e6
GROWTH_RATE_MAX = 100.0
ID_MAX = 999_999_999_999_999_999
KCAL_PER_UNIT_MAX = 1e6
LITRES_PER_UNIT_MAX = 1e4


def day_validators() -> list[Any]:
    """Validators of an in-game day field: 0..``DAY_MAX``."""
    return [
        MinValueValidator(0, message=_("A day cannot be negative.")),
        MaxValueValidator(
            DAY_MAX,
            message=_("At most day %(limit_value)s (a century of play)."),
        ),
    ]


def date_validators() -> list[Any]:
    """Validators of a calendar date field: ``DATE_MIN``..``DATE_MAX``."""
    return [
        MinValueValidator(DATE_MIN, message=_("Choose a date from the year 1000 on.")),
        MaxValueValidator(DATE_MAX, message=_("Choose a date before the year 3000.")),
    ]


def count_validators() -> list[Any]:
    """Validators of a count (people, zombies, units): 0..``COUNT_MAX``."""
    return [
        MinValueValidator(0, message=_("A count cannot be negative.")),
        MaxValueValidator(
            COUNT_MAX, message=_("At most %(limit_value)s: that is more than can be counted.")
        ),
    ]


def max_validator(limit: float) -> MaxValueValidator:
    """A ``MaxValueValidator`` with the site's message (``limit`` in the field's unit)."""
    return MaxValueValidator(limit, message=_("At most %(limit_value)s."))


def day_date(start: datetime.date, day: int) -> datetime.date:
    """The calendar date of in-game ``day`` for a campaign whose day 0 is ``start``.

    Never raises: a result beyond what ``datetime.date`` holds is clamped to ``date.max`` (or
    ``date.min``), so a row stored before the bounds existed still renders.
    """
    try:
        return start + datetime.timedelta(days=int(day))
    except OverflowError:
        return datetime.date.max if day > 0 else datetime.date.min


def row_id(value: Any) -> int | None:
    """``value`` (an int, or text as a URL, a query string or a form gives it) as a row id, or
    None: ASCII digits only (``"²"`` is a digit to ``str.isdigit`` but ``int`` refuses it: a
    500), at most ``ID_MAX`` (a bigger one overflows the database's integer)."""
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(ID_MAX)):
        return None
    return int(text)
