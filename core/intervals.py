# SPDX-License-Identifier: GPL-3.0-or-later
"""The per key interval figures of an analysis, kept as arrays and made into the
report's dicts only when something reads them.

A baked rig has a thousand one-frame intervals per bone, and the panel's refresh
after a bake reads none of them (only ``kinds``): building 60,000 dicts for it
took 0.16 s of a 1.4 s Re-bake click (issue 23). The JSON report and the findings
that look at single intervals read them as before.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def _plain(column) -> list:
    """A column as Python values, its NaN and infinities as None."""
    if not isinstance(column, np.ndarray):
        return list(column)
    values = column.tolist()
    if column.dtype.kind == "f" and not np.isfinite(column).all():
        values = [v if math.isfinite(v) else None for v in values]
    return values


class Intervals(Sequence):
    """A read-only list of dicts, one per key interval: ``frames`` [a, b],
    ``blender_turn_deg``, ``shortest_deg``, ``blender_speed_cv``, ``custom_speed_cv``,
    ``kind``, ``keyed_turn_deg`` (see core.analysis.analyze_group), None where a figure
    is undefined, so each row is as JSON writes it. Equal to a list of the same dicts."""

    def __init__(self, starts, ends, blender_turn, shortest, blender_cv, custom_cv,
                 kinds, keyed_turn):
        self._columns = (starts, ends, blender_turn, shortest, blender_cv, custom_cv,
                         kinds, keyed_turn)
        self._size = len(starts)
        self._rows: list | None = None

    def _made(self) -> list:
        if self._rows is None:
            # Plain Python numbers at once (tolist), and None where a figure is undefined
            # (a speed's unevenness over a still interval): each row is as JSON writes it.
            columns = [_plain(c) for c in self._columns]
            self._rows = [{
                "frames": [a, b],
                "blender_turn_deg": turn,
                "shortest_deg": short,
                "blender_speed_cv": bcv,
                "custom_speed_cv": ccv,
                "kind": kind,
                "keyed_turn_deg": keyed,
            } for a, b, turn, short, bcv, ccv, kind, keyed in zip(*columns)]
            self._columns = None
        return self._rows

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index):
        return self._made()[index]

    def __iter__(self):
        return iter(self._made())

    def __eq__(self, other) -> bool:
        if isinstance(other, (Intervals, list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"Intervals({self._made()!r})"
