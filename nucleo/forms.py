"""Putting a service's refusal back on the form where the user is."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms

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
