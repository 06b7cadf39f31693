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

import datetime
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.translation import gettext as _

from escenas.models import JoinRequest, PostRoll, RollRequest, Scene
from mundo.access import campaign_role, is_master_role
from mundo.models import Campaign
from nucleo.users import AnyUser
from personajes.forecast import CharacterForecast, campaigns_forecasts
from personajes.models import Character, ItemType, Roll
from reglas.forecast import DANGER_DEATH_DAYS, DANGER_DISEASE_P, Forecast


@dataclass(frozen=True, slots=True)
class PendingItem:
    """One thing waiting for someone: the master's pending items and «Mi mesa»'s lines.

    ``kind``: one of ``escenas.inbox.KINDS`` — for the master ``"danger"`` (a character's
    forecast), ``"sheet"`` (submitted for review), ``"threshold"`` (a roll waiting for its
    threshold), ``"request"`` (a roll request not answered yet) or ``"join"`` (a request to
    enter a scene). ``label``: the sentence shown (translated, plain text). ``url``: the page
    (a path) that deals with it, one click away (the world page's give form set for that
    character and water or food; the character's sheet; the review page; the post; the
    scene). ``link_text``: the words of that link. ``character`` / ``scene``: what it is
    about. ``action_url``: for a join, the POST endpoint of the one-click decision (fields
    ``decision=accept|decline``); empty otherwise. ``key``: stable (kind and row id; the
    feed entry's id). ``campaign``: whose it is. ``when``: since when (None: no date, as a
    forecast).
    """

    kind: str
    label: str
    url: str
    link_text: str = ""
    character: Character | None = None
    scene: Scene | None = None
    action_url: str = ""
    key: str = ""
    campaign: Campaign | None = field(default=None, compare=False)
    when: datetime.datetime | None = None


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
        # The world page with its supplies section open (mundo.world_page.SECTIONS).
        query = urlencode({"give": character.pk, "kind": kind, "open": "supplies"})
        url = f"{reverse('mundo:world', kwargs={'slug': campaign.slug})}?{query}#give"
        text = _("Give water") if thirst else _("Give food")
    else:
        url, text = character.get_absolute_url(), _("See the sheet")
    return PendingItem(
        "danger",
        label,
        url,
        text,
        character=character,
        key=f"danger-{character.pk}-{campaign.current_day}",
        campaign=campaign,
    )


def master_pending_items(
    campaign: Campaign,
    *,
    user: AnyUser | None,
    forecasts: Sequence[CharacterForecast] | None = None,
) -> list[PendingItem]:
    """Everything waiting for ``user`` as the master of ``campaign`` (see
    ``master_pending_batch``); empty for anyone who is not the campaign's master.

    ``forecasts``: the campaign's own (``campaign_forecasts``) when the caller has them
    already, so they are not read twice. Queries: the role (none when ``campaign`` comes from
    ``access_campaign`` for ``user``, which reads it beside the campaign), then
    ``master_pending_batch``'s: as many for one character as for a hundred.
    Source: RULES.md R3, R5, R6, R10, R15.
    """
    if getattr(campaign, "viewer_role", _UNREAD) is _UNREAD:
        role = campaign_role(campaign, user)
    else:
        role = campaign.viewer_role  # type: ignore[attr-defined]
    if not is_master_role(role):
        return []
    known = None if forecasts is None else {campaign.pk: list(forecasts)}
    return master_pending_batch([campaign], forecasts=known).get(campaign.pk, [])


def master_pending_batch(
    campaigns: Sequence[Campaign],
    *,
    forecasts: dict[int, list[CharacterForecast]] | None = None,
) -> dict[int, list[PendingItem]]:
    """Every pending item of each campaign (the caller masters them all), keyed by campaign
    id, most urgent first: characters in danger (soonest death first, as the forecasts sort
    them), sheets submitted, rolls waiting for their threshold, roll requests not answered,
    requests to enter a scene (each kind oldest first).

    ``forecasts``: the campaigns' forecasts when the caller has read them
    (``campaigns_forecasts``). Queries whatever the number of campaigns and rows: the
    forecasts' (five with living characters, one without; none when given), then one per
    other kind (four); none for no campaign. Source: RULES.md R3 (thresholds), R5 (sheets),
    R6, R10, R15 (danger).
    """
    if not campaigns:
        return {}
    by_id = {c.pk: c for c in campaigns}
    if forecasts is None:
        forecasts = campaigns_forecasts(campaigns)
    out: dict[int, list[PendingItem]] = defaultdict(list)
    found = [
        *(
            _danger_item(by_id[cid], cf)
            for cid, rows in forecasts.items()
            for cf in rows
            if cf.forecast.danger
        ),
        *_sheets(by_id),
        *_thresholds(by_id),
        *_requests(by_id),
        *_joins(by_id),
    ]
    for item in found:
        assert item.campaign is not None
        out[item.campaign.pk].append(item)
    return dict(out)


