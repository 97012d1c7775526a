# SPDX-License-Identifier: GPL-3.0-or-later
"""Step 2c of a bake: fewer keys within a tolerance (degrees, pixels of a camera's image
or a distance at a bone's tip), Linear or Bezier, and what Blender's playback of the
keys written measures (the statistics and the notes). Reads Blender, changes nothing.
"""
from __future__ import annotations

import re

import numpy as np

from ...core import bezier_keys, keyreduce, metrics, pixels, quat, rotation
from ...core.pitfalls import keys_are_dense
from .. import animdata
from .camera import camera_frames
from .deviation import play_written, written_change
from .settings import GIMBAL_BAND, BakeError, BakeIssue, BakeSettings, unexpected_issue


def _step_keys(constant_keys) -> np.ndarray | None:
    """Keys a tolerance bake keeps around each step: the CONSTANT key and the one after it
    (Blender holds, then jumps; the LINEAR check between kept keys would not know)."""
    if constant_keys is None:
        return None
    fixed = np.array(constant_keys, dtype=bool)
    fixed[1:] |= fixed[:-1]
    return fixed


def _location_steps(plan) -> np.ndarray | None:
    """Keys a tolerance bake keeps around each location hold's jump: the last held key and
    the one after it (a review: the key after a hold was dropped where the motion after it
    lined up with the held value, and the hold lasted until a later key, 105 units off).
    Every key inside a hold is written CONSTANT (plan._positions), so any of them kept
    holds its value."""
    held = plan.location_constant
    if held is None:
        return None
    held = held.any(axis=1)
    last = held & ~np.r_[held[1:], False]
    return last | np.r_[False, last[:-1]]


def _either(a, b):
    """The union of two optional key masks."""
    if a is None or b is None:
        return b if a is None else a
    return a | b


def _still_track(plan) -> keyreduce.Track:
    """A location bake's track for key reduction: a still rotation, so the location alone
    decides which keys stay."""
    n = plan.frames.shape[0]
    still = np.tile(np.array([1.0, 0.0, 0.0, 0.0]), (n, 1))
    return keyreduce.Track(plan.frames, still, still, 'QUATERNION', plan.location_values,
                           fixed=_location_steps(plan))


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
        played = [_played_frames(p) for p in group]
        tracks = [_linear_track(p, at) for p, at in zip(group, played)]
        for plan, at, keep in zip(group, played, keyreduce.select_keys_many(
                tracks, tol, settings.location_tolerance)):
            plan.keep = _one_key_per_hold(plan, keep if at is None else at[keep])
    return warnings


def _one_key_per_hold(plan, keep: np.ndarray) -> np.ndarray:
    """``keep`` without the CONSTANT key that ends a hold where the kept key before it
    holds the same pose; that key is marked CONSTANT instead, in ``plan.constant_keys``
    (and ``plan.location_constant``), in place. One key per hold, as the animator keyed
    it (a triage: AnimatedTriangle_STEP's five stepped keys came back as nine, a LINEAR
    key at each hold's start and a CONSTANT one on its last frame). Blender plays the
    same: the pose held from the first key to the next kept one, the jump on its frame.
    A location baked beside it must hold alike (CONSTANT there, the same values), else
    the pair stays; so does the last key, which ends the action's range (a review: a
    Custom Range ending inside a hold came back one hold short)."""
    const = plan.constant_keys
    if const is None or plan.rotation_values is None or len(keep) < 3:
        return keep
    loc, loc_held = plan.location_values, plan.location_constant
    drop = []
    for before, end in zip(keep[:-2], keep[1:-1]):
        if not const[end] or const[before] \
                or not _same(plan.rotation_values[before], plan.rotation_values[end]):
            continue
        if loc is not None and not (loc_held is not None and loc_held[end].all()
                                    and _same(loc[before], loc[end])):
            continue
        const[before] = True
        if loc is not None:
            loc_held[before] = True
        drop.append(end)
    return np.setdiff1d(keep, drop) if drop else keep


# Two baked values of one held pose are the same within this (radians, scene units): a
# hold's frames come from one orientation, but a vectorised conversion may round the
# last bit differently from one array position to the next on some CPUs, far below the
# float32 the keys are written in.
HOLD_SAME = 1e-9


