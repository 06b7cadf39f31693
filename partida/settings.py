"""Settings for Partida: one file, read from the environment, embedded defaults when unset.

Embedded default (``make demo``): SQLite file, Celery tasks run eagerly in-process, local
memory cache. Real (compose, CI): ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` (Celery broker,
result backend and cache).
"""

from pathlib import Path

import dj_database_url
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

from partida.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", default=False)
# The fallback key is for the embedded default only (no DATABASE_URL: the demo and a fresh
# machine's tests) or DEBUG. A real deployment (a DATABASE_URL) must set SECRET_KEY: starting
# it with a key everyone can read in this file would let anyone forge sessions.
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if env_str("DATABASE_URL") and not DEBUG:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DATABASE_URL is (e.g. "
            "SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))'))"
        )
    SECRET_KEY = "partida-insecure-development-key-do-not-use-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# Behind HTTPS (HTTPS=1): secure cookies, redirect to https, HSTS; the proxy says the scheme.
HTTPS = env_bool("HTTPS", default=False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_SSL_REDIRECT = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 3600 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=HTTPS)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=False)
# Checks silenced, each for its reason (``manage.py check --deploy --fail-level WARNING`` passes
# with the compose file's environment, and with HTTPS=1; tests/partida/test_deploy_check.py):
SILENCED_SYSTEM_CHECKS = []
if not HTTPS:
    # HTTPS=0 says the site is served over plain HTTP (the compose file serves
    # http://127.0.0.1:8000 with no TLS proxy in front): HSTS (W004), the redirect to https
    # (W008) and secure-only session and CSRF cookies (W012, W016) would lock the browser out
    # of a site that has no https. HTTPS=1 turns all four on.
    SILENCED_SYSTEM_CHECKS += ["security.W004", "security.W008", "security.W012", "security.W016"]
if not SECURE_HSTS_PRELOAD:
    # Preloading (W021) puts the domain on the browsers' built-in HTTPS-only list, which takes
    # months to leave: an operator's decision for their own domain (SECURE_HSTS_PRELOAD=1).
    SILENCED_SYSTEM_CHECKS += ["security.W021"]

# Content Security Policy (Django's own middleware): the browser runs only the site's scripts
# (static files, or an inline script carrying the response's nonce; no inline handler, no
# eval), loads styles from static files only (no style attribute, no <style>), may not be
# framed, and sends forms only here. Views that need more say so (partida.api: the API docs).
SECURE_CSP: dict[str, list[str]] = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

INSTALLED_APPS = [
    "partida.admin_apps.PartidaAdminConfig",  # django.contrib.admin, the masters' site
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc served from here, not a CDN
    "allauth",
    "allauth.account",
    "nucleo",  # the e-mail outbox (nucleo.mail)
    "mundo",
    "personajes",
    "escenas",
    "partida",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "partida.middleware.LanguageMiddleware",
    "partida.middleware.RequestSizeMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "partida.middleware.AccessErrorMiddleware",
]

ROOT_URLCONF = "partida.urls"
WSGI_APPLICATION = "partida.wsgi.application"
ASGI_APPLICATION = "partida.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",  # csp_nonce (htmx_script uses it)
            ],
        },
    },
]
# Django's form renderer, keeping each widget's and label's HTML per process while nothing it
# shows changed (nucleo.forms.MemoRenderer): the same HTML, rendered once.
FORM_RENDERER = "nucleo.forms.MemoRenderer"

# Persistent connections with a database URL (a new PostgreSQL connection per request costs
# more than most pages: the health view went from 145 to 740 req/s with 60 s here), checked
# before reuse so a restarted server costs one failed check, not a 500. The embedded SQLite
# default keeps 0: its connections are cheap and per-thread.
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("CONN_MAX_AGE", 60 if env_str("DATABASE_URL") else 0),
        conn_health_checks=True,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Bodies: Django's 2.5 MB (partida.middleware.RequestSizeMiddleware answers bigger ones) and
# JSON nested at most this deep (nucleo.bodies.BoundedJSONParser).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 2_621_440)
API_JSON_MAX_DEPTH = 32

REDIS_URL = env_str("REDIS_URL")
CACHES: dict[str, dict[str, object]]
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "nucleo.cache.RedisCache",  # one Redis client per pool (nucleo.cache)
            "LOCATION": REDIS_URL,
        }
    }
