"""Both languages complete (issue 15 item 7): the main pages of the demo, rendered in Spanish
and in English, show no word of the other language.

How a leak is told from a good page, without a hand-made word list that goes stale:

- the **English-only words** are the words of the English msgids (ours, Django's and
  allauth's catalogues) that no Spanish msgstr uses; the **Spanish-only words** the words of
  the Spanish msgstrs that no msgid uses. A word both languages share ("total", "Partida",
  "API") is in neither, so it can never be a false alarm;
- the **data words** are the words of every text value stored in the database (names, titles,
  posts, reasons, the tick's stored texts: what users and the game wrote, shown as written),
  except the fields with choices, which are keys the pages translate; the strings and keys of
  the rule tables (stored JSON and ``reglas/data/*.json``, which the master edits as written);
  and the IANA time zone names of the profile's list;
- a page in Spanish leaks when one of its visible words (text nodes outside script and style,
  and the ``title``, ``aria-label``, ``placeholder`` and ``alt`` attributes; ``<code>`` holds
  identifiers, not words; split into words of
  three letters or more, case folded) is English-only and not a data word; the reverse for a
  page in English.

A failure names the page, the words and the text node they were found in.
"""

from __future__ import annotations

import gettext
import json
import re
from functools import cache
from io import StringIO
from pathlib import Path

import django
import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import models
from django.test import Client
from django.urls import reverse

from escenas.models import Scene
from mundo.models import Campaign
from nucleo import readers
from personajes.models import Character
from tests.html_tree import INVISIBLE, Element, parse
from tests.world_page import opened

ROOT = Path(__file__).resolve().parents[2]
WORD = re.compile(r"[^\W\d_]{3,}")
ATTRIBUTES = ("title", "aria-label", "placeholder", "alt")


def _catalogues() -> list[Path]:
    import allauth

    roots = [ROOT / "locale", Path(django.__file__).parent / "conf" / "locale"]
    roots += [
        Path(django.__file__).parent / "contrib" / app / "locale" for app in ("auth", "admin")
    ]
    roots.append(Path(allauth.__file__).parent / "locale")
    return [r / "es" / "LC_MESSAGES" / "django.mo" for r in roots if (r / "es").exists()]


def words(text: str) -> set[str]:
    # Placeholders (%(name)s, {{ name }}) are not words of either language.
    text = re.sub(r"%\(\w+\)[sd]|\{\{[^}]*\}\}|\{\w*\}", " ", text)
    return {w.casefold() for w in WORD.findall(text)}


@cache
def language_words() -> tuple[frozenset[str], frozenset[str]]:
    """(English-only words, Spanish-only words) of the catalogues (see the module docstring)."""
    english: set[str] = set()
    spanish: set[str] = set()
    for path in _catalogues():
        with path.open("rb") as mo:
            catalogue = gettext.GNUTranslations(mo)._catalog  # type: ignore[attr-defined]
        for key, msgstr in catalogue.items():
            msgid = key[0] if isinstance(key, tuple) else key
            if not msgid or not msgstr:
                continue  # the header
            english |= words(msgid.rpartition("\x04")[2])  # without its context
            spanish |= words(msgstr)
    return frozenset(english - spanish), frozenset(spanish - english)


def _json_words(value: object) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(words(str(k)) | _json_words(v) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(_json_words(v) for v in value))
    return words(value) if isinstance(value, str) else set()


def data_words() -> set[str]:
    """The words of every stored text value (fields with choices left out: those are keys), of
    the rule tables and of the time zone names."""
    found: set[str] = set()
    for table in (ROOT / "reglas" / "data").glob("*.json"):
        found |= _json_words(json.loads(table.read_text(encoding="utf-8")))
    for zone in readers.time_zone_names():
        found |= words(zone.replace("_", " "))
    for model in apps.get_models():
        json_fields = [
            f.name for f in model._meta.concrete_fields if isinstance(f, models.JSONField)
        ]
        for name in json_fields:
            for value in model.objects.values_list(name, flat=True):
                found |= _json_words(value)
        fields = [
            f.name
            for f in model._meta.concrete_fields
            if isinstance(f, models.CharField | models.TextField) and not f.choices
        ]
        if not fields:
            continue
        for row in model.objects.values_list(*fields):
            for value in row:
                if value:
                    found |= words(str(value))
    return found


def visible_texts(tree: Element) -> list[str]:
    """Every text node a reader sees or hears, and the attributes read aloud."""
    out: list[str] = []

    def walk(node: Element) -> None:
        if node.tag in INVISIBLE or node.tag == "code" or "hidden" in node.attrs:
            return
        out.extend(node.attrs[a] for a in ATTRIBUTES if node.attrs.get(a))
        for child in node.children:
            if isinstance(child, str):
                if child.strip():
                    out.append(child)
            else:
                walk(child)

    for child in tree.children:
        if isinstance(child, Element):
            walk(child)
    return out


