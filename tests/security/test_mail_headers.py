"""Finding 2: a line separator in a name silently killed e-mail (issue 12).

A character named ``Aaron\\u2028Rata`` (also ``\\r``, ``\\v``; NPC names and scene titles) made
the send raise ``ValueError: Header values may not contain linefeed…`` after the
``PostNotification`` rows were written, so those mails were never retried, and one bad post
aborted the batch. Now every header value goes through ``nucleo.mail.header_text`` and each
message is its own outbox row: the others are sent, the bad one with a cleaned subject.
"""

from __future__ import annotations

import pytest

from mundo.models import Membership
from nucleo.mail import header_text
from nucleo.models import OutboxMessage
from partida.tick import advance_day
from tests.factories import MembershipFactory, SettlementFactory, UserFactory
from tests.partida.tick_helpers import good_shelter, survivor

pytestmark = pytest.mark.django_db

BAD_NAMES = ["Aaron\u2028Rata", "Bea\rGata", "Ciro\vLobo", "Dana\x85\u2029Zorra\x1c"]


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("Aaron\u2028Rata", "Aaron Rata"),
        ("a\r\nBcc: x@example.com", "a Bcc: x@example.com"),
        ("\v\f\x1c\x1d\x1e\x85\u2029 uno \x00\x07\x7f\x9f dos \t", "uno dos"),
        ("Ñandú 🧟 «Día 7»", "Ñandú 🧟 «Día 7»"),
    ],
)
def test_header_text_strips_every_line_separator_and_control_character(text, clean):
    assert header_text(text) == clean
    assert header_text("x" * 500) == "x" * 200


def test_after_a_tick_every_diary_mail_is_sent_and_the_bad_ones_cleaned(
    campaign, master, mailoutbox, django_capture_on_commit_callbacks
):
    shelter = good_shelter(SettlementFactory(campaign=campaign))
    names = ["Eva Normal", *BAD_NAMES, "Fede Normal"]
    players = {}
    for i, name in enumerate(names):
        player = UserFactory(username=f"jugador{i}")
        MembershipFactory(campaign=campaign, user=player, role=Membership.Role.PLAYER)
        survivor(campaign, shelter=shelter, player=player, name=name)
        players[name] = player
    with django_capture_on_commit_callbacks(execute=True):  # the tick, its diary task, delivery
        advance_day(campaign)
    assert OutboxMessage.objects.exclude(state="sent").count() == 0
    # Each player hears of their own diary; the master of all of them.
    by_player = {m.to[0]: m for m in mailoutbox if m.to[0] != master.email}
    assert sorted(by_player) == sorted(p.email for p in players.values())
    assert len([m for m in mailoutbox if m.to[0] == master.email]) == len(names)
    for name, player in players.items():
        message = by_player[player.email]
        subject = message.message()["Subject"]  # the real header: it must build
        assert header_text(name) in message.subject
        assert not any(ch in message.subject for ch in "\r\n\v\f\x1c\x85\u2028\u2029")
        assert "\n" not in str(subject).replace("\n ", "")  # no header break but folding
    assert "Aaron Rata" in by_player[players["Aaron\u2028Rata"].email].subject
