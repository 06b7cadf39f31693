# ruff: noqa: F811 — the scene fixtures are imported from tests/escenas/conftest.py
"""Verifiable dice end to end (issue 16): periods, the player's share, archives, pages.

Cast (tests/conftest.py, tests/escenas/conftest.py): ``master`` runs ``campaign`` (day 7, a
30-day dice period from day 7); ``player_a`` plays ``char_a`` in the ``story`` scene;
``player_b`` is a member with no part in it; ``outsider`` is no member.
"""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from escenas import services
from escenas.models import PostRoll
from mundo import periods
from mundo import services as world
from mundo.models import Campaign, EntropyPeriod, Membership, WorldRoll
from nucleo.errors import ServiceError
from nucleo.ledger import PlayerShare
from partida.dice import period_archive, period_verify, secret_roll_reveal
from partida.tick import advance_day
from personajes.models import Roll
from reglas.core import make_rng
from reglas.dice import roll_action
from reglas.verify import commitment_of, sha256_text, verify_archive
from tests.escenas.conftest import access_for, char_a, char_b, client_for, story  # noqa: F401
from tests.escenas.factories import new_key
from tests.factories import SettlementFactory

pytestmark = pytest.mark.django_db


def _post_roll(scene, user, spec, body="Fuerzo la persiana del taller."):
    post, _ = services.post_create(
        access=access_for(scene, user), author=user, idempotency_key=new_key(), body=body, roll=spec
    )
    return post, post.post_rolls.get().roll


def test_a_new_campaign_publishes_its_first_commitment(campaign):
    period = EntropyPeriod.objects.get(campaign=campaign)
    assert (period.number, period.first_day, period.is_open) == (1, 7, True)
    assert period.commitment == commitment_of(campaign.entropy)
    assert period.entropy == ""  # the open secret lives only on the campaign row
    assert period.opened_at <= timezone.now()


def test_a_post_roll_mixes_in_the_players_share(story, player_a, char_a):
    membership = Membership.objects.get(campaign=story.campaign, user=player_a)
    spec = services.RollSpec(kind="action", character=char_a, trait="fuerza", threshold=30)
    post, roll = _post_roll(story, player_a, spec)
    share = PlayerShare.of(text=post.body, seed=membership.dice_seed)
    assert (roll.post_sha256, roll.seed_sha256) == (
        sha256_text(post.body),
        sha256_text(membership.dice_seed),
    )
    key = roll.generator_key
    entropy = story.campaign.entropy_int
    assert roll.dice == list(roll_action(2, 30, make_rng(entropy, key, share.digest())).dice)
    # Not the dice the server alone could have drawn (3 d100 equal by chance: 1 in 10⁶).
    assert roll.dice != list(roll_action(2, 30, make_rng(entropy, key)).dice)
    assert (roll.period, roll.commitment) == (1, commitment_of(story.campaign.entropy))


def _thirty_days(campaign: Campaign) -> None:
    for _ in range(30):
        campaign.refresh_from_db()
        assert advance_day(campaign).advanced


