"""The daily diary posts: one narrator post per character and closed day in its diary scene,
with the R25 table in words, written after the tick commits.

Source: RULES.md R24 step 6–7, R25.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from escenas.models import (
    Post,
    Scene,
    scene_last_posts,
)
from escenas.rendering import render_markdown
from escenas.scenes import diary_title
from escenas.tasks import notify_posts
from mundo.world_texts import sky_name
from nucleo import readers
from nucleo.rules_labels import line_label
from personajes.models import Character

DIARY_KEY = "diario:{day}"
"""Idempotency key of the tick's diary post of a day (one per diary scene and day)."""

# --- The daily diary ------------------------------------------------------------------------------


def _num(value: Any, digits: int = 1) -> str:
    """A number with a Spanish decimal comma and no trailing ``,0``."""
    if value is None:
        return "—"
    text = f"{float(value):.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.replace(".", ",")


def diary_entry_markdown(entry: Any) -> str:
    """A short Markdown summary (Spanish by default) of one R25 diary row.

    Source: RULES.md R25 (day, date, weather, needs, hygiene, counters, dirt, disease,
    infection, penalty with breakdown, disease roll, status).
    """
    lines = [
        _("**Day %(day)s** (%(date)s) · %(weather)s, minimum %(temp)s °C")
        % {
            "day": entry.day,
            "date": entry.date.strftime("%d/%m/%Y") if entry.date else "—",
            "weather": sky_name(entry.weather_label) or "—",
            "temp": _num(entry.min_temp_c),
        },
        "",
        _(
            "- Food: %(kcal)s / %(kcal_needed)s kcal · water: %(water)s / %(water_needed)s L · "
            "sleep: %(sleep)s / %(sleep_needed)s h · hygiene: %(hygiene)s"
        )
        % {
            "kcal": _num(entry.kcal_eaten, 0),
            "kcal_needed": _num(entry.kcal_needed, 0),
            "water": _num(entry.water_l),
            "water_needed": _num(entry.water_needed_l),
            "sleep": _num(entry.sleep_h),
            "sleep_needed": _num(entry.sleep_needed_h),
            "hygiene": _("yes") if entry.hygiene_ok else _("no"),
        },
        _(
            "- Days of hunger %(hunger)s · thirst %(thirst)s · fatigue %(fatigue)s · "
            "without hygiene %(unhygienic)s"
        )
        % {
            "hunger": entry.hunger_days,
            "thirst": entry.thirst_days,
            "fatigue": entry.fatigue_days,
            "unhygienic": entry.unhygienic_days,
        },
    ]
    if entry.dirty:
        lines.append(_("- Dirty") + (_(" (extra dirt)") if entry.extra_dirt else ""))
    if entry.disease_day:
        lines.append(
            _("- Disease: day %(x)s of %(y)s")
            % {"x": entry.disease_day, "y": entry.disease_duration}
        )
    if entry.infection_day:
        lines.append(
            _("- Infection: day %(x)s of %(y)s")
            % {"x": entry.infection_day, "y": entry.infection_duration}
        )
    breakdown = ", ".join(
        f"{line_label(item)} {int(item.get('points', 0))}"
        for item in (entry.penalty_breakdown or [])
    )
    lines.append(
        _("- Action penalty: %(points)s") % {"points": entry.penalty_total}
        + (f" ({breakdown})" if breakdown else "")
    )
    if entry.disease_p is not None and entry.disease_die is not None:
        lines.append(
            _("- Disease roll: d100 = %(die)s against %(p)s %% → %(result)s")
            % {
                "die": entry.disease_die,
                "p": entry.disease_p,
                "result": _("falls ill") if entry.fell_ill else _("stays healthy"),
            }
        )
    status_labels = {
        "alive": _("alive"),
        "sick": _("sick"),
        "infected": _("infected"),
        "dead": _("dead"),
        "risen": _("risen as a zombie"),
    }
    status = status_labels.get(entry.status, entry.status)
    if entry.death_cause:
        status += f" ({entry.death_cause_label})"
    lines.append(_("- Status: %(status)s") % {"status": status})
    return "\n".join(lines) + "\n"


