# SPDX-License-Identifier: GPL-3.0-or-later
"""Step 2b of a bake: how far Blender's own playback of the keys is from the bake's
target (each plan's ``deviation_rad`` and worst frame), at the written frames and, where
the keys flip, between them. Reads Blender, changes nothing.
"""
from __future__ import annotations

import re

import numpy as np

from ...core import bezier_play, fcurve, quat
from .. import animdata
from .settings import BakeError, BakeIssue


def set_deviations(plans: list, known: dict | None = None) -> None:
    """``deviation_rad`` of each plan: the largest geodesic angle (radians) between
    Blender's own interpolation of the source rotation channels and the bake, at the baked
    frames (and between them: _between_keys; beyond a Custom Range: _beyond_range).
    Called after reduce.reduce_keys: a thinned plan (a Key Tolerance's) does not play its
    path but its keys, which written_change measures once written; here it gets only
    Blender's playback before (``played_before``) and what lies beyond its range.

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
            plan.played_before = before
    for plan in plans:
        if thinned(plan):
            # A review: measured as the path (a dense bake's keys) at the half frames, a
            # 0.5 deg Bezier bake that played 0.497 deg off read 10.41 deg.
            plan.deviation_rad = 0.0
        elif plan.held_rotation is not None:
            _on_the_steps(plan, known)
        else:
            _between_keys(plan, known)
        _beyond_range(plan)


def thinned(plan) -> bool:
    """Whether a Key Tolerance left ``plan`` fewer keys than its frames, or Bezier keys:
    Blender then plays those keys, within the tolerance of the path, not the path."""
    return plan.quats is not None and (plan.bezier is not None or plan.keep is not None)


def written_change(plan, arrays: list, played, times) -> None:
    """``deviation_rad`` of a thinned plan, once written: Blender's playback before against
    its keys' as written (``arrays``: per written channel, its keyframe arrays; ``played``:
    their values at ``times``, the samples measure_written played, or None), at the baked
    frames (under a kept Stepped modifier, each at its step start) and between the source
    keys where the frames cannot see a turn (``between_times``), the half the bake leaves
    composed with them (``compose``). Keeps what _beyond_range found. A pipeline walk: a
    0.5 deg Bezier bake of the CMU walk said 0.00 deg changed and passed a batch's
    --fail-above 0.1, while it played 0.497 deg off."""
    if not thinned(plan) or plan.played_before is None:
        return
    frames = plan.frames
    held = plan.held_rotation
    samples = frames if held is None else animdata.stepped_time(held, frames)
    at = np.minimum(np.searchsorted(times, samples), len(times) - 1) \
        if played is not None and len(times) else None
    if at is not None and np.array_equal(times[at], samples):
        values = played[at]      # the fit's (or measure_written's) own playback
    else:
        values = play_written(arrays, samples)
    ours = compose(plan, animdata.played_quats(values, plan.out_mode), frames)
    worst = quat.largest_angle_between(plan.played_before, ours)
    between = between_times(plan) if held is None else np.zeros(0)
    if between.size:
        ours = compose(plan, animdata.played_quats(play_written(arrays, between),
                                                   plan.out_mode), between)
        worst = max(worst, float(quat.angle_between(_played_before_at(plan, between),
                                                    ours).max()))
    plan.deviation_rad = max(plan.deviation_rad, worst)


def play_written(arrays: list, times) -> np.ndarray:
    """(m, c) Blender's playback at ``times`` of one rotation's channels as read back
    (``arrays``: per channel, animdata.KEY_FIELDS), CONSTANT extrapolation as written:
    the channels together where they are keyed on the same frames with handles on their
    own sides (core.bezier_play.play, the numbers of core.fcurve to ~1e-12 at a fraction
    of its cost), each channel by core.fcurve.evaluate_many otherwise."""
    first = arrays[0]
    if all(a["co"].shape == first["co"].shape and np.array_equal(a["co"][:, 0], first["co"][:, 0])
           and np.array_equal(a["interpolation"], first["interpolation"]) for a in arrays):
        try:
            return bezier_play.play(first["co"][:, 0],
                                    np.column_stack([a["co"][:, 1] for a in arrays]),
                                    np.stack([a["handle_left"] for a in arrays], axis=1),
                                    np.stack([a["handle_right"] for a in arrays], axis=1),
                                    first["interpolation"], times)
        except ValueError:
            pass    # keys of another shape (an easing, a handle backwards): core.fcurve
    curves = [(a["co"], a["handle_left"], a["handle_right"], a["interpolation"], 'CONSTANT')
              for a in arrays]
    return fcurve.evaluate_many(curves, times)


def compose(plan, written, times) -> np.ndarray:
    """Blender's orientation (m, 4) at ``times`` from the written half's ``written`` (m, 4):
    composed with the half the bake leaves, which plays on as it is (plan._target_quats
    wrote for it), where a delta composes (``plan.blender_quats`` set): delta @ rotation."""
    if plan.blender_quats is None or plan.fcurves is None:
        return written
    obj, mode, fcurves = plan.obj, plan.out_mode, plan.fcurves
    if plan.target_path.startswith("delta"):
        return quat.multiply(written, animdata.evaluate_rotation(obj, times, mode, fcurves,
                                                                 exact=True))
    return quat.multiply(animdata.evaluate_delta_rotation(obj, times, mode, fcurves,
                                                          exact=True), written)


def _played_before_at(plan, times, known: dict | None = None) -> np.ndarray:
    """Blender's playback of the source keys at ``times`` (m, 4), the delta composed (a
    Transform Cache's: as read, ``plan.between_played``)."""
    if plan.between_played is not None:
        known_times, quats = plan.between_played
        return quats[np.searchsorted(known_times, times)]
    if plan.blender_quats is not None:
        return animdata.evaluate_orientation(plan.obj, times, plan.source.mode, plan.fcurves,
                                             exact=True)
    return animdata.played_quats(animdata.evaluate_channels(
        plan.source_fcurves, plan.source_defaults, times, known), plan.source.mode)


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


