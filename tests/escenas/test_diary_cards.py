"""The diary on a phone (issue 15 item 8): stacked day cards, each with its day as a heading,
saying everything its table row says; the stylesheet shows the cards below 40rem and the table
above, and prints the table."""

from __future__ import annotations

from pathlib import Path

from escenas import diary, scenes
from personajes.models import DiaryEntry
from tests.escenas.conftest import client_for
from tests.escenas.factories import diary_entry
from tests.html_tree import parse

CSS = Path(__file__).resolve().parents[2] / "static" / "css" / "partida.css"


def test_each_day_card_has_its_day_as_heading_and_every_value_of_its_row(char_a, player_a):
    for day in (5, 6, 7):
        entries = [diary_entry(char_a, day, hunger_days=day - 4, penalty_total=10 * (day - 4))]
        DiaryEntry.objects.bulk_create(entries)
        diary.diary_posts_create(entries=list(DiaryEntry.objects.filter(day=day)))
    scene = scenes.diary_scene_for(char_a)
    tree = parse(client_for(player_a).get(scene.get_absolute_url()).content.decode())
    (table,) = tree.find_all("table", "diary-table")
    headers = [th.text() for th in table.find_all("thead")[0].find_all("th")]
    rows = table.find_all("tbody")[0].find_all("tr")
    cards = tree.find_all("li", "diary-card")
    assert len(cards) == len(rows) == 3
    for card, row in zip(cards, rows, strict=True):
        (heading,) = card.find_all("h3")
        day_cell = row.find_all("th")[0].text()
        assert heading.text() == f"Día {day_cell}"  # "Día 5 3 Nov": the day and its date
        labels = [dt.text() for dt in card.find_all("dt")]
        values = [dd.text() for dd in card.find_all("dd")]
        cells = [td.text() for td in row.find_all("td")]
        assert values == cells  # nothing of the row is missing from its card
        # Each label is the column's header, spelled out where the header is an abbreviation.
        assert labels[:5] == headers[1:6] and labels[6:] == headers[7:]
        assert labels[5] == "Hambre, sed, fatiga, sin higiene (días)"
    assert [c.find_all("h3")[0].text().split()[1] for c in cards] == ["5", "6", "7"]


def test_the_stylesheet_shows_cards_on_a_phone_and_the_table_wider_and_on_paper():
    css = CSS.read_text()
    assert ".diary-wide { display: none; }" in css
    (wide,) = [line for line in css.splitlines() if line.startswith("@media (min-width: 40.0625")]
    assert ".diary-cards { display: none; }" in wide and ".diary-wide { display: block; }" in wide
    printed = css[css.index("@media print") :]
    assert ".diary-cards { display: none !important; }" in printed


def test_the_record_is_rendered_once_and_rendered_again_when_a_row_changes(
    char_a, player_a, settings
):
    # The record (cards and table) was two thirds of a diary page's render; it is kept under
    # every value it shows, so a changed row (the admin's edit, here) is a new render. The
    # whole page is not kept here, so every request renders it and reaches the record.
    from unittest import mock

    from django.template import loader

    from escenas import diary_page

    DiaryEntry.objects.bulk_create([diary_entry(char_a, 5, kcal_eaten=1234)])
    url = scenes.diary_scene_for(char_a).get_absolute_url()
    client = client_for(player_a)
    settings.ESCENAS_VIEWER_PAGES = False
    record = diary_page.DIARY_RECORD_TEMPLATE
    real = loader.render_to_string
    with mock.patch.object(diary_page, "render_to_string", wraps=real) as rendered:
        first = client.get(url).content.decode()
        second = client.get(url).content.decode()
        records = [c for c in rendered.call_args_list if c.args[0] == record]
        assert len(records) == 1  # the second page read the kept record
        assert "1234 /" in first and "1234 /" in second
        DiaryEntry.objects.filter(character=char_a, day=5).update(kcal_eaten=987)
        third = client.get(url).content.decode()
        records = [c for c in rendered.call_args_list if c.args[0] == record]
        assert len(records) == 2
    assert "987 /" in third and "1234 /" not in third


def test_the_diary_chart_is_kept_with_the_record(char_a, player_a, settings):
    """From two days on, the chart is kept beside the record: a re-read renders neither, and
    a changed row renders both again, the chart with the new value."""
    from unittest import mock

    from django.template import loader

    from escenas import diary_page

    DiaryEntry.objects.bulk_create(
        [diary_entry(char_a, 5, hunger_days=1), diary_entry(char_a, 6, hunger_days=2)]
    )
    url = scenes.diary_scene_for(char_a).get_absolute_url()
    client = client_for(player_a)
    settings.ESCENAS_VIEWER_PAGES = False
    real = loader.render_to_string
    chart = diary_page.DIARY_CHART_TEMPLATE
    with mock.patch.object(diary_page, "render_to_string", wraps=real) as rendered:
        first = client.get(url).content.decode()
        second = client.get(url).content.decode()
        charts = [c for c in rendered.call_args_list if c.args[0] == chart]
        assert len(charts) == 1
        assert first.count('<figure class="chart">') == second.count('<figure class="chart">') == 1
        assert f"Contadores y penalización de {char_a.name}" in second
        DiaryEntry.objects.filter(character=char_a, day=6).update(hunger_days=3)
        client.get(url)
        charts = [c for c in rendered.call_args_list if c.args[0] == chart]
        assert len(charts) == 2
    hunger = charts[1].args[1]["chart"].series[0]
    assert [p.value for p in hunger.points] == [1, 3]
