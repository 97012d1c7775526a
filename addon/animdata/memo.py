# SPDX-License-Identifier: GPL-3.0-or-later
"""What Blender's data read once holds while a ``read_once()`` block runs (``read``):
keyframe arrays, curves evaluated ahead, each action's data paths. Its own module so
that ``versions`` (below ``read``) can remember too. None outside a block."""
from __future__ import annotations

import contextlib

current: dict | None = None


# While a ``recording_writes()`` block runs: the keys ``write`` stored, as
# read_keyframe_arrays would read them back; None outside one.
written: dict | None = None


@contextlib.contextmanager
def read_once(seed: dict | None = None):
    """Within the block, Blender's animation data is read once: an analysis of a rig looks
    at each curve a dozen times (its keys, its values, its steps, its bounds) and at each
    action once per bone. What is handed out is read-only; nothing may change the
    F-curves or actions inside the block. ``seed``: what a ``recording_writes()`` block
    kept of the curves a bake just wrote, taken as read (those curves unchanged since)."""
    global current
    outer = current
    current = {} if outer is None else outer
    if seed:
        for key, arrays in seed.items():
            current.setdefault(key, arrays)
    try:
        yield
    finally:
        current = outer


class Written(dict):
    """What a ``recording_writes()`` block kept: {(curve pointer, fields): arrays}, or
    nothing once more than ``max_keys`` keys were written (``overflowed``)."""

    def __init__(self, max_keys: int) -> None:
        super().__init__()
        self.room = max_keys
        self.overflowed = False

    def keep(self, key, arrays: dict, count: int) -> None:
        if self.overflowed:
            return
        self.room -= count
        if self.room < 0:
            # A bake too large for the refresh to analyse (entries.REFRESH_FRAME_LIMIT):
            # nothing is kept, so a 200-bone x 10,000-frame bake holds no copy of its keys.
            self.clear()
            self.overflowed = True
            return
        self[key] = arrays


@contextlib.contextmanager
def recording_writes(max_keys: int):
    """Within the block, the numbers every curve ``write`` fills is left holding are kept
    (issue 23): the refresh after a bake takes the keys the bake wrote from here
    (``read_once(seed=...)``) instead of reading 1,000-key curves back from Blender, which
    was most of reading a rig's baked bones. Keeps nothing past ``max_keys`` keys."""
    global written
    outer = written
    written = Written(max_keys) if outer is None else outer
    try:
        yield written
    finally:
        written = outer
