"""Who gets what on every character page: a table of status codes, one cell per (page, person).

The cast (tests/conftest.py): ``master`` runs the private ``campaign``; ``player_a`` owns the
characters below; ``player_b`` plays in the campaign too; ``outsider`` is signed in but belongs
to no campaign; ``anonymous`` is not signed in.

The rules the table encodes (personajes/views.py):
- login-required pages send ``anonymous`` to the login page (302); the sheet itself is not
  login-required (a public campaign's approved sheets are public), so anonymous gets 404 there.
- whoever may not read the private campaign gets 404 (its existence is not revealed);
- a draft or submitted sheet is between its player and the master: others 404;
- master pages (review, master edit, the campaign's list) are 404 for everyone but the master;
- the builder edits only the owner's draft: 403 for anyone who can see the sheet otherwise;
- a roll is for the owner or the master: other members who can see the sheet get 403.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.urls import reverse

from personajes.models import Character
from tests.factories import CampaignFactory, CharacterFactory, MembershipFactory
from tests.personajes.page_helpers import SHEET, client_for, master_edit_data

CAST = ("master", "player_a", "player_b", "outsider", "anonymous")


@dataclass(frozen=True)
class Page:
    """One row of the matrix: how to request the page and the status each person gets."""

    method: str
    url: str  # a format string: {slug}, {draft}, {submitted}, {approved}, {public}, {public_slug}
    expected: dict[str, int]
    data: dict[str, Any] = field(default_factory=dict)
    htmx: bool = False


NEW_SHEET = {"name": "Nueva", "action": "draft", "trait_fuerza": "1"}


PAGES: dict[str, Page] = {
    "builder create GET": Page(
        "get",
        "/partidas/{slug}/personajes/nuevo/",
        {"master": 200, "player_a": 200, "player_b": 200, "outsider": 404, "anonymous": 302},
    ),
    "builder create POST": Page(
        "post",
        "/partidas/{slug}/personajes/nuevo/",
        {"master": 302, "player_a": 302, "player_b": 302, "outsider": 404, "anonymous": 302},
        data=NEW_SHEET,
    ),
    "builder create GET, public campaign": Page(
        "get",
        "/partidas/{public_slug}/personajes/nuevo/",
        # The outsider may read a public campaign but is not a member: 403.
        {"master": 200, "player_a": 200, "player_b": 403, "outsider": 403, "anonymous": 302},
    ),
    "points fragment (htmx POST)": Page(
        "post",
        "/partidas/{slug}/personajes/nuevo/",
        {"master": 200, "player_a": 200, "player_b": 200, "outsider": 404, "anonymous": 302},
        data={"trait_fuerza": "3"},
        htmx=True,
    ),
    "builder edit draft GET": Page(
        "get",
        "/personajes/{draft}/ficha/",
        {"master": 403, "player_a": 200, "player_b": 404, "outsider": 404, "anonymous": 302},
    ),
    "builder edit draft POST": Page(
        "post",
        "/personajes/{draft}/ficha/",
        {"master": 403, "player_a": 302, "player_b": 404, "outsider": 404, "anonymous": 302},
        data=NEW_SHEET,
    ),
    "builder edit draft points (htmx POST)": Page(
        "post",
        "/personajes/{draft}/ficha/",
        {"master": 403, "player_a": 200, "player_b": 404, "outsider": 404, "anonymous": 302},
        data={"trait_fuerza": "3"},
        htmx=True,
    ),
    "builder edit submitted GET": Page(
        "get",
        "/personajes/{submitted}/ficha/",
        {"master": 403, "player_a": 403, "player_b": 404, "outsider": 404, "anonymous": 302},
    ),
    "builder edit approved POST": Page(
        "post",
        "/personajes/{approved}/ficha/",
        {"master": 403, "player_a": 403, "player_b": 403, "outsider": 404, "anonymous": 302},
        data=NEW_SHEET,
    ),
    # The matrix's characters have no portrait: 404 to everyone (a portrait shown only to who
    # may see the character is tests/security/test_portraits.py).
    "portrait, none uploaded": Page(
        "get",
        "/personajes/{approved}/retrato/",
        {"master": 404, "player_a": 404, "player_b": 404, "outsider": 404, "anonymous": 404},
    ),
    "portrait thumbnail of a draft, none uploaded": Page(
        "get",
        "/personajes/{draft}/retrato/mini/",
        {"master": 404, "player_a": 404, "player_b": 404, "outsider": 404, "anonymous": 404},
    ),
    "2x portrait thumbnail of a draft, none uploaded": Page(
        "get",
        "/personajes/{draft}/retrato/mini/2x/",
        {"master": 404, "player_a": 404, "player_b": 404, "outsider": 404, "anonymous": 404},
    ),
    "sheet of a draft": Page(
        "get",
        "/personajes/{draft}/",
        {"master": 200, "player_a": 200, "player_b": 404, "outsider": 404, "anonymous": 404},
    ),
    "sheet of a submitted character": Page(
        "get",
        "/personajes/{submitted}/",
        {"master": 200, "player_a": 200, "player_b": 404, "outsider": 404, "anonymous": 404},
    ),
    "sheet of an approved character": Page(
        "get",
        "/personajes/{approved}/",
        {"master": 200, "player_a": 200, "player_b": 200, "outsider": 404, "anonymous": 404},
    ),
    "sheet of an approved character, public campaign": Page(
        "get",
        "/personajes/{public}/",
        {"master": 200, "player_a": 200, "player_b": 200, "outsider": 200, "anonymous": 200},
    ),
    "master edit GET": Page(
        "get",
        "/personajes/{approved}/editar/",
        {"master": 200, "player_a": 404, "player_b": 404, "outsider": 404, "anonymous": 302},
    ),
    "master edit POST": Page(
        "post",
        "/personajes/{approved}/editar/",
        {"master": 302, "player_a": 404, "player_b": 404, "outsider": 404, "anonymous": 302},
        data=master_edit_data(trait_fuerza=3, reason="Entrenamiento"),
    ),
    "review POST": Page(
        "post",
        "/personajes/{submitted}/revision/",
        {"master": 302, "player_a": 404, "player_b": 404, "outsider": 404, "anonymous": 302},
        data={"decision": "approve"},
    ),
    # A GET (the "Review" link of the pending list, «Mi mesa», the sheet e-mail) takes the
    # master to the sheet's review form; everyone else is refused as for the POST.
    "review GET (link to the form)": Page(
        "get",
        "/personajes/{submitted}/revision/",
        {"master": 302, "player_a": 404, "player_b": 404, "outsider": 404, "anonymous": 302},
    ),
    "roll GET": Page(
        "get",
        "/personajes/{approved}/tirada/",
        {"master": 200, "player_a": 200, "player_b": 403, "outsider": 404, "anonymous": 302},
    ),
    "roll POST": Page(
        "post",
        "/personajes/{approved}/tirada/",
        {"master": 302, "player_a": 302, "player_b": 403, "outsider": 404, "anonymous": 302},
        data={"trait": "fuerza", "threshold": "30"},
    ),
    "supplies POST": Page(
        "post",
        "/personajes/{approved}/suministros/",
        # Other members read the approved sheet but move nothing of it: 403.
        {"master": 302, "player_a": 302, "player_b": 403, "outsider": 404, "anonymous": 302},
        data={"action": "take", "item_type": "", "quantity": "1"},
    ),
    "roll chance (htmx POST)": Page(
        "post",
        "/personajes/{approved}/tirada/",
        {"master": 200, "player_a": 200, "player_b": 403, "outsider": 404, "anonymous": 302},
        data={"trait": "fuerza", "threshold": "30"},
        htmx=True,
    ),
    "my characters": Page(
        "get",
        "/mis-personajes/",
        {"master": 200, "player_a": 200, "player_b": 200, "outsider": 200, "anonymous": 302},
    ),
    "master's list": Page(
        "get",
        "/partidas/{slug}/personajes/",
        {"master": 200, "player_a": 404, "player_b": 404, "outsider": 404, "anonymous": 302},
    ),
}


@pytest.fixture
def world(cast, campaign, master, player_a, player_b):
    """Player A's draft, submitted and approved characters, and an approved one in a public
    campaign where the master and both players are members (the outsider is not)."""
    # Room for the new characters the POST cells create.
    campaign.living_characters_per_player = 10
    campaign.save()
    draft = CharacterFactory(campaign=campaign, player=player_a, name="Borrador", allocation={})
    submitted = CharacterFactory(
        campaign=campaign,
        player=player_a,
        name="Enviada",
        status=Character.Status.SUBMITTED,
        allocation=SHEET,
    )
    approved = CharacterFactory(
        campaign=campaign,
        player=player_a,
        name="Aprobada",
        status=Character.Status.APPROVED,
        allocation=SHEET,
    )
    public_campaign = CampaignFactory(slug="abierta", is_public=True)
    MembershipFactory(campaign=public_campaign, user=master, role="master")
    MembershipFactory(campaign=public_campaign, user=player_a)
    public = CharacterFactory(
        campaign=public_campaign,
        player=player_a,
        name="Pública",
        status=Character.Status.APPROVED,
        allocation=SHEET,
    )
    return {
        "slug": campaign.slug,
        "public_slug": public_campaign.slug,
        "draft": draft.pk,
        "submitted": submitted.pk,
        "approved": approved.pk,
        "public": public.pk,
    }


@pytest.mark.parametrize("who", CAST)
@pytest.mark.parametrize("page", list(PAGES))
def test_permission_matrix(cast, world, page, who):
    spec = PAGES[page]
    client = client_for(cast[who])
    url = spec.url.format(**world)
    headers = {"HX-Request": "true"} if spec.htmx else {}
    response = getattr(client, spec.method)(url, spec.data or None, headers=headers)
    expected = spec.expected[who]
    assert response.status_code == expected, f"{page} as {who}: {response.status_code}"
    if expected == 302 and who == "anonymous":
        assert response["Location"].startswith(reverse("login"))


def test_matrix_covers_every_character_url():
    # A page added to personajes/urls.py must get a row in PAGES.
    from personajes.urls import urlpatterns

    def shape(route: str) -> str:
        return re.sub(r"<[^>]+>|\{[^}]+\}", "*", route).strip("/")

    covered = {shape(p.url) for p in PAGES.values()}
    assert {shape(str(u.pattern)) for u in urlpatterns} <= covered
