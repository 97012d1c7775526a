# SPDX-License-Identifier: GPL-3.0-or-later
"""What Blender's data read once holds while a ``read_once()`` block runs (``read``):
keyframe arrays, curves evaluated ahead, each action's data paths. Its own module so
that ``versions`` (below ``read``) can remember too. None outside a block."""
from __future__ import annotations

import contextlib

import numpy as np

current: dict | None = None


# While a ``recording_writes()`` block runs: the keys ``write`` stored, as
# read_keyframe_arrays would read them back; None outside one.
written: dict | None = None


@contextlib.contextmanager
def read_once(seed: "Written | None" = None):
    """Within the block, Blender's animation data is read once: an analysis of a rig looks
    at each curve a dozen times (its keys, its values, its steps, its bounds) and at each
    action once per bone. What is handed out is read-only; nothing may change the
    F-curves or actions inside the block. ``seed``: what a ``recording_writes()`` block
    kept of the curves a bake just wrote, taken as read (those curves unchanged since)."""
    global current
    outer = current
    current = {} if outer is None else outer
    if seed:
        for key, arrays in seed.arrays().items():
            current.setdefault(key, arrays)
    try:
        yield
    finally:
        current = outer


class Written:
    """What a ``recording_writes()`` block kept of each curve written: the arrays it was
    filled from, by (curve pointer, fields), as ``write`` hands them over; nothing once
    more than ``max_keys`` keys were written (``overflowed``)."""

    def __init__(self, max_keys: int) -> None:
        self.room = max_keys
        self.overflowed = False
        self._raw: dict = {}
        self._arrays: dict | None = None

    def __len__(self) -> int:
        return len(self._raw)

    def keep(self, key, raw: tuple, count: int) -> None:
        """``raw``: (co, handle_left, handle_right, interpolation) as written, float32 keys
        (a handle array that is ``co`` itself: each handle on its key)."""
        if self.overflowed:
            return
        self.room -= count
        if self.room < 0:
            # A bake too large for the refresh to analyse (entries.REFRESH_FRAME_LIMIT):
            # nothing is kept, so a 200-bone x 10,000-frame bake holds none of its keys.
            self._raw.clear()
            self.overflowed = True
            return
        self._raw[key] = raw
        self._arrays = None

    def forget(self, key) -> None:
        self._raw.pop(key, None)
        self._arrays = None

    def arrays(self) -> dict:
        """{(curve pointer, fields): {field: array}} as read_keyframe_arrays reads the
        curves back (float32 widened to float64, (n, 2); enum values as int32; read-only),
        made once, when a refresh first asks."""
        if self._arrays is None:
            self._arrays = {key: _as_read(*raw) for key, raw in self._raw.items()}
        return self._arrays


def _as_read(co, handle_left, handle_right, ipo) -> dict:
    def widened(values):
        return np.asarray(values, dtype=np.float32).astype(np.float64).reshape(-1, 2)

    wide = widened(co)
    arrays = {"co": wide,
              "handle_left": wide if handle_left is co else widened(handle_left),
              "handle_right": wide if handle_right is co else widened(handle_right),
              "interpolation": np.asarray(ipo).astype(np.int32)}
    for array in arrays.values():
        array.flags.writeable = False
    return arrays


def forget_written(key) -> None:
    """Inside recording_writes(): the curve of ``key`` (as ``write`` keeps it) no longer
    holds what was written (an fc.update() moved its handles): it is read back."""
    if written is not None:
        written.forget(key)


@contextlib.contextmanager
def recording_writes(max_keys: int):
    """Within the block, the numbers every curve ``write`` fills is left holding are kept
    (issue 23): the refresh after a bake takes the keys the bake wrote from here
    (``read_once(seed=...)``) instead of reading 1,000-key curves back from Blender, which
    was most of reading a rig's baked bones. Keeps nothing past ``max_keys`` keys.

    What is kept is named by the curve's address: it holds only while every curve written
    lives unchanged until the refresh has read it (the Re-bake and Convert operators, whose
    refresh follows the bake at once). A curve changed after its write must be forgotten
    (``forget_written``); one freed must not be read through the seed."""
    global written
    outer = written
    written = Written(max_keys) if outer is None else outer
    try:
        yield written
    finally:
        written = outer
