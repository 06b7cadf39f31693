"""``@mentions`` of campaign members in posts: who may be named, and the text of a post rendered
with them (``escenas.rendering.render_post``).

A member is named by their username or by the name of one of their characters in the campaign
(drafts included: a character is known by name before its sheet is approved); a name shared by
two members names neither (which one would be told?). The mention links to the character's
page, or to the search of the member's posts. Being named is not being allowed to read: the
e-mail goes only to a named member who may see the post (``escenas.notifications``), so a
whisper naming someone outside it tells nobody new.
"""

from __future__ import annotations

from django.urls import reverse

from escenas.rendering import MentionTarget, render_post
from mundo.models import Campaign, Membership
from personajes.models import Character


def mention_targets(campaign: Campaign) -> list[MentionTarget]:
    """The names ``@`` may mention in the campaign's posts: each member's username and each of
    their characters' names (ambiguous names left out). Two queries."""
    members = dict(
        Membership.objects.filter(campaign=campaign).values_list("user_id", "user__username")
    )
    found: dict[str, list[MentionTarget]] = {}
    search = reverse("escenas:search", kwargs={"slug": campaign.slug})
    for user_id, username in members.items():
        target = MentionTarget(username, user_id, f"{search}?author={username}")
        found.setdefault(username.lower(), []).append(target)
    characters = Character.objects.filter(
        campaign=campaign, player_id__in=list(members)
    ).values_list("pk", "name", "player_id")
    for pk, name, player_id in characters:
        href = reverse("personajes:character", kwargs={"pk": pk})
        found.setdefault(name.strip().lower(), []).append(
            MentionTarget(name.strip(), player_id, href)
        )
    return [
        targets[0]
        for targets in found.values()
        if targets[0].name and len({t.user_id for t in targets}) == 1
    ]


def render_with_mentions(text: str, *, campaign: Campaign) -> tuple[str, frozenset[int]]:
    """A post's Markdown as stored HTML with its mentions linked, and the ids of the members it
    names. Two queries (``mention_targets``) when the text has an ``@``, none otherwise."""
    if "@" not in text:
        return render_post(text)
    return render_post(text, mentions=mention_targets(campaign))
