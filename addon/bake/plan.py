# SPDX-License-Identifier: GPL-3.0-or-later
"""Step 2 of a bake: the transform's keys (``read.Reading``) interpolated with ``core``
and converted to the output rotation mode (then ``deviation``: Blender's own playback
against it; ``reduce``: fewer keys within a tolerance). Reads Blender, changes nothing.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ...core import (
    bezier_keys,
    interp,
    path,
    quat,
    rotation,
    turn_interp,
)
from .. import animdata
from ..animdata import turn_inputs
from .read import Reading, Source
from .reduce import fixed_frames
from .settings import (
    ANGLE_FLOAT32_WARN,
    GIMBAL_BAND,
    BakeIssue,
    BakeSettings,
    bezier_fit,
    path_samples,
)
from .turns import (
    KeyedTurns,
    constant_keys,
    keeps_whole_turns,
    kept_long_way,
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
    played_before: np.ndarray | None = None   # Blender's orientation at `frames` before
    #                                           the bake (deviation.set_deviations)
    # A Transform Cache's playback before the bake, (times, (m, 4)), sampled densely where
    # it turns far between frames (anim_cache.refined_times): where its change between
    # the baked frames is measured (deviation.between_times).
    between_played: tuple | None = None
    source_fcurves: list = field(default_factory=list)   # the source rotation channels
    # Every F-curve of the transform the bake reads (its delta channels too), where a
    # delta composes with the rotation (``blender_quats`` set): what the deviation
    # between the keys plays (deviation._between_keys).
    fcurves: list | None = None
    pending: "Pending | None" = None   # interpolated with its group: interpolate_group
    constant_keys: np.ndarray | None = None  # (n,) bool: baked keys written CONSTANT (steps)
    keep: np.ndarray | None = None       # indices into frames to write (None: all of them)
    # A Bezier tolerance bake (issue 22): the method's path at every sample (quarter
    # frames and the baked frames): (times (m,), the written half's target
    # orientation (m, 4), its channel values (m, c)); the key frames the fit must keep
    # and the held (stepped) intervals; then the fitted keys, and the location keys kept.
    dense: tuple | None = None
    # The method's path at more samples: more (k,) times -> the written half's target
    # there (k, 4) (None: the samples stay as they are; reduce.add_between puts them in dense).
    resample: Callable | None = None
    # The channel values ``dense`` starts from (quat_to_mode_values_continuous' reference).
    value_reference: np.ndarray | None = None
    refined: int = 0                     # samples reduce.add_between put between them
    reached: int = 0                     # of the samples, Constant Speed's poses between them
    required_frames: np.ndarray | None = None
    stepped_frames: np.ndarray | None = None    # (s, 2) start, end
    corner_frames: np.ndarray | None = None     # the animator's keys, when not kept
    recorded_frames: np.ndarray | None = None   # a recording's keys (one on every frame)
    bezier: "bezier_keys.BezierKeys | None" = None
    location_keep: np.ndarray | None = None     # indices into frames (Bezier + location)
    location_constant: np.ndarray | None = None  # (n, 3) bool: each axis's keys written
    #                                              CONSTANT (where the keyed axis holds)
    key_count_before: int = 0                    # the animator's keys per rotation channel
    source_keys: np.ndarray | None = None        # their frames (rotation channels)
    # Where the method's path passes the keys' orientations (a Bezier fit's): source_keys,
    # or with Constant Speed the frames it now reaches them at (its corners).
    path_key_frames: np.ndarray | None = None
    tolerance_deg: float = 0.0                   # set by reduce.reduce_keys (0: every key kept)
    tolerance_px: float = 0.0                    # a camera's pixel tolerance, if any
    pixels_per_radian: float | None = None       # a perspective camera's (core.pixels)
    key_stats: dict | None = None                # measured after the write (write_owner)
    tolerance_tip: float = 0.0                   # a pose bone's tip tolerance (scene units)
    #                                              when it set tolerance_deg (reduce._plan_tolerance)
    tip_fallback: str = ""                       # why a tip tolerance asked for did not apply
    px_fallback: str = ""                        # why a pixel tolerance asked for did not apply
    decided_by: str = "deg"                      # the tolerance that gave tolerance_deg:
    #                                              "deg", "px" or "tip" (reduce._plan_tolerance)
    # Beyond a Custom Range: (times, Blender's orientation there before the bake), every
    # whole frame and key of the keyed span outside the range, where the bake holds the
    # range's end poses (deviation._beyond_range); None within the keyed range.
    beyond: tuple | None = None
    # The source's Stepped and Cycles F-modifiers to put on the rotation (location)
    # channels written, so that a blocking pass on twos stays held and a walk cycle
    # cycles (Reading.kept_rotation).
    kept_rotation: list = field(default_factory=list)
    kept_location: list = field(default_factory=list)
    # Per rotation (location) channel written, its extrapolation (settle_extrapolation;
    # none: CONSTANT).
    extrapolation: list = field(default_factory=list)
    location_extrapolation: list = field(default_factory=list)
    source_location_fcurves: list = field(default_factory=list)   # of the path written

    @property
    def held_rotation(self):
        """The Stepped modifier the written rotation keeps, or None."""
        return _stepped(self.kept_rotation)

    @property
    def held_frames(self) -> np.ndarray | None:
        """Indices of ``frames`` that Blender plays the written channels at when a kept
        Stepped modifier holds them (its step starts: every other frame holds one of
        them), or None when every frame plays (no Stepped modifier kept, or a location
        written that no Stepped modifier holds alike)."""
        held = self.held_rotation
        if held is None:
            return None
        on = animdata.on_step_starts(held, self.frames)
        if self.location_values is not None:
            moved = _stepped(self.kept_location)
            if moved is None or not np.array_equal(
                    animdata.on_step_starts(moved, self.frames), on):
                return None
        return np.flatnonzero(_with_ends(on))
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
        """(frames, location values, constant (n, 3) bool or None) of the location keys to
        write, or (frames, None, None)."""
        at = self.keep if self.bezier is None else self.location_keep
        if self.location_values is None or at is None:
            return self.frames, self.location_values, self.location_constant
        constant = None if self.location_constant is None else self.location_constant[at]
        return self.frames[at], self.location_values[at], constant


# How far a baked channel's slope at an end may be from the slope Blender extrapolates
# the keyed channel at (per frame: radians or quaternion units): float32 keys one frame
# apart (values up to ~10) give slopes good to ~2e-6; over 100 frames beyond the keys
# that is 2e-4 rad (0.01 deg).
SLOPE_MATCH = 2e-6


def settle_extrapolation(plan: Plan) -> list[BakeIssue]:
    """Linear extrapolation of the keyed channels, where it moves them beyond their keys (a
    propeller keyed for one turn that spins on through the shot: a walk found it frozen
    after its last key once re-baked, 144 deg off, the bake saying 0.00 deg; a car keyed
    at two places that drives on, stopped by a location bake). Kept (``plan.extrapolation``,
    ``plan.location_extrapolation``) where it is kept exactly: each written channel's slope
    at both of its ends is the one Blender extrapolates the keyed channel at, and the
    written keys span the keyed ones (a review: a quaternion's components, a Bezier key's
    handle, or a last key held Constant extrapolate otherwise than a baked curve would).
    For the rotation, only the keyed channels themselves, a key on every frame of the
    keys' own range. Elsewhere the baked keys hold their end poses beyond the keys, and a
    warning names the channels that went on."""
    issues = []
    if plan.rotation_values is not None:
        fcs = plan.source_fcurves
        values, frames, keys = plan.rotation_values, plan.frames, plan.source_keys
        same = (plan.out_mode == plan.source.mode and not plan.target_path.startswith("delta")
                and plan.bezier is None and plan.keep is None
                and (plan.constant_keys is None or not plan.constant_keys.any())
                and plan.tolerance_deg == 0.0 and keys is not None and frames.size >= 2
                and frames[0] == keys[0] and frames[-1] == keys[-1]
                and values.shape[1] == len(fcs))
        plan.extrapolation, moving = _settled(fcs, frames, values, same, per_channel=False)
        if moving:
            issues.append(_went_on(plan, moving, "turns", "poses", (
                "only a dense bake of the keys' own range in their rotation mode, whose ends "
                "turn as Blender extrapolates, keeps that")))
    if plan.location_values is not None:
        frames, values, _constant = plan.location_written()
        plan.location_extrapolation, moving = _settled(plan.source_location_fcurves, frames,
                                                       values, frames.size >= 2,
                                                       per_channel=True)
        if moving:
            issues.append(_went_on(plan, moving, "moves", "positions", (
                "a location bake keeps Linear extrapolation only where its path leaves each "
                "end at the keys' own slope (Location: Linear, Linear keys at the ends, no "
                "Constant Speed)")))
    return issues


def _settled(fcs: list, frames: np.ndarray, values: np.ndarray, same: bool,
             per_channel: bool) -> tuple:
    """(extrapolation per written channel, the keyed channels that move beyond their keys
    and whose motion the written keys do not keep); ``fcs``: the keyed channels, one per
    written column of ``values`` at ``frames`` (None where not keyed); ``same``: whether
    the written channels can keep it at all. A channel that holds beyond its keys is kept
    by a written one that holds (Constant), whatever its slopes. ``per_channel``: each
    moving channel kept or not on its own (a location's axes), else all or none (the
    channels of one rotation compose: some extrapolated and some held would play neither
    what Blender played nor the held pose)."""
    slopes = [animdata.extrapolated_slopes(fc) for fc in fcs]
    moving = [c for c, (before, after) in enumerate(slopes) if before or after]
    if not moving:
        return [], []
    kept = set()
    if same and values.shape[1] == len(fcs):
        start = (values[1] - values[0]) / (frames[1] - frames[0])
        end = (values[-1] - values[-2]) / (frames[-1] - frames[-2])
        for c in moving:
            first, last = fcs[c].range()
            if (frames[0] <= first and frames[-1] >= last and all(
                    abs(baked - wanted) <= SLOPE_MATCH * (1.0 + abs(wanted))
                    for baked, wanted in ((start[c], slopes[c][0]), (end[c], slopes[c][1])))):
                kept.add(c)
    if not per_channel and len(kept) < len(moving):
        kept = set()
    if not kept:
        return [], [fcs[c] for c in moving]
    extrapolation = ['LINEAR' if c in kept else 'CONSTANT' for c in range(len(fcs))]
    return extrapolation, [fcs[c] for c in moving if c not in kept]


def _went_on(plan: Plan, moving: list, verb: str, held: str, keeps: str) -> BakeIssue:
    """The warning that ``moving`` channels went on beyond their keys and the baked ones
    hold their end ``held`` there."""
    channels = ", ".join(animdata.channel_label(fc.data_path, fc.array_index) for fc in moving)
    obj = plan.obj
    # The frame named: the last baked one where a channel goes on after its keys, else the
    # first (only the stretch before the keys moves).
    after = any(animdata.extrapolated_slopes(fc)[1] for fc in moving)
    return BakeIssue(
        'WARNING', obj.name, "", float(plan.frames[-1 if after else 0]),
        f"{animdata.subject(obj)} {verb} on beyond its keys ({channels}: Linear "
        f"extrapolation), and the baked keys hold their end {held} beyond the baked frames "
        f"({animdata.frame_span(plan.frames[0], plan.frames[-1])}): {keeps}. Key the "
        "motion over the frames it should play.", obj.bone_name)


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
    bake_location, loc_frames = r.bake_location, r.loc_frames
    loc_into_delta, rot_frames, key_quats = r.loc_into_delta, r.rot_frames, r.key_quats
    frames, start, end = r.frames, r.start, r.end
    name, who, bone = obj.name, animdata.subject(obj), obj.bone_name
    issues: list[BakeIssue] = list(r.issues)

    def err(message, channel="", frame=None):
        issues.append(BakeIssue('ERROR', name, channel, frame, message, bone))

    method = settings.method.lower()
    fit = bezier_fit(settings)
    try:
        if rot_frames.size == 1:   # a conversion's single pose (read.py): no turn to track
            keyed = KeyedTurns(None, [], np.zeros(0, dtype=bool))
        elif keyed is None:
            keyed = keyed_turns(r, settings)
        if keyed.stepped.any():
            # A step jumps on its key's frame: that frame is baked whatever the Step.
            ends = rot_frames[1:][keyed.stepped]
            frames = np.union1d(frames, ends[(ends >= start) & (ends <= end)])
        loc_method = settings.location_method.lower()
        retimed = bake_location and settings.constant_speed
        points = _path_points(r) if retimed else None

        def timed(samples):
            """The times the method's path is computed at for ``samples``: the samples,
            or with Constant Speed one time map for rotation and location (each key
            orientation is reached where the object stands at that key, at whatever
            frame it now gets there)."""
            if retimed:
                return path.constant_speed_times(loc_frames, points, samples, loc_method)
            return samples

        # The method's path is computed at ``samples``: the baked frames, and for Bezier
        # keys every quarter frame too (``at``: where the baked frames are among them).
        samples = path_samples(frames, settings)
        key_times, reach, reached = rot_frames, None, 0
        if fit and retimed:
            # The path turns its corners where it reaches the keys' orientations, at the
            # frames Constant Speed moved them to, and its timing bends where it reaches
            # the location keys: those are samples, and the fit keys the poses there, not
            # on the animator's frames, which the poses left (a review: unkeyed, such a
            # corner played 1.18 deg off between quarter frames). With them all among the
            # samples, a slerp with Linear locations is the slerp of two neighbouring
            # samples between them (reduce._bezier_track).
            corners = path.constant_speed_key_times(loc_frames, points, loc_method)
            grid = samples

            def reach(frames_keyed):
                return _reached_at(frames_keyed, grid, timed, corners)

            key_times = reach(rot_frames)
            more = np.union1d(key_times, corners)
            more = np.setdiff1d(more[(more >= samples[0]) & (more <= samples[-1])], samples)
            samples, reached = np.union1d(samples, more), int(more.size)
        at = np.searchsorted(samples, frames)
        times = timed(samples)
        location_values = location_constant = None
        if bake_location:
            location_values, location_constant = _positions(r, times[at], frames, loc_method)
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

        def path_at(samples, times, tracking=None):
            """(the method's orientation, the written half's target) at ``samples``;
            ``tracking``: Timing: Keyed's, tracked at ``samples`` too (retracked), where
            the plan's was tracked at its own samples only."""
            if settings.keep_playback:
                # A rotation-mode conversion: what Blender plays now, in-betweens included.
                quats = animdata.evaluate_orientation(obj, times, src.mode, fcurves,
                                                      exact=True)
                quats = _step_poses(quats, times, r.kept_rotation)
            else:
                blender = None
                if keyed.stepped.any():
                    blender = animdata.evaluate_orientation(obj, times, src.mode, fcurves,
                                                            exact=True)
                quats = turn_interp.interpolate_keys(
                    rot_frames, key_quats,
                    keyed.tracking if tracking is None else tracking, keyed.kinds,
                    settings.turns, method, times, settings.timing, blender)
            return quats, _target_quats(obj, quats, samples, into_delta, out_mode, fcurves)

        def retracked(more):
            """Timing: Keyed's tracking with ``more`` among its samples: its progress is
            known at its tracked samples only (the path's, track_request), so Blender's
            playback is tracked again with these too. More samples never change what a
            tracking finds (core.turns), nor the progress at the samples it had."""
            request = r.track_request(settings)
            return turn_inputs.track(request.obj, request.mode, request.fcurves,
                                     request.key_frames, request.key_quats, request.key_raw,
                                     np.union1d(request.extra, more),
                                     None if fcurve_cache is None else fcurve_cache.get("keys"))

        quats = target = None
        if settings.keep_playback or not pending:
            quats, target = path_at(samples, times)
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
        dense = resample = None
        if fit:
            dense = _played_samples(samples, target, values, r.kept_rotation)
            quats, values = quats[at], values[at]
            # Not under a kept Stepped modifier (its samples are the step starts).
            if _stepped(r.kept_rotation) is None:
                def resample(more):
                    """The written half's target (k, 4) at the samples ``more``, computed
                    there alone (put among ``dense`` by reduce.add_between)."""
                    tracking = retracked(more) if settings.timing == 'KEYED' else None
                    return path_at(more, timed(more), tracking)[1]
        # Blender's own playback at the baked frames, for the "largest difference"
        # figure, when the delta half makes the per-channel evaluation of
        # set_deviations insufficient (delta @ rotation).
        composed = None
        if delta_keyed or not animdata.is_identity_delta(
                animdata.delta_rotation_defaults(obj, src.mode), src.mode):
            composed = animdata.evaluate_orientation(obj, frames, src.mode, fcurves)
        outside = beyond_range(rot_frames, frames, played_span(
            rot_frames, rot_fcs + delta_fcs, r.kept_rotation))
        beyond = None if outside is None else \
            (outside, animdata.evaluate_orientation(obj, outside, src.mode, fcurves))
    except animdata.ChannelError as exc:
        err(str(exc), exc.channel, exc.frame)
        return None, issues
    except ValueError as exc:
        err(f"{who}: its keys cannot be baked ({exc}).", rot_path)
        return None, issues

    if values is not None:
        issues += angle_warnings(obj, out_mode, target_path, values)

    if settings.keep_playback:     # a conversion turns as Blender plays the keys
        issues += kept_long_way(obj, rot_frames, keyed)
    else:
        issues += turn_notes(obj, rot_frames, keyed, settings, frames)
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
                 source_fcurves=rot_fcs, beyond=beyond,
                 fcurves=fcurves if composed is not None else None,
                 kept_rotation=r.kept_rotation,
                 kept_location=r.kept_location if bake_location else [],
                 location_constant=location_constant)
    plan.constant_keys = constant_keys(frames, rot_frames, keyed.stepped)
    if bake_location:
        plan.source_location_fcurves = _location_sources(r)
    plan.key_count_before = int(rot_frames.shape[0])
    plan.source_keys = rot_frames
    if dense is not None:
        plan.dense = dense
        plan.resample = resample
        plan.value_reference = reference
        plan.path_key_frames = key_times
        plan.reached = reached
        (plan.required_frames, plan.stepped_frames, plan.corner_frames,
         plan.recorded_frames) = fixed_frames(
            rot_frames, keyed.stepped, dense, settings, r.poses_before, reach)
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
    """(times, location values, constant (n, 3) bool or None) at the baked ``frames``: the
    location path sampled there (at arc-length times with constant speed); see
    _positions."""
    r = reading
    loc_method = settings.location_method.lower()
    times = frames
    if settings.constant_speed:
        times = path.constant_speed_times(r.loc_frames, _path_points(r), frames, loc_method)
    return (times, *_positions(r, times, frames, loc_method))


