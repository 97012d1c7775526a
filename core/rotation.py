# SPDX-License-Identifier: GPL-3.0-or-later
"""Conversions between Blender's rotation modes, float64, vectorised.

Blender's conventions (source/blender/blenlib/intern/math_rotation.c):

- Quaternions are (w, x, y, z).
- Euler values are stored per axis, ``rotation_euler = (x, y, z)`` whatever the
  order. The order names the axes in the order they are APPLIED: 'XYZ' rotates
  about X first, then Y, then Z, so the matrix is R = Rz @ Ry @ Rx (column
  vectors) and the quaternion is qz * qy * qx. This equals scipy's *extrinsic*
  (lowercase) sequence with the angles listed in the order's sequence:
  Blender ('XYZ', (x, y, z)) == scipy ``from_euler("xyz", [x, y, z])`` and
  Blender ('ZYX', (x, y, z)) == scipy ``from_euler("zyx", [z, y, x])``.
- Axis-angle is stored as ``rotation_axis_angle = (angle, x, y, z)``; a zero
  axis means no rotation (Blender's ``axis_angle_to_quat`` returns identity).

The ``*_continuous`` functions produce values to write back as keys: no +-360
degree jumps from frame to frame, and among the equivalent representations the
one closest to the previous frame (or to a reference value for the first
frame), like Blender's "compatible Euler" logic. They are vectorised (the
branch choices are a cumulative parity, as in ``quat.make_continuous``).
"""
from __future__ import annotations

import numpy as np

from . import quat

EULER_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
ROTATION_MODES = EULER_ORDERS + ("QUATERNION", "AXIS_ANGLE")

# Euler extraction (``_euler_solutions``): gimbal lock is taken when
# sqrt(2) cos(middle/2 -+ pi/4), about the middle angle's distance from +-90 deg
# divided by sqrt(2), is below this. There the last axis is set (0, or the
# held value) and the first takes the defined sum/difference, which moves the
# orientation by at most ~2 * GIMBAL_EPS rad. Elsewhere the orientation is
# exact to ~1e-16 rad, while the two outer angles on their own carry
# ~1e-16 / distance of noise (they are ill-defined near the lock; their
# combination is not). 1e-14 keeps every order within 1e-12 rad of a round
# trip at any middle angle (tests/core/test_rotation.py).
GIMBAL_EPS = 1e-14

# An opt-in, wider gimbal band for ``quat_to_euler_continuous(...,
# lock_tolerance=...)``, in radians of the middle angle from +-90 deg. Blender's
# own extraction (mat3_normalized_to_eulo2) takes gimbal lock when cos(middle)
# <= 16 FLT_EPSILON = 1.9e-6, so float32's "90 deg" (1.5707963705, 4.4e-8 rad
# past pi/2) is locked there and ``Matrix.to_euler(order, compat)`` splits the
# outer angles freely. Inside GIMBAL_EPS the two outer angles are exact and far
# apart ones are the only ones that reproduce the rotation to 1e-12 rad, so they
# can be ~pi farther from the reference than Blender's pick. Within this band
# the split is free too (the last axis keeps the reference's / previous frame's
# angle) at a cost of at most ~2 * lock_tolerance rad of orientation (4e-6 rad,
# 2.3e-4 deg, here: float32 keys store the angles no better); 2e-6 is just
# above Blender's 1.9e-6 plus its float32 rounding of cos(middle), so every
# frame Blender treats as locked is locked here too.
BLENDER_GIMBAL_TOLERANCE = 2e-6

# Axis-angle: below this |vector part| of a unit quaternion the axis is
# numerically undefined (the rotation is within 2e-12 rad of identity), so the
# previous frame's axis (or Blender's default Y axis) is used.
AXIS_EPS = 1e-12

_TWO_PI = 2.0 * np.pi
_AXIS_INDEX = {"X": 0, "Y": 1, "Z": 2}


def _order_axes(order: str) -> tuple[tuple[int, int, int], bool]:
    """Axis indices (first applied, middle, last applied) and odd parity."""
    if not isinstance(order, str) or order not in EULER_ORDERS:
        raise ValueError(
            f"Euler order {order!r} is not one of Blender's orders {', '.join(EULER_ORDERS)}."
        )
    axes = tuple(_AXIS_INDEX[c] for c in order)
    # An odd permutation of (X, Y, Z) is a reflection of the relabelled frame,
    # which negates every rotation angle (Blender's "parity" flag).
    odd = order in ("XZY", "YXZ", "ZYX")
    return axes, odd


