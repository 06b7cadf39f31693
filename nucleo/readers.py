"""Who reads: each user's language and time zone (``nucleo.models.UserSettings``), for pages and
for e-mails.

- Pages: ``session_store`` copies a user's settings into their session when they sign in
  (``partida.signals``) and when they change them (the profile page, the footer's language
  switch); ``partida.middleware.LanguageMiddleware`` activates them from the session on every
  request, so a page pays no query for them.
- E-mails go out in the READER's language and time zone, never the sender's: a sender loads
  its recipients with ``select_related("reader_settings")`` (or calls ``readers_of``) and writes
  each message inside ``as_reader(reader_of(user))``.
"""

from __future__ import annotations

import functools
import zoneinfo
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.utils import timezone, translation

from nucleo.errors import ServiceError
from nucleo.models import UserSettings

SESSION_LANGUAGE = "partida_language"
SESSION_TIME_ZONE = "partida_time_zone"


@dataclass(frozen=True, slots=True)
class Reader:
    """A reader's ``language`` (``""``: the site's) and ``time_zone`` (an IANA name)."""

    language: str = ""
    time_zone: str = settings.TIME_ZONE

    @property
    def language_code(self) -> str:
        """The language to write in: the reader's, else the site's (``LANGUAGE_CODE``)."""
        return self.language or settings.LANGUAGE_CODE


DEFAULT = Reader()


@functools.cache
def time_zone_names() -> tuple[str, ...]:
    """The IANA zones a user may pick, sorted: ``Area/Place`` names of the system's tz
    database (``zoneinfo.available_timezones``) without the legacy and ``Etc/`` aliases, plus
    ``UTC``."""
    legacy = ("Etc/", "SystemV/", "US/", "Canada/", "Brazil/", "Chile/", "Mexico/")
    names = {
        n
        for n in zoneinfo.available_timezones()
        if "/" in n and not n.startswith(legacy) and n[0].isupper()
    }
    return tuple(sorted(names | {"UTC", settings.TIME_ZONE}))


def reader_of(user: Any) -> Reader:
    """``user``'s reader settings: from their loaded ``reader_settings`` row (one query if it
    was not loaded with ``select_related("reader_settings")``), else the defaults."""
    try:
        row = user.reader_settings
    except (ObjectDoesNotExist, AttributeError):
        return DEFAULT
    return Reader(language=row.language, time_zone=row.time_zone)


def readers_of(user_ids: Iterable[int]) -> dict[int, Reader]:
    """The reader settings of these users, by id (users without a row get ``DEFAULT`` when
    looked up with ``.get(id, DEFAULT)``). One query."""
    return {
        row.user_id: Reader(language=row.language, time_zone=row.time_zone)
        for row in UserSettings.objects.filter(user_id__in=list(user_ids))
    }


@contextmanager
def as_reader(reader: Reader) -> Iterator[None]:
    """Within the block, gettext speaks ``reader``'s language and times are shown in their
    time zone (a zone the database no longer knows falls back to the site's)."""
    try:
        zone = zoneinfo.ZoneInfo(reader.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    with translation.override(reader.language_code), timezone.override(zone):
        yield


def settings_save(*, user: Any, language: str, time_zone: str) -> Reader:
    """Save ``user``'s language (``""`` or a code of ``settings.LANGUAGES``) and time zone
    (one of ``time_zone_names``). Raises ServiceError (field errors) for other values."""
    errors = {}
    if language and language not in {code for code, _name in settings.LANGUAGES}:
        errors["language"] = translation.gettext("Choose one of the languages.")
    if time_zone not in time_zone_names():
        errors["time_zone"] = translation.gettext("Choose one of the time zones.")
    if errors:
        raise ServiceError(errors)
    UserSettings.objects.update_or_create(
        user=user, defaults={"language": language, "time_zone": time_zone}
    )
    return Reader(language=language, time_zone=time_zone)


def language_save(*, user: Any, language: str) -> Reader:
    """Save only ``user``'s language (the footer's switch), keeping their time zone."""
    current = readers_of([user.pk]).get(user.pk, DEFAULT)
    return settings_save(user=user, language=language, time_zone=current.time_zone)


def session_store(session: Any, reader: Reader) -> None:
    """Copy ``reader`` into a session, where the middleware reads it on every request."""
    session[SESSION_LANGUAGE] = reader.language
    session[SESSION_TIME_ZONE] = reader.time_zone


def session_reader(session: Any) -> Reader | None:
    """The reader settings stored in a session (``session_store``), or None."""
    zone = session.get(SESSION_TIME_ZONE)
    if not zone:
        return None
    return Reader(language=session.get(SESSION_LANGUAGE, ""), time_zone=zone)