def _positions(r: Reading, times: np.ndarray, frames: np.ndarray, method: str) -> tuple:
    """(location values (n, 3), constant (n, 3) bool or None) to write at ``frames``: the
    location path at path ``times`` (the frames, or their arc-length times) minus what the
    other half (delta or regular location) plays after the bake, each axis held where its
    keys hold (``r.loc_holds``: a blocking pass keyed Constant glided between its poses
    once baked, while its rotation stayed stepped). A hold keeps the written half's own
    value from the hold's start: the other half, keyed on, moves on under it as Blender
    plays them (a review: held as a sum, a delta_location moving under a held location
    stood still, 4.5 units off). ``constant``: the frames each axis holds from, written
    CONSTANT so that it jumps on the next key's frame."""
    points = _path_points(r)
    values = path.interpolate_positions(r.loc_frames, points, times, method)
    values += _jumps(r, times) - _other_half(r, frames)
    constant = None
    for axis, spans in enumerate(r.loc_holds):
        if not spans.size:
            continue
        # The hold each time falls in (the last one starting at or before it), if any.
        at = np.searchsorted(spans[:, 0], times, side="right") - 1
        held = (at >= 0) & (times < spans[np.maximum(at, 0), 1])
        if not held.any():
            continue
        starts = spans[at[held], 0]
        values[held, axis] = (
            path.interpolate_positions(r.loc_frames, points, starts, method)[:, axis]
            + _jumps(r, starts)[:, axis] - _other_half(r, starts)[:, axis])
        if constant is None:
            constant = np.zeros(values.shape, dtype=bool)
        constant[held, axis] = True
    return values, constant