def _as_finite(values, last: int, what: str) -> np.ndarray:
    arr = np.array(values, dtype=np.float64, copy=True)
    if arr.ndim == 0 or arr.shape[-1] != last:
        raise ValueError(f"{what}: expected an array of shape (..., {last}), got shape {arr.shape}.")
    if np.isfinite(arr).all():   # the per-row look below only names the broken key
        return arr
    bad = ~np.isfinite(arr).all(axis=-1)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        label = f"key {index[0] if len(index) == 1 else index}" if index else "the value"
        raise ValueError(f"{what}: {label} has a NaN or infinite component {arr[index].tolist()}.")
    return arr


def _as_sequence(arr: np.ndarray, what: str) -> np.ndarray:
    if arr.ndim != 2 or arr.shape[0] < 1:
        raise ValueError(f"{what}: expected a sequence of shape (n, {arr.shape[-1]}) with n >= 1, got {arr.shape}.")
    return arr


def wrap_angle(angle: np.ndarray) -> np.ndarray:
    """Angles wrapped into [-pi, pi) (to a rounding: an angle a rounding below pi may come
    out a rounding below -pi). The turns taken off are counted by floor, not by numpy's
    float modulo: 18 against 210 us on a bake's 24,000 Euler angles, and as close or
    closer (the modulo's sum with pi made an angle of 1e-16 exactly 0)."""
    return angle - _TWO_PI * np.floor((angle + np.pi) / _TWO_PI)


def _wrap_in_place(angle: np.ndarray) -> np.ndarray:
    """wrap_angle of a float64 array into itself, to the bit (the same operations, one
    work array instead of four new ones)."""
    turns = np.add(angle, np.pi, out=np.empty_like(angle))   # an array for one angle too
    turns /= _TWO_PI
    np.floor(turns, out=turns)
    turns *= _TWO_PI
    angle -= turns
    return angle


def nearest_turn(raw: np.ndarray, target: np.ndarray) -> np.ndarray:
    """raw + 2*pi*k with the integer k that brings it closest to target.

    Adding whole turns to the raw value (instead of keeping a cumulative sum of
    differences) keeps the result exact to the raw value's rounding.
    """
    return raw + _TWO_PI * np.round((target - raw) / _TWO_PI)


# --------------------------------------------------------------------------- Euler


def euler_to_quat(angles, order: str = "XYZ") -> np.ndarray:
    """Unit quaternions (..., 4) from Euler angles (..., 3) in radians.

    ``angles`` are per axis (x, y, z) as in Blender's ``rotation_euler``; the
    order says which axis is applied first ('XYZ': X first, q = qz*qy*qx).
    """
    e = _as_finite(angles, 3, "euler_to_quat")
    half = 0.5 * e
    parts = _euler_quat_from_halves([np.cos(half[..., a]) for a in range(3)],
                                    [np.sin(half[..., a]) for a in range(3)], order)
    out = np.empty(e.shape[:-1] + (4,), dtype=np.float64)
    for c, part in enumerate(parts):
        out[..., c] = part
    return out


def euler_to_quat_parts(x, y, z, order: str = "XYZ"):
    """euler_to_quat's (w, x, y, z) as four arrays, from the angles about X, Y and Z
    as three finite float64 arrays of one shape (not checked): for callers that hold
    each channel in a row of its own (a channel-first array), so nothing is
    interleaved and gathered back.

    The half angles' sines and cosines come from one tangent each, t = tan(angle / 4):
    sin = 2t / (1 + t^2), cos = 2 / (1 + t^2) - 1. With the numpy the tests pin (1.26,
    x86-64), float64 tan takes a tenth of the time of sin and cos (measured: 0.6 ms
    against 9-11 ms a million values, benchmarks/README.md, Bezier tolerance bake; a
    build that vectorises sin and cos too gains less), and the result is as close: each
    value off by a few ulps, absolutely (the error of t near its pole, where t is large,
    is divided back out by 1 + t^2). Values agree with euler_to_quat to ~1e-15."""
    cos_half, sin_half = [], []
    for angle in (x, y, z):
        # The same operations in two work arrays (six fresh arrays of the samples' size
        # before): tan(angle / 4), then 2 / (1 + t^2) and the sine and cosine from them.
        tan_quarter = np.multiply(angle, 0.25)
        np.tan(tan_quarter, out=tan_quarter)
        scale = np.multiply(tan_quarter, tan_quarter)
        scale += 1.0
        np.divide(2.0, scale, out=scale)
        sin_half.append(np.multiply(tan_quarter, scale, out=tan_quarter))
        cos_half.append(np.subtract(scale, 1.0, out=scale))
    return _euler_quat_from_halves(cos_half, sin_half, order)


