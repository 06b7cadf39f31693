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


def many_data(serializer: serializers.BaseSerializer[Any]) -> list[dict[str, Any]]:
    """The rows of a serializer built with ``many=True``: DRF makes it a ``ListSerializer``,
    whose ``data`` is a list with one dict per row (djangorestframework-stubs types it as the
    one-row ``ReturnDict`` of the class asked for). Raises ``TypeError`` for a one-row
    serializer, which has no list of rows."""
    if not isinstance(serializer, serializers.ListSerializer):
        raise TypeError(f"{type(serializer).__name__} was not built with many=True")
    return serializer.data
