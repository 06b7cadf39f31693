"""The user types of every signature: a signed-in user or Django's anonymous user, and the
request of a page that only signed-in users reach."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest

type AnyUser = User | AnonymousUser


class AuthenticatedHttpRequest(HttpRequest):
    """The request of a view behind ``login_required`` (or another check that turns anonymous
    visitors away): its ``user`` is a signed-in ``User``. A type only; Django builds the request
    as usual. The pattern django-stubs documents for such views."""

    user: User
