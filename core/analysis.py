# SPDX-License-Identifier: GPL-3.0-or-later
"""How Blender's own rotation interpolation differs from QuatBake's, for one object.

Pure numpy: the caller (``addon.analyze``) reads Blender's data into arrays;
this module computes everything the report, the panel and the command line
show. One implementation for all three.

Every pitfall of the seed articles that can be seen in keyed data is measured (the
detectors are in ``core.pitfalls``, the findings' sentences in ``core.findings``):

- the long way round (flipped quaternion sign, Euler wrap 170 -> -170 deg);
- the shrinking of a non-normalised per-component lerp (norm drift);
- uneven angular speed (nlerp and Blender's curves speed up mid-way);
- Euler gimbal lock (middle angle near +-90 deg);
- float32 at large coordinates (motion per frame below float32 resolution);
- timing by frame count instead of arc length (a 1 m then a 10 m segment in
  the same number of frames: ten times the speed);
- ``lerp(current, target, dt)`` used as a filter (keys that creep towards a
  target by a constant fraction of what is left, never arriving);
- small-angle jitter (tiny back-and-forth turns);
- C1 breaks at keys (angular velocity jumps).

Angles come from 2*atan2(|v|, |w|) (core.quat.angle_between), never arccos,
so nothing here produces NaN near 0 or 180 degrees.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from . import findings, interp, metrics, quat, turn_interp, turns
from .intervals import Intervals
from .pitfalls import (
    axis_reversals,
    euler_wraps,
    exponential_approach_many,
    float32_risk,
    gimbal,
    jitter_many,
    keys_are_dense,
    location_segments,
    location_speed,
    norm_drift,
    speeds_deg,
    velocity_jumps,
)

# Contract: an interval is a long arc when Blender turns more than 180 deg
# and more than the shortest rotation between its keys by over this margin.
LONG_ARC_MARGIN_DEG = 1.0
# The between-frame check builds the method's path of a group's members at the union of
# their subframes in one call where that is at most this many samples (members x union),
# or at most twice what each at its own would take; else one call per set of members
# sharing their subframes (a capture's bones: 460,000 at the union, 37,000 their own).
UNION_PATH_SAMPLES = 100_000


@dataclass
class ObjectAnalysis:
    """Everything measured for one object. Arrays are per frame (n,) unless noted."""

    name: str
    rotation_mode: str
    method: str
    frames: np.ndarray                 # (n,) frames analysed
    keys: np.ndarray                   # (k,) key frames (union of rotation channels)
    blender_quats: np.ndarray          # (n, 4) Blender's orientation
    custom_quats: np.ndarray           # (n, 4) QuatBake's method (lerp: not unit)
    deviation_deg: np.ndarray
    blender_speed_deg: np.ndarray      # angle turned since the previous frame (0 at first)
    custom_speed_deg: np.ndarray
    max_deviation_deg: float
    rms_deviation_deg: float
    worst_frame: float
    long_arc_segments: list            # [[frame_a, frame_b], ...]
    intervals: Sequence                # per key interval dicts (core.intervals.Intervals)
    velocity_jumps: dict               # frames, blender_deg, custom_deg (deg/frame)
    norm: dict | None                  # quaternion channel norm drift (QUATERNION mode)
    custom_norm_min: float             # smallest |q| of the method (lerp shrinks)
    euler_wraps: list
    gimbal_frames: list
    gimbal_min_margin_deg: float | None
    float32_risk: dict | None
    location_segments: list
    location_speed_ratio: float | None
    location_speed: np.ndarray | None      # (n,) distance moved since the previous frame / frames
    exponential_approach: list
    jitter_frames: list
    findings: list = field(default_factory=list)   # sentences, most important first
    advice: str = ""
    # Issue 11: path against timing, and the keyed turns (see _keyed_turns).
    turns: str = "AUTO"                # the Turns setting the method's path was built with
    timing: str = "EVEN"               # the Timing setting of custom_quats
    path_deviation_deg: np.ndarray | None = None    # (n,) distance from the method's path
    timing_deviation_deg: np.ndarray | None = None  # (n,) method at even vs Blender's timing
    max_path_deviation_deg: float = 0.0
    max_timing_deviation_deg: float = 0.0
    # Between the frames: the largest deviation at the in-between samples (extra_frames,
    # where a channel jumps between neighbouring keys) and its subframe. Mocap's 179 ->
    # -179 deg wrap from one frame to the next is 0 deg off at both frames and 180 deg off
    # half-way, where motion blur samples it; a --fail-above gate must see it.
    max_between_deviation_deg: float = 0.0
    worst_between_frame: float | None = None
    kinds: list = field(default_factory=list)       # per key interval (core.turns.KINDS)
    clip: str = ""     # the action analysed when it is one of several clips of the object
    bone: str = ""     # the pose bone analysed (``name`` is then its armature's)
    channels: list = field(default_factory=list)   # keyed rotation data paths, e.g. delta ones
    # keys_are_dense of the rotation keys and of the location keys: no timing advice.
    dense_keys: bool = False
    dense_location_keys: bool = False
    # The findings that ask for nothing (a spin kept as keyed, a shrink Blender's
    # normalising hides, playback within a bake's Key Tolerance): a verdict is "fine" only
    # when every finding is one of these (addon/analyze/entries.verdict).
    notes: list = field(default_factory=list)
    # A QuatBake bake these keys belong to (set_bake): "before" (the keys it replaced) or
    # "after" (the baked keys), its method, Key Tolerance (deg, 0: dense) and the rotation
    # keys it kept per channel. Advice never asks to re-bake what that bake already did.
    bake_role: str = ""
    bake_method: str = ""
    bake_tolerance_deg: float = 0.0
    bake_keys: int = 0
    # "after": the baked keys were edited since the bake (a key moved, a handle dragged),
    # so what differs may be the edits', and a re-bake would replace them.
    bake_edited: bool = False
    # The path the bake's keys follow (bake_path_of: its Turns, Timing, Constant Speed);
    # "" when unknown.
    bake_path: str = ""
    # The interpolation of a Key Tolerance bake's keys ("BEZIER", "LINEAR"; "" unknown).
    bake_interpolation: str = ""
    # Axis-angle key intervals whose axes point apart (pitfalls.axis_reversals).
    axis_reversals: list = field(default_factory=list)


def _as_frames(frames, what: str) -> np.ndarray:
    arr = np.asarray(frames, dtype=np.float64).reshape(-1)
    if not np.isfinite(arr).all():
        raise ValueError(f"{what}: a frame is NaN or infinite.")
    if arr.size > 1 and np.any(np.diff(arr) <= 0.0):
        raise ValueError(f"{what}: frames must be strictly increasing.")
    return arr


def _extra_groups(items: list) -> list:
    """The items' in-between samples as [(frames (e,), members, orientations (m, e, 4)
    unit)], one entry per set of in-between frames: a group's items sampled at the same
    frames (as analyze_many samples them) are normalised and measured together."""
    same: dict = {}
    for i, it in enumerate(items):
        if it.extra_frames is not None:
            ef = np.asarray(it.extra_frames, dtype=np.float64).reshape(-1)
            same.setdefault(ef.tobytes(), (ef, []))[1].append(i)
    out = []
    for ef, members in same.values():
        eqs = _stacked_unit([items[i].extra_quats for i in members],
                            [f"Object \"{items[i].name}\" in-between orientations"
                             for i in members], ef.size)
        for i, eq in zip(members, eqs):
            if eq.shape != (ef.size, 4) or not np.isfinite(ef).all():
                raise ValueError(f"Object \"{items[i].name}\": {ef.size} extra frames need "
                                 f"({ef.size}, 4) finite orientations; got {eq.shape}.")
        out.append((ef, members, np.asarray(eqs)))
    return out


def _turned_at_keys(frames, keys, bq, b_speed, items: list, extras: list) -> list:
    """Per item, the angle Blender has turned through by each key (deg, cumulative from
    the first frame): the steps from frame to frame, with the item's in-between samples
    (``extras``, from _extra_groups) measured too, so that a spin between two
    neighbouring frames counts. Items sampled at the same in-between frames are measured
    together: one merge of the frames and one angle pass for all of them."""
    out: list = [None] * len(items)
    plain = [i for i, it in enumerate(items) if it.extra_frames is None]
    if plain:
        turned = np.cumsum(b_speed[plain], axis=1)
        out_rows = _rows_at(keys, frames, turned)
        for i, row in zip(plain, out_rows):
            out[i] = row
    for ef, members, eqs in extras:
        new = ~np.isin(ef, frames)
        times = np.concatenate([frames, ef[new]])
        order = np.argsort(times, kind="stable")
        turn_frames = times[order]
        turn_quats = np.take(np.concatenate([bq[members], eqs[:, new]], axis=1),
                             order, axis=1)
        turned = np.cumsum(_turn_speeds(frames, b_speed[members], turn_frames, turn_quats),
                           axis=1)
        for i, row in zip(members, _rows_at(keys, turn_frames, turned)):
            out[i] = row
    return out


def _rows_at(x_new, x, rows) -> np.ndarray:
    """np.interp(x_new, x, row) of every row of ``rows`` (b, n) at once: the same
    straight lines between the same neighbours, ends held; the same bits on the frames
    and at the ends, a few ulps of the values apart between them (4e-16 relative in
    random trials: the line is written another way)."""
    if x.size == 1:
        return np.repeat(rows[:, :1], x_new.size, axis=1)
    right = np.clip(np.searchsorted(x, x_new, side="right"), 1, x.size - 1)
    left = right - 1
    span = x[right] - x[left]
    share = np.clip((x_new - x[left]) / np.where(span > 0.0, span, 1.0), 0.0, 1.0)
    lo, hi = np.take(rows, left, axis=1), np.take(rows, right, axis=1)
    return np.where(share == 1.0, hi, lo + share * (hi - lo))


def _turn_speeds(frames, speeds, turn_frames, turn_quats) -> np.ndarray:
    """``speeds_deg(turn_quats)`` of turn tracks (b, t, 4) on ``turn_frames``, the steps
    from one frame to the next with nothing between taken from ``speeds`` (b, n: the
    group's, at ``frames``: the same numbers), so only the steps next to the few
    in-between samples are measured again (a rig's sign-flipped keys gave 178 bones a
    whole new pass)."""
    at = np.searchsorted(frames, turn_frames)
    on_frame = (at < frames.size) & (frames[np.minimum(at, frames.size - 1)] == turn_frames)
    out = np.zeros(turn_quats.shape[:2])
    if turn_frames.size < 2:
        return out
    reused = on_frame[1:] & on_frame[:-1] & (at[1:] == at[:-1] + 1)
    out[:, 1:][:, reused] = np.take(speeds, at[1:][reused], axis=1)
    new = np.flatnonzero(~reused) + 1
    out[:, new] = np.degrees(quat.angle_between(np.take(turn_quats, new - 1, axis=1),
                                                np.take(turn_quats, new, axis=1)))
    return out


def kept_by_bake(before: ObjectAnalysis, after: ObjectAnalysis) -> list:
    """What the keys before a bake showed about their own poses that the bake keeps and
    its keys hide: a lerp filter's creep (the poses creep, baked or not; on a key per
    frame the creep is not looked for). The window walk (issue 24) showed FollowCam
    "nothing to do" after a bake that kept its creep."""
    if after.exponential_approach or not before.exponential_approach:
        return []
    return [findings.creep_sentence(run) + " (a bake keeps these poses)"
            for run in before.exponential_approach]


def bake_path_of(turns_setting: str, timing: str, constant_speed: bool = False) -> str:
    """How a bake's path is made beyond its method: the Turns and Timing settings, and
    Constant Speed (a retiming the analysis never makes). An analysis with these Turns and
    Timing computes the very path a bake with them (and no Constant Speed) followed."""
    return f"{str(turns_setting).upper()} {str(timing).upper()}" + \
        (" CONSTANT_SPEED" if constant_speed else "")


def after_bake(before: ObjectAnalysis, after: ObjectAnalysis) -> list:
    """What a baked transform's report says, from the analyses of its keys before the bake
    (``before``) and now (``after``): a Key Tolerance bake measured against its own path
    (measure_by_bake_path), then what the bake kept (carry_kept, whose sentences it
    returns). The panel, the exported report and ``quatbake report`` all call it."""
    measure_by_bake_path(before, after)
    return carry_kept(before, after)


def measure_by_bake_path(before: ObjectAnalysis, after: ObjectAnalysis) -> bool:
    """Measure the keys of a Key Tolerance bake (``after``) against the bake's own path:
    the method through the keys before the bake (``before.custom_quats``), where they
    were compared with the method through the baked keys. A slerp through two points of
    a slerp is the same slerp, so for slerp the two agree while the bake kept every key
    of ``before``; nlerp's timing and squad's tangents between a bake's sparse keys are
    not the bake's, and a NLERP bake played within its 0.05 deg read 8 deg "visible",
    asking to re-bake. Nor is a slerp through fewer keys than the bake's path went
    through (a mocap clip's key on every frame, thinned): a SLERP bake within 0.05 deg
    read 3.2 deg "visible". Only for a bake made with the method both are compared with,
    on frames ``before`` has, and not once its keys were edited (they are the animator's
    then). Returns whether ``after`` was measured again (its deviations, the path it is
    compared with, and its findings)."""
    if not (after.bake_role == "after" and after.bake_tolerance_deg > 0.0
            and not after.bake_edited
            and after.method == after.bake_method == before.method
            and after.bake_path == bake_path_of(before.turns, before.timing)
            and after.frames.size and before.frames.size):
        return False     # another path than the bake's (a retimed bake, other settings)
    if after.method == "slerp" and np.isin(before.keys, after.keys).all():
        return False     # the same slerp, through the same keys and more
    found = _path_at(before, after.frames, after.method)
    if found is None:
        return False
    path, speed = found
    # Core's findings as they stand, to tell the add-on's from them afterwards.
    core = set(findings.sentences(after))
    deviation = np.degrees(quat.angle_between(after.blender_quats, path))
    worst = int(np.argmax(deviation))
    after.custom_quats, after.custom_speed_deg = path, speed
    after.deviation_deg = after.path_deviation_deg = deviation
    after.timing_deviation_deg = np.zeros_like(deviation)
    after.max_deviation_deg = after.max_path_deviation_deg = float(deviation[worst])
    after.max_timing_deviation_deg = 0.0
    after.rms_deviation_deg = float(np.sqrt(np.mean(deviation**2)))
    after.worst_frame = float(after.frames[worst])
    if after.method != "slerp":
        # Between the frames it was measured against the method through the baked keys
        # too, and the bake's path is not known there (_path_at): a Squad bake with two
        # keys a frame apart, within 0.04 deg of its path at every 64th frame, read
        # "0.45 deg off squad between frames". Not compared with another path. (A slerp
        # between two baked keys a frame apart or closer is the bake's slerp there, to
        # its tolerance.)
        after.max_between_deviation_deg, after.worst_between_frame = 0.0, None
    # The path's own velocity jumps at the keys (a Squad path's, between uneven keys).
    _, own = velocity_jumps(after.frames, after.keys, path)
    after.velocity_jumps = {**after.velocity_jumps, "custom_deg": own}
    _set_advice_keeping_extras(after, core)
    return True


# A path that turns this far between two of its frames may have turned farther (past a
# half turn, the slerp of its ends goes the other way): not filled in between them.
_FAST_DEG = 90.0


def _path_at(before: ObjectAnalysis, frames: np.ndarray, method: str) -> tuple | None:
    """(orientations, speeds in deg per frame) of ``before``'s method path at ``frames``,
    or None where it is not known there. Its own frames are taken as they are. A frame
    between two of them (a Bezier bake's key on a subframe, where the keys turn too fast
    for whole frames) only for slerp: a slerp path between two of its points, each
    interval under a half turn, is the slerp of those points at the time's fraction
    (the speeds then each sample's step from the one before, as analyze_group's)."""
    known = before.frames
    at = np.searchsorted(known, frames)
    if at[-1] >= known.size or frames[0] < known[0]:
        return None
    exact = known[at] == frames
    if exact.all():
        return before.custom_quats[at], before.custom_speed_deg[at]
    if method != "slerp":
        return None
    path = before.custom_quats[at].copy()
    between = np.flatnonzero(~exact)
    hi = at[between]
    lo = hi - 1
    if np.degrees(quat.angle_between(before.custom_quats[lo], before.custom_quats[hi])).max() \
            >= _FAST_DEG:
        return None
    path[between] = interp.slerp(before.custom_quats[lo], before.custom_quats[hi],
                                 (frames[between] - known[lo]) / (known[hi] - known[lo]))
    return path, speeds_deg(path)


def _set_advice_keeping_extras(a: ObjectAnalysis, core: set) -> None:
    """``findings.set_advice`` again, keeping the findings others put in ``a.findings`` beside
    core's (``core``: core's own, taken before ``a`` changed; the others are the add-on's:
    a driver first, NLA strips and constraints after): those before core's first stay
    first, the others after; the advice is the first that asks for something (a review
    found them dropped after a tolerance bake's re-measure)."""
    lead = []
    for finding in a.findings:
        if finding in core:
            break
        lead.append(finding)
    trail = [f for f in a.findings if f not in core and f not in lead]
    findings.set_advice(a)
    if lead or trail:
        a.findings = lead + a.findings + trail
        asks = findings.to_do(a)
        a.advice = asks[0] if asks else a.findings[0]


def carry_kept(before: ObjectAnalysis, after: ObjectAnalysis) -> list:
    """Put kept_by_bake(before, after) first in ``after``'s findings, so its verdict asks
    for it ("to check" where it was fine or within tolerance, and then its advice); the
    panel, the exported report and ``quatbake report`` of a baked file say the same.
    Returns the sentences carried."""
    kept = kept_by_bake(before, after)
    if kept:
        quiet = findings.verdict(after) in (findings.VERDICT_FINE, findings.VERDICT_WITHIN)
        after.findings = kept + list(after.findings)
        if quiet:
            after.advice = kept[0]
    return kept


@dataclass
class Sampled:
    """One transform's input to :func:`analyze_group`: Blender's orientation at the
    group's frames and keys, and the optional extras :func:`analyze_object` documents."""

    name: str
    rotation_mode: str
    blender_quats: np.ndarray          # (n, 4) at the group's frames
    key_quats: np.ndarray              # (k, 4) at the group's keys
    raw_values: np.ndarray | None = None
    key_raw: np.ndarray | None = None
    positions: np.ndarray | None = None
    key_positions: np.ndarray | None = None
    location_key_frames: np.ndarray | None = None
    extra_frames: np.ndarray | None = None
    extra_quats: np.ndarray | None = None
    stepped: np.ndarray | None = None
    turn_samples: tuple | None = None
    # The in-between frames of its own jumps, where extra_frames holds a group's union
    # (analyze_many samples a rig together): the deviation between frames is measured
    # there only, so that it does not depend on the neighbours. None: all extra_frames.
    own_extra_frames: np.ndarray | None = None
    # The in-between frames (among extra_frames) where its keyed turns are followed
    # (core.turns), the frames around a jump; the others only measure the playback (the
    # deviation between the frames, the turn at the keys). Adding samples never changes
    # what a tracking finds: fewer, cheaper. None: all extra_frames. Timing: Keyed follows
    # them all (the method's path at every in-between frame needs its progress there).
    turn_extra_frames: np.ndarray | None = None
    # Its keys are the samples of a recording whatever their spacing (a Transform Cache:
    # its samples at the file's rate, 1.25 frames apart at 30 fps): no timing advice, as
    # for dense keys (a triage: a 24 Hz Alembic dolly was told Constant Speed at 25, 30
    # and 48 fps, not at 12 and 24).
    recorded: bool = False


def _stacked_unit(arrays: list, labels: list, rows: int) -> np.ndarray:
    """(b, rows, 4) unit quaternions of the group; a bad one raises the error its own
    transform would (its name and key), not the stack's."""
    if all(np.shape(a) == (rows, 4) for a in arrays):
        try:
            return quat.normalize(np.stack(arrays), labels[0])
        except ValueError:
            pass
    out = [quat.normalize(a, label) for a, label in zip(arrays, labels)]
    return np.stack(out) if all(q.shape == (rows, 4) for q in out) else out


def _turn_samples(frames, bq, item: Sampled, timing: str = "EVEN"):
    """(times, quats) core.turns follows for one transform: the frames, then its
    extra in-between samples (turn_samples, extra_frames: those of turn_extra_frames
    unless ``timing`` is KEYED)."""
    samples = item.turn_samples
    if item.extra_frames is not None:
        # The in-between frames of adjacent keys follow the keyed turn too.
        ef = np.asarray(item.extra_frames, dtype=np.float64).reshape(-1)
        eq = np.asarray(item.extra_quats, dtype=np.float64).reshape(-1, 4)
        if item.turn_extra_frames is not None and timing != "KEYED":
            keep = np.isin(ef, np.asarray(item.turn_extra_frames, dtype=np.float64))
            ef, eq = ef[keep], eq[keep]
        samples = (ef, eq) if samples is None else (
            np.concatenate((np.asarray(samples[0], dtype=np.float64).ravel(), ef)),
            np.concatenate((np.asarray(samples[1], dtype=np.float64).reshape(-1, 4), eq)))
    if samples is None:
        return frames, bq
    extra_t, extra_q = samples
    return (np.concatenate((frames, np.asarray(extra_t, dtype=np.float64).ravel())),
            np.concatenate((bq, quat.normalize(extra_q, "turn samples"))))


def _track_group(frames, bq, keys, kq, items: list, timing: str = "EVEN") -> list:
    """core.turns tracking of every transform: one ``track_many`` for those followed
    at the same times (a rig's bones on the group's frames), one each for the rest."""
    samples = [_turn_samples(frames, bq[i], item, timing) for i, item in enumerate(items)]
    same_times: dict = {}
    for i, (t, _q) in enumerate(samples):
        same_times.setdefault(t.tobytes(), []).append(i)
    out: list = [None] * len(items)
    for members in same_times.values():
        times = samples[members[0]][0]
        found = turns.track_many(keys, kq[members], times,
                                 np.stack([samples[i][1] for i in members]), unit=True)
        for i, tracking in zip(members, found):
            out[i] = tracking
    return out


def _method_paths(keys, kq, trackings, kinds, setting, method, frames, timing, bq) -> np.ndarray:
    """(b, n, 4): the method's path of each transform as a bake with these settings
    makes it; the transforms with no kept turn, step or keyed timing in one
    ``interp.interpolate_many`` call (the bake's batching), slerp's others with no step
    in one ``turn_interp.slerp_many`` call, the rest one by one."""
    out = np.empty((len(trackings), frames.size, 4))
    plain = [i for i, (t, k) in enumerate(zip(trackings, kinds))
             if turn_interp.is_plain(t, k, setting, timing)]
    if plain:
        out[plain] = interp.interpolate_many(keys, kq[plain], frames, method)
    done = set(plain)
    if method == "slerp":
        turning = [i for i, k in enumerate(kinds)
                   if i not in done and not turn_interp.has_steps(k)]
        if turning:
            out[turning] = turn_interp.slerp_many(
                keys, kq[turning], [trackings[i] for i in turning],
                [kinds[i] for i in turning], setting, frames, timing)
        done.update(turning)
    for i, (tracking, kind) in enumerate(zip(trackings, kinds)):
        if i not in done:
            out[i] = turn_interp.interpolate_keys(keys, kq[i], tracking, kind, setting,
                                                  method, frames, timing, bq[i])
    return out


def analyze_object(name: str, rotation_mode: str, frames, blender_quats, key_frames, key_quats,
                   method: str = "slerp", raw_values=None, key_raw=None, positions=None,
                   key_positions=None, location_key_frames=None, extra_frames=None,
                   extra_quats=None, turns_setting: str = "AUTO", timing: str = "EVEN",
                   stepped=None, turn_samples=None, recorded: bool = False) -> ObjectAnalysis:
    """Compare Blender's orientation per frame with QuatBake's ``method`` on the same keys.

    frames: (n,) frames, increasing; blender_quats: (n, 4) Blender's orientation
    at those frames (unit or not); key_frames: (k,) the rotation keys' frames,
    k >= 1; key_quats: (k, 4) Blender's orientation at each key; method: one
    of core.interp.METHODS; raw_values: (n, 3|4) raw channel values (norm drift,
    gimbal); key_raw: (k, 3|4) raw channel values at the keys (Euler wraps);
    positions: (n, 3) locations per frame (float32 risk); key_positions:
    (m, 3) locations at ``location_key_frames`` (m,) (segment speeds);
    extra_frames (e,) / extra_quats (e, 4): Blender's orientation at more
    in-between frames (subframes between adjacent keys whose channels jump, e.g.
    an Euler angle wrapping by 360 deg from one frame to the next), used for the
    angle turned between keys and the long arcs, so that a spin between two
    neighbouring frames counts; the per-frame arrays stay on ``frames``.
    turns_setting ('AUTO' | 'SHORTEST' | 'KEYED') and timing ('EVEN' | 'KEYED')
    build the method's path as a bake with those settings would (core.turns);
    stepped (k-1,) bool marks CONSTANT intervals (followed, never deviation);
    turn_samples (times (s,), quats (s, 4)): Blender's orientation at extra
    frames inside the key intervals, to follow its keyed turns more densely
    than ``frames`` (consecutive samples must stay under 180 deg apart); recorded:
    the keys are a recording's samples whatever their spacing (``Sampled.recorded``).
    Raises ValueError (naming what) on inconsistent input.
    """
    item = Sampled(name, rotation_mode, blender_quats, key_quats, raw_values, key_raw,
                   positions, key_positions, location_key_frames, extra_frames, extra_quats,
                   stepped, turn_samples, recorded=recorded)
    return analyze_group(frames, key_frames, [item], method, turns_setting, timing)[0]


def analyze_group(frames, key_frames, items: list, method: str = "slerp",
                  turns_setting: str = "AUTO", timing: str = "EVEN") -> list:
    """:func:`analyze_object` of several transforms (``Sampled``) analysed at the same
    frames and keyed on the same frames: a rig's bones, a baked selection. The
    per-frame measures (orientations, the keyed turns, the slerp and nlerp paths,
    deviations, speeds, their unevenness, the velocity jumps at the keys) are
    computed in one numpy pass over the whole group; what is particular to each
    transform (kept turns, steps, its pitfalls' lists and sentences) one by one.
    Returns one ObjectAnalysis per item, in order, each as analyze_object gives it.
    """
    if not items:
        return []
    first = items[0].name
    frames = _as_frames(frames, f"Object \"{first}\"")
    keys = _as_frames(key_frames, f"Object \"{first}\" keys")
    if keys.size == 0:
        raise ValueError(f"Object \"{first}\" has no rotation keys: nothing to compare.")
    if method not in interp.METHODS:
        raise ValueError(f"Method {method!r} is not one of {', '.join(interp.METHODS)}.")
    bq = _stacked_unit([it.blender_quats for it in items],
                       [f"Object \"{it.name}\" orientation" for it in items], frames.size)
    kq = _stacked_unit([it.key_quats for it in items],
                       [f"Object \"{it.name}\" key orientations" for it in items], keys.size)
    for it, b, k in zip(items, bq, kq):
        if b.shape != (frames.size, 4) or k.shape != (keys.size, 4):
            raise ValueError(
                f"Object \"{it.name}\": {frames.size} frames need ({frames.size}, 4) "
                f"orientations and {keys.size} keys need ({keys.size}, 4); got {b.shape} "
                f"and {k.shape}.")

    trackings, kinds = [None] * len(items), [[] for _ in items]
    if keys.size == 1:
        custom = np.repeat(kq, frames.size, axis=1)
        along = custom
    else:
        for it in items:
            if it.stepped is not None and len(it.stepped) != keys.size - 1:
                raise ValueError(f"stepped has {len(it.stepped)} entries for {keys.size - 1} "
                                 "key intervals.")
        trackings = _track_group(frames, bq, keys, kq, items, timing)
        kinds = [turns.classify(it.rotation_mode, it.key_raw, t.differs, it.stepped)
                 for it, t in zip(items, trackings)]
        if np.array_equal(frames, keys):
            # Every frame analysed is a key (a dense bake's): the path of every method,
            # with any Turns and Timing, passes through the keys, so there it is the keys
            # themselves (tests/core/test_analysis: as the path computed in full).
            custom = along = kq
        else:
            custom = _method_paths(keys, kq, trackings, kinds, turns_setting, method,
                                   frames, timing, bq)
            # The method's path travelled with Blender's own timing: what is left
            # between it and Blender is off the path, whatever the timing.
            along = custom if timing == "KEYED" else _method_paths(
                keys, kq, trackings, kinds, turns_setting, method, frames, "KEYED", bq)
    deviation = np.degrees(quat.angle_between(bq, custom))        # (b, n)
    # The part off the path: the distance to the arc's nearest point where the path is
    # one arc (turn_interp.arc_distances); the path's point at Blender's progress is not
    # the nearest (Blender turning the long way round, 216 deg, is at most 108 deg from
    # the short arc, 180 deg from its point at the same fraction). Elsewhere (Squad, a
    # step, outside the keys) that point's.
    timing_dev = np.zeros_like(deviation) if along is custom else \
        np.degrees(quat.angle_between(custom, along))
    if method != "squad" and keys.size > 1 and along is not kq:
        path_dev = np.degrees(turn_interp.arc_distances(keys, kq, trackings, kinds,
                                                        turns_setting, frames, bq))
        elsewhere = np.isnan(path_dev)
        if elsewhere.any():
            path_dev[elsewhere] = np.degrees(quat.angle_between(bq[elsewhere],
                                                                along[elsewhere]))
    elif along is custom:
        path_dev = deviation
    else:
        path_dev = np.degrees(quat.angle_between(bq, along))
    b_speed = speeds_deg(bq)
    b_cv = metrics.speed_unevenness(frames, np.radians(b_speed), keys)   # (b, k-1)
    jf, jb = velocity_jumps(frames, keys, bq, unit=True)      # bq: normalised above
    if custom is kq and np.array_equal(bq, kq):
        # Blender plays the keys at the keys: the method's speeds are Blender's.
        c_speed, c_cv, jc = b_speed, b_cv, jb
    else:
        c_speed = speeds_deg(custom)
        c_cv = metrics.speed_unevenness(frames, np.radians(c_speed), keys)
        _, jc = velocity_jumps(frames, keys, custom)
    shortest = np.degrees(quat.angle_between(kq[:, :-1], kq[:, 1:]))
    custom_norm = quat.norm(custom).min(axis=1) if frames.size else np.ones(len(items))
    dense = keys_are_dense(keys)
    approaches = [[] for _ in items] if dense else exponential_approach_many(keys, kq)
    jittery = jitter_many(frames, bq, b_speed)

    extras = _extra_groups(items)
    turned_at_keys = _turned_at_keys(frames, keys, bq, b_speed, items, extras)
    between = _between_deviations(keys, kq, trackings, kinds, turns_setting, method, timing,
                                  items, extras)

    out = []
    for i, it in enumerate(items):
        tracking = trackings[i]
        at_keys = turned_at_keys[i]
        # Kept as arrays: the dicts are made only if something reads them (core.intervals).
        intervals = Intervals(
            keys[:-1], keys[1:], at_keys[1:] - at_keys[:-1], shortest[i], b_cv[i], c_cv[i],
            kinds[i], tracking.keyed_deg if tracking is not None else ())
        # Only an interval turned through more than 180 deg can be a long arc, so
        # the contract's test (core.metrics.long_ways, on the turns measured above)
        # runs only when there is one.
        long_arcs = []
        if keys.size > 1 and np.any(np.diff(at_keys) > 180.0):
            long_arcs = [[a, b] for a, b in metrics.long_ways(
                keys, at_keys, shortest[i], LONG_ARC_MARGIN_DEG)]
        out.append(_assemble(
            it, method, frames, keys, bq[i], kq[i], custom[i], deviation[i], path_dev[i],
            timing_dev[i], b_speed[i], c_speed[i], intervals, long_arcs,
            {"frames": jf, "blender_deg": jb[i], "custom_deg": jc[i]},
            float(custom_norm[i]), kinds[i], dense or it.recorded, turns_setting, timing,
            [] if it.recorded else approaches[i], jittery[i], between[i]))
    return out


def _between_deviations(keys, kq, trackings, kinds, setting, method, timing,
                        items: list, extras: list) -> list:
    """Per item, (largest deviation in deg, its subframe) at the in-between samples of
    its own jumps (own_extra_frames, else all its extra_frames), or (0.0, None) without
    them: Blender's orientation there against the method's path at the same subframes,
    built as the path at the frames is (its kept turns, steps and timing). Items sampled
    at the same in-between frames (``extras``) are measured together."""
    out: list = [(0.0, None)] * len(items)
    if keys.size < 2:
        return out
    for ef, members, eqs in extras:
        if not ef.size:
            continue
        ordered = bool(np.all(ef[1:] >= ef[:-1]))   # analyze_many's union is sorted
        # Each member is measured at its own subframes only, those sharing them together
        # (a rig's bones): the group's union, which every member is sampled at, is many
        # times what each reads (a capture's bones: 37,000 own subframes, 460,000 in all).
        same: dict = {}
        for row, i in enumerate(members):
            own = items[i].own_extra_frames
            if own is None:
                mine = np.arange(ef.size)
            elif ordered:
                own = np.asarray(own, dtype=np.float64).reshape(-1)
                at = np.clip(np.searchsorted(ef, own), 0, ef.size - 1)
                mine = np.unique(at[ef[at] == own])
            else:
                mine = np.flatnonzero(np.isin(ef, own))
            if mine.size:
                same.setdefault(mine.tobytes(), (mine, []))[1].append(row)
        # The path is built per set of members sharing their subframes, or, where few
        # in all (a rig's bones, each flipping on intervals of its own), for every member
        # at the union in one call (58 calls on the benchmark rig); each member is
        # measured at its own subframes either way.
        own_samples = sum(mine.size * len(rows) for mine, rows in same.values())
        if len(same) > 1 and (len(members) * ef.size <= UNION_PATH_SAMPLES
                              or len(members) * ef.size <= 2 * own_samples):
            calls = [(sorted(row for _mine, rows in same.values() for row in rows),
                      np.arange(ef.size))]
        else:
            calls = [(rows, mine) for mine, rows in same.values()]
        mine_of = {row: mine for mine, rows in same.values() for row in rows}
        for rows, cols in calls:
            whole = cols.size == ef.size
            times = ef if whole else ef[cols]
            played = eqs if whole and len(rows) == len(members) else \
                eqs[rows] if whole else eqs[rows][:, cols]
            those = [members[row] for row in rows]
            deviation = np.degrees(quat.angle_between(played, _method_paths(
                keys, kq[those], [trackings[i] for i in those], [kinds[i] for i in those],
                setting, method, times, timing, played)))
            for k, row in enumerate(rows):
                pick = np.searchsorted(cols, mine_of[row])     # its own, among ``cols``
                worst = int(pick[np.argmax(deviation[k, pick])])
                out[members[row]] = (float(deviation[k, worst]), float(times[worst]))
    return out


def _assemble(it: Sampled, method, frames, keys, bq, kq, custom, deviation, path_dev,
              timing_dev, b_speed, c_speed, intervals, long_arcs, jumps, custom_norm_min,
              kinds, dense, turns_setting, timing, approach, jitter_frames,
              between) -> ObjectAnalysis:
    """One transform's ObjectAnalysis from its rows of the group's measures, with the
    pitfalls that are its own (norm drift, gimbal, wraps, float32, location, creep,
    jitter) and the sentences."""
    mode = it.rotation_mode
    gimbal_frames, gimbal_margin = gimbal(mode, frames, it.raw_values)
    segs, ratio = location_segments(
        it.location_key_frames if it.location_key_frames is not None else [],
        it.key_positions)
    worst = int(np.argmax(deviation)) if deviation.size else 0
    result = ObjectAnalysis(
        name=it.name, rotation_mode=mode, method=method, frames=frames, keys=keys,
        blender_quats=bq, custom_quats=custom, deviation_deg=deviation,
        blender_speed_deg=b_speed, custom_speed_deg=c_speed,
        max_deviation_deg=float(deviation.max()) if deviation.size else 0.0,
        rms_deviation_deg=float(np.sqrt(np.mean(deviation**2))) if deviation.size else 0.0,
        worst_frame=float(frames[worst]) if frames.size else float(keys[0]),
        long_arc_segments=long_arcs, intervals=intervals,
        velocity_jumps=jumps,
        norm=norm_drift(mode, frames, keys, it.raw_values), custom_norm_min=custom_norm_min,
        euler_wraps=euler_wraps(mode, keys, it.key_raw),
        gimbal_frames=gimbal_frames, gimbal_min_margin_deg=gimbal_margin,
        float32_risk=float32_risk(frames, it.positions),
        location_segments=segs, location_speed_ratio=ratio,
        location_speed=location_speed(frames, it.positions),
        exponential_approach=approach,
        jitter_frames=jitter_frames,
        turns=turns_setting, timing=timing, path_deviation_deg=path_dev,
        timing_deviation_deg=timing_dev,
        max_path_deviation_deg=float(path_dev.max()) if path_dev.size else 0.0,
        max_timing_deviation_deg=float(timing_dev.max()) if timing_dev.size else 0.0,
        kinds=kinds, dense_keys=dense,
        dense_location_keys=it.location_key_frames is not None and (
            it.recorded or keys_are_dense(it.location_key_frames)),
        max_between_deviation_deg=between[0], worst_between_frame=between[1],
        axis_reversals=axis_reversals(mode, keys, it.key_raw),
    )
    findings.set_advice(result)
    return result


def set_bake(a: ObjectAnalysis, role: str, method: str, tolerance_deg: float = 0.0,
             keys: int = 0, edited: bool = False, path: str = "",
             interpolation: str = "") -> ObjectAnalysis:
    """Tell ``a`` which QuatBake bake its keys belong to and word its findings again:
    ``role`` "before" (the keys the bake replaced) or "after" (the baked keys), the bake's
    ``method`` (one of core.interp.METHODS), its Key Tolerance in degrees (0: a dense bake)
    and the rotation keys it kept per channel. A defect of the method ``a`` is compared with
    is then not "re-bake with" that method again, unless the baked keys were ``edited``
    since (role "after"): a re-bake then replaces the edits, and the advice says so. The
    keys of a Key Tolerance bake played within that tolerance are a note, not a difference
    to fix. ``interpolation``: the baked keys' (BEZIER or LINEAR), for the advice between
    frames. Returns ``a``."""
    if role not in ("before", "after"):
        raise ValueError(f"A bake's role is \"before\" or \"after\", not {role!r}.")
    a.bake_role, a.bake_method = role, str(method).lower()
    a.bake_tolerance_deg, a.bake_keys = float(tolerance_deg), int(keys)
    a.bake_edited = bool(edited) and role == "after"
    a.bake_path = str(path)
    a.bake_interpolation = str(interpolation).upper()
    findings.set_advice(a)
    return a
