"""nucleo.forms.FormsOnDemand: a page's forms by name, each built when first read, once."""

import pytest
from django import forms

from nucleo.forms import FormsOnDemand


def test_each_form_is_built_when_first_read_and_once():
    built: list[str] = []

    def builder(name: str):
        def build() -> forms.Form:
            built.append(name)
            return forms.Form(prefix=name)

        return build

    on_demand = FormsOnDemand({name: builder(name) for name in ("move", "give", "tally")})
    assert len(on_demand) == 3 and list(on_demand) == ["move", "give", "tally"]
    assert "give" in on_demand and "nada" not in on_demand
    assert built == []  # neither counting, listing nor asking whether one is there builds it
    give = on_demand["give"]
    assert give.prefix == "give" and on_demand["give"] is give
    assert on_demand.get("nada") is None
    assert built == ["give"]
    with pytest.raises(KeyError):
        on_demand["nada"]