def _euler_quat_from_halves(cos_half, sin_half, order: str):
    """(w, x, y, z) of the Euler rotation whose half angles about X, Y and Z have these
    cosines and sines (lists of three arrays, by axis)."""
    (i, j, k), odd = _order_axes(order)
    # Relabel the axes so the order reads X, Y, Z (first, middle, last applied)
    # and expand q = qz * qy * qx there. An odd relabelling is a reflection: it
    # negates the angles and, mapped back, the vector part (Blender's parity).
    # The sign is applied only for an odd order: a product by 1.0 changes no bit, and was
    # six passes over the samples of every XYZ conversion (a Bezier bake's every check).
    ci, cj, ck = cos_half[i], cos_half[j], cos_half[k]
    si, sj, sk = ((-sin_half[a] for a in (i, j, k)) if odd
                  else (sin_half[a] for a in (i, j, k)))
    cc, ss = ci * ck, si * sk
    cs, sc = ci * sk, si * ck
    parts = [cj * cc + sj * ss, cj * sc - sj * cs, sj * cc + cj * ss, cj * cs - sj * sc]
    if odd:
        parts[1:] = [-part for part in parts[1:]]
    return (parts[0],) + tuple(parts[1 + [i, j, k].index(axis)] for axis in range(3))


def _euler_solutions(q: np.ndarray, order: str, keep_last=None, lock: float = GIMBAL_EPS):
    """Both Euler solutions (..., 3) of unit quaternions q (..., 4).

    Solution 1 has the middle angle in [-pi/2, pi/2]; solution 2 is
    (first + pi, pi - middle, last + pi), the same rotation. At gimbal lock
    (the vanishing prefactor below ``lock``, ~ the middle angle's distance
    from +-90 deg / sqrt(2)) the last axis' angle is ``keep_last`` (default 0,
    as Blender does) and the first axis takes the rest. Also returns the
    gimbal mask.

    Computed from the quaternion's half-angle sums and differences, not from
    the matrix (the direct method of Bernardes and Viollet, PLoS ONE 2022,
    derived here for Blender's conventions): every angle comes from an atan2
    of two well-scaled numbers, so the orientation round-trips to ~1e-16 rad
    at any middle angle, gimbal lock included (issue 10: the matrix formula's
    gimbal branch was off by ~2 cos(middle), 1.9e-6 rad just inside 1e-6).
    """
    (i, j, k), odd = _order_axes(order)
    sign = -1.0 if odd else 1.0
    # Relabel the axes so the order reads X, Y, Z: for an odd permutation this
    # is a reflection, so the vector part (a pseudovector) and every angle
    # change sign. In that frame q = qz(c) qy(b) qx(a), and with half angles
    #   w + y = (cos b/2 + sin b/2) cos((a - c)/2),  x - z = (...) sin((a - c)/2)
    #   w - y = (cos b/2 - sin b/2) cos((a + c)/2),  x + z = (...) sin((a + c)/2)
    # where both prefactors are >= 0 for b in [-pi/2, pi/2].
    w = q[..., 0]
    x, y, z = (sign * q[..., 1 + axis] for axis in (i, j, k))
    p_cos, p_sin = w + y, x - z
    m_cos, m_sin = w - y, x + z
    plus = np.hypot(p_cos, p_sin)      # sqrt(2) cos(b/2 - pi/4)
    minus = np.hypot(m_cos, m_sin)     # sqrt(2) cos(b/2 + pi/4)
    b = 2.0 * np.arctan2(plus, minus) - 0.5 * np.pi
    half_diff = np.arctan2(p_sin, p_cos)   # (a - c) / 2
    half_sum = np.arctan2(m_sin, m_cos)    # (a + c) / 2
    a = half_sum + half_diff
    c = half_sum - half_diff
    # Gimbal lock: one prefactor vanishes and only a - c (b = +pi/2) or a + c
    # (b = -pi/2) is defined; the last axis then takes ``keep_last``.
    up = minus < lock
    down = plus < lock
    gimbal = up | down
    if gimbal.any():
        held = np.zeros_like(c) if keep_last is None else np.asarray(keep_last, dtype=np.float64) * sign
        c = np.where(gimbal, held, c)
        a = np.where(up, 2.0 * half_diff + c, np.where(down, 2.0 * half_sum - c, a))
    # Back to per-axis storage (x, y, z), each column written where it belongs (a stack
    # and a gather of columns were two more passes over the samples), wrapped on its way
    # there (wrap_angle's operations, on contiguous rows). The middle angle of the first
    # solution is in [-pi/2, pi/2] already, where wrap_angle changes no bit.
    out1 = np.empty(a.shape + (3,))
    out2 = np.empty_like(out1)
    for axis, one, two, wrap in ((i, a, a + np.pi, True), (j, b, np.pi - b, False),
                                 (k, c, c + np.pi, True)):
        # Arrays of their own even for one quaternion ((4,): a and c are then numpy
        # scalars, which no out= can take). For an even order (sign 1.0, a product that
        # changes no bit) a, b and c, arrays this function made, are wrapped in place:
        # six passes over the samples fewer.
        if odd or not isinstance(one, np.ndarray):
            first = np.multiply(one, sign, out=np.empty(a.shape))
        else:
            first = one
        out1[..., axis] = _wrap_in_place(first) if wrap else first
        two = np.asarray(two, dtype=np.float64)
        if odd:
            np.multiply(two, sign, out=two)
        out2[..., axis] = _wrap_in_place(two)
    return out1, out2, gimbal


