"""The kernel's Celery tasks, here for the worker's autodiscovery: ``nucleo.deliver_outbox``
(defined with the outbox in ``nucleo.mail``)."""

from nucleo.mail import deliver_outbox

__all__ = ["deliver_outbox"]
