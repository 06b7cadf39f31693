"""When a campaign's day is due to advance: its schedule in local wall-clock time.

A campaign on the daily schedule advances once per real day at ``tick_time`` in its own time
zone (06:00 Europe/Madrid by default). We compute the latest *slot* — today's local tick time
if it has passed, else yesterday's — from the local calendar date with ``zoneinfo``, never by
adding 24 h to an instant: across the last Sundays of March (a 23 h day) and October (a 25 h
day) the slot stays at 06:00 local, so no day is skipped or doubled. A campaign is due when that
slot is later than the last slot it advanced for; after downtime only the latest slot counts,
so a campaign that missed several advances **once** (the master may advance further by hand).

Source: DESIGN.md "Time".
"""

from __future__ import annotations

import datetime
import zoneinfo

UTC = datetime.UTC


def _local(date: datetime.date, at: datetime.time, tz: zoneinfo.ZoneInfo) -> datetime.datetime:
    """The instant (UTC) of wall-clock ``at`` on local ``date``.

    A wall-clock time that does not exist (inside the spring-forward gap) maps forward as
    zoneinfo does (fold=0); a repeated one (autumn) takes its first occurrence. Converting to
    UTC before any comparison matters: aware datetimes sharing a tzinfo compare by wall clock.
    """
    return datetime.datetime.combine(date, at, tzinfo=tz).astimezone(UTC)


def latest_slot(now: datetime.datetime, tz_name: str, at: datetime.time) -> datetime.datetime:
    """The most recent scheduled instant (UTC) at or before ``now`` (an aware datetime).

    Raises ValueError for a naive ``now`` and ZoneInfoNotFoundError for an unknown zone.
    """
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    tz = zoneinfo.ZoneInfo(tz_name)
    now_utc = now.astimezone(UTC)
    today = now_utc.astimezone(tz).date()
    slot = _local(today, at, tz)
    if slot > now_utc:
        slot = _local(today - datetime.timedelta(days=1), at, tz)
    return slot


def next_slot(now: datetime.datetime, tz_name: str, at: datetime.time) -> datetime.datetime:
    """The next scheduled instant (UTC) strictly after ``now``."""
    tz = zoneinfo.ZoneInfo(tz_name)
    now_utc = now.astimezone(UTC)
    today = now_utc.astimezone(tz).date()
    for offset in (0, 1, 2):
        slot = _local(today + datetime.timedelta(days=offset), at, tz)
        if slot > now_utc:
            return slot
    raise AssertionError("a slot exists within two days")  # pragma: no cover


def due_slot(
    *,
    now: datetime.datetime,
    tz_name: str,
    at: datetime.time,
    last_run: datetime.datetime | None,
    created_at: datetime.datetime,
) -> datetime.datetime | None:
    """The slot a daily campaign should advance for now, or None when it is not due.

    ``last_run`` is the slot it last advanced for (None: never); a campaign created after the
    latest slot waits for the next one.
    """
    slot = latest_slot(now, tz_name, at)
    reference = last_run if last_run is not None else created_at
    if slot > reference.astimezone(UTC):
        return slot
    return None
