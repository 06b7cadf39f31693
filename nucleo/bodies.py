"""Request bodies: the API's JSON parser with a size and a nesting limit, and the flag of a form
body over the size limit (set by ``partida.middleware.RequestSizeMiddleware``).

The parser is DRF's ``JSONParser`` plus:

- a body over ``settings.DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (2.5 MB by default) is a 413
  ``{"detail": …, "non_field_errors": [...]}`` (read at most one byte past the limit);
- JSON nested deeper than ``settings.API_JSON_MAX_DEPTH`` (default 32) is a 400 with the message
  under the top-level field that holds it (``non_field_errors`` when the decoder itself gave up:
  ``[[[[…`` 100 000 deep used to be a ``RecursionError``, a 500);
- anything else as DRF's ``JSONParser`` (strict: no ``NaN``/``Infinity``).

A form body over the limit, on a view marked ``keeps_text_when_too_big``: ``body_too_big(request)``
is True and ``request.POST`` holds what fit; the view re-renders its form with that text and
``too_large_form_message()``, and acts on nothing. Other views answer a 413 page.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import JSONParser
from rest_framework.settings import api_settings
from rest_framework.utils import json

DEFAULT_MAX_DEPTH = 32
_CONTAINERS = (list, dict)
TOO_BIG_ATTRIBUTE = "body_too_big"
"""The request attribute set (True) on a form request whose body was over the limit."""


KEEPS_TEXT_ATTRIBUTE = "keeps_text_when_too_big"


def keeps_text_when_too_big[F](view: F) -> F:
    """Mark a form view that handles a body over the limit itself: it gets what fit in
    ``request.POST`` with ``body_too_big(request)`` True, and re-renders its form with that text
    and ``too_large_form_message()``, acting on nothing. Any other view gets a 413 page."""
    setattr(view, KEEPS_TEXT_ATTRIBUTE, True)
    return view


def body_too_big(request: Any) -> bool:
    """Whether ``request``'s form body was over the limit (only its first part was read)."""
    return bool(getattr(request, TOO_BIG_ATTRIBUTE, False))


class PayloadTooLarge(APIException):
    """413: the request body is over the size limit."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"


def _limit_mb() -> str:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0
    return f"{limit / 1_000_000:.1f}".rstrip("0").rstrip(".")


def too_large_message() -> str:
    """The API's 413 message, with the limit in MB (``DATA_UPLOAD_MAX_MEMORY_SIZE``)."""
    return str(_("The request is too large (at most %(mb)s MB).")) % {"mb": _limit_mb()}


def too_large_form_message() -> str:
    """The message of a form whose body was over the limit (MB)."""
    return str(
        _(
            "What you sent is too large (at most %(mb)s MB) and nothing was saved; the text "
            "that fit is kept below: shorten it and send it again."
        )
    ) % {"mb": _limit_mb()}


def too_large_body() -> dict[str, Any]:
    """The API's 413 body: ``detail`` and ``non_field_errors`` say the same."""
    message = too_large_message()
    return {"detail": message, "non_field_errors": [message]}


def depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` (parsed JSON: only ``list`` and ``dict`` nest) nests deeper than
    ``limit``. Level by level, iterative; only containers are kept for the next level."""
    level = [value] if type(value) in _CONTAINERS else []
    depth = 1
    while level:
        if depth > limit:
            return True
        below: list[Any] = []
        for item in level:
            children = item.values() if type(item) is dict else item
            below += [c for c in children if type(c) in _CONTAINERS]
        level, depth = below, depth + 1
    return False


def _depth_error(limit: int, field: str = api_settings.NON_FIELD_ERRORS_KEY) -> ParseError:
    message = str(_("The JSON is nested too deeply (at most %(n)s levels).")) % {"n": limit}
    return ParseError({field: [message]})


class BoundedJSONParser(JSONParser):
    """``JSONParser`` with the size and depth limits above (the project's only parser)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        max_depth = int(getattr(settings, "API_JSON_MAX_DEPTH", DEFAULT_MAX_DEPTH))
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise PayloadTooLarge(too_large_body())
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = raw.decode(encoding)
            parse_constant = json.strict_constant if self.strict else None
            data = json.loads(text, parse_constant=parse_constant)
        except RecursionError:
            raise _depth_error(max_depth) from None
        except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError included
            raise ParseError(f"JSON parse error - {exc}") from None
        # Brackets counted in C bound the depth from above: most bodies skip the walk.
        if raw.count(b"[") + raw.count(b"{") > max_depth and depth_over(data, max_depth):
            if isinstance(data, dict):
                deep = next(k for k, v in data.items() if depth_over(v, max_depth - 1))
                raise _depth_error(max_depth, str(deep))
            raise _depth_error(max_depth)
        return data
