"""Medicina in a scene: the one amputation try after a bite (R13) and the daily cure (R12).

Both are the healer's action roll with Medicina (``personajes.rolls.roll_action_for_character``,
so the R9 penalty and the ledger are the ones of every roll), posted in the scene with the roll
attached. Source: RULES.md R12, R13.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext as _

from escenas.combat_models import Combat, Combatant, MedicineCure
from escenas.models import Post, PostRoll, Scene, scene_last_posts
from escenas.rendering import render_markdown
from escenas.tasks import notify_posts
from mundo.access import is_master
from mundo.models import Campaign
from nucleo.errors import ServiceError
from nucleo.locks import campaign_lock, lock_row, lock_rows
from personajes.models import Character, Roll, TraitValue
from personajes.rolls import roll_action_for_character

MEDICINA = "medicina"
"""The slug of the Medicina trait."""


def _check_healer(healer: Character, user: User, campaign: Campaign) -> None:
    """The healer is alive, the user plays it or is the master, and it has Medicina when the
    campaign asks for it. Raises ServiceError."""
    if healer.campaign_id != campaign.pk or not healer.is_alive:
        raise ServiceError({"healer": _("Choose a living character of this campaign.")})
    if not is_master(campaign, user) and healer.player_id != getattr(user, "pk", None):
        raise ServiceError({"healer": _("You can only roll for your own character.")})
    value = (
        TraitValue.objects.filter(character=healer, trait__slug=MEDICINA)
        .values_list("value", flat=True)
        .first()
    ) or 0
    if value == 0 and campaign.rules.medicine_requires_trait:
        raise ServiceError({"healer": _("%(name)s has no Medicina.") % {"name": healer.name}})


def _post_roll(scene: Scene, user: User, campaign: Campaign, body: str, roll: Roll) -> Post:
    now = timezone.now()
    post = Post.objects.create(
        campaign=campaign,
        scene=scene,
        author=user,
        voice=Post.Voice.NARRATOR,
        speaker_name=_("Medicina"),
        by_master=is_master(campaign, user),
        body=body,
        body_html=render_markdown(body),
        day=campaign.current_day,
        idempotency_key=f"medicina:{roll.pk}",
        created_at=now,
        updated_at=now,
    )
    PostRoll.objects.create(post=post, roll=roll, position=0)
    Scene.objects.filter(pk=scene.pk).update(last_post_at=now, **scene_last_posts())
    notify_posts([post.pk])
    return post


def amputation_try(*, combat: Combat, patient: Combatant, healer: Character, user: User) -> Roll:
    """The one immediate amputation try after a bite (R13): ``healer`` (a living character of
    the scene, played by ``user`` or any for the master) rolls Medicina at the campaign's
    ``amputation_threshold`` (20 %). Success removes the infection and records the amputation
    on the patient's sheet. The try closes either way (one per bite), and also when the next
    turn is resolved. Raises ServiceError: no open try; a healer not present, not the user's,
    or without Medicina. Source: RULES.md R13."""
    with campaign_lock(combat.campaign_id) as campaign:
        row = lock_row(Combatant.objects.select_related("character"), patient.pk)
        if row.combat_id != combat.pk or not row.amputation_open:
            if row.combat_id == combat.pk and (row.infected or row.amputated):
                raise ServiceError(
                    _(
                        "The one amputation try for %(name)s is over: it is offered only "
                        "right after the bite (R13)."
                    )
                    % {"name": row.name}
                )
            raise ServiceError(
                _("There is no amputation to try for %(name)s.") % {"name": row.name}
            )
        scene = Scene.objects.get(pk=combat.scene_id)
        if not scene.participants.filter(pk=healer.pk).exists():
            raise ServiceError(
                {"healer": _("%(name)s is not in this scene.") % {"name": healer.name}}
            )
        _check_healer(healer, user, campaign)
        roll = roll_action_for_character(
            character=healer,
            trait=MEDICINA,
            threshold=campaign.rules.amputation_threshold,
            made_by=user,
            reason=(_("Amputation after the bite of %(name)s (R13)") % {"name": row.name})[:200],
        )
        row.amputation_open = False
        if roll.success:
            row.amputated, row.infected = True, False
            if row.character is not None:
                patient_row = lock_rows(Character.objects.filter(pk=row.character.pk))[0]
                patient_row.infection_day = patient_row.infection_duration = 0
                limb = _("limb bitten in the fight (day %(day)d)") % {"day": campaign.current_day}
                patient_row.amputations = [*patient_row.amputations, limb]
                patient_row.save(
                    update_fields=["infection_day", "infection_duration", "amputations"]
                )
        row.save(update_fields=["amputation_open", "amputated", "infected"])
        outcome = (
            _("The amputation succeeds: %(name)s is no longer infected.")
            if roll.success
            else _("The amputation fails: %(name)s stays infected.")
        ) % {"name": row.name}
        _post_roll(scene, user, campaign, f"**{healer.name}** → {row.name}. {outcome}", roll)
    return roll


def medicine_cure(
    *, patient: Character, healer: Character, user: User, scene: Scene | None = None
) -> MedicineCure:
    """A Medicina cure try on a sick ``patient`` (R12): any day, once per day per patient; the
    healer rolls Medicina at ``medicine_cure_threshold`` (30 %); success ends the disease. With a
    ``scene`` the roll is posted there. Raises ServiceError: the patient is not sick or already
    tried today; the healer is not the user's (nor the master's), is the wrong campaign's, or
    has no Medicina. Source: RULES.md R12."""
    with campaign_lock(patient.campaign_id) as campaign:
        locked = lock_rows(Character.objects.filter(pk__in=sorted({patient.pk, healer.pk})))
        sick = next(c for c in locked if c.pk == patient.pk)
        if not sick.is_alive or sick.disease_day == 0:
            raise ServiceError(_("%(name)s is not sick.") % {"name": sick.name})
        if MedicineCure.objects.filter(patient=sick, day=campaign.current_day).exists():
            raise ServiceError(
                _("Somebody already tried to cure %(name)s today.") % {"name": sick.name}
            )
        _check_healer(healer, user, campaign)
        roll = roll_action_for_character(
            character=healer,
            trait=MEDICINA,
            threshold=campaign.rules.medicine_cure_threshold,
            made_by=user,
            reason=(_("Medicina to cure %(name)s (R12)") % {"name": sick.name})[:200],
        )
        if roll.success:
            sick.disease_day = sick.disease_duration = 0
            sick.disease_days_treated = sick.disease_unhygienic_days = 0
            sick.save(
                update_fields=[
                    "disease_day",
                    "disease_duration",
                    "disease_days_treated",
                    "disease_unhygienic_days",
                ]
            )
        cure = MedicineCure.objects.create(
            campaign=campaign,
            patient=sick,
            healer=healer,
            day=campaign.current_day,
            roll=roll,
            cured=bool(roll.success),
        )
        if scene is not None:
            outcome = _("%(name)s is cured.") if roll.success else _("%(name)s is still sick.")
            body = f"**{healer.name}** → {sick.name}. " + outcome % {"name": sick.name}
            _post_roll(scene, user, campaign, body, roll)
    return cure
