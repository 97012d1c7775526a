# SPDX-License-Identifier: GPL-3.0-or-later
"""Step 2 of a bake: the transform's keys (``read.Reading``) interpolated with ``core``
and converted to the output rotation mode; Blender's own playback for the deviation
figure; fewer keys within a tolerance. Reads Blender, changes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core import interp, keyreduce, path, quat, rotation, turn_interp
from .. import animdata
from .read import Reading, Source

# Euler output within float32 of gimbal lock (Blender stores angles as float32, so a
# pitch keyed at 90 deg comes back as 90 deg + 4e-8 rad) takes the split of the locked
# angles nearest the previous frame, as Blender's own to_euler(order, compat) does:
# otherwise a baked curve crossing the lock can jump by a turn. It costs at most
# ~4e-6 rad of orientation on those frames (core.rotation.BLENDER_GIMBAL_TOLERANCE).
GIMBAL_BAND = rotation.BLENDER_GIMBAL_TOLERANCE
from .settings import (
    ANGLE_FLOAT32_WARN,
    BakeError,
    BakeIssue,
    BakeSettings,
)
from .turns import KeyedTurns, constant_keys, keyed_turns, plain_turns, turn_notes


@dataclass
class Plan:
    obj: object
    source: Source
    out_mode: str
    frames: np.ndarray                   # (n,) baked frames
    rotation_values: np.ndarray          # (n, 3|4) channel values in out_mode
    location_values: np.ndarray | None   # (n, 3) or None when location is kept
    drop_paths: set
    quats: np.ndarray                    # (n, 4) QuatBake's orientation at each baked frame
    source_defaults: np.ndarray          # values of the source mode's unkeyed channels
    source_keyed: list                   # per source rotation channel: has keys
    target_path: str = ""                # rotation data path written (regular or delta)
    location_path: str = "location"      # location data path written (regular or delta)
    blender_quats: np.ndarray | None = None   # Blender's orientation at `frames` (delta cases)
    deviation_rad: float = 0.0           # set by write_owner (Blender's evaluation)
    source_fcurves: list = field(default_factory=list)   # the source rotation channels
    pending: tuple | None = None   # (key frames, key quats, method, reference): see below
    constant_keys: np.ndarray | None = None  # (n,) bool: baked keys written CONSTANT (steps)
    keep: np.ndarray | None = None       # indices into frames to write (None: all of them)

    def written(self) -> tuple:
        """(frames, rotation values, location values or None, constant mask or None) to write."""
        if self.keep is None:
            return self.frames, self.rotation_values, self.location_values, self.constant_keys
        loc = None if self.location_values is None else self.location_values[self.keep]
        const = None if self.constant_keys is None else self.constant_keys[self.keep]
        return self.frames[self.keep], self.rotation_values[self.keep], loc, const


def plan_reading(reading: Reading, keyed: "KeyedTurns | None", settings: BakeSettings,
                  fcurve_cache: dict | None = None) -> tuple[Plan | None, list[BakeIssue]]:
    """Compute the bake of one transform from its reading (numpy only). ``keyed``: its
    keyed turns when tracked with the others (``track_all``), None to track them here.
    Changes nothing."""
    r = reading
    obj, src, fcurves, rot_fcs, delta_fcs = r.obj, r.src, r.fcurves, r.rot_fcs, r.delta_fcs
    into_delta, delta_keyed, out_mode = r.into_delta, r.delta_keyed, r.out_mode
    target_path, rot_path, out_path, delta_paths = (r.target_path, r.rot_path, r.out_path,
                                                    r.delta_paths)
    bake_location, loc_frames, loc_points = r.bake_location, r.loc_frames, r.loc_points
    loc_into_delta, rot_frames, key_quats = r.loc_into_delta, r.rot_frames, r.key_quats
    frames, start, end = r.frames, r.start, r.end
    name, who, bone = obj.name, animdata.subject(obj), obj.bone_name
    issues: list[BakeIssue] = list(r.issues)

    def err(message, channel="", frame=None):
        issues.append(BakeIssue('ERROR', name, channel, frame, message, bone))

    method = settings.method.lower()
    try:
        if keyed is None:
            keyed = keyed_turns(r, settings)
        if keyed.stepped.any():
            # A step jumps on its key's frame: that frame is baked whatever the Step.
            ends = rot_frames[1:][keyed.stepped]
            frames = np.union1d(frames, ends[(ends >= start) & (ends <= end)])
        times = frames
        location_values = None
        if bake_location:
            loc_method = settings.location_method.lower()
            if settings.constant_speed:
                # One time map for both: each key orientation is reached where the
                # object stands at that key, at whatever frame it now gets there.
                times = path.constant_speed_times(loc_frames, loc_points, frames, loc_method)
            location_values = path.interpolate_positions(loc_frames, loc_points, times, loc_method)
            # What the other half (delta or regular location) plays after the bake.
            if loc_into_delta:
                location_values = location_values - animdata.evaluate_location(
                    obj, frames, fcurves, exact=True)
            else:
                location_values = location_values - animdata.evaluate_channels_exact(
                    animdata.delta_location_fcurves(obj, fcurves),
                    np.array(obj.delta_location, dtype=np.float64), frames)
        blender = None
        if keyed.stepped.any():
            blender = animdata.evaluate_orientation(obj, times, src.mode, fcurves, exact=True)
        # A plain rotation bake (a rig's bones) whose keys the turns machinery interpolates
        # as plain interp.interpolate (no kept turn, no step, even timing): interpolated
        # later with every other bone keyed on the same frames (interpolate_pending).
        pending = (fcurve_cache is not None and not bake_location and not into_delta
                   and not delta_keyed and not settings.constant_speed
                   and plain_turns(keyed, settings)
                   and animdata.is_identity_delta(
                       animdata.delta_rotation_defaults(obj, out_mode), out_mode))
        quats = target = None
        if not pending:
            quats = turn_interp.interpolate_keys(rot_frames, key_quats, keyed.tracking,
                                                 keyed.kinds, settings.turns, method, times,
                                                 settings.timing, blender)
            target = _target_quats(obj, quats, frames, into_delta, out_mode, fcurves)
        reference = None
        if out_mode == src.mode:
            if into_delta:
                reference = animdata.evaluate_channels_exact(
                    delta_fcs, animdata.delta_rotation_defaults(obj, src.mode), rot_frames[:1])[0]
            elif r.key_raw is not None:
                reference = r.key_raw[0]   # the first key's own values, read already
            else:
                reference = animdata.evaluate_rotation_raw(obj, rot_frames[:1], src.mode,
                                                           fcurves, exact=True)[0]
        values = None if pending else rotation.quat_to_mode_values_continuous(
            target, out_mode, reference, GIMBAL_BAND)
        # Blender's own playback at the baked frames, for the "largest difference"
        # figure, when the delta half makes the per-channel evaluation of
        # set_deviations insufficient (delta @ rotation).
        composed = None
        if delta_keyed or not animdata.is_identity_delta(
                animdata.delta_rotation_defaults(obj, src.mode), src.mode):
            composed = animdata.evaluate_orientation(obj, frames, src.mode, fcurves)
    except animdata.ChannelError as exc:
        err(str(exc), exc.channel, exc.frame)
        return None, issues
    except ValueError as exc:
        err(f"{who}: its keys cannot be baked ({exc}).", rot_path)
        return None, issues

    if values is not None:
        issues += _angle_warnings(obj, out_mode, target_path, values)

    issues += turn_notes(obj, rot_frames, keyed, settings)
    if into_delta:
        drop = delta_paths
    else:
        drop = {rot_path, out_path} | (delta_paths - {animdata.DELTA_ROTATION_PATHS.get(
            out_mode, ("",))[0]} if out_mode != src.mode else set())
    location_path = "delta_location" if loc_into_delta else "location"
    if bake_location:
        drop = drop | {location_path}
    plan = Plan(obj, src, out_mode, frames, values, location_values, drop, quats,
                 animdata.rotation_defaults(obj, src.mode), [fc is not None for fc in rot_fcs],
                 target_path=target_path, location_path=location_path, blender_quats=composed,
                 source_fcurves=rot_fcs)
    plan.constant_keys = constant_keys(frames, rot_frames, keyed.stepped)
    if pending:
        plan.pending = (rot_frames, key_quats, method, reference)
    return plan, issues


def _angle_warnings(obj, out_mode: str, target_path: str, values) -> list[BakeIssue]:
    if out_mode == 'QUATERNION':
        return []
    big = float(np.abs(values).max())
    if big <= ANGLE_FLOAT32_WARN:
        return []
    return [BakeIssue(
        'WARNING', obj.name, target_path, None,
        f"{animdata.subject(obj)}: the baked {target_path} reaches {big:.3g} radians, where "
        f"float32 keys are {float(np.spacing(np.float32(big))):.2g} rad apart; bake to "
        "Quaternion output for full precision.", obj.bone_name)]


def interpolate_pending(plans: list) -> list[BakeIssue]:
    """Finish the plans ``plan_reading`` left pending: interpolate every group keyed on the
    same frames (and baked on the same frames, same method) with one
    ``interp.interpolate_many`` call, then write-back values per transform."""
    groups: dict = {}
    for plan in plans:
        if plan.pending is not None:
            rot_frames, _q, method, _r = plan.pending
            key = (rot_frames.tobytes(), id(plan.frames), method)
            groups.setdefault(key, []).append(plan)
    issues = []
    for group in groups.values():
        rot_frames, _q, method, _r = group[0].pending
        stacked = np.stack([p.pending[1] for p in group])
        all_quats = interp.interpolate_many(rot_frames, stacked, group[0].frames, method)
        modes = {p.out_mode for p in group}
        refs = [p.pending[3] for p in group]
        if modes == {'QUATERNION'} and all(r is not None for r in refs) and \
                method in ("slerp", "nlerp"):
            # Slerp and nlerp of hemisphere-continuous keys are unit quaternions, each
            # within 90 deg (4D) of the previous sample, so they are already what
            # quat_to_mode_values_continuous makes of them except for the sign the
            # reference (the first key as keyed) asks for.
            flip = np.einsum("bi,bi->b", all_quats[:, 0], np.stack(refs)) < 0.0
            all_values = np.where(flip[:, None, None], -all_quats, all_quats)
        elif modes == {'QUATERNION'} and all(r is not None for r in refs):
            all_values = rotation.quat_to_mode_values_continuous_many(
                all_quats, 'QUATERNION', np.stack(refs))
        else:
            all_values = [rotation.quat_to_mode_values_continuous(q, p.out_mode, p.pending[3],
                                                                  GIMBAL_BAND)
                          for q, p in zip(all_quats, group)]
        for plan, quats, values in zip(group, all_quats, all_values):
            plan.quats = quats
            plan.rotation_values = values
            plan.pending = None
            issues += _angle_warnings(plan.obj, plan.out_mode, plan.target_path or
                                      animdata.ROTATION_PATHS[plan.out_mode][0],
                                      plan.rotation_values)
    return issues


def _target_quats(obj, quats, frames, into_delta: bool, out_mode: str, fcurves) -> np.ndarray:
    """The rotation to write into the baked channel so that Blender plays ``quats``.

    Blender plays delta @ rotation (animdata.DELTA_ROTATION_PATHS). The half the
    bake does not write plays on as it is (its keys, or its static value, in the
    output mode), so the written half is that half's inverse times ``quats``.
    """
    if into_delta:
        other = animdata.evaluate_rotation(obj, frames, out_mode, fcurves, exact=True)
        return quat.multiply(quats, quat.conjugate(other))
    delta_fcs = animdata.delta_rotation_fcurves(obj, out_mode, fcurves)
    if not animdata.has_keys(delta_fcs) and animdata.is_identity_delta(
            animdata.delta_rotation_defaults(obj, out_mode), out_mode):
        return quats
    other = animdata.evaluate_delta_rotation(obj, frames, out_mode, fcurves, exact=True)
    return quat.multiply(quat.conjugate(other), quats)


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
        if plan.blender_quats is None:   # delta channels: composed in plan_reading
            key = (id(plan.frames), plan.source.mode, len(plan.source_fcurves))
            groups.setdefault(key, []).append(plan)
        else:
            _worst_frames([plan], plan.blender_quats[None], plan.quats[None])
    for (_frames, mode, _width), group in groups.items():
        try:
            theirs = _blender_playback(group, mode, known)
        except ValueError:
            # Not a rotation somewhere (an F-modifier's value, say): find whose, and say so.
            theirs = np.stack([_playback_of_one(p, mode, known) for p in group])
        _worst_frames(group, theirs, np.stack([p.quats for p in group]))


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
        import re

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


def _step_keys(constant_keys) -> np.ndarray | None:
    """Keys a tolerance bake keeps around each step: the CONSTANT key and the one after it
    (Blender holds, then jumps; the LINEAR check between kept keys would not know)."""
    if constant_keys is None:
        return None
    fixed = np.array(constant_keys, dtype=bool)
    fixed[1:] |= fixed[:-1]
    return fixed


def reduce_keys(plans: list, settings: BakeSettings) -> None:
    """Set each plan's ``keep``: the fewest keys within the tolerance (all objects at once)."""
    tracks = [keyreduce.Track(p.frames, p.quats, p.rotation_values, p.out_mode, p.location_values,
                              fixed=_step_keys(p.constant_keys)) for p in plans]
    for plan, keep in zip(plans, keyreduce.select_keys_many(
            tracks, settings.tolerance_deg, settings.location_tolerance)):
        plan.keep = keep