def _same(a, b) -> bool:
    return bool(np.all(np.abs(np.asarray(a) - np.asarray(b)) <= HOLD_SAME))


def _held_words(held) -> str:
    """What a tolerance bake under the kept Stepped modifier ``held`` was measured at, after
    "Blender's playback at N" (a review: "161 step starts" where a Start Frame left every
    quarter frame before it playing as it is)."""
    ranged = held.use_frame_start or held.use_frame_end
    return ("frames its Stepped modifier plays (its step starts"
            + (", and every frame outside its start and end frames" if ranged else "")
            + "), held between them")


def _played_frames(plan) -> np.ndarray | None:
    """Indices of the baked frames a LINEAR tolerance bake is checked at: under a kept
    Stepped modifier its step starts alone (Plan.held_frames: Blender plays nothing
    else, so keys between them were kept for nothing, 41 of 41 on a blocking pass held
    every 5 frames), else None (every frame)."""
    return plan.held_frames if plan.quats is not None else None


def _linear_track(plan, at) -> keyreduce.Track:
    """The keyreduce track of a LINEAR tolerance bake, at the frames ``at`` (indices, or
    None for every baked frame)."""
    if plan.quats is None:
        return _still_track(plan)
    pick = slice(None) if at is None else at
    fixed = _either(_step_keys(plan.constant_keys), _location_steps(plan))
    return keyreduce.Track(plan.frames[pick], plan.quats[pick], plan.rotation_values[pick],
                           plan.out_mode,
                           None if plan.location_values is None else plan.location_values[pick],
                           fixed=None if fixed is None else fixed[pick])


def _plan_tolerance(plan, settings: BakeSettings, warnings: list) -> float:
    """The angle (degrees) the plan's keys may miss the bake by; sets
    ``plan.pixels_per_radian`` for a perspective camera (the report gives pixels)."""
    tol = settings.tolerance_deg
    stretch = 1.0
    try:
        frames, stretch = camera_frames(plan, played=settings.tolerance_px > 0.0)
    except ValueError as exc:
        frames = []
        if settings.tolerance_px > 0.0:
            plan.px_fallback = WARNED    # said here, with its reason, not in the notes
            warnings.append(BakeIssue(
                'WARNING', plan.obj.name, "", None,
                f"{animdata.subject(plan.obj)}: no pixel tolerance ({exc}); "
                + (f"baked within {tol:g} deg instead." if tol > 0.0 else
                   "baked with a key on every step frame (give a Key Tolerance in degrees "
                   "for it)."), plan.obj.bone_name))
    if settings.tolerance_px > 0.0 and not frames and not plan.px_fallback:
        plan.px_fallback = "not a perspective camera"
    if frames:
        plan.pixels_per_radian = max(pixels.pixels_per_radian(f) for f in frames) * stretch
        if settings.tolerance_px > 0.0:
            by_px = float(np.degrees(settings.tolerance_px / plan.pixels_per_radian))
            plan.tolerance_px = settings.tolerance_px
            if not tol > 0.0 or by_px < tol:
                plan.decided_by = "px"
            tol = min(tol, by_px) if tol > 0.0 else by_px
    if settings.tolerance_tip > 0.0:
        by_tip, plan.tip_fallback = _tip_degrees(plan.obj, settings.tolerance_tip)
        if by_tip is not None:
            plan.tolerance_tip = settings.tolerance_tip
            if not tol > 0.0 or by_tip < tol:
                plan.decided_by = "tip"
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
# A partly stepped interval jumps at its end when the path moves more than this (or the
# tolerance) over its last sample: held there (fixed_frames).
_JUMP_MIN_DEG = 1e-3


def _keyed_at(frames, key_frames, slack: float = 1e-4) -> bool:
    """Whether every one of ``frames`` has a key of ``key_frames`` (sorted) on it."""
    frames = np.asarray(frames, dtype=np.float64)
    key_frames = np.asarray(key_frames, dtype=np.float64)
    if not frames.size:
        return True
    if not key_frames.size:
        return False
    at = np.clip(np.searchsorted(key_frames, frames), 1, key_frames.size - 1)
    near = np.minimum(np.abs(key_frames[at - 1] - frames), np.abs(key_frames[at] - frames)) \
        if key_frames.size > 1 else np.abs(key_frames[0] - frames)
    return bool((near <= slack).all())


