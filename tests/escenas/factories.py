"""Factories and helpers for the scene tests (the shared ones live in tests/factories.py)."""

from __future__ import annotations

import uuid

import factory

from escenas.models import Post, Scene, scene_last_posts
from escenas.rendering import render_markdown
from tests.factories import CampaignFactory


class SceneFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Scene
        skip_postgeneration_save = True

    campaign = factory.SubFactory(CampaignFactory)
    kind = Scene.Kind.STORY
    title = factory.Sequence(lambda n: f"Escena {n}")
    readers = Scene.Readers.MEMBERS

    @factory.post_generation
    def participants(obj, create, extracted, **kwargs):
        if create and extracted:
            obj.participants.set(extracted)


class PostFactory(factory.django.DjangoModelFactory):
    """A post written straight to the table (no rolls, no permission check): for lists and
    query counts. Tests of behaviour go through ``services.post_create``. Its scene's stored
    newest posts (``Scene.last_post_id``, ``last_public_post_id``) are set as the services
    set them, so the scene list orders and previews it."""

    class Meta:
        model = Post
        skip_postgeneration_save = True

    scene = factory.SubFactory(SceneFactory)
    campaign = factory.SelfAttribute("scene.campaign")
    voice = Post.Voice.PLAYER
    speaker_name = factory.LazyAttribute(lambda p: p.author.get_username() if p.author else "—")
    body = factory.Sequence(lambda n: f"Mensaje número {n}.")
    body_html = factory.LazyAttribute(lambda p: render_markdown(p.body))
    idempotency_key = factory.LazyFunction(lambda: uuid.uuid4().hex)
    day = 7

    @factory.post_generation
    def stored_last_posts(obj, create, extracted, **kwargs):
        if create:
            Scene.objects.filter(pk=obj.scene_id).update(**scene_last_posts(exact=True))


def new_key() -> str:
    return uuid.uuid4().hex


def diary_entry(character, day: int, **overrides):
    """An unsaved ``personajes.DiaryEntry`` with plausible R25 values (override any field)."""
    import datetime

    from personajes.models import DiaryEntry

    values = dict(
        character=character,
        day=day,
        date=datetime.date(2026, 11, 1) + datetime.timedelta(days=day),
        weather_label="Lluvia",
        min_temp_c=4.5,
        kcal_eaten=1500.0,
        kcal_needed=2000.0,
        water_l=1.5,
        water_needed_l=2.0,
        sleep_h=6.0,
        sleep_needed_h=6.0,
        hygiene_ok=False,
        hunger_days=1,
        thirst_days=1,
        fatigue_days=0,
        unhygienic_days=2,
        dirty=True,
        extra_dirt=False,
        disease_day=0,
        disease_duration=0,
        infection_day=0,
        infection_duration=0,
        penalty_total=20,
        penalty_breakdown=[
            {"source": "hunger", "label": "Hambre (1 día)", "points": 10},
            {"source": "thirst", "label": "Sed (1 día)", "points": 10},
        ],
        disease_p=12,
        disease_breakdown=[],
        disease_die=57,
        fell_ill=False,
        status="alive",
        death_cause="",
    )
    values.update(overrides)
    return DiaryEntry(**values)
