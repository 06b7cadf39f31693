"""Writing a resolved turn: its rolls through the ledger, the summary post, the turn row.

Called by ``escenas.combat_resolve`` under the campaign lock. Source: RULES.md R19–R21;
DESIGN.md "Randomness and the roll ledger".
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext as _

from escenas.combat_models import Combat, CombatTurn, CombatTurnRoll
from escenas.models import Post, PostRoll, Scene, scene_last_posts
from escenas.rendering import render_markdown
from escenas.tasks import notify_posts
from mundo.models import Campaign
from nucleo.ledger import USER_SUBJECT_OFFSET, LedgerRow, next_key, rolls_record_bulk
from personajes.models import Character, Roll, Trait
from reglas.combat import CombatRoll
from reglas.core import RollPurpose


class _SubjectDice:
    """Stands in for the engine's generator for one subject: each ``integers`` call is one
    roll (the engine draws each roll's dice in one call) and draws from the generator of the
    next ledger key of that subject, which it remembers."""

    def __init__(self, owner: LedgerDice, subject: int) -> None:
        self.owner, self.subject = owner, subject
        self.keys: list[list[int]] = []
        self.sequence: int | None = None

    def integers(self, *args: Any, **kwargs: Any) -> Any:
        if self.sequence is None:  # the stored rows of this subject today (one query)
            self.sequence = next_key(
                Roll,
                campaign_id=self.owner.campaign.pk,
                day=self.owner.day,
                purpose=RollPurpose.COMBAT,
                subject=self.subject,
            )[3]
        key = [self.owner.day, int(RollPurpose.COMBAT), self.subject, self.sequence]
        self.sequence += 1
        self.keys.append(key)
        return self.owner.generator_for(key).integers(*args, **kwargs)


class LedgerDice:
    """The dice of a turn: ``of(character)`` is the generator-like source of that subject's
    rolls (None: an NPC's, or a zombie's against an NPC — the master's subject). Every roll
    is drawn from its own ledger key; ``key_of`` hands the keys back in draw order so the
    ledger can check them (``LedgerRow.drawn_with``). Source: DESIGN.md "Randomness and the
    roll ledger"."""

    def __init__(self, campaign: Campaign, master: User, generator_for: Any) -> None:
        self.campaign, self.day = campaign, int(campaign.current_day)
        self.master_subject = USER_SUBJECT_OFFSET + int(master.pk)
        self.generator_for = generator_for
        self.subjects: dict[int, _SubjectDice] = {}

    def subject_of(self, character: Character | None) -> int:
        return int(character.pk) if character is not None else self.master_subject

    def of(self, character: Character | None) -> Any:
        subject = self.subject_of(character)
        if subject not in self.subjects:
            self.subjects[subject] = _SubjectDice(self, subject)
        return self.subjects[subject]

    def key_of(self, character: Character | None) -> list[int]:
        """The next unclaimed key of that subject, in draw order."""
        return self.subjects[self.subject_of(character)].keys.pop(0)


def _roll_row(
    roll: CombatRoll,
    who: Character | None,
    reason: str,
    master: User,
    traits: dict[str, Trait],
    drawn_with: list[int],
) -> LedgerRow:
    trait = traits.get(roll.trait or "")
    # Roll.modifiers holds points taken from the threshold: situation points change sign.
    mods = [{"source": m.source, "label": m.label, "points": -m.points} for m in roll.modifiers]
    mods += [m.as_dict() for m in roll.penalty if m.points]
    return LedgerRow(
        RollPurpose.COMBAT,
        who.pk if who is not None else USER_SUBJECT_OFFSET + int(master.pk),
        drawn_with=drawn_with,
        fields={
            "kind": Roll.Kind.ACTION if roll.trait else Roll.Kind.EVENT,
            "character": who.pk if who is not None else None,
            "made_by": master.pk,
            "reason": f"{roll.label}: {reason}"[:200],
            "expression": "",
            "trait": trait.pk if trait else None,
            "trait_name": (trait.name if trait else roll.trait) or "",
            "trait_value": roll.trait_value,
            "base_threshold": roll.base_threshold,
            "modifiers": json.dumps(mods, ensure_ascii=False),
            "effective_threshold": roll.threshold,
            "dice": json.dumps(list(roll.dice)),
            "total": None,
            "successes": roll.successes,
            "success": roll.success,
        },
    )


def _ledger_rows(campaign: Campaign, master: User, record: Any) -> list[LedgerRow]:
    """The turn's rolls as ledger rows: every engine roll, then the infections' 1d6+2."""
    traits = {t.slug: t for t in Trait.objects.filter(campaign=campaign)}
    dice = record.dice
    rows = [
        _roll_row(r, who, reason, master, traits, dice.key_of(who))
        for r, who, reason in record.rolls
    ]
    for character, expression, faces, total, reason in record.expressions:
        rows.append(
            LedgerRow(
                RollPurpose.COMBAT,
                character.pk,
                drawn_with=dice.key_of(character),
                fields={
                    "kind": Roll.Kind.EXPRESSION,
                    "character": character.pk,
                    "made_by": master.pk,
                    "reason": reason[:200],
                    "expression": expression,
                    "trait": None,
                    "trait_name": "",
                    "trait_value": None,
                    "base_threshold": None,
                    "modifiers": "[]",
                    "effective_threshold": None,
                    "dice": json.dumps(faces),
                    "total": total,
                    "successes": None,
                    "success": None,
                },
            )
        )
    return rows


def turn_write(combat: Combat, campaign: Campaign, master: User, record: Any) -> CombatTurn:
    """The rolls (one INSERT), the summary post with them attached, the turn row and its
    links to the rolls (``CombatTurnRoll``, in draw order)."""
    day = campaign.current_day
    rows = _ledger_rows(campaign, master, record)
    rolls_record_bulk(Roll, campaign=campaign, day=day, rows=rows)
    roll_ids = (
        list(
            Roll.objects.filter(campaign=campaign)
            .order_by("-pk")
            .values_list("pk", flat=True)[: len(rows)]
        )[::-1]
        if rows
        else []
    )
    number = combat.turn - 1
    heading = _("**Fight “%(title)s”, turn %(turn)d**") % {"title": str(combat), "turn": number}
    body = "\n\n".join([heading, *record.lines])
    if not combat.is_open:
        body += "\n\n" + _("The fight is over.")
    now = timezone.now()
    post = Post.objects.create(
        campaign=campaign,
        scene_id=combat.scene_id,
        author=master,
        voice=Post.Voice.NARRATOR,
        speaker_name=_("Fight"),
        by_master=True,
        body=body,
        body_html=render_markdown(body),
        day=day,
        idempotency_key=f"combate:{combat.pk}:{number}",
        created_at=now,
        updated_at=now,
    )
    PostRoll.objects.bulk_create(
        [PostRoll(post=post, roll_id=rid, position=i) for i, rid in enumerate(roll_ids)]
    )
    diary = _diary_posts(combat, campaign, record.diary, number=number, post=post)
    Scene.objects.filter(pk__in=[combat.scene_id, *(d.scene_id for d in diary)]).update(
        last_post_at=now, **scene_last_posts()
    )
    notify_posts([post.pk, *(d.pk for d in diary)])
    turn = CombatTurn.objects.create(
        combat=combat,
        number=number,
        day=day,
        log={
            "events": record.log,
            "killed_zombies": sorted(record.killed_zombies),
            "dead": sorted(record.dead),
            "bitten": sorted(record.bitten),
        },
        post=post,
        resolved_by=master,
    )
    CombatTurnRoll.objects.bulk_create(
        [CombatTurnRoll(turn=turn, roll_id=rid, position=i) for i, rid in enumerate(roll_ids)]
    )
    return turn


def _diary_posts(
    combat: Combat,
    campaign: Campaign,
    lines: list[tuple[Character, str]],
    *,
    number: int,
    post: Post,
) -> list[Post]:
    """One narrator post per character bitten or killed this turn, in its diary (R25): what
    happened, with a link to the turn's summary. Keyed per fight, turn and character."""
    from escenas.scenes import diary_scene_for  # scenes sit beside this module

    made = []
    for character, text in lines:
        scene = diary_scene_for(character)
        body = f"**{combat}** · " + _("turn %(turn)d") % {"turn": number} + f": {text}"
        body += f" ([{_('summary')}]({post.get_absolute_url()}))"
        made.append(
            Post.objects.create(
                campaign=campaign,
                scene=scene,
                author=None,
                voice=Post.Voice.NARRATOR,
                speaker_name=_("Diary"),
                body=body,
                body_html=render_markdown(body),
                day=campaign.current_day,
                idempotency_key=f"combate:{combat.pk}:{number}:{character.pk}",
            )
        )
    return made
