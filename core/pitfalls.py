# SPDX-License-Identifier: GPL-3.0-or-later
"""The seed articles' pitfalls, each found in sampled motion by one function.

Pure numpy, arrays in and findings out (frames, intervals, figures); ``analysis``
runs them on one transform and turns what they find into the report's sentences.
Each threshold is named and says why it is what it is.
"""
from __future__ import annotations

import numpy as np

from . import metrics, quat
from .rotation import EULER_ORDERS

# Gimbal lock warning: the middle Euler angle within this many degrees of
# +-90 deg, where the first and last axes are nearly parallel and small
# orientation changes need large channel changes.
GIMBAL_MARGIN_DEG = 5.0

# Norm drift worth telling: Blender's raw quaternion channels shrink by more
# than this between keys (a 90 deg turn on LINEAR channels shrinks to 0.92,
# a 180 deg turn to 0.71).
NORM_DRIFT_NOTE = 0.01

# Exponential approach (lerp(current, target, dt) as a filter): at least this
# many consecutive key steps whose angle shrinks by a constant ratio.
EXP_MIN_STEPS = 6

# ... and the signature of a filter, not a slowdown (mocap slowing from 3.7 to
# 3.0 deg/frame over a few frames is not one): the steps shrink to at most this
# fraction of the first step, and afterwards the motion never picks up again
# (the target is held; or the keys end first).
EXP_MAX_END_FRACTION = 0.5

EXP_RATIO_RANGE = (0.3, 0.97)   # ratio of one step's angle to the previous one

EXP_RATIO_SPREAD = 0.03         # max |ratio - median ratio| within the run

EXP_MIN_STEP_DEG = 1e-3         # steps below this are rest, not an approach

# Small-angle jitter: turning less than this per frame but reversing direction
# from one frame to the next (noise amplified by near-identical keys).
JITTER_MAX_DEG = 0.5

JITTER_MIN_RUN = 3
# jitter_many: above this fraction of small steps, every step's direction is computed
# once; below it, only the two steps around each small one (gathered, twice the
# arithmetic per step). Measured on 216 x 5,001 eased tracks: all steps small, the
# gathered way took 2.7x as long; 6% small, a fifth as long; 43%, the same.
JITTER_SPARSE = 0.4

# ... counting only segments longer than this fraction of the path's size (the
# diagonal of the location keys' bounding box): shorter ones are holds whose keys
# differ by float noise (1e-6 on a 1 m path would otherwise make a speed ratio of
# millions). A real ease is far above it: a quadratic ease-out sampled over 128
# frames ends with a step of 6e-5 of its path.
SEGMENT_NOISE_FRACTION = 1e-5

# Dense keys: a key every DENSE_KEY_SPACING frames or closer (median spacing of
# consecutive keys, so a few gaps do not matter), as mocap and sampled exports
# (glTF, BVH, baked actions) have. Such keys are a recording: their ease, their
# slowdowns and their float noise are the motion, and the timing advice that is
# meant for keyed motion would throw the capture away. On dense keys (rotation
# keys and location keys judged each on their own) there is no constant-speed
# advice (location speed ratio, uneven angular speed, Timing: Even), no
# lerp-as-a-filter creep (exponential_approach is left empty) and no velocity-jump
# note (every key is a sample, so the velocity changes at every key). The
# measurements stay in the report, and defects of the keys themselves (long arcs
# from flipped signs, Euler wraps, gimbal, norm drift, jitter, float32) still count.
DENSE_KEY_SPACING = 1.0

# Frames read from files at another frame rate are not exact: 1 frame within this.
_SPACING_SLACK = 1e-6


def keys_are_dense(key_frames) -> bool:
    """True when the median spacing of consecutive keys is DENSE_KEY_SPACING frames or
    less (mocap, sampled exports); a single key is not dense."""
    kf = np.asarray(key_frames, dtype=np.float64).reshape(-1)
    if kf.size < 2:
        return False
    return bool(np.median(np.diff(kf)) <= DENSE_KEY_SPACING + _SPACING_SLACK)


def speeds_deg(q: np.ndarray) -> np.ndarray:
    """Angle turned from the previous frame to each frame (deg), 0 at the first.

    metrics.angular_speed's definition on already validated quaternions
    (angle_between is scale-invariant, so lerp's short ones need no normalising).
    """
    out = np.zeros(q.shape[:-1])        # (n,), or (b, n) for a group's (b, n, 4)
    out[..., 1:] = np.degrees(quat.angle_between(q[..., :-1, :], q[..., 1:, :]))
    return out


