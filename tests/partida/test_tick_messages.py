"""The tick's words: stored as a code and values, worded in the reader's language.

Cast: ``campaign`` (day 7, no characters unless a test makes one) and its village shelter.
"""

from __future__ import annotations

import pytest
from django.utils import translation

from mundo.models import DayTick
from partida.tick import TickRefused, TickResult, advance_day
from tests.factories import SettlementFactory
from tests.partida.tick_helpers import good_shelter, no_disease, survivor

pytestmark = pytest.mark.django_db


def test_the_summary_stores_a_code_and_each_language_words_it(campaign):
    no_disease(campaign)
    shelter = good_shelter(SettlementFactory(campaign=campaign))
    survivor(campaign, shelter=shelter)
    survivor(campaign, shelter=shelter)
    with translation.override("en"):
        result = advance_day(campaign)
    assert result.message == "Day 7 closed: 2 characters, 0 deaths, 0 risen as zombies."
    record = DayTick.objects.get(campaign=campaign, day=8)
    assert record.summary["message"] == {
        "code": "closed",
        "params": {"day": 7, "characters": 2, "deaths": 0, "risen": 0},
    }
    # The column keeps the site's language (Spanish) for the lists that read it.
    assert record.message == "Día 7 cerrado: 2 personajes, 0 muertes, 0 alzados como zombis."
    with translation.override("es"):
        again = TickResult.from_record(record, advanced=False)
    assert again.message == record.message


def test_a_world_only_day_and_a_refused_tick_are_worded_too(campaign):
    with translation.override("en"):
        result = advance_day(campaign)
        assert result.message == (
            "Day 7 closed: there are no living approved characters, so only the world "
            "advanced (weather, utilities and populations)."
        )
        # The campaign is on day 8 now and no tick reached day 7 + 30: refused, in English.
        with pytest.raises(TickRefused) as refused:
            advance_day(campaign.pk, expected_day=37)
    assert refused.value.messages == [
        "The campaign is no longer on day 37 (it is on day 8): reload the page."
    ]
    with translation.override("es"), pytest.raises(TickRefused) as refused:
        advance_day(campaign.pk, expected_day=37)
    assert refused.value.messages == [
        "La partida ya no está en el día 37 (está en el día 8): vuelve a cargar la página."
    ]


@pytest.mark.parametrize(
    ("counts", "es", "en"),
    [
        (
            (1, 1, 1),
            "Día 7 cerrado: 1 personaje, 1 muerte, 1 alzado como zombi.",
            "Day 7 closed: 1 character, 1 death, 1 risen as a zombie.",
        ),
        (
            (3, 2, 0),
            "Día 7 cerrado: 3 personajes, 2 muertes, 0 alzados como zombis.",
            "Day 7 closed: 3 characters, 2 deaths, 0 risen as zombies.",
        ),
    ],
)
def test_the_summary_counts_take_their_plurals(counts, es, en):
    from partida.tick.messages import message_code, tick_message

    coded = message_code(7, *counts)
    with translation.override("es"):
        assert tick_message(coded) == es
    with translation.override("en"):
        assert tick_message(coded) == en
