"""Reads of characters: who sees which sheet, what the sheet shows, and their query budgets.

Cast (tests/conftest.py) and what each sees of player A's character in the PRIVATE campaign:

| viewer    | draft | submitted | approved | private part |
|-----------|-------|-----------|----------|--------------|
| master    | yes   | yes       | yes      | yes          |
| player_a  | yes   | yes       | yes      | yes (owner)  |
| player_b  | no    | no        | yes      | no           |
| outsider  | no    | no        | no       | no           |
| anonymous | no    | no        | no       | no           |

In a PUBLIC campaign outsider and anonymous see the approved sheet too (public part only).
"""

import pytest
from django.contrib.auth.models import AnonymousUser

from nucleo.errors import NotFound
from personajes import access, selectors
from personajes.models import Character
from personajes.traits import campaign_traits
from reglas.characters import DEFAULT_TRAITS
from tests.factories import CampaignFactory, TraitFactory, UserFactory
from tests.personajes.helpers import BRAWLER, make_character

pytestmark = pytest.mark.django_db

VISIBLE = {
    "master": {"draft", "submitted", "approved", "dead"},
    "player_a": {"draft", "submitted", "approved", "dead"},
    "player_b": {"approved", "dead"},
    "outsider": set(),
    "anonymous": set(),
}
PRIVATE = {"master", "player_a"}


def viewer(cast, who):
    return cast[who] if cast[who] is not None else AnonymousUser()


@pytest.mark.parametrize("who", list(VISIBLE))
@pytest.mark.parametrize("status", ["draft", "submitted", "approved", "dead"])
def test_who_sees_a_sheet_in_a_private_campaign(cast, campaign, who, status):
    character = make_character(campaign, cast["player_a"], status=status)
    user = viewer(cast, who)
    if status in VISIBLE[who]:
        found = access.access_character(user, character.pk).character
        assert found == character
        assert access.can_see_private(found, user) is (who in PRIVATE)
    else:
        with pytest.raises(NotFound):
            access.access_character(user, character.pk)


@pytest.mark.parametrize("who", list(VISIBLE))
@pytest.mark.parametrize("status", ["draft", "submitted", "approved"])
def test_a_public_campaign_shows_approved_sheets_to_everyone(cast, campaign, who, status):
    campaign.is_public = True
    campaign.save()
    character = make_character(campaign, cast["player_a"], status=status)
    user = viewer(cast, who)
    expected = status == "approved" or who in PRIVATE
    if expected:
        assert access.access_character(user, character.pk).character == character
    else:
        with pytest.raises(NotFound):
            access.access_character(user, character.pk)


def test_a_superuser_who_is_not_a_member_sees_what_an_outsider_sees(campaign, player_a):
    # Membership decides the role on every page; a superuser's powers live in the admin only.
    root = UserFactory(username="root", is_superuser=True, is_staff=True)
    character = make_character(campaign, player_a, status="draft")
    with pytest.raises(NotFound):
        access.access_character(root, character.pk)
    assert access.can_see_private(character, root) is False


def test_none_counts_as_anonymous(campaign, player_a):
    character = make_character(campaign, player_a, status="approved")
    with pytest.raises(NotFound):
        access.access_character(None, character.pk)
    assert access.can_see_private(character, None) is False


@pytest.mark.parametrize("pk", [999_999, "abc", None])
def test_missing_or_malformed_pk_is_404(master, pk):
    with pytest.raises(NotFound):
        access.access_character(master, pk)


def test_the_fetch_brings_campaign_and_player(campaign, player_a, django_assert_num_queries):
    character = make_character(campaign, player_a, status="approved")
    # 1 query: the character JOIN campaign JOIN player. The owner needs no role lookup.
    with django_assert_num_queries(1):
        found = access.access_character(player_a, character.pk).character
        assert (found.campaign.slug, found.player.username) == ("la-campana", "alicia")


# --- lists -------------------------------------------------------------------------------------


def make_many(campaign, n):
    users = [UserFactory(username=f"jugador{i}") for i in range(n)]
    return [make_character(campaign, u, points={"fuerza": i % 5}) for i, u in enumerate(users)]


@pytest.mark.parametrize("n", [1, 20])
def test_master_list_is_one_query_however_many_characters(campaign, n, django_assert_num_queries):
    make_many(campaign, n)
    # 1 query: characters JOIN player, with the points subquery. Adding one needs a reason.
    with django_assert_num_queries(1):
        rows = [
            (c.name, c.player.username, c.status, c.points, c.hunger_days)
            for c in selectors.characters_for_master(campaign=campaign)
        ]
    assert len(rows) == n


def test_master_list_puts_sheets_awaiting_review_first_and_sums_points(
    campaign, player_a, player_b, master
):
    make_character(campaign, player_a, status="approved", name="Ana", points=BRAWLER)
    make_character(campaign, player_b, status="submitted", name="Zoe", points={"fuerza": 4})
    make_character(campaign, master, status="draft", name="Bea")
    rows = [(c.name, c.points) for c in selectors.characters_for_master(campaign=campaign)]
    assert rows == [("Zoe", 4), ("Bea", 0), ("Ana", 10)]
    # The page's list (points=False): the same order, no points read.
    plain = list(selectors.characters_for_master(campaign=campaign, points=False))
    assert [c.name for c in plain] == ["Zoe", "Bea", "Ana"]
    assert not any(hasattr(c, "points") for c in plain)


