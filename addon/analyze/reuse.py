# SPDX-License-Identifier: GPL-3.0-or-later
"""An analysis made once, handed out again while what it read is unchanged (issue 23:
"the refresh analyses nothing twice").

The Difference Report's refresh after a Re-bake analyses each baked transform's keys as
they were before the bake. After an Analyze click those are the keys it just analysed:
the bake keeps them as they were, in the original action. So the refresh takes that
analysis again, where the digest of its inputs (``digest``) is still the same, and
analyses only the keys the bake wrote. A Revert's refresh likewise finds the analysis
of the keys it put back.

The digest is of the curves' contents, not of Blender's objects: a key moved, retimed
or given another handle since gives another digest and a new analysis. What the digest
does not cover is never reused: curves with F-modifiers (their settings are not read
here), NLA clips, Transform Caches. What is worded from the scene rather than the keys
(the bake a transform plays, NLA strips blending over it) is worded again on every use
(``engine._finish``).
"""
from __future__ import annotations

import copy
import hashlib

import numpy as np

# Keyframe.interpolation's values: CONSTANT 0, LINEAR 1, BEZIER 2 (core.fcurve's), then
# the easings (SINE, BACK, ELASTIC ...), whose curves also hash their easing parameters.
_BEZIER = 2
_EASING_FIELDS = ("easing", "back", "amplitude", "period")


def digest(found, settings: tuple) -> bytes | None:
    """What the analysis of ``found`` (an ``engine._Located``) depends on, as a digest:
    the transform and its rotation mode, each rotation, delta rotation, location and
    delta location curve's keys (frames, values, handles, interpolation, easing),
    extrapolation and mute, the values of its unkeyed channels, and ``settings`` (the
    method, Turns and Timing). None when it cannot be told from those (an NLA clip, or a
    curve with F-modifiers)."""
    from .. import animdata
    from ..animdata.read import KEY_FIELDS

    if found.clip is not None:
        return None
    obj, mode = found.obj, found.mode
    h = hashlib.blake2b(digest_size=20)
    # Not whether these are a bake's original keys: the same keys give the same analysis,
    # which engine._finish words for the bake the transform plays.
    h.update(repr((obj.name, getattr(obj, "bone_name", ""), mode, settings)).encode())
    curves = found.rot_fcurves + found.delta_fcurves + list(found.loc_fcurves)
    for fc in curves:
        if fc is None:
            h.update(b"-")
            continue
        if len(fc.modifiers):
            return None
        h.update(repr((fc.data_path, fc.array_index, fc.extrapolation, fc.mute)).encode())
        keys = animdata.read_keyframe_arrays(fc, KEY_FIELDS)
        ipo = keys["interpolation"]
        h.update(keys["co"].tobytes())
        h.update(ipo.tobytes())
        # Handles shape only Bezier segments (a key's interpolation is its segment's to the
        # next key): a dense Linear bake's 4 million handle values are not hashed.
        # (Past the last key, Linear extrapolation follows the last key's handle.)
        segments = ipo if fc.extrapolation != 'CONSTANT' else ipo[:-1]
        if (segments == _BEZIER).any():
            h.update(keys["handle_left"].tobytes())
            h.update(keys["handle_right"].tobytes())
        if (segments > _BEZIER).any():
            easing = animdata.read_keyframe_arrays(fc, _EASING_FIELDS)
            for name in _EASING_FIELDS:
                h.update(easing[name].tobytes())
    # An unkeyed channel (no curve, or a curve without keys) holds the property's value;
    # only those: a keyed one's property follows the current frame, which the analysis
    # never reads. The location is read once any location curve exists (engine._read).
    unkeyed = [(found.rot_fcurves, animdata.rotation_defaults(obj, mode)),
               (found.delta_fcurves, animdata.delta_rotation_defaults(obj, mode))]
    if any(fc is not None for fc in found.loc_fcurves):
        unkeyed.append((found.loc_fcurves, np.concatenate(
            [animdata.location_defaults(obj), np.array(obj.delta_location, dtype=float)])))
    for fcurves, values in unkeyed:
        h.update(np.array([v for fc, v in zip(fcurves, values)
                           if fc is None or not len(fc.keyframe_points)],
                          dtype=np.float64).tobytes())
    return h.digest()


def kept(analysis):
    """A copy of core's ``analysis`` to keep, or to hand out: what is worded again on
    each use (findings, notes, channels) is its own list, so that wording one copy
    leaves the kept one as core made it. The per-frame arrays are shared: nothing
    changes them in place."""
    out = copy.copy(analysis)
    out.findings, out.notes, out.channels = (list(analysis.findings), list(analysis.notes),
                                             list(analysis.channels))
    return out
