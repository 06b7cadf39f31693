"""Resolving a turn of a fight: the engine's rolls, the sheets, the settlement, the summary post.

``turn_resolve`` is the master's button. Under the campaign lock it refuses a turn already
resolved (the ``CombatTurn`` row is unique per fight and number), draws every roll's dice from
that roll's own ledger key (``escenas.combat_post.LedgerDice``: ``[day, COMBAT, subject,
sequence]``, subject the character's id — a zombie's roll against a character is that
character's — or the master's user id + 10⁹ for NPCs), so every stored key reproduces its dice,
writes every roll (``rolls_record_bulk``, each row's ``drawn_with`` checked), applies deaths,
bites (infection R13, opening the one amputation try), amputations and zombies killed (R17), and
posts one narrated summary in the scene with those rolls attached.

Against zombies (R20) each human has the zombies that attack it (``Combatant.victim``): humans
act first — one who attacks another human's zombie rolls before any zombie — then each human's
zombies are resolved by ``reglas.combat.resolve_zombie_turn``. A human that did not declare
defends only: it escapes from a zombie holding it and does not attack. Between humans (R21)
every declared attack is simultaneous: both of a pair can die.
Source: RULES.md R13, R17, R19–R21.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import F
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from escenas.combat import _lock_combat, assign_victims, weapon_from_json
from escenas.combat_models import Combat, Combatant, CombatTurn, Declaration
from escenas.combat_post import LedgerDice, turn_write
from mundo.access import require_master
from mundo.models import Campaign, Settlement
from nucleo.errors import ServiceError
from nucleo.locks import campaign_lock, lock_rows
from nucleo.rules_errors import rules_message
from personajes.mapping import condition_state
from personajes.models import Character, TraitValue
from reglas.characters import action_penalty
from reglas.combat import (
    AttackZombie,
    CombatRoll,
    EscapeZombie,
    VictimAction,
    ZombieFight,
    ZombieState,
    attack,
    resolve_zombie_turn,
)
from reglas.core import Breakdown, make_rng
from reglas.errors import RulesError
from reglas.health.infection import bite

DEATH_CAUSE = "combat"
"""``Character.death_cause`` of a death in a fight (R14)."""


@dataclass
class _Fighter:
    """A human of the fight as the engine sees it: traits by slug, R9 penalty, its row."""

    row: Combatant
    traits: dict[str, int]
    penalty: Breakdown
    character: Character | None


@dataclass
class _Turn:
    """What a resolution gathers: the turn's dice, the rolls with whose they are (in draw
    order), the text, the outcomes."""

    dice: LedgerDice

    rolls: list[tuple[CombatRoll, Character | None, str]] = field(default_factory=list)
    expressions: list[tuple[Character, str, list[Any], int, str]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    killed_zombies: set[int] = field(default_factory=set)
    dead: set[int] = field(default_factory=set)
    bitten: set[int] = field(default_factory=set)
    diary: list[tuple[Character, str]] = field(default_factory=list)

    def add(self, roll: CombatRoll, who: Character | None, reason: str) -> None:
        self.rolls.append((roll, who, reason))


def _fighters(combat: Combat, rows: Sequence[Combatant], rules: Any) -> dict[int, _Fighter]:
    """The living humans with their traits (the sheet's, or the NPC's) and R9 penalty."""
    humans = [r for r in rows if not r.is_zombie and r.alive]
    char_ids = [r.character_id for r in humans if r.character_id]
    characters = {c.pk: c for c in lock_rows(Character.objects.filter(pk__in=char_ids))}
    values: dict[int, dict[str, int]] = {cid: {} for cid in char_ids}
    for cid, slug, value in TraitValue.objects.filter(character_id__in=char_ids).values_list(
        "character_id", "trait__slug", "value"
    ):
        values[cid][slug] = value
    out = {}
    for r in humans:
        character = characters.get(r.character_id) if r.character_id else None
        if character is not None:
            try:
                penalty = action_penalty(condition_state(character), False, rules)
            except RulesError as exc:
                raise ServiceError(rules_message(exc)) from None
            out[r.pk] = _Fighter(r, values[character.pk], penalty, character)
        else:
            out[r.pk] = _Fighter(r, {k: int(v) for k, v in r.traits.items()}, (), None)
    return out


def turn_rng(campaign: Campaign, key: list[int]) -> np.random.Generator:
    """The generator of one stored roll of a turn: ``make_rng(entropy, key)`` with the key the
    ledger stores, so every stored key reproduces its dice. (Tests replace it with scripted
    dice.)"""
    return make_rng(campaign.entropy_int, key)


def turn_resolve(*, combat: Combat, master: User, turn: int | None = None) -> CombatTurn:
    """The master resolves the current turn (``turn``, when given, must be it: a stale page
    asking again for a resolved turn is refused). Returns the stored ``CombatTurn``.

    Raises ServiceError: not the master; the fight is over; the turn is already resolved
    ("idempotent": nothing is rolled twice); an engine refusal (worded by
    ``nucleo.rules_errors``). Source: RULES.md R13, R17, R19–R21.
    """
    with campaign_lock(combat.campaign_id) as campaign:
        require_master(campaign, master, _("Only the campaign's master can resolve a turn."))
        locked = _lock_combat(combat)
        if turn is not None and int(turn) != locked.turn:
            raise ServiceError(
                _("Turn %(turn)d is already resolved.") % {"turn": int(turn)}, code="resolved"
            )
        if not locked.is_open:
            raise ServiceError(_("This fight is over."), code="resolved")
        if CombatTurn.objects.filter(combat=locked, number=locked.turn).exists():
            raise ServiceError(
                _("Turn %(turn)d is already resolved.") % {"turn": locked.turn}, code="resolved"
            )
        # The summary is stored words (a post's text is its record), in the site's language.
        with translation.override(settings.LANGUAGE_CODE):
            return _resolve_locked(locked, campaign, master)


def _resolve_locked(combat: Combat, campaign: Campaign, master: User) -> CombatTurn:
    rows = lock_rows(Combatant.objects.filter(combat=combat))
    by_pk = {r.pk: r for r in rows}
    declared = {
        d.combatant_id: d for d in Declaration.objects.filter(combat=combat, turn=combat.turn)
    }
    rules = campaign.rules
    fighters = _fighters(combat, rows, rules)
    rng = LedgerDice(campaign, master, lambda key: turn_rng(campaign, key))
    record = _Turn(dice=rng)
    # The try opened by last turn's bites was "immediate": it closes with this turn.
    for r in rows:
        r.amputation_open = False
    try:
        if combat.kind == Combat.Kind.ZOMBIES:
            _zombie_turn(combat, campaign, fighters, by_pk, declared, rng, record)
        else:
            _human_turn(combat, campaign, fighters, by_pk, declared, rng, record)
    except RulesError as exc:
        raise ServiceError(rules_message(exc)) from None
    _apply(combat, campaign, rows, fighters, record, rng)
    return turn_write(combat, campaign, master, record)


# --- against zombies -------------------------------------------------------------------------


def _default_action(fighter: _Fighter, grabbers: list[Combatant]) -> VictimAction:
    """No declaration: defend only — escape from the first zombie holding it, else nothing."""
    if grabbers:
        return EscapeZombie(str(grabbers[0].pk))
    return None


def _victim_action(
    fighter: _Fighter,
    declaration: Declaration | None,
    own: dict[str, Combatant],
    grabbers: list[Combatant],
    campaign: Campaign,
    distance_m: float,
) -> tuple[VictimAction, Declaration | None]:
    """The engine action of a human against its own zombies, and a declaration aimed at
    another human's zombie (resolved before every zombie, humans first)."""
    if declaration is None or declaration.action == Declaration.Action.DEFEND:
        return _default_action(fighter, grabbers), None
    target = str(declaration.target_id)
    if declaration.action == Declaration.Action.ESCAPE:
        if target in own and own[target].alive and own[target].grabbing:
            return EscapeZombie(target, declaration.escape_trait or None), None
        return _default_action(fighter, grabbers), None
    weapon = weapon_from_json(declaration.weapon, campaign)
    if target in own:
        return AttackZombie(target, weapon, distance_m), None
    return _default_action(fighter, grabbers), declaration