def quat_to_euler(q, order: str = "XYZ") -> np.ndarray:
    """Euler angles (..., 3), per axis (x, y, z), radians, of quaternions (..., 4).

    Like Blender's ``quat_to_eulO``: of the two solutions, the one with the
    smaller sum of absolute angles; angles in [-pi, pi]. At gimbal lock the
    last-applied axis gets 0. Raises ValueError for zero, NaN or infinite input.
    """
    _order_axes(order)
    e1, e2, _ = _euler_solutions(quat.normalize(q, "quat_to_euler"), order)
    pick2 = np.abs(e2).sum(axis=-1) < np.abs(e1).sum(axis=-1)
    return np.where(pick2[..., None], e2, e1)


def quat_to_euler_continuous(q, order: str = "XYZ", reference=None, lock_tolerance=None) -> np.ndarray:
    """Euler sequence (n, 3), radians, for writing keys: continuous frame to frame.

    For each frame the Euler solution (of the two) and the whole turns per axis
    are chosen closest (sum of absolute differences) to the previous frame, so
    there are no +-360 degree jumps and no flips at the middle axis' +-90
    degrees. The first frame is chosen closest to ``reference`` (3,) if given
    (for example the object's current ``rotation_euler``, so the keys continue
    its winding), else it is ``quat_to_euler``'s solution.

    At exact gimbal lock only the sum/difference of the outer angles is defined;
    the last-applied axis then keeps the previous frame's angle (or the
    reference's on the first frame) and the first takes the rest, wound to the
    nearest turn: of all the splits, the one closest to the previous frame (the
    sum of absolute differences cannot be smaller, by the triangle inequality;
    the alternative decomposition, middle' = pi - middle, is the same family
    there). That band is GIMBAL_EPS by default, so the result reproduces the
    rotation within 1e-12 rad at any middle angle. ``lock_tolerance`` (radians
    of the middle angle from +-90 deg, e.g. BLENDER_GIMBAL_TOLERANCE) widens it:
    frames that close are split the same way, never farther from the previous
    frame than Blender's ``Matrix.to_euler(order, compat)``, at the cost of at
    most ~2 * lock_tolerance rad of orientation on those frames.
    """
    k = _order_axes(order)[0][2]
    lock = GIMBAL_EPS
    if lock_tolerance is not None:
        tol = float(lock_tolerance)
        if not (0.0 <= tol <= 0.01):
            raise ValueError(f"quat_to_euler_continuous: lock_tolerance must be between 0 and 0.01 rad, "
                             f"got {lock_tolerance!r}.")
        # The prefactor at a middle angle tol from +-90 deg is sqrt(2) sin(tol / 2).
        lock = max(GIMBAL_EPS, np.sqrt(2.0) * np.sin(0.5 * tol))
    qa = quat.normalize(q, "quat_to_euler_continuous")
    rows = qa.ndim == 3 and qa.shape[1] >= 1
    if not rows:
        qa = _as_sequence(qa, "quat_to_euler_continuous")
    ref = None
    if reference is not None:
        ref = _as_finite(reference, 3, "quat_to_euler_continuous reference")
        if ref.shape != qa.shape[:-2] + (3,):
            raise ValueError(f"quat_to_euler_continuous: reference must have shape "
                             f"{qa.shape[:-2] + (3,)}, got {ref.shape}.")
    e1, e2, gimbal = _euler_solutions(qa, order, lock=lock)
    if gimbal.any():
        # Hold the last axis at its value on the latest non-gimbal frame
        # (solution 1's value: solution 2 differs by exactly pi there, which the
        # second solution reproduces), or at the reference / 0 before any.
        start = 0.0 if ref is None else ref[..., k, None]
        idx = np.where(~gimbal, np.arange(gimbal.shape[-1]), -1)
        idx = np.maximum.accumulate(idx, axis=-1)
        held = np.where(idx >= 0, np.take_along_axis(e1[..., k], np.maximum(idx, 0), axis=-1),
                        start)
        e1, e2, _ = _euler_solutions(qa, order, keep_last=held, lock=lock)

    def distance(x, y):
        d = _wrap_in_place(np.subtract(x, y))
        np.abs(d, out=d)
        return d[..., 0] + d[..., 1] + d[..., 2]    # sum(axis=-1), without its short-axis loop

    # Switching branch between frames n-1 and n is worthwhile when the cross
    # distance beats the same-branch distance; both distances are the same
    # whichever branch frame n-1 is on (solution 2 is a fixed map of solution
    # 1), so the branch is a cumulative parity of those switches.
    n = qa.shape[-2]
    first1, first2 = e1[..., 0, :], e2[..., 0, :]
    if ref is None:
        first_two = np.abs(first2).sum(axis=-1) < np.abs(first1).sum(axis=-1)
    else:
        first_two = distance(first2, ref) < distance(first1, ref)
    switch = np.zeros(qa.shape[:-1], dtype=bool)
    switch[..., 0] = first_two
    if n > 1:
        switch[..., 1:] = (distance(e2[..., 1:, :], e1[..., :-1, :])
                           < distance(e1[..., 1:, :], e1[..., :-1, :]))
    branch2 = np.cumsum(switch, axis=-1) % 2 == 1
    raw = np.where(branch2[..., None], e2, e1) if branch2.any() else e1
    # Unwrap each axis: whole turns chosen so each step is in [-pi, pi). In place on work
    # arrays: nearest_turn(raw, approx) and the cumulative sum's operations, to the bit.
    steps = _wrap_in_place(np.diff(raw, axis=-2))
    start = raw[..., 0, :] if ref is None else nearest_turn(raw[..., 0, :], ref)
    approx = np.empty_like(raw)
    approx[..., 0, :] = start
    np.cumsum(steps, axis=-2, out=approx[..., 1:, :])
    approx[..., 1:, :] += start[..., None, :]
    approx -= raw                           # nearest_turn(raw, approx), in place
    approx /= _TWO_PI
    np.round(approx, out=approx)
    approx *= _TWO_PI
    approx += raw
    return approx


