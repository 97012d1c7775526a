# SPDX-License-Identifier: GPL-3.0-or-later
"""Rotation interpolation of key sequences: lerp, nlerp, slerp and Squad.

Quaternions are float64 arrays of shape (..., 4) in Blender's order
(w, x, y, z); times are frames (floats). Nothing here mutates its inputs, and
bad input raises ValueError with a sentence naming the key or sample.

Two families of functions:

* pairwise, broadcasting: :func:`lerp`, :func:`nlerp`, :func:`slerp`;
* key sequences sampled at arbitrary times: :func:`interpolate` (and its
  public helpers :func:`segment_params`, :func:`squad_control_points`).

Speed: :func:`interpolate` precomputes everything that depends only on a key
segment (arc angle, unit tangent, Squad control points) once, finds every
sample's segment with ``np.searchsorted`` and then evaluates the samples with
whole-array operations, in cache-sized blocks: no Python loop per sample or
per key. The block kernels and the arc formulas are in ``core.arcs``.

Slerp is evaluated as ``cos(u*omega) * q0 + sin(u*omega) * e`` where ``omega``
is the 4D arc angle between the two keys (half the rotation angle) and ``e``
the unit tangent at q0 pointing towards q1 (``e = (q1 - cos(omega) q0) /
sin(omega)``, orthogonal to q0). ``omega`` comes from
``2 * atan2(|q1 - q0|, |q1 + q0|)``, accurate to the last bit at 0 and at pi
(arccos of the dot product loses half the digits there). For keys 1e-12 rad
apart the tangent is computed from a tiny difference, but it is only ever
multiplied by ``sin(u*omega) <= omega``, so the absolute error of the result
stays at float64 rounding (~1e-16).
"""
from __future__ import annotations

import numpy as np

from . import quat
from .arcs import (
    ANTIPODAL_GAP,
    BLOCK,
    Work,
    arc_table,
    arcs,
    lerp_block,
    nlerp_block,
    slerp_block,
    squad_block,
)
from .frames import as_frames, as_key_times

METHODS = ("lerp", "nlerp", "slerp", "squad")


# --------------------------------------------------------------------------
# validation


def _validated_times(key_times) -> np.ndarray:
    """Key times as a new float64 (n,) array: n >= 1, finite, strictly increasing."""
    times = as_key_times(key_times, "key_times", item="key")
    if times.shape[0] == 0:
        raise ValueError("No keys: interpolation needs at least one key time and quaternion.")
    with np.errstate(over="ignore"):  # an overflowing gap is what is reported here
        steps = np.diff(times)
    if not np.isfinite(steps).all():
        i = int(np.argmax(~np.isfinite(steps))) + 1
        raise ValueError(
            f"key_times: keys {i - 1} and {i} (frames {times[i - 1]:g} and {times[i]:g}) are further "
            "apart than float64 can represent; use frame numbers within +-1e300."
        )
    return times


def _sample_times(sample_times) -> np.ndarray:
    """Sample frames as a float64 (m,) array, checked finite; a single number is one sample.

    Not copied: it may be the caller's own array (read-only use; copying a
    million samples costs more than the segment lookup).
    """
    return as_frames(np.atleast_1d(sample_times), "sample_times", copy=False)


def _validated_keys(key_times, key_quats, normalise: bool) -> tuple[np.ndarray, np.ndarray]:
    """Check a key sequence and return (times (n,), quats (n, 4)) as new arrays.

    With ``normalise`` the quaternions are scaled to unit length; without it
    they are returned as given (still checked finite and non-zero).
    """
    times = _validated_times(key_times)
    n = times.shape[0]
    arr = np.array(key_quats, dtype=np.float64, copy=True)
    if arr.shape != (n, 4):
        raise ValueError(
            f"key_quats has shape {arr.shape}, expected ({n}, 4): one (w, x, y, z) "
            f"quaternion per key time."
        )
    unit = quat.normalize(arr, "key_quats")  # raises on NaN/inf/zero naming the key
    return times, (unit if normalise else arr)


# --------------------------------------------------------------------------
# arcs between unit quaternions