def between_times(plan, known: dict | None = None) -> np.ndarray:
    """Where a bake's change can hide between its frames, beside them:

    - A Step bake writes Linear keys N frames apart: every whole frame between (a
      workflow walk: Step 3 on a BVH clip read 0.00 deg changed and played 84.7 deg off).
    - Where Blender spins between two neighbouring source keys (an Euler wrap, a flipped
      quaternion sign; animdata.far_turn_subframes), the subframes in that interval: a
      mocap wrap from one frame to the next straightened by a dense bake read 0.00 deg on
      the command line, where the report says 180 (a pipeline walk).
    - The middle of every interval between neighbouring source keys with no baked frame
      inside (a capture's key on every frame): Blender's curve bends there, the bake's
      straight keys do not.

    A Transform Cache's: every time its playback was read at between the frames, densely
    where it turns far (a walk: a USD camera's 180 deg wrap between two samples,
    straightened by the bake, read "largest change 0.00 deg"). Empty where the plan cannot
    tell (no source keys). ``known``: the source curves' keyframe arrays, read already
    (before anything is written)."""
    frames = plan.frames
    if plan.between_played is not None:
        times = plan.between_played[0]
        inside = times[(times > frames[0]) & (times < frames[-1])]
        return np.setdiff1d(inside, frames)
    composed = plan.blender_quats is not None
    if (plan.rotation_values is None or (composed and plan.fcurves is None)
            or plan.source_keys is None or frames.size < 2):
        return np.zeros(0)
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
        # The curves' keys as the reading read them (a capture's 93 curves read again for
        # the stray bound cost a tenth of the command line's bake).
        spins = animdata.far_turn_subframes(plan.obj, keys, plan.source.mode, keyed,
                                            known=known)
        inside = np.searchsorted(keys, spins, side="right") - 1
        spins = spins[bare[np.clip(inside, 0, bare.size - 1)]]
        # And the middle of each such interval: Blender's curve through a key on every
        # frame bends between them, and the bake's straight keys do not (a walk: a
        # capture's in-betweens moved 1 deg while the bake said 0.000 deg).
        middles = (keys[:-1][bare] + keys[1:][bare]) / 2.0
        between = np.union1d(between, np.concatenate([spins, middles]))
        between = between[(between > frames[0]) & (between < frames[-1])]
    # (Nothing to take out of nothing: setdiff1d sorted the frames for it.)
    return np.setdiff1d(between, frames) if between.size else between


def _between_keys(plan, known: dict | None) -> None:
    """What a bake with a key on each frame changed between them (``between_times``):
    Blender plays each written channel in a straight line from key to key, and the source
    keys its own way. Blender's playback before against the keys' after, composed with
    the delta rotation (or the rotation, under a delta bake) where one plays beside them
    (a pipeline walk: a BVH imported as objects keys delta_rotation_euler, and its
    straightened wraps read 0.00 deg). Thinned plans: written_change."""
    if plan.quats is None:
        return
    between = between_times(plan, known)
    if not between.size:
        return
    frames = plan.frames
    values = np.asarray(plan.rotation_values, dtype=np.float32).astype(np.float64)
    left = np.searchsorted(frames, between, side="right") - 1
    raw = np.stack([np.interp(between, frames, values[:, c])
                    for c in range(values.shape[1])], axis=1)
    if plan.constant_keys is not None:
        held = np.asarray(plan.constant_keys, dtype=bool)[left]   # a stepped key holds
        raw[held] = values[left[held]]
    ours = compose(plan, animdata.played_quats(raw, plan.out_mode), between)
    theirs = _played_before_at(plan, between, known)
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
            "channel's F-modifiers and keys; it was left as it was.", plan.obj.bone_name)]) \
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
