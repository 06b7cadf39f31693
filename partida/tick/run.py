"""``advance_day``: the tick's shell — the lock, exactly once, the ``DayTick`` and ``on_commit``.

Exactly once: the whole tick is one transaction under ``nucleo.locks.campaign_lock`` (the
campaign row locked; the master's world rolls and every other campaign write take the same lock
first). It checks that the campaign is still on the day the caller saw and inserts the
``DayTick`` (campaign, N + 1) row, unique. A second call for the same day (a double click, two
workers, beat firing twice) waits on the lock, sees the day has moved, and returns the first
call's result from that row. Any exception rolls everything back.
"""

from __future__ import annotations

import datetime
import logging
import time
from dataclasses import dataclass

from django.db import transaction

from mundo.models import Campaign, DayTick
from mundo.periods import period_rotate_if_due
from nucleo import bounds
from nucleo.errors import ServiceError
from nucleo.locks import campaign_lock
from partida.tick.characters import close_characters_day
from partida.tick.messages import (
    last_day_message,
    message_code,
    refused_message,
    stored_message,
    tick_message,
)
from partida.tick.posts import create_diary_posts
from partida.tick.world import advance_populations, open_world_day

logger = logging.getLogger(__name__)


class TickRefused(ServiceError):
    """The tick cannot run: the campaign moved to another day than the caller saw."""


@dataclass(frozen=True, slots=True)
class TickResult:
    """What one call of ``advance_day`` did, or found done.

    ``day`` the day reached, ``closed_day`` the day closed (``day`` − 1); ``advanced`` False when
    another call had already advanced this day (its result is returned); ``characters`` how
    many ticked; ``deaths`` and ``risen`` counts; ``message`` the summary in the active
    language (``partida.tick.messages``).
    """

    campaign_id: int
    day: int
    closed_day: int
    advanced: bool
    characters: int
    deaths: int
    risen: int
    message: str
    tick_id: int

    @classmethod
    def from_record(cls, record: DayTick, *, advanced: bool) -> TickResult:
        coded = record.summary.get("message") if isinstance(record.summary, dict) else None
        return cls(
            campaign_id=record.campaign_id,
            day=record.day,
            closed_day=record.day - 1,
            advanced=advanced,
            characters=record.characters,
            deaths=record.deaths,
            risen=record.risen,
            message=tick_message(coded) if coded else record.message,
            tick_id=record.pk,
        )


def advance_day(
    campaign: Campaign | int,
    *,
    expected_day: int | None = None,
    trigger: str = DayTick.Trigger.MASTER,
    scheduled_slot: datetime.datetime | None = None,
    unless_ticked_since: datetime.datetime | None = None,
) -> TickResult:
    """Close the campaign's current day and open the next one (RULES.md R24), exactly once.

    ``expected_day`` is the day the caller saw (default: the one ``campaign`` holds, or the one
    read now for an id). If the campaign is no longer on it and the tick that moved it exists,
    that tick's result is returned with ``advanced=False``; if it moved otherwise (an edit),
    raises ``TickRefused``. ``scheduled_slot``: the schedule's slot this run is for (beat);
    a slot already handled returns the last tick's result. ``unless_ticked_since``: when the
    campaign's last tick was recorded at or after it, that tick's result is returned instead of
    advancing again (the command line's guard: two runs started together advance once).
    Raises ``TickRefused`` at the calendar's end (day ``nucleo.bounds.DAY_MAX`` or a date past
    ``DATE_MAX``). Works with no characters (only the world advances; the message says so).
    Raises ``Campaign.DoesNotExist`` for an unknown id.
    Source: RULES.md R6–R17, R24, R25.
    """
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    if expected_day is None:
        expected_day = (
            Campaign.objects.values_list("current_day", flat=True).get(pk=campaign_id)
            if isinstance(campaign, int)
            else campaign.current_day
        )
    started = time.perf_counter()
    with campaign_lock(campaign_id) as locked:
        if scheduled_slot is not None and (
            locked.last_scheduled_run is not None and locked.last_scheduled_run >= scheduled_slot
        ):
            last = DayTick.objects.filter(campaign_id=campaign_id).order_by("-day").first()
            if last is not None:
                return TickResult.from_record(last, advanced=False)
        if unless_ticked_since is not None:
            last = DayTick.objects.filter(campaign_id=campaign_id).order_by("-day").first()
            if last is not None and last.created_at >= unless_ticked_since:
                return TickResult.from_record(last, advanced=False)
        if locked.current_day != expected_day:
            record = DayTick.objects.filter(campaign_id=campaign_id, day=expected_day + 1).first()
            if record is None:
                raise TickRefused(refused_message(expected_day, locked.current_day))
            if scheduled_slot is not None:
                # The day moved (the master advanced by hand) around this slot: the slot is
                # used up, or the next beat would advance a second time.
                Campaign.objects.filter(pk=campaign_id).update(last_scheduled_run=scheduled_slot)
            return TickResult.from_record(record, advanced=False)
        if locked.current_day >= bounds.DAY_MAX or (
            bounds.day_date(locked.apocalypse_date, locked.current_day + 1) > bounds.DATE_MAX
        ):
            raise TickRefused(last_day_message(bounds.DAY_MAX))
        return _advance(locked, trigger, scheduled_slot, started)


def _advance(
    campaign: Campaign,
    trigger: str,
    scheduled_slot: datetime.datetime | None,
    started: float,
) -> TickResult:
    """The tick proper, inside ``advance_day``'s transaction with the campaign row locked:
    the world (R24 steps 2–3), the characters (5–6), populations (4, after the characters so
    this tick's risen count), the ``DayTick`` row, the new day, the dice period closed when it
    is over (``mundo.periods``), the diary posts queued."""
    rules = campaign.rules
    closed = campaign.current_day
    new = closed + 1
    closed_date = bounds.day_date(campaign.apocalypse_date, closed)
    world = open_world_day(campaign, rules, closed)
    outcome = close_characters_day(
        campaign=campaign, rules=rules, closed=closed, closed_date=closed_date, world=world
    )
    advance_populations(world, rules, new, outcome.risen_by_settlement)
    coded = message_code(closed, outcome.characters, outcome.deaths, outcome.risen)
    message = stored_message(coded)
    record = DayTick.objects.create(
        campaign=campaign,
        day=new,
        trigger=trigger,
        # Measured up to here: the tick's own work (the diary posts after it are escenas').
        duration_ms=int((time.perf_counter() - started) * 1000),
        characters=outcome.characters,
        deaths=outcome.deaths,
        risen=outcome.risen,
        message=message,
        summary={"closed_day": closed, "deaths": outcome.death_list, "message": coded},
    )
    changes: dict[str, object] = {"current_day": new}
    if scheduled_slot is not None:
        changes["last_scheduled_run"] = scheduled_slot
    Campaign.objects.filter(pk=campaign.pk).update(**changes)
    # After the closed day's rolls: a dice period that is over reveals its secret now.
    period_rotate_if_due(campaign, new_day=new)
    if outcome.characters:
        campaign_id = campaign.pk
        transaction.on_commit(lambda: create_diary_posts.delay(campaign_id, closed))
    logger.info("tick %s → day %s: %s (%s ms)", campaign.slug, new, message, record.duration_ms)
    return TickResult.from_record(record, advanced=True)
