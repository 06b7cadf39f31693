"""The diary scene's own part of its page (RULES.md R25): the last days' record, as cards and
a table, and the chart of the counters and the action penalty. Read by
``escenas.views.scene_detail``."""

from __future__ import annotations

import hashlib
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from escenas import fragments, selectors
from escenas.models import Scene
from mundo import charts
from personajes.models import DiaryEntry


def diary_context(scene: Scene) -> dict[str, Any]:
    """The R25 table and chart of a diary scene (empty while the diary table does not exist):
    ``diary_entries``, ``diary_record`` (the cards and table, from ``diary_record()``) and
    ``diary_chart``."""
    if scene.kind != Scene.Kind.DIARY or scene.diary_character is None:
        return {}
    entries = selectors.diary_entries(scene.diary_character)
    if not entries:
        return {"diary_entries": entries}
    days = [e.day for e in entries]
    chart = None
    if len(entries) >= 2:
        chart = charts.line_chart(
            title=_("Counters and action penalty of %(name)s")
            % {"name": scene.diary_character.name},
            description=_(
                "Days of hunger, thirst, fatigue and without hygiene, and the action penalty "
                "(points), for days %(first)s–%(last)s. The same numbers are in the table."
            )
            % {"first": days[0], "last": days[-1]},
            xs=days,
            series=[
                (_("Hunger"), "hunger", [e.hunger_days for e in entries]),
                (_("Thirst"), "thirst", [e.thirst_days for e in entries]),
                (_("Fatigue"), "fatigue", [e.fatigue_days for e in entries]),
                (_("Without hygiene"), "unhygienic", [e.unhygienic_days for e in entries]),
                (_("Penalty"), "penalty", [max(0, e.penalty_total) for e in entries]),
            ],
        )
    return {"diary_entries": entries, "diary_record": diary_record(entries), "diary_chart": chart}


DIARY_RECORD_TEMPLATE = "escenas/_diary_record.html"
DIARY_RECORD_TTL = 26 * 3600
"""Seconds a diary's record is kept: a day and a bit, since the next tick makes it another key
(about 36 KB each at 14 days: a week's would pile up in Redis)."""


def diary_record(entries: list[DiaryEntry]) -> str:
    """The diary's record of ``entries`` (``selectors.diary_entries``: cards and table, HTML),
    rendered once and kept in the cache under everything it shows: every column of every row
    and its sleep reason, with the language, time zone and code's stamp
    (``escenas.fragments.versioned_key``). Rows change only when the tick adds a day (or the
    admin edits one), and each such change is a new key. Rendering it was two thirds of a
    diary page's render (14 days, each shown as a card and as a table row)."""
    columns = [f.attname for f in DiaryEntry._meta.concrete_fields]
    shown = [
        (*(getattr(e, name) for name in columns), getattr(e, "sleep_reason", "")) for e in entries
    ]
    digest = hashlib.sha256(repr(shown).encode()).hexdigest()[:32]
    key = fragments.versioned_key("diary-record", digest)
    html = fragments.cached_value(key)
    if html is None:
        html = render_to_string(DIARY_RECORD_TEMPLATE, {"diary_entries": entries})
        fragments.store_value(key, html, DIARY_RECORD_TTL)
    return mark_safe(html)  # rendered by our own autoescaping template
