"""The demo's fights in the petrol-station story scene (R19–R21): one finished, one in progress.

- «La primera visita» (finished): a lone zombie at the pumps; Lucía attacks it, the master
  resolves the turn (its summary post shows every die) and ends the fight whatever the dice said
  (a first turn cannot bite: a zombie grabs before it bites).
- «En el taller» (in progress, turn 1): two zombies, one holds Tomás; Lucía has declared; the
  players have 48 h of real time per turn (the panel shows the deadline). The grab is set as
  the demo's starting position, not rolled.

Found by title, so loading the demo twice adds nothing. No settlement: the demo's 170 zombies
stay 170. Source: RULES.md R20.
"""

from __future__ import annotations

from typing import Any

from escenas import combat, combat_resolve
from escenas.models import Combat, Combatant, Scene
from personajes.models import Character

FINISHED_TITLE = "La primera visita"
OPEN_TITLE = "En el taller"
OPEN_TURN_HOURS = 48


def load(story: Scene, *, master: Any, lucia: Character, tomas: Character) -> None:
    """The two demo fights in ``story`` (idempotent)."""
    titles = set(Combat.objects.filter(scene=story).values_list("title", flat=True))
    if FINISHED_TITLE not in titles:
        _finished(story, master=master, lucia=lucia)
    if OPEN_TITLE not in titles:
        _in_progress(story, master=master, lucia=lucia, tomas=tomas)


def _finished(story: Scene, *, master: Any, lucia: Character) -> None:
    fight = combat.combat_open(
        scene=story, master=master, kind=Combat.Kind.ZOMBIES, title=FINISHED_TITLE,
        characters=[lucia],
    )  # fmt: skip
    (zombie,) = combat.combatants_add(combat=fight, master=master, zombies=1)
    combat.declaration_make(
        combat=fight,
        combatant=Combatant.objects.get(combat=fight, character=lucia),
        user=lucia.player,
        action="attack",
        target=zombie,
        weapon="unarmed",
    )
    combat_resolve.turn_resolve(combat=fight, master=master, turn=1)
    fight.refresh_from_db()
    if fight.is_open:
        combat.combat_finish(combat=fight, master=master)


def _in_progress(story: Scene, *, master: Any, lucia: Character, tomas: Character) -> None:
    fight = combat.combat_open(
        scene=story, master=master, kind=Combat.Kind.ZOMBIES, title=OPEN_TITLE,
        characters=[lucia, tomas], turn_hours=OPEN_TURN_HOURS,
    )  # fmt: skip
    combat.combatants_add(combat=fight, master=master, zombies=2)
    on_tomas = Combatant.objects.filter(combat=fight, side="zombie", victim__character=tomas)
    on_tomas.update(grabbing=True)
    on_lucia = Combatant.objects.filter(combat=fight, side="zombie", victim__character=lucia)
    combat.declaration_make(
        combat=fight,
        combatant=Combatant.objects.get(combat=fight, character=lucia),
        user=lucia.player,
        action="attack",
        target=on_lucia.first(),
        weapon="unarmed",
    )