def _jumps(r: Reading, times: np.ndarray) -> np.ndarray:
    """(n, 3) how far the half a location bake leaves has jumped by ``times``: the sum of
    its jumps at the ends of its holds (``r.other_holds``: a delta_location keyed
    Constant) up to each time. Blender plays them as jumps of the sum; a path through the
    sums (0, 10, 15 where the location keys 0, 5, 10 and the delta jumps 5 at the middle
    key) ran the location ahead to meet each jump (a review: 4.5 units off a frame
    before it). So the path goes through the points without the jumps
    (``_path_points``), and each jump is the delta's own, on its frame."""
    out = np.zeros((np.size(times), 3))
    for axis, spans in enumerate(r.other_holds):
        if not spans.size:
            continue
        size = (_other_half(r, spans[:, 1]) - _other_half(r, spans[:, 0]))[:, axis]
        order = np.argsort(spans[:, 1])
        done = np.searchsorted(spans[order, 1], times, side="right")
        out[:, axis] = np.r_[0.0, np.cumsum(size[order])][done]
    return out


def _reached_at(key_frames, samples: np.ndarray, timed: Callable,
                corners: np.ndarray) -> np.ndarray:
    """The frames at which a path timed by ``timed`` (Constant Speed's map from frames to
    the keys' time) reaches ``key_frames``: its inverse, from the map at ``samples`` and
    at the frames it reaches the location keys (``corners``,
    core.path.constant_speed_key_times, where the map bends), so that a rotation key on a
    location key is reached exactly there (between them, with Catmull-Rom locations, to
    within a thousandth of a frame). Keys outside the location keys' range, where the
    map holds, keep their frames."""
    key_frames = np.asarray(key_frames, dtype=np.float64)
    grid = np.union1d(samples, corners)
    grid = grid[(grid >= corners[0]) & (grid <= corners[-1])]
    mapped = timed(grid)
    inside = (key_frames >= mapped[0]) & (key_frames <= mapped[-1])
    out = key_frames.astype(np.float64, copy=True)
    if grid.size >= 2:
        out[inside] = np.interp(key_frames[inside], mapped, grid)
    return out