# ----------------------------------------------------------------------- axis-angle


def axis_angle_to_quat(aa) -> np.ndarray:
    """Unit quaternions (..., 4) from axis-angle (..., 4) = (angle, x, y, z).

    The axis need not be unit length; a zero axis gives the identity, as in
    Blender's ``axis_angle_to_quat``.
    """
    arr = _as_finite(aa, 4, "axis_angle_to_quat")
    angle = arr[..., 0]
    # Scale each axis by its largest component first: squaring a component
    # past ~1e154 overflows, and an axis of length inf would normalise to zero.
    peak = np.abs(arr[..., 1:]).max(axis=-1)
    axis = arr[..., 1:] / np.where(peak > 0.0, peak, 1.0)[..., None]
    axis_length = quat.norm(axis)
    length = axis_length * peak
    zero = length < quat.ZERO_NORM
    unit = axis / np.where(zero, 1.0, axis_length)[..., None]
    half = 0.5 * angle
    out = np.empty(arr.shape, dtype=np.float64)
    out[..., 0] = np.where(zero, 1.0, np.cos(half))
    out[..., 1:] = np.where(zero[..., None], 0.0, unit * np.sin(half)[..., None])
    return out


def quat_to_axis_angle(q) -> np.ndarray:
    """Axis-angle (..., 4) = (angle, x, y, z) with a unit axis, angle in [0, 2*pi].

    Like Blender's ``quat_to_axis_angle``: the angle follows q's sign
    (2*atan2(|v|, w)); the identity gets Blender's default axis Y.
    """
    qa = quat.normalize(q, "quat_to_axis_angle")
    v = qa[..., 1:]
    length = quat.norm(v)
    degenerate = length < AXIS_EPS
    out = np.empty(qa.shape, dtype=np.float64)
    out[..., 0] = 2.0 * np.arctan2(length, qa[..., 0])
    out[..., 1:] = np.where(
        degenerate[..., None], np.array([0.0, 1.0, 0.0]), v / np.where(degenerate, 1.0, length)[..., None]
    )
    return out


