# SPDX-License-Identifier: GPL-3.0-or-later
"""Step 2b of a bake: how far Blender's own playback of the keys is from the bake's
target (each plan's ``deviation_rad`` and worst frame), at the written frames and, where
the keys flip, between them. Reads Blender, changes nothing.
"""
from __future__ import annotations

import re

import numpy as np

from ...core import quat
from .. import animdata
from .settings import BakeError, BakeIssue


def set_deviations(plans: list, known: dict | None = None) -> None:
    """``deviation_rad`` of each plan: the largest geodesic angle (radians) between
    Blender's own interpolation of the source rotation channels and the bake, at the baked
    frames.

    Blender's side comes from ``animdata.evaluate_channels`` (Blender's curves in numpy,
    to float32 precision; fc.evaluate for anything it does not cover), every plan on the
    same frames in one call, so a rig's bones keyed on the same frames share one solve.
    """
    groups: dict = {}
    for plan in plans:
        if plan.quats is None:           # a location bake: the rotation is not changed
            plan.deviation_rad = 0.0
        elif plan.blender_quats is None:   # delta channels: composed in plan_reading
            key = (id(plan.frames), plan.source.mode, len(plan.source_fcurves))
            groups.setdefault(key, []).append(plan)
        else:
            _worst_frames([plan], plan.blender_quats[None], plan.quats[None])
            plan.played_before = plan.blender_quats
    for (_frames, mode, _width), group in groups.items():
        try:
            theirs = _blender_playback(group, mode, known)
        except ValueError:
            # Not a rotation somewhere (an F-modifier's value, say): find whose, and say so.
            theirs = np.stack([_playback_of_one(p, mode, known) for p in group])
        _worst_frames(group, theirs, np.stack([p.quats for p in group]))
        for plan, before in zip(group, theirs):
            plan.played_before = before    # a tolerance bake's keys are measured on it
    for plan in plans:
        if plan.held_rotation is not None:
            _on_the_steps(plan, known)
        else:
            _between_keys(plan, known)
        _beyond_range(plan)


def _on_the_steps(plan, known: dict | None) -> None:
    """A plan whose written channels keep the source's Stepped modifier (held_rotation):
    Blender plays both the source and the bake held, each frame at the start of its step,
    so each frame's playback before the bake (fc.evaluate: the modifier included) is
    compared with the bake's pose at that frame's step start (a review: compared with the
    bake's smooth keys at every frame, the held source read 10 deg changed where nothing
    played otherwise)."""
    theirs = plan.blender_quats if plan.blender_quats is not None else \
        _playback_of_one(plan, plan.source.mode, known)
    plan.deviation_rad = float(quat.angle_between(theirs, _held_bake(plan, plan.frames)).max())


def _held_bake(plan, times) -> np.ndarray:
    """(m, 4) the bake's pose that Blender plays at ``times`` under the kept Stepped
    modifier: its keys' pose at each time's step start (animdata.stepped_time, in float32
    as Blender; a start is one of the baked frames, read.py adds the missing ones), the
    first or last baked pose where the start lies outside the baked frames (its keys hold
    there)."""
    starts = animdata.stepped_time(plan.held_rotation, times)
    # The nearest baked frame: a start within float32 rounding of one, or beyond the ends.
    return plan.quats[animdata.nearest_frame(starts, plan.frames)]


def _beyond_range(plan) -> None:
    """What a Custom Range bake changed beyond its range: the baked keys end there, so
    Blender holds the range's first pose before it and its last pose after it, where the
    source went on moving (a pipeline walk: --frames 1-20 read "largest change 3.94 deg"
    with frames 21-40 held 149 deg away). ``plan.beyond``: Blender's playback before the
    bake there (the keyed span's whole frames and keys; a Transform Cache's samples),
    against the held pose (under a kept Stepped modifier, the pose at each time's step
    start, which may lie inside the range: _held_bake)."""
    if plan.beyond is None or plan.quats is None:
        return
    times, theirs = plan.beyond
    if not times.size:
        return     # a step shorter than a frame played past the last key: no frame there
    frames = plan.frames
    if plan.held_rotation is not None:
        held = _held_bake(plan, times)
    else:
        held = np.where((times < frames[0])[:, None], plan.quats[:1], plan.quats[-1:])
    plan.deviation_rad = max(plan.deviation_rad,
                             float(quat.angle_between(theirs, held).max()))


