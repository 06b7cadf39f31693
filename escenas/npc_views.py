"""The master's page of non-player characters (PNJ): the list with their portraits, a form to
add one and one to change each; and the NPC portrait files, for whoever may read the campaign.

Thin: fetches through ``mundo.access.access_campaign`` (``master=True`` for the pages, a 404
for anyone else), writes through ``escenas.npcs``.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from escenas import npcs
from escenas.models import NonPlayerCharacter
from mundo.access import access_campaign
from mundo.models import Campaign
from nucleo.errors import ServiceError
from nucleo.forms import add_service_errors
from nucleo.text import CleanCharField
from personajes.models import PORTRAIT_CONTENT_TYPES
from personajes.portraits import portrait_response


class NpcForm(forms.Form):
    """An NPC: name, the master's description, a portrait (or removing it)."""

    name = CleanCharField(label=gettext_lazy("Name"), max_length=80)
    description = CleanCharField(
        multiline=True,
        label=gettext_lazy("Description (only you see it)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    portrait = forms.FileField(
        label=gettext_lazy("Portrait"),
        required=False,
        help_text=gettext_lazy("JPEG, PNG, WebP or GIF, at most 2 MB; shown beside its posts."),
        widget=forms.FileInput(attrs={"accept": ",".join(PORTRAIT_CONTENT_TYPES)}),
    )
    remove_portrait = forms.BooleanField(label=gettext_lazy("Remove the portrait"), required=False)


def _npc_of(campaign: Campaign, pk: int) -> NonPlayerCharacter:
    npc = NonPlayerCharacter.objects.filter(campaign=campaign, pk=pk).first()
    if npc is None:
        raise Http404("No such NPC")
    return npc


@login_required
def npc_list(request: HttpRequest, slug: str, pk: int | None = None) -> HttpResponse:
    """GET: the campaign's NPCs and the form to add one (``pk``: to change that one).
    POST: save it; errors re-render the page with the message (400)."""
    campaign = access_campaign(request.user, slug=slug, master=True)[0]
    npc = _npc_of(campaign, pk) if pk is not None else None
    initial = {"name": npc.name, "description": npc.description} if npc else None
    form = NpcForm(request.POST or None, request.FILES or None, initial=initial)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                saved = npcs.npc_save(
                    campaign=campaign,
                    master=request.user,
                    npc=npc,
                    name=data["name"],
                    description=data.get("description") or "",
                    portrait=data.get("portrait") or None,
                    remove_portrait=bool(data.get("remove_portrait")),
                )
            except ServiceError as exc:
                add_service_errors(form, exc)
            else:
                messages.success(request, _("Saved: %(name)s.") % {"name": saved.name})
                return redirect(reverse("escenas:npcs", kwargs={"slug": campaign.slug}))
        status = 400
    return render(
        request,
        "escenas/npc_list.html",
        {"campaign": campaign, "npcs": npcs.campaign_npcs(campaign), "form": form, "npc": npc},
        status=status,
    )


@require_GET
def npc_portrait(
    request: HttpRequest, slug: str, pk: int, thumb: bool | str = False
) -> HttpResponseBase:
    """An NPC's portrait (``thumb``: True the 96 px thumbnail, ``"2x"`` the 192 px one) for
    whoever may read its campaign (``access_campaign``: else a 404, as for the campaign)."""
    campaign = access_campaign(request.user, slug=slug)[0]
    return portrait_response(_npc_of(campaign, pk), thumb)
