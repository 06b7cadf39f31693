"""The cast shared by the Django tests.

- ``master``   runs ``campaign`` (a private campaign on day 7).
- ``player_a`` plays in ``campaign`` (owns character A once characters exist).
- ``player_b`` plays in ``campaign`` too.
- ``outsider`` is signed in but belongs to no campaign: sees only public campaigns.
- anonymous    is ``client`` without login: sees only public campaigns.
"""

import pytest

# Django models are imported inside the fixtures: the engine's tests (tests/reglas) run without
# Django at all, and this file is loaded for them too.


@pytest.fixture
def campaign(db):
    from tests.factories import CampaignFactory

    return CampaignFactory(name="La Campaña", slug="la-campana", is_public=False)


@pytest.fixture
def master(campaign):
    from mundo.models import Membership
    from tests.factories import MembershipFactory, UserFactory

    user = UserFactory(username="master")
    MembershipFactory(campaign=campaign, user=user, role=Membership.Role.MASTER)
    return user


@pytest.fixture
def player_a(campaign):
    from mundo.models import Membership
    from tests.factories import MembershipFactory, UserFactory

    user = UserFactory(username="alicia")
    MembershipFactory(campaign=campaign, user=user, role=Membership.Role.PLAYER)
    return user


@pytest.fixture
def player_b(campaign):
    from mundo.models import Membership
    from tests.factories import MembershipFactory, UserFactory

    user = UserFactory(username="bruno")
    MembershipFactory(campaign=campaign, user=user, role=Membership.Role.PLAYER)
    return user


@pytest.fixture
def outsider(db):
    from tests.factories import UserFactory

    return UserFactory(username="olga")


@pytest.fixture
def cast(master, player_a, player_b, outsider):
    """Every signed-in member of the cast by role name, plus ``None`` for anonymous."""
    return {
        "master": master,
        "player_a": player_a,
        "player_b": player_b,
        "outsider": outsider,
        "anonymous": None,
    }


def pytest_configure(config):
    # Django's default PBKDF2 takes ~0.3 s per password; tests only need a working hash.
    # (Guarded: the engine's tests may run with -p no:django.)
    if config.pluginmanager.hasplugin("django"):
        from django.conf import settings

        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