def _zombie_turn(
    combat: Combat,
    campaign: Campaign,
    fighters: dict[int, _Fighter],
    by_pk: dict[int, Combatant],
    declared: dict[int, Declaration],
    rng: LedgerDice,
    record: _Turn,
) -> None:
    """Humans first (attacks on other humans' zombies), then each human's zombies (R20)."""
    table = campaign.tables.combat
    zombies_of: dict[int, list[Combatant]] = {pk: [] for pk in fighters}
    for r in by_pk.values():
        if r.is_zombie and r.alive and r.victim_id in zombies_of:
            zombies_of[r.victim_id].append(r)
    actions: dict[int, VictimAction] = {}
    for pk, fighter in fighters.items():
        own = {str(z.pk): z for z in zombies_of[pk]}
        grabbers = [z for z in zombies_of[pk] if z.grabbing]
        actions[pk], elsewhere = _victim_action(
            fighter, declared.get(pk), own, grabbers, campaign, combat.distance_m
        )
        if elsewhere is not None:
            _attack_elsewhere(fighter, elsewhere, by_pk, combat, campaign, rng, record)
    for pk, fighter in fighters.items():
        zombies = zombies_of[pk]
        if not any(z.alive and z.pk not in record.killed_zombies for z in zombies):
            continue
        _victim_turn(fighter, zombies, actions[pk], rng, record, table)


