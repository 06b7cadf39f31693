"""The rolls made inside a post: what each asks for (``RollSpec``), the master's requests a post
answers, and the ledger rolls made for them (``post_create`` in ``escenas.services`` calls
``post_rolls_create`` under the campaign lock).

A post makes several rolls (an action roll and a free expression, say): the requests it answers
first, then its own rolls in the order given, each stored as one ``PostRoll`` with its
``position``, so each is shown, hidden and answered by the master (threshold, probability) on its
own. Errors about one of them are keyed by where it was asked: ``roll.<name>`` for the single
``roll`` of a request, ``rolls.<i>.<name>`` for the i-th of a list (counted from 0).

Cost: each roll is made by the characters service one after another (its own savepoint, the
character's lock, the trait and its value, the ledger's sequence count, the insert), so a post
pays a fixed number of statements per roll (``tests/escenas/test_queries.py`` pins it); the
links are one bulk insert whatever their number.
Source: RULES.md R2–R4, R9; DESIGN.md ("Randomness and the roll ledger").
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from escenas import selectors
from escenas.models import Post, PostRoll, RollRequest
from mundo.periods import player_share
from nucleo.errors import ServiceError
from nucleo.ledger import PlayerShare
from personajes import rolls as personajes_rolls
from personajes.models import Character, Roll

ROLLS_PER_POST_MAX = 5
"""Most rolls a post asks for itself (the requests it answers come on top)."""


@dataclass(frozen=True, slots=True)
class RollSpec:
    """What roll a post asks for — never its dice or outcome, which the server makes.

    ``kind``: ``action`` (``character`` + ``trait`` slug, optional base ``threshold`` in %),
    ``event`` (optional ``probability`` in %) or ``expression`` (``expression`` text).
    ``hidden``: master-only roll (only the master may ask for it). The names are the roll
    vocabulary of ``personajes.rolls``; the post's errors about its roll are keyed
    ``roll.<name>`` or ``rolls.<i>.<name>`` (the API's nesting; a form flattens it to its
    slot's inputs, ``roll_<name>``).
    """

    kind: str
    character: Character | None = None
    trait: str = ""
    threshold: int | None = None
    probability: int | None = None
    expression: str = ""
    reason: str = ""
    hidden: bool = False


def rolls_asked(roll: RollSpec | None, rolls: Sequence[RollSpec]) -> list[tuple[str, RollSpec]]:
    """The rolls a post asks for with the key prefix of each one's errors: ``roll`` for the
    single ``roll``, ``rolls.<i>`` for a list. Raises ServiceError when both are given or the
    list is longer than ``ROLLS_PER_POST_MAX``."""
    if roll is not None and rolls:
        raise ServiceError({"rolls": _("Send roll or rolls, not both.")})
    if len(rolls) > ROLLS_PER_POST_MAX:
        raise ServiceError(
            {
                "rolls": _("At most %(n)d rolls in one post.") % {"n": ROLLS_PER_POST_MAX},
            }
        )
    if roll is not None:
        return [("roll", roll)]
    return [(f"rolls.{i}", spec) for i, spec in enumerate(rolls)]


def _make_roll(
    access: selectors.SceneAccess,
    *,
    spec: RollSpec,
    prefix: str,
    author: Any,
    post_character: Character | None,
    share: PlayerShare,
) -> Roll:
    """Make one roll of a post (the campaign row is already locked); a refusal's field keys
    are under ``prefix`` (``roll.trait``, ``rolls.1.trait``), as the post's request names them."""
    try:
        return _roll_of_spec(
            access, spec=spec, author=author, post_character=post_character, share=share
        )
    except ServiceError as exc:
        raise exc.nested(prefix) from None


def _roll_of_spec(
    access: selectors.SceneAccess,
    *,
    spec: RollSpec,
    author: Any,
    post_character: Character | None,
    share: PlayerShare,
) -> Roll:
    campaign = access.scene.campaign
    if spec.hidden and not access.is_master:
        raise ServiceError(_("Only the master can make hidden rolls."))
    allowed = {c.pk: c for c in access.characters}
    if spec.kind == Roll.Kind.ACTION:
        character = spec.character or post_character
        if character is None or character.pk not in allowed:
            raise ServiceError({"character": _("Choose a character of this scene to roll.")})
        if not spec.trait:
            raise ServiceError({"trait": _("Choose the trait to roll.")})
        return personajes_rolls.roll_action_for_character(
            character=allowed[character.pk],
            trait=spec.trait,
            threshold=spec.threshold,
            made_by=author,
            reason=spec.reason,
            share=share,
        )
    character = spec.character or post_character
    if character is not None and (
        character.pk not in allowed
        or (not access.is_master and allowed[character.pk].player_id != author.pk)
    ):
        # Named, not silently dropped: a player rolls for their own characters only.
        raise ServiceError(
            {"character": _("You can only roll for your own characters in this scene.")}
        )
    if spec.kind == Roll.Kind.EVENT:
        return personajes_rolls.event_roll_create(
            campaign=campaign,
            made_by=author,
            probability=spec.probability,
            character=character,
            reason=spec.reason,
            share=share,
        )
    if spec.kind == Roll.Kind.EXPRESSION:
        return personajes_rolls.expression_roll_create(
            campaign=campaign,
            made_by=author,
            expression=spec.expression,
            character=character,
            reason=spec.reason,
            share=share,
        )
    raise ServiceError({"kind": _("Unknown kind of roll.")})


def post_rolls_create(
    access: selectors.SceneAccess,
    post: Post,
    *,
    asked: Sequence[tuple[str, RollSpec]],
    requests: Sequence[RollRequest],
    character: Character | None,
) -> list[PostRoll]:
    """Make and link the rolls of ``post`` (just created, under the campaign lock the caller
    holds): the requests it answers, then ``asked`` (``rolls_asked``'s pairs), each with the
    player's share of the post's text; ``character`` the post's own (the default roller).
    Returns the links, saved in one bulk insert with their positions. Raises ServiceError
    (keyed by each roll's prefix) on the first refusal; the caller's transaction drops the
    rolls made before it."""
    if not asked and not requests:
        return []
    author, now = post.author, post.created_at
    # Under the campaign's shared lock other posts run beside this one: every character it
    # rolls for is locked up front, in key order (``personajes.rolls.characters_lock``).
    rollers = [spec.character or character for _prefix, spec in asked]
    own = [c.pk for c in rollers if c is not None]
    personajes_rolls.characters_lock([r.character_id for r in requests] + own)
    share = player_share(campaign_id=post.campaign_id, user=author, text=post.body)
    links = _answer_requests(requests, post=post, author=author, now=now, share=share)
    for prefix, spec in asked:
        made = _make_roll(
            access, spec=spec, prefix=prefix, author=author, post_character=character, share=share
        )
        links.append(PostRoll(post=post, roll=made, hidden=spec.hidden))
    for i, link in enumerate(links):
        link.position = i
    return PostRoll.objects.bulk_create(links)


def _answer_requests(
    requests: Sequence[RollRequest],
    *,
    post: Post,
    author: Any,
    now: datetime.datetime,
    share: PlayerShare,
) -> list[PostRoll]:
    """Make the roll each request asks for (its trait, threshold and reason) and mark it
    answered by a compare-and-swap update, so a request is answered once; the post's links to
    those rolls (not saved). Raises ServiceError when one was answered meanwhile."""
    links = []
    for request in requests:
        made = personajes_rolls.roll_action_for_character(
            character=request.character,
            trait=request.trait.slug,
            threshold=request.base_threshold,
            made_by=author,
            reason=request.reason,
            share=share,
        )
        done = RollRequest.objects.filter(
            pk=request.pk, fulfilled_roll__isnull=True, cancelled_at__isnull=True
        ).update(fulfilled_roll=made, fulfilled_at=now)
        if done != 1:
            raise ServiceError(_("That roll request has already been answered."))
        links.append(PostRoll(post=post, roll=made, hidden=request.hidden, request=request))
    return links


def pending_requests_for(
    access: selectors.SceneAccess, *, author: Any, ids: Sequence[int]
) -> list[RollRequest]:
    """The pending roll requests ``ids`` of this scene that ``author`` may answer now (their
    character's player, or the master), with trait and character. Raises ServiceError when one
    is not theirs, not of this scene, or no longer pending."""
    if not ids:
        return []
    wanted = {int(i) for i in ids}
    requests = list(
        RollRequest.objects.filter(
            pk__in=wanted,
            scene=access.scene,
            fulfilled_roll__isnull=True,
            cancelled_at__isnull=True,
        ).select_related("trait", "character")
    )
    allowed = {c.pk for c in access.characters}
    if len(requests) != len(wanted) or any(
        r.character_id not in allowed
        or (not access.is_master and r.character.player_id != author.pk)
        for r in requests
    ):
        raise ServiceError(_("That roll request is not yours to answer, or was already answered."))
    return requests