else:
    # One process's memory (make demo, the tests). Its default of 300 entries is less than one
    # busy page keeps (a scene list's rows, a page's posts): a full cache drops a third of its
    # entries, the names generation and the sessions with the rest.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 10_000},
        }
    }
# Sessions read from the cache, written through to the database (a cache miss or a restart
# loses no session): the session lookup of every signed-in request skips the database.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
# A signed-in reader's scene page and scene list are kept whole in the cache while no table they
# read was written (escenas.viewer_pages, nucleo.table_writes). Several server processes need
# the shared cache (REDIS_URL) for it, as for every cached piece: local memory is one process's.
ESCENAS_VIEWER_PAGES = env_bool("ESCENAS_VIEWER_PAGES", default=True)
# The API's closed pages of posts (a full page with a next one) kept in the cache while no
# post in their id range and no other table they read changed (escenas.api_pages).
ESCENAS_API_PAGES = env_bool("ESCENAS_API_PAGES", default=True)
# The API's whole answers of its lists (a campaign's scenes, a character's rolls and diary, the
# characters, the settlements) kept in the cache while no table they read was written
# (nucleo.api_answers).
ESCENAS_API_ANSWERS = env_bool("ESCENAS_API_ANSWERS", default=True)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "escenas:inbox"  # «Mi mesa»: what waits for me, across campaigns
LOGOUT_REDIRECT_URL = "mundo:campaign_list"

# Accounts: django-allauth (partida.accounts holds our adapter and the account pages it lacks).
# allauth's back end is Django's ModelBackend (permissions, the admin) that also takes an
# e-mail as the login; alone, so a wrong password is checked once, not once per back end.
AUTHENTICATION_BACKENDS = ["allauth.account.auth_backends.AuthenticationBackend"]
ACCOUNT_ADAPTER = "partida.accounts.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
# Mandatory verification, by a code typed in the same tab: the only way a sign-up can refuse a
# registered e-mail without telling (allauth answers "check your e-mail" in both cases and
# mails the owner instead). The pending sign-in keeps its ``next``, so an invited player types
# the code and lands back on the invitation.
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_EMAIL_VERIFICATION_BY_CODE_ENABLED = True
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_PREVENT_ENUMERATION = True  # password reset and sign-up answer alike for any address
# ... and for any username (allauth's covers e-mails only): partida.accounts_signup.
ACCOUNT_FORMS = {"signup": "partida.accounts_signup.SignupForm"}
ACCOUNT_CHANGE_EMAIL = True  # one address per account; changing it verifies the new one
ACCOUNT_LOGOUT_ON_GET = False
# Changing the e-mail asks for the password again unless it was typed in the last 5 minutes
# (a borrowed session cannot take the account over through a password reset to a new
# address), and the owner is told by e-mail of every password or e-mail change.
ACCOUNT_REAUTHENTICATION_REQUIRED = True
ACCOUNT_EMAIL_NOTIFICATIONS = True
ACCOUNT_SESSION_REMEMBER = True
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Partida] "
# Per action: "amount/period/key" (allauth.core.internal.ratelimit), merged over allauth's
# defaults (reset_password 20/m/ip,5/m/key; reauthenticate, manage_email 10/m/user;
# change_password 5/m/user; a new code at most every 10 s). A wrong password counts against
# the IP and against the account, however it is named (partida.accounts), for 5 minutes.
ACCOUNT_RATE_LIMITS = {
    "login_failed": env_str("ACCOUNT_RATE_LOGIN_FAILED", "20/m/ip,5/5m/key"),
    "signup": env_str("ACCOUNT_RATE_SIGNUP", "20/m/ip,10/h/ip"),
}

