"""The causes of death the tick and the fights store (``Character.death_cause`` and
``DiaryEntry.death_cause`` hold the code; pages and diary posts show the label, in the reader's
language). The API keeps the code. Source: RULES.md R6 (hunger, thirst, fatigue), R12 (disease),
R13 (infection), R14 and R20 (combat, bites)."""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

DEATH_CAUSES = {
    "hunger": pgettext_lazy("cause of death", "hunger"),
    "thirst": pgettext_lazy("cause of death", "thirst"),
    "fatigue": pgettext_lazy("cause of death", "exhaustion"),
    "disease": pgettext_lazy("cause of death", "disease"),
    "infection": pgettext_lazy("cause of death", "infection"),
    "combat": pgettext_lazy("cause of death", "combat"),
    "bites_same_turn": pgettext_lazy("cause of death", "three bites in one turn"),
    "consecutive_bites": pgettext_lazy("cause of death", "three bites in a row by one zombie"),
}
"""Code → label of every cause of death stored."""


def death_cause_label(code: str) -> str:
    """The label of a stored cause of death (``""`` for none; an unknown code shown as is)."""
    return str(DEATH_CAUSES.get(code, code)) if code else ""