def _between_keys(plan, known: dict | None) -> None:
    """What the bake changed between its keys, beside the keys: Blender plays each written
    channel in a straight line from key to key, and the source keys its own way.

    - A Step bake writes Linear keys N frames apart: every whole frame between (a
      workflow walk: Step 3 on a BVH clip read 0.00 deg changed and played 84.7 deg off).
    - Where Blender spins between two neighbouring source keys (an Euler wrap, a flipped
      quaternion sign; animdata.far_turn_subframes), the subframes in that interval: a
      mocap wrap from one frame to the next straightened by a dense bake read 0.00 deg on
      the command line, where the report says 180 (a pipeline walk).
    - The middle of every interval between neighbouring source keys with no baked frame
      inside (a capture's key on every frame): Blender's curve bends there, the bake's
      straight keys do not.

    Blender's playback before against the keys' playback after, composed with the delta
    rotation (or the rotation, under a delta bake) where one plays beside them (a pipeline
    walk: a BVH imported as objects keys delta_rotation_euler, and its straightened wraps
    read 0.00 deg). Bezier and tolerance bakes are measured elsewhere; Transform Cache
    bakes are left as they are."""
    frames = plan.frames
    composed = plan.blender_quats is not None
    if (plan.quats is None or plan.rotation_values is None or plan.bezier is not None
            or plan.keep is not None or (composed and plan.fcurves is None)
            or plan.source_keys is None or frames.size < 2):
        return
    between = np.zeros(0)
    if np.diff(frames).max() > 1.0:
        between = np.arange(np.ceil(frames[0]), np.floor(frames[-1]) + 1.0)
    # None: not keyed. With a delta, its channels too (far_turn_subframes finds them).
    keyed = plan.fcurves if composed else [fc for fc in plan.source_fcurves if fc is not None]
    # The frames the reading found (not the curves read again: 100 objects' keys cost a
    # tenth of the Re-bake click).
    keys = plan.source_keys
    # Only key intervals with no baked frame inside can hide a spin from the frames (keys
    # on neighbouring frames, a mocap clip's); elsewhere the frames sample it already (a
    # rig keyed every 100 frames: measuring its flipped intervals again cost a fifth of
    # the Re-bake click).
    bare = np.searchsorted(frames, keys[:-1], side="right") >= np.searchsorted(frames, keys[1:])
    if bare.any():
        spins = animdata.far_turn_subframes(plan.obj, keys, plan.source.mode, keyed)
        inside = np.searchsorted(keys, spins, side="right") - 1
        spins = spins[bare[np.clip(inside, 0, bare.size - 1)]]
        # And the middle of each such interval: Blender's curve through a key on every
        # frame bends between them, and the bake's straight keys do not (a walk: a
        # capture's in-betweens moved 1 deg while the bake said 0.000 deg).
        middles = (keys[:-1][bare] + keys[1:][bare]) / 2.0
        between = np.union1d(between, np.concatenate([spins, middles]))
        between = between[(between > frames[0]) & (between < frames[-1])]
    between = np.setdiff1d(between, frames)
    if not between.size:
        return
    values = np.asarray(plan.rotation_values, dtype=np.float32).astype(np.float64)
    left = np.searchsorted(frames, between, side="right") - 1
    raw = np.stack([np.interp(between, frames, values[:, c])
                    for c in range(values.shape[1])], axis=1)
    if plan.constant_keys is not None:
        held = np.asarray(plan.constant_keys, dtype=bool)[left]   # a stepped key holds
        raw[held] = values[left[held]]
    ours = animdata.played_quats(raw, plan.out_mode)
    if composed:
        # The half the bake leaves plays on as it is (as plan._target_quats wrote for).
        obj, mode, fcurves = plan.obj, plan.out_mode, plan.fcurves
        if plan.target_path.startswith("delta"):
            ours = quat.multiply(ours, animdata.evaluate_rotation(obj, between, mode, fcurves,
                                                                  exact=True))
        else:
            ours = quat.multiply(animdata.evaluate_delta_rotation(obj, between, mode, fcurves,
                                                                  exact=True), ours)
        theirs = animdata.evaluate_orientation(obj, between, plan.source.mode, fcurves,
                                               exact=True)
    else:
        theirs = animdata.played_quats(animdata.evaluate_channels(
            plan.source_fcurves, plan.source_defaults, between, known), plan.source.mode)
    plan.deviation_rad = max(plan.deviation_rad,
                             float(quat.angle_between(theirs, ours).max()))


def _blender_playback(group: list, mode: str, known: dict | None) -> np.ndarray:
    """(b, n, 4): Blender's playback of the source channels of plans baked on the same
    frames, one evaluation and one conversion for all of them."""
    frames = group[0].frames
    raw = animdata.evaluate_channels([fc for p in group for fc in p.source_fcurves],
                                     np.concatenate([p.source_defaults for p in group]),
                                     frames, known)
    return animdata.played_quats_of_many(raw, mode, len(group))


def _playback_of_one(plan, mode: str, known: dict | None) -> np.ndarray:
    """``_blender_playback`` of one plan; a BakeError naming the transform, the channel
    and the frame when Blender's playback there is no rotation (nothing written yet)."""
    try:
        return _blender_playback([plan], mode, known)[0]
    except ValueError as exc:
        found = re.search(r"key (\d+)", str(exc))
        frame = float(plan.frames[int(found.group(1))]) if found and \
            int(found.group(1)) < plan.frames.size else None
        where = f" at frame {animdata.frame_label(frame)}" if frame is not None else ""
        path = animdata.ROTATION_PATHS[mode][0]
        raise BakeError([BakeIssue(
            'ERROR', plan.obj.name, path, frame,
            f"{animdata.subject(plan.obj)}: Blender's own playback of {path} is no rotation"
            f"{where} ({exc}), so the bake cannot be checked against it. Look at that "
            "channel's F-modifiers and keys; nothing was changed.", plan.obj.bone_name)]) \
            from None


def _worst_frames(plans: list, theirs: np.ndarray, ours: np.ndarray) -> None:
    """Set ``deviation_rad`` of each plan from (b, n, 4) rotations: Blender's, the bake's.

    For unit quaternions the angle grows as |dot| shrinks, so each plan's worst frame is
    found by |dot| (one einsum for all) and the exact atan2 angle taken there. Float64
    dots order angles to ~3e-8 rad, far below what the figure (degrees, 3 decimals)
    shows; a single transform gets the exact maximum.
    """
    if len(plans) == 1:
        plans[0].deviation_rad = float(quat.angle_between(theirs[0], ours[0]).max())
        return
    # Blender's side is unit already (mode_values_to_quat normalises it); the bake's is
    # not for the LERP baseline (the command line still bakes it).
    ours_unit = ours / quat.norm(ours)[..., None]
    at = np.argmin(np.abs(np.einsum("bij,bij->bi", theirs, ours_unit)), axis=1)
    rows = np.arange(len(plans))
    angles = quat.angle_between(theirs[rows, at], ours[rows, at])
    for plan, angle in zip(plans, angles):
        plan.deviation_rad = float(angle)
