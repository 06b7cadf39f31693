"""Server-rendered SVG line charts: coordinates computed here, drawn by a template.

Accessible by construction: the template gives the SVG a title and a description, and every
chart is shown beside a table with the same numbers. Lines with equal values stay apart: each
series has its own dash pattern and point shape (``SHAPES``), and its name is written at the end
of its line, the labels pushed apart so none covers another (``LABEL_GAP``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ChartPoint:
    x: float
    y: float
    label_x: str
    value: float


SHAPES = ("circle", "square", "triangle", "diamond", "cross")
"""The point shape of the 1st, 2nd… series (cycled); ``components/line_chart.html`` draws them."""

LABEL_GAP = 13.0
"""Least vertical distance between two lines' end labels (SVG user units, ≈ one text line)."""


@dataclass(frozen=True, slots=True)
class Series:
    """One line of a chart: its name, CSS class, points, the SVG ``points`` attribute, its
    point ``shape`` (one of ``SHAPES``) and where its end label goes (``label_y``)."""

    name: str
    css_class: str
    points: tuple[ChartPoint, ...]
    shape: str = "circle"
    label_y: float = 0.0

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)

    @property
    def end_x(self) -> float:
        """The x of the last point, where the end label starts (SVG user units)."""
        return self.points[-1].x if self.points else 0.0


def spread_labels(ys: Sequence[float], gap: float, low: float, high: float) -> list[float]:
    """Move end-label positions ``ys`` apart so any two are at least ``gap`` apart, each as near
    its own line's end as that allows, all within ``[low, high]`` (SVG y grows downwards).
    Returns the positions in the order given. Lines ending at the same value get stacked labels."""
    order = sorted(range(len(ys)), key=lambda i: (ys[i], i))
    placed: list[float] = []
    for i in order:
        y = max(ys[i], placed[-1] + gap) if placed else ys[i]
        placed.append(y)
    overflow = (placed[-1] - high) if placed else 0.0
    if overflow > 0:  # pushed below the plot: shift the stack up, never above ``low``
        placed = [max(low, y - overflow) for y in placed]
        for k in range(1, len(placed)):
            placed[k] = max(placed[k], placed[k - 1] + gap)
    out = [0.0] * len(ys)
    for rank, i in enumerate(order):
        out[i] = placed[rank]
    return out


@dataclass(frozen=True, slots=True)
class LineChart:
    """A chart ready for ``components/line_chart.html`` (sizes in SVG user units)."""

    title: str
    description: str
    width: int
    height: int
    left: int
    bottom: int
    top: int
    right: int
    y_max: float
    series: tuple[Series, ...]
    x_ticks: tuple[tuple[float, str], ...]
    y_ticks: tuple[tuple[float, str], ...]
    marker_x: float | None
    marker_label: str
    shaded_until_x: float | None

    @property
    def shaded_width(self) -> float:
        """Width of the shaded "already played" band, 0 when there is none."""
        return 0.0 if self.shaded_until_x is None else self.shaded_until_x - self.left

    @property
    def plot_height(self) -> int:
        return self.bottom - self.top


def _nice_max(value: float) -> float:
    """The smallest 1/2/5 × 10^n at or above ``value`` (and at least 1)."""
    if value <= 1:
        return 1.0
    magnitude = 10 ** (len(str(int(value))) - 1)
    for step in (1, 2, 5, 10):
        if step * magnitude >= value:
            return float(step * magnitude)
    return float(10 * magnitude)


def line_chart(
    *,
    title: str,
    description: str,
    xs: Sequence[int],
    series: Sequence[tuple[str, str, Sequence[float]]],
    marker: int | None = None,
    marker_label: str = "",
    shaded_until: int | None = None,
    width: int = 640,
    height: int = 280,
) -> LineChart:
    """Lay out a line chart of integer ``xs`` against one or more series of values ≥ 0.

    ``series`` holds ``(name, css_class, values)`` with ``len(values) == len(xs)``; ``marker``
    draws a vertical line at that x (e.g. today); ``shaded_until`` shades the days up to that x.
    Raises ValueError when lengths differ or ``xs`` is empty.
    """
    if not xs:
        raise ValueError("a chart needs at least one x value")
    for name, _css, values in series:
        if len(values) != len(xs):
            raise ValueError(f"series {name!r} has {len(values)} values for {len(xs)} x values")
    longest = max((len(name) for name, _css, _values in series), default=0)
    left, right, top, bottom = 48, 12 + 7 * min(longest, 18), 12, 32
    plot_w, plot_h = width - left - right, height - top - bottom
    x0, x1 = xs[0], xs[-1]
    span = max(1, x1 - x0)
    y_max = _nice_max(max((max(v) for _n, _c, v in series if len(v)), default=1.0))

    def sx(x: float) -> float:
        return left + plot_w * (x - x0) / span

    def sy(y: float) -> float:
        return top + plot_h * (1 - y / y_max)

    points = [
        tuple(ChartPoint(sx(x), sy(v), str(x), v) for x, v in zip(xs, values, strict=True))
        for _name, _css, values in series
    ]
    label_ys = spread_labels([p[-1].y for p in points], LABEL_GAP, top, height - bottom)
    built = tuple(
        Series(
            name=name,
            css_class=css,
            points=points[i],
            shape=SHAPES[i % len(SHAPES)],
            label_y=label_ys[i],
        )
        for i, (name, css, _values) in enumerate(series)
    )
    step = max(1, span // 6)
    x_ticks = tuple((sx(x), str(x)) for x in range(x0, x1 + 1, step))
    y_ticks = tuple((sy(y_max * i / 4), f"{y_max * i / 4:g}") for i in range(5))
    return LineChart(
        title=title,
        description=description,
        width=width,
        height=height,
        left=left,
        bottom=height - bottom,
        top=top,
        right=width - right,
        y_max=y_max,
        series=built,
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        marker_x=sx(marker) if marker is not None and x0 <= marker <= x1 else None,
        marker_label=marker_label,
        shaded_until_x=sx(min(shaded_until, x1)) if shaded_until is not None else None,
    )