def fixed_frames(rot_frames, stepped, dense, settings: BakeSettings,
                 poses_before=None, reach=None) -> tuple:
    """(required key frames, (s, 2) held intervals, corner frames, a recording's key
    frames) of a Bezier fit: the
    animator's key frames inside the baked range (``poses_before``, the key frames before
    QuatBake's first conversion, where the keys playing are its fit; unless
    ``keep_key_frames`` is off:
    then they are corners, where a key may go with a handle on each side of the
    method's turn, but need not), and the stepped intervals the method holds, clipped to
    the range. A stepped interval the method does not hold (CONSTANT keys on some
    channels only) is fitted like any other, its ends kept. ``reach``: where the path
    reaches the keys' poses at given key frames (Constant Speed's retimed frames; None:
    on the key frames), which are where their keys go; whether the keys are a recording
    is read from their own spacing (a review: a recording retimed to 1.23 frames apart
    read as poses, and every one of its 61 keys was kept)."""
    samples, target, _values = dense
    lo, hi = float(samples[0]), float(samples[-1])
    reach = reach or (lambda frames: frames)
    key_times = reach(rot_frames)
    inside = key_times[(key_times >= lo) & (key_times <= hi)]
    # A key on every frame (mocap, a sampled import) is a recording, not the animator's
    # poses: kept, it would leave a tolerance bake nothing to thin (issue 24's walk: a
    # BVH at 1 deg kept all 16,244 keys).
    poses = not keys_are_dense(rot_frames)
    reached_before = None if poses_before is None else reach(poses_before)
    if not poses and poses_before is not None and np.size(poses_before) >= 2 and \
            not keys_are_dense(poses_before) and _keyed_at(
                reached_before[(reached_before >= lo) & (reached_before <= hi)], key_times):
        # Keys this dense that were poses before QuatBake's first conversion (or bake) are
        # its own fit (keys a quarter frame apart where Euler angles turn fast), not a
        # recording: the animator's key frames are those before it (a walk: QUATERNION ->
        # XYZ -> QUATERNION dropped the selected key at frame 13, 20 keys became 25).
        # Only while the keys playing still have a key on each of them: keys moved since
        # (a review: the converted keys slid 3.5 frames) would otherwise get keys forced
        # on the frames the poses left, none of them the animator's.
        poses = True
        inside = reached_before[(reached_before >= lo) & (reached_before <= hi)]
    required = inside if poses and settings.keep_key_frames else np.zeros(0)
    corners = inside if poses and not settings.keep_key_frames else np.zeros(0)
    recorded = np.zeros(0) if poses else inside
    held = []
    for i in np.flatnonzero(stepped):
        a, b = max(float(key_times[i]), lo), min(float(key_times[i + 1]), hi)
        if b <= a:
            continue
        ia, ib = np.searchsorted(samples, [a, b])
        span = target[ia:ib + (1 if b == hi and key_times[i + 1] > hi else 0)]
        if span.shape[0] and quat.angle_between(span, span[:1]).max() <= _HELD_RAD:
            held.append((a, b))
            continue
        required = np.union1d(required, [a, b])
        # CONSTANT keys on some channels only: those jump on b's frame, where Bezier keys
        # would ramp between the last sample and b (a walk: 37 deg off at 40.99, unseen
        # at quarter frames). The last sample before b holds until b, as Blender does.
        last = ib - 1
        if key_times[i + 1] <= hi and samples[last] > a and \
                np.degrees(quat.angle_between(target[last], target[ib])) > max(
                    settings.tolerance_deg, _JUMP_MIN_DEG):
            held.append((float(samples[last]), b))
    return (np.asarray(required, dtype=np.float64),
            np.asarray(held, dtype=np.float64).reshape(-1, 2),
            np.asarray(corners, dtype=np.float64), np.asarray(recorded, dtype=np.float64))


def _bezier_track(plan, settings: BakeSettings) -> bezier_keys.Track:
    samples, target, values = plan.dense
    # Only for a slerp of a recording's frames, evenly timed, is the path between two
    # samples the slerp of those two: the one target the final check can play there.
    # With Constant Speed too where Linear locations time it: the frames it reaches each
    # key (rotation and location) are samples (plan_reading), and between two samples
    # the time map is a straight line.
    slerp_between = bool(np.size(plan.recorded_frames)) and settings.method == 'SLERP' \
        and settings.timing == 'EVEN' and not settings.keep_playback \
        and (not settings.constant_speed or settings.location_method == 'LINEAR')
    return bezier_keys.Track(samples, target, values, plan.out_mode, plan.required_frames,
                             plan.stepped_frames, plan.corner_frames, plan.recorded_frames,
                             slerp_between)


