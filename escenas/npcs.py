"""The master's non-player characters (PNJ): a name and a portrait per campaign, chosen as the
voice of the master's posts (``services.post_create(npc=…)``), shown with their portrait.

Writes run under the campaign's lock (``nucleo.locks``) and raise ``ServiceError`` with the
field's message; the portrait goes through the characters' own checks and re-encoding
(``personajes.portraits``: at most 2 MB, a real image, no metadata kept, 96/192 px thumbnails).
Saving an NPC changes every post fragment's cache key (``escenas.fragments.names_changed``),
so its posts show the new name or portrait at once.
"""

from __future__ import annotations

from typing import IO, Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from escenas.models import NonPlayerCharacter
from mundo.access import require_master
from mundo.models import Campaign
from nucleo.errors import ServiceError
from nucleo.locks import campaign_lock
from nucleo.text import clean_line, clean_text
from personajes.portraits import portrait_assign, validate_portrait

NPC_NAME_MAX = 80


def campaign_npcs(campaign: Campaign | int) -> QuerySet[NonPlayerCharacter]:
    """The campaign's NPCs by name (no related rows needed: name and portrait fields)."""
    return NonPlayerCharacter.objects.filter(campaign=campaign).order_by("name", "id")


def npc_save(
    *,
    campaign: Campaign,
    master: Any,
    name: str,
    description: str = "",
    portrait: IO[bytes] | None = None,
    remove_portrait: bool = False,
    npc: NonPlayerCharacter | None = None,
) -> NonPlayerCharacter:
    """Create an NPC of ``campaign`` (``npc`` None) or change ``npc``: its name (1–80
    characters, unique in the campaign), the master's description, a new ``portrait`` upload
    (re-encoded with its thumbnails) or ``remove_portrait``. The master only.
    Raises ServiceError: not the master; ``{"name": …}``, ``{"portrait": …}``.
    """
    require_master(campaign, master)
    clean_name = clean_line(name).strip()
    errors: dict[str, str] = {}
    if not clean_name:
        errors["name"] = _("Write the name of the character who speaks.")
    elif len(clean_name) > NPC_NAME_MAX:
        errors["name"] = _("The name is too long (at most 80 characters).")
    if portrait:
        try:
            validate_portrait(portrait)
        except ServiceError as exc:
            errors.update({"portrait": exc.message_dict["portrait"][0]})
    if errors:
        raise ServiceError(errors)
    with campaign_lock(campaign.pk):
        taken = NonPlayerCharacter.objects.filter(campaign=campaign, name__iexact=clean_name)
        if npc is not None:
            if npc.campaign_id != campaign.pk:
                raise ServiceError(_("Only the campaign's master can do that."))
            taken = taken.exclude(pk=npc.pk)
        if taken.exists():
            raise ServiceError({"name": _("This campaign already has an NPC with that name.")})
        target = npc or NonPlayerCharacter(campaign=campaign)
        target.name = clean_name
        target.description = clean_text(description).strip()
        if portrait:
            portrait_assign(target, portrait)
        elif remove_portrait:
            portrait_assign(target, None)
        target.save()
    return target