def velocity_jumps(frames, keys, q, unit: bool = False):
    """Interior keys and |omega_after - omega_before| (deg/frame) at each; ``q`` (n, 4),
    or (b, n, 4) for a group on the same frames (jumps then (b, k-2)); ``unit``: q is
    unit and finite already (metrics.velocity_jumps)."""
    if keys.size < 3:
        return np.zeros(0), np.zeros(q.shape[:-2] + (0,))
    # metrics.velocity_jumps only looks at the sample steps next to each key:
    # hand it those samples (the two on either side), not the whole track; all of it,
    # uncopied, when every frame is one of them (keys on every frame).
    i = np.searchsorted(frames, keys[1:-1])
    near = np.unique(np.clip(np.concatenate([i - 2, i - 1, i, i + 1]), 0, frames.size - 1))
    if near.size < frames.size:
        frames, q = frames[near], np.take(q, near, axis=-2)
    jumps = np.degrees(metrics.velocity_jumps(frames, q, keys, unit=unit))
    return keys[1:-1].copy(), jumps[..., 1:-1]


def euler_wraps(mode, key_frames, key_raw):
    """Key intervals where an Euler channel changes by more than 180 deg."""
    if mode not in EULER_ORDERS or key_raw is None or len(key_raw) < 2:
        return []
    deg = np.degrees(np.asarray(key_raw, dtype=np.float64))
    out = []
    for a, b, axis, delta in metrics.euler_wraps(key_frames, key_raw):
        i = int(np.searchsorted(key_frames, a))
        change = float(np.degrees(delta))
        out.append({
            "channel": f"rotation_euler[{axis}]",
            "frames": [a, b],
            "from_deg": float(deg[i, axis]),
            "to_deg": float(deg[i + 1, axis]),
            "turn_deg": change,
            "short_turn_deg": float((change + 180.0) % 360.0 - 180.0),
        })
    return out


def far_intervals(mode, key_raw) -> np.ndarray:
    """Per key interval of ``key_raw`` (the channels' values at the keys, in ``mode``),
    whether Blender's channels can turn it the long way round between the two keys: a
    quaternion key whose sign is flipped against the previous one, an Euler or axis-angle
    angle changing by more than pi, or axis-angle axes pointing apart (``axis_reversals``).
    Whole frames cannot tell such a turn from a short one when the keys are a frame apart,
    so a caller samples these intervals between frames."""
    raw = np.asarray(key_raw, dtype=np.float64)
    if mode == "QUATERNION":
        return np.einsum("ij,ij->i", raw[:-1], raw[1:]) < 0.0
    if mode == "AXIS_ANGLE":
        return (np.abs(np.diff(raw[:, 0])) > np.pi) | (_axes_dot(raw[:, 1:4]) < 0.0)
    return (np.abs(np.diff(raw, axis=0)) > np.pi).any(axis=1)


def _axes_dot(axes: np.ndarray) -> np.ndarray:
    """Dot product of each axis with the next: negative where they point apart."""
    return np.einsum("ij,ij->i", axes[:-1], axes[1:])


def axis_reversals(mode, key_frames, key_raw) -> list:
    """{frames: [a, b], apart_deg} of each key interval whose axis-angle keys have axes
    pointing apart (more than 90 deg): Blender interpolates the axis channel by channel,
    through (or near) zero, and the rotation swings off the arc (back through no rotation
    where the axis passes zero with the angle). The axis-angle form of a flipped sign: 40
    deg about +Z
    keyed before -50 deg about -Z (10 deg on) turns back 40 deg and forward 50, and the
    long-way test cannot see it (the turn is short)."""
    if mode != "AXIS_ANGLE" or key_raw is None or len(key_raw) < 2:
        return []
    axes = np.asarray(key_raw, dtype=np.float64)[:, 1:4]
    cos = _axes_dot(axes)
    lengths = np.linalg.norm(axes[:-1], axis=1) * np.linalg.norm(axes[1:], axis=1)
    apart = np.degrees(np.arccos(np.clip(cos / np.where(lengths > 0.0, lengths, 1.0),
                                         -1.0, 1.0)))
    return [{"frames": [float(key_frames[i]), float(key_frames[i + 1])],
             "apart_deg": float(apart[i])} for i in np.flatnonzero(cos < 0.0)]


def gimbal(mode, frames, raw):
    """Frames whose middle Euler angle is within GIMBAL_MARGIN_DEG of +-90 deg."""
    if mode not in EULER_ORDERS or raw is None:
        return [], None
    near = metrics.gimbal_proximity(raw, mode, GIMBAL_MARGIN_DEG)
    middle = "XYZ".index(mode[1])
    r = np.mod(np.degrees(np.asarray(raw, dtype=np.float64)[:, middle]) - 90.0, 180.0)
    margin = np.minimum(r, 180.0 - r)       # distance to the nearest +-90 deg
    return frames[near].tolist(), float(np.min(margin)) if len(margin) else None


