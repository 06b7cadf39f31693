"""URL converters shared by every app's URLs (registered when this module is imported)."""

from django.urls import register_converter


class IdConverter:
    """An id in a URL: 1 to 18 digits, so it always fits a 64-bit column.

    A longer number is a 404 from the URL resolver instead of an overflow error (a 500) in the
    database. Used as ``<id:pk>`` by pages and API alike.
    """

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