def _sheets(by_id: dict[int, Campaign]) -> list[PendingItem]:
    rows = (
        Character.objects.filter(campaign_id__in=list(by_id), status=Character.Status.SUBMITTED)
        .select_related("player")
        .order_by("updated_at", "pk")
    )
    return [
        PendingItem(
            "sheet",
            _("Sheet of %(name)s (%(player)s) waiting for your review")
            % {"name": c.name, "player": c.player.get_username() if c.player else "?"},
            reverse("personajes:review", kwargs={"pk": c.pk}),
            _("Review"),
            character=c,
            key=f"sheet-{c.pk}",
            campaign=by_id[c.campaign_id],
            when=c.updated_at,
        )
        for c in rows
    ]


def _thresholds(by_id: dict[int, Campaign]) -> list[PendingItem]:
    rows = (
        PostRoll.objects.filter(
            post__campaign_id__in=list(by_id),
            post__deleted_at__isnull=True,
            roll__base_threshold__isnull=True,
            roll__kind__in=(Roll.Kind.ACTION, Roll.Kind.EVENT),
        )
        .select_related("roll", "roll__character", "post__scene")
        .order_by("roll__created_at", "pk")
    )
    out = []
    for pr in rows:
        roll, scene = pr.roll, pr.post.scene
        what = roll.trait_name if roll.kind == Roll.Kind.ACTION else roll.get_kind_display()
        who = roll.character.name if roll.character else pr.post.speaker_name
        campaign = by_id[pr.post.campaign_id]
        out.append(
            PendingItem(
                "threshold",
                _("Set the threshold of %(who)s's roll (%(what)s) in “%(scene)s”")
                % {"who": who, "what": what, "scene": scene.title},
                reverse("escenas:post", kwargs={"slug": campaign.slug, "pk": pr.post_id}),
                _("See the roll"),
                character=roll.character,
                scene=scene,
                key=f"threshold-{pr.pk}",
                campaign=campaign,
                when=roll.created_at,
            )
        )
    return out


def _requests(by_id: dict[int, Campaign]) -> list[PendingItem]:
    rows = (
        RollRequest.objects.filter(
            scene__campaign_id__in=list(by_id),
            fulfilled_roll__isnull=True,
            cancelled_at__isnull=True,
        )
        .select_related("scene", "character", "trait")
        .order_by("created_at", "pk")
    )
    return [
        PendingItem(
            "request",
            _("%(name)s has not rolled %(trait)s yet in “%(scene)s”")
            % {"name": r.character.name, "trait": r.trait.name, "scene": r.scene.title},
            reverse(
                "escenas:scene",
                kwargs={"slug": by_id[r.scene.campaign_id].slug, "pk": r.scene_id},
            )
            + "?page=last#requests",
            _("See the scene"),
            character=r.character,
            scene=r.scene,
            key=f"request-{r.pk}",
            campaign=by_id[r.scene.campaign_id],
            when=r.created_at,
        )
        for r in rows
    ]


def _joins(by_id: dict[int, Campaign]) -> list[PendingItem]:
    rows = (
        JoinRequest.objects.filter(
            scene__campaign_id__in=list(by_id), status=JoinRequest.Status.PENDING
        )
        .select_related("scene", "character", "character__player")
        .order_by("created_at", "pk")
    )
    out = []
    for r in rows:
        campaign = by_id[r.scene.campaign_id]
        player = r.character.player
        out.append(
            PendingItem(
                "join",
                _("%(name)s (%(player)s) asks to enter “%(scene)s”")
                % {
                    "name": r.character.name,
                    "player": player.get_username() if player else "?",
                    "scene": r.scene.title,
                },
                reverse("escenas:scene", kwargs={"slug": campaign.slug, "pk": r.scene_id}),
                _("See the scene"),
                character=r.character,
                scene=r.scene,
                action_url=reverse(
                    "escenas:join_decide", kwargs={"slug": campaign.slug, "pk": r.pk}
                ),
                key=f"join-{r.pk}",
                campaign=campaign,
                when=r.created_at,
            )
        )
    return out


_UNREAD = object()
"""Marks a campaign read without ``access_campaign``'s ``viewer_role`` annotation."""