def quat_to_axis_angle_continuous(q, reference=None) -> np.ndarray:
    """Axis-angle sequence (n, 4) = (angle, x, y, z) for writing keys.

    (angle, axis), (-angle, -axis) and (angle + 2*pi*k, axis) are the same
    rotation; this picks, frame by frame, the axis sign closest to the previous
    frame's axis (no flip) and the angle with no jump of a whole turn. Near the
    identity, where the axis is undefined, the previous axis is kept. The first
    frame follows ``reference`` (4,) if given (axis sign and winding).
    """
    qa = _as_sequence(quat.normalize(q, "quat_to_axis_angle_continuous"), "quat_to_axis_angle_continuous")
    ref_angle = None
    ref_axis = np.array([0.0, 1.0, 0.0])
    if reference is not None:
        ref = _as_finite(reference, 4, "quat_to_axis_angle_continuous reference")
        if ref.shape != (4,):
            raise ValueError(f"quat_to_axis_angle_continuous: reference must have shape (4,), got {ref.shape}.")
        ref_len = quat.norm(ref[1:])
        if ref_len >= quat.ZERO_NORM:
            ref_axis = ref[1:] / ref_len
            ref_angle = ref[0]
        else:
            # A zero axis is the identity whatever the angle: keep only its winding.
            ref_angle = ref[0]
    n = len(qa)
    v = qa[:, 1:]
    length = quat.norm(v)
    defined = length >= AXIS_EPS
    axis = np.where(defined[:, None], v / np.where(defined, length, 1.0)[:, None], 0.0)
    # Frames with no defined axis take the latest defined one; those before the
    # first defined frame take that first one (the axis of an identity rotation
    # is arbitrary, so this avoids a jump); with no defined axis at all, the
    # reference's axis or Blender's default Y.
    if defined.any():
        idx = np.maximum.accumulate(np.where(defined, np.arange(n), -1))
        idx = np.where(idx >= 0, idx, int(np.argmax(defined)))
        axis = axis[idx]
    else:
        axis = np.broadcast_to(ref_axis, (n, 3)).copy()
    angle = 2.0 * np.arctan2(length, qa[:, 0])
    # Axis sign: flip when the axis turns more than 90 degrees from the previous
    # frame's; a cumulative parity, as for quaternion hemispheres.
    flip = np.zeros(n, dtype=bool)
    flip[0] = np.dot(axis[0], ref_axis) < 0.0 if reference is not None else False
    if n > 1:
        flip[1:] = np.einsum("ij,ij->i", axis[1:], axis[:-1]) < 0.0
    negative = np.cumsum(flip) % 2 == 1
    sign = np.where(negative, -1.0, 1.0)
    axis = axis * sign[:, None]
    angle = angle * sign
    steps = wrap_angle(np.diff(angle))
    start = angle[0] if ref_angle is None else nearest_turn(angle[0], ref_angle)
    approx = np.concatenate(([start], start + np.cumsum(steps)))
    out = np.empty((n, 4), dtype=np.float64)
    out[:, 0] = nearest_turn(angle, approx)
    out[:, 1:] = axis
    return out


