"""Finding 3: two ``manage.py avanzar_dia`` started together advanced two days (3 of 4 trials):
the second read the day after the first had finished, and nothing told it the day was done.

The command goes through ``advance_day`` with the command's guard (a tick under ``--ventana``
seconds old is this run's too; ``--dia N`` as the button's expected day). PostgreSQL: real
threads, each with its own connection.
"""

from __future__ import annotations

import io
import threading
import time

import pytest
from django.core.management import call_command
from django.db import connection

from mundo.models import Campaign, DayTick
from partida.tick import run as tick_run
from tests.factories import CampaignFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def run_commands(campaign, *args: str, stagger: bool) -> list[str]:
    """Two commands on two threads: together (a barrier), or the second as soon as the first
    has committed (the trial that advanced twice: its Django started slower)."""
    outputs: list[str] = []
    errors: list[Exception] = []
    barrier = threading.Barrier(2)
    first_done = threading.Event()

    def command(second: bool) -> None:
        try:
            barrier.wait()
            if stagger and second:
                first_done.wait(timeout=30)
            out = io.StringIO()
            call_command("avanzar_dia", "--partida", campaign.slug, *args, stdout=out)
            outputs.append(out.getvalue())
        except Exception as exc:
            errors.append(exc)
        finally:
            if not second:
                first_done.set()
            connection.close()

    threads = [threading.Thread(target=command, args=(i == 1,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    return outputs


@pytest.mark.parametrize("stagger", [False, True])
@pytest.mark.parametrize("args", [(), ("--dia", "7")])
def test_two_commands_started_together_advance_one_day(needs_postgres, monkeypatch, stagger, args):
    campaign = CampaignFactory(current_day=7)
    real = tick_run.close_characters_day

    def slow(**kwargs):
        time.sleep(0.3)  # the first holds the campaign lock a while
        return real(**kwargs)

    monkeypatch.setattr(tick_run, "close_characters_day", slow)
    outputs = run_commands(campaign, *args, stagger=stagger)
    assert Campaign.objects.get(pk=campaign.pk).current_day == 8
    assert DayTick.objects.filter(campaign=campaign).count() == 1
    assert sorted("ya había avanzado" in o for o in outputs) == [False, True]


def test_a_later_run_outside_the_window_advances_again(needs_postgres):
    campaign = CampaignFactory(current_day=7)
    call_command("avanzar_dia", "--partida", campaign.slug, stdout=io.StringIO())
    call_command("avanzar_dia", "--partida", campaign.slug, "--ventana", "0", stdout=io.StringIO())
    call_command("avanzar_dia", "--partida", campaign.slug, "--dia", "9", stdout=io.StringIO())
    assert Campaign.objects.get(pk=campaign.pk).current_day == 10
