"""The user types of every signature: a signed-in user or Django's anonymous user, and the
requests of pages (with django-htmx's details; for signed-in users only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest

if TYPE_CHECKING:
    from django_htmx.middleware import HtmxDetails

type AnyUser = User | AnonymousUser


class HtmxHttpRequest(HttpRequest):
    """A request that passed ``django_htmx.middleware.HtmxMiddleware`` (in MIDDLEWARE: every
    request of the site): ``htmx`` says whether htmx sent it, and from which element. A type
    only; the pattern django-htmx documents."""

    htmx: HtmxDetails


class AuthenticatedHttpRequest(HtmxHttpRequest):
    """The request of a view behind ``login_required`` (or another check that turns anonymous
    visitors away): its ``user`` is a signed-in ``User``. A type only; Django builds the request
    as usual. The pattern django-stubs documents for such views."""

    user: User