def _diary_scenes_found(character_ids: list[int]) -> dict[int, Scene]:
    """The diary scenes that exist of these characters, keyed by character id (one query)."""
    return {
        s.diary_character_id: s
        for s in Scene.objects.filter(kind=Scene.Kind.DIARY, diary_character_id__in=character_ids)
        if s.diary_character_id is not None  # always: the filter asks for these ids
    }


def _diary_scenes(character_ids: list[int]) -> dict[int, Scene]:
    """The diary scene of each character, keyed by character id; the missing ones are made
    (``ignore_conflicts``: a concurrent run may make them first). 2 queries, 4 with missing."""
    characters = {
        c.pk: c for c in Character.objects.filter(pk__in=character_ids).select_related("campaign")
    }
    scenes = _diary_scenes_found(character_ids)
    missing = [characters[cid] for cid in character_ids if cid not in scenes]
    if missing:
        Scene.objects.bulk_create(
            [
                Scene(
                    campaign_id=c.campaign_id,
                    kind=Scene.Kind.DIARY,
                    title=diary_title(c)[:120],
                    diary_character=c,
                )
                for c in missing
            ],
            ignore_conflicts=True,
        )
        scenes = _diary_scenes_found(character_ids)
    return scenes


def diary_posts_create(*, entries: Sequence[Any]) -> list[Post]:
    """One narrator post per diary entry in that character's diary scene (R25), in a constant
    number of queries whatever the number of entries; puts their e-mails in the outbox in the
    same transaction (delivered after the commit).

    ``entries``: ``personajes.DiaryEntry`` objects of one campaign and day. A diary scene is
    created for a character that has none. Running twice for the same day adds nothing (the
    posts are keyed ``diario:<day>`` per diary scene). Returns the posts created now.
    Each post is written in its character's player's language (``nucleo.readers``; dates in
    the site's zone): the diary is theirs, whoever advanced the day. Queries: characters (1),
    scenes (1), missing scenes (0–2), existing keys (1), the players' languages (1), insert
    (1), scene times and newest post ids (1, ``scene_last_posts``).
    Source: RULES.md R24 step 6–7, R25.
    """
    entries = list(entries)
    if not entries:
        return []
    scenes = _diary_scenes([e.character_id for e in entries])
    keys = {(scenes[e.character_id].pk, DIARY_KEY.format(day=e.day)) for e in entries}
    taken = set(
        Post.objects.filter(
            Q(scene_id__in=[s for s, _k in keys]), Q(idempotency_key__in=[k for _s, k in keys])
        ).values_list("scene_id", "idempotency_key")
    )
    now = timezone.now()
    owners = {  # each character's player's language (none: the site's)
        pk: readers.Reader(language=language or "")
        for pk, language in Character.objects.filter(
            pk__in={e.character_id for e in entries}
        ).values_list("pk", "player__reader_settings__language")
    }
    new_posts = []
    for entry in entries:
        scene = scenes[entry.character_id]
        key = DIARY_KEY.format(day=entry.day)
        if (scene.pk, key) in taken:
            continue
        taken.add((scene.pk, key))
        with readers.as_reader(owners.get(entry.character_id, readers.DEFAULT)):
            body, speaker = diary_entry_markdown(entry), _("Diary")
        new_posts.append(
            Post(
                campaign_id=scene.campaign_id,
                scene=scene,
                author=None,
                voice=Post.Voice.NARRATOR,
                speaker_name=speaker,
                by_master=False,
                body=body,
                body_html=render_markdown(body),
                day=entry.day,
                idempotency_key=key,
                created_at=now,
                updated_at=now,
            )
        )
    if not new_posts:
        return []
    with transaction.atomic():
        created = Post.objects.bulk_create(new_posts)
        Scene.objects.filter(pk__in={p.scene_id for p in created}).update(
            last_post_at=now, **scene_last_posts()
        )
        if all(p.pk for p in created):
            notify_posts([p.pk for p in created])
        else:  # a back end that does not return ids from a bulk insert
            notify_posts(
                Post.objects.filter(
                    scene_id__in={p.scene_id for p in created},
                    idempotency_key__in={p.idempotency_key for p in created},
                ).values_list("pk", flat=True)
            )
    return created
