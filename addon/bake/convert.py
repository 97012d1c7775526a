# SPDX-License-Identifier: GPL-3.0-or-later
"""Rotation-mode conversion that keeps the motion (issue 22): a bake whose path is what
Blender plays now, written in another rotation mode as few Bezier keys.

Blender's own conversions sample the keys (Rigify's converter) or every frame (5.3's
``anim.rotation_mode_convert(bake=True)``); without baking, the in-betweens drift.
Here the playback of the keys (per-channel curves, normalised or composed, delta
rotations included) is evaluated at every quarter frame, converted to the new mode
(Euler unrolled continuously: no +-180 deg wraps, whole turns kept), and fitted with
``core.bezier_keys`` within the tolerance, the original key frames kept and stepped
keys kept stepped. It is a bake like any other (``engine.bake_objects``): all or
nothing, recorded, reverted by ``revert_objects``.
"""
from __future__ import annotations

from typing import Callable

from .engine import BakeResult, bake_objects
from .settings import CONVERT_MODES, BakeError, BakeIssue, BakeSettings

# The default: a hundredth of a degree at every quarter frame (the issue's bar).
CONVERT_TOLERANCE_DEG = 0.01

__all__ = ["CONVERT_MODES", "CONVERT_TOLERANCE_DEG", "convert_objects"]


def convert_objects(objects, mode: str, tolerance_deg: float = CONVERT_TOLERANCE_DEG,
                    progress: Callable[[int, int], None] | None = None) -> BakeResult:
    """Convert ``objects`` (objects and/or pose-bone transforms, as ``bake_objects``
    takes) to rotation ``mode`` (one of CONVERT_MODES; 'AUTO': per transform, the Euler
    order farthest from gimbal lock, named in a note), keeping Blender's playback within
    ``tolerance_deg`` degrees at every quarter frame. Raises BakeError (nothing changed)
    on bad input."""
    if mode not in CONVERT_MODES:
        raise BakeError([BakeIssue('ERROR', "", "", None,
                                   f"Unknown rotation mode {mode!r}: convert to one of "
                                   f"{', '.join(CONVERT_MODES)}.")])
    if not (isinstance(tolerance_deg, (int, float)) and 0.0 < tolerance_deg < float("inf")):
        raise BakeError([BakeIssue('ERROR', "", "", None,
                                   f"A conversion's tolerance must be a finite angle above 0 "
                                   f"degrees (got {tolerance_deg!r}).")])
    # Channels keyed on different frames (Z keyed once more by hand) play as well as any:
    # a conversion keeps that playback, every channel's keys kept as key frames
    # (union_keys). A walk found them refused, with advice (Merge Key Frames) that the
    # conversion did not read.
    settings = BakeSettings(output_mode=mode, keep_playback=True, tolerance_deg=tolerance_deg,
                            key_interpolation='BEZIER', turns='KEYED', union_keys=True)
    return bake_objects(objects, settings, progress=progress)
