"""The memo form renderer (nucleo.forms.MemoRenderer): the same HTML as Django's renderer,
rendered once per distinct widget or label, and rendered again when anything it shows
changes (a choice, a value, the escaping, the language)."""

from django import forms
from django.forms.renderers import DjangoTemplates
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

from nucleo.forms import MemoRenderer


class _Form(forms.Form):
    kind = forms.ChoiceField(
        label=_("Kind"), choices=[("dwelling", _("dwelling")), ("shop", _("shop"))]
    )
    many = forms.MultipleChoiceField(
        choices=[("1", "uno"), ("2", "dos")], widget=forms.CheckboxSelectMultiple
    )
    amount = forms.IntegerField(initial=3, help_text="units")


def _html(renderer, **kwargs):
    form = _Form(renderer=renderer, **kwargs)
    return "".join(f"{f.label_tag()}{f}" for f in form)


def test_it_renders_what_django_renders_and_keeps_each_piece_once():
    memo = MemoRenderer()
    plain = DjangoTemplates()
    assert _html(memo) == _html(plain)
    kept = len(memo.kept)
    # 3 widgets and 3 labels.
    assert kept == 6
    assert _html(memo) == _html(plain)
    assert len(memo.kept) == kept
    bound = {"kind": "shop", "many": ["2"], "amount": "7"}
    assert _html(memo, data=bound) == _html(plain, data=bound)
    assert 'value="shop" selected' in _html(memo, data=bound)
    # The labels did not change, the widgets did.
    assert len(memo.kept) == kept + 3


def test_the_language_and_the_escaping_are_in_the_key():
    memo = MemoRenderer()
    with translation.override("es"):
        spanish = _html(memo)
    with translation.override("en"):
        english = _html(memo)
    assert ">vivienda<" in spanish and ">dwelling<" not in spanish
    assert ">dwelling<" in english
    form = _Form(renderer=memo)
    field = form["amount"]
    assert field.label_tag("<b>a</b>") == '<label for="id_amount">&lt;b&gt;a&lt;/b&gt;:</label>'
    assert field.label_tag(mark_safe("<b>a</b>")) == '<label for="id_amount"><b>a</b>:</label>'


def test_it_starts_over_when_full():
    memo = MemoRenderer()
    memo.SIZE = 4
    _html(memo)
    assert 0 < len(memo.kept) <= 4