def test_round_trip_over_a_thirty_day_period(story, master, player_a, char_a):
    campaign = story.campaign
    secret_before = campaign.entropy
    town = SettlementFactory(campaign=campaign, population=173, area_m2=10_000)
    _post_roll(
        story,
        player_a,
        services.RollSpec(kind="action", character=char_a, trait="fuerza", threshold=30),
    )
    _post_roll(
        story,
        master,
        services.RollSpec(
            kind="expression", expression="3d100<=40", reason="¿Le oye?", hidden=True
        ),
        body="El vigilante escucha.",
    )
    _post_roll(story, player_a, services.RollSpec(kind="event", probability=50))
    world.route_check(settlement=town, user=master, path_m=20, mode="normal")
    _thirty_days(campaign)

    campaign.refresh_from_db()
    first, second = EntropyPeriod.objects.filter(campaign=campaign).order_by("number")
    assert (first.first_day, first.last_day, first.is_open) == (7, 36, False)
    assert first.entropy == secret_before and first.commitment == commitment_of(secret_before)
    assert (second.number, second.first_day, second.is_open) == (2, 37, True)
    assert campaign.entropy != secret_before
    assert second.commitment == commitment_of(campaign.entropy)

    archive = json.loads(json.dumps(period_archive(first)))  # as downloaded
    rolls = Roll.objects.filter(campaign=campaign)
    assert len(archive["rolls"]) == rolls.count() + WorldRoll.objects.count() >= 4
    report = verify_archive(archive)
    assert report.ok and report.differences == () and report.unverifiable == ()
    assert report.checked == len(archive["rolls"]) and report.secret == 1
    # The commitment was out before every roll of the period.
    assert report.before_commitment == ()
    assert all(r.created_at >= first.opened_at for r in rolls)
    # The secret roll verifies without what it was for.
    (secret,) = [r for r in archive["rolls"] if r["secret"]]
    assert not {"reason", "kind", "expression", "character", "base_threshold"} & set(secret)
    assert "¿Le oye?" not in json.dumps(archive, ensure_ascii=False)

    # One stored face changed: exactly that roll is reported.
    tampered = rolls.filter(kind="action").first()
    faces = list(tampered.dice)
    faces[0] = faces[0] % 100 + 1
    Roll.objects.filter(pk=tampered.pk).update(dice=faces)
    assert [d.roll for d in period_verify(first).differences] == [f"roll:{tampered.pk}"]

    # A wrong revealed entropy: every roll is reported; every roll of 3 d100 also differs
    # (a roll of one small die may match by chance, 1 in 6 for a d6: it is reported anyway).
    archive["entropy"] = "0" * 31 + "1"
    wrong = verify_archive(archive)
    assert not wrong.commitment_ok
    assert set(wrong.reported) == {r["id"] for r in archive["rolls"]}
    big = {r["id"] for r in archive["rolls"] if len(r["dice"]) == 3 and r["id"].startswith("roll")}
    assert big and big <= {d.roll for d in wrong.differences}


def test_the_master_closes_a_period_and_later_rolls_use_the_next(
    story,
    master,
    player_a,
    char_a,
):
    campaign = story.campaign
    with pytest.raises(ServiceError):
        periods.period_close(campaign=campaign, master=player_a)
    spec = services.RollSpec(kind="expression", expression="1d6")
    _before, old = _post_roll(story, player_a, spec)
    closed = periods.period_close(campaign=campaign, master=master)
    assert (closed.number, closed.last_day, closed.closed_by) == (1, 7, master)
    _after, new = _post_roll(story, player_a, spec)
    campaign.refresh_from_db()
    assert (old.period, new.period) == (1, 2)
    assert new.commitment == commitment_of(campaign.entropy) != old.commitment
    assert new.generator_key[3] == old.generator_key[3] + 1  # one key sequence per day
    assert verify_archive(period_archive(closed)).ok
    with pytest.raises(ServiceError):
        period_archive(EntropyPeriod.objects.get(campaign=campaign, number=2))


def test_secret_rolls_are_revealed_only_by_the_master_after_the_close(
    story,
    master,
    player_a,
):
    spec = services.RollSpec(kind="event", probability=20, reason="Emboscada", hidden=True)
    _post_roll(story, master, spec, body="Silencio.")
    link = PostRoll.objects.select_related("roll").get()
    with pytest.raises(ServiceError):
        secret_roll_reveal(link=link, master=master)  # its period is still open
    period = periods.period_close(campaign=story.campaign, master=master)
    with pytest.raises(ServiceError):
        secret_roll_reveal(link=link, master=player_a)
    secret_roll_reveal(link=link, master=master)
    (entry,) = period_archive(period)["rolls"]
    assert entry["reason"] == "Emboscada" and entry["secret"] is True


def test_the_dice_pages(story, master, player_a, player_b, outsider, char_a):
    campaign = story.campaign
    secret = campaign.entropy
    _post_roll(story, player_a, services.RollSpec(kind="expression", expression="2d6"))
    page = client_for(player_b).get(reverse("dice_periods", kwargs={"slug": campaign.slug}))
    assert page.status_code == 200
    assert commitment_of(secret) in page.content.decode() and secret not in page.content.decode()
    archive_url = reverse("dice_archive", kwargs={"slug": campaign.slug, "number": 1})
    assert client_for(player_b).get(archive_url).status_code == 404  # still open
    periods.period_close(campaign=campaign, master=master)
    assert client_for(outsider).get(archive_url).status_code == 404  # a private campaign
    download = client_for(player_b).get(archive_url)
    assert download.status_code == 200 and "attachment" in download["Content-Disposition"]
    assert verify_archive(json.loads(download.content)).ok
    detail = client_for(player_a).get(
        reverse("dice_period", kwargs={"slug": campaign.slug, "number": 1})
    )
    assert secret in detail.content.decode()
    assert detail.context["report"].ok and detail.context["report"].checked == 1
    detail_page = client_for(master).get(campaign.get_absolute_url())
    assert commitment_of(campaign.entropy) not in detail_page.content.decode()  # refreshed below
    campaign.refresh_from_db()
    assert (
        commitment_of(campaign.entropy)
        in client_for(master).get(campaign.get_absolute_url()).content.decode()
    )