def _attack_elsewhere(
    fighter: _Fighter,
    declaration: Declaration,
    by_pk: dict[int, Combatant],
    combat: Combat,
    campaign: Campaign,
    rng: LedgerDice,
    record: _Turn,
) -> None:
    """A free human attacks a zombie that attacks someone else (humans act first)."""
    target = by_pk.get(declaration.target_id or 0)
    name = fighter.row.name
    if target is None or not target.alive or target.pk in record.killed_zombies:
        record.lines.append(_("%(name)s's target is already down.") % {"name": name})
        return
    result = attack(
        weapon_from_json(declaration.weapon, campaign),
        fighter.traits,
        rng.of(fighter.character),
        distance_m=float(combat.distance_m),
        penalty=fighter.penalty,
        table=campaign.tables.combat,
    )
    reason = _("%(name)s attacks %(target)s") % {"name": name, "target": target.name}
    record.add(result.to_hit, fighter.character, reason)
    if result.wound is not None:
        record.add(result.wound, fighter.character, reason)
    record.lines.append(f"**{reason}.** " + _md(result.describe()))
    record.log.append({"attacker": fighter.row.pk, "target": target.pk, "attack": result.as_dict()})
    if result.kills:
        record.killed_zombies.add(target.pk)


def _victim_turn(
    fighter: _Fighter,
    zombies: list[Combatant],
    action: VictimAction,
    rng: LedgerDice,
    record: _Turn,
    table: Any,
) -> None:
    """One human against its own zombies: ``resolve_zombie_turn`` and the rows updated."""
    fight = ZombieFight(
        zombies=tuple(
            ZombieState(str(z.pk), z.alive, z.grabbing, z.consecutive_bites) for z in zombies
        ),
        turn=0,
        bitten=fighter.row.infected,
    )
    gone = [str(z.pk) for z in zombies if z.pk in record.killed_zombies]
    if gone:
        fight = fight.with_killed(gone)
    if action is not None and action.zombie_id in gone:
        action = None
    result = resolve_zombie_turn(
        fight,
        action,
        fighter.traits,
        rng.of(fighter.character),
        penalty=fighter.penalty,
        table=table,
    )
    names = {str(z.pk): z.name for z in zombies}
    who, name = fighter.character, fighter.row.name
    lines = [f"**{name}**"]
    if result.attack is not None:
        reason = _("%(name)s attacks %(target)s") % {
            "name": name,
            "target": names[result.target or ""],
        }
        record.add(result.attack.to_hit, who, reason)
        if result.attack.wound is not None:
            record.add(result.attack.wound, who, reason)
        lines.append(reason + ": " + _md(result.attack.describe()))
    if result.escape is not None:
        reason = _("%(name)s escapes from %(target)s") % {
            "name": name,
            "target": names[result.target or ""],
        }
        record.add(result.escape, who, reason)
        lines.append(reason + ": " + _md(result.escape.describe()))
    for zr in (*result.bites, *result.grabs):
        reason = f"{names[zr.zombie_id]} → {name}"
        record.add(zr.roll, who, reason)
        lines.append(f"{names[zr.zombie_id]}: " + _md(zr.roll.describe()))
    if result.killed:
        record.killed_zombies.add(int(result.killed))
    for state in result.fight.zombies:
        z = next(z for z in zombies if str(z.pk) == state.zombie_id)
        z.alive = state.alive and z.pk not in record.killed_zombies
        z.grabbing, z.consecutive_bites = state.grabbing and z.alive, state.consecutive_bites
    if result.bitten:
        record.bitten.add(fighter.row.pk)
        lines.append(
            _("%(name)s is bitten (%(n)d bite(s) this turn).")
            % {"name": name, "n": result.bites_this_turn}
        )
    if result.victim_dead:
        record.dead.add(fighter.row.pk)
        lines.append(_("**%(name)s dies.**") % {"name": name})
    record.lines.append("  \n".join(lines))
    record.log.append({"victim": fighter.row.pk, "turn": result.as_dict()})


def _md(text: str) -> str:
    """Engine text as Markdown lines (hard breaks)."""
    return "  \n".join(text.splitlines())


# --- between humans ----------------------------------------------------------------------------