# -------------------------------------------------------------------------- matrices


def quat_to_matrix(q) -> np.ndarray:
    """Rotation matrices (..., 3, 3) (column vectors: v' = R @ v) of quaternions.

    Quaternions are normalised first (ValueError for zero, NaN or infinite).
    """
    return _unit_quat_to_matrix(quat.normalize(q, "quat_to_matrix"))


def _unit_quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """quat_to_matrix for quaternions already checked and normalised."""
    w, x, y, z = np.moveaxis(q, -1, 0)
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    m = np.empty(w.shape + (3, 3), dtype=np.float64)
    m[..., 0, 0] = 1.0 - 2.0 * (yy + zz)
    m[..., 0, 1] = 2.0 * (xy - wz)
    m[..., 0, 2] = 2.0 * (xz + wy)
    m[..., 1, 0] = 2.0 * (xy + wz)
    m[..., 1, 1] = 1.0 - 2.0 * (xx + zz)
    m[..., 1, 2] = 2.0 * (yz - wx)
    m[..., 2, 0] = 2.0 * (xz - wy)
    m[..., 2, 1] = 2.0 * (yz + wx)
    m[..., 2, 2] = 1.0 - 2.0 * (xx + yy)
    return m


def matrix_to_quat(m) -> np.ndarray:
    """Unit quaternions (..., 4) with w >= 0 from rotation matrices (..., 3, 3).

    Scale is removed first (columns normalised, as Blender's ``mat3_to_quat``
    does). Shepperd's method: of the four ways to recover the quaternion, use
    the one whose pivot (trace, or a diagonal term) is largest, so no division
    by a small number. Raises ValueError for NaN/inf, a zero column or a
    matrix that is not a rotation (det <= 0, a mirror).
    """
    arr = np.array(m, dtype=np.float64, copy=True)
    if arr.ndim < 2 or arr.shape[-2:] != (3, 3):
        raise ValueError(f"matrix_to_quat: expected matrices of shape (..., 3, 3), got {arr.shape}.")
    if not np.isfinite(arr).all():
        raise ValueError("matrix_to_quat: a matrix has a NaN or infinite entry.")
    cols = np.sqrt(np.einsum("...ij,...ij->...j", arr, arr))
    if (cols < quat.ZERO_NORM).any():
        raise ValueError("matrix_to_quat: a matrix has a zero column, so it is not a rotation.")
    arr = arr / cols[..., None, :]
    if (np.linalg.det(arr) <= 0.0).any():
        raise ValueError("matrix_to_quat: a matrix has a determinant <= 0 (a mirror), so it is not a rotation.")
    m00, m11, m22 = arr[..., 0, 0], arr[..., 1, 1], arr[..., 2, 2]
    trace = m00 + m11 + m22
    d21 = arr[..., 2, 1] - arr[..., 1, 2]
    d02 = arr[..., 0, 2] - arr[..., 2, 0]
    d10 = arr[..., 1, 0] - arr[..., 0, 1]
    s01 = arr[..., 0, 1] + arr[..., 1, 0]
    s02 = arr[..., 0, 2] + arr[..., 2, 0]
    s12 = arr[..., 1, 2] + arr[..., 2, 1]
    # Four ways to write 4*q_p*q for a pivot component p (w, x, y or z); use
    # the one with the largest pivot (trace, m00, m11, m22), which makes
    # 4*q_p^2 >= 1, so the result is never a small difference of large terms.
    candidates = (
        (1.0 + trace, d21, d02, d10),
        (d21, 1.0 + m00 - m11 - m22, s01, s02),
        (d02, s01, 1.0 - m00 + m11 - m22, s12),
        (d10, s02, s12, 1.0 - m00 - m11 + m22),
    )
    choice = np.argmax(np.stack((trace, m00, m11, m22), axis=-1), axis=-1)
    q = np.empty(arr.shape[:-2] + (4,), dtype=np.float64)
    for comp in range(4):
        q[..., comp] = np.choose(choice, [cand[comp] for cand in candidates])
    q = q / quat.norm(q)[..., None]
    return np.where(q[..., :1] < 0.0, -q, q)


