"""Putting a service's refusal back on the form where the user is."""

from __future__ import annotations

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
