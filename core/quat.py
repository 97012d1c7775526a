# SPDX-License-Identifier: GPL-3.0-or-later
"""Quaternion array operations, float64, Blender's component order (w, x, y, z).

Every function takes arrays of shape (..., 4), broadcasts over the leading axes,
never mutates its inputs and never returns NaN silently: bad input raises
ValueError with a sentence that names the offending key.
"""
from __future__ import annotations

import numpy as np

# Below this norm a quaternion carries no usable direction: dividing by it would
# amplify float64 rounding (~1e-16) past 1e-6, so it is refused, not normalised.
ZERO_NORM = 1e-12
# Squared norms that quat.normalize measures without scaling: far from float64's
# overflow (1e308) and underflow (1e-308), and above ZERO_NORM squared (1e-24).
_SAFE_SQUARED = (1e-20, 1e200)

# Below this rotation angle (radians) the log/exp series replace sin(a)/a, whose
# division would lose all digits; 1e-8 keeps the series error under 1e-17.
SMALL_ANGLE = 1e-8


def _key_label(index: tuple[int, ...] | int) -> str:
    if isinstance(index, tuple):
        index = index[0] if len(index) == 1 else index
    return f"key {index}"


def as_quat_array(q, what: str = "quaternion") -> np.ndarray:
    """Return ``q`` as a new float64 array of shape (..., 4), checked finite.

    Raises ValueError naming the first key with NaN or infinite components.
    """
    arr = np.array(q, dtype=np.float64, copy=True)
    if arr.ndim == 0 or arr.shape[-1] != 4:
        raise ValueError(
            f"{what}: expected quaternions of shape (..., 4) in (w, x, y, z) order, got shape {arr.shape}."
        )
    # One whole-array test first: a per-quaternion reduction over an axis of 4 costs
    # 20x more, and is only needed to name the broken key.
    if np.isfinite(arr).all():
        return arr
    bad = ~np.isfinite(arr).all(axis=-1)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{what}: {_key_label(index)} has a NaN or infinite component {arr[index].tolist()}."
        )
    return arr


def norm(q) -> np.ndarray:
    """Euclidean norm over the last axis, shape (...)."""
    return np.sqrt(np.einsum("...i,...i->...", q, q))


def _plain(squared: np.ndarray) -> bool:
    """Whether ``normalize`` measures quaternions of these squared norms as they are."""
    return bool(((squared > _SAFE_SQUARED[0]) & (squared < _SAFE_SQUARED[1])).all())


def normalized_alike(q) -> bool:
    """Whether ``normalize`` takes ``q`` (..., 4) by its plain measurement, every squared
    norm well inside float64's range: arrays that all are give the same bits normalised
    together as apart (a stack holding one that is not is measured scaled, all of it)."""
    arr = np.asarray(q, dtype=np.float64)
    return _plain(np.einsum("...i,...i->...", arr, arr))


def normalize(q, what: str = "quaternion") -> np.ndarray:
    """Unit quaternions, shape (..., 4).

    Raises ValueError for zero (norm < ZERO_NORM), NaN or infinite input, naming
    the key index, because a zero quaternion is no rotation at all and silently
    turning it into identity would hide a broken key.
    """
    arr = as_quat_array(q, what)
    # Where every squared norm is well inside float64's range (every quaternion a
    # bake or a report meets), the norm is measured as it is: three passes fewer
    # than the scaled measurement below, 15 -> 6 ms for 800,000 quaternions.
    squared = np.einsum("...i,...i->...", arr, arr)
    if _plain(squared):
        arr /= np.sqrt(squared)[..., None]
        return arr
    # Squaring overflows to inf past a norm of ~1e154 (a key of norm 1e300
    # would come out as the zero quaternion): measure each quaternion scaled
    # by its largest component, which is exact in float64 (a power-free divide).
    peak = abs_max(arr)
    # In place on our own copy: a rig's 60,000 quaternions would otherwise cost two
    # more fresh arrays, whose first touch (page faults) outweighs the arithmetic.
    scaled = np.divide(arr, np.where(peak > 0.0, peak, 1.0)[..., None], out=arr)
    scaled_lengths = norm(scaled)
    lengths = scaled_lengths * peak
    zero = lengths < ZERO_NORM
    if zero.any():
        index = tuple(int(i) for i in np.argwhere(zero)[0]) if arr.ndim > 1 else ()
        label = _key_label(index) if index else "the quaternion"
        raise ValueError(
            f"{what}: {label} has norm {float(lengths[index] if index else lengths):.3g}, "
            "too close to zero to be a rotation."
        )
    scaled /= scaled_lengths[..., None]
    return scaled


