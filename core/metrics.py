# SPDX-License-Identifier: GPL-3.0-or-later
"""Measures of how a rotation (or position) track behaves, for the report and panel.

Small pure functions: float64 arrays in, arrays (or short lists) out, inputs
never modified, ValueError sentences for bad input, no loop over samples.
Angles are radians, times are frames. Quaternions are (w, x, y, z) and are
compared sign-agnostically (q and -q are one orientation).
"""
from __future__ import annotations

import numpy as np

from . import quat
from .frames import as_key_times
from .rotation import EULER_ORDERS

# speed_unevenness: a key interval whose mean angular speed is below this
# (radians per frame, ~6e-8 degrees) is "not moving": its unevenness is 0, not
# the 0/0 NaN of a coefficient of variation. Float64 noise on a still
# orientation is ~1e-16 rad; any visible turn is far above.
STILL_SPEED = 1e-9

# angular_velocity, velocity_jumps, speed_unevenness: the shortest sample step a
# velocity is measured across, in frames. A bound of plausibility, not of overflow:
# float64 holds a turn over a step down to ~1e-308 frames (5e-324 overflows), but no
# file carries such times: float32 frames resolve 1.2e-7 at frame 1, a 24 fps file's
# microsecond ticks are 2.4e-5 frames apart. A billionth of a frame refuses only
# nonsense, and names it, where a velocity of 1e10 rad per frame would be reported.
MIN_VELOCITY_STEP = 1e-9