def _shortest(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """b, negated where its dot product with a is negative (shortest arc).

    At exactly 180 degrees of rotation (dot == 0) b keeps its sign: the arc
    then runs from a towards b as given, a deterministic choice that matches
    quat.make_continuous (which also flips only on dot < 0).
    """
    flip = quat.dot(a, b) < 0.0
    return np.where(flip[..., None], -b, b)


def _as_fraction(t, what: str = "t") -> np.ndarray:
    arr = np.asarray(t, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise ValueError(f"{what}: interpolation fractions must be finite numbers.")
    return arr


# --------------------------------------------------------------------------
# pairwise, broadcasting


def lerp(q0, q1, t) -> np.ndarray:
    """Raw per-component linear interpolation ``(1-t) q0 + t q1``, NOT normalised.

    The naive baseline (what Blender's four quaternion F-curves do between
    keys): no sign fix here and no normalisation, so its norm sags below 1
    between keys that differ (cos(omega/2)-ish at t = 0.5). Shapes broadcast:
    q0, q1 (..., 4), t (...) -> (..., 4).
    """
    a = quat.as_quat_array(q0, "lerp q0")
    b = quat.as_quat_array(q1, "lerp q1")
    quat.normalize(a, "lerp q0")  # a zero quaternion is no rotation: refuse it
    quat.normalize(b, "lerp q1")
    tt = _as_fraction(t)[..., None]
    return (1.0 - tt) * a + tt * b


def nlerp(q0, q1, t) -> np.ndarray:
    """Normalised lerp on the shortest arc, unit result, shape broadcast (..., 4).

    Inputs are normalised first and q1 is negated where dot(q0, q1) < 0. Its
    angular speed is not constant (faster mid-segment) but it is cheap and
    never leaves the unit sphere.
    """
    a = quat.normalize(q0, "nlerp q0")
    b = _shortest(a, quat.normalize(q1, "nlerp q1"))
    tt = _as_fraction(t)[..., None]
    out = (1.0 - tt) * a + tt * b
    # With dot(a, b) >= 0 and unit a, b the combination never reaches zero;
    # quat.normalize also copes with far extrapolation (t ~ 1e200, whose
    # squared norm would overflow) and refuses t so large the sum is inf.
    return quat.normalize(out, "nlerp")


def slerp(q0, q1, t) -> np.ndarray:
    """Spherical linear interpolation on the shortest arc, unit result.

    q0, q1: (..., 4) quaternions, normalised first (any non-zero length);
    t: (...) fractions (0 -> q0, 1 -> q1; outside [0, 1] extrapolates along
    the same great circle). Shapes broadcast to (..., 4).

    Shortest arc: q1 is negated where dot(q0, q1) < 0. Exactly 180 degrees
    apart (dot == 0) both arcs are equally short; q1 then keeps the sign it
    was given, so the result turns from q0 towards q1 as passed.
    """
    a = quat.normalize(q0, "slerp q0")
    b = _shortest(a, quat.normalize(q1, "slerp q1"))
    tt = _as_fraction(t)
    omega, tangent = arcs(a, b)
    with np.errstate(over="ignore"):
        theta = tt * omega
    if not np.isfinite(theta).all():
        raise ValueError("slerp: t is too large to extrapolate (t times the arc angle overflows float64).")
    return np.cos(theta)[..., None] * a + np.sin(theta)[..., None] * tangent


# --------------------------------------------------------------------------
# key sequences


def _segment_index(times: np.ndarray, samples: np.ndarray) -> np.ndarray:
    """Segment index in [0, n-1] of every sample (n >= 2 keys).

    Segment i < n-1 runs from key i to key i+1, with key i at its start, so an
    interior key time always lands exactly at u = 0 of its segment. Index n-1
    is a "hold" segment for samples at or after the last key; samples before
    the first key go to segment 0 (and get u = 0). The hold segment lets the
    evaluators return the end keys bit-exactly without a masked second pass.
    """
    n = times.shape[0]
    m = samples.shape[0]
    if m > 1 and (samples[1:] >= samples[:-1]).all():
        # Sorted samples (a frame range, the usual case): n binary searches of
        # the keys among the samples instead of m searches among the keys,
        # then each segment index repeated over its run of samples.
        starts = np.searchsorted(samples, times, side="left")
        counts = np.empty(n, dtype=np.intp)
        counts[0] = starts[1]  # everything before key 1, including before key 0
        counts[1:-1] = np.diff(starts[1:])
        counts[-1] = m - starts[-1]
        return np.repeat(np.arange(n, dtype=np.intp), counts)
    index = np.searchsorted(times, samples, side="right")
    index -= 1
    np.clip(index, 0, n - 1, out=index)
    return index


def _inverse_intervals(times: np.ndarray) -> np.ndarray:
    """1 / (t_i+1 - t_i) per segment, 0 for the hold segment, shape (n,)."""
    inv_h = np.zeros(times.shape[0], dtype=np.float64)
    with np.errstate(over="ignore"):  # keys ~1e-320 apart: inf, see _fractions_into
        inv_h[:-1] = 1.0 / np.diff(times)
    return inv_h


def _fractions_into(u, times, inv_h, index, samples) -> None:
    """u <- fraction in [0, 1] of each sample along its segment."""
    with np.errstate(over="ignore", invalid="ignore"):
        np.take(times, index, mode="clip", out=u)
        np.subtract(samples, u, out=u)
        u *= np.take(inv_h, index, mode="clip")
    # u < 0 before the first key; u may exceed 1 by an ulp from rounding.
    # fmax/fmin also turn inf and the NaN of inf * 0 (a sample ~1e308 frames
    # past a key, times the hold segment's 0) into the right end, and are
    # several times faster than np.clip.
    np.fmax(u, 0.0, out=u)
    np.fmin(u, 1.0, out=u)


def _locate(times: np.ndarray, samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(segment index, fraction u) of every sample; see _segment_index."""
    index = _segment_index(times, samples)
    u = np.empty(samples.shape[0])
    _fractions_into(u, times, _inverse_intervals(times), index, samples)
    return index, u


def segment_params(key_times, sample_times) -> tuple[np.ndarray, np.ndarray]:
    """Which key segment each sample falls in, and where.

    Returns ``(index, u)``, both of shape (len(sample_times),): ``index`` in
    [0, n-2] is the segment from key ``index`` to key ``index + 1`` and ``u``
    in [0, 1] the fraction of the way along it
    (``key_times[i] <= s < key_times[i+1]``; the last key itself gives
    (n-2, 1.0)). Samples before the first key give (0, 0.0), after the last
    (n-2, 1.0). With a single key every sample gives (0, 0.0).
    """
    times = _validated_times(key_times)
    samples = _sample_times(sample_times)
    n = times.shape[0]
    if n == 1:
        return np.zeros(samples.shape, dtype=np.intp), np.zeros(samples.shape)
    index, u = _locate(times, samples)
    hold = index == n - 1
    index[hold] = n - 2
    u[hold] = 1.0
    return index, u


def _control_points(times: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Squad inner control points s_i (n, 4) for validated unit keys q (n, 4).

    With h_i = t_{i+1} - t_i, L+ = log(q_i^-1 q_{i+1}), L- = log(q_i^-1 q_{i-1}):

        s_i = q_i exp(-(h_{i-1} L+ + h_i L-) / (2 (h_{i-1} + h_i)))

    For even spacing the weights are 1/4 each: Shoemake's (1985)
    s_i = q_i exp(-(L+ + L-) / 4). Why these weights: squad leaves key i
    with angular velocity q_i (L+ + 2 T) / h_i and arrives with
    q_i (-L- - 2 T) / h_{i-1}, where s_i = q_i exp(T). Asking both to equal
    the centred difference (L+ - L-) / (h_{i-1} + h_i) gives the same T from
    either side, the formula above: one control point per key, angular
    velocity continuous across every interior key for any spacing, and a
    rotation at constant speed about a fixed axis is reproduced exactly
    (T = 0, squad == slerp) however unevenly it is keyed. End keys: s_0 = q_0,
    s_{n-1} = q_{n-1} (the curve leaves/reaches them along the chord arc).

    (numpy-quaternion's squad agrees for even spacing; for uneven spacing it
    matches the mean of the two one-sided velocities instead, which needs
    separate incoming and outgoing control points. Both are C1; the centred
    difference is the one-point choice.)
    """
    s = q.copy()
    if q.shape[0] < 3:
        return s
    # D_i = log(q_i^-1 q_{i+1}) (half-angle vectors); L+ = D_i, L- = -D_{i-1}.
    d = quat.log(quat.multiply(quat.conjugate(q[:-1]), q[1:]))[:, 1:]
    h = np.diff(times)
    h_prev = h[:-1, None]
    h_next = h[1:, None]
    tangent = (h_next * d[:-1] - h_prev * d[1:]) / (2.0 * (h_prev + h_next))
    s[1:-1] = quat.multiply(q[1:-1], quat.exp(tangent))
    return s


def squad_control_points(key_times, key_quats, shortest: bool = True) -> np.ndarray:
    """Squad's inner control points s_i, shape (n, 4), for keys (n,) and (n, 4).

    Keys are normalised and (with ``shortest``) made hemisphere-continuous
    first, exactly as :func:`interpolate` does. With h_i = t_{i+1} - t_i,
    L+ = log(q_i^-1 q_{i+1}) and L- = log(q_i^-1 q_{i-1}) (half-angle vectors):
    s_i = q_i exp(-(h_{i-1} L+ + h_i L-) / (2 (h_{i-1} + h_i))), which is
    Shoemake's (1985) q_i exp(-(L+ + L-) / 4) for even spacing and keeps the
    angular velocity continuous at every interior key for any spacing (the
    derivation is in ``_control_points``). End points: s_0 = q_0, s_n = q_n.
    """
    times, q = _validated_keys(key_times, key_quats, normalise=True)
    if shortest:
        q = quat.make_continuous(q)
    return _control_points(times, q)


# --------------------------------------------------------------------------
# evaluation of all samples
#
# Per segment (once): the arc's half angle and unit tangent (slerp), Squad's
# control-point arc, or the key difference (lerp/nlerp), stored transposed as
# (4, n) tables: one contiguous row per component, so per-sample products run
# over long contiguous rows instead of numpy's slow length-4 inner loops.
# Row n-1 is the "hold" segment (see _locate).
#
# Per sample: gathers from the tables by segment index and a fixed sequence of
# whole-array operations. Sines and cosines come from one tangent of the half
# angle, t = tan(x/2): sin x = 2t/(1+t^2), cos x = 2/(1+t^2) - 1, which halves
# the transcendental calls (the dominant cost); x/2 <= pi/4 on shortest arcs,
# where this is as accurate as sin and cos (a few ulps, absolute), and x = 0
# gives exactly (0, 1), so keys come out bit-exact.


def interpolate(key_times, key_quats, sample_times, method: str = "slerp",
                shortest: bool = True) -> np.ndarray:
    """Orientation at every sample time from keyed quaternions.

    key_times: (n,) strictly increasing frames; key_quats: (n, 4) (w, x, y, z);
    sample_times: (m,) frames, any order. Returns (m, 4) float64.

    method: "lerp" (raw per-component, NOT normalised: the naive baseline;
    keys are used as given, only their sign fixed), "nlerp", "slerp" or
    "squad" (keys normalised first). With ``shortest`` (default) the keys are
    made hemisphere-continuous first (quat.make_continuous), so every segment
    takes the short way; ``shortest=False`` follows the keys' signs as given
    (the long way where consecutive keys have a negative dot product).

    Samples before the first key hold the first key, samples at or after the
    last key hold the last one; a single key holds everywhere. Keys are
    reproduced at their own times.

    Raises ValueError (a sentence naming the key or sample) for an unknown
    method, no keys, non-increasing or duplicate key times, mismatched shapes,
    NaN or infinite values, and zero quaternions.
    """
    if method not in METHODS:
        raise ValueError(f"Unknown interpolation method {method!r}: use one of {', '.join(METHODS)}.")
    times, q = _validated_keys(key_times, key_quats, normalise=(method != "lerp"))
    samples = _sample_times(sample_times)
    if shortest:
        q = quat.make_continuous(q)
    n = times.shape[0]
    m = samples.shape[0]
    if n == 1:
        return np.repeat(q, m, axis=0)

    if method in ("lerp", "nlerp"):
        if method == "nlerp" and not shortest:
            gap = quat.norm(q[1:] + q[:-1])
            if (gap < ANTIPODAL_GAP).any():
                i = int(np.argmax(gap < ANTIPODAL_GAP))
                raise ValueError(
                    f"nlerp with shortest=False: keys {i} and {i + 1} are opposite quaternions, "
                    "so the path between them passes through zero; use shortest=True or slerp."
                )
        delta_t = np.zeros((4, n))
        delta_t[:, :-1] = (q[1:] - q[:-1]).T
        # |a + b|^2 per segment; the hold segment after the last key has a = b.
        sum_norm2 = np.full(n, 4.0)
        sum_norm2[:-1] = np.einsum("ij,ij->i", q[1:] + q[:-1], q[1:] + q[:-1])
        tables = (np.ascontiguousarray(q.T), delta_t, sum_norm2)
        block = nlerp_block if method == "nlerp" else lerp_block

        def evaluate(dest, index, u, work):
            block(dest, tables, index, u, work)
    elif method == "slerp":
        tables = (arc_table(q[:-1], q[1:]),)

        def evaluate(dest, index, u, work):
            slerp_block(dest, tables, index, u, work)
    else:
        s = _control_points(times, q)
        tables = (arc_table(q[:-1], q[1:]), arc_table(s[:-1], s[1:]))

        def evaluate(dest, index, u, work):
            squad_block(dest, tables, index, u, work)

    index = _segment_index(times, samples)
    inv_h = _inverse_intervals(times)
    result = np.empty((m, 4))
    work = Work(min(m, BLOCK))
    for lo in range(0, m, BLOCK):
        hi = min(lo + BLOCK, m)
        buffers, u = work.view(hi - lo)
        _fractions_into(u, times, inv_h, index[lo:hi], samples[lo:hi])
        # result[lo:hi].T is a (4, k) strided view: the last step writes there.
        evaluate(result[lo:hi].T, index[lo:hi], u, buffers)
    return result


# Bones per block in interpolate_many: a block's (bones, samples, 4) arrays stay
# around 16 MB whatever the rig's size (200 bones x 10,000 frames included).
_MANY_BLOCK_VALUES = 500_000


def interpolate_many(key_times, key_quats, sample_times, method: str = "slerp") -> np.ndarray:
    """:func:`interpolate` (shortest arcs) for several key sequences on the same key times.

    key_times: (n,); key_quats: (b, n, 4); sample_times: (m,). Returns (b, m, 4),
    row k equal to ``interpolate(key_times, key_quats[k], sample_times, method)``
    to float64 rounding. A rig's bones keyed on the same frames share the sample
    search and fractions; slerp and nlerp evaluate all sequences in whole-array
    steps (lerp and squad run one sequence at a time). Raises ValueError as
    :func:`interpolate` does.
    """
    if method not in METHODS:
        raise ValueError(f"Unknown interpolation method {method!r}: use one of {', '.join(METHODS)}.")
    key_quats = np.asarray(key_quats, dtype=np.float64)
    if key_quats.ndim != 3 or key_quats.shape[-1] != 4:
        raise ValueError(f"key_quats has shape {key_quats.shape}, expected (b, n, 4).")
    samples = _sample_times(sample_times)
    b = key_quats.shape[0]
    if method in ("lerp", "squad") or key_quats.shape[1] < 2 or b == 0:
        out = np.empty((b, samples.shape[0], 4))
        for k in range(b):
            out[k] = interpolate(key_times, key_quats[k], samples, method)
        return out
    times = _validated_times(key_times)
    if key_quats.shape[1] != times.shape[0]:
        raise ValueError(f"key_quats has {key_quats.shape[1]} keys per sequence, expected "
                         f"{times.shape[0]}: one (w, x, y, z) quaternion per key time.")
    # Every sequence's keys at once (raises on NaN/inf/zero naming the flattened key).
    q = quat.make_continuous(quat.normalize(key_quats, "key_quats"), axis=1)   # (b, n, 4)
    index, u = _locate(times, samples)                   # shared by every sequence
    out = np.empty((b, samples.shape[0], 4))
    per_block = max(1, _MANY_BLOCK_VALUES // max(1, samples.shape[0]))
    for lo in range(0, b, per_block):
        hi = min(b, lo + per_block)
        qb = q[lo:hi]
        start = np.take(qb, np.minimum(index, qb.shape[1] - 1), axis=1)   # hold: the last key
        if method == "nlerp":
            step = np.zeros_like(qb)
            step[:, :-1] = qb[:, 1:] - qb[:, :-1]
            mixed = start + u[None, :, None] * np.take(step, index, axis=1)
            out[lo:hi] = mixed / quat.norm(mixed)[..., None]
            continue
        omega, tangent = arcs(qb[:, :-1], qb[:, 1:])                  # (bb, n-1), (bb, n-1, 4)
        omega = np.concatenate([omega, np.zeros((hi - lo, 1))], axis=1)
        tangent = np.concatenate([tangent, np.zeros((hi - lo, 1, 4))], axis=1)
        angle = u[None, :] * np.take(omega, index, axis=1)
        out[lo:hi] = (np.cos(angle)[..., None] * start
                      + np.sin(angle)[..., None] * np.take(tangent, index, axis=1))
    return out
