"""The demo's «Mi mesa» (issue 15 item 5): ana opens it to unread posts (bruno's and the
master's, written after hers) and a roll request from the master to Lucía; the master opens it
to the campaign's pending items (Carla's sheet, Lucía's roll waiting for its threshold, the
requests not rolled yet, the characters in danger).

``load(campaign, stdout)`` is idempotent: the request is found by (scene, character, reason).
Called by ``manage.py cargar_demo`` after the scenes (``partida.demo_escenas``).
"""

from __future__ import annotations

from typing import Any

from escenas import services
from escenas.access import access_scene
from escenas.inbox import inbox_for
from escenas.models import RollRequest, Scene
from mundo.models import Campaign, Membership
from personajes.models import Character, Trait

REASON = "Sujetar la persiana mientras Tomás entra"


def load(campaign: Campaign, stdout: Any) -> None:
    """Ask Lucía (ana's) for a Fuerza roll in the story scene, once, and write one line on
    ``stdout`` with what ana's and the master's inboxes hold. Nothing when the demo's story
    scene, its users or Lucía are missing."""
    users = {
        m.user.username: m.user
        for m in Membership.objects.filter(campaign=campaign).select_related("user")
    }
    master, ana = users.get("master"), users.get("ana")
    story = Scene.objects.filter(campaign=campaign, kind=Scene.Kind.STORY).order_by("pk").first()
    lucia = (
        Character.objects.filter(
            campaign=campaign, player__username="ana", status=Character.Status.APPROVED
        )
        .order_by("pk")
        .first()
    )
    fuerza = Trait.objects.filter(campaign=campaign, slug="fuerza").first()
    if master is None or ana is None or story is None or lucia is None or fuerza is None:
        return
    if not RollRequest.objects.filter(scene=story, character=lucia, reason=REASON).exists():
        services.roll_request_create(
            access=access_scene(master, story.pk, campaign=campaign),
            master=master,
            character=lucia,
            trait=fuerza,
            threshold=50,
            reason=REASON,
        )
    hers, his = inbox_for(ana), inbox_for(master)
    stdout.write(
        f"Mi mesa (/mesa/): ana tiene {hers.unread} mensajes sin leer y "
        f"{len(hers.roll_requests)} tirada pedida; master, {len(his.pending)} cosas pendientes."
    )
