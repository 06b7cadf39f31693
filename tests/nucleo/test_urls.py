"""``nucleo.urls.url_maker``: the URLs ``reverse`` gives, with one ``reverse`` in all."""

from __future__ import annotations

from unittest import mock

import pytest
from django.urls import reverse

from nucleo import urls
from nucleo.urls import url_maker


@pytest.mark.parametrize("pk", [1, 42, 987654321987654321])
def test_an_id_argument_gives_reverses_url(pk):
    assert url_maker("personajes:character", "pk")(pk) == reverse(
        "personajes:character", kwargs={"pk": pk}
    )


@pytest.mark.parametrize("campaign", ["la-villa", "987654321987654321"])
def test_the_last_argument_is_replaced_even_when_an_earlier_one_equals_the_sample(campaign):
    make = url_maker("mundo:settlement", "settlement", slug=campaign)
    for settlement in ("pueblo", "987654321987654321", "a1"):
        expected = reverse("mundo:settlement", kwargs={"slug": campaign, "settlement": settlement})
        assert make(settlement) == expected


def test_it_reverses_once_for_all_rows():
    with mock.patch.object(urls, "reverse", wraps=reverse) as counted:
        make = url_maker("personajes:character", "pk")
        made = [make(pk) for pk in range(1, 51)]
    assert counted.call_count == 1
    assert made[49] == reverse("personajes:character", kwargs={"pk": 50})


def test_a_url_without_the_sample_is_refused():
    with (
        mock.patch.object(urls, "reverse", return_value="/fijo/"),
        pytest.raises(ValueError, match="sample argument is not in its URL"),
    ):
        url_maker("personajes:character", "pk")
