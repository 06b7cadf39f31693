"""The base serializer of every app's API."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """A serializer that refuses keys it does not write: unknown keys get "Unknown field." and
    read-only ones (dice, outcomes, authors…) "This field is read-only.", each under its own
    name, with 400. Nested serializers of this class refuse theirs under the nested path.
    """

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            errors: dict[str, list[str]] = {}
            for key in data:
                field = self.fields.get(key)
                if field is None:
                    errors[str(key)] = [_("Unknown field.")]
                elif field.read_only:
                    errors[str(key)] = [_("This field is read-only.")]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)