def _human_turn(
    combat: Combat,
    campaign: Campaign,
    fighters: dict[int, _Fighter],
    by_pk: dict[int, Combatant],
    declared: dict[int, Declaration],
    rng: LedgerDice,
    record: _Turn,
) -> None:
    """Every declared attack at once (R21): each by ``reglas.combat.attack`` from its attacker's
    own ledger dice (what ``resolve_human_exchange`` does for a pair, one roll row per die
    draw); the deaths apply after all the rolls, so both of a pair can die."""
    table = campaign.tables.combat
    attacks = {
        pk: d
        for pk, d in declared.items()
        if pk in fighters and d.action == Declaration.Action.ATTACK and d.target_id in fighters
    }
    for pk in fighters:
        d = attacks.get(pk)
        if d is None:
            continue
        a, b = fighters[pk], fighters[d.target_id or 0]
        one = attack(
            weapon_from_json(d.weapon, campaign),
            a.traits,
            rng.of(a.character),
            distance_m=combat.distance_m,
            penalty=a.penalty,
            table=table,
        )
        pairs = [(a, b, one)]
        for att, tgt, result in pairs:
            reason = _("%(name)s attacks %(target)s") % {
                "name": att.row.name,
                "target": tgt.row.name,
            }
            record.add(result.to_hit, att.character, reason)
            if result.wound is not None:
                record.add(result.wound, att.character, reason)
            record.lines.append(f"**{reason}.**  \n" + _md(result.describe()))
            record.log.append(
                {"attacker": att.row.pk, "target": tgt.row.pk, "attack": result.as_dict()}
            )
            if result.kills:
                record.dead.add(tgt.row.pk)
    for pk in record.dead:
        record.lines.append(_("**%(name)s dies.**") % {"name": fighters[pk].row.name})
    if not attacks:
        record.lines.append(_("Nobody attacks this turn."))


# --- writing the outcome -----------------------------------------------------------------------


def _apply(
    combat: Combat,
    campaign: Campaign,
    rows: list[Combatant],
    fighters: dict[int, _Fighter],
    record: _Turn,
    rng: LedgerDice,
) -> None:
    """Deaths and bites to the rows and sheets; zombies killed to the settlement (R13, R17)."""
    day = campaign.current_day
    changed: list[Character] = []
    for pk in sorted(record.bitten | record.dead):
        f = fighters[pk]
        row = f.row
        if pk in record.dead:
            row.alive = False
            row.grabbing = False
        if pk in record.bitten and not row.infected:
            row.infected = True
            row.amputation_open = pk not in record.dead
            if f.character is not None and pk not in record.dead:
                outcome = bite(
                    condition_state(f.character), rng.of(f.character), settings=campaign.rules
                )
                if outcome.infected and outcome.duration_roll is not None:
                    f.character.infection_day = outcome.state.infection_day
                    f.character.infection_duration = outcome.state.infection_duration
                    roll = outcome.duration_roll
                    record.expressions.append(
                        (
                            f.character,
                            campaign.rules.infection_duration,
                            [t.as_dict() for t in roll.dice],
                            roll.total,
                            _("Duration of the infection of %(name)s (R13)") % {"name": row.name},
                        )
                    )
                    changed.append(f.character)
                    record.diary.append(
                        (
                            f.character,
                            _("Bitten in the fight: infected for %(days)d days (R13).")
                            % {"days": roll.total},
                        )
                    )
        if pk in record.dead and f.character is not None:
            f.character.status = Character.Status.DEAD
            f.character.death_cause = DEATH_CAUSE
            f.character.death_day = day
            changed.append(f.character)
            record.diary.append((f.character, _("Died in the fight (R14).")))
    for r in rows:
        if r.pk in record.killed_zombies:
            r.alive, r.grabbing, r.consecutive_bites = False, False, 0
    Combatant.objects.bulk_update(
        rows, ["alive", "grabbing", "consecutive_bites", "infected", "amputation_open"]
    )
    if changed:
        Character.objects.bulk_update(
            list({c.pk: c for c in changed}.values()),
            ["status", "death_cause", "death_day", "infection_day", "infection_duration"],
        )
    if record.killed_zombies and combat.settlement_id:
        Settlement.objects.filter(pk=combat.settlement_id).update(
            zombies_destroyed=F("zombies_destroyed") + len(record.killed_zombies)
        )
    assign_victims(combat)
    humans = [r for r in rows if not r.is_zombie and r.alive]
    zombies = [r for r in rows if r.is_zombie and r.alive]
    over = not humans or (combat.kind == Combat.Kind.ZOMBIES and not zombies)
    if combat.kind == Combat.Kind.HUMANS and len(humans) < 2:
        over = True
    combat.turn += 1
    if over:
        combat.state = Combat.State.FINISHED
        combat.finished_at = timezone.now()
    combat.save(update_fields=["turn", "state", "finished_at"])
