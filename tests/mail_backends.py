"""Test e-mail back ends: the local outbox, but refusing some addresses like a real server."""

from __future__ import annotations

import smtplib

from django.core.mail.backends.locmem import EmailBackend


class RefusingBackend(EmailBackend):
    """``locmem`` that refuses every message to an address containing ``rebota`` (bounce),
    as an SMTP server refuses a recipient; counts the connections it opened."""

    opened = 0

    def open(self) -> bool:
        type(self).opened += 1
        return True

    def send_messages(self, messages):  # type: ignore[no-untyped-def]
        for message in messages:
            for address in message.to:
                if "rebota" in address:
                    raise smtplib.SMTPRecipientsRefused({address: (550, b"5.1.1 no such user")})
        return super().send_messages(messages)


class DownBackend(EmailBackend):
    """A server that cannot be reached."""

    def open(self) -> bool:
        raise ConnectionRefusedError(111, "Connection refused")
