# SPDX-License-Identifier: GPL-3.0-or-later
"""What Blender's data read once holds while a ``read_once()`` block runs (``read``):
keyframe arrays, curves evaluated ahead, each action's data paths. Its own module so
that ``versions`` (below ``read``) can remember too. None outside a block."""
from __future__ import annotations

import contextlib

current: dict | None = None


@contextlib.contextmanager
def read_once():
    """Within the block, Blender's animation data is read once: an analysis of a rig looks
    at each curve a dozen times (its keys, its values, its steps, its bounds) and at each
    action once per bone. What is handed out is read-only; nothing may change the
    F-curves or actions inside the block."""
    global current
    outer = current
    current = {} if outer is None else outer
    try:
        yield
    finally:
        current = outer
