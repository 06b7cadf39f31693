"""The domain errors of every app.

Services raise ``ServiceError`` for a write the user can fix (shown where the user is: next to a
form field, or as a 400 with field errors in the API). Access checks raise ``NotFound`` when the
viewer may not see the thing, whether it exists or not, and ``Forbidden`` when they may see it
but not do this; one handler per surface maps them (pages and feeds: 404/403 pages; the API:
404/403 answers; e-mails: the mail is not sent).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError


class ServiceError(ValidationError):
    """A write refused for a reason the user can fix; the message is shown as it is.

    Built like a ``ValidationError``: one message, a list, or ``{field: message}``.
    """

    def nested(self, prefix: str) -> ServiceError:
        """The same refusal with each field key under ``prefix`` (``trait`` → ``roll.trait``),
        as a part of a bigger request reports it; messages without a field stay on top."""
        if not hasattr(self, "error_dict"):
            return ServiceError(self.messages, code=getattr(self, "code", None))
        return ServiceError(
            {
                (key if key == "__all__" else f"{prefix}.{key}"): errors
                for key, errors in self.error_dict.items()
            }
        )


class NotFound(Exception):
    """The thing does not exist, or the viewer may not know that it does (same answer)."""


class Forbidden(Exception):
    """The viewer may see the thing but not do this to it."""