def norm_drift(mode, frames, keys, raw):
    if mode != "QUATERNION" or raw is None:
        return None
    drift_signed = metrics.norm_drift(raw)
    n = 1.0 - drift_signed
    drift = np.abs(drift_signed)
    i = int(np.argmax(drift))
    return {
        "max_drift": float(drift[i]),
        "frame": float(frames[i]),
        "min_norm": float(np.min(n)),
        "max_norm": float(np.max(n)),
        "per_frame": n,
    }


def float32_risk(frames, positions):
    """Frames where a moving coordinate changes by less than one float32 step there
    (core.metrics.float32_risk), with the largest coordinate and its float32 step."""
    if positions is None:
        return None
    p = np.asarray(positions, dtype=np.float64)
    if len(p) < 2:
        return None
    risky = metrics.float32_risk(p)
    coordinate = float(np.max(np.abs(p)))
    step = float(metrics.float32_spacing(coordinate))
    return {
        "frames": frames[risky].tolist(),
        "max_coordinate": float(coordinate),
        "float32_step": float(step),
    }


def location_speed(frames, positions):
    """Distance moved since the previous frame per frame (scene units/frame), 0 first."""
    if positions is None:
        return None
    p = np.asarray(positions, dtype=np.float64)
    out = np.zeros(len(p))
    if len(p) > 1:
        out[1:] = np.linalg.norm(np.diff(p, axis=0), axis=1) / np.diff(frames)
    return out


def location_segments(key_frames, key_positions):
    if key_positions is None or len(key_positions) < 2:
        return [], None
    kp = np.asarray(key_positions, dtype=np.float64)
    lengths = np.linalg.norm(np.diff(kp, axis=0), axis=1)
    durations = np.diff(np.asarray(key_frames, dtype=np.float64))
    speeds = lengths / durations
    segs = [{"frames": [float(a), float(b)], "length": float(length), "speed": float(s)}
            for a, b, length, s in zip(key_frames[:-1], key_frames[1:], lengths, speeds)]
    size = float(np.linalg.norm(kp.max(axis=0) - kp.min(axis=0)))
    moving = speeds[(speeds > 1e-9) & (lengths > SEGMENT_NOISE_FRACTION * size)]
    ratio = float(moving.max() / moving.min()) if moving.size >= 2 else None
    return segs, ratio


def exponential_approach(key_frames, key_quats) -> list:
    """Runs of keys that creep towards a target: ``lerp(current, target, dt)`` as a filter.

    Each step turns a near-constant fraction r of the previous step's angle
    (geometric decay), about one axis, on evenly spaced frames, for at least
    EXP_MIN_STEPS steps that shrink to EXP_MAX_END_FRACTION of the first or
    less, and no later key moves faster than the run's last step (the target is
    held, or the keys end): a constant fraction of the remaining rotation, ending
    short of a held target. A slowdown that speeds up again is not one. Such a run is
    what per-frame smoothing produces: fast first, slow later, and it never
    arrives - after the last key there is still ``step * r / (1 - r)`` to go.
    Returns [{"frames": [a, b], "ratio": r, "remaining_deg": ...}, ...].
    """
    return exponential_approach_many(key_frames, np.asarray(key_quats, dtype=np.float64)[None])[0]


def exponential_approach_many(key_frames, key_quats) -> list:
    """:func:`exponential_approach` of each of a group's key sequences (b, k, 4), keyed on
    the same ``key_frames``: the steps, axes and ratios of all of them in one pass (a
    rig's bones), the runs looked for only where some step qualifies."""
    kf = np.asarray(key_frames, dtype=np.float64)
    kq = quat.normalize(np.asarray(key_quats, dtype=np.float64), "key orientations")
    if kq.shape[1] < EXP_MIN_STEPS + 2:
        return [[] for _ in range(kq.shape[0])]
    kq = quat.make_continuous(kq, axis=1)
    steps = np.degrees(quat.angle_between(kq[:, :-1], kq[:, 1:]))   # (b, k-1)
    axes = np.degrees(metrics.unit_step_velocities(kq))              # (b, k-1, 3)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(steps[:, :-1] > EXP_MIN_STEP_DEG, steps[:, 1:] / steps[:, :-1], np.nan)
        unit = axes / np.linalg.norm(axes, axis=-1, keepdims=True)
    same_axis = np.einsum("bij,bij->bi", unit[:, :-1], unit[:, 1:]) > 0.99
    gaps = np.diff(kf)
    even = np.isclose(gaps[1:], gaps[:-1], rtol=1e-6)
    lo, hi = EXP_RATIO_RANGE
    ok = (ratio > lo) & (ratio < hi) & same_axis & even
    return [_approach_runs(kf, steps[i], ratio[i], ok[i]) if ok[i].any() else []
            for i in range(kq.shape[0])]


