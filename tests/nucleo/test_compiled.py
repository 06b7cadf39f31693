"""Querysets compiled once per shape (``nucleo.compiled``): the rows are those of the built
queryset, related rows and annotations included, for every value; the build runs once per
shape, names and connection; a build whose values are not plain parameters is refused."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest
from django.db import connection, connections
from django.db.models import Count, Exists, OuterRef, QuerySet
from django.test.utils import CaptureQueriesContext

from mundo.models import Membership
from nucleo.compiled import CompiledQuery, CompiledQueryError, ids_bucket, prefetched
from personajes.models import Character
from tests.factories import CampaignFactory, CharacterFactory, UserFactory

pytestmark = pytest.mark.django_db


def _players_characters(
    with_count: bool, *, player_id: int, slug: str | None = None
) -> QuerySet[Character]:
    characters = Character.objects.select_related("campaign", "player").filter(player_id=player_id)
    if slug is not None:
        characters = characters.filter(campaign__slug=slug)
    member = Membership.objects.filter(campaign=OuterRef("campaign_id"), user_id=player_id)
    characters = characters.annotate(member=Exists(member))
    if with_count:
        characters = characters.annotate(n_rolls=Count("rolls"))
    return characters.order_by("name")


def _rows(characters):
    return [
        (c.pk, c.name, c.campaign.slug, c.player.username, c.member, getattr(c, "n_rolls", None))
        for c in characters
    ]


@pytest.fixture
def two_players():
    ana, bea = UserFactory(username="ana"), UserFactory(username="bea")
    north, south = CampaignFactory(slug="norte"), CampaignFactory(slug="sur")
    Membership.objects.create(campaign=north, user=ana, role="player")
    for campaign, player, name in [
        (north, ana, "Zoe"),
        (north, ana, "Abel"),
        (south, ana, "Marta"),
        (north, bea, "Luis"),
    ]:
        CharacterFactory(campaign=campaign, player=player, name=name)
    return ana, bea


def test_the_rows_are_the_built_querysets_for_every_value(two_players):
    ana, bea = two_players
    compiled = CompiledQuery(_players_characters)
    for with_count in (False, True):
        for player in (ana, bea):
            for slug in ("norte", "sur", "nadie"):
                built = _players_characters(with_count, player_id=player.pk, slug=slug)
                expected = _rows(built)
                with CaptureQueriesContext(connection) as queries:
                    got = _rows(compiled.rows(with_count, player_id=player.pk, slug=slug))
                assert got == expected and len(queries) == 1
    # Real values, not the sentinels: Ana's two northern characters by name, a member there.
    assert _rows(compiled.rows(False, player_id=ana.pk, slug="norte")) == [
        (Character.objects.get(name="Abel").pk, "Abel", "norte", "ana", True, None),
        (Character.objects.get(name="Zoe").pk, "Zoe", "norte", "ana", True, None),
    ]
    assert [c.name for c in compiled.rows(True, player_id=ana.pk)] == ["Abel", "Marta", "Zoe"]


def test_the_build_runs_once_per_shape_and_names(two_players):
    ana, bea = two_players
    built = []

    def build(with_count, **values):
        built.append((with_count, sorted(values)))
        return _players_characters(with_count, **values)

    compiled = CompiledQuery(build)
    for player in (ana, bea, ana):
        compiled.rows(False, player_id=player.pk, slug="norte")
        compiled.rows(False, player_id=player.pk)
        compiled.rows(True, player_id=player.pk)
    # Twice per shape (two sets of sentinels, compared), never again.
    assert built == [
        (False, ["player_id", "slug"]),
        (False, ["player_id", "slug"]),
        (False, ["player_id"]),
        (False, ["player_id"]),
        (True, ["player_id"]),
        (True, ["player_id"]),
    ]


def test_a_value_a_lookup_rewrites_is_refused():
    def rewritten(*, name):
        return Character.objects.filter(name__contains=name)  # '%' + name + '%'

    with pytest.raises(CompiledQueryError, match="name"):
        CompiledQuery(rewritten).rows(name="Zoe")


@pytest.mark.parametrize("value", [None, [], [1, 2.0], [True], list(range(1, 514)), 1.5, True])
def test_a_value_that_would_change_the_sql_is_a_type_error(value):
    compiled = CompiledQuery(_players_characters)
    with pytest.raises(TypeError, match="player_id"):
        compiled.rows(False, player_id=value)


def test_a_values_list_gives_its_rows(two_players):
    ana, _bea = two_players

    def pairs(*, player_id):
        characters = Character.objects.filter(player_id=player_id).order_by("name")
        return characters.values_list("name", "campaign__slug")

    def names(*, player_id):
        return (
            Character.objects.filter(player_id=player_id)
            .order_by("-name")
            .values_list("name", flat=True)
        )

    assert CompiledQuery(pairs).rows(player_id=ana.pk) == [
        ("Abel", "norte"),
        ("Marta", "sur"),
        ("Zoe", "norte"),
    ]
    assert CompiledQuery(names).rows(player_id=ana.pk) == ["Zoe", "Marta", "Abel"]


def test_a_like_that_escapes_its_value_is_refused(two_players):
    """SQLite's ``iexact`` is a ``LIKE`` with ``%`` and ``_`` escaped in the value: compiled
    once, a name with ``_`` would match any character there. PostgreSQL's compares
    ``UPPER(%s)``, the value as given."""

    def by_name(*, name):
        return Character.objects.filter(name__iexact=name).values_list("name", flat=True)

    if connection.vendor == "sqlite":
        with pytest.raises(CompiledQueryError, match="name"):
            CompiledQuery(by_name).rows(name="zoe")
    else:
        assert CompiledQuery(by_name).rows(name="zOE") == ["Zoe"]
        assert CompiledQuery(by_name).rows(name="z_e") == []


def test_ranges_of_small_integer_fields_and_constants_that_equal_a_sentinel(two_players):
    """A sentinel lies inside a positive small integer field's range (out of it Django would
    drop or empty the comparison) and a constant equal to one stays a constant: the build
    runs with two sets of sentinels and only the places that differ take the values."""
    ana, _bea = two_players
    Character.objects.filter(name="Zoe").update(hunger_days=3)
    Character.objects.filter(name="Abel").update(hunger_days=7)

    def hungry(*, player_id, least, most):
        characters = Character.objects.filter(
            player_id=player_id, hunger_days__gte=least, hunger_days__lte=most
        ).exclude(thirst_days=30_001)  # the first int sentinel's value, as a constant
        return characters.order_by("name").values_list("name", flat=True)

    compiled = CompiledQuery(hungry)
    assert compiled.rows(player_id=ana.pk, least=1, most=5) == ["Zoe"]
    assert compiled.rows(player_id=ana.pk, least=0, most=9) == ["Abel", "Marta", "Zoe"]
    assert compiled.rows(player_id=ana.pk, least=4, most=9) == ["Abel"]
    Character.objects.filter(name="Abel").update(thirst_days=30_001)
    assert compiled.rows(player_id=ana.pk, least=4, most=9) == []


def test_prefetch_related_and_select_for_update_are_refused():
    def prefetched(*, player_id):
        return Character.objects.filter(player_id=player_id).prefetch_related("rolls")

    def locked(*, player_id):
        return Character.objects.filter(player_id=player_id).select_for_update()

    for build in (prefetched, locked):
        with pytest.raises(CompiledQueryError, match="not compiled"):
            CompiledQuery(build).rows(player_id=1)


@pytest.mark.django_db(transaction=True)
def test_the_compiled_queries_go_with_their_connection(two_players):
    """Kept on the connection's wrapper: a thread's connection, closed with its thread, is
    freed with what it compiled (a cache keyed on it elsewhere kept every thread's alive)."""
    ana, _bea = two_players
    compiled = CompiledQuery(_players_characters)
    seen: list[weakref.ref[object]] = []

    def in_a_thread():
        try:
            assert [c.name for c in compiled.rows(False, player_id=ana.pk)] == [
                "Abel",
                "Marta",
                "Zoe",
            ]
            seen.append(weakref.ref(connections["default"]))
        finally:
            connections.close_all()

    worker = threading.Thread(target=in_a_thread)
    worker.start()
    worker.join()
    del worker
    gc.collect()
    assert len(seen) == 1 and seen[0]() is None
    # This thread's connection compiles its own, once.
    assert [c.name for c in compiled.rows(False, player_id=ana.pk)] == ["Abel", "Marta", "Zoe"]


def test_prefetched_rows_answer_the_relation_without_a_query(
    two_players, django_assert_num_queries
):
    """``prefetched`` stands in for ``prefetch_related``: the relation gives the rows stored,
    in their order, with no query; storing again replaces them, and a new filter on the
    relation asks the database as after a real prefetch."""
    from escenas.models import Scene

    ana, _bea = two_players
    north = Character.objects.filter(campaign__slug="norte")
    scene = Scene.objects.create(campaign=north[0].campaign, title="Puerto", kind="story")
    scene.participants.set(north)
    scene = Scene.objects.get(pk=scene.pk)
    by_name = list(north.order_by("name"))
    with django_assert_num_queries(0):
        prefetched(scene, "participants", by_name)
        assert [c.name for c in scene.participants.all()] == ["Abel", "Luis", "Zoe"]
        prefetched(scene, "participants", by_name[:1])
        assert [c.name for c in scene.participants.all()] == ["Abel"]
    with django_assert_num_queries(1):
        assert scene.participants.filter(player=ana).count() == 2


def test_a_list_of_ids_fills_a_bucket_of_placeholders(two_players, django_assert_num_queries):
    """``__in`` a list of ids: the build gets a list of ``ids_bucket`` sentinels, so every
    length up to 8 shares one compiled query, 9 to 16 another; the call's ids fill it, the
    last one repeated, and the rows are those of the plain queryset."""
    built = []

    def named(*, ids, player_id):
        built.append(len(ids))
        mine = Character.objects.filter(player_id=player_id, pk__in=ids)
        return mine.order_by("name").values_list("name", flat=True)

    ana, _bea = two_players
    theirs = {c.name: c.pk for c in Character.objects.all()}
    compiled = CompiledQuery(named)
    assert [ids_bucket(n) for n in (1, 8, 9, 16, 17, 500)] == [8, 8, 16, 16, 32, 512]
    with django_assert_num_queries(1):
        assert compiled.rows(ids=[theirs["Zoe"]], player_id=ana.pk) == ["Zoe"]
    everyone = list(theirs.values())
    assert compiled.rows(ids=everyone, player_id=ana.pk) == ["Abel", "Marta", "Zoe"]
    # Luis is bea's: asked for, not given; padded with him, still not given.
    assert compiled.rows(ids=[theirs["Luis"]], player_id=ana.pk) == []
    assert compiled.rows(ids=[theirs["Abel"], theirs["Luis"]], player_id=ana.pk) == ["Abel"]
    nine = [theirs["Marta"]] * 9
    assert compiled.rows(ids=nine, player_id=ana.pk) == ["Marta"]
    assert built == [8, 8, 16, 16]  # two builds (the sentinel sets) per bucket, never again


def test_a_window_passes_its_bounds_as_parameters(two_players, django_assert_num_queries):
    """``window`` is the slice of the rows, for any bounds, from one compiled query (a sliced
    queryset writes LIMIT/OFFSET into its SQL: one per page and page size)."""
    built = []

    def names(*, campaign_slug):
        built.append(campaign_slug)
        return Character.objects.filter(campaign__slug=campaign_slug).order_by("name")

    compiled = CompiledQuery(names)
    everyone = ["Abel", "Luis", "Zoe"]
    for start in range(4):
        for stop in range(start, 5):
            with django_assert_num_queries(1):
                rows = compiled.window(start, stop, campaign_slug="norte")
            assert [c.name for c in rows] == everyone[start:stop]
    assert len(built) == 2  # the two sentinel builds of its one shape
    with pytest.raises(ValueError, match="window"):
        compiled.window(2, 1, campaign_slug="norte")
    with pytest.raises(ValueError, match="window"):
        compiled.window(-1, 2, campaign_slug="norte")
    sliced = CompiledQuery(lambda *, campaign_slug: names(campaign_slug=campaign_slug)[:2])
    with pytest.raises(CompiledQueryError, match="sliced"):
        sliced.window(0, 1, campaign_slug="norte")


def test_the_connection_keeps_at_most_max_kept(two_players, monkeypatch):
    """The oldest compiled query goes first past ``MAX_KEPT``: however many shapes are asked,
    the connection keeps a bounded number."""
    import nucleo.compiled

    monkeypatch.setattr(nucleo.compiled, "MAX_KEPT", 3)
    ana, _bea = two_players
    compiled = CompiledQuery(
        lambda n, *, player_id: _players_characters(False, player_id=player_id)
    )
    kept = connections["default"].__dict__.setdefault(nucleo.compiled._KEPT, {})
    kept.clear()
    for n in range(5):
        assert len(compiled.rows(n, player_id=ana.pk)) == 3
    assert [key[1] for key in kept] == [(2,), (3,), (4,)]
