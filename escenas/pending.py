"""What waits for a campaign's master: the pending list of the campaign page (and of any page
that gathers a master's campaigns, such as "Mi mesa").

``master_pending_items`` is the one selector: characters in danger (``personajes.forecast``:
"thirsty tomorrow", "death by thirst on day N if nothing changes", high odds of falling ill),
sheets submitted for review, and requests to enter a scene, each as a plain ``PendingItem``
whose ``url`` is one click from dealing with it. It lives in ``escenas`` because it reads
``personajes`` (sheets, forecasts) and ``escenas`` (join requests); ``mundo``'s campaign page
reads it through the ``{% master_pending %}`` tag.

Source: RULES.md R5 (sheets the master approves), R6, R10, R15 (the forecast's dangers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.translation import gettext as _

from escenas.joining import pending_join_requests
from escenas.models import Scene
from mundo.access import campaign_role, is_master_role
from mundo.models import Campaign
from nucleo.users import AnyUser
from personajes.forecast import CharacterForecast, campaign_forecasts
from personajes.models import Character, ItemType
from reglas.forecast import DANGER_DEATH_DAYS, DANGER_DISEASE_P, Forecast


@dataclass(frozen=True, slots=True)
class PendingItem:
    """One thing waiting for the master.

    ``kind``: ``"danger"`` (a character's forecast), ``"sheet"`` (submitted for review) or
    ``"join"`` (a request to enter a scene). ``label``: the sentence shown (translated, plain
    text). ``url``: the page that deals with it, one click away (the world page's give form
    set for that character and water or food; the character's sheet; the review page; the
    scene). ``link_text``: the words of that link. ``character`` / ``scene``: what it is about
    (``scene`` only for a join). ``action_url``: for a join, the POST endpoint of the
    one-click decision (fields ``decision=accept|decline``); empty otherwise.
    """

    kind: str
    label: str
    url: str
    link_text: str
    character: Character | None = None
    scene: Scene | None = None
    action_url: str = ""


def _warnings(f: Forecast) -> list[str]:
    """The forecast's dangers in words, the msgids of the campaign page's danger table."""
    words = []
    if f.thirsty_tomorrow:
        words.append(_("Thirsty tomorrow"))
    if f.hungry_tomorrow:
        words.append(_("Hungry tomorrow"))
    if f.death_day is not None:
        death = {
            "thirst": _("Death by thirst on day %(day)s if nothing changes"),
            "hunger": _("Death by hunger on day %(day)s if nothing changes"),
        }.get(f.death_cause or "", _("Death by exhaustion on day %(day)s if nothing changes"))
        words.append(death % {"day": f.death_day})
    if f.disease_p >= DANGER_DISEASE_P:
        words.append(_("%(p)s %% odds of falling ill tomorrow") % {"p": f.disease_p})
    return words


def _danger_item(campaign: Campaign, cf: CharacterForecast) -> PendingItem:
    """A character in danger, linked to what fixes it: water or food given on the world
    page (its give form set for the character), else the sheet with the odds' breakdown."""
    f, character = cf.forecast, cf.character
    label = _("%(name)s: %(warnings)s") % {
        "name": character.name,
        "warnings": "; ".join(_warnings(f)),
    }
    # The link fixes what makes the danger: a short day tomorrow or a death within
    # DANGER_DEATH_DAYS (reglas.forecast's "in danger"); a far death with high odds of
    # falling ill is the odds' danger, read on the sheet.
    soon = f.death_day is not None and f.death_day - campaign.current_day < DANGER_DEATH_DAYS
    thirst = f.thirsty_tomorrow or (soon and f.death_cause == "thirst")
    hunger = f.hungry_tomorrow or (soon and f.death_cause == "hunger")
    if thirst or hunger:
        kind = ItemType.Kind.WATER if thirst else ItemType.Kind.FOOD
        query = urlencode({"give": character.pk, "kind": kind})
        url = f"{reverse('mundo:world', kwargs={'slug': campaign.slug})}?{query}#give"
        text = _("Give water") if thirst else _("Give food")
    else:
        url, text = character.get_absolute_url(), _("See the sheet")
    return PendingItem("danger", label, url, text, character=character)


def master_pending_items(
    campaign: Campaign,
    *,
    user: AnyUser | None,
    forecasts: Sequence[CharacterForecast] | None = None,
) -> list[PendingItem]:
    """Everything waiting for ``user`` as the master of ``campaign``, most urgent first:
    characters in danger (soonest death first, as ``campaign_forecasts`` sorts them), then
    sheets submitted (oldest first), then requests to enter a scene (oldest first). Empty for
    anyone who is not the campaign's master.

    Queries: the role (none when ``campaign`` comes from ``access_campaign`` for ``user``,
    which reads it beside the campaign), the forecasts (five with living characters, one
    without; none when the caller passes the ``forecasts`` it already has), the submitted
    sheets with their players (1) and the join requests with their scenes and characters (1):
    as many for one character as for a hundred.
    Source: RULES.md R5, R6, R10, R15.
    """
    if getattr(campaign, "viewer_role", _UNREAD) is _UNREAD:
        role = campaign_role(campaign, user)
    else:
        role = campaign.viewer_role  # type: ignore[attr-defined]
    if not is_master_role(role):
        return []
    if forecasts is None:
        forecasts = campaign_forecasts(campaign)
    items = [_danger_item(campaign, cf) for cf in forecasts if cf.forecast.danger]
    sheets = (
        Character.objects.filter(campaign=campaign, status=Character.Status.SUBMITTED)
        .select_related("player")
        .order_by("updated_at", "pk")
    )
    for c in sheets:
        items.append(
            PendingItem(
                "sheet",
                _("Sheet of %(name)s (%(player)s) waiting for your review")
                % {"name": c.name, "player": c.player.get_username()},
                reverse("personajes:review", kwargs={"pk": c.pk}),
                _("Review"),
                character=c,
            )
        )
    for r in pending_join_requests(campaign):
        items.append(
            PendingItem(
                "join",
                _("%(name)s (%(player)s) asks to enter “%(scene)s”")
                % {
                    "name": r.character.name,
                    "player": r.character.player.get_username(),
                    "scene": r.scene.title,
                },
                reverse("escenas:scene", kwargs={"slug": campaign.slug, "pk": r.scene_id}),
                _("See the scene"),
                character=r.character,
                scene=r.scene,
                action_url=reverse(
                    "escenas:join_decide", kwargs={"slug": campaign.slug, "pk": r.pk}
                ),
            )
        )
    return items


_UNREAD = object()
"""Marks a campaign read without ``access_campaign``'s ``viewer_role`` annotation."""