def leaks(html: str, foreign: frozenset[str], data: set[str]) -> list[tuple[str, str]]:
    """The foreign (word, text node) pairs of a page."""
    found = []
    for text in visible_texts(parse(html)):
        for word in sorted(words(text) & foreign - data):
            found.append((word, " ".join(text.split())[:120]))
    return found


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker):
    """The demo, loaded once for the module (its rows are removed at the end)."""
    with django_db_blocker.unblock():
        call_command("cargar_demo", stdout=StringIO())
        campaign = Campaign.objects.get(slug="valle-gris")
        ana = Character.objects.get(campaign=campaign, player__username="ana")
        story = Scene.objects.filter(campaign=campaign, kind=Scene.Kind.STORY).first()
        diary = Scene.objects.get(campaign=campaign, diary_character=ana)
        pages = {
            "campaign": ("ana", campaign.get_absolute_url()),
            "scene": ("ana", story.get_absolute_url() + "?page=1"),
            "scene_list": ("ana", reverse("escenas:scene_list", args=[campaign.slug])),
            "sheet": ("ana", ana.get_absolute_url()),
            "diary": ("ana", diary.get_absolute_url()),
            "rules": ("ana", reverse("mundo:rules_read", args=[campaign.slug])),
            "days": ("ana", reverse("mundo:days", args=[campaign.slug])),
            "profile": ("ana", reverse("profile")),
            "notifications": ("ana", reverse("escenas:notifications")),
            "world": ("master", reverse("mundo:world", args=[campaign.slug])),
            "master_scene": ("master", story.get_absolute_url() + "?page=1"),
        }
        yield pages, data_words()
        call_command("flush", interactive=False, verbosity=0)


PAGES = (
    "campaign",
    "scene",
    "scene_list",
    "sheet",
    "diary",
    "rules",
    "days",
    "profile",
    "notifications",
    "world",
    "master_scene",
)


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["es", "en"])
@pytest.mark.parametrize("page", PAGES)
def test_no_word_of_the_other_language(demo, page, language):
    pages, data = demo
    username, url = pages[page]
    client = Client()
    client.cookies["django_language"] = language
    assert client.login(username=username, password=f"partida-{username}")
    answer = client.get(url)
    assert answer.status_code == 200, url
    assert answer.headers["Content-Language"] == language
    english, spanish = language_words()
    foreign = english if language == "es" else spanish
    # The world page with its task sections opened (each fetched as htmx fetches it).
    html = opened(client, url) if page == "world" else answer.content.decode()
    found = leaks(html, foreign, data)
    assert found == [], f"{page} in {language}: {found}"


def test_the_detector_finds_a_leak_and_spares_shared_words_and_data():
    english, spanish = language_words()
    assert {"thirst", "sleep", "day"} <= english
    assert {"sed", "tiempo", "sueño"} <= spanish
    assert "total" not in english and "total" not in spanish
    html = (
        "<main><p>Hambre: 2 · thirst</p><p title='Ana Forastera'>Ana</p><script>day</script></main>"
    )
    assert leaks(html, english, set()) == [("thirst", "Hambre: 2 · thirst")]
    assert leaks(html, english, {"thirst"}) == []


def test_reglas_lines_are_worded_in_the_readers_language():
    """reglas gives each breakdown line's values apart from its Spanish words (``params``);
    the pages word them in the reader's language, with the plural the number takes. A line
    stored before it had them keeps its stored words."""
    from django.utils import translation

    from nucleo.rules_labels import line_label
    from reglas.characters import ConditionState, action_penalty
    from reglas.health.onset import DiseaseInputs, disease_probability

    _p, lines = disease_probability(
        DiseaseInputs(season="invierno", min_temp_c=-2, sick_housemates=1, unhygienic_days=1)
    )
    (penalty,) = action_penalty(ConditionState(hunger_days=2))
    with translation.override("en"):
        assert [line_label(m) for m in lines] == [
            "Season: winter",
            "Sick people in the shelter (1)",
            "Cold (minimum −2 °C: 2 degrees below zero)",
            "Without adequate hygiene (1 day)",
        ]
        assert line_label(penalty.as_dict()) == "Hunger (2 days)"
        old = {"source": "hunger", "label": "Hambre (3 días)", "points": 30}
        assert line_label(old) == "Hambre (3 días)"
        assert line_label({"source": "grabbed", "label": "agarrado", "points": 5}) == "agarrado"
    with translation.override("es"):
        assert [line_label(m) for m in lines] == [
            "Estación: invierno",
            "Enfermos en el refugio (1)",
            "Frío (mínima −2 °C: 2 grados bajo cero)",
            "Sin higiene adecuada (1 día)",
        ]
        assert line_label(penalty) == "Hambre (2 días)"