def _path_points(r: Reading) -> np.ndarray:
    """The location path's points: location + delta_location at the location keys, less
    the jumps the delta makes by then (``_jumps``)."""
    return r.loc_points - _jumps(r, r.loc_frames)


def _other_half(r: Reading, frames: np.ndarray) -> np.ndarray:
    """(n, 3) what the location half a location bake leaves (delta_location, or location
    when the bake writes delta_location) plays at ``frames``."""
    if r.loc_into_delta:
        return animdata.evaluate_location(r.obj, frames, r.fcurves, exact=True)
    return animdata.evaluate_channels_exact(
        animdata.delta_location_fcurves(r.obj, r.fcurves),
        np.array(r.obj.delta_location, dtype=np.float64), frames)


def played_span(keys: np.ndarray, fcurves: list, kept: list) -> tuple[float, float]:
    """(first, last) frame of what the source channels ``fcurves`` play differently from
    a still pose, keyed on ``keys``, where the bake's keys (with the ``kept`` modifiers)
    hold their end poses beyond its frames: the keys' span, a step longer under a Stepped
    modifier (its last key plays a step after it), and a cycle longer on each side under
    a Cycles modifier the bake drops (each cycle the same: one says how far it goes; a
    walk: the figure left out the 66-116 deg the dropped cycle played)."""
    first, last = float(keys[0]), float(keys[-1])
    playing = [m for fc in fcurves if fc is not None for m in fc.modifiers if not m.mute]
    last += max((float(m.frame_step) for m in playing if m.type == 'STEPPED'), default=0.0)
    if any(m.type == 'CYCLES' for m in playing) and not any(m.type == 'CYCLES' for m in kept):
        period = float(keys[-1] - keys[0])
        first, last = first - period, last + period
    return first, last


