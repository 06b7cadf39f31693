"""A password change or reset revokes the user's API tokens (Source: issue 12, finding 7); a
sign-in puts the user's language and time zone into their session (``nucleo.readers``).

Every way a password is set goes through ``set_password`` and ``save()`` (allauth's change and
reset, the admin, ``manage.py changepassword``): ``set_password`` keeps the raw password on the
instance until the save, which tells a real change from Django's silent re-hash at sign-in
(that one clears it before saving). The other sessions need nothing here: each session stores
a hash of the password and Django signs it out on its next request, while the session that
made the change is kept (``update_session_auth_hash``, which allauth calls).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from nucleo.readers import DEFAULT, readers_of, session_store
from partida.account_services import tokens_revoke_all


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="partida_password_pre_save")
def _note_password_change(sender: type, instance: Any, **kwargs: Any) -> None:
    update_fields = kwargs.get("update_fields")
    instance._partida_password_changed = bool(
        instance.pk is not None
        and getattr(instance, "_password", None) is not None
        and (update_fields is None or "password" in update_fields)
    )


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="partida_password_post_save")
def _revoke_tokens_on_password_change(sender: type, instance: Any, **kwargs: Any) -> None:
    if getattr(instance, "_partida_password_changed", False):
        instance._partida_password_changed = False
        tokens_revoke_all(user_id=instance.pk)


@receiver(user_logged_in, dispatch_uid="partida_reader_settings_on_login")
def _reader_settings_into_session(sender: type, request: Any, user: Any, **kwargs: Any) -> None:
    """The user's language and time zone go into the new session, where
    ``partida.middleware.LanguageMiddleware`` reads them (no query per page)."""
    if request is not None and hasattr(request, "session"):
        session_store(request.session, readers_of([user.pk]).get(user.pk, DEFAULT))
