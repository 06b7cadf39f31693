"""The demo's reading preferences (issue 15 item 6): bruno reads in English in Mexico City's
time zone (his pages and e-mails), and carla, whose character takes no part in the petrol
station, follows that scene (an e-mail for each post).

``load(campaign, stdout)`` is idempotent: the settings row is updated in place and following
twice is following once. Called by ``manage.py cargar_demo`` after the scenes.
"""

from __future__ import annotations

from typing import Any

from escenas import notifications
from escenas.models import Scene
from mundo.models import Campaign, Membership
from nucleo import readers
from partida.demo_escenas import STORY_TITLE

ENGLISH_READER = ("bruno", "en", "America/Mexico_City")
FOLLOWER = "carla"


def load(campaign: Campaign, stdout: Any) -> None:
    """Set bruno's language and zone and make carla follow the story scene, when they are
    members (and the scene exists). Writes one line on ``stdout``."""
    members = {
        m.user.username: m.user
        for m in Membership.objects.filter(campaign=campaign).select_related("user")
    }
    done = []
    username, language, zone = ENGLISH_READER
    if username in members:
        readers.settings_save(user=members[username], language=language, time_zone=zone)
        done.append(f"{username} lee en inglés con la hora de {zone}")
    story = Scene.objects.filter(campaign=campaign, title=STORY_TITLE).first()
    if FOLLOWER in members and story is not None:
        notifications.scene_mode_set(user=members[FOLLOWER], scene=story, mode=notifications.FOLLOW)
        done.append(f"{FOLLOWER} sigue «{story.title}» por correo")
    if done:
        stdout.write("Preferencias: " + "; ".join(done) + ".")