def beyond_range(keys: np.ndarray, frames: np.ndarray,
                 span: tuple[float, float] | None = None) -> np.ndarray | None:
    """Every whole frame and key of ``span`` (default: the keys' first to last;
    played_span) outside the baked ``frames`` (a Custom Range narrower than it, a cycle
    the bake drops), or None when the frames cover it."""
    if not keys.size or not frames.size:
        return None
    first, last = span if span is not None else (float(keys[0]), float(keys[-1]))
    if first >= frames[0] and last <= frames[-1]:
        return None
    whole = np.union1d(np.arange(np.ceil(first), np.floor(last) + 1.0), keys)
    return whole[(whole < frames[0]) | (whole > frames[-1])]


def _stepped(kept: list):
    """The Stepped modifier among ``kept`` (Reading.kept_rotation, kept_location), or None."""
    return next((m for m in kept if m.type == 'STEPPED'), None)


def _step_poses(quats, times, kept: list):
    """A conversion's playback ``quats`` at ``times`` with, under a kept Stepped modifier,
    each step start given the pose its step's frames play: the last time of its step's.
    That is the curve's value at the start, which the converted curve must have there;
    Blender's playback at the start itself can be the step before's (in float32, with an
    offset of 1.3, 16.3 plays 11.3's pose while 16.5 to 21.25 play 16.3's: a review found
    a conversion 38 deg off there, its note 100% within)."""
    held = _stepped(kept)
    if held is None or not len(times):
        return quats
    starts = animdata.stepped_time(held, times)
    on = np.flatnonzero(animdata.on_step_starts(held, times))
    # The last time playing each start (starts never decrease along sorted times).
    at = np.asarray(times, dtype=np.float64)[on]
    last = np.searchsorted(starts, at + animdata.frame_slack(at), side="right") - 1
    out = quats.copy()
    out[on] = quats[np.maximum(last, on)]
    return out