LANGUAGE_CODE = "es"
LANGUAGES = [("es", _("Spanish")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "Europe/Madrid"
USE_TZ = True
# Django's formats with the zone label after each time ("18:05 CET"): partida/formats/.
FORMAT_MODULE_PATH = ["partida.formats"]

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
WHITENOISE_USE_FINDERS = True  # serve static/ without collectstatic in the demo
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
MEDIA_URL = "media/"
MEDIA_ROOT = BASE_DIR / "media"

# Django 6.1 mailers (the EMAIL_BACKEND setting is deprecated); the environment variable of
# that name still picks the back end, by its dotted path or by a short name: ``file`` (the
# default: every e-mail written as a file under EMAIL_FILE_PATH, var/mail/ in the project, so
# the demo's console stays quiet), ``console`` (printed, only when asked), ``smtp``. The SMTP
# back end reads EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS,
# EMAIL_USE_SSL and EMAIL_TIMEOUT (s). Every e-mail goes through the outbox (nucleo.mail).
EMAIL_BACKENDS_BY_NAME = {
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "console": "django.core.mail.backends.console.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
}
EMAIL_BACKEND_PATH = env_str("EMAIL_BACKEND", "file")
EMAIL_BACKEND_PATH = EMAIL_BACKENDS_BY_NAME.get(EMAIL_BACKEND_PATH, EMAIL_BACKEND_PATH)
MAILER_OPTIONS: dict[str, object] = {}
if EMAIL_BACKEND_PATH == "django.core.mail.backends.smtp.EmailBackend":
    MAILER_OPTIONS = {
        "host": env_str("EMAIL_HOST", "localhost"),
        "port": env_int("EMAIL_PORT", 587),
        "username": env_str("EMAIL_HOST_USER") or None,
        "password": env_str("EMAIL_HOST_PASSWORD") or None,
        "use_tls": env_bool("EMAIL_USE_TLS", default=True),
        "use_ssl": env_bool("EMAIL_USE_SSL", default=False),
        "timeout": env_int("EMAIL_TIMEOUT", 10),
    }
elif EMAIL_BACKEND_PATH == "django.core.mail.backends.filebased.EmailBackend":
    MAILER_OPTIONS = {"file_path": env_str("EMAIL_FILE_PATH", str(BASE_DIR / "var" / "mail"))}
MAILERS = {"default": {"BACKEND": EMAIL_BACKEND_PATH, "OPTIONS": MAILER_OPTIONS}}
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "partida@localhost")

# Celery: Redis as broker and result backend when REDIS_URL is set; otherwise (the embedded
# demo only) tasks run eagerly in-process.
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Beat's one entry: every few minutes, advance the campaigns whose local tick time has passed
# (mundo.schedule decides "due" in each campaign's own time zone, so the interval only bounds
# the delay). PARTIDA_BEAT_INTERVAL_S shortens it for the integration test.
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "advance-due-campaigns": {
        "task": "partida.advance_due_campaigns",
        "schedule": float(env_int("PARTIDA_BEAT_INTERVAL_S", 300)),
    },
    # Scenes: the e-mails of any post whose fan-out task never ran (new posts queue their
    # own after the commit). Safe to run twice: escenas.post_fanout.
    "fan-out-pending-posts": {"task": "escenas.fan_out_pending_posts", "schedule": 60.0},
    # Scenes: the daily e-mail digest (safe to run twice: escenas.notifications.digests_send).
    "send-daily-digests": {"task": "escenas.send_digests", "schedule": 24 * 3600.0},
    # The e-mail outbox: retries of failed messages come due here (new ones are delivered
    # right after the commit that writes them). Safe to run twice: nucleo.mail.outbox_claim.
    "deliver-outbox": {"task": "nucleo.deliver_outbox", "schedule": 60.0},
}
# Scenes: absolute links in e-mails (the site's public address, no trailing slash).
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")