def percentile(values, q: float) -> float:
    """np.percentile(values, q) of finite values (its default, the linear method of
    Hyndman and Fan's seventh definition), from the two order statistics around it
    (np.partition). np.percentile's own bookkeeping is most of its time on a bake's
    8,000 samples (55 us of 65); a Bezier bake of 100 objects asks for two each."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if v.size == 0:
        raise ValueError("percentile of no values.")
    below, above, gamma = _percentile_place(v.size, q)
    part = np.partition(v, [below, above]) if above != below else np.partition(v, below)
    return _between(part[below], part[above], gamma)


def _percentile_place(n: int, q: float) -> tuple[int, int, float]:
    """(below, above, gamma): the two order statistics of n values around the q-th
    percentile and the share of the way between them (percentile's)."""
    virtual = (n - 1) * (q / 100.0)
    below = min(max(int(np.floor(virtual)), 0), n - 1)
    return below, min(below + 1, n - 1), virtual - below


def _between(a: float, b: float, gamma: float) -> float:
    """The percentile ``gamma`` of the way from order statistic a to b, from the nearer
    end, as numpy interpolates."""
    step = b - a
    return float(b - step * (1.0 - gamma) if gamma >= 0.5 else a + step * gamma)


def _closeness_degrees(close: np.ndarray) -> np.ndarray:
    """Angles (degrees) of the closenesses |cos(angle / 2)| ``close``."""
    return np.degrees(2.0 * np.arccos(np.minimum(close, 1.0)))


# closeness_stats: closenesses this far apart or farther are ordered as their angles
# are. Where the angle is 0.01 deg (closeness 1 - 4e-9) 1e-12 of closeness is 1e-4 of
# the angle, and at any angle far more than the few roundings of arccos.
_CLOSE_BAND = 1e-12


def closeness_stats(close, tolerance_deg: float, q: float = 99.0) -> tuple:
    """(largest angle, its q-th percentile, how many are within ``tolerance_deg``, the
    index of the first largest) of the angles degrees(2 arccos(min(close, 1))) (degrees)
    of closenesses |cos(angle / 2)| ``close`` (n,): the numbers those angles' max,
    percentile(), count of ``<= tolerance_deg`` and argmax give, to the bit, with the
    arccos taken only where the order of the angles is not plain from the closenesses
    (the band _CLOSE_BAND around the largest angle, the percentile's two order statistics
    and the tolerance). A Bezier bake's measurement of 100 rotations x 8,000 quarter
    frames took the arccos of every sample for these four numbers."""
    c = np.asarray(close, dtype=np.float64).reshape(-1)
    n = c.size
    if n == 0:
        raise ValueError("closeness_stats of no values.")
    if not (np.isfinite(c).all() and 0.0 < tolerance_deg < 180.0):
        err = _closeness_degrees(c)
        worst = int(np.argmax(err))
        return (float(err[worst]), percentile(err, q), int(np.count_nonzero(err <= tolerance_deg)),
                worst)
    # The largest angle: at the smallest closeness, or within the band above it.
    near = np.flatnonzero(c <= c.min() + _CLOSE_BAND)
    angles = _closeness_degrees(c[near])
    first = int(np.argmax(angles))
    # Within the tolerance: every closeness past the band above its cosine, and those in
    # the band whose angle is.
    cos_tol = float(np.cos(np.radians(tolerance_deg) / 2.0))
    band = c[(c >= cos_tol - _CLOSE_BAND) & (c <= cos_tol + _CLOSE_BAND)]
    within = int(np.count_nonzero(c > cos_tol + _CLOSE_BAND)) + int(
        np.count_nonzero(_closeness_degrees(band) <= tolerance_deg))
    # The percentile's order statistics of the angles (ascending) are those of the
    # closenesses descending: the values within the band of those two, in order, after
    # the angles surely smaller.
    below, above, gamma = _percentile_place(n, q)
    lo_rank, hi_rank = n - 1 - above, n - 1 - below
    part = np.partition(c, [lo_rank, hi_rank]) if lo_rank != hi_rank else \
        np.partition(c, lo_rank)
    smaller = c > part[hi_rank] + _CLOSE_BAND
    ranked = np.sort(_closeness_degrees(
        c[(c >= part[lo_rank] - _CLOSE_BAND) & ~smaller]))
    skip = int(np.count_nonzero(smaller))
    return (float(angles[first]), _between(ranked[below - skip], ranked[above - skip], gamma),
            within, int(near[first]))


# ------------------------------------------------------------------ validation


def _track(quats, what: str, length: int | None = None, batch: bool = False) -> np.ndarray:
    """Unit quaternions (n, 4), or (b, n, 4) with ``batch``; raises on zero/NaN/inf or a
    length mismatch."""
    q = quat.normalize(quats, what)
    if q.ndim != 2 and not (batch and q.ndim == 3):
        raise ValueError(f"{what} must be a sequence of quaternions of shape (n, 4), got {q.shape}.")
    if length is not None and q.shape[-2] != length:
        raise ValueError(f"{what} has {q.shape[-2]} quaternions but there are {length} times; give one per time.")
    return q


def _vectors(values, what: str, width: int) -> np.ndarray:
    arr = np.array(values, dtype=np.float64, copy=True)
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ValueError(f"{what} must have shape (n, {width}), got {arr.shape}.")
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{what}: entry {i} has a NaN or infinite value {arr[i].tolist()}.")
    return arr


# ------------------------------------------------------------- rotation tracks


def angular_speed(quats) -> np.ndarray:
    """Angle (radians) turned from the previous sample to each sample, (n,).

    The first sample gets 0. Geodesic and sign-agnostic: a sample whose sign
    flips against the previous one has not turned.
    """
    return quat.step_angles(_track(quats, "angular_speed quats"))


def deviation(a, b) -> np.ndarray:
    """Geodesic angle (radians, [0, pi]) between two orientation tracks, per sample."""
    qa = quat.normalize(a, "deviation a")
    qb = quat.normalize(b, "deviation b")
    if qa.shape != qb.shape:
        raise ValueError(f"deviation: the two tracks differ in shape, {qa.shape} and {qb.shape}.")
    return quat.angle_between(qa, qb)


def angular_velocity(sample_times, quats, frame: str = "world") -> np.ndarray:
    """Angular velocity vectors (n-1, 3), radians per frame, between consecutive samples.

    Row i is the constant angular velocity that turns sample i into sample
    i + 1 in (t[i+1] - t[i]) frames, the short way (sign-agnostic): the axis
    times the angle, divided by the time step. ``frame`` "world" expresses it
    in world axes (q[i+1] = exp(w dt / 2) q[i]), "body" in the object's own
    axes at sample i (q[i+1] = q[i] exp(w dt / 2)).
    """
    if frame not in ("world", "body"):
        raise ValueError(f"angular_velocity: frame must be 'world' or 'body', not {frame!r}.")
    t = as_key_times(sample_times, "sample_times")
    q = _track(quats, "angular_velocity quats", t.size)
    return _step_velocity(t, q, np.arange(t.size - 1), frame)


def unit_step_velocities(q: np.ndarray) -> np.ndarray:
    """:func:`angular_velocity` (world axes) of sequences of unit quaternions one frame
    apart, ``q`` (..., n, 4) -> (..., n-1, 3): a group's key sequences at once."""
    n = q.shape[-2]
    return _step_velocity(np.arange(n, dtype=np.float64), q, np.arange(n - 1))


def _step_velocity(t: np.ndarray, q: np.ndarray, steps: np.ndarray, frame: str = "world") -> np.ndarray:
    """Angular velocity (m, 3) of the given sample steps (step j: sample j -> j+1),
    ``steps`` sorted and unique (np.arange, np.unique: every caller's)."""
    if steps.size and steps[-1] - steps[0] == steps.size - 1:
        # Consecutive steps (a dense bake's keys need every one): views, no gather.
        a = q[..., steps[0]:steps[-1] + 1, :]
        b = q[..., steps[0] + 1:steps[-1] + 2, :]
    else:
        # np.take, not q[..., steps, :]: that gather lays a (b, n, 4) result out
        # transposed and the products after it would stride through memory
        # (core.quat.BLOCK).
        a, b = np.take(q, steps, axis=-2), np.take(q, steps + 1, axis=-2)
    if frame == "world":
        rel = quat.multiply(b, quat.conjugate(a))
    else:
        rel = quat.multiply(quat.conjugate(a), b)
    # The short way: the relative rotation in the w >= 0 hemisphere.
    return quat.rotation_vector(rel) / _step_lengths(t, steps)[:, None]


def _step_lengths(t: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Frames between sample j and j + 1 for each step j; raises on a step shorter
    than MIN_VELOCITY_STEP, naming its samples."""
    dt = np.take(t, steps + 1) - np.take(t, steps)
    if dt.size and dt.min() < MIN_VELOCITY_STEP:
        # Frames, not indices: callers pass the samples near their keys only.
        j = int(steps[np.argmin(dt)])
        raise ValueError(
            f"sample_times: the samples at frames {float(t[j])!r} and {float(t[j + 1])!r} are only "
            f"{t[j + 1] - t[j]:g} frames apart; an angular velocity needs steps of at least "
            f"{MIN_VELOCITY_STEP:g} frames."
        )
    return dt


def velocity_jumps(sample_times, quats, key_times, unit: bool = False) -> np.ndarray:
    """Change of angular velocity across each key, |w_after - w_before|, (k,).

    Radians per frame: the C1-continuity measure. w_before is the velocity of
    the sample step ending at the key (the last sample at or before it), w_after
    of the step starting there (the first sample at or after it); a key between
    two samples is measured across the step that contains it. The two end keys,
    and keys with no sample step on one side, get 0. With samples one frame
    apart, a C1 track still shows about (angular acceleration x 1 frame).
    ``quats`` may be (b, n, 4), several tracks on the same times: (b, k) then.
    ``unit``: the caller vouches that they are unit and finite (core.analysis normalises a
    group when it stacks it), and they are used as they are, not normalised into a copy;
    only their shape is checked.
    """
    t = as_key_times(sample_times, "sample_times")
    if unit and np.ndim(quats) in (2, 3) and np.shape(quats)[-2:] == (t.size, 4):
        q = np.asarray(quats, dtype=np.float64)
    else:
        q = _track(quats, "velocity_jumps quats", t.size, batch=True)
    keys = as_key_times(key_times, "key_times")
    out = np.zeros(q.shape[:-2] + (keys.size,), dtype=np.float64)
    if t.size < 3 or keys.size < 3:
        return out
    last_step = t.size - 2  # step j runs from sample j to j + 1
    inner = keys[1:-1]
    before = np.searchsorted(t, inner, side="right") - 2  # step ending at last sample <= key
    after = np.searchsorted(t, inner, side="left")  # step starting at first sample >= key
    valid = (before >= 0) & (after <= last_step)
    b = np.clip(before, 0, last_step)
    a = np.clip(after, 0, last_step)
    # Only the two steps around each key are needed, not the whole track; each once,
    # though a step may be the one after a key and the one before the next (keys on
    # every frame: a dense bake's).
    steps, where = np.unique(np.concatenate((a, b)), return_inverse=True)
    velocity = _step_velocity(t, q, steps)
    jump = np.linalg.norm(np.take(velocity, where[:a.size], axis=-2)
                          - np.take(velocity, where[a.size:], axis=-2), axis=-1)
    out[..., 1:-1] = np.where(valid, jump, 0.0)
    return out


def _step_intervals(t: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each sample step (t[i-1], t[i]], i >= 1: its key interval index and
    whether it lies wholly inside that interval."""
    start = t[:-1]
    end = t[1:]
    j = np.searchsorted(keys, start, side="right") - 1
    jc = np.clip(j, 0, keys.size - 2)
    inside = (j >= 0) & (j <= keys.size - 2) & (end <= keys[jc + 1])
    return jc, inside


def speed_unevenness(sample_times, speeds, key_times) -> np.ndarray:
    """Coefficient of variation of angular speed within each key interval, (k-1,).

    ``speeds[i]`` is the angle (radians) turned from sample i-1 to sample i, as
    ``angular_speed`` returns it (``speeds[0]`` is not used); it is divided by
    the step's duration, so uneven sampling does not count as uneven motion.
    Only steps wholly inside a key interval count. The result is std/mean
    (population std): 0 for slerp's constant speed. An interval with fewer than
    two steps, or whose mean speed is below ``STILL_SPEED`` rad/frame (no
    motion to be uneven), gets 0 rather than NaN. ``speeds`` may be (b, n), several
    tracks on the same times: (b, k-1) then.
    """
    t = as_key_times(sample_times, "sample_times")
    s = np.array(speeds, dtype=np.float64, copy=True)
    if s.ndim not in (1, 2) or s.shape[-1] != t.size:
        raise ValueError(f"speed_unevenness: {s.shape[-1] if s.ndim else 1} speeds for {t.size} "
                         "sample times; give one per sample.")
    if not np.isfinite(s).all():
        flat = int(np.argmax(~np.isfinite(s.ravel())))
        where = f"speed {flat % t.size}" + (f" of track {flat // t.size}" if s.ndim == 2 else "")
        raise ValueError(f"speed_unevenness: {where} is {s.ravel()[flat]}, not a finite angle.")
    keys = as_key_times(key_times, "key_times")
    rows = s.reshape(-1, t.size)                  # (b, n): one track per row
    b, m = rows.shape[0], max(keys.size - 1, 0)
    if keys.size < 2 or t.size < 2:
        return np.zeros(s.shape[:-1] + (m,), dtype=np.float64)
    rate = rows[:, 1:] / _step_lengths(t, np.arange(t.size - 1))
    j, inside = _step_intervals(t, keys)
    # One bincount for every row: row r's interval j is bin r * m + j.
    bins = (j[inside] + m * np.arange(b)[:, None]).ravel()
    size = b * m
    count = np.bincount(j[inside], minlength=m).astype(np.float64)   # the same in each row
    total = np.bincount(bins, weights=rate[:, inside].ravel(), minlength=size).reshape(b, m)
    enough = count >= 2
    mean = np.where(enough, total / np.where(enough, count, 1.0), 0.0)
    dev = rate - np.take_along_axis(mean, np.broadcast_to(j, rate.shape), axis=1)
    var = np.bincount(bins, weights=(dev[:, inside] ** 2).ravel(),
                      minlength=size).reshape(b, m) / np.where(enough, count, 1.0)
    moving = enough & (mean >= STILL_SPEED)
    out = np.where(moving, np.sqrt(var) / np.where(moving, mean, 1.0), 0.0)
    return out.reshape(s.shape[:-1] + (m,))


def norm_drift(raw_quats) -> np.ndarray:
    """1 - |q| per sample, (n,): how far Blender's raw channel quaternion shrinks.

    Positive means shorter than unit (a per-component interpolation between
    keys cuts the chord of the sphere); the raw values need not be unit and may
    be zero (drift 1). Raises only on NaN/inf.
    """
    q = quat.as_quat_array(raw_quats, "norm_drift raw_quats")
    # Scaled by the largest component so a norm past ~1e154 does not square to inf.
    peak = quat.abs_max(q)     # np.abs(q).max(axis=-1)'s values, ~10x faster
    return 1.0 - quat.norm(q / np.where(peak > 0.0, peak, 1.0)[..., None]) * peak


def long_arc_segments(key_times, sample_times, sample_quats, key_quats, tolerance_deg: float = 1.0) -> list:
    """Key intervals (frame_a, frame_b) that the sampled track turns the long way.

    Per the report contract: the angle turned between the two keys, summed
    sample by sample (geodesic, sign-agnostic), is more than 180 degrees AND
    more than the shortest rotation between the two key orientations by over
    ``tolerance_deg``. A key between two samples gets the turned angle up to it
    pro rata of that step (exact when keys are on samples, as frames are).
    """
    keys = as_key_times(key_times, "key_times")
    t = as_key_times(sample_times, "sample_times")
    q = _track(sample_quats, "long_arc_segments sample_quats", t.size)
    kq = _track(key_quats, "long_arc_segments key_quats", keys.size)
    if not np.isfinite(tolerance_deg) or tolerance_deg < 0.0:
        raise ValueError(f"long_arc_segments: tolerance_deg must be a finite angle >= 0, not {tolerance_deg}.")
    if keys.size < 2:
        return []
    turned_so_far = np.degrees(np.cumsum(angular_speed(q)))
    shortest = np.degrees(quat.angle_between(kq[:-1], kq[1:]))
    return long_ways(keys, np.interp(keys, t, turned_so_far), shortest, tolerance_deg)


def long_ways(keys: np.ndarray, turned_at_keys_deg: np.ndarray, shortest_deg: np.ndarray,
              tolerance_deg: float = 1.0) -> list:
    """:func:`long_arc_segments` from what it measures: the angle turned up to each key
    (deg, summed sample by sample) and the shortest rotation between neighbouring keys
    (deg), for a caller that has them already (core.analysis)."""
    turned = np.diff(turned_at_keys_deg)
    long_way = (turned > 180.0) & (turned > shortest_deg + tolerance_deg)
    return [(float(keys[i]), float(keys[i + 1])) for i in np.flatnonzero(long_way)]


# ----------------------------------------------------------------------- Euler


def euler_wraps(key_times, euler_keys) -> list:
    """Consecutive keys of one Euler channel more than pi apart.

    Returns (frame_a, frame_b, axis_index, delta_rad) per occurrence, with
    delta = value_b - value_a (170 -> -170 degrees gives -340 degrees: Blender's
    channel turns the long way, where the short way was +20).
    """
    keys = as_key_times(key_times, "key_times")
    e = _vectors(euler_keys, "euler_keys", 3)
    if e.shape[0] != keys.size:
        raise ValueError(f"euler_wraps: {e.shape[0]} Euler keys for {keys.size} key times; give one per key.")
    delta = np.diff(e, axis=0)
    rows, axes = np.nonzero(np.abs(delta) > np.pi)
    return [(float(keys[i]), float(keys[i + 1]), int(a), float(delta[i, a])) for i, a in zip(rows, axes)]


def gimbal_proximity(euler_values, order: str, threshold_deg: float = 5.0) -> np.ndarray:
    """Samples (n,) bool where the order's middle-axis angle is within
    ``threshold_deg`` of +-90 degrees (modulo 180): the first and last axes
    nearly coincide and the Euler channels lose a degree of freedom.
    """
    if order not in EULER_ORDERS:
        raise ValueError(f"gimbal_proximity: Euler order {order!r} is not one of {', '.join(EULER_ORDERS)}.")
    middle = "XYZ".index(order[1])
    e = _vectors(euler_values, "euler_values", 3)
    if not np.isfinite(threshold_deg) or threshold_deg < 0.0:
        raise ValueError(f"gimbal_proximity: threshold_deg must be a finite angle >= 0, not {threshold_deg}.")
    r = np.mod(e[:, middle] - np.pi / 2.0, np.pi)
    return np.minimum(r, np.pi - r) <= np.radians(threshold_deg)


# --------------------------------------------------------------------- float32


def float32_spacing(magnitude) -> np.ndarray:
    """Gap between adjacent float32 values at |magnitude| (scene units), as float64.

    About 1e-3 at 10,000 (2**-10 = 0.000977): the smallest move a float32
    F-curve or location can store there.
    """
    m = np.abs(np.asarray(magnitude, dtype=np.float64))
    if not np.isfinite(m).all():
        raise ValueError("float32_spacing: magnitudes must be finite.")
    # Past float32's largest value the cast gives inf and np.spacing(inf) NaN.
    biggest = float(np.finfo(np.float32).max)
    if (m > biggest).any():
        raise ValueError(f"float32_spacing: magnitude {float(m.max()):.3g} is beyond float32's "
                         f"range ({biggest:.3g}), so Blender cannot store it at all.")
    return np.spacing(m.astype(np.float32)).astype(np.float64)


def float32_risk(positions) -> np.ndarray:
    """Frames (n,) bool where float32 storage makes the motion stutter.

    A frame is at risk when, on some axis that moves (its per-frame change is
    more than zero), the change is less than the float32 spacing at that
    axis' coordinate (the larger of the two frames' magnitudes): stored in
    float32 the step rounds to 0 or one spacing, so the object alternately
    stands still and jumps. The first frame is never at risk.
    """
    p = _vectors(positions, "positions", 3)
    out = np.zeros(p.shape[0], dtype=bool)
    if p.shape[0] < 2:
        return out
    step = np.abs(np.diff(p, axis=0))
    spacing = float32_spacing(np.maximum(np.abs(p[1:]), np.abs(p[:-1])))
    out[1:] = ((step > 0.0) & (step < spacing)).any(axis=1)
    return out