def _fit_bezier(plans: list, settings: BakeSettings) -> None:
    """Bezier keys within each plan's ``tolerance_deg`` for every plan
    (core.bezier_keys.fit_many: the tracks of one rotation mode fitted together), and the
    location keys a LINEAR check keeps (core.keyreduce with the rotation held: Bezier keys
    are fitted to rotation channels only)."""
    # Each plan's samples once (see samples_to_add): ``resample`` is let go once they are
    # among its samples, and not before, as a refusal here fits the others again.
    added = []
    for plan in plans:
        try:
            more = samples_to_add(plan)
            if more is None:
                plan.resample = None
            else:
                added.append((plan, more, plan.resample(more)))
        except Exception as exc:   # its own refusal: the others are fitted without it
            raise BakeError([_sampling_issue(plan, exc)]) from exc
    try:
        add_between(added)
    except Exception:   # each then alone, so that an error names its transform
        for item in added:
            try:
                add_between([item])
            except Exception as exc:
                raise BakeError([_sampling_issue(item[0], exc)]) from exc
            item[0].resample = None
    for plan, _more, _target in added:
        plan.resample = None
    tolerances = [p.tolerance_deg for p in plans]
    try:
        found = bezier_keys.fit_many([_bezier_track(p, settings) for p in plans], tolerances)
    except ValueError:
        # Find whose keys (each alone), and say so; nothing is written yet.
        for plan in plans:
            try:
                bezier_keys.fit_many([_bezier_track(plan, settings)], plan.tolerance_deg)
            except ValueError as exc:
                raise BakeError([_fit_issue(plan, plan.tolerance_deg, exc,
                                            settings.keep_playback)]) from None
        raise
    for plan, keys in zip(plans, found):
        plan.bezier = keys
    moving = [p for p in plans if p.location_values is not None]
    if moving:
        tracks = [_still_track(p) for p in moving]
        # The rotation is held still here: only the location tolerance decides.
        for plan, keep in zip(moving, keyreduce.select_keys_many(
                tracks, min(tolerances), settings.location_tolerance)):
            plan.location_keep = keep


def samples_to_add(plan) -> np.ndarray | None:
    """The samples to put between the plan's quarter frames (its path computed there:
    ``plan.resample``, then add_between), where an Euler channel bends fast
    (core.bezier_keys.bending_gaps), so that the fit is held to it there as well:
    ``plan.dense`` gains them, and ``plan.rotation_values`` the channel values at the baked
    frames as the dense ones then run (converted again through the new samples, an Euler
    track can take the other solution from there on). Once per plan (the caller lets
    ``plan.resample`` go once they are added): a bake that refuses one transform fits the
    others again, and bending_gaps run again on its own samples always finds more (a
    review: the count in the note was the second round's). None where nothing is added,
    or its samples cannot change (``plan.resample`` None: see plan_reading; a Transform
    Cache's playback)."""
    if plan.resample is None:
        return None
    # One round: bending_gaps splits a gap finely enough at once. (A second round, on the
    # samples the first added, found no stray the first had left on the capture, the
    # gimbal-lock keys and the timing benchmark's scene that bending_gaps names.)
    times, _target, values = plan.dense
    more = bezier_keys.bending_gaps(times, values, plan.out_mode, plan.tolerance_deg,
                                    plan.source_keys if plan.path_key_frames is None
                                    else plan.path_key_frames)
    held = plan.stepped_frames
    if more.size and held is not None and held.size:
        # Nothing inside a held interval: Blender holds its start's pose there (a jump on
        # some channels' keys only: fixed_frames holds the last sample before it).
        inside = (more[:, None] > held[:, 0]) & (more[:, None] < held[:, 1])
        more = more[~inside.any(axis=1)]
    return more if more.size else None


def _sampling_issue(plan, exc: Exception) -> BakeIssue:
    return unexpected_issue(plan.obj, "sampling its path between quarter frames", exc)


