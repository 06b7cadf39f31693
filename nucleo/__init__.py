"""The kernel every app shares, below ``mundo`` in the layers (DESIGN.md "Layout").

- ``nucleo.errors``: the domain errors services and access checks raise (``ServiceError``,
  ``NotFound``, ``Forbidden``) and nothing else;
- ``nucleo.users``: the user type every signature uses (``AnyUser``);
- ``nucleo.locks``: the one way to take row locks, campaign first, then rows by primary key;
- ``nucleo.ledger``: the one writer of roll rows and its generator-key scheme;
- ``nucleo.forms``: putting a service's refusal back on a form;
- ``nucleo.serializers``: the DRF base serializer that refuses unknown and read-only keys;
- ``nucleo.mail``: header values made safe (``header_text``) and the e-mail outbox, delivered
  at least once by the worker (its one model, ``nucleo.models.OutboxMessage``).

It imports Django, DRF, Celery and ``reglas`` only, never an app: models are looked up by label
(``apps.get_model``) where a helper needs one.
"""
