"""Who might be e-mailed about new posts, read as ids (issue 13: the load test's fan-out).

``notifications.post_notifications_queue`` first narrows a post's audience with these plain
rows: the scene's participants and the members the post mentions, their e-mail settings and
mutes, what was queued already and the readers' markers (``escenas.first_notice``). Only the
(post, reader) pairs left are loaded as models and checked against the page's rules
(``escenas.access``). In a busy scene most readers were told already and have not visited,
so most posts are dropped here: loading 50 members, their characters and the post's
participants as models, and checking each reader's access, was most of the fan-out's CPU.

Who a scene's post notifies at all (``scene_participant_ids``, over a campaign's members read
once as ids: ``CampaignMembers``) is here too: ``escenas.access.scene_participant_users`` and
the e-mails' final check (``notifications._recipients_by_post``) use the same rule.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db.models import Exists, OuterRef

from escenas.models import NotificationPreference, Post, Scene
from mundo.access import is_master_role
from mundo.models import Membership
from personajes.models import Character


@dataclass(frozen=True)
class PostHead:
    """What deciding who might be told about a post reads: its id, scene (id and kind),
    campaign, author, the users it mentions and its audience (``post_heads``)."""

    pk: int
    scene_id: int
    kind: str
    campaign_id: int
    author_id: int | None
    mentioned: frozenset[int]
    audience: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CampaignMembers:
    """A campaign's members as ids, built once for all its scenes (``of``): ``everyone`` in
    the memberships' order, ``masters`` among them, ``players`` the others, ``position`` each
    member's place in that order."""

    everyone: tuple[int, ...]
    masters: tuple[int, ...]
    players: frozenset[int]
    position: dict[int, int]

    @classmethod
    def of(cls, members: Sequence[tuple[int, str]]) -> CampaignMembers:
        """From the campaign's (user id, role) pairs, in their order. No query."""
        return cls(
            everyone=tuple(pk for pk, _role in members),
            masters=tuple(pk for pk, role in members if is_master_role(role)),
            players=frozenset(pk for pk, role in members if not is_master_role(role)),
            position={pk: i for i, (pk, _role) in enumerate(members)},
        )


def scene_participant_ids(kind: str, players: set[int], members: CampaignMembers) -> list[int]:
    """The ids of the users a new post in a scene of ``kind`` notifies: those who may post in
    it (story: the masters, then the members among ``players``, the players of its
    characters; off-topic: every member; diary: the master, then its player; notes: the
    masters), in the memberships' order. No query; the cost grows with ``players``, not with
    the members (the tick's diaries: one player each among thousands)."""
    if kind == Scene.Kind.OFFTOPIC:
        return list(members.everyone)
    if kind == Scene.Kind.NOTES:
        return list(members.masters)
    playing = sorted(players & members.players, key=members.position.__getitem__)
    return [*members.masters, *playing]


def followers_by_scene(follows: Iterable[tuple[int, int]]) -> dict[int, list[int]]:
    """Each scene's followers from (user id, scene id) pairs, by user id. No query."""
    out: dict[int, list[int]] = defaultdict(list)
    for user_id, scene_id in sorted(follows):
        out[scene_id].append(user_id)
    return out


