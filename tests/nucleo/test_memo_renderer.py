"""The memo form renderer (nucleo.forms.MemoRenderer): the same HTML as Django's renderer,
rendered once per distinct widget or label, and rendered again when anything it shows
changes (a choice, a value, the escaping, the language)."""

import re

from django import forms
from django.forms.renderers import DjangoTemplates, get_default_renderer
from django.test import override_settings
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


def _post_form(html):
    """The post form's section of a scene page, without what each request makes anew (the
    CSRF token, the idempotency key)."""
    section = html[html.index('<section id="post-form"') :]
    section = section[: section.index("</section>")]
    section = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "csrf", section)
    return re.sub(r'name="idempotency_key"[^>]*>', "key", section)


@override_settings(ESCENAS_VIEWER_PAGES=False)  # each request renders its page
def test_every_form_renders_through_it(client, campaign, master, player_a):
    """The site's renderer (``FORM_RENDERER``): a scene's post form, rendered twice, keeps
    its pieces once, and the page is what Django's own renderer gives."""
    from escenas import scenes
    from personajes.models import Character
    from tests.factories import CharacterFactory

    memo = get_default_renderer()
    assert isinstance(memo, MemoRenderer)
    pc = CharacterFactory(campaign=campaign, player=player_a, status=Character.Status.APPROVED)
    scene = scenes.scene_create(campaign=campaign, master=master, title="Escena", participants=[pc])
    client.force_login(player_a)
    memo.kept.clear()
    first = client.get(scene.get_absolute_url()).content.decode()
    kept = len(memo.kept)
    assert kept > 10 and 'name="body"' in first  # the post form's widgets and labels
    again = client.get(scene.get_absolute_url()).content.decode()
    assert len(memo.kept) == kept
    with override_settings(FORM_RENDERER="django.forms.renderers.DjangoTemplates"):
        assert not isinstance(get_default_renderer(), MemoRenderer)
        plain = client.get(scene.get_absolute_url()).content.decode()
    assert _post_form(plain) == _post_form(again)
    assert _post_form(again).count("<select") >= 1
