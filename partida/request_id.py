"""A request id on every request and every log line written while serving it.

``RequestIdMiddleware`` takes the client's or proxy's ``X-Request-ID`` when it is well formed
(1–64 of ``A-Z a-z 0-9 . _ -``), otherwise makes one (32 hex digits); it is kept in a context
variable for the request's duration and echoed in the response's ``X-Request-ID``.
``RequestIdFilter`` (settings.LOGGING) puts it on each log record as ``request_id`` ("-"
outside a request).
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from django.http import HttpRequest, HttpResponse

HEADER = "X-Request-ID"
_VALID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_current: ContextVar[str] = ContextVar("partida_request_id", default="-")


def request_id_current() -> str:
    """The id of the request being served in this context, ``"-"`` outside one."""
    return _current.get()


def request_id_for(header: str | None) -> str:
    """The client's id when well formed, else a new one (32 lowercase hex digits)."""
    if header and _VALID.fullmatch(header):
        return header
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """Sets the request id (``request.request_id`` and the context variable) and echoes it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_for(request.headers.get(HEADER))
        request.request_id = request_id  # type: ignore[attr-defined]
        token = _current.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            _current.reset(token)
        response[HEADER] = request_id
        return response


class RequestIdFilter(logging.Filter):
    """Adds ``record.request_id`` (the current request's id, or ``"-"``); never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_current()
        return True
