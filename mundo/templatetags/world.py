"""Template filters for the world's ledger: ``{{ roll|world_roll_text }}`` (what a world roll
found, in the reader's language), ``{{ roll|world_roll_dice }}`` (its dice, or nothing when
it stored none to show) and ``{{ line|line_label }}`` (a breakdown line of the engine, R9, R10,
R12, in the reader's language). Source: RULES.md R16, R18, R22, R23."""

from __future__ import annotations

from typing import Any

from django import template

from mundo.world_texts import sky_name, world_roll_dice, world_roll_text
from nucleo.rules_labels import line_label

register = template.Library()
register.filter("world_roll_text", world_roll_text)
register.filter("line_label", line_label)


@register.filter("world_roll_dice")
def _dice(roll: Any) -> list[int]:
    return world_roll_dice(roll)


@register.filter("sky_name")
def _sky(label: str) -> str:
    """``{{ weather.sky_label|sky_name }}``: the sky in the reader's language (R11)."""
    return sky_name(label)
