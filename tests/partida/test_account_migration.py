"""The accounts made before allauth keep signing in (partida/migrations/0002)."""

from __future__ import annotations

import importlib

from allauth.account.models import EmailAddress
from django.apps import apps
from django.contrib.auth import get_user_model

migration = importlib.import_module("partida.migrations.0002_existing_emails_verified")


def test_existing_emails_become_verified_addresses_the_oldest_wins_a_shared_one(db):
    users = get_user_model().objects
    ana = users.create_user("ana", "ana@example.com", "x")
    copia = users.create_user("copia", "ANA@example.com", "x")  # same address, later
    sin = users.create_user("sin", "", "x")
    ya = users.create_user("ya", "ya@example.com", "x")
    EmailAddress.objects.create(user=ya, email="ya@example.com", verified=False, primary=True)

    migration.forwards(apps, None)

    rows = {
        a.user.username: (a.email, a.verified, a.primary)
        for a in EmailAddress.objects.select_related("user")
    }
    assert rows == {
        "ana": ("ana@example.com", True, True),
        "copia": ("ANA@example.com", False, True),
        "ya": ("ya@example.com", False, True),  # had one already: left alone
    }
    assert not EmailAddress.objects.filter(user=sin).exists()
    assert ana.pk < copia.pk