# Log lines: time, level, logger and the request id (partida.request_id: X-Request-ID honoured
# and echoed; "-" outside a request).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "partida.request_id.RequestIdFilter"}},
    "formatters": {
        "line": {
            "format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s",
        }
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": "line",
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
if not REDIS_URL:
    # The embedded default's in-memory broker has no host name, which kombu warns about on
    # every start (the demo's console stays quiet).
    LOGGING["loggers"] = {"kombu.connection": {"level": "ERROR"}}

# REST API (/api/v1/, partida/api.py): session or per-user tokens (partida.authentication),
# throttled per token, per user and per anonymous IP (partida.throttling). Views decide who may
# see what through each app's selectors, so the default permission is AllowAny.
REST_FRAMEWORK = {
    "DEFAULT_VERSIONING_CLASS": "rest_framework.versioning.NamespaceVersioning",
    "ALLOWED_VERSIONS": ["v1"],
    "DEFAULT_VERSION": "v1",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "partida.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_THROTTLE_CLASSES": [
        "partida.throttling.ApiClientThrottle",
        "partida.throttling.ApiUserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_RATE_ANON", "60/min"),
        "token": env_str("API_RATE_TOKEN", "120/min"),
        "session": env_str("API_RATE_SESSION", "120/min"),
        "user": env_str("API_RATE_USER", "300/min"),
        # failed token attempts per IP (partida.throttling.BadTokenThrottle)
        "bad_token": env_str("API_RATE_BAD_TOKEN", "10/min"),
    },
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # DRF's JSON parser with a size (413) and nesting (400) limit: nucleo.bodies.
    "DEFAULT_PARSER_CLASSES": ["nucleo.bodies.BoundedJSONParser"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    # Every list is paginated (?page=, ?page_size= up to 500), also one that forgets to say so;
    # the posts are cursor-paginated (escenas.api.PostCursorPagination).
    "DEFAULT_PAGINATION_CLASS": "nucleo.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "partida.api.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Partida API",
    "VERSION": "1",
    "DESCRIPTION": (
        "Read what your user may read in Partida's campaigns (campaigns, settlements, "
        "characters, diaries, scenes, posts, rolls) and post with a roll, with exactly your "
        "user's rights: the same permission checks as the pages.\n\n"
        "**Authentication**: a browser session (unsafe methods need the CSRF token), or an API "
        "token made on the profile page (/cuentas/perfil/) sent as `Authorization: Token <key>` "
        "or `Authorization: Bearer <key>`. A revoked or unknown token gets 401.\n\n"
        "**Language**: messages are in Spanish whatever `Accept-Language` says; send the cookie "
        "`django_language=en` for English (the site's language switch sets it).\n\n"
        "**Errors**: 400 with `{field: [messages]}` (unknown fields are refused by name), 401 "
        "not authenticated or bad token, 403 authenticated but not allowed, 404 not found or not "
        "visible to you (hidden things are not revealed), 429 throttled (see `Retry-After`).\n\n"
        "**Units**: energy kcal, water L, sleep h, probabilities and thresholds %, areas m², "
        "temperatures °C, in-game days are integers (day 0 = the apocalypse)."
    ),
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": "/api/v1/",
    "COMPONENT_SPLIT_REQUEST": True,
    # URL ids are 1..18 digits (mundo.converters.IdConverter): integers that fit 64 bits.
    "PATH_CONVERTER_OVERRIDES": {
        "id": {"type": "integer", "minimum": 0, "maximum": 999_999_999_999_999_999}
    },
    "ENUM_NAME_OVERRIDES": {
        "RollKindEnum": "personajes.models.Roll.Kind",
        "ItemKindEnum": "personajes.models.ItemType.Kind",
        "SceneKindEnum": "escenas.models.Scene.Kind",
        "VoiceEnum": "escenas.models.Post.Voice",
        "MovementActionEnum": "personajes.api_movements.MOVEMENT_ACTIONS",
        "DeclarationActionEnum": "escenas.combat_models.Declaration.Action",
        "CombatKindEnum": "escenas.combat_models.Combat.Kind",
    },
}


# --- Operations (compose, scripts/run, readiness, static files) --------------------------------
# Every request gets an id (X-Request-ID honoured when well-formed, else made), logged and echoed.
MIDDLEWARE.insert(0, "partida.request_id.RequestIdMiddleware")
# Static files: hashed names and compressed copies (collectstatic writes them; the Dockerfile and
# `make demo` run it), hashed files cached for ten years by whitenoise, the others for an hour.
# The test suite swaps in the plain storage (tests/conftest.py): it serves from the finders.
STORAGES["staticfiles"] = {
    "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage",
}
WHITENOISE_MAX_AGE = env_int("WHITENOISE_MAX_AGE", 3600)
STATIC_ROOT = Path(env_str("STATIC_ROOT") or STATIC_ROOT)
# Uploaded media (portraits) served by Django itself (partida.media), DEBUG or not.
SERVE_MEDIA = env_bool("SERVE_MEDIA", default=True)
# Beat loops at least every 30 s, so its heartbeat (partida.beat) is never older than that while
# it runs; the worker's heartbeat task is queued every PARTIDA_HEARTBEAT_INTERVAL_S (60 s).
CELERY_BEAT_MAX_LOOP_INTERVAL = 30
CELERY_BEAT_SCHEDULE["worker-heartbeat"] = {
    "task": "partida.heartbeat",
    "schedule": float(env_int("PARTIDA_HEARTBEAT_INTERVAL_S", 60)),
    "options": {"expires": 55.0},
}
# Readiness (/salud/listo/): a worker or beat heartbeat older than this is "not ready" (s).
READY_HEARTBEAT_MAX_AGE_S = env_int("READY_HEARTBEAT_MAX_AGE_S", 180)
