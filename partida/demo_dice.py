"""The demo's verifiable dice: the first dice period (days played so far, the scenes' rolls)
closed by the master, its secret revealed and its archive verifiable; the next one open with
only its commitment published.

``load(campaign, stdout)`` is idempotent: it closes the period only while the campaign still
has its first one open (a second load changes nothing). Called last by ``cargar_demo``.
Source: issue 16.
"""

from __future__ import annotations

from typing import Any

from mundo.models import Campaign, EntropyPeriod, Membership
from mundo.periods import period_close
from partida.dice import period_verify


def load(campaign: Campaign, stdout: Any) -> None:
    """Close the demo's first dice period once and print its verification."""
    if EntropyPeriod.objects.filter(campaign=campaign).exclude(number=1).exists():
        return
    master = (
        Membership.objects.filter(campaign=campaign, role=Membership.Role.MASTER)
        .select_related("user")
        .order_by("pk")
        .first()
    )
    if master is None:
        return
    closed = period_close(campaign=campaign, master=master.user)
    report = period_verify(closed)
    stdout.write(
        f"Dados: periodo {closed.number} cerrado y revelado ({report.checked} tiradas, "
        f"{len(report.differences)} diferencias); el periodo {closed.number + 1} está abierto."
    )
