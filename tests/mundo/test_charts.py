"""The SVG line charts (mundo.charts): lines with equal values stay apart — each series has its
own point shape and dash, and the end labels never overlap (issue 15: hunger, thirst and days
without hygiene collapsed into one line on the diary chart)."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string

from mundo import charts


def test_labels_of_lines_ending_together_are_stacked_a_gap_apart():
    assert charts.spread_labels([100.0, 100.0, 100.0], 13.0, 12.0, 248.0) == [100.0, 113.0, 126.0]


def test_labels_far_apart_stay_at_their_lines_end():
    assert charts.spread_labels([40.0, 200.0, 120.0], 13.0, 12.0, 248.0) == [40.0, 200.0, 120.0]


def test_labels_pushed_below_the_plot_move_up_as_a_stack():
    assert charts.spread_labels([248.0, 248.0, 248.0], 13.0, 12.0, 248.0) == [222.0, 235.0, 248.0]


def test_equal_series_get_different_shapes_labels_and_dashes():
    chart = charts.line_chart(
        title="Diario de Lucía",
        description="x",
        xs=[1, 2, 3],
        series=[
            ("Hambre", "hunger", [0, 1, 2]),
            ("Sed", "thirst", [0, 1, 2]),
            ("Días sin higiene", "unhygienic", [0, 1, 2]),
        ],
    )
    assert [s.shape for s in chart.series] == ["circle", "square", "triangle"]
    ends = sorted(s.label_y for s in chart.series)
    assert ends[1] - ends[0] == pytest.approx(charts.LABEL_GAP)
    assert ends[2] - ends[1] == pytest.approx(charts.LABEL_GAP)
    # The right margin makes room for the longest name (16 characters × 7 units + 12).
    assert chart.right == 640 - (12 + 7 * 16)
    html = render_to_string("components/line_chart.html", {"chart": chart})
    assert html.count("<marker ") == 3
    assert 'marker-mid="url(#dot-diario-de-lucia-2)"' in html
    assert 'class="series thirst line-2"' in html
    assert html.count('class="end-label') == 3 and ">Días sin higiene</text>" in html
    assert '<rect x="1" y="1"' in html and '<path d="M5 0L10 9H0z"/>' in html
