"""URLs of many rows with one ``reverse``: a list page links every row to the same view, and
``reverse`` per row was a large part of its render (issue 14)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import reverse

_SAMPLE = "987654321987654321"
"""Stands for the varying argument: 18 digits (an ``<id:…>`` converter's most), and a valid
slug too; the URL's other arguments never end with it (``url_maker`` checks)."""


def url_maker(name: str, arg: str, **fixed: Any) -> Callable[[Any], str]:
    """``value → reverse(name, kwargs={**fixed, arg: value})`` with one ``reverse`` in all:
    the URL is reversed once with a sample in ``arg``'s place and each value is put there.
    ``arg`` must be the URL's last argument (the sample is found from the right, so an
    earlier argument equal to it cannot be taken for it). Raises ``NoReverseMatch`` as
    ``reverse`` does, ``ValueError`` when the sample is not in the URL (a converter changed
    it). Values are put in as ``str(value)``: pass what the converter accepts (an int id, a
    slug), as for ``reverse``."""
    url = reverse(name, kwargs={**fixed, arg: _SAMPLE})
    head, found, tail = url.rpartition(_SAMPLE)
    if not found:
        raise ValueError(f"{name}: the sample argument is not in its URL {url!r}")
    return lambda value: f"{head}{value}{tail}"