def dot(a, b) -> np.ndarray:
    """4D dot product over the last axis, shape (...)."""
    return np.einsum("...i,...i->...", a, b)


def multiply(a, b) -> np.ndarray:
    """Hamilton product a*b (apply b, then a), shape broadcast(...) + (4,)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    # Written into one array (not np.stack of four): the same arithmetic, a third of
    # the overhead for the many (n, 4) products of a report.
    out = np.empty(np.broadcast_shapes(a.shape, b.shape), dtype=np.float64)
    for rows in _blocks(a, b, out):
        _product(*rows)
    return out


def _product(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    aw, ax, ay, az = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bw, bx, by, bz = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    out[..., 0] = aw * bw - ax * bx - ay * by - az * bz
    out[..., 1] = aw * bx + ax * bw + ay * bz - az * by
    out[..., 2] = aw * by - ax * bz + ay * bw + az * bx
    out[..., 3] = aw * bz + ax * by - ay * bx + az * bw


# Quaternions per block of the element-wise kernels (multiply, angle_between): each of
# their dozen temporaries is then 64 KB and stays in the CPU's cache. Over a group's
# 200,000 quaternions at once every temporary went out to memory and back: 2.5x slower
# (11 ms against 4.4 ms per product, measured on this project's 2-core machine). The
# same arithmetic per element, so the same bits.
BLOCK = 8192


def _blocks(*arrays):
    """The same runs of at most BLOCK quaternions of each of ``arrays`` (inputs (..., 4),
    then an output (..., 4) or (...)), as views; the arrays whole where the inputs'
    leading shapes differ from each other or from the output's (broadcasting: small, or
    rare), since cutting one axis of each would cut different axes."""
    *inputs, out = arrays
    lead = inputs[0].shape[:-1]
    if (any(x.shape[:-1] != lead for x in inputs) or out.shape[:len(lead)] != lead
            or out.ndim > len(lead) + 1):
        return [arrays]
    return [tuple(x[run] for x in arrays) for run in _runs(lead)]


def _runs(lead: tuple) -> list:
    """Index tuples cutting leading axes ``lead`` into runs of at most BLOCK: whole rows
    together where rows are short (a rig's (bones, frames)), a long row in pieces."""
    size = int(np.prod(lead, dtype=np.int64))
    if size <= BLOCK:
        return [(Ellipsis,)]
    row = size // lead[0]
    if row <= BLOCK:
        step = BLOCK // row
        return [(slice(start, start + step),) for start in range(0, lead[0], step)]
    return [(i,) + run for i in range(lead[0]) for run in _runs(lead[1:])]


def conjugate(q) -> np.ndarray:
    """(w, -x, -y, -z); the inverse of a unit quaternion."""
    out = np.array(q, dtype=np.float64, copy=True)
    out[..., 1:] *= -1.0
    return out


def inverse(q) -> np.ndarray:
    """Multiplicative inverse conj(q)/|q|^2 (raises on zero quaternions, naming the key)."""
    arr = as_quat_array(q, "inverse")
    # conj(q)/|q|^2 = conj(q/|q|)/|q|: |q|^2 overflowed past |q| ~ 1e154 and
    # returned the zero quaternion; normalize measures |q| without squaring it.
    unit = normalize(arr, "inverse")
    peak = abs_max(arr)
    length = norm(arr / peak[..., None]) * peak
    return conjugate(unit) / length[..., None]


def log(q) -> np.ndarray:
    """Logarithm of unit quaternions: (0, axis * half_angle), shape (..., 4).

    Uses atan2(|v|, w) so the angle is accurate at 0 and at pi (arccos(w) loses
    half its digits there).
    """
    q = np.asarray(q, dtype=np.float64)
    v = q[..., 1:]
    vn = norm(v)
    half = np.arctan2(vn, q[..., 0])
    w = q[..., 0]
    # Near identity half/|v| -> 1/w (series of atan2), which needs no division by
    # |v|. Near -identity (w < 0, |v| -> 0) the axis is undefined; callers apply
    # hemisphere continuity first, and for exactly v = 0 we return the zero vector
    # (-1 is the identity rotation). The masks keep every division finite.
    series = (vn < SMALL_ANGLE) & (w > 0.0)
    scale = np.where(
        series,
        1.0 / np.where(series, w, 1.0),
        np.where(vn > 0.0, half / np.where(vn > 0.0, vn, 1.0), 0.0),
    )
    out = np.zeros(q.shape, dtype=np.float64)
    out[..., 1:] = v * scale[..., None]
    return out


def rotation_vector(q) -> np.ndarray:
    """Rotation vectors (..., 3), angle in [0, pi], of unit quaternions of either sign:
    2 log of the one with w >= 0 (the short way), made without negating a copy of ``q``
    or building log's (..., 4): the values of ``2.0 * log(where(w < 0, -q, q))[..., 1:]``
    (a sign and a factor of 2 are exact in floating point), in a third of the time (a
    baked rig's 60,000 steps, 13 -> 3.5-4.9 ms). Not where a component of the vector part
    is subnormal (the factor 2 is taken before the product, which then rounds once) or
    NaN (all three come out NaN): ``normalize``, whose output the callers take, lets
    neither through."""
    q = np.asarray(q, dtype=np.float64)
    v = q[..., 1:]
    vn = norm(v)
    w = q[..., 0]
    aw = np.abs(w)
    half = np.arctan2(vn, aw)
    # log's scale of the w >= 0 quaternion, half / |v|, and near the identity its series
    # 1 / |w| (0 where w and v are both 0), mended where |v| is that small: few or none.
    scale = np.empty(np.shape(vn))
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(half, vn, out=scale)
    near = vn < SMALL_ANGLE
    if near.any():
        aw_n, vn_n, half_n = aw[near], vn[near], half[near]
        series = aw_n > 0.0
        scale[near] = np.where(series, 1.0 / np.where(series, aw_n, 1.0),
                               np.where(vn_n > 0.0, half_n / np.where(vn_n > 0.0, vn_n, 1.0),
                                        0.0))
    # Times 2 and the sign that took it to w >= 0.
    np.negative(scale, out=scale, where=w < 0.0)
    scale *= 2.0
    return v * scale[..., None]


def exp(v) -> np.ndarray:
    """Exponential of pure quaternions (0, u) or 3-vectors u: (cos|u|, sin|u| u/|u|)."""
    v = np.asarray(v, dtype=np.float64)
    u = v[..., 1:] if v.shape[-1] == 4 else v
    a = norm(u)
    small = a < SMALL_ANGLE
    # sin(a)/a = 1 - a^2/6 + O(a^4): exact to float64 below SMALL_ANGLE.
    sinc = np.where(small, 1.0 - a * a / 6.0, np.sin(a) / np.where(small, 1.0, a))
    out = np.empty(u.shape[:-1] + (4,), dtype=np.float64)
    out[..., 0] = np.cos(a)
    out[..., 1:] = u * sinc[..., None]
    return out


def abs_max(q: np.ndarray) -> np.ndarray:
    """Largest absolute component over the last axis, shape (...).

    Pairwise maxima of the columns: the same values as np.abs(q).max(axis=-1)
    (max is exact), ~10x faster, since numpy reduces a short last axis row by row.
    """
    q = np.asarray(q)
    if q.shape[-1] == 0:
        return np.abs(q).max(axis=-1)
    out = np.array(np.abs(q[..., 0]))   # 0-d for one quaternion: still an array
    for column in range(1, q.shape[-1]):
        np.maximum(out, np.abs(q[..., column]), out=out)
    return out


def _peak(q: np.ndarray) -> np.ndarray:
    """Largest absolute component, shape (..., 1); 1 where q is all zero."""
    peak = abs_max(q)[..., None]
    return np.where(peak > 0.0, peak, 1.0)


def angle_between(a, b) -> np.ndarray:
    """Geodesic rotation angle in radians, in [0, pi], between rotations a and b.

    Sign-agnostic (q and -q are the same rotation): 2*atan2(|v|, |w|) of the
    relative rotation conj(a)*b, accurate near 0 and near pi. Inputs need not be
    unit length: atan2 of a uniformly scaled pair gives the same angle, for any
    finite non-zero norms.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    angle = np.empty(np.broadcast_shapes(a.shape, b.shape)[:-1], dtype=np.float64)
    for rows in _blocks(a, b, angle):
        _angle_into(*rows)
    return angle[()] if angle.ndim == 0 else angle   # a lone pair: a scalar, as numpy gives


# largest_angle_between: relative rotations whose |w| / norms (the half angle's cosine)
# are this far from the smallest or farther have surely smaller angles (1e-12 of the
# cosine is 2e-12 rad of the angle or more, the rounding of both forms 1e-15 at most).
_COS_BAND = 1e-12


def largest_angle_between(a, b) -> float:
    """float(angle_between(a, b).max()) of rotations (n, 4), to the bit, with the
    angle's arctangent taken only at the pairs whose half angle's cosine is within
    _COS_BAND of the smallest (each pair's angle is its own, whichever others come with
    it): a bake's measurement of its written keys against the playback before asks only
    for the largest, at every frame of every transform."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2 or not a.shape[0]:
        return float(angle_between(a, b).max())
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        w = np.abs(np.einsum("ij,ij->i", a, b))
        na, nb = np.einsum("ij,ij->i", a, a), np.einsum("ij,ij->i", b, b)
        norms = na * nb
        # Norms whose products overflow or lose their digits to subnormals (past ~1e77 or
        # under ~1e-77, where angle_between rescales) order no cosines: every pair measured
        # (a 1e160 quaternion's cosine came out 0, and that pair alone was measured).
        fit = ((na > _TINY_PARTS) & (nb > _TINY_PARTS) & (norms > _TINY_PARTS)
               & (norms < 1.0 / _TINY_PARTS)).all()
        w /= np.sqrt(norms)
    if not (fit and np.isfinite(w).all()):
        return float(angle_between(a, b).max())
    near = np.flatnonzero(w <= w.min() + _COS_BAND)
    return float(angle_between(a[near], b[near]).max())


def step_angles(q) -> np.ndarray:
    """Angle (radians) from each rotation of a sequence (n, 4) to the next, as (n,):
    the first is 0, so entry i is the turn that arrives at sample i."""
    q = np.asarray(q, dtype=np.float64)
    out = np.zeros(q.shape[0], dtype=np.float64)
    if q.shape[0] > 1:
        out[1:] = angle_between(q[:-1], q[1:])
    return out


def _angle_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        w, v2 = _relative_parts(a, b)
        out[...] = 2.0 * np.arctan2(np.sqrt(v2), np.abs(w))
        # The parts' terms are products of the two norms, squared in v2: past norms of
        # ~1e77 they overflow (the angle came out pi), under ~1e-77 they lose their
        # digits to subnormals (it came out 0). Those few pairs are measured again
        # scaled by their largest components (every component then in [-1, 1]); the
        # rest, every rotation QuatBake makes or reads, need no scaling pass.
        redo = ~(np.isfinite(v2) & np.isfinite(w) & (w * w + v2 > _TINY_PARTS))
    if np.any(redo):
        a, b = np.broadcast_arrays(a, b)
        a, b = a[redo], b[redo]
        w, v2 = _relative_parts(a / _peak(a), b / _peak(b))
        out[redo] = 2.0 * np.arctan2(np.sqrt(v2), np.abs(w))


# w^2 + |v|^2 of conj(a)*b is (|a| |b|)^2: below this the products lost digits.
_TINY_PARTS = 1e-280


def _relative_parts(a: np.ndarray, b: np.ndarray) -> tuple:
    """(w, |v|^2) of conj(a)*b, written out: no conjugate copy and no (..., 4) product
    array (a rig's report measures a few million of these angles)."""
    aw, ax, ay, az = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bw, bx, by, bz = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    w = aw * bw + ax * bx + ay * by + az * bz
    x = aw * bx - ax * bw - (ay * bz - az * by)
    y = aw * by - ay * bw - (az * bx - ax * bz)
    z = aw * bz - az * bw - (ax * by - ay * bx)
    return w, x * x + y * y + z * z


def make_continuous(q, axis: int = 0, copy: bool = True) -> np.ndarray:
    """Hemisphere continuity (shortest arc) of key sequences (..., 4).

    The sequence runs along ``axis`` of the leading dimensions (the ``...``):
    0 by default, so an (n, 4) array is one sequence of n keys and an
    (n, m, 4) array is m sequences of n keys; ``axis=1`` (or -1) reads the same
    array as n sequences of m keys, as numpy-quaternion's ``unflip_rotors``
    does by default. Returns a copy (``copy=False``: q itself, changed, where it
    is a float64 array) where each key's sign is chosen so that its dot product
    with the previous (already corrected) key of its sequence is >= 0; only signs
    change. Vectorised: a key is flipped when an odd number of
    sign changes precede it in its sequence.
    """
    # copy=False: in place where q is a float64 array already (a caller's own fresh
    # one: a bake's 800,000 quaternions copied once more cost 3-5 ms).
    arr = np.array(q, dtype=np.float64) if copy else np.asarray(q, dtype=np.float64)
    # A lone quaternion (shape (4,)) is trivially continuous; without the ndim
    # check its four components were taken for four keys (IndexError).
    if arr.ndim < 2:
        return arr
    lead = arr.ndim - 1
    if not -lead <= axis < lead:
        raise ValueError(f"make_continuous: axis {axis} is outside the key array's "
                         f"{lead} sequence dimension(s) (shape {arr.shape}).")
    seq = np.moveaxis(arr, axis % lead, 0)   # a view: writing it writes arr
    if seq.shape[0] < 2:
        return arr
    negative = dot(seq[1:], seq[:-1]) < 0.0
    # The cumulative count runs along the sequence only (issue 10: without
    # axis=0 a batch was flattened and the mask no longer fitted).
    flips = np.cumsum(negative, axis=0) % 2 == 1
    # Only the flipped keys are written (negated, as a product by -1 is, to the bit): a
    # bake's smooth path flips few or none, and the product by +-1 of every key of 100
    # rotations x 8,000 quarter frames was a pass over all of them.
    if flips.any():
        rest = seq[1:]
        rest[flips] = -rest[flips]
    return arr


def rotate_vectors(q, v) -> np.ndarray:
    """Rotate 3-vectors v (..., 3) by unit quaternions q (..., 4)."""
    q = np.asarray(q, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    w = q[..., :1]
    u = q[..., 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)
