"""Sign-up that tells nobody which usernames exist (issue 12: "no account is guessable").

allauth's ``ACCOUNT_PREVENT_ENUMERATION`` covers e-mails only: a registered address gets the
same "check your e-mail" answer as a new one, and its owner a mail. A taken username still
answered "A user with that username already exists." on the form. Here it answers exactly as
a new sign-up does (the page that asks for the code), creates nothing, and mails the address
that was typed: "that username is taken, sign up again with another one". Only who reads that
mailbox learns it, one address per attempt, under the sign-up rate limit.

Reading (noted for the lead): usernames are shown beside posts in public campaigns anyway, so
this hides nothing a reader of those campaigns cannot see; what it stops is cheap bulk probing
of the sign-up form for accounts to attack (the sign-in limits count per account).
"""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import get_adapter
from allauth.account.forms import SignupForm as AllauthSignupForm
from allauth.account.internal import flows
from allauth.account.internal.userkit import filter_users_by_username
from django.http import HttpRequest

TAKEN_USERNAME_ATTR = "partida_taken_username"
"""The request attribute that tells ``AccountAdapter.send_account_already_exists_mail`` the
sign-up failed on its username, not on its e-mail."""


class SignupForm(AllauthSignupForm):
    """allauth's sign-up form, with a taken username answered like a new one.

    ``clean_username`` runs allauth's validators and blacklist but not its "taken" check; it
    records whether the username is taken. ``try_save`` then creates nothing and answers with
    allauth's own enumeration-proof response (the code page), and the typed address is told.
    """

    username_taken = False

    def clean_username(self) -> str:
        value: str = self.cleaned_data["username"]
        value = get_adapter().clean_username(value, shallow=True)
        self.username_taken = filter_users_by_username(value).exists()
        return value

    def try_save(self, request: HttpRequest) -> tuple[Any, Any]:
        """``(user, None)`` for a new account; ``(None, response)`` when the e-mail or the
        username is taken (the same response a new account gets)."""
        if self.username_taken and not self.account_already_exists:
            setattr(request, TAKEN_USERNAME_ATTR, self.cleaned_data["username"])
            email = self.cleaned_data.get("email")
            return None, flows.signup.prevent_enumeration(request, email=email)
        return super().try_save(request)
