"""Texts of third-party apps (django-allauth) whose Spanish we word ourselves.

Django reads our catalogue (``LOCALE_PATHS``) before the apps' own, so an entry there overrides
theirs; but ``makemessages`` keeps only the msgids it finds in our code. Listing them here keeps
them. Add one only when the app's own wording is wrong for us, with the reason.
"""

from django.utils.translation import gettext_noop

OVERRIDES = (
    # allauth's sign-in form: its Spanish "¿Ha olvidado su contraseña?" uses "usted"; we say "tú".
    gettext_noop("Forgot your password?"),
)