def post_heads(post_ids: Iterable[int]) -> list[PostHead]:
    """The posts ``post_ids`` by id, each with its audience: the user ids
    ``scene_participant_ids`` gives for its scene, then the members it mentions who are not
    among them (the users ``notifications.post_recipients`` starts from, before the followers
    of the scene and anyone's settings or rights). No model is built. Four queries (the
    posts with their scenes, the mentions, the campaigns' members, the story scenes'
    participants; none when no post is in a story scene), one when no post is found."""
    rows = list(
        Post.objects.filter(pk__in=list(post_ids))
        .order_by("pk")
        .values_list(
            "pk",
            "scene_id",
            "scene__kind",
            "scene__campaign_id",
            "author_id",
            "scene__diary_character__player_id",
        )
    )
    if not rows:
        return []
    mentioned: dict[int, set[int]] = defaultdict(set)
    for post_id, user_id in Post.mentions.through.objects.filter(
        post_id__in=[row[0] for row in rows]
    ).values_list("post_id", "user_id"):
        mentioned[post_id].add(user_id)
    pairs: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for campaign_id, user_id, role in Membership.objects.filter(
        campaign_id__in={row[3] for row in rows}
    ).values_list("campaign_id", "user_id", "role"):
        pairs[campaign_id].append((user_id, role))
    members = {c: CampaignMembers.of(pairs[c]) for c in {row[3] for row in rows}}
    players: dict[int, set[int]] = defaultdict(set)
    stories = {row[1] for row in rows if row[2] == Scene.Kind.STORY}
    if stories:
        for scene_id, player_id in Scene.participants.through.objects.filter(
            scene_id__in=stories
        ).values_list("scene_id", "character__player_id"):
            players[scene_id].add(player_id)
    heads = []
    for pk, scene_id, kind, campaign_id, author_id, diarist in rows:
        scene_players = {diarist} if kind == Scene.Kind.DIARY else players[scene_id]
        audience = scene_participant_ids(kind, scene_players, members[campaign_id])
        named = sorted(mentioned[pk].intersection(members[campaign_id].position) - set(audience))
        heads.append(
            PostHead(
                pk=pk,
                scene_id=scene_id,
                kind=kind,
                campaign_id=campaign_id,
                author_id=author_id,
                mentioned=frozenset(mentioned[pk]),
                audience=tuple(audience + named),
            )
        )
    return heads


def settings_of(user_ids: set[int]) -> tuple[dict[int, str], set[tuple[int, int]]]:
    """The users' e-mail modes, ``{user id: NotificationPreference.Mode}`` (absent: the
    default), and their muted campaigns, a set of (user id, campaign id). Two queries."""
    modes = dict(
        NotificationPreference.objects.filter(user_id__in=user_ids).values_list("user_id", "mode")
    )
    through = NotificationPreference.muted_campaigns.through
    muted = set(
        through.objects.filter(notificationpreference__user_id__in=user_ids).values_list(
            "notificationpreference__user_id", "campaign_id"
        )
    )
    return modes, muted


def players_of_the_dead(user_ids: set[int], campaign_ids: set[int]) -> set[tuple[int, int]]:
    """The (user, campaign) pairs, among these users and campaigns, of players whose every
    character in the campaign is dead or risen and who do not follow it
    (``NotificationPreference.followed_campaigns``): they get no e-mail about its posts. A
    player with no character yet, and the campaign's masters, are not among them. Two queries.
    Source: issue 15 (a dead character's player gets no mail unless they follow the campaign).
    """
    if not user_ids or not campaign_ids:
        return set()
    masters = Membership.objects.filter(
        campaign_id=OuterRef("campaign_id"),
        user_id=OuterRef("player_id"),
        role=Membership.Role.MASTER,
    )
    living = set(Character.LIVING_STATUSES)
    alive: dict[tuple[int, int], bool] = {}
    for player_id, campaign_id, status in (
        Character.objects.filter(player_id__in=user_ids, campaign_id__in=campaign_ids)
        .exclude(Exists(masters))
        .values_list("player_id", "campaign_id", "status")
    ):
        key = (player_id, campaign_id)
        alive[key] = alive.get(key, False) or status in living
    dead = {key for key, any_alive in alive.items() if not any_alive}
    if not dead:
        return set()
    through = NotificationPreference.followed_campaigns.through
    followed = set(
        through.objects.filter(
            notificationpreference__user_id__in={u for u, _c in dead},
            campaign_id__in={c for _u, c in dead},
        ).values_list("notificationpreference__user_id", "campaign_id")
    )
    return dead - followed
