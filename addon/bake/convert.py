# SPDX-License-Identifier: GPL-3.0-or-later
"""Rotation-mode conversion that keeps the motion (issue 22): a bake whose path is what
Blender plays now, written in another rotation mode as few Bezier keys.

Blender's own conversions sample the keys (Rigify's converter) or every frame (5.3's
``anim.rotation_mode_convert(bake=True)``); without baking, the in-betweens drift.
Here the playback of the keys (per-channel curves, normalised or composed, delta
rotations included) is evaluated at every quarter frame, converted to the new mode
(Euler unrolled continuously: no +-180 deg wraps, whole turns kept), and fitted with
``core.bezier_keys`` within the tolerance, the original key frames kept and stepped
keys kept stepped. It is a bake like any other (``engine.bake_objects``): a transform
with broken input left as it was and the others converted, recorded, reverted by
``revert_objects``.
"""
from __future__ import annotations

from typing import Callable

import bpy

from .. import animdata
from ..record import record_of
from ..transform import as_transforms
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
    ``tolerance_deg`` degrees at every quarter frame. A transform with broken input is
    left as it was (``BakeResult.failed``); raises BakeError (nothing changed) on wrong
    arguments or when nothing can be converted."""
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
    # What moves beyond its keys inside the scene's frames (Linear extrapolation, a
    # Cycles modifier: a turntable) is converted over them too: a walk found it still
    # after its last key, 139 deg off within the shot, with a warning --quiet hid.
    scene = bpy.context.scene
    settings = BakeSettings(output_mode=mode, keep_playback=True, tolerance_deg=tolerance_deg,
                            key_interpolation='BEZIER', turns='KEYED', union_keys=True,
                            playback_range=(float(scene.frame_start), float(scene.frame_end)))
    before = {t.display_name: (t, t.rotation_mode, _read_actions(t.owner))
              for t in as_transforms(objects)}
    result = bake_objects(objects, settings, progress=progress)
    result.warnings += _clips_left_behind(result.objects, before)
    return result


def _read_actions(owner) -> set:
    """The names of the actions a conversion of ``owner`` reads and writes: its active
    action and, after a bake, the animator's action kept under it (the NLA stash a glTF
    import makes of the active clip too holds it)."""
    action = animdata.get_action(owner)
    names = {action.name} if action is not None else set()
    kept = getattr(record_of(owner), "original_action", None)
    if kept is not None:
        names.add(kept.name)
    return names


def _clips_left_behind(converted: list[str], before: dict) -> list[BakeIssue]:
    """A warning per object whose other clips (its NLA's actions: a game rig's Walk and
    Run beside the active Survey) key the rotation mode a conversion left: the mode is the
    transform's, shared by every action, so those clips no longer turn it (a walk: Fox.glb
    converted to ZXY, its Walk clip played every bone still, up to 101 deg off). The
    conversion reads and writes the active action only. The transforms each clip keys so
    are named: set back, a converted bone the clip does not key would break the converted
    action (a game-rig walk: Spine, 80 deg off)."""
    stale: dict = {}     # owner -> clip -> {transform's name: its old mode}
    keyed: dict = {}     # (owner, clip) -> the data paths the clip keys, read once
    for name in converted:
        transform, mode, read = before.get(name, (None, None, ()))
        if transform is None or transform.rotation_mode == mode:
            continue
        path = transform.path_prefix + animdata.ROTATION_PATHS[mode][0]
        owner = transform.owner
        for clip in animdata.object_clips(owner):
            if clip.active or clip.name in read:
                continue
            paths = keyed.get((owner.name, clip.name))
            if paths is None:
                paths = keyed[owner.name, clip.name] = {
                    fc.data_path for fc in animdata.action_fcurves(clip.action, clip.slot)
                    if len(fc.keyframe_points)}
            if path in paths:
                who = transform.bone_name or transform.owner.name
                stale.setdefault(owner.name, {}).setdefault(clip.name, {})[who] = mode
    issues = []
    for owner, clips in stale.items():
        named = ", ".join(f'"{c}"' for c in clips)
        modes = " / ".join(sorted({m for keys in clips.values() for m in keys.values()}))
        which = "; ".join(f'"{clip}": {_names(keys)}' for clip, keys in clips.items())
        issues.append(BakeIssue(
            'WARNING', owner, "", None,
            f'Object "{owner}": its other clips {named} key {modes} rotations ({which}), '
            "which the converted transforms no longer play as keyed (a rotation mode belongs "
            "to the object or bone, not to an action). To convert a clip too, in Blender: "
            "first give this converted action a fake user (a later conversion removes an "
            "action nothing uses), then make the clip the active action, set the rotation "
            f"mode of the transforms named for it back to {modes} (only those: another "
            "converted one would no longer play the converted action) and Convert them; "
            "Revert undoes the last conversion only. Or Revert now."))
    return issues


def _names(keys: dict) -> str:
    """A clip's transforms for the warning: the first few by name, then how many more."""
    names = [f'"{n}"' for n in keys]
    return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