def _approach_runs(kf: np.ndarray, steps: np.ndarray, ratio: np.ndarray, ok: np.ndarray) -> list:
    """The runs of one key sequence (see exponential_approach) from its qualifying steps."""
    runs = []
    i = 0
    while i < len(ok):
        if not ok[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(ok) and ok[j + 1] and abs(ratio[j + 1] - ratio[i]) < 4 * EXP_RATIO_SPREAD:
            j += 1
        r = ratio[i:j + 1]
        last_step = float(steps[j + 1])
        decayed = last_step <= EXP_MAX_END_FRACTION * float(steps[i])
        # Held: no later step is larger than the run's last one (float32 noise aside).
        held = bool(np.all(steps[j + 2:] <= last_step + EXP_MIN_STEP_DEG))
        if (j - i + 1 >= EXP_MIN_STEPS - 1 and decayed and held
                and np.all(np.abs(r - np.median(r)) <= EXP_RATIO_SPREAD)):
            med = float(np.median(r))
            runs.append({
                "frames": [float(kf[i]), float(kf[j + 2])],
                "ratio": med,
                "remaining_deg": last_step * med / (1.0 - med),
            })
        i = j + 1
    return runs


def jitter_many(frames, q, speeds_deg) -> list:
    """Per transform of a group sampled at the same frames, q (b, n, 4) and speeds_deg
    (b, n): the frames in back-and-forth runs, turning less than JITTER_MAX_DEG and
    reversing the previous frame's turn, JITTER_MIN_RUN times in a row (one reversal is
    a turning point, not jitter). The step directions of every transform in one pass (a
    rig's bones: one call per bone cost more than the arithmetic); the runs are looked
    for only in the transforms that reverse somewhere."""
    out = [[] for _ in range(q.shape[0])]
    if q.shape[1] < 3:
        return out
    size = speeds_deg[:, 1:]                         # angle of each step, (b, n-1)
    moving = size > 1e-6
    small = (size[:, 1:] < JITTER_MAX_DEG) & moving[:, 1:] & moving[:, :-1]
    if not small.any():
        return out
    if small.mean() > JITTER_SPARSE:
        # Most steps are small (slow motion, mocap): every step's direction, once.
        direction = _step_direction(q[:, :-1], q[:, 1:])
        hit = small & (np.einsum("...i,...i->...", direction[:, :-1], direction[:, 1:]) < 0.0)
    else:
        # A few slow frames near the eases: the two steps around each small one only.
        rows, cols = np.nonzero(small)
        q0, q1, q2 = q[rows, cols], q[rows, cols + 1], q[rows, cols + 2]
        reverses = np.einsum("...i,...i->...", _step_direction(q0, q1), _step_direction(q1, q2)) < 0.0
        hit = np.zeros_like(small)
        hit[rows[reverses], cols[reverses]] = True
    for i in np.flatnonzero(hit.any(axis=1)):
        out[i] = _jitter_runs(np.asarray(frames), hit[i])
    return out


def _step_direction(q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
    """Direction (..., 3) of each step q0 -> q1 (..., 4): the vector part of its relative
    rotation q1 conj(q0) on the short way (w >= 0); consecutive steps reverse when these
    point apart. Written out: w = q1.q0, v = w0 v1 - w1 v0 - v1 x v0."""
    w0, v0 = q0[..., :1], q0[..., 1:]
    w1, v1 = q1[..., :1], q1[..., 1:]
    direction = w0 * v1 - w1 * v0 - np.cross(v1, v0)
    direction *= np.where(np.einsum("...i,...i->...", q0, q1) < 0.0, -1.0, 1.0)[..., None]
    return direction


def _jitter_runs(frames: np.ndarray, hit: np.ndarray) -> list:
    """The frames of the runs of at least JITTER_MIN_RUN consecutive reversals."""
    edges = np.diff(np.concatenate([[0], hit.astype(np.int8), [0]]))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    keep = np.zeros(hit.size + 1, dtype=np.int32)
    long_runs = ends - starts >= JITTER_MIN_RUN
    np.add.at(keep, starts[long_runs], 1)
    np.add.at(keep, ends[long_runs], -1)
    return frames[2:][np.cumsum(keep)[:-1] > 0].tolist()
