"""Action rolls (R3) with the R9 penalty, their generator keys, and the master's threshold.

Cast: ``master`` runs ``campaign`` (day 7); ``player_a`` owns the approved character; ``player_b``
and ``outsider`` may not roll for it.
"""

import pytest

import reglas
from nucleo.errors import ServiceError
from personajes import rolls
from personajes.models import Character, Roll
from reglas.core import RollPurpose, make_rng
from reglas.dice import roll_action
from tests.personajes.helpers import make_character, postgres_only, run_concurrently

pytestmark = pytest.mark.django_db


@pytest.fixture
def hero(campaign, player_a):
    """Player A's approved character: Fuerza 2, Sigilo 3, healthy."""
    return make_character(
        campaign,
        player_a,
        status=Character.Status.APPROVED,
        points={"fuerza": 2, "sigilo": 3, "agilidad": 5},
    )


def roll(character, user, trait="fuerza", threshold=30, **kwargs):
    return rolls.roll_action_for_character(
        character=character, trait=trait, threshold=threshold, made_by=user, **kwargs
    )


def test_the_rulebooks_door(hero, player_a, campaign):
    # R3: door, threshold 30 %, Fuerza 2 → 3 dice; one success is enough.
    r = roll(hero, player_a, "fuerza", 30, reason="Forzar la puerta")
    assert len(r.dice) == 3
    assert all(1 <= d <= 100 for d in r.dice)
    assert r.successes == sum(1 for d in r.dice if d <= 30)
    assert r.success is any(d <= 30 for d in r.dice)
    assert (r.base_threshold, r.effective_threshold, r.modifiers) == (30, 30, [])
    assert (r.trait.slug, r.trait_name, r.trait_value) == ("fuerza", "Fuerza", 2)
    assert (r.kind, r.day, r.reason, r.made_by) == ("action", 7, "Forzar la puerta", player_a)
    assert r.dirt_sensitive is False
    assert r.generator_key == [7, RollPurpose.ACTION, hero.pk, 0]
    assert r.engine_version == reglas.ENGINE_VERSION
    # The stored dice are exactly what the recorded key regenerates.
    again = roll_action(2, 30, make_rng(campaign.entropy_int, r.generator_key))
    assert list(again.dice) == r.dice
    assert (again.successes, again.success) == (r.successes, r.success)


def test_two_hungry_days_and_one_thirsty_day_take_30_points(hero, player_a):
    hero.hunger_days, hero.thirst_days = 2, 1
    hero.save()
    r = roll(hero, player_a, "fuerza", 30)
    assert [(m["source"], m["points"]) for m in r.modifiers] == [("hunger", 20), ("thirst", 10)]
    assert [m["label"] for m in r.modifiers] == ["Hambre (2 días)", "Sed (1 día)"]
    # 30 − 30 = 0: a threshold of 0 never succeeds (R1).
    assert r.effective_threshold == 0
    assert (r.successes, r.success) == (0, False)


@pytest.mark.parametrize(
    ("trait", "flag", "penalised"),
    [
        ("sigilo", None, True),  # Sigilo is dirt-sensitive by default (R8)
        ("fuerza", None, False),
        ("fuerza", True, True),  # the master flags this roll (e.g. a social roll)
        ("sigilo", False, False),  # … or unflags it
    ],
)
def test_dirt_costs_5_only_on_dirt_sensitive_rolls(hero, player_a, trait, flag, penalised):
    hero.dirty = True
    hero.save()
    r = roll(hero, player_a, trait, 40, dirt_sensitive=flag)
    assert r.dirt_sensitive is penalised
    if penalised:
        assert r.modifiers == [{"source": "dirt", "label": "Suciedad", "points": 5}]
        assert r.effective_threshold == 35
    else:
        assert (r.modifiers, r.effective_threshold) == ([], 40)


def test_a_clean_character_takes_no_dirt_penalty_even_on_sigilo(hero, player_a):
    assert roll(hero, player_a, "sigilo", 40).modifiers == []


@pytest.mark.parametrize("status", [Character.Status.DEAD, Character.Status.RISEN])
def test_the_dead_do_not_roll(campaign, player_a, master, status):
    corpse = make_character(campaign, player_a, status=status, points={"fuerza": 2})
    for user in (player_a, master):
        with pytest.raises(ServiceError):
            roll(corpse, user)
    assert not Roll.objects.exists()


def test_only_the_owner_and_the_master_roll(hero, master, player_b, outsider):
    assert roll(hero, master).made_by == master
    for user in (player_b, outsider):
        with pytest.raises(ServiceError):
            roll(hero, user)
    assert Roll.objects.count() == 1


def test_an_unknown_trait_is_refused(hero, player_a):
    with pytest.raises(ServiceError) as excinfo:
        roll(hero, player_a, "carisma")
    assert "trait" in excinfo.value.message_dict
    assert not Roll.objects.exists()


@pytest.mark.parametrize("bad", [-1, 101, 30.5, "x", True, [30]])
def test_the_base_threshold_is_an_int_from_0_to_100(hero, player_a, bad):
    with pytest.raises(ServiceError) as excinfo:
        roll(hero, player_a, threshold=bad)
    assert "threshold" in excinfo.value.message_dict
    assert not Roll.objects.exists()


@pytest.mark.parametrize(("threshold", "successes"), [(0, 0), (100, 3), ("100", 3)])
def test_threshold_bounds(hero, player_a, threshold, successes):
    assert roll(hero, player_a, threshold=threshold).successes == successes


def test_a_trait_without_points_rolls_one_die(campaign, player_a):
    novice = make_character(campaign, player_a, status=Character.Status.APPROVED)
    assert len(roll(novice, player_a, "medicina").dice) == 1


