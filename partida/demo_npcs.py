"""The demo's non-player character and a post with two rolls (issue 15): Doña Remedios, the
village's pharmacist, an NPC of the master with a portrait drawn with Pillow at load time, who
speaks in the story scene; and Tomás's post with an action roll and a free dice roll at once.

Idempotent: the NPC is found by (campaign, name) and keeps an earlier run's portrait; both posts
are written through ``escenas.services.post_create`` with fixed keys (``demo-escena-07``,
``-08``), which return the stored post and roll nothing when the demo is loaded again.
"""

from __future__ import annotations

from typing import Any

from escenas import npcs, services
from escenas.access import access_scene
from escenas.models import NonPlayerCharacter, Scene
from partida.demo_portraits import portrait_png
from personajes.models import Character

NPC_NAME = "Doña Remedios"


def _npc(story: Scene, master: Any) -> NonPlayerCharacter:
    found = NonPlayerCharacter.objects.filter(campaign=story.campaign, name=NPC_NAME).first()
    if found is not None:
        return found
    return npcs.npc_save(
        campaign=story.campaign,
        master=master,
        name=NPC_NAME,
        description="La boticaria de Robledo. Sabe más de lo que cuenta.",
        portrait=portrait_png((96, 64, 110), (235, 205, 180)),
    )


def load(story: Scene, *, master: Any, bruno: Any, tomas: Character) -> None:
    """Tomás's post with two rolls (Percepción and 1d4 cans) and Doña Remedios's answer, as
    the master's NPC with her portrait, in ``story``."""
    remedios = _npc(story, master)
    services.post_create(
        access=access_scene(bruno, story.pk, campaign=story.campaign),
        author=bruno,
        idempotency_key="demo-escena-07",
        voice="character",
        character=tomas,
        body="Tomás registra los estantes del fondo con la linterna entre los dientes.",
        rolls=[
            services.RollSpec(
                kind="action",
                character=tomas,
                trait="percepcion",
                threshold=40,
                reason="Ver algo útil entre los escombros",
            ),
            services.RollSpec(kind="expression", expression="1d4", reason="Latas de conserva"),
        ],
    )
    services.post_create(
        access=access_scene(master, story.pk, campaign=story.campaign),
        author=master,
        idempotency_key="demo-escena-08",
        voice="npc",
        npc=remedios,
        body=(
            "Una voz cascada desde la trastienda: —Si buscáis antibióticos, llegáis tarde. "
            "Pero sé dónde quedan."
        ),
    )
