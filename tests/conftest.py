"""The cast shared by the Django tests.

- ``master``   runs ``campaign`` (a private campaign on day 7).
- ``player_a`` plays in ``campaign`` (owns character A once characters exist).
- ``player_b`` plays in ``campaign`` too.
- ``outsider`` is signed in but belongs to no campaign: sees only public campaigns.
- anonymous    is ``client`` without login: sees only public campaigns.
"""

import pytest
from hypothesis import settings

# The suite checks behaviour, never wall time (timings live in tests/bench): no property test has
# hypothesis's per-example deadline (200 ms by default), which a loaded CI machine can overrun.
settings.register_profile("partida", deadline=None)
settings.load_profile("partida")

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
        # Production hashes and compresses static files at collectstatic; the tests serve them
        # from the finders (no collectstatic), with their plain names.
        settings.STORAGES = {
            **settings.STORAGES,
            "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
        }
        if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
            _live_server_one_request_at_a_time()


def _live_server_one_request_at_a_time():
    """On SQLite the test database is in memory, and the live server's threads all share its
    one connection (``connections_override``): two requests at once (a page and its portraits,
    an autosave) used it together and one failed with ``InterfaceError: bad parameter or other
    API misuse``, a 500 no real server gives. The browser tests' server keeps its threads
    (keep-alive connections) but runs one request's view at a time. PostgreSQL runs them as
    a real server does."""
    import threading

    from django.core.servers.basehttp import ThreadedWSGIServer
    from django.test.testcases import LiveServerThread

    class OneRequestAtATime(ThreadedWSGIServer):
        def set_app(self, application):
            lock = threading.Lock()

            def serial(environ, start_response):
                with lock:
                    return application(environ, start_response)

            super().set_app(serial)

    LiveServerThread.server_class = OneRequestAtATime


@pytest.fixture(autouse=True)
def _celery_tasks_in_process(request):
    """Run Celery tasks in the test process, as the embedded default does.

    CI sets REDIS_URL, which makes tasks go to the broker; tests that check what a task does
    (e-mails, diary posts) must not depend on a worker being there. Only the tests marked
    ``redis`` talk to a real worker and keep the real broker.
    """
    if not request.config.pluginmanager.hasplugin("django"):
        yield
        return
    from partida.celery import app

    if request.node.get_closest_marker("redis"):
        # A real worker's test: tasks must go to the broker even if an earlier test left the
        # app eager (seen in full PostgreSQL runs: the task then ran in the test process).
        before = (app.conf.task_always_eager, app.conf.task_eager_propagates)
        app.conf.update(task_always_eager=False)
        yield
        app.conf.update(task_always_eager=before[0], task_eager_propagates=before[1])
        return

    # Read the app's configuration before overriding the setting: Celery loads it from the
    # settings on first access, and must not take the override as its own default.
    before = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    settings = request.getfixturevalue("settings")
    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.update(task_always_eager=True, task_eager_propagates=True)
    yield
    app.conf.update(task_always_eager=before[0], task_eager_propagates=before[1])


@pytest.fixture(autouse=True)
def _rate_limits_start_empty(request):
    """Each test starts with empty rate-limit counters (allauth's sign-in and sign-up limits,
    the API's throttles and the bad-token counter all live in the cache), so one test's
    attempts never refuse another's. The engine's tests (no Django) skip this, and so do the
    ``redis`` tests: with REDIS_URL the cache shares its Redis database with the broker of the
    worker those tests run."""
    if not request.config.pluginmanager.hasplugin("django") or request.node.get_closest_marker(
        "redis"
    ):
        yield
        return
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture(autouse=True)
def _media_in_a_temporary_folder(request, tmp_path_factory):
    """Uploaded and generated files (portraits; the demo draws some) go to a temporary folder,
    never to the project's media/. Tests that look at the files set their own MEDIA_ROOT."""
    if not request.config.pluginmanager.hasplugin("django"):
        yield
        return
    settings = request.getfixturevalue("settings")
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")
    yield


@pytest.fixture(autouse=True)
def _site_language_at_start(request):
    """Each test starts in the site's language. A test client's request leaves the language
    LocaleMiddleware activated for it in the thread (an English page, say), and the next test
    would otherwise word its texts in English (seen: the tick's message after the
    both-languages test). The engine's tests (no Django) skip this."""
    if not request.config.pluginmanager.hasplugin("django"):
        yield
        return
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
