# SPDX-License-Identifier: GPL-3.0-or-later
"""What of a transform is keyed, and the sentences that say when nothing is.

The bake and the analysis both start here, so both explain the same cases in the
same words (no rotation keys, bones keyed only in NLA clips) and keep one frame cap
(each says in its own words what a span past it would have done).
"""
from __future__ import annotations

from . import animdata

# Frames (keys per channel) beyond which a bake or an analysis is refused:
# Blender stores ~72 bytes per key, so 2 million frames x 7 channels is already
# ~1 GB; an analysis evaluates and compares every whole frame (~7 s per million
# frames, several float64 arrays per frame). A typo in the range, or a stray key
# a million frames away, must not exhaust memory.
MAX_FRAMES = 2_000_000


def has_rotation_keys(obj, fcurves=None) -> bool:
    """True when ``obj``'s rotation or delta rotation channels (of its rotation mode) have
    keys, in its active action or in ``fcurves`` (a clip's); without ``fcurves``, also when
    a Transform Cache constraint moves it (a USD or Alembic import: its samples are the
    keys the report compares and the bake writes, animdata.cache)."""
    # Imported here: registering the add-on must not load the cache readers.
    from .animdata import cache

    if fcurves is None and cache.plays_cache(obj):
        return True
    return animdata.has_keys(animdata.rotation_fcurves(obj, None, fcurves)
                             + animdata.delta_rotation_fcurves(obj, None, fcurves))


def no_rotation_keys(obj, mode: str) -> str:
    """``Object "Cube" has no keys on rotation_euler or delta_rotation_euler (its rotation
    mode is XYZ)``: the start of every sentence about a transform with nothing to rotate."""
    path = animdata.ROTATION_PATHS[mode][0]
    delta = animdata.DELTA_ROTATION_PATHS.get(mode)
    also = f" or {delta[0]}" if delta else ""
    return f"{animdata.subject(obj)} has no keys on {path}{also} (its rotation mode is {mode})"


def bones_only_in_clips(obj, then: str) -> str:
    """The armature's bones are keyed, but only in NLA clips; ``then`` says what naming
    the clip does ("bake its bones")."""
    names = [c.name for c in animdata.object_clips(obj)
             if any(fc.data_path.startswith(animdata.BONE_PATH_START) for fc in c.fcurves())]
    example = f" {names[0]}" if names else " NAME"
    return (f"{animdata.subject(obj)} is an armature whose pose bones are keyed only in NLA "
            f"clips ({animdata.bone_key_count(obj)} bone(s)). Name the clip to {then} "
            f"(command line: --clips{example}), or make it the armature's active action "
            "(Action editor).")


def span_too_long(who: str, start: float, end: float, step: int) -> str:
    """Why a bake of frames ``start``..``end`` every ``step`` is refused, or "" when it fits."""
    count = int((end - start) // int(step)) + 2
    if count <= MAX_FRAMES:
        return ""
    return (f"{who}: baking frames {animdata.frame_label(start)}..{animdata.frame_label(end)} "
            f"every {int(step)} frame(s) would write about {count:,} keys per channel, more "
            f"than {MAX_FRAMES:,}. Choose a shorter frame range or a larger step.")
