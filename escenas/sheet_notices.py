"""Notices of the sheet workflow: the master hears of a submitted sheet, the player of the review.

Receivers of ``personajes.signals`` (connected in ``EscenasConfig.ready``), run inside the
sheet service's transaction; the e-mails go after the commit (``transaction.on_commit``), so a
rolled-back review tells nobody. Who gets an e-mail follows their notification setting
(``NotificationPreference``): "each post" sends it now; "daily digest" and "no e-mail" send
none (the master still sees the sheet in the campaign page's pending list, the player on the
sheet). On approval the character also joins the scenes open to new characters
(``escenas.joining``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _

from escenas import joining
from escenas.models import NotificationPreference
from mundo.models import Membership
from nucleo.mail import header_text, outbox_enqueue
from nucleo.models import OutboxMessage
from nucleo.readers import as_reader, reader_of
from personajes.models import Character


def _wants_mail(user: Any) -> bool:
    """A user with an address whose setting is an e-mail for each post (the default)."""
    if not getattr(user, "email", ""):
        return False
    mode = (
        NotificationPreference.objects.filter(user=user).values_list("mode", flat=True).first()
        or NotificationPreference.Mode.EACH
    )
    return mode == NotificationPreference.Mode.EACH


def _absolute(path: str) -> str:
    base = getattr(settings, "SITE_URL", "") or "http://127.0.0.1:8000"
    return base.rstrip("/") + path


def sheet_topic(character_id: int) -> str:
    """The outbox topic of the e-mails about a character's sheet (``nucleo.mail``)."""
    return f"sheet:{character_id}"


def _mail(user: Any, subject: str, template: str, context: dict[str, Any]) -> None:
    """Write one plain-text e-mail to ``user`` in the outbox, in the caller's transaction (sent
    after the commit, retried on failure: ``nucleo.mail``), in the reader's language and time
    zone (``nucleo.readers``); ``subject`` was made in it too."""
    with as_reader(reader_of(user)):
        body = render_to_string(template, context)
    outbox_enqueue(
        [
            OutboxMessage(
                recipient=user.email,
                subject=header_text(subject),
                body_text=body,
                topic=sheet_topic(context["character"].pk),
            )
        ]
    )


def on_sheet_submitted(sender: Any, *, character: Character, user: Any, **_kw: Any) -> None:
    """E-mail the campaign's masters (per their setting) that ``character`` awaits review."""
    masters = [
        m.user
        for m in Membership.objects.filter(
            campaign_id=character.campaign_id, role=Membership.Role.MASTER
        ).select_related("user", "user__reader_settings")
    ]
    url = _absolute(reverse("personajes:review", kwargs={"pk": character.pk}))
    for master in masters:
        if _wants_mail(master):
            with as_reader(reader_of(master)):
                subject = _("[%(campaign)s] Sheet to review: %(name)s") % {
                    "campaign": character.campaign.name,
                    "name": character.name,
                }
            _mail(
                master,
                subject,
                "escenas/email/sheet_submitted.txt",
                {"character": character, "player": user, "url": url},
            )


def on_sheet_reviewed(
    sender: Any,
    *,
    character: Character,
    approved: bool,
    comment: str,
    kit: Any = (),
    shelter: Any = None,
    **_kw: Any,
) -> None:
    """On approval, join the open scenes; then e-mail the player the outcome and the master's
    comment (per their setting)."""
    scenes = joining.open_scenes_join(character=character) if approved else []
    player = character.player
    if not _wants_mail(player):
        return
    with as_reader(reader_of(player)):
        subject = (
            _("[%(campaign)s] Your sheet %(name)s was approved")
            if approved
            else _("[%(campaign)s] Your sheet %(name)s was returned to you")
        ) % {"campaign": character.campaign.name, "name": character.name}
    _mail(
        player,
        subject,
        "escenas/email/sheet_reviewed.txt",
        {
            "character": character,
            "approved": approved,
            "comment": comment,
            "kit": kit,
            "shelter": shelter,
            "scenes": scenes,
            "url": _absolute(character.get_absolute_url()),
        },
    )
