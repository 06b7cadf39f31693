"""Helpers for the world-rule tests (weather, encounters, combat…): a scripted generator."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


class ScriptedRng:
    """Stands in for ``numpy.random.Generator.integers``: returns the scripted faces in order.

    Each face is checked against the requested range, so a test fails loudly if the code asks
    for a different die than the test expects. Only ``integers`` is provided on purpose.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = list(faces)

    def _take(self, low: int, high: int) -> int:
        assert self.faces, "the code rolled more dice than the test scripted"
        face = self.faces.pop(0)
        assert low <= face < high, f"scripted face {face} outside [{low}, {high})"
        return face

    def integers(
        self,
        low: int,
        high: int | None = None,
        size: int | tuple[int, ...] | None = None,
        dtype: object = None,
    ) -> object:
        if high is None:
            low, high = 0, low
        if size is None:
            return np.int64(self._take(low, high))
        n = int(np.prod(size))
        return np.array([self._take(low, high) for _ in range(n)], dtype=np.int64).reshape(size)

    @property
    def exhausted(self) -> bool:
        return not self.faces
