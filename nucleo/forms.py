"""Putting a service's refusal back on the form where the user is."""

from __future__ import annotations

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
