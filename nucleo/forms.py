"""Putting a service's refusal back on the form where the user is; model choice fields whose
select lists only a window of their rows; a form renderer that keeps what it rendered."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from django import forms
from django.forms.models import ModelChoiceIteratorValue
from django.forms.renderers import DjangoTemplates
from django.utils.functional import Promise
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from nucleo.errors import ServiceError


def add_service_errors(
    form: forms.BaseForm, exc: ServiceError, field_for: dict[str, str] | None = None
) -> None:
    """Put a service's refusal back on the form, where the user is: each message next to its
    field when the form has one (``field_for`` maps a service key to a form field name, e.g. a
    trait slug to its input; a nested key ``roll.trait`` is the field ``roll_trait``), the rest
    on top of the form. Every app's views use this one."""
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc.messages)
        return
    for key, messages in exc.message_dict.items():
        # A nested key (``roll.trait``, a part of the request) is the flat field ``roll_trait``.
        field = (field_for or {}).get(key, key.replace(".", "_"))
        form.add_error(field if field in form.fields else None, messages)


def choice_field(form: forms.BaseForm, name: str) -> forms.ChoiceField:
    """The field ``name`` of ``form`` as the ``ChoiceField`` it is, to set its choices per
    form (``form.fields`` is typed by its base, ``Field``). Raises ``KeyError`` for no such
    field, ``TypeError`` for a field of another kind."""
    field = form.fields[name]
    if not isinstance(field, forms.ChoiceField):
        raise TypeError(f"{name} is a {type(field).__name__}, not a ChoiceField")
    return field


def model_choice_field(form: forms.BaseForm, name: str) -> forms.ModelChoiceField[Any]:
    """The field ``name`` of ``form`` as the ``ModelChoiceField`` (or multiple one) it is, to
    set its queryset per form. Raises ``KeyError`` for no such field, ``TypeError`` for a
    field of another kind."""
    field = form.fields[name]
    if not isinstance(field, forms.ModelChoiceField):
        raise TypeError(f"{name} is a {type(field).__name__}, not a ModelChoiceField")
    return field


def window_choices(field: forms.Field, window: Iterable[Any]) -> None:
    """Render only ``window`` (model instances, usually a short list already fetched and
    shared by several fields, or a queryset) as the choices of a model choice ``field``, while
    the field still validates against its whole ``queryset`` (one query for the chosen row).
    So a select or checkbox list costs what its window holds, not the campaign's size, and a
    value posted from elsewhere (a link's preset, another page of the window) is still
    accepted or refused with the field's own message. Raises ``TypeError`` for a field that
    is not a ``ModelChoiceField``."""
    if not isinstance(field, forms.ModelChoiceField):
        raise TypeError(f"{type(field).__name__} is not a model choice field")
    iterator = field.iterator(field)
    empty = [("", field.empty_label)] if field.empty_label is not None else []
    field.widget.choices = empty + [iterator.choice(row) for row in window]


F = TypeVar("F", bound=forms.BaseForm)


class FormsOnDemand(Mapping[str, F]):
    """A page's forms by name, each built the first time it is read (then kept): a page whose
    sections render on demand builds, and reads the choices of, only the forms it shows.
    ``builders`` maps each name to a function of no arguments that returns its form. Reading
    an unknown name raises ``KeyError`` (``get`` gives ``None``)."""

    def __init__(self, builders: dict[str, Callable[[], F]]) -> None:
        self._builders = builders
        self._built: dict[str, F] = {}

    def __getitem__(self, name: str) -> F:
        if name not in self._built:
            self._built[name] = self._builders[name]()
        return self._built[name]

    def __contains__(self, name: object) -> bool:
        return name in self._builders  # without building it

    def __iter__(self) -> Iterator[str]:
        return iter(self._builders)

    def __len__(self) -> int:
        return len(self._builders)


_LABEL_TEMPLATE = "django/forms/label.html"
_HIDDEN_TEMPLATE = "django/forms/widgets/hidden.html"
_EXACT = frozenset({str, SafeString, bool, int, float, type(None)})


class _Unkeyable(Exception):
    """A value ``_shape`` cannot vouch for: the piece is rendered, not kept."""


def _shape(value: Any) -> Any:
    """``value`` as a hashable key of everything a widget or label template shows of it;
    raises ``_Unkeyable`` for a value it cannot vouch for. Each value keeps its class (a
    ``SafeString`` is not escaped, a ``str`` is; ``True`` prints otherwise than ``1``); a lazy
    string is the text it is now (the language is in the key too). Called for every option
    of every select: the common types are looked up first."""
    kind = type(value)
    if kind in _EXACT:
        return (kind, value)
    if kind is dict:
        return (dict, tuple([(key, _shape(item)) for key, item in value.items()]))
    if kind is list or kind is tuple:
        return (kind, tuple([_shape(item) for item in value]))
    if kind is ModelChoiceIteratorValue:
        # A choice's value: the templates print it (its ``value``), never its instance.
        return (kind, str(value))
    if isinstance(value, Promise | str):
        text = str(value)
        return (type(text), text)
    raise _Unkeyable(kind.__name__)


class MemoRenderer(DjangoTemplates):
    """Django's form renderer, keeping the HTML of the widgets and labels it renders, keyed on
    the template, the language and every value of the template's context (``_shape``): a
    form whose choices and values did not change since the last request renders none of its
    ~20 templates per select again. Anything else (a form's or field's own template, a value
    it cannot key) is rendered as Django does. At most ``SIZE`` pieces per process (then it
    starts over). Hidden inputs are rendered each time: one small template, whose value is
    often made anew for each request (a post form's idempotency key), which would fill the
    pieces with one each. The label template's ``field`` is left out of its key: Django's
    ``label.html`` never reads it (nothing overrides it here).

    The site's form renderer (``settings.FORM_RENDERER``: Django makes one a process): every
    form renders through it, the post form of a scene's last page (about a quarter of that
    page's render), the world page's selects and the admin's alike."""

    SIZE = 8192

    def __init__(self) -> None:
        super().__init__()
        self.kept: dict[Any, str] = {}

    def render(self, template_name: str, context: dict[str, Any], request: Any = None) -> str:
        key = self._key(template_name, context) if request is None else NotImplemented
        if key is NotImplemented:
            return super().render(template_name, context, request)
        html = self.kept.get(key)
        if html is None:
            html = super().render(template_name, context, request)
            if len(self.kept) >= self.SIZE:
                self.kept.clear()
            self.kept[key] = html
        return html

    @staticmethod
    def _key(template_name: str, context: dict[str, Any]) -> Any:
        if template_name == _HIDDEN_TEMPLATE:  # one small template, often a per-request key
            return NotImplemented
        if template_name == _LABEL_TEMPLATE:
            shown = {k: v for k, v in context.items() if k != "field"}
        elif set(context) == {"widget"}:
            shown = context
        else:
            return NotImplemented
        try:
            return (template_name, get_language(), _shape(shown))
        except _Unkeyable:
            return NotImplemented
