"""The post's narrow lock (``nucleo.locks`` shared mode): posts of one campaign run side by side,
never beside the tick; two rolls of one subject still count their sequence one after the other.

The cast: the master, player A (``char_a``, in the story scene) and player B (``char_b``, added
to the scene here). The PostgreSQL tests hold one transaction open at a known point (a post
paused in ``_post_written``, after its roll; the tick paused in ``close_characters_day``) with
``threading.Event``s and watch what another thread can do meanwhile; each thread has its own
connection. Real row and advisory locks need a real server: those tests are skipped on SQLite.
The order rules themselves are checked on any database.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection, transaction

from escenas import services
from escenas.models import Post
from mundo.models import Campaign, DayTick
from nucleo.ledger import LedgerRow, bulk_keys
from nucleo.locks import LockOrderError, campaign_lock, campaign_locked, key_lock
from partida.tick import advance_day
from partida.tick import run as tick_run
from personajes.models import Roll
from tests.escenas.conftest import access_for
from tests.escenas.factories import new_key

WAIT_S = 20
"""How long a thread waits for an event that must come (a generous bound, never reached when
the code is right: the tests measure order, not time)."""
BLOCKED_S = 1.0
"""How long a thread is watched to conclude it is blocked (it must not finish in that time)."""


# --- The order rules (any database) -------------------------------------------------------------


@pytest.mark.django_db
def test_an_exclusive_lock_inside_a_shared_one_is_refused(campaign):
    with campaign_lock(campaign.pk, shared=True) as locked:
        assert locked.pk == campaign.pk
        with campaign_lock(campaign.pk, shared=True) as again:  # shared in shared: joins it
            assert again.current_day == campaign.current_day
        with pytest.raises(LockOrderError, match="held shared"), campaign_lock(campaign.pk):
            pass
    with campaign_lock(campaign.pk), campaign_lock(campaign.pk, shared=True):
        pass  # shared inside exclusive: runs under the exclusive lock


@pytest.mark.django_db
def test_a_decorated_service_joins_the_lock_it_runs_in(campaign):
    @campaign_locked(lambda campaign, **_: campaign.pk)
    def exclusive(*, campaign: Campaign) -> str:
        return "done"

    @campaign_locked(lambda campaign, **_: campaign.pk, shared=True)
    def shared(*, campaign: Campaign) -> str:
        return "done"

    with campaign_lock(campaign.pk, shared=True):
        assert shared(campaign=campaign) == "done"
        with pytest.raises(LockOrderError, match="held shared"):
            exclusive(campaign=campaign)
    assert exclusive(campaign=campaign) == shared(campaign=campaign) == "done"


@pytest.mark.django_db
def test_batched_ledger_keys_and_key_locks_need_their_lock(campaign):
    rows = [LedgerRow(purpose=1, subject=9)]
    with campaign_lock(campaign.pk, shared=True):
        with pytest.raises(LockOrderError, match="exclusive lock"):
            bulk_keys(Roll, campaign_id=campaign.pk, day=0, rows=rows)
        key_lock("post", 1, "abc")  # fine inside any campaign lock
    with campaign_lock(campaign.pk):
        assert bulk_keys(Roll, campaign_id=campaign.pk, day=0, rows=rows) == [[0, 1, 9, 0]]
    with transaction.atomic(), pytest.raises(LockOrderError, match="outside a campaign lock"):
        key_lock("post", 1, "abc")


# --- Concurrency (PostgreSQL) -------------------------------------------------------------------


@pytest.fixture
def on_postgres():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite has no row or advisory locks (set DATABASE_URL)")


def _thread(job: Callable[[], object], errors: list[BaseException]) -> threading.Thread:
    def run() -> None:
        try:
            job()
        except BaseException as exc:  # a deadlock, a lock timeout, any failure: reported
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _pause_posts_of(monkeypatch, author_id: int, inside: threading.Event, go: threading.Event):
    """Posts by ``author_id`` stop after their roll (in ``_post_written``, lock held, nothing
    committed) and say so on ``inside`` until ``go`` is set; other posts run through."""
    real = services._post_written

    def paused(post, **kwargs):
        if post.author_id == author_id:
            inside.set()
            assert go.wait(WAIT_S), "nobody released the paused post"
        return real(post, **kwargs)

    monkeypatch.setattr(services, "_post_written", paused)


def _post(scene, author, character, *, key: str | None = None, roll=None) -> Post:
    post, _created = services.post_create(
        access=access_for(scene, author),
        author=author,
        idempotency_key=key or new_key(),
        body="Miro alrededor.",
        voice="character" if character is not None else "player",
        character=character,
        roll=roll
        or services.RollSpec(kind="action", character=character, trait="fuerza", threshold=50),
    )
    return post


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_posts_of_one_campaign_run_side_by_side(
    on_postgres, monkeypatch, story, player_a, player_b, char_a, char_b
):
    """A's post is held open after its roll; B's post with a roll, in the same scene, is
    written and committed meanwhile (under the old exclusive campaign lock it waited)."""
    story.participants.add(char_b)
    inside, go, b_done = threading.Event(), threading.Event(), threading.Event()
    _pause_posts_of(monkeypatch, player_a.pk, inside, go)
    errors: list[BaseException] = []
    a = _thread(lambda: _post(story, player_a, char_a), errors)
    assert inside.wait(WAIT_S)
    b = _thread(lambda: (_post(story, player_b, char_b), b_done.set()), errors)
    finished_beside = b_done.wait(WAIT_S)
    go.set()
    for t in (a, b):
        t.join(WAIT_S)
    assert not errors, errors
    assert finished_beside, "B's post waited for A's: the posts still serialise"
    assert Post.objects.filter(scene=story).count() == 2
    assert Roll.objects.filter(campaign=story.campaign, kind="action").count() == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_tick_waits_for_a_post_in_flight(on_postgres, monkeypatch, story, player_a, char_a):
    """A post holding the shared lock keeps the tick out until it commits: the post and its
    roll are on day 7, the tick closes day 7 after them."""
    campaign = story.campaign
    Campaign.objects.filter(pk=campaign.pk).update(current_day=7)
    inside, go, ticked = threading.Event(), threading.Event(), threading.Event()
    _pause_posts_of(monkeypatch, player_a.pk, inside, go)
    errors: list[BaseException] = []
    posting = _thread(lambda: _post(story, player_a, char_a), errors)
    assert inside.wait(WAIT_S)
    ticking = _thread(lambda: (advance_day(campaign.pk, expected_day=7), ticked.set()), errors)
    blocked = not ticked.wait(BLOCKED_S)
    go.set()
    for t in (posting, ticking):
        t.join(WAIT_S)
    assert not errors, errors
    assert blocked, "the tick ran beside a post in flight"
    post = Post.objects.get(scene=story)
    assert (post.day, Roll.objects.get(campaign=campaign, kind="action").day) == (7, 7)
    tick = DayTick.objects.get(campaign=campaign, day=8)
    assert tick.created_at > post.created_at
    assert Campaign.objects.get(pk=campaign.pk).current_day == 8


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_post_waits_for_the_tick_in_flight(on_postgres, monkeypatch, story, player_a, char_a):
    """While the tick closes day 7 (exclusive lock held), a post waits; it lands on day 8."""
    campaign = story.campaign
    Campaign.objects.filter(pk=campaign.pk).update(current_day=7)
    inside, go, posted = threading.Event(), threading.Event(), threading.Event()
    real = tick_run.close_characters_day

    def paused(**kwargs):
        inside.set()
        assert go.wait(WAIT_S), "nobody released the paused tick"
        return real(**kwargs)

    monkeypatch.setattr(tick_run, "close_characters_day", paused)
    errors: list[BaseException] = []
    ticking = _thread(lambda: advance_day(campaign.pk, expected_day=7), errors)
    assert inside.wait(WAIT_S)
    posting = _thread(lambda: (_post(story, player_a, char_a), posted.set()), errors)
    blocked = not posted.wait(BLOCKED_S)
    go.set()
    for t in (ticking, posting):
        t.join(WAIT_S)
    assert not errors, errors
    assert blocked, "a post ran beside the tick"
    post = Post.objects.get(scene=story)
    assert (post.day, Roll.objects.get(campaign=campaign, kind="action").day) == (8, 8)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_rolls_of_one_subject_take_the_next_sequence(on_postgres, monkeypatch, story, player_a):
    """Two posts by player A at once, each with an expression roll made without a character
    (subject: A's user): no row lock orders them, the ledger's lock does. The second counts
    after the first commits: sequences 0 and 1, no refused duplicate key."""
    inside, go = threading.Event(), threading.Event()
    _pause_posts_of(monkeypatch, player_a.pk, inside, go)
    roll = services.RollSpec(kind="expression", expression="1d6")
    errors: list[BaseException] = []
    first = _thread(lambda: _post(story, player_a, None, roll=roll), errors)
    assert inside.wait(WAIT_S)
    # The second waits on the ledger's lock, before its roll (without that lock it would count
    # sequence 0 too, and the unique generator key would refuse its roll after the commit).
    second = _thread(lambda: _post(story, player_a, None, roll=roll), errors)
    second.join(BLOCKED_S)
    go.set()
    for t in (first, second):
        t.join(WAIT_S)
    assert not errors, errors
    keys = Roll.objects.filter(campaign=story.campaign).values_list("generator_key", flat=True)
    assert sorted(k[3] for k in keys) == [0, 1]
    assert len({tuple(k[:3]) for k in keys}) == 1