# ---------------------------------------------------------------- Blender's channels


def _check_mode(mode: str) -> None:
    if not isinstance(mode, str) or mode not in ROTATION_MODES:
        raise ValueError(f"Rotation mode {mode!r} is not one of Blender's modes {', '.join(ROTATION_MODES)}.")


def mode_values_to_quat(values, mode: str) -> np.ndarray:
    """Unit quaternions (..., 4) from raw channel values as Blender stores them.

    'QUATERNION': (..., 4) ``rotation_quaternion``, not necessarily unit
    (normalised; ValueError on a zero quaternion). 'AXIS_ANGLE': (..., 4)
    ``rotation_axis_angle`` (angle, x, y, z). Euler orders: (..., 3)
    ``rotation_euler`` (x, y, z) radians.
    """
    _check_mode(mode)
    if mode == "QUATERNION":
        return quat.normalize(values, "rotation_quaternion")
    if mode == "AXIS_ANGLE":
        return axis_angle_to_quat(values)
    return euler_to_quat(values, mode)


def quat_to_mode_values_continuous(q, mode: str, reference=None, lock_tolerance=None) -> np.ndarray:
    """Channel values (n, 4) or (n, 3) to write back in ``mode``, continuous.

    'QUATERNION': unit quaternions, each in the hemisphere of the previous one,
    the first in the hemisphere of ``reference`` (4,) if given. 'AXIS_ANGLE':
    see ``quat_to_axis_angle_continuous``. Euler: see ``quat_to_euler_continuous``
    (``lock_tolerance`` is used by the Euler orders only).
    """
    _check_mode(mode)
    if mode == "AXIS_ANGLE":
        return quat_to_axis_angle_continuous(q, reference)
    if mode != "QUATERNION":
        return quat_to_euler_continuous(q, mode, reference, lock_tolerance)
    qa = _as_sequence(quat.normalize(q, "quat_to_mode_values_continuous"), "quat_to_mode_values_continuous")
    out = quat.make_continuous(qa, copy=False)      # qa is normalize's own new array
    if reference is not None:
        ref = quat.as_quat_array(reference, "quat_to_mode_values_continuous reference")
        if ref.shape != (4,):
            raise ValueError(f"quat_to_mode_values_continuous: reference must have shape (4,), got {ref.shape}.")
        if quat.dot(out[0], ref) < 0.0:
            out = -out
    return out


def quat_to_mode_values_continuous_many(q, mode: str, references=None, lock_tolerance=None) -> np.ndarray:
    """``quat_to_mode_values_continuous`` for b sequences at once: q (b, m, 4), references
    (b, 4) (Euler: (b, 3)) or None. 'QUATERNION' and the Euler orders run in whole-array
    steps (a rig's bones; runs of a bake's added samples); axis-angle one sequence at a
    time."""
    _check_mode(mode)
    q = np.asarray(q, dtype=np.float64)
    if mode in EULER_ORDERS and q.ndim == 3:
        return quat_to_euler_continuous(q, mode, references, lock_tolerance)
    if mode != "QUATERNION" or q.ndim != 3:
        return np.stack([quat_to_mode_values_continuous(
            seq, mode, None if references is None else references[k], lock_tolerance)
            for k, seq in enumerate(q)])
    out = quat.make_continuous(quat.normalize(q, "quat_to_mode_values_continuous"), axis=1,
                               copy=False)
    if references is not None:
        ref = np.asarray(references, dtype=np.float64)
        if ref.shape != (q.shape[0], 4):
            raise ValueError(f"quat_to_mode_values_continuous_many: references must have "
                             f"shape ({q.shape[0]}, 4), got {ref.shape}.")
        out[np.einsum("bi,bi->b", out[:, 0], ref) < 0.0] *= -1.0
    return out