def add_between(added: list) -> None:
    """Put more samples among Bezier plans' ``dense``: ``added`` holds (plan, more (k,)
    sorted times, none of them a sample already, the written half's target there (k, 4)).
    Their channel values continue from the sample before each run of them, the runs of
    all the plans baked to one mode converted together (_values_between); a plan whose runs
    do not lead on to the sample after them as its track does is converted whole again.
    Computed for all of them before any plan changes, so a caller that meets an error
    can do each again alone."""
    by_mode: dict = {}
    for i, (plan, _more, _target) in enumerate(added):
        by_mode.setdefault(plan.out_mode, []).append(i)
    between: list = [None] * len(added)
    for mode, members in by_mode.items():
        found = _values_between([added[i][0].dense for i in members],
                                [added[i][1] for i in members],
                                [added[i][2] for i in members], mode)
        for i, values in zip(members, found):
            between[i] = values
    merged_all = []
    for (plan, more, more_target), values in zip(added, between):
        at_t, at_target, at_values = plan.dense
        merged_t = np.concatenate((at_t, more))
        order = np.argsort(merged_t, kind="stable")
        merged = np.concatenate((at_target, more_target))[order]
        if values is None:
            values = rotation.quat_to_mode_values_continuous(
                merged, plan.out_mode, plan.value_reference, GIMBAL_BAND)
        else:
            values = np.concatenate((at_values, values))[order]
        times = merged_t[order]
        merged_all.append(((times, merged, values),
                           values[np.searchsorted(times, plan.frames)]))
    for (plan, more, _target), (dense, at_frames) in zip(added, merged_all):
        plan.dense, plan.rotation_values, plan.refined = dense, at_frames, int(more.size)


def _values_between(denses: list, mores: list, targets: list, mode: str) -> list:
    """Per plan, the channel values in ``mode`` of the targets ``targets[i]`` at
    ``mores[i]`` (sorted, none of them one of the samples of ``denses[i]``: (times, target,
    values)), each run between two samples continuous from the sample before it: the runs
    of every plan in one conversion per run length, rather than a conversion per plan (a
    bake of 100 objects: 100 calls of 1.4 ms, mostly numpy's per-call cost). None for a
    plan where a run would not lead on to the sample after it as the track does (another
    Euler solution or turn there): the caller then converts that track whole again."""
    sizes_all, before, after, plan_of_row = [], [], [], []
    for p, (dense, more) in enumerate(zip(denses, mores)):
        times, _target, values = dense
        left = np.searchsorted(times, more, side="right") - 1
        starts = np.flatnonzero(np.diff(left, prepend=-1))
        rows = left[starts]
        sizes_all.append(np.diff(np.append(starts, more.size)))
        before.append(values[rows])
        after.append(values[rows + 1])
        plan_of_row.append(np.full(rows.size, p))
    sizes = np.concatenate(sizes_all)
    before, after = np.concatenate(before), np.concatenate(after)
    plan_of_row = np.concatenate(plan_of_row)
    targets = np.concatenate(targets)
    first = np.cumsum(sizes) - sizes          # each run's first added sample, all plans
    after_quats = rotation.mode_values_to_quat(after, mode)
    values = np.empty((targets.shape[0], after.shape[1]))
    leads_on = np.ones(len(denses), dtype=bool)
    # The runs of each length in one conversion, each run followed by the sample after it
    # (its last column: that sample reached through the run). Runs of every length padded
    # to the longest (with that sample, which continues from itself unchanged) were
    # three times the samples of the runs themselves on the timing benchmark's bake.
    for size in np.unique(sizes):
        rows = np.flatnonzero(sizes == size)
        runs = np.empty((rows.size, size + 1, 4))
        runs[:, :size] = targets[first[rows, None] + np.arange(size)]
        runs[:, size] = after_quats[rows]
        found = rotation.quat_to_mode_values_continuous_many(runs, mode, before[rows],
                                                             GIMBAL_BAND)
        values[first[rows, None] + np.arange(size)] = found[:, :size]
        off = np.abs(found[:, size] - after[rows]).max(axis=-1)
        leads_on[plan_of_row[rows[off > _SAME_VALUES]]] = False
    ends = np.cumsum([m.size for m in mores])
    return [v if ok else None
            for v, ok in zip(np.split(values, ends[:-1]), leads_on)]


