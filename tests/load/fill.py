"""Fills the load test's database (``make load``): one campaign, one scene, 50 players, each
with an approved character in the scene and an API token. Prints one JSON object on stdout:
``{"scene": id, "players": [{"token": key, "character": id}, ...]}``.

Run as ``python -m tests.load.fill N`` with DJANGO_SETTINGS_MODULE and DATABASE_URL set (the
run's own database: ``scripts/load`` makes it fresh).
"""

from __future__ import annotations

import json
import sys

import django


def fill(players: int) -> dict[str, object]:
    """Make the campaign, the scene and ``players`` players; return the locustfile's input."""
    from escenas import scenes
    from mundo.models import Membership
    from partida.services import token_create
    from tests.factories import CampaignFactory, CharacterFactory, UserFactory

    campaign = CampaignFactory(slug="carga", name="Prueba de carga")
    master = UserFactory(username="master")
    Membership.objects.create(campaign=campaign, user=master, role="master")
    cast = []
    for number in range(players):
        user = UserFactory(username=f"jugador{number:02d}")
        Membership.objects.create(campaign=campaign, user=user, role="player")
        character = CharacterFactory(
            campaign=campaign,
            player=user,
            name=f"Superviviente {number:02d}",
            status="approved",
            allocation={"fuerza": 2},
        )
        cast.append((user, character))
    scene = scenes.scene_create(
        campaign=campaign,
        master=master,
        title="El asalto al súper",
        participants=[character for _user, character in cast],
    )
    return {
        "scene": scene.pk,
        "players": [
            {"token": token_create(user=user, name="carga").key, "character": character.pk}
            for user, character in cast
        ],
    }


if __name__ == "__main__":
    django.setup()
    print(json.dumps(fill(int(sys.argv[1]) if len(sys.argv) > 1 else 50)))
