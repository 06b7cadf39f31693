"""The e-mails a test caused, delivered the way the worker delivers them.

Every e-mail goes through the outbox (``nucleo.mail``) and is sent after the commit that wrote
it; inside a test's transaction there is no commit, so a test that reads what was sent runs the
worker's delivery first (``delivered``), or reads the outbox rows themselves.
"""

from __future__ import annotations

from django.core import mail

from escenas.tasks import fan_out_pending_posts
from nucleo.mail import outbox_deliver


def delivered() -> list[mail.EmailMessage]:
    """Queue the e-mails of new posts (the worker's fan-out, ``escenas.post_fanout``: after
    the commit, which a test's transaction never reaches), send every due outbox message
    through the test mailer (``mail.outbox``) and return ``mail.outbox``: everything sent so
    far in this test, in order."""
    fan_out_pending_posts()
    while outbox_deliver().sent:
        pass
    return mail.outbox