# A sample's channel values reached again through the samples added before it
# (_values_between) are the same to a rounding of a few turns' size.
_SAME_VALUES = 1e-9


def _fit_issue(plan, tol: float, exc: Exception, conversion: bool = False) -> BakeIssue:
    who = animdata.subject(plan.obj)
    path = plan.target_path or animdata.ROTATION_PATHS[plan.out_mode][0]
    found = re.search(r"frame (-?[0-9.e+-]+)", str(exc))
    frame = float(found.group(1)) if found else None
    raise_it = "Raise the tolerance" if conversion else \
        f"Raise {_deciding_tolerance(plan)}, or set Keys to Linear"
    return BakeIssue(
        'ERROR', plan.obj.name, path, frame,
        f"{who}: no Bezier keys play within the tolerance of {tol:.4g} deg "
        f"({str(exc).rstrip('.')}). "
        f"{raise_it}; it was left as it was.", plan.obj.bone_name)


def _deciding_tolerance(plan) -> str:
    """The setting that gave ``plan`` its tolerance in degrees, as the panel and the command
    line name it (a walk: a Camera Tolerance too small was told to raise Key Tolerance)."""
    if plan.tolerance_px > 0.0 and np.isclose(
            plan.tolerance_deg, np.degrees(plan.tolerance_px / plan.pixels_per_radian)):
        return "Camera Tolerance (px) (--tolerance-px)"
    if plan.tolerance_tip > 0.0 and np.isclose(
            plan.tolerance_deg, _tip_degrees(plan.obj, plan.tolerance_tip)[0] or -1.0):
        return "Bone Tip Tolerance (--tolerance-tip)"
    return "Key Tolerance (--tolerance)"


# Per-transform statistics notes of a tolerance bake: named for this many transforms,
# then only the line over all of them.
MAX_KEY_NOTES = 10


