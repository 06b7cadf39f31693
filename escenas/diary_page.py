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
    ``diary_entries``, ``diary_record`` (the cards and table) and ``diary_chart`` (the
    chart's SVG, empty below two days), both HTML from ``diary_pieces()``."""
    if scene.kind != Scene.Kind.DIARY or scene.diary_character is None:
        return {}
    entries = selectors.diary_entries(scene.diary_character)
    if not entries:
        return {"diary_entries": entries}
    chart, record = diary_pieces(entries, scene.diary_character.name)
    return {"diary_entries": entries, "diary_record": record, "diary_chart": chart}


def _chart(entries: list[DiaryEntry], name: str) -> charts.LineChart | None:
    """The chart of the counters and the action penalty over ``entries`` (None below two)."""
    if len(entries) < 2:
        return None
    days = [e.day for e in entries]
    return charts.line_chart(
        title=_("Counters and action penalty of %(name)s") % {"name": name},
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


DIARY_RECORD_TEMPLATE = "escenas/_diary_record.html"
DIARY_CHART_TEMPLATE = "components/line_chart.html"
DIARY_RECORD_TTL = 26 * 3600
"""Seconds a diary's record is kept: a day and a bit, since the next tick makes it another key
(about 36 KB each at 14 days: a week's would pile up in Redis)."""


def diary_pieces(entries: list[DiaryEntry], name: str) -> tuple[str, str]:
    """The diary's chart (``""`` below two days) and record (cards and table) of ``entries``
    (``selectors.diary_entries``) of the character called ``name``, as HTML, rendered once
    and kept in the cache under everything they show: every column of every row and its
    sleep reason, the name, with the language, time zone and code's stamp
    (``escenas.fragments.versioned_key``). Rows change only when the tick adds a day (or the
    admin edits one), and each such change is a new key. Rendering them was two thirds of a
    diary page's render (14 days, each shown as a card and as a table row, and the chart)."""
    columns = [f.attname for f in DiaryEntry._meta.concrete_fields]
    shown = [
        (*(getattr(e, name) for name in columns), getattr(e, "sleep_reason", "")) for e in entries
    ]
    digest = hashlib.sha256(repr((name, shown)).encode()).hexdigest()[:32]
    key = fragments.versioned_key("diary-record", digest)
    pieces = fragments.cached_value(key)
    if pieces is None:
        chart = _chart(entries, name)
        pieces = (
            render_to_string(DIARY_CHART_TEMPLATE, {"chart": chart}) if chart else "",
            render_to_string(DIARY_RECORD_TEMPLATE, {"diary_entries": entries}),
        )
        fragments.store_value(key, pieces, DIARY_RECORD_TTL)
    # Rendered by our own autoescaping templates.
    return mark_safe(pieces[0]), mark_safe(pieces[1])
