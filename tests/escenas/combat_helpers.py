"""Helpers for the combat tests: forced dice for a turn, the cast in a fight."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from escenas import combat_resolve
from tests.reglas.world_helpers import ScriptedRng


def force_dice(monkeypatch: pytest.MonkeyPatch, faces: Iterable[int]) -> ScriptedRng:
    """The next resolved turn draws exactly ``faces`` (in order), and no more: every roll's
    generator (one per ledger key) hands out the next scripted faces."""
    rng = ScriptedRng(faces)
    monkeypatch.setattr(combat_resolve, "turn_rng", lambda campaign, key: rng)
    return rng
