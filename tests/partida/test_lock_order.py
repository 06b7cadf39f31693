"""The daily tick, the master's day records and players' posts with rolls, all at once, on one
campaign (PostgreSQL): no deadlock, and no day record lands on a day the tick already closed.

Every write path enters ``nucleo.locks.campaign_lock`` first and locks rows after it, so the
three kinds of writer queue on the campaign row instead of waiting on each other's rows. Before
that, ``day_record_save`` locked the character and then its inventory without the campaign while
the tick, holding the campaign, wrote inventory then characters, and a record could be saved for
a day the tick had just closed. Real row locks need a real server: skipped on SQLite.

The lock-order rules themselves (rows before the campaign, two campaigns) are checked on any
database.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from escenas import scenes as escenas_scenes
from escenas import services as scene_services
from escenas.models import Post, Scene
from mundo.models import Campaign, DayTick
from nucleo.errors import ServiceError
from nucleo.ledger import next_key
from nucleo.locks import LockOrderError, campaign_lock, lock_rows
from partida.tick import advance_day
from personajes.days import day_record_save
from personajes.models import Character, DayRecord, DiaryEntry, Roll
from personajes.traits import campaign_traits
from tests.escenas.conftest import access_for
from tests.escenas.factories import new_key
from tests.factories import CampaignFactory, MembershipFactory, SettlementFactory, UserFactory
from tests.partida.tick_helpers import good_shelter, no_disease, survivor

ROUNDS = 3
PLAYERS = 3


@pytest.mark.django_db
def test_rows_before_their_campaign_are_refused():
    campaign = CampaignFactory()
    with transaction.atomic(), pytest.raises(LockOrderError, match="before their campaign"):
        lock_rows(Character.objects.filter(campaign=campaign))


@pytest.mark.django_db
def test_one_campaign_per_transaction_and_account_rows_outside_it():
    first, second = CampaignFactory(), CampaignFactory()
    user = UserFactory()
    with campaign_lock(first.pk) as locked:
        assert locked.pk == first.pk
        with campaign_lock(first.pk) as again:  # re-entrant for the same campaign
            assert again.pk == first.pk
        with pytest.raises(LockOrderError, match="locks one campaign"), campaign_lock(second.pk):
            pass
        with pytest.raises(LockOrderError, match="account data"):
            lock_rows(type(user).objects.filter(pk=user.pk), account=True)
    with transaction.atomic():
        assert lock_rows(type(user).objects.filter(pk=user.pk), account=True) == [user]


@pytest.mark.django_db
def test_a_roll_key_needs_the_campaign_lock():
    campaign = CampaignFactory(current_day=4)
    with pytest.raises(LockOrderError, match=f"lock of campaign {campaign.pk}"):
        next_key(Roll, campaign_id=campaign.pk, day=4, purpose=1, subject=9)
    with campaign_lock(campaign.pk):
        assert next_key(Roll, campaign_id=campaign.pk, day=4, purpose=1, subject=9) == [4, 1, 9, 0]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_tick_day_records_and_posts_together_never_deadlock():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite has no row locks (set DATABASE_URL; CI does)")
    campaign = CampaignFactory(current_day=7)
    master = UserFactory()
    MembershipFactory(campaign=campaign, user=master, role="master")
    no_disease(campaign)  # nobody dies mid-test of a chance illness
    campaign_traits(campaign=campaign)
    shelter = good_shelter(SettlementFactory(campaign=campaign))
    cast = []
    for _ in range(PLAYERS):
        player = UserFactory()
        MembershipFactory(campaign=campaign, user=player)
        hero = survivor(campaign, shelter=shelter, player=player)
        cast.append((player, hero))
    scene = escenas_scenes.scene_create(
        campaign=campaign,
        master=master,
        title="La gasolinera",
        readers=Scene.Readers.MEMBERS,
        participants=[hero for _p, hero in cast],
    )
    saved: list[tuple[int, int]] = []  # (character id, day) of every record that was saved
    refused: list[ServiceError] = []
    errors: list[BaseException] = []

    for day in range(7, 7 + ROUNDS):
        barrier = threading.Barrier(1 + 2 * PLAYERS)

        def tick(barrier: threading.Barrier = barrier, day: int = day) -> None:
            barrier.wait()
            advance_day(campaign.pk, expected_day=day)

        def mark(hero: Character, barrier: threading.Barrier = barrier, day: int = day) -> None:
            barrier.wait()
            try:
                day_record_save(character=hero, user=master, day=day, sleep_h=3.0)
                saved.append((hero.pk, day))
            except ServiceError as exc:  # lost the race: the tick closed the day first
                refused.append(exc)

        def post(player, hero: Character, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            scene_services.post_create(
                access=access_for(scene, player),
                author=player,
                idempotency_key=new_key(),
                body="Miro alrededor.",
                character=hero,
                roll=scene_services.RollSpec(
                    kind="action", character=hero, trait="percepcion", threshold=50
                ),
            )

        jobs = [tick] + [lambda h=h: mark(h) for _p, h in cast]
        jobs += [lambda p=p, h=h: post(p, h) for p, h in cast]
        threads = [threading.Thread(target=_guarded(job, errors)) for job in jobs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not any(t.is_alive() for t in threads), "a writer is stuck: deadlock"

    assert not errors, errors
    assert Campaign.objects.get(pk=campaign.pk).current_day == 7 + ROUNDS
    assert DayTick.objects.filter(campaign=campaign).count() == ROUNDS
    assert Post.objects.filter(scene=scene).count() == ROUNDS * PLAYERS
    assert Roll.objects.filter(campaign=campaign, kind="action").count() == ROUNDS * PLAYERS
    assert len(saved) + len(refused) == ROUNDS * PLAYERS
    assert all(set(exc.message_dict) == {"day"} for exc in refused), refused
    # Every record that was saved was saved before its day closed, so the tick that closed
    # the day read it: that day's diary shows the 3 h of sleep it marked.
    for character_id, day in saved:
        assert DayRecord.objects.filter(character_id=character_id, day=day).exists()
        entry = DiaryEntry.objects.get(character_id=character_id, day=day)
        assert entry.sleep_h == 3.0, (character_id, day)
    # A refused record left nothing behind.
    assert DayRecord.objects.filter(character__campaign=campaign).count() == len(saved)


def _guarded(job, errors: list[BaseException]):
    def run() -> None:
        try:
            job()
        except BaseException as exc:  # a deadlock, a lock timeout, any failure: reported
            errors.append(exc)
        finally:
            connection.close()

    return run