def test_master_list_counts_a_character_without_rows_as_zero(campaign, player_a):
    from tests.factories import CharacterFactory

    CharacterFactory(campaign=campaign, player=player_a)
    assert [c.points for c in selectors.characters_for_master(campaign=campaign)] == [0]


def test_a_players_characters_with_their_campaign(
    campaign, player_a, player_b, django_assert_num_queries
):
    mine = make_character(campaign, player_a)
    make_character(campaign, player_b)
    other_campaign = CampaignFactory(name="Otra")
    elsewhere = make_character(other_campaign, player_a)
    with django_assert_num_queries(1):
        rows = [(c, c.campaign.name) for c in selectors.characters_of_player(user=player_a)]
    assert rows == [(mine, "La Campaña"), (elsewhere, "Otra")]
    assert list(selectors.characters_of_player(user=AnonymousUser())) == []


# --- the sheet ---------------------------------------------------------------------------------


def test_sheet_rows_show_every_trait_with_the_chance_of_a_30_percent_action(campaign, player_a):
    character = make_character(campaign, player_a, points=BRAWLER)
    rows = selectors.sheet_rows(character)
    assert [(r.trait.slug, r.value) for r in rows] == [
        (d.slug, BRAWLER.get(d.slug, 0)) for d in DEFAULT_TRAITS
    ]
    for r in rows:
        assert r.dice == 1 + r.value
        assert r.p_success == pytest.approx(1 - 0.7 ** (1 + r.value), rel=1e-12)
    fuerza, medicina = rows[0], rows[8]
    assert (fuerza.value, medicina.value) == (3, 0)
    assert fuerza.p_success == pytest.approx(0.7599)  # 1 − 0.7⁴
    assert fuerza.p_success_percent == pytest.approx(75.99)
    assert medicina.p_success == pytest.approx(0.3)  # one die at 30 %


@pytest.mark.parametrize("n_traits", [1, 20])
def test_sheet_rows_take_two_queries_however_many_traits(
    player_a, n_traits, django_assert_num_queries
):
    campaign = CampaignFactory()
    for i in range(n_traits):
        TraitFactory(campaign=campaign, slug=f"rasgo_{i}", position=i)
    character = make_character(campaign, player_a, points={"rasgo_0": 3})
    # 1 the campaign's traits; 2 the character's values.
    with django_assert_num_queries(2):
        rows = selectors.sheet_rows(character)
    assert len(rows) == n_traits
    assert rows[0].value == 3


def test_renaming_a_trait_keeps_every_sheets_points(campaign, player_a, player_b):
    a = make_character(campaign, player_a, points={"fuerza": 3})
    b = make_character(campaign, player_b, points={"fuerza": 1})
    fuerza = next(t for t in campaign_traits(campaign=campaign) if t.slug == "fuerza")
    fuerza.name, fuerza.slug = "Potencia", "potencia"
    fuerza.save()
    first_a, first_b = selectors.sheet_rows(a)[0], selectors.sheet_rows(b)[0]
    assert (first_a.trait.name, first_a.value) == ("Potencia", 3)
    assert (first_b.trait.name, first_b.value) == ("Potencia", 1)


def test_a_trait_added_later_reads_zero_on_existing_sheets(campaign, player_a):
    character = make_character(campaign, player_a, points=BRAWLER)
    TraitFactory(campaign=campaign, slug="carisma", name="Carisma", position=999)
    rows = selectors.sheet_rows(character)
    assert (rows[-1].trait.slug, rows[-1].value) == ("carisma", 0)
    assert sum(r.value for r in rows) == 10


# --- penalties ---------------------------------------------------------------------------------


def test_penalty_breakdown_of_hunger_thirst_and_dirt(campaign, player_a):
    character = make_character(
        campaign, player_a, status="approved", hunger_days=2, thirst_days=1, dirty=True
    )
    lines = selectors.penalty_breakdown(character)
    assert [(m.source, m.points) for m in lines] == [("hunger", 20), ("thirst", 10)]
    sensitive = selectors.penalty_breakdown(character, dirt_sensitive=True)
    assert [(m.source, m.points) for m in sensitive][-1] == ("dirt", 5)
    assert sum(m.points for m in sensitive) == 35


def test_disease_breakdown_takes_the_season_of_the_campaigns_date(campaign, player_a):
    # 2026-11-01 + 7 days = 8 November: autumn, base 2 (R10, R11).
    character = make_character(
        campaign,
        player_a,
        status="approved",
        unhygienic_days=1,
        dirty=True,
        extra_dirt=True,
        hunger_days=1,
    )
    p, lines = selectors.disease_modifier_breakdown(character)
    assert [(m.source, m.points) for m in lines] == [
        ("season", 2),
        ("unhygienic", 10),
        ("dirt", 5),
        ("extra_dirt", 10),
        ("hunger", 10),
    ]
    assert p == 37
    winter_p, winter_lines = selectors.disease_modifier_breakdown(character, season="invierno")
    assert (winter_p, winter_lines[0].points) == (40, 5)


def test_a_healthy_character_has_only_the_season_base(campaign, player_a):
    character = make_character(campaign, player_a, status=Character.Status.APPROVED)
    assert selectors.penalty_breakdown(character) == ()
    p, lines = selectors.disease_modifier_breakdown(character, season="verano")
    assert (p, [m.source for m in lines]) == (1, ["season"])