def _changed_keys(keys, arrays: list) -> np.ndarray | None:
    """(k,) bool: the fit's keys (``keys``, BezierKeys) that Blender stores otherwise than
    the fit played them (``arrays``: per channel, the keyframe arrays read back after the
    write): none, as the bake writes them without fc.update(), whose re-alignment would
    move ALIGNED handles by float32 steps. None when the channels hold other keys."""
    k = keys.frames.size
    if any(a["co"].shape != (k, 2) for a in arrays):
        return None
    # Every channel at once, (k, c) and (k, c, 2) as the keys hold them: channel by
    # channel it took 8 ms of a 100-rotation bake's measurement, in numpy's per-call cost.
    co = np.stack([a["co"] for a in arrays], axis=1)
    changed = ((co[..., 0] != keys.frames[:, None]) | (co[..., 1] != keys.values)).any(axis=1)
    for field, ours in (("handle_left", keys.handle_left), ("handle_right", keys.handle_right)):
        changed |= (np.stack([a[field] for a in arrays], axis=1) != ours).any(axis=(1, 2))
    ipo = np.stack([a["interpolation"] for a in arrays], axis=1)
    return changed | (ipo != keys.interpolation_enum[:, None]).any(axis=1)


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
        played[redo] = play_written(arrays, np.asarray(times)[redo])
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
    "samples", "sampled": "quarter frames" | "frames" | what a Stepped modifier plays
    (or the samples between quarter frames too: samples_to_add, Constant Speed's poses),
    "samples_between" (of "samples", those between quarter frames),
    "keys_before" (the animator's
    keys per channel), "keys_dense", "keys_written", "key_interpolation", "tolerance_deg"}
    and, for a perspective camera, "max_px" and "p99_px": the most any pixel of the
    rendered frame moves (core.pixels), and "tolerance_px" when one was asked for.
    """
    tolerance_deg = plan.tolerance_deg
    if plan.dense is not None:
        times, target, _values = plan.dense
        sampled, kind = "quarter frames", "BEZIER"
        refined = plan.refined + plan.reached
        if refined:
            where = " and ".join(w for n, w in (
                (plan.refined, "where the channels bend fast"),
                (plan.reached, "where Constant Speed reaches a key")) if n)
            sampled = f"samples (every quarter frame, and {refined} between them {where})"
        if plan.held_rotation is not None:
            # Only its step starts play (plan._played_samples): every quarter frame holds
            # one of them.
            sampled = _held_words(plan.held_rotation)
    else:
        times = plan.frames
        values = plan.rotation_values
        at = _played_frames(plan)
        if at is not None:
            times, values = times[at], values[at]
        target = (quat.normalize(values, "baked quaternion channels")
                  if plan.out_mode == 'QUATERNION' else rotation.mode_values_to_quat(
                      values, plan.out_mode))
        sampled, kind, refined = "frames", "LINEAR", 0
        if at is not None:
            sampled = _held_words(plan.held_rotation)
    keys = plan.bezier if plan.dense is not None else None
    changed = None if keys is None else _changed_keys(keys, arrays)
    if (changed is not None and not changed.any() and keys.closeness is not None
            and keys.closeness.shape == (np.size(times),)):
        # Blender stores the very keys the fit played and measured at these samples
        # against this target: its error, sample by sample, is the measurement (to
        # ~1e-6 deg, read from the half angle's cosine). Measuring it again cost a sixth
        # of a quaternion Bezier bake.
        # Its four figures from the closeness (metrics.closeness_stats: the same numbers,
        # with the arccos only where they are decided, not at each of the samples).
        err = None
        worst, p99, within, at = metrics.closeness_stats(keys.closeness, tolerance_deg)
        written_change(plan, arrays, keys.played, times)
    else:
        played = _played_known(keys, arrays, times, changed)
        if played is None:
            played = play_written(arrays, times)
        written_change(plan, arrays, played, times)
        if plan.out_mode == 'QUATERNION':
            played = quat.normalize(played, "written quaternion channels")
        else:
            played = rotation.mode_values_to_quat(played, plan.out_mode)
        err = np.degrees(quat.angle_between(played, target))
    if err is not None:
        at = int(np.argmax(err))
        worst, p99 = float(err[at]), metrics.percentile(err, 99.0)
        within = int(np.count_nonzero(err <= tolerance_deg))
    samples = int(np.size(times))
    extra = {}
    if plan.pixels_per_radian is not None:
        per_deg = np.radians(plan.pixels_per_radian)
        extra = {"max_px": float(worst * per_deg), "p99_px": p99 * float(per_deg)}
        if plan.tolerance_px > 0.0:
            extra["tolerance_px"] = float(plan.tolerance_px)
    return {
        "max_deg": worst, "p99_deg": p99,
        "within": within / samples, "samples": samples,
        "worst_frame": float(times[at]), "sampled": sampled, "samples_between": refined,
        "keys_before": int(plan.key_count_before), "keys_dense": int(plan.frames.shape[0]),
        "keys_written": int(arrays[0]["co"].shape[0]), "key_interpolation": kind,
        "tolerance_deg": float(tolerance_deg), **extra, **_location_keys(plan),
    }


def _location_keys(plan) -> dict:
    """{"location_keys": n} when the bake writes the location on other frames than the
    rotation: with Bezier rotation keys the location keeps its own LINEAR keys (a USD
    camera's spiral: 2 rotation keys, 480 location ones, and the summary said "2 keys per
    channel written"). {} otherwise."""
    frames, values, _constant = plan.location_written()
    if values is None:
        return {}
    return {"location_keys": int(np.size(frames))}


def _deg(value: float) -> str:
    """An angle in degrees for a note: 4 decimals, or 2 digits below 0.0001."""
    return f"{value:.4f}" if value >= 1e-4 or value == 0.0 else f"{value:.1e}"


def _stats_sentence(stats: dict, tip: float = 0.0, decided_by: str = "px") -> str:
    """``decided_by``: which tolerance gave the angle ("deg", "px", "tip"); only that one
    is put beside the degrees, as what they amount to (a walk: "within 0.005 deg (1 px)"
    where 0.005 deg, the finer, was 0.64 px)."""
    kind = "Bezier" if stats["key_interpolation"] == 'BEZIER' else "LINEAR"
    px = "max_px" in stats
    within = f"{stats['tolerance_deg']:.3g} deg"
    if "tolerance_px" in stats and decided_by == "px":
        within += f" ({stats['tolerance_px']:g} px)"
    if tip > 0.0 and decided_by == "tip":
        within += f" ({tip:g} scene units at the bone's tip)"
    # One key: a single-key transform converted (convert.py), its pose played at its frame.
    keys = "key" if stats["keys_written"] == 1 else "keys"
    where = "its key" if stats["samples"] == 1 else f"{stats['samples']} {stats['sampled']}"
    location = ""
    if stats.get("location_keys", stats["keys_written"]) != stats["keys_written"]:
        location = f", location {stats['location_keys']} LINEAR"
    return (f"{stats['keys_written']} {kind} {keys} per channel{location} (dense bake "
            f"{stats['keys_dense']}, keyed before {stats['keys_before']}); Blender's playback "
            f"at {where}: max {_deg(stats['max_deg'])} deg"
            + (f" ({stats['max_px']:.3g} px)" if px else "")
            + f", 99th percentile {_deg(stats['p99_deg'])} deg"
            + (f" ({stats['p99_px']:.3g} px)" if px else "")
            + f", {100.0 * stats['within']:.1f}% within {within}.")


def applied_tolerances(plans: list) -> tuple[float, float, float]:
    """(degrees, pixels, tip distance): each tolerance some plan was baked within, 0 for
    one that applied to none (a Camera Tolerance with no perspective camera baked): what
    the bake's summary says its keys are within."""
    deg = max((p.tolerance_deg for p in plans
               if p.tolerance_deg > 0.0 and p.decided_by == "deg"), default=0.0)
    return (deg, max((p.tolerance_px for p in plans), default=0.0),
            max((p.tolerance_tip for p in plans), default=0.0))


def unmet_tolerances(plans: list) -> list[BakeIssue]:
    """A warning for each transform whose LINEAR keys, as Blender stores them, play beyond
    its tolerance: below float32's resolution (a few 1e-6 deg) no key holds a finer one.
    (Bezier keys beyond theirs are refused when measured, write._measure.)"""
    out = []
    for p in plans:
        stats = p.key_stats
        if stats is None or p.bezier is not None or stats["max_deg"] <= p.tolerance_deg:
            continue
        out.append(BakeIssue(
            'WARNING', p.obj.name, "", None,
            f"{animdata.subject(p.obj)}: its LINEAR keys play up to {_deg(stats['max_deg'])} "
            f"deg from the bake, beyond the tolerance of {p.tolerance_deg:.3g} deg: Blender "
            "stores keys as float32, which holds no finer; raise the tolerance.",
            p.obj.bone_name))
    return out


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
                     f"{_stats_sentence(p.key_stats, p.tolerance_tip, p.decided_by)}",
                     p.obj.bone_name) for p in measured[:MAX_KEY_NOTES]]
    out += _fallback_notes(plans, "tip_fallback", "Bone Tip Tolerance",
                           "pose bones of some length")
    out += _fallback_notes(plans, "px_fallback", "Camera Tolerance (px)",
                           "perspective cameras")
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