# --- keys and immutability ---------------------------------------------------------------------


def test_two_rolls_the_same_day_have_different_keys(hero, player_a, campaign):
    first, second = roll(hero, player_a), roll(hero, player_a)
    assert first.generator_key == [7, 1, hero.pk, 0]
    assert second.generator_key == [7, 1, hero.pk, 1]
    for r in (first, second):
        assert list(make_rng(campaign.entropy_int, r.generator_key).integers(1, 101, 3)) == r.dice
    # A new day starts the sequence again: the day is part of the key.
    campaign.current_day = 8
    campaign.save()
    hero.refresh_from_db()
    assert roll(hero, player_a).generator_key == [8, 1, hero.pk, 0]


def test_each_character_has_its_own_sequence(hero, campaign, player_a, player_b):
    other = make_character(campaign, player_b, status="approved", points={"fuerza": 2})
    assert roll(hero, player_a).generator_key[2:] == [hero.pk, 0]
    assert roll(other, player_b).generator_key[2:] == [other.pk, 0]


def test_a_stored_roll_cannot_be_saved_again(hero, player_a):
    r = roll(hero, player_a)
    dice = list(r.dice)
    r.dice = [100, 100, 100]
    with pytest.raises(ValueError, match="immutable"):
        r.save()
    r.refresh_from_db()
    assert r.dice == dice


# --- the master sets the threshold later -------------------------------------------------------


def test_a_roll_without_threshold_rolls_the_same_dice_now(hero, player_a, campaign):
    r = roll(hero, player_a, threshold=None)
    assert len(r.dice) == 3
    assert (r.base_threshold, r.effective_threshold, r.successes, r.success) == (
        None,
        None,
        None,
        None,
    )
    # The faces are those roll_action would have drawn with any threshold.
    assert list(roll_action(2, 55, make_rng(campaign.entropy_int, r.generator_key)).dice) == r.dice


def test_the_master_sets_the_threshold_once_and_the_dice_stay(hero, player_a, master):
    hero.hunger_days = 1
    hero.save()
    r = roll(hero, player_a, threshold=None)
    dice = list(r.dice)
    # The condition changes after the roll: the stored penalty (hunger 10) is the one used.
    hero.hunger_days, hero.thirst_days = 0, 2
    hero.save()
    done = rolls.roll_set_threshold(roll=r, master=master, threshold=50)
    assert done.dice == dice
    assert (done.base_threshold, done.effective_threshold) == (50, 40)
    assert done.successes == sum(1 for d in dice if d <= 40)
    assert done.success is (done.successes > 0)
    with pytest.raises(ServiceError):
        rolls.roll_set_threshold(roll=r, master=master, threshold=90)
    r.refresh_from_db()
    assert (r.base_threshold, r.dice) == (50, dice)


def test_a_roll_made_with_a_threshold_cannot_take_another(hero, player_a, master):
    r = roll(hero, player_a, threshold=30)
    with pytest.raises(ServiceError):
        rolls.roll_set_threshold(roll=r, master=master, threshold=90)
    r.refresh_from_db()
    assert r.base_threshold == 30


def test_only_the_master_sets_a_threshold(hero, player_a, player_b):
    r = roll(hero, player_a, threshold=None)
    for user in (player_a, player_b):
        with pytest.raises(ServiceError):
            rolls.roll_set_threshold(roll=r, master=user, threshold=30)
    r.refresh_from_db()
    assert r.base_threshold is None


@pytest.mark.parametrize("bad", [None, -5, 101, "treinta"])
def test_the_masters_threshold_is_validated(hero, player_a, master, bad):
    r = roll(hero, player_a, threshold=None)
    with pytest.raises(ServiceError):
        rolls.roll_set_threshold(roll=r, master=master, threshold=bad)
    r.refresh_from_db()
    assert r.base_threshold is None


def test_one_threshold_check_for_every_kind_of_roll(hero, player_a, master):
    """``threshold_set`` is what pages and the API call: an action roll takes a threshold, an
    event roll a probability, an expression neither; a second setting is refused with the code
    the API answers with 409."""
    action = roll(hero, player_a, threshold=None)
    assert rolls.threshold_set(roll=action, master=master, threshold=50).base_threshold == 50
    again = Roll.objects.get(pk=action.pk)
    with pytest.raises(ServiceError) as refused:
        rolls.threshold_set(roll=again, master=master, threshold=60)
    assert refused.value.code == rolls.THRESHOLD_SET
    event = rolls.event_roll_create(
        campaign=hero.campaign, made_by=master, probability=None, character=hero
    )
    done = rolls.threshold_set(roll=event, master=master, threshold=100)
    assert (done.base_threshold, done.success) == (100, True)  # 100 % always succeeds (R1)
    expression = rolls.expression_roll_create(
        campaign=hero.campaign, made_by=player_a, expression="2d6+1", character=hero
    )
    with pytest.raises(ServiceError) as no_threshold:
        rolls.threshold_set(roll=expression, master=master, threshold=30)
    assert list(no_threshold.value.message_dict) == ["threshold"]
    with pytest.raises(ServiceError):
        rolls.threshold_set(roll=event, master=player_a, threshold=30)  # not the master


# --- concurrency (PostgreSQL: SQLite has no row locks and serialises writers) ------------------


@pytest.mark.parametrize("n", [2, 4])
@postgres_only
def test_concurrent_rolls_get_different_keys(campaign, player_a, n):
    hero = make_character(campaign, player_a, status="approved", points={"fuerza": 2})
    keys, errors = run_concurrently(lambda: roll(hero, player_a).generator_key, n)
    assert errors == []
    assert sorted(k[3] for k in keys) == list(range(n))
