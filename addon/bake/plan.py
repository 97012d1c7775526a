# SPDX-License-Identifier: GPL-3.0-or-later
"""Step 2 of a bake: the transform's keys (``read.Reading``) interpolated with ``core``
and converted to the output rotation mode; Blender's own playback for the deviation
figure; fewer keys within a tolerance. Reads Blender, changes nothing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import bpy
import numpy as np

from ...core import (
    bezier_keys,
    bezier_play,
    fcurve,
    interp,
    keyreduce,
    path,
    pixels,
    quat,
    rotation,
    turn_interp,
)
from ...core.pitfalls import keys_are_dense
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
    bezier_fit,
    path_samples,
)
from .turns import (
    KeyedTurns,
    constant_keys,
    keeps_whole_turns,
    keyed_turns,
    plain_turns,
    turn_notes,
)


@dataclass
class Plan:
    obj: object
    source: Source
    out_mode: str
    frames: np.ndarray                   # (n,) baked frames
    rotation_values: np.ndarray | None   # (n, 3|4) channel values in out_mode; None: a
    #                                      location bake of a transform without rotation keys
    location_values: np.ndarray | None   # (n, 3) or None when location is kept
    drop_paths: set
    quats: np.ndarray | None             # (n, 4) QuatBake's orientation at each baked frame
    #                                      (None: location only, the rotation is not written)
    source_defaults: np.ndarray          # values of the source mode's unkeyed channels
    source_keyed: list                   # per source rotation channel: has keys
    target_path: str = ""                # rotation data path written (regular or delta)
    location_path: str = "location"      # location data path written (regular or delta)
    blender_quats: np.ndarray | None = None   # Blender's orientation at `frames` (delta cases)
    deviation_rad: float = 0.0           # set by write_owner (Blender's evaluation)
    source_fcurves: list = field(default_factory=list)   # the source rotation channels
    pending: "Pending | None" = None   # interpolated with its group: interpolate_group
    constant_keys: np.ndarray | None = None  # (n,) bool: baked keys written CONSTANT (steps)
    keep: np.ndarray | None = None       # indices into frames to write (None: all of them)
    # A Bezier tolerance bake (issue 22): the method's path at every sample (quarter
    # frames and the baked frames): (times (m,), the written half's target
    # orientation (m, 4), its channel values (m, c)); the key frames the fit must keep
    # and the held (stepped) intervals; then the fitted keys, and the location keys kept.
    dense: tuple | None = None
    required_frames: np.ndarray | None = None
    stepped_frames: np.ndarray | None = None    # (s, 2) start, end
    corner_frames: np.ndarray | None = None     # the animator's keys, when not kept
    bezier: "bezier_keys.BezierKeys | None" = None
    location_keep: np.ndarray | None = None     # indices into frames (Bezier + location)
    key_count_before: int = 0                    # the animator's keys per rotation channel
    source_keys: np.ndarray | None = None        # their frames (rotation channels)
    tolerance_deg: float = 0.0                   # set by reduce_keys (0: every key kept)
    tolerance_px: float = 0.0                    # a camera's pixel tolerance, if any
    pixels_per_radian: float | None = None       # a perspective camera's (core.pixels)
    key_stats: dict | None = None                # measured after the write (write_owner)
    tolerance_tip: float = 0.0                   # a pose bone's tip tolerance (scene units)
    #                                              when it set tolerance_deg (_plan_tolerance)
    tip_fallback: str = ""                       # why a tip tolerance asked for did not apply
    # Set by write_owner: (data path, channels, animdata.checksum of the keys written)
    # per path, in the record so that a Re-bake sees keys edited since (read.py).
    checksums: list = field(default_factory=list)

    @property
    def location_only(self) -> bool:
        return self.rotation_values is None and self.pending is None

    def written(self) -> tuple:
        """(frames, rotation values or None, location values or None, constant mask or None)
        to write; rotation values None: a location bake.

        For Bezier keys: their frames and values (the handles are in ``bezier``); the
        location keys are ``location_written``."""
        if self.bezier is not None:
            return self.bezier.frames, self.bezier.values, None, None
        if self.keep is None:
            return self.frames, self.rotation_values, self.location_values, self.constant_keys
        loc = None if self.location_values is None else self.location_values[self.keep]
        const = None if self.constant_keys is None else self.constant_keys[self.keep]
        rot = None if self.rotation_values is None else self.rotation_values[self.keep]
        return self.frames[self.keep], rot, loc, const

    def location_written(self) -> tuple:
        """(frames, location values) of the location keys to write, or (frames, None)."""
        if self.bezier is None:
            frames, _rot, loc, _const = self.written()
            return frames, loc
        if self.location_values is None or self.location_keep is None:
            return self.frames, self.location_values
        return self.frames[self.location_keep], self.location_values[self.location_keep]


def plan_reading(reading: Reading, keyed: "KeyedTurns | None", settings: BakeSettings,
                  fcurve_cache: dict | None = None) -> tuple[Plan | None, list[BakeIssue]]:
    """Compute the bake of one transform from its reading (numpy only). ``keyed``: its
    keyed turns when tracked with the others (``track_all``), None to track them here.
    Changes nothing."""
    r = reading
    if r.location_only:
        return plan_location(r, settings)
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
    fit = bezier_fit(settings)
    try:
        if keyed is None:
            keyed = keyed_turns(r, settings)
        if keyed.stepped.any():
            # A step jumps on its key's frame: that frame is baked whatever the Step.
            ends = rot_frames[1:][keyed.stepped]
            frames = np.union1d(frames, ends[(ends >= start) & (ends <= end)])
        # The method's path is computed at ``samples``: the baked frames, and for Bezier
        # keys every quarter frame too (``at``: where the baked frames are among them).
        samples = path_samples(frames, settings)
        at = np.searchsorted(samples, frames)
        times = samples
        location_values = None
        if bake_location:
            loc_method = settings.location_method.lower()
            if settings.constant_speed:
                # One time map for both: each key orientation is reached where the
                # object stands at that key, at whatever frame it now gets there.
                times = path.constant_speed_times(loc_frames, loc_points, samples, loc_method)
            location_values = path.interpolate_positions(loc_frames, loc_points, times[at],
                                                         loc_method)
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
        # A rotation bake (a rig's bones, a selection of objects) whose path the turns
        # machinery computes for a group in one call: plain interp.interpolate (no kept
        # turn, no step, even timing), or slerp keeping whole turns with no step
        # (turn_interp.slerp_many). Interpolated later with every other transform keyed
        # on the same frames (interpolate_group), its channel values too.
        batched = (fcurve_cache is not None and not fit and not settings.keep_playback
                   and not into_delta and not delta_keyed and not settings.constant_speed
                   and animdata.is_identity_delta(
                       animdata.delta_rotation_defaults(obj, out_mode), out_mode))
        pending = None
        if batched and plain_turns(keyed, settings):
            pending = Pending(rot_frames, key_quats, method)
        elif (batched and method == "slerp" and not keyed.stepped.any()
              and keeps_whole_turns(keyed, settings)):
            pending = Pending(rot_frames, key_quats, method, keyed=keyed,
                              turns=settings.turns, timing=settings.timing)
        quats = target = None
        if settings.keep_playback:
            # A rotation-mode conversion: what Blender plays now, in-betweens included.
            quats = animdata.evaluate_orientation(obj, times, src.mode, fcurves, exact=True)
            target = _target_quats(obj, quats, samples, into_delta, out_mode, fcurves)
        elif not pending:
            quats = turn_interp.interpolate_keys(rot_frames, key_quats, keyed.tracking,
                                                 keyed.kinds, settings.turns, method, times,
                                                 settings.timing, blender)
            target = _target_quats(obj, quats, samples, into_delta, out_mode, fcurves)
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
        dense = None
        if fit:
            dense = (samples, target, values)
            quats, values = quats[at], values[at]
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

    if not settings.keep_playback:     # a conversion turns as Blender plays the keys
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
    plan.key_count_before = int(rot_frames.shape[0])
    plan.source_keys = rot_frames
    if dense is not None:
        plan.dense = dense
        plan.required_frames, plan.stepped_frames, plan.corner_frames = _fixed_frames(
            rot_frames, keyed.stepped, dense, settings)
    if pending:
        pending.reference = reference
        plan.pending = pending
    return plan, issues


@dataclass
class Pending:
    """A rotation path left for ``interpolate_group``: the keys, the method, the
    reference the channel values start from, and for slerp keeping whole turns the
    keyed turns and the Turns and Timing settings (None: plain interpolation)."""

    key_frames: np.ndarray
    key_quats: np.ndarray
    method: str
    reference: np.ndarray | None = None
    keyed: KeyedTurns | None = None
    turns: str = ""
    timing: str = ""

    def group(self, frames: np.ndarray) -> tuple:
        """What must be the same for transforms to be interpolated together."""
        return (self.key_frames.tobytes(), frames.tobytes(), self.method,
                self.keyed is not None, self.turns, self.timing)


def _baked_positions(reading: Reading, settings: BakeSettings, frames: np.ndarray) -> tuple:
    """(times, location values) at the baked ``frames``: the location path sampled there
    (at arc-length times with constant speed), minus what the other half (delta or
    regular location) plays after the bake."""
    r = reading
    loc_method = settings.location_method.lower()
    times = frames
    if settings.constant_speed:
        times = path.constant_speed_times(r.loc_frames, r.loc_points, frames, loc_method)
    values = path.interpolate_positions(r.loc_frames, r.loc_points, times, loc_method)
    if r.loc_into_delta:
        return times, values - animdata.evaluate_location(r.obj, frames, r.fcurves, exact=True)
    return times, values - animdata.evaluate_channels_exact(
        animdata.delta_location_fcurves(r.obj, r.fcurves),
        np.array(r.obj.delta_location, dtype=np.float64), frames)


def plan_location(reading: Reading, settings: BakeSettings) -> tuple[Plan | None, list]:
    """The bake of a transform keyed on location and not on rotation (a Rigify IK control):
    its location path re-baked as ``settings`` say, its rotation left as it is."""
    r = reading
    issues: list[BakeIssue] = list(r.issues)
    try:
        _times, location_values = _baked_positions(r, settings, r.frames)
    except (animdata.ChannelError, ValueError) as exc:
        issues.append(BakeIssue('ERROR', r.obj.name, "location", None,
                                f"{animdata.subject(r.obj)}: its location keys cannot be "
                                f"baked ({exc}).", r.obj.bone_name))
        return None, issues
    location_path = "delta_location" if r.loc_into_delta else "location"
    plan = Plan(r.obj, r.src, r.src.mode, r.frames, None, location_values, {location_path},
                None, animdata.rotation_defaults(r.obj, r.src.mode), [],
                location_path=location_path)
    plan.key_count_before = int(r.loc_frames.shape[0])
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


def pending_groups(plans: list) -> list[list]:
    """The plans ``plan_reading`` left pending, in groups keyed on the same frames (and
    baked on the same frames, same method and turns), each one call of interpolate_group."""
    groups: dict = {}
    for plan in plans:
        if plan.pending is not None:
            groups.setdefault(plan.pending.group(plan.frames), []).append(plan)
    return list(groups.values())


def interpolate_group(group: list) -> list[BakeIssue]:
    """Finish one of pending_groups: interpolate it in one call,
    ``interp.interpolate_many`` or ``turn_interp.slerp_many``, then the channel values,
    one call per output mode. Raises before any plan is changed (the engine then
    retries each plan alone, so that an error names its transform)."""
    first = group[0].pending
    stacked = np.stack([p.pending.key_quats for p in group])
    if first.keyed is None:
        all_quats = interp.interpolate_many(first.key_frames, stacked, group[0].frames,
                                            first.method)
    else:
        keyed = [p.pending.keyed for p in group]
        all_quats = turn_interp.slerp_many(
            first.key_frames, stacked, [k.tracking for k in keyed],
            [k.kinds for k in keyed], first.turns, group[0].frames, first.timing)
    by_mode: dict = {}
    for i, p in enumerate(group):
        by_mode.setdefault(p.out_mode, []).append(i)
    all_values: list = [None] * len(group)
    for mode, members in by_mode.items():
        for i, values in zip(members, _channel_values(
                mode, all_quats[members], [group[i].pending.reference for i in members],
                plain=first.keyed is None and first.method in ("slerp", "nlerp"))):
            all_values[i] = values
    issues = []
    for plan, values in zip(group, all_values):
        issues += _angle_warnings(plan.obj, plan.out_mode, plan.target_path or
                                  animdata.ROTATION_PATHS[plan.out_mode][0], values)
    for plan, quats, values in zip(group, all_quats, all_values):
        plan.quats = quats
        plan.rotation_values = values
        plan.pending = None
    return issues


def _channel_values(mode: str, quats: np.ndarray, refs: list, plain: bool) -> list:
    """The channel values to write in ``mode`` for each of ``quats`` (b, n, 4), each
    continuous from its reference (None: from quat_to_mode_values_continuous' own start)."""
    if mode == 'QUATERNION' and all(r is not None for r in refs):
        if plain:
            # Slerp and nlerp of hemisphere-continuous keys are unit quaternions, each
            # within 90 deg (4D) of the previous sample, so they are already what
            # quat_to_mode_values_continuous makes of them except for the sign the
            # reference (the first key as keyed) asks for.
            flip = np.einsum("bi,bi->b", quats[:, 0], np.stack(refs)) < 0.0
            return list(np.where(flip[:, None, None], -quats, quats))
        return list(rotation.quat_to_mode_values_continuous_many(quats, mode, np.stack(refs)))
    # Euler and axis-angle one sequence at a time: their conversion is arithmetic (three
    # atan2 and two hypot per sample), which a batch does not make cheaper (measured:
    # 100 objects x 2,000 frames 78 ms one by one, 80 ms batched).
    return [rotation.quat_to_mode_values_continuous(q, mode, r, GIMBAL_BAND)
            for q, r in zip(quats, refs)]


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
        if plan.quats is None:           # a location bake: the rotation is not changed
            plan.deviation_rad = 0.0
        elif plan.blender_quats is None:   # delta channels: composed in plan_reading
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
    for plan in plans:
        _between_keys(plan, known)


def _between_keys(plan, known: dict | None) -> None:
    """What the bake changed between its keys, beside the keys: Blender plays each written
    channel in a straight line from key to key, and the source keys its own way.

    - A Step bake writes Linear keys N frames apart: every whole frame between (a
      workflow walk: Step 3 on a BVH clip read 0.00 deg changed and played 84.7 deg off).
    - Where Blender spins between two neighbouring source keys (an Euler wrap, a flipped
      quaternion sign; animdata.far_turn_subframes), the subframes in that interval: a
      mocap wrap from one frame to the next straightened by a dense bake read 0.00 deg on
      the command line, where the report says 180 (a pipeline walk).

    Blender's playback before against the keys' playback after. Bezier and tolerance bakes
    are measured elsewhere; delta and Transform Cache bakes, whose playback composes other
    channels, are left as they are."""
    frames = plan.frames
    if (plan.quats is None or plan.rotation_values is None or plan.bezier is not None
            or plan.keep is not None or plan.blender_quats is not None
            or plan.target_path not in ("", animdata.ROTATION_PATHS[plan.out_mode][0])
            or plan.source_keys is None or frames.size < 2):
        return
    between = np.zeros(0)
    if np.diff(frames).max() > 1.0:
        between = np.arange(np.ceil(frames[0]), np.floor(frames[-1]) + 1.0)
    keyed = [fc for fc in plan.source_fcurves if fc is not None]    # None: not keyed
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
        between = np.union1d(between, spins[(spins > frames[0]) & (spins < frames[-1])])
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


def _step_keys(constant_keys) -> np.ndarray | None:
    """Keys a tolerance bake keeps around each step: the CONSTANT key and the one after it
    (Blender holds, then jumps; the LINEAR check between kept keys would not know)."""
    if constant_keys is None:
        return None
    fixed = np.array(constant_keys, dtype=bool)
    fixed[1:] |= fixed[:-1]
    return fixed


def _still_track(plan) -> keyreduce.Track:
    """A location bake's track for key reduction: a still rotation, so the location alone
    decides which keys stay."""
    n = plan.frames.shape[0]
    still = np.tile(np.array([1.0, 0.0, 0.0, 0.0]), (n, 1))
    return keyreduce.Track(plan.frames, still, still, 'QUATERNION', plan.location_values)


def reduce_keys(plans: list, settings: BakeSettings) -> list[BakeIssue]:
    """Set each plan's ``tolerance_deg`` (the degrees, or for a perspective camera with
    ``tolerance_px`` the angle that moves no pixel more than that), then its ``keep``
    (LINEAR keys, core.keyreduce) or ``bezier`` (Bezier keys, core.bezier_keys): the
    fewest keys within it, the plans of one tolerance at once. Plans with no tolerance
    (not cameras, with a pixel tolerance only) keep every key. Returns warnings; raises
    BakeError (nothing written yet) naming the transform whose keys cannot be fitted."""
    warnings: list[BakeIssue] = []
    for plan in plans:
        plan.tolerance_deg = _plan_tolerance(plan, settings, warnings)
    # Bezier plans are fitted together whatever their tolerances (core.bezier_keys takes
    # one per track: a rig's bones at a tip distance each have their own angle, and
    # fitting each angle on its own took 52 s for the 31-bone CMU walk); LINEAR plans
    # are reduced per tolerance.
    bezier = [p for p in plans if p.tolerance_deg > 0.0 and p.dense is not None]
    if bezier:
        _fit_bezier(bezier, settings)
    groups: dict = {}
    for plan in plans:
        if plan.tolerance_deg > 0.0 and plan.dense is None:
            groups.setdefault(plan.tolerance_deg, []).append(plan)
    for tol, group in groups.items():
        tracks = [keyreduce.Track(p.frames, p.quats, p.rotation_values, p.out_mode,
                                  p.location_values, fixed=_step_keys(p.constant_keys))
                  if p.quats is not None else _still_track(p) for p in group]
        for plan, keep in zip(group, keyreduce.select_keys_many(
                tracks, tol, settings.location_tolerance)):
            plan.keep = keep
    return warnings


def _camera_frames(plan) -> list:
    """core.pixels.CameraFrame of a perspective camera's plan at each distinct lens and
    shift it has over the baked frames (the scene's render size), [] for anything else;
    raises ValueError for a camera whose settings make no frame."""
    obj = plan.obj
    owner = getattr(obj, "owner", obj)
    cam = getattr(owner, "data", None)
    if getattr(obj, "bone_name", "") or owner.type != 'CAMERA' or cam is None:
        return []
    if cam.type != 'PERSP':
        raise ValueError(f"it is {cam.type.lower()}, and a pixel tolerance needs a "
                         "perspective camera")
    render = bpy.context.scene.render
    statics = {"lens": cam.lens, "shift_x": cam.shift_x, "shift_y": cam.shift_y}
    columns = {}
    for fc in animdata.object_fcurves(cam):
        if fc.data_path in statics and fc.array_index == 0:
            columns[fc.data_path] = np.fromiter(map(fc.evaluate, plan.frames.tolist()),
                                                dtype=np.float64, count=plan.frames.size)
    n = plan.frames.size if columns else 1
    table = np.column_stack([columns.get(k, np.full(n, float(v))) for k, v in statics.items()])
    return [pixels.camera_frame(lens, cam.sensor_width, cam.sensor_height, cam.sensor_fit,
                                render.resolution_x, render.resolution_y,
                                render.resolution_percentage, render.pixel_aspect_x,
                                render.pixel_aspect_y, sx, sy)
            for lens, sx, sy in np.unique(table, axis=0)]


def _plan_tolerance(plan, settings: BakeSettings, warnings: list) -> float:
    """The angle (degrees) the plan's keys may miss the bake by; sets
    ``plan.pixels_per_radian`` for a perspective camera (the report gives pixels)."""
    tol = settings.tolerance_deg
    try:
        frames = _camera_frames(plan)
    except ValueError as exc:
        frames = []
        if settings.tolerance_px > 0.0:
            warnings.append(BakeIssue(
                'WARNING', plan.obj.name, "", None,
                f"{animdata.subject(plan.obj)}: no pixel tolerance ({exc}); "
                + (f"baked within {tol:g} deg instead." if tol > 0.0 else
                   "baked with a key on every step frame (give a Key Tolerance in degrees "
                   "for it)."), plan.obj.bone_name))
    if frames:
        plan.pixels_per_radian = max(pixels.pixels_per_radian(f) for f in frames)
        if settings.tolerance_px > 0.0:
            by_px = float(np.degrees(settings.tolerance_px / plan.pixels_per_radian))
            plan.tolerance_px = settings.tolerance_px
            tol = min(tol, by_px) if tol > 0.0 else by_px
    if settings.tolerance_tip > 0.0:
        by_tip, plan.tip_fallback = _tip_degrees(plan.obj, settings.tolerance_tip)
        if by_tip is not None:
            plan.tolerance_tip = settings.tolerance_tip
            tol = min(tol, by_tip) if tol > 0.0 else by_tip
    return tol


# No rotation moves a tip farther than twice the bone's length, and two orientations are
# never more than 180 deg apart: a tip tolerance of a bone shorter than it asks no more.
_TIP_MAX_DEG = 180.0


def tip_length(obj) -> float:
    """A pose bone's length in the world, scene units: its rest length (armature space)
    times the largest stretch of the armature's world matrix at the current frame (its
    largest axis |scale|, and exact under a sheared parent too: the matrix's largest
    singular value). The largest axis, because a rotation error can swing the tip along
    any axis: the stretch that axis gets is what the tip moves at worst, so the angle
    from it keeps every direction within the distance (the bone's own axis may be
    scaled less). 0.0 for anything but a bone."""
    name = getattr(obj, "bone_name", "")
    owner = getattr(obj, "owner", obj)
    bones = getattr(getattr(owner, "data", None), "bones", None)
    bone = bones.get(name) if name and bones is not None else None
    if bone is None:
        return 0.0
    stretch = np.linalg.svd(np.array(owner.matrix_world, dtype=np.float64)[:3, :3],
                            compute_uv=False)
    return float(bone.length) * float(stretch.max())


def _tip_degrees(obj, distance: float) -> tuple:
    """(the angle, degrees, that moves a pose bone's tip at most ``distance`` scene
    units, "") or (None, why not) for a transform that is not a bone, or a bone of no
    length in the world. A rotation by an angle a moves the tip 2 L sin(a / 2) <= L a,
    so a = distance / L (radians) keeps it within the distance; the tip's move relative
    to the bone's head (a parent's error moves the head as well)."""
    if not getattr(obj, "bone_name", ""):
        return None, "not a pose bone"
    length = tip_length(obj)
    if not (length > 0.0 and np.isfinite(length)):
        return None, "of zero length in the world (its length times the armature's scale)"
    return min(float(np.degrees(distance / length)), _TIP_MAX_DEG), ""


# Within a stepped interval the method holds one orientation (turn_interp: Blender's
# own playback, which holds when every channel is CONSTANT): held when no sample is
# farther than this from the interval's first (radians; float64 noise is ~1e-15).
_HELD_RAD = 1e-9


def _fixed_frames(rot_frames, stepped, dense, settings: BakeSettings) -> tuple:
    """(required key frames, (s, 2) held intervals, corner frames) of a Bezier fit: the
    animator's key frames inside the baked range (unless ``keep_key_frames`` is off:
    then they are corners, where a key may go with a handle on each side of the
    method's turn, but need not), and the stepped intervals the method holds, clipped to
    the range. A stepped interval the method does not hold (CONSTANT keys on some
    channels only) is fitted like any other, its ends kept."""
    samples, target, _values = dense
    lo, hi = float(samples[0]), float(samples[-1])
    inside = rot_frames[(rot_frames >= lo) & (rot_frames <= hi)]
    # A key on every frame (mocap, a sampled import) is a recording, not the animator's
    # poses: kept, it would leave a tolerance bake nothing to thin (issue 24's walk: a
    # BVH at 1 deg kept all 16,244 keys).
    poses = not keys_are_dense(rot_frames)
    required = inside if poses and settings.keep_key_frames else np.zeros(0)
    corners = inside if poses and not settings.keep_key_frames else np.zeros(0)
    held = []
    for i in np.flatnonzero(stepped):
        a, b = max(float(rot_frames[i]), lo), min(float(rot_frames[i + 1]), hi)
        if b <= a:
            continue
        ia, ib = np.searchsorted(samples, [a, b])
        span = target[ia:ib + (1 if b == hi and rot_frames[i + 1] > hi else 0)]
        if span.shape[0] and quat.angle_between(span, span[:1]).max() <= _HELD_RAD:
            held.append((a, b))
        else:
            required = np.union1d(required, [a, b])
    return (np.asarray(required, dtype=np.float64),
            np.asarray(held, dtype=np.float64).reshape(-1, 2),
            np.asarray(corners, dtype=np.float64))


def _bezier_track(plan) -> bezier_keys.Track:
    samples, target, values = plan.dense
    return bezier_keys.Track(samples, target, values, plan.out_mode, plan.required_frames,
                             plan.stepped_frames, plan.corner_frames)


def _fit_bezier(plans: list, settings: BakeSettings) -> None:
    """Bezier keys within each plan's ``tolerance_deg`` for every plan
    (core.bezier_keys.fit_many: the tracks of one rotation mode fitted together), and the
    location keys a LINEAR check keeps (core.keyreduce with the rotation held: Bezier keys
    are fitted to rotation channels only)."""
    tolerances = [p.tolerance_deg for p in plans]
    try:
        found = bezier_keys.fit_many([_bezier_track(p) for p in plans], tolerances)
    except ValueError:
        # Find whose keys (each alone), and say so; nothing is written yet.
        for plan in plans:
            try:
                bezier_keys.fit_many([_bezier_track(plan)], plan.tolerance_deg)
            except ValueError as exc:
                raise BakeError([_fit_issue(plan, plan.tolerance_deg, exc,
                                            settings.keep_playback)]) from None
        raise
    for plan, keys in zip(plans, found):
        plan.bezier = keys
    moving = [p for p in plans if p.location_values is not None]
    if moving:
        still = np.array([1.0, 0.0, 0.0, 0.0])
        tracks = [keyreduce.Track(p.frames, np.broadcast_to(still, (p.frames.size, 4)),
                                  np.broadcast_to(still, (p.frames.size, 4)), 'QUATERNION',
                                  p.location_values) for p in moving]
        # The rotation is held still here: only the location tolerance decides.
        for plan, keep in zip(moving, keyreduce.select_keys_many(
                tracks, min(tolerances), settings.location_tolerance)):
            plan.location_keep = keep


def _fit_issue(plan, tol: float, exc: Exception, conversion: bool = False) -> BakeIssue:
    who = animdata.subject(plan.obj)
    path = plan.target_path or animdata.ROTATION_PATHS[plan.out_mode][0]
    found = re.search(r"frame (-?[0-9.e+-]+)", str(exc))
    frame = float(found.group(1)) if found else None
    return BakeIssue(
        'ERROR', plan.obj.name, path, frame,
        f"{who}: no Bezier keys play within the tolerance of {tol:g} deg ({exc}). "
        + ("Raise the tolerance" if conversion else
           "Raise Key Tolerance, or set Keys to Linear") + "; nothing was changed.",
        plan.obj.bone_name)


# Per-transform statistics notes of a tolerance bake: named for this many transforms,
# then only the line over all of them.
MAX_KEY_NOTES = 10


def _play_written(arrays: list, times) -> np.ndarray:
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


def _changed_keys(keys, arrays: list) -> np.ndarray | None:
    """(k,) bool: the fit's keys (``keys``, BezierKeys) that Blender stores otherwise than
    the fit played them (``arrays``: per channel, the keyframe arrays read back after the
    write): none, as the bake writes them without fc.update(), whose re-alignment would
    move ALIGNED handles by float32 steps. None when the channels hold other keys."""
    changed = np.zeros(keys.frames.size, dtype=bool)
    for c, a in enumerate(arrays):
        co, hl, hr, ipo = keys.fcurve_arrays(c)
        if a["co"].shape != co.shape:
            return None
        changed |= ((a["co"] != co).any(axis=1) | (a["handle_left"] != hl).any(axis=1)
                    | (a["handle_right"] != hr).any(axis=1) | (a["interpolation"] != ipo))
    return changed


def _played_known(keys, arrays: list, times, changed) -> np.ndarray | None:
    """(m, c) Blender's playback at ``times`` (the fit's sample times) of the channels
    as read back, taking the fit's own playback of its float32 keys
    (BezierKeys.played) where Blender stores exactly those numbers: only the samples
    of a segment with a ``changed`` key (_changed_keys) are played again. None when the
    fit's playback is not there."""
    known = None if keys is None else keys.played
    if changed is None or known is None or known.shape != (np.size(times), len(arrays)):
        return None
    played = known.copy()
    if changed.any():
        # A sample plays its segment's two keys (or, at or beyond the ends, one).
        k = keys.frames.size
        seg = np.clip(np.searchsorted(keys.frames, times, side="right") - 1, 0, k - 1)
        redo = changed[seg] | changed[np.minimum(seg + 1, k - 1)]
        played[redo] = _play_written(arrays, np.asarray(times)[redo])
    return played


def measure_written(plan, arrays: list) -> dict:
    """How far Blender's playback of the rotation keys as written (``arrays``: per
    channel, the F-curve's keyframe arrays read back after the write,
    animdata.KEY_FIELDS) is from the bake, at every sample the bake promises: every
    quarter frame for Bezier keys (the method's path), every baked frame for LINEAR
    keys (the dense bake). Played as Blender does (core.fcurve per channel, then
    normalised or composed); in the written half's own space, so a delta half that
    composes with it changes no angle.

    Returns {"max_deg", "p99_deg", "within": share of samples within the tolerance,
    "samples", "sampled": "quarter frames" | "frames", "keys_before" (the animator's
    keys per channel), "keys_dense", "keys_written", "key_interpolation", "tolerance_deg"}
    and, for a perspective camera, "max_px" and "p99_px": the most any pixel of the
    rendered frame moves (core.pixels), and "tolerance_px" when one was asked for.
    """
    tolerance_deg = plan.tolerance_deg
    if plan.dense is not None:
        times, target, _values = plan.dense
        sampled, kind = "quarter frames", "BEZIER"
    else:
        times = plan.frames
        values = plan.rotation_values
        target = (quat.normalize(values, "baked quaternion channels")
                  if plan.out_mode == 'QUATERNION' else rotation.mode_values_to_quat(
                      values, plan.out_mode))
        sampled, kind = "frames", "LINEAR"
    keys = plan.bezier if plan.dense is not None else None
    changed = None if keys is None else _changed_keys(keys, arrays)
    if (changed is not None and not changed.any() and keys.closeness is not None
            and keys.closeness.shape == (np.size(times),)):
        # Blender stores the very keys the fit played and measured at these samples
        # against this target: its error, sample by sample, is the measurement (to
        # ~1e-6 deg, read from the half angle's cosine). Measuring it again cost a sixth
        # of a quaternion Bezier bake.
        err = np.degrees(2.0 * np.arccos(np.minimum(keys.closeness, 1.0)))
    else:
        played = _played_known(keys, arrays, times, changed)
        if played is None:
            played = _play_written(arrays, times)
        if plan.out_mode == 'QUATERNION':
            played = quat.normalize(played, "written quaternion channels")
        else:
            played = rotation.mode_values_to_quat(played, plan.out_mode)
        err = np.degrees(quat.angle_between(played, target))
    extra = {}
    if plan.pixels_per_radian is not None:
        per_deg = np.radians(plan.pixels_per_radian)
        extra = {"max_px": float(err.max() * per_deg),
                 "p99_px": float(np.percentile(err, 99.0) * per_deg)}
        if plan.tolerance_px > 0.0:
            extra["tolerance_px"] = float(plan.tolerance_px)
    return {
        "max_deg": float(err.max()), "p99_deg": float(np.percentile(err, 99.0)),
        "within": float(np.mean(err <= tolerance_deg)), "samples": int(err.size),
        "worst_frame": float(times[int(np.argmax(err))]), "sampled": sampled,
        "keys_before": int(plan.key_count_before), "keys_dense": int(plan.frames.shape[0]),
        "keys_written": int(arrays[0]["co"].shape[0]), "key_interpolation": kind,
        "tolerance_deg": float(tolerance_deg), **extra,
    }


def _deg(value: float) -> str:
    """An angle in degrees for a note: 4 decimals, or 2 digits below 0.0001."""
    return f"{value:.4f}" if value >= 1e-4 or value == 0.0 else f"{value:.1e}"


def _stats_sentence(stats: dict, tip: float = 0.0) -> str:
    kind = "Bezier" if stats["key_interpolation"] == 'BEZIER' else "LINEAR"
    px = "max_px" in stats
    within = f"{stats['tolerance_deg']:.3g} deg"
    if "tolerance_px" in stats:
        within += f" ({stats['tolerance_px']:g} px)"
    if tip > 0.0:
        within += f" ({tip:g} scene units at the bone's tip)"
    return (f"{stats['keys_written']} {kind} keys per channel (dense bake "
            f"{stats['keys_dense']}, keyed before {stats['keys_before']}); Blender's playback "
            f"at {stats['samples']} {stats['sampled']}: max {_deg(stats['max_deg'])} deg"
            + (f" ({stats['max_px']:.3g} px)" if px else "")
            + f", 99th percentile {_deg(stats['p99_deg'])} deg"
            + (f" ({stats['p99_px']:.3g} px)" if px else "")
            + f", {100.0 * stats['within']:.1f}% within {within}.")


def key_notes(plans: list) -> list[BakeIssue]:
    """INFO notes with the statistics of a tolerance bake (after the write: measured on
    the keys as Blender stores them): one per transform for the first MAX_KEY_NOTES,
    and one over all of them when there are several; one saying which transforms a Bone
    Tip Tolerance did not apply to. A bone's tip tolerance (scene units) joins its
    statistics as "tolerance_tip" (set here: measured after the write)."""
    measured = [p for p in plans if p.key_stats is not None]
    for p in measured:
        if getattr(p, "tolerance_tip", 0.0) > 0.0:
            p.key_stats["tolerance_tip"] = float(p.tolerance_tip)
    out = [BakeIssue('INFO', p.obj.name, "", None,
                     f"{animdata.subject(p.obj)}: "
                     f"{_stats_sentence(p.key_stats, getattr(p, 'tolerance_tip', 0.0))}",
                     p.obj.bone_name) for p in measured[:MAX_KEY_NOTES]]
    out += _tip_fallback_notes(plans)
    if len(measured) > 1:
        total = sum(p.key_stats["samples"] for p in measured)
        within = sum(p.key_stats["within"] * p.key_stats["samples"] for p in measured) / total
        written = sum(p.key_stats["keys_written"] for p in measured)
        dense = sum(p.key_stats["keys_dense"] for p in measured)
        before = sum(p.key_stats["keys_before"] for p in measured)
        worst = max(p.key_stats["max_deg"] for p in measured)
        p99 = max(p.key_stats["p99_deg"] for p in measured)
        tolerances = {p.key_stats["tolerance_deg"] for p in measured}
        of = f"{tolerances.pop():.3g} deg" if len(tolerances) == 1 else "their tolerance"
        out.append(BakeIssue(
            'INFO', "", "", None,
            f"All {len(measured)} transforms: {written} keys per channel in all (dense bake "
            f"{dense}, keyed before {before}); max {_deg(worst)} deg, worst 99th percentile "
            f"{_deg(p99)} deg, {100.0 * within:.1f}% of {total} samples within {of}."))
    return out


def _tip_fallback_notes(plans: list) -> list[BakeIssue]:
    """One INFO note naming the transforms a Bone Tip Tolerance did not apply to (not
    pose bones, or bones of no length in the world) and what they were baked within."""
    missed = [p for p in plans if getattr(p, "tip_fallback", "")]
    if not missed:
        return []
    names = [f"{animdata.subject(p.obj)} ({p.tip_fallback})" for p in missed[:3]]
    shown = "; ".join(names) + (f"; and {len(missed) - 3} more" if len(missed) > 3 else "")
    tolerances = {p.tolerance_deg for p in missed}
    they, them, were = ("it", "it", "was") if len(missed) == 1 else ("they", "them", "were")
    if tolerances == {0.0}:
        took = (f"so {they} kept a key on every step frame (give a Key Tolerance in degrees "
                f"for {them})")
    elif len(tolerances) == 1:
        took = f"so {they} {were} baked within the Key Tolerance, {tolerances.pop():.3g} deg"
    else:
        took = (f"so {they} {were} baked within the Key Tolerance (a camera: the Camera "
                "Tolerance), or with every key where there is none")
    one = missed[0] if len(missed) == 1 else None
    return [BakeIssue(
        'INFO', one.obj.name if one else "", "", None,
        f"Bone Tip Tolerance applies to pose bones of some length only, not to "
        f"{len(missed)} of the baked transforms: {shown}; {took}.",
        one.obj.bone_name if one else "")]
