"""The user type of every signature: a signed-in user or Django's anonymous user."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User

type AnyUser = User | AnonymousUser
