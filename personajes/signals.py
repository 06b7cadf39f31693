"""The sheet workflow's events, for the apps above ``personajes`` (scenes, notices).

``personajes`` cannot import ``escenas`` (the layers go the other way), yet an approval has to
put the character in the scenes open to newcomers and tell the player. So the sheet services
send these signals inside their transaction and lock, after their own writes; ``escenas``
connects its receivers in ``EscenasConfig.ready``. A receiver that raises rolls the whole
review back.

- ``sheet_submitted``: ``character`` (now SUBMITTED), ``user`` (its player).
- ``sheet_reviewed``: ``character`` (now APPROVED or DRAFT), ``master``, ``approved`` (bool),
  ``comment`` (the master's words, may be empty on approval), ``kit`` (the arrival's
  ``personajes.arrival.KitLine`` list, empty when returned), ``shelter`` (given or None).
"""

from __future__ import annotations

from django.dispatch import Signal

sheet_submitted = Signal()
sheet_reviewed = Signal()