def test_a_player_sets_and_resets_their_seed(campaign, player_a, outsider):
    url = reverse("dice_seed", kwargs={"slug": campaign.slug})
    member = Membership.objects.get(campaign=campaign, user=player_a)
    assert len(member.dice_seed) == 16  # a random one from the start
    client = client_for(player_a)
    answer = client.post(url, {"seed": "  mi gato Nube  ", "next": "/cuentas/perfil/"})
    assert (answer.status_code, answer["Location"]) == (302, "/cuentas/perfil/")
    member.refresh_from_db()
    assert member.dice_seed == "mi gato Nube"
    client.post(url, {"reset": "1"})
    member.refresh_from_db()
    assert member.dice_seed != "mi gato Nube" and len(member.dice_seed) == 16
    client.post(url, {"seed": "x" * 65})
    member.refresh_from_db()
    assert member.dice_seed != "x" * 65  # refused, kept
    assert client_for(outsider).post(url, {"seed": "a"}).status_code == 404
    profile = client.get(reverse("profile")).content.decode()
    assert member.dice_seed in profile and sha256_text(member.dice_seed) in profile


def test_the_docs_page_speaks_both_languages(client):
    spanish = client.get(reverse("dice_docs"), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Qué demuestra" in spanish and "partida/share/v1" in spanish
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    english = client.get(reverse("dice_docs")).content.decode()
    assert "What it proves" in english and "python -m reglas verificar" in english


def test_existing_campaigns_migrate_to_a_first_period_with_their_entropy(transactional_db):
    # A campaign and a roll stored before verifiable dice: after the migrations its first
    # period's secret is the campaign's old entropy, so the old roll verifies once revealed.
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [
        ("mundo", "0008_rule_settings_renamed_for_the_amended_readings"),
        ("personajes", "0010_needs_days_without"),
    ]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    entropy = "0123456789abcdef0123456789abcdef"
    campaign = old.get_model("mundo", "Campaign").objects.create(
        name="Vieja", slug="vieja", apocalypse_date="2026-01-01", current_day=12, entropy=entropy
    )
    user = old.get_model("auth", "User").objects.create(username="vieja-jugadora")
    old.get_model("mundo", "Membership").objects.create(campaign=campaign, user=user)
    key = [12, 2, 1_000_000_000 + user.pk, 0]
    die = int(make_rng(int(entropy, 16), key).integers(1, 101))
    old.get_model("personajes", "Roll").objects.create(
        campaign=campaign, day=12, kind="event", dice=[die], generator_key=key, engine_version="1"
    )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    try:
        migrated = Campaign.objects.get(pk=campaign.pk)
        assert (migrated.entropy, migrated.entropy_period, migrated.entropy_period_start) == (
            entropy,
            1,
            12,
        )
        period = EntropyPeriod.objects.get(campaign=migrated)
        assert (period.number, period.first_day) == (1, 12)
        assert period.commitment == commitment_of(entropy)
        roll = Roll.objects.get(campaign=migrated)
        assert (roll.period, roll.commitment) == (1, period.commitment)
        assert len(Membership.objects.get(campaign=migrated).dice_seed) == 16
        master = get_user_model().objects.get(pk=user.pk)
        Membership.objects.filter(campaign=migrated).update(role=Membership.Role.MASTER)
        closed = periods.period_close(campaign=migrated, master=master)
        report = verify_archive(period_archive(closed))
        assert report.ok and report.checked == 1
        # Made before the commitment existed: named, so nobody reads it as proof.
        assert report.before_commitment == (f"roll:{roll.pk}",)
    finally:
        Campaign.objects.filter(pk=campaign.pk).delete()
