# SPDX-License-Identifier: GPL-3.0-or-later
"""Evaluate Blender F-curves from their keyframe arrays, many frames at once.

This reproduces what Blender's ``fcurve_eval_keyframes`` does for the three
basic interpolations (CONSTANT, LINEAR, BEZIER) with CONSTANT or LINEAR
extrapolation, so the report can read a whole F-curve with a few numpy
operations instead of one ``fc.evaluate(frame)`` call (or one
``scene.frame_set``) per frame.

Anything else - the easing interpolations (SINE ... ELASTIC), F-modifiers,
cycles, baked sample points, handles on the wrong side of their key - is
refused by :func:`unsupported_reason`; the caller then uses ``fc.evaluate``.

Blender stores keys as float32 and evaluates in float32 (the x solve in
double); this module computes in float64 from the same float32 numbers, so the
two agree to float32 precision (about 1e-7 relative), not bit for bit.
"""
from __future__ import annotations

import numpy as np

# DNA values of BezTriple.ipo (Keyframe.interpolation's enum values). They are
# stable across Blender versions: CONSTANT 0, LINEAR 1, BEZIER 2.
CONSTANT = 0
LINEAR = 1
BEZIER = 2
SUPPORTED_INTERPOLATIONS = (CONSTANT, LINEAR, BEZIER)
EXTRAPOLATIONS = ("CONSTANT", "LINEAR")

# Newton iterations on x(t) = frame stop when every sample is within this many
# frames of its target; 1e-12 frames is far below float32 key storage (~1e-7).
_X_TOLERANCE = 1e-12
_MAX_ITERATIONS = 60

# C's FLT_EPSILON, the tolerance of Blender's flat-segment shortcut.
_FLT_EPSILON = float(np.finfo(np.float32).eps)


def _as_keys(co, handle_left, handle_right, interpolation):
    co = np.asarray(co, dtype=np.float64).reshape(-1, 2)
    hl = np.asarray(handle_left, dtype=np.float64).reshape(-1, 2)
    hr = np.asarray(handle_right, dtype=np.float64).reshape(-1, 2)
    ipo = np.asarray(interpolation, dtype=np.int64).reshape(-1)
    if not (len(co) == len(hl) == len(hr) == len(ipo)):
        raise ValueError(
            "F-curve arrays disagree in length: "
            f"co {len(co)}, handle_left {len(hl)}, handle_right {len(hr)}, interpolation {len(ipo)}."
        )
    return co, hl, hr, ipo


def unsupported_reason(co, handle_left, handle_right, interpolation,
                       extrapolation: str = "CONSTANT") -> str | None:
    """Why :func:`evaluate` cannot reproduce this F-curve, or None if it can.

    co, handle_left, handle_right: (n, 2) (frame, value); interpolation: (n,)
    Blender enum values. The caller must also refuse curves with F-modifiers.
    """
    co, hl, hr, ipo = _as_keys(co, handle_left, handle_right, interpolation)
    if len(co) == 0:
        return "it has no keyframes"
    if extrapolation not in EXTRAPOLATIONS:
        return f"extrapolation {extrapolation!r} is not CONSTANT or LINEAR"
    if not (np.isfinite(co).all() and np.isfinite(hl).all() and np.isfinite(hr).all()):
        return "a key or handle is not finite"
    if np.any(np.diff(co[:, 0]) < 0.0):
        return "its keys are not sorted by frame"
    # Only the segments' left keys decide the interpolation; the last key's
    # own interpolation matters only for extrapolation (handled below).
    if not np.isin(ipo[:-1], SUPPORTED_INTERPOLATIONS).all():
        return "a key uses an easing interpolation (SINE ... ELASTIC)"
    bez = np.flatnonzero(ipo[:-1] == BEZIER)
    # A handle on the wrong side of its key can make x(t) turn back; Blender
    # then takes whichever cubic root it finds first. Leave that to fc.evaluate.
    if np.any(hr[bez, 0] < co[bez, 0]) or np.any(hl[bez + 1, 0] > co[bez + 1, 0]):
        return "a Bezier handle points backwards in time"
    return None


def _bezier_controls(co, hl, hr, seg):
    """Control points (x0..x3, y0..y3) of segments ``seg``, corrected as Blender does.

    BKE_fcurve_correct_bezpart: a handle longer (in frames) than the segment is
    shortened along its own direction to the segment's length, which keeps
    x(t) monotonic (with both handles on their correct sides).
    """
    v1 = co[seg]
    v2 = hr[seg].copy()
    v3 = hl[seg + 1].copy()
    v4 = co[seg + 1]
    length = v4[:, 0] - v1[:, 0]
    h1 = v1 - v2
    h2 = v4 - v3
    len1 = np.abs(h1[:, 0])
    len2 = np.abs(h2[:, 0])
    long1 = len1 > length
    long2 = len2 > length
    fac1 = np.where(long1, length / np.where(long1, len1, 1.0), 1.0)
    fac2 = np.where(long2, length / np.where(long2, len2, 1.0), 1.0)
    v2 = np.where(long1[:, None], v1 - fac1[:, None] * h1, v2)
    v3 = np.where(long2[:, None], v4 - fac2[:, None] * h2, v3)
    return v1, v2, v3, v4