# A plan's px_fallback when a warning said why already (an orthographic camera).
WARNED = "warned"


def _fallback_notes(plans: list, attribute: str, setting: str, applies: str) -> list[BakeIssue]:
    """One INFO note naming the transforms a tolerance (``setting``) did not apply to
    (``attribute`` of their plans: why not) and what they were baked within."""
    missed = [p for p in plans if getattr(p, attribute) not in ("", WARNED)]
    if not missed:
        return []
    names = [f"{animdata.subject(p.obj)} ({getattr(p, attribute)})" for p in missed[:3]]
    shown = "; ".join(names) + (f"; and {len(missed) - 3} more" if len(missed) > 3 else "")
    tolerances = {p.tolerance_deg for p in missed}
    they, them, were = ("it", "it", "was") if len(missed) == 1 else ("they", "them", "were")
    if tolerances == {0.0}:
        took = (f"so {they} kept a Linear key on every step frame (give a Key Tolerance in "
                f"degrees for {them})")
    elif len(tolerances) == 1:
        took = f"so {they} {were} baked within the Key Tolerance, {tolerances.pop():.3g} deg"
    else:
        took = (f"so {they} {were} baked within the Key Tolerance (a camera: the Camera "
                "Tolerance), or with every key where there is none")
    one = missed[0] if len(missed) == 1 else None
    return [BakeIssue(
        'INFO', one.obj.name if one else "", "", None,
        f"{setting} applies to {applies} only, not to {len(missed)} of the baked "
        f"transforms: {shown}; {took}.", one.obj.bone_name if one else "")]