def _played_samples(samples, target, values, kept: list) -> tuple:
    """(samples, target, values) a Bezier fit is held to: every sample, or under a kept
    Stepped modifier only those it plays as they are (its step starts, and any outside its
    start and end frames). Blender plays that curve only there, held in between, so keys
    fitted to the quarter frames between made a blocking pass (9 steps) 51 Bezier keys per
    channel, each quarter frame of the holds fitted."""
    held = _stepped(kept)
    if held is None:
        return samples, target, values
    on = _with_ends(animdata.on_step_starts(held, samples))
    return samples[on], target[on], values[on]


def _with_ends(on: np.ndarray) -> np.ndarray:
    """``on`` with the first and the last baked frame set: the keys end there, and Blender
    holds them beyond, where steps that start outside the frames play them (a review: a
    Custom Range 8-33 under steps from 1 kept keys 11 to 31, and frames before 11 played
    11's pose, 19 deg from 8's)."""
    on = on.copy()
    if on.size:
        on[0] = on[-1] = True
    return on


def _location_sources(r: Reading) -> list:
    """The keyed channels of the location path a bake writes (location, or delta_location
    where only that is keyed), from the action read."""
    if r.loc_into_delta:
        return animdata.delta_location_fcurves(r.obj, r.fcurves)
    return animdata.location_fcurves(r.obj, r.fcurves)