def _solve_monotonic_cubic(x0, x1, x2, x3, x):
    """t in [0, 1] with B(t) = x for monotonic cubic Beziers, all samples at once.

    Safeguarded Newton: a bracket [lo, hi] shrinks every step and a Newton step
    that leaves it is replaced by bisection, so it converges even where
    x'(t) = 0 (both handles at full length meet in the middle).
    """
    # Power-basis coefficients of x(t) - x.
    c3 = x3 - x0 + 3.0 * (x1 - x2)
    c2 = 3.0 * (x0 - 2.0 * x1 + x2)
    c1 = 3.0 * (x1 - x0)
    c0 = x0 - x
    span = x3 - x0
    t = np.clip(np.divide(x - x0, span, out=np.zeros_like(x), where=span > 0), 0.0, 1.0)
    lo = np.zeros_like(t)
    hi = np.ones_like(t)
    for _ in range(_MAX_ITERATIONS):
        f = ((c3 * t + c2) * t + c1) * t + c0
        if np.all(np.abs(f) <= _X_TOLERANCE * np.maximum(1.0, np.abs(x))):
            break
        below = f < 0.0
        lo = np.where(below, t, lo)
        hi = np.where(below, hi, t)
        df = (3.0 * c3 * t + 2.0 * c2) * t + c1
        ok = df > 0.0
        step = np.where(ok, t - f / np.where(ok, df, 1.0), 0.5 * (lo + hi))
        bad = ~ok | (step <= lo) | (step >= hi)
        t = np.where(bad, 0.5 * (lo + hi), step)
    return t


def evaluate(co, handle_left, handle_right, interpolation, frames,
             extrapolation: str = "CONSTANT") -> np.ndarray:
    """Values of one F-curve at ``frames``, as Blender evaluates it.

    co, handle_left, handle_right: (n, 2) arrays of (frame, value) per key
    (Blender's Keyframe.co / handle_left / handle_right); interpolation: (n,)
    Keyframe.interpolation enum values; frames: (m,) frames (any floats);
    extrapolation: FCurve.extrapolation. Returns (m,) float64.

    Raises ValueError when :func:`unsupported_reason` finds a reason.
    """
    reason = unsupported_reason(co, handle_left, handle_right, interpolation, extrapolation)
    if reason is not None:
        raise ValueError(f"F-curve cannot be evaluated with numpy: {reason}.")
    co, hl, hr, ipo = _as_keys(co, handle_left, handle_right, interpolation)
    frames = np.asarray(frames, dtype=np.float64).reshape(-1)
    kx = co[:, 0]
    ky = co[:, 1]
    n = len(co)
    out = np.empty_like(frames)

    before = frames <= kx[0]
    after = frames >= kx[-1]
    inside = ~(before | after)

    # Extrapolation (fcurve_eval_keyframes_extrapolate).
    for mask, end, neighbour, handle in ((before, 0, 1, hl), (after, n - 1, n - 2, hr)):
        if not mask.any():
            continue
        value = ky[end]
        if extrapolation == "CONSTANT" or ipo[end] == CONSTANT or n == 1 and ipo[end] == LINEAR:
            out[mask] = value
            continue
        if ipo[end] == LINEAR:
            # Linear keys extrapolate along the line to their neighbour key.
            dx = kx[neighbour] - kx[end]
            slope = (ky[neighbour] - value) / dx if dx != 0.0 else 0.0
        else:
            # Bezier (and easing) ends extrapolate along their outer handle.
            dx = kx[end] - handle[end, 0]
            slope = (value - handle[end, 1]) / dx if dx != 0.0 else 0.0
        out[mask] = value + slope * (frames[mask] - kx[end])

    if inside.any():
        f = frames[inside]
        # Segment whose left key is the last key at or before the frame: at a
        # key's exact frame that key starts the segment, so t = 0 gives its value.
        seg = np.clip(np.searchsorted(kx, f, side="right") - 1, 0, n - 2)
        values = np.empty_like(f)
        seg_ipo = ipo[seg]

        m = seg_ipo == CONSTANT
        values[m] = ky[seg[m]]

        m = seg_ipo == LINEAR
        if m.any():
            s = seg[m]
            dx = kx[s + 1] - kx[s]
            fac = np.divide(f[m] - kx[s], dx, out=np.zeros_like(dx), where=dx != 0.0)
            values[m] = ky[s] + (ky[s + 1] - ky[s]) * fac

        m = seg_ipo == BEZIER
        if m.any():
            s = seg[m]
            v1, v2, v3, v4 = _bezier_controls(co, hl, hr, s)
            t = _solve_monotonic_cubic(v1[:, 0], v2[:, 0], v3[:, 0], v4[:, 0], f[m])
            u = 1.0 - t
            y = (u * u * u * v1[:, 1] + 3.0 * u * u * t * v2[:, 1]
                 + 3.0 * u * t * t * v3[:, 1] + t * t * t * v4[:, 1])
            # Blender returns the first key's value when all four control values
            # agree within FLT_EPSILON (T40372): a flat segment stays exactly
            # flat instead of wobbling by float rounding.
            flat = ((np.abs(v1[:, 1] - v4[:, 1]) < _FLT_EPSILON)
                    & (np.abs(v2[:, 1] - v3[:, 1]) < _FLT_EPSILON)
                    & (np.abs(v3[:, 1] - v4[:, 1]) < _FLT_EPSILON))
            values[m] = np.where(flat, v1[:, 1], y)
        out[inside] = values
    return out
