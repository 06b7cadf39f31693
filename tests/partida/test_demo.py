"""``manage.py cargar_demo``: the rulebook's campaign, loaded idempotently."""

import datetime
from collections import Counter
from decimal import Decimal
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from mundo.models import Campaign, Membership, Settlement
from mundo.selectors import settlement_status
from personajes.mapping import allocation
from personajes.models import (
    Character,
    InventoryItem,
    ItemType,
    Roll,
    SheetChange,
    Trait,
    TraitValue,
)


def load_demo() -> str:
    out = StringIO()
    call_command("cargar_demo", stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_demo_loads_the_rulebook_places_on_day_7():
    output = load_demo()
    campaign = Campaign.objects.get(slug="valle-gris")
    # Today is day 7, as the rulebook; the demo world played days 4–6 to get here (issue 5).
    assert campaign.current_day == 7
    assert campaign.current_date == datetime.date.today()
    assert campaign.is_public
    village = Settlement.objects.get(campaign=campaign, slug="villarejo")
    town = Settlement.objects.get(campaign=campaign, slug="robledo")
    assert (settlement_status(village, 7).zombies, settlement_status(village, 7).survivors) == (
        170,
        30,
    )
    town_status = settlement_status(town, 7)
    assert (town_status.zombies, town_status.cells) == (150, 2500)
    assert town_status.p_cell == pytest.approx(0.06)
    # The logins are printed, and work.
    for username, password in [("master", "partida-master"), ("ana", "partida-ana")]:
        assert f"{username} / {password}" in output
        assert Client().login(username=username, password=password)
    assert Membership.objects.get(campaign=campaign, user__username="master").role == "master"


@pytest.mark.django_db
def test_loading_the_demo_twice_duplicates_nothing():
    load_demo()
    models = [
        Campaign,
        Settlement,
        Membership,
        get_user_model(),
        Trait,
        ItemType,
        Character,
        TraitValue,
        InventoryItem,
        SheetChange,
        Roll,
    ]
    counts = [m.objects.count() for m in models]
    assert counts[4:8] == [10, 10, 3, 30]  # traits, items, characters, their trait values
    quantities = sorted(InventoryItem.objects.values_list("quantity", flat=True))
    campaign = Campaign.objects.get(slug="valle-gris")
    campaign.current_day = 9  # days played since are not rewound by a second load
    campaign.save()
    load_demo()
    assert [m.objects.count() for m in models] == counts
    # Items are given once, when the character is made: a second load adds nothing.
    assert sorted(InventoryItem.objects.values_list("quantity", flat=True)) == quantities
    assert Campaign.objects.get(slug="valle-gris").current_day == 9


@pytest.mark.django_db
def test_demo_campaign_page_is_public_and_shows_170_and_30():
    load_demo()
    html = Client().get("/partidas/valle-gris/").content.decode()
    assert '<td class="num zombies">170</td>' in html
    assert '<td class="num survivors">30</td>' in html


@pytest.mark.django_db
def test_demo_characters_ana_and_bruno_approved_carla_waiting():
    output = load_demo()
    campaign = Campaign.objects.get(slug="valle-gris")
    by_player = {c.player.username: c for c in Character.objects.filter(campaign=campaign)}
    assert set(by_player) == {"ana", "bruno", "carla"}
    assert by_player["ana"].status == Character.Status.APPROVED
    assert by_player["bruno"].status == Character.Status.APPROVED
    assert by_player["carla"].status == Character.Status.SUBMITTED
    sheets = {player: allocation(c) for player, c in by_player.items()}
    for player, points in sheets.items():
        assert sum(points.values()) == 10, player  # R5: exactly 10 points
        assert all(0 <= v <= 10 for v in points.values())
    assert sheets["ana"] != sheets["bruno"]  # different builds
    # Each has a few items; weapons carry R19's kinds and calibers.
    for character in by_player.values():
        assert InventoryItem.objects.filter(character=character, quantity__gt=0).exists()
    assert ItemType.objects.get(campaign=campaign, name="Pistola 9 mm").caliber == "9mm"
    assert ItemType.objects.get(campaign=campaign, name="Escopeta").caliber == "12g"
    can = ItemType.objects.get(campaign=campaign, name="Lata de conservas")
    assert (can.kcal_per_unit, can.perishable) == (400, False)
    # The characters and carla's login are printed, and the login works.
    for character in by_player.values():
        assert character.name in output
    assert "carla / partida-carla" in output
    assert Client().login(username="carla", password="partida-carla")


# --- the demo's world and its three days played (issue 5) --------------------------------------


@pytest.mark.django_db
def test_demo_world_has_places_shelters_and_three_days_of_diaries():
    from mundo.models import DayTick, Location
    from personajes.models import DiaryEntry, ShelterStash

    load_demo()
    campaign = Campaign.objects.get(slug="valle-gris")
    places = {p.name: p for p in Location.objects.filter(settlement__campaign=campaign)}
    assert {p.settlement.slug for p in places.values()} == {"villarejo", "robledo"}
    shelters = [p for p in places.values() if p.kind == Location.Kind.SHELTER]
    assert any(p.latrine_distance_m and p.latrine_distance_m >= 20 for p in shelters)
    # One shelter has no toilet paper in its stash (R7).
    paperless = [
        s
        for s in shelters
        if not ShelterStash.objects.filter(shelter=s, item_type__kind="toilet_paper").exists()
    ]
    assert paperless
    shop = next(p for p in places.values() if p.shop_type == "supermercado")
    assert shop.discovered_day is None  # waiting for the master to discover it (R23)
    assert any(p.kind == Location.Kind.DWELLING for p in places.values())
    # Housed characters, and three days played with a diary row per living character and day.
    lucia = Character.objects.get(campaign=campaign, name="Lucía Ferrer")
    assert lucia.shelter is not None and lucia.shelter.kind == Location.Kind.SHELTER
    assert list(DayTick.objects.filter(campaign=campaign).values_list("day", flat=True)) == [
        7,
        6,
        5,
    ]
    assert sorted(DiaryEntry.objects.filter(character=lucia).values_list("day", flat=True)) == [
        4,
        5,
        6,
    ]


@pytest.mark.django_db
def test_loading_the_demo_twice_plays_the_days_once():
    from mundo.models import DayTick, Location
    from personajes.models import DiaryEntry, ShelterStash

    load_demo()
    counts = [
        m.objects.count() for m in (DayTick, DiaryEntry, Location, ShelterStash, InventoryItem)
    ]
    stash = sorted(ShelterStash.objects.values_list("quantity", flat=True))
    load_demo()
    assert [
        m.objects.count() for m in (DayTick, DiaryEntry, Location, ShelterStash, InventoryItem)
    ] == counts
    assert sorted(ShelterStash.objects.values_list("quantity", flat=True)) == stash
    assert Campaign.objects.get(slug="valle-gris").current_day == 7


@pytest.mark.django_db
def test_demo_history_page_shows_a_days_tables():
    from personajes.models import DiaryEntry

    load_demo()
    client = Client()
    anonymous = client.get("/partidas/valle-gris/dias/6/")
    assert anonymous.status_code == 200
    assert anonymous.context["entries"] == []  # diaries are their players' and the master's
    client.login(username="master", password="partida-master")
    html = client.get("/partidas/valle-gris/dias/6/").content.decode()
    assert "Lucía Ferrer" in html
    assert "Tomás Vidal" in html
    assert "2000 / 2000" in html
    # Each status in Spanish, not its stored slug ("alive"): which statuses the day left depends
    # on the demo campaign's dice (its entropy is new on every load), e.g. both may be sick.
    statuses = set(
        DiaryEntry.objects.filter(character__campaign__slug="valle-gris", day=6).values_list(
            "status", flat=True
        )
    )
    assert statuses
    with translation.override("es"):
        assert str(DiaryEntry.STATUS_LABELS["alive"]) == "vivo"
        for status in statuses:
            label = str(DiaryEntry.STATUS_LABELS[status])
            assert f"<td>{label}" in html and (label == status or f"<td>{status}<" not in html)


@pytest.mark.django_db
def test_demo_scenes_have_the_play_loop(mailoutbox):
    # Scenes (issue 4): a public story scene with the two approved characters, posts with an
    # action roll (the door, 30 %), an event roll (26 %), a free dice roll, an action roll
    # waiting for its threshold, a pending roll request, a whisper and a note; the off-topic.
    from escenas.models import Post, RollRequest, Scene

    output = load_demo()
    campaign = Campaign.objects.get(slug="valle-gris")
    story = Scene.objects.get(campaign=campaign, kind="story")
    assert sorted(c.name for c in story.participants.all()) == ["Lucía Ferrer", "Tomás Vidal"]
    kinds = sorted(  # the players' rolls; the fights' summary posts are tested below
        pr.roll.kind
        for p in story.posts.exclude(idempotency_key__startswith="combate:")
        for pr in p.post_rolls.select_related("roll")
    )
    # … and Tomás's post with two rolls (issue 15): an action roll and a dice expression.
    assert kinds == ["action", "action", "action", "event", "expression", "expression"]
    two = story.posts.get(idempotency_key="demo-escena-07")
    assert [pr.roll.kind for pr in two.post_rolls.order_by("position")] == ["action", "expression"]
    # Doña Remedios, the master's NPC, speaks with her portrait.
    remedios = story.posts.get(idempotency_key="demo-escena-08")
    assert remedios.voice == "npc" and remedios.npc.portrait_thumb_2x
    assert story.posts.filter(is_whisper=True).count() == 1
    assert story.posts.exclude(note_to_master="").count() == 1
    # Pending: Tomás's (sigilo) and Lucía's (fuerza, for ana's «Mi mesa»: partida.demo_inbox).
    assert RollRequest.objects.filter(scene=story, fulfilled_roll__isnull=True).count() == 2
    assert Scene.objects.filter(campaign=campaign, kind="offtopic").count() == 1
    assert Post.objects.filter(scene__kind="offtopic", campaign=campaign).count() == 2
    assert "La gasolinera de la N-420" in output
    assert mailoutbox == []  # the demo's history is not e-mailed
    from nucleo.models import OutboxMessage

    assert not OutboxMessage.objects.exists()  # nor left in the outbox
    # Anonymous visitors read the public scene, without the whisper or the note.
    html = Client().get(story.get_absolute_url()).content.decode()
    assert "Lucía mete la palanca" in html
    assert "He oído algo en el almacén" not in html
    assert "me guardo dos cartuchos" not in html


@pytest.mark.django_db
def test_loading_the_demo_twice_duplicates_no_post_or_roll():
    from escenas.models import (
        Combat,
        Combatant,
        Declaration,
        NonPlayerCharacter,
        Post,
        RollRequest,
        Scene,
    )
    from personajes.models import Roll

    def counts():
        return tuple(
            m.objects.count()
            for m in (
                Post,
                Roll,
                RollRequest,
                Scene,
                Combat,
                Combatant,
                Declaration,
                NonPlayerCharacter,
            )
        )

    load_demo()
    before = counts()
    load_demo()
    assert counts() == before


@pytest.mark.django_db
def test_demo_story_has_a_finished_fight_and_one_in_progress():
    from escenas.models import Combat, CombatTurn, Declaration, Scene

    load_demo()
    story = Scene.objects.get(campaign__slug="valle-gris", kind="story")
    finished, running = Combat.objects.filter(scene=story).order_by("pk")
    assert finished.state == "finished" and running.state == "open" and running.turn == 1
    assert running.turn_hours == 48 and finished.turn_hours is None
    turn = CombatTurn.objects.get(combat=finished)
    assert turn.post.post_rolls.count() == len(turn.roll_ids) >= 1  # every die of the turn
    tomas = running.combatants.get(character__name="Tomás Vidal")
    assert tomas.attackers.filter(grabbing=True).count() == 1
    (declared,) = Declaration.objects.filter(combat=running)
    assert declared.combatant.character.name == "Lucía Ferrer" and declared.action == "attack"
    html = Client().get(story.get_absolute_url()).content.decode()
    assert "En el taller" in html and "La primera visita" in html


@pytest.mark.django_db
def test_the_demo_shows_the_arrival_and_the_masters_pending_sheet():
    from escenas.models import Scene
    from mundo.models import Arrival
    from personajes.sheets import sheet_review

    load_demo()
    campaign = Campaign.objects.get(slug="valle-gris")
    assert Arrival.objects.get(campaign=campaign).shelter.name == "Polideportivo municipal"
    story = Scene.objects.get(campaign=campaign, title__startswith="La gasolinera")
    assert story.open_to_new_characters
    # Elena's sheet waits in the master's pending list, with the count (5: Tomás, thirsty
    # tomorrow, tests/partida/test_demo_foresight.py; Lucía's roll waiting for its threshold;
    # the two roll requests not answered yet).
    master = Client()
    assert master.login(username="master", password="partida-master")
    page = master.get(campaign.get_absolute_url()).content.decode()
    assert "5 pendientes" in page
    assert "Hoja de Elena Soto (carla) esperando tu revisión" in page
    # Lucía was approved with the arrival kit (the catalogue's first food by name: 16 bars of
    # 250 kcal; 3 bottles of 1.5 L; one roll) on top of her own 3 cans and 2 bottles; days 4–6
    # ate the food, drank 6 of the 7.5 L and used 3 × 0.2 of a roll she had only from the kit.
    lucia = Character.objects.get(campaign=campaign, name="Lucía Ferrer")
    carried = dict(
        InventoryItem.objects.filter(character=lucia).values_list("item_type__name", "quantity")
    )
    assert carried["Rollo de papel higiénico"] == Decimal("0.400")
    assert carried["Botella de agua"] == Decimal("1.001")
    # A movement history: the kits, and Tomás's visit to San Roque's stash.
    from personajes.models import Movement

    tomas = Character.objects.get(campaign=campaign, name="Tomás Vidal")
    reasons = Movement.objects.filter(campaign=campaign).values_list("reason", flat=True)
    # Two kits of three lines; the 12 starting items the master gave and the paper the master
    # stocked the Polideportivo with; Tomás at the stash; the master's water from the
    # Polideportivo to San Roque, and San Roque's fouled water taken away (demo_places).
    assert Counter(reasons) == {
        "arrival": 6,
        "master_give": 13,
        "stash_leave": 1,
        "stash_take": 1,
        "master_move": 1,
        "master_take": 1,
    }
    bruno = Client()
    assert bruno.login(username="bruno", password="partida-bruno")
    sheet = bruno.get(tomas.get_absolute_url()).content.decode()
    # bruno reads in English (the demo's reader preferences, partida.demo_readers).
    assert "History of movements" in sheet and "left in the stash" in sheet
    # Approving Elena now puts her in the story scene (open to new characters).
    elena = Character.objects.get(campaign=campaign, name="Elena Soto")
    sheet_review(
        character=elena, master=get_user_model().objects.get(username="master"), approve=True
    )
    assert story.participants.filter(pk=elena.pk).exists()


@pytest.mark.django_db
def test_the_demo_makes_no_superuser_and_its_master_uses_the_scoped_admin():
    # Issue 12: an older demo made `master` a superuser (password in the README); a reload
    # takes the flags away.
    get_user_model().objects.create_user("master", password="x", is_staff=True, is_superuser=True)
    load_demo()
    assert not get_user_model().objects.filter(is_superuser=True).exists()
    assert not get_user_model().objects.filter(is_staff=True).exists()
    client = Client()
    assert client.login(username="master", password="partida-master")
    assert client.get("/admin/").status_code == 200  # as the campaign's master
    assert 'href="/admin/"' in client.get("/partidas/valle-gris/").content.decode()
    assert client.get("/admin/auth/user/").status_code in (302, 403, 404)


@pytest.mark.django_db
def test_the_demo_shows_a_move_with_a_route_check_and_stock_moved_between_places():
    from mundo.models import WorldRoll
    from personajes.models import CharacterMove, Movement, ShelterStash

    load_demo()
    load_demo()  # twice: one move, one transfer
    campaign = Campaign.objects.get(slug="valle-gris")
    move = CharacterMove.objects.get(campaign=campaign)
    roll = move.route_check
    # R18 across Robledo (10 000 m², 2 500 cells): 40 m at 5 m sweeps 10 × 50 m = 125 cells.
    assert roll.kind == WorldRoll.Kind.ROUTE and roll.result["cells_swept"] == 125
    assert move.zombies_met == roll.result["zombies_met"]
    assert (move.character.name, move.to_location.name, move.to_shelter.name) == (
        "Tomás Vidal",
        "Casa del médico",
        "Iglesia de San Roque",
    )
    moved = Movement.objects.get(campaign=campaign, reason="master_move")
    assert (moved.from_place.name, moved.to_place.name, moved.quantity) == (
        "Polideportivo municipal",
        "Iglesia de San Roque",
        4,
    )
    assert ShelterStash.objects.filter(shelter=moved.to_place, item_type=moved.item_type).exists()
    master = Client()
    assert master.login(username="master", password="partida-master")
    page = master.get(f"/partidas/{campaign.slug}/mundo/").content.decode()
    assert "Tomás Vidal" in page and "Iglesia de San Roque" in page


@pytest.mark.django_db
def test_the_demo_prints_the_url_and_the_logins_last():
    out = StringIO()
    call_command("cargar_demo", "--url", "http://127.0.0.1:8001/", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[-5:] == [
        "Usuarios (usuario / contraseña):",
        "  master / partida-master  (máster)",
        "  ana / partida-ana  (jugador)",
        "  bruno / partida-bruno  (jugador)",
        "  carla / partida-carla  (jugador)",
    ]
    assert lines[-7] == "La demo se sirve en http://127.0.0.1:8001/  (Ctrl-C la detiene)"
    assert "Subject:" not in out.getvalue()  # no e-mail on the console
    assert len(lines) < 40


@pytest.mark.django_db
def test_the_demo_draws_portraits_once_and_serves_them_with_access_checks():
    load_demo()
    lucia = Character.objects.get(name="Lucía Ferrer")
    names = (lucia.portrait.name, lucia.portrait_thumb.name)
    assert all(names)
    assert not Character.objects.get(name="Elena Soto").portrait  # submitted, not drawn
    load_demo()
    lucia.refresh_from_db()
    assert (lucia.portrait.name, lucia.portrait_thumb.name) == names  # not drawn again
    client = Client()
    response = client.get(f"/personajes/{lucia.pk}/retrato/")
    assert response.status_code == 200  # a public campaign: anyone may see it
    assert response["Content-Type"] == "image/webp"
    assert (
        b"".join(response.streaming_content if response.streaming else [response.content])[:4]
        == b"RIFF"
    )


@pytest.mark.django_db
def test_the_demo_inbox_shows_ana_unread_posts_and_a_roll_request_and_the_master_pending():
    from escenas.inbox import inbox_for

    output = load_demo()
    load_demo()  # twice: still one request to Lucía
    users = {u.username: u for u in get_user_model().objects.filter(username__in=["ana", "master"])}
    hers = inbox_for(users["ana"])
    assert hers.unread > 0
    assert [i.kind for i in hers.roll_requests] == ["roll_request"]
    assert "Lucía Ferrer una tirada de Fuerza" in hers.roll_requests[0].label
    kinds = {i.kind for i in inbox_for(users["master"]).pending}
    assert {"sheet", "threshold", "request"} <= kinds
    assert "Mi mesa (/mesa/): ana tiene" in output