def plan_location(reading: Reading, settings: BakeSettings) -> tuple[Plan | None, list]:
    """The bake of a transform keyed on location and not on rotation (a Rigify IK control):
    its location path re-baked as ``settings`` say, its rotation left as it is."""
    r = reading
    issues: list[BakeIssue] = list(r.issues)
    try:
        _times, location_values, location_constant = _baked_positions(r, settings, r.frames)
    except (animdata.ChannelError, ValueError) as exc:
        issues.append(BakeIssue('ERROR', r.obj.name, "location", None,
                                f"{animdata.subject(r.obj)}: its location keys cannot be "
                                f"baked ({exc}).", r.obj.bone_name))
        return None, issues
    location_path = "delta_location" if r.loc_into_delta else "location"
    plan = Plan(r.obj, r.src, r.src.mode, r.frames, None, location_values, {location_path},
                None, animdata.rotation_defaults(r.obj, r.src.mode), [],
                location_path=location_path, kept_location=r.kept_location,
                source_location_fcurves=_location_sources(r), location_constant=location_constant)
    plan.key_count_before = int(r.rot_frames.shape[0])   # the keys (not the bake's ends)
    return plan, issues


def angle_warnings(obj, out_mode: str, target_path: str, values) -> list[BakeIssue]:
    """A warning when the baked angles ``values`` (Euler or axis-angle, not quaternion)
    grow so large that float32 keys lose precision."""
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
        issues += angle_warnings(plan.obj, plan.out_mode, plan.target_path or
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
