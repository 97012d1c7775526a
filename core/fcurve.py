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
    # Whole-array reductions, a handful per curve: a rig's bake checks hundreds of
    # curves. A NaN or inf anywhere makes a sum non-finite (and a sum that overflows
    # only sends a finite curve to fc.evaluate, which is slower, never wrong).
    if not np.isfinite(co.sum() + hl.sum() + hr.sum()):
        return "a key or handle is not finite"
    if len(co) > 1 and (co[1:, 0] < co[:-1, 0]).any():
        return "its keys are not sorted by frame"
    # Only the segments' left keys decide the interpolation; the last key's
    # own interpolation matters only for extrapolation (handled below).
    # SUPPORTED_INTERPOLATIONS are the values 0..2 (CONSTANT, LINEAR, BEZIER).
    left = ipo[:-1]
    if left.size and (left.min() < CONSTANT or left.max() > BEZIER):
        return "a key uses an easing interpolation (SINE ... ELASTIC)"
    bez = left == BEZIER
    # A handle on the wrong side of its key can make x(t) turn back; Blender
    # then takes whichever cubic root it finds first. Leave that to fc.evaluate.
    if ((hr[:-1, 0] < co[:-1, 0]) & bez).any() or ((hl[1:, 0] > co[1:, 0]) & bez).any():
        return "a Bezier handle points backwards in time"
    return None


def supported_many(curves) -> np.ndarray:
    """(k,) bool: ``unsupported_reason(*curve) is None`` for each of ``curves`` (tuples
    as for :func:`evaluate_many`), the same checks done on every curve with the same
    number of keys at once (a rig's hundreds of channels: a few array operations per
    key count instead of a dozen per curve)."""
    out = np.zeros(len(curves), dtype=bool)
    by_count: dict[int, list[int]] = {}
    for i, (co, _hl, _hr, _ipo, extrapolation) in enumerate(curves):
        n = len(co)
        if n and extrapolation in EXTRAPOLATIONS:
            by_count.setdefault(n, []).append(i)
    for n, members in by_count.items():
        co = np.stack([np.asarray(curves[i][0], dtype=np.float64).reshape(n, 2) for i in members])
        hl = np.stack([np.asarray(curves[i][1], dtype=np.float64).reshape(n, 2) for i in members])
        hr = np.stack([np.asarray(curves[i][2], dtype=np.float64).reshape(n, 2) for i in members])
        ipo = np.stack([np.asarray(curves[i][3], dtype=np.int64).reshape(n) for i in members])
        ok = np.isfinite(co.sum(axis=(1, 2)) + hl.sum(axis=(1, 2)) + hr.sum(axis=(1, 2)))
        ok &= ~(co[:, 1:, 0] < co[:, :-1, 0]).any(axis=1)
        left = ipo[:, :-1]
        ok &= ~((left < CONSTANT) | (left > BEZIER)).any(axis=1)
        bez = left == BEZIER
        backwards = ((hr[:, :-1, 0] < co[:, :-1, 0]) | (hl[:, 1:, 0] > co[:, 1:, 0])) & bez
        ok &= ~backwards.any(axis=1)
        out[members] = ok
    return out


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

    Safeguarded Newton from the linear guess: a bracket [lo, hi] shrinks every
    step and a Newton step that leaves it is replaced by bisection, so it
    converges even where x'(t) = 0 (both handles at full length meet in the
    middle). Only the samples not yet converged are iterated on; most need
    two or three steps.
    """
    # Power-basis coefficients of x(t) - x.
    c3 = x3 - x0 + 3.0 * (x1 - x2)
    c2 = 3.0 * (x0 - 2.0 * x1 + x2)
    c1 = 3.0 * (x1 - x0)
    c0 = x0 - x
    span = x3 - x0
    t = np.clip(np.divide(x - x0, span, out=np.zeros_like(x), where=span > 0), 0.0, 1.0)
    tol = _X_TOLERANCE * np.maximum(1.0, np.abs(x))
    active = np.arange(t.size)
    lo = np.zeros_like(t)
    hi = np.ones_like(t)
    for _ in range(_MAX_ITERATIONS):
        ta = t[active]
        a3, a2, a1 = c3[active], c2[active], c1[active]
        f = ((a3 * ta + a2) * ta + a1) * ta + c0[active]
        todo = np.abs(f) > tol[active]
        if not todo.any():
            break
        active, ta, f = active[todo], ta[todo], f[todo]
        a3, a2, a1 = a3[todo], a2[todo], a1[todo]
        below = f < 0.0
        la = np.where(below, ta, lo[active])
        ha = np.where(below, hi[active], ta)
        df = (3.0 * a3 * ta + 2.0 * a2) * ta + a1
        ok = df > 0.0
        step = np.where(ok, ta - f / np.where(ok, df, 1.0), 0.5 * (la + ha))
        # A step onto the bracket's edge is fine (that edge may be the root);
        # only a step outside it falls back to bisection.
        outside = ~ok | (step < la) | (step > ha)
        t[active] = np.where(outside, 0.5 * (la + ha), step)
        lo[active] = la
        hi[active] = ha
    return t


def evaluate(co, handle_left, handle_right, interpolation, frames,
             extrapolation: str = "CONSTANT", check: bool = True) -> np.ndarray:
    """Values of one F-curve at ``frames``, as Blender evaluates it.

    co, handle_left, handle_right: (n, 2) arrays of (frame, value) per key
    (Blender's Keyframe.co / handle_left / handle_right); interpolation: (n,)
    Keyframe.interpolation enum values; frames: (m,) frames (any floats);
    extrapolation: FCurve.extrapolation. Returns (m,) float64.

    Raises ValueError when :func:`unsupported_reason` finds a reason;
    ``check=False`` skips that test for a caller that has just made it.
    """
    curve = (co, handle_left, handle_right, interpolation, extrapolation)
    return evaluate_many([curve], frames, check)[:, 0]


def evaluate_many(curves, frames, check: bool = True) -> np.ndarray:
    """Values of several F-curves at the same ``frames``: (m, k) float64.

    ``curves``: k tuples (co, handle_left, handle_right, interpolation,
    extrapolation) as for :func:`evaluate`. Curves whose keys and handles sit
    on the same frames (the channels of one rotation, keyed together, with
    automatic handles) share one solve of x(t) = frame, the costly part.
    """
    frames = np.asarray(frames, dtype=np.float64).reshape(-1)
    out = np.empty((frames.size, len(curves)), dtype=np.float64)
    timings: dict[bytes, tuple] = {}
    groups: dict[bytes, list] = {}
    for column, (co, hl, hr, ipo, extrapolation) in enumerate(curves):
        if check:
            reason = unsupported_reason(co, hl, hr, ipo, extrapolation)
            if reason is not None:
                raise ValueError(f"F-curve cannot be evaluated with numpy: {reason}.")
        co, hl, hr, ipo = _as_keys(co, hl, hr, ipo)
        if extrapolation == "CONSTANT" and len(co) > 1:
            # Same key and handle frames: the same x(t), and (below) one array
            # operation per step for all of them instead of one per curve.
            key = b"".join(a.tobytes() for a in (co[:, 0], hl[:, 0], hr[:, 0], ipo))
            groups.setdefault(key, []).append((column, co, hl, hr, ipo))
            continue
        out[:, column] = _evaluate_one(co, hl, hr, ipo, extrapolation, frames, timings)
    for members in groups.values():
        if len(members) == 1:
            column, co, hl, hr, ipo = members[0]
            out[:, column] = _evaluate_one(co, hl, hr, ipo, "CONSTANT", frames, timings)
        else:
            _evaluate_group(members, frames, timings, out)
    return out


def _evaluate_group(members, frames, timings, out) -> None:
    """``_evaluate_one`` for curves with CONSTANT extrapolation whose keys and handles sit
    on the same frames (a rig's rotation channels keyed together), all at once: the
    handle-length correction depends on frames only, so it is shared too."""
    columns = [m[0] for m in members]
    _, co, hl, hr, ipo = members[0]
    ky = np.stack([m[1][:, 1] for m in members])            # (k, n) key values
    bez_segs = np.flatnonzero(ipo[:-1] == BEZIER)
    controls = (*_bezier_controls(co, hl, hr, bez_segs), bez_segs)
    before, after, inside, f, seg, seg_ipo, bez, row, t = _timing(co, ipo, controls, frames,
                                                                  timings)
    values = np.empty((len(members), frames.size))
    values[:, before] = ky[:, :1]
    values[:, after] = ky[:, -1:]
    if inside.size:
        inner = np.empty((len(members), f.size))
        m = seg_ipo == CONSTANT
        if m.any():
            inner[:, m] = ky[:, seg[m]]
        m = seg_ipo == LINEAR
        if m.any():
            s = seg[m]
            dx = co[s + 1, 0] - co[s, 0]
            fac = np.divide(f[m] - co[s, 0], dx, out=np.zeros_like(dx), where=dx != 0.0)
            inner[:, m] = ky[:, s] + (ky[:, s + 1] - ky[:, s]) * fac
        if bez.size:
            # _bezier_controls' correction, on the y of every curve: the factors come
            # from the (shared) frames, so they are the same for all.
            length = co[bez_segs + 1, 0] - co[bez_segs, 0]
            len1 = np.abs(co[bez_segs, 0] - hr[bez_segs, 0])
            len2 = np.abs(co[bez_segs + 1, 0] - hl[bez_segs + 1, 0])
            fac1 = np.where(len1 > length, length / np.where(len1 > length, len1, 1.0), 1.0)
            fac2 = np.where(len2 > length, length / np.where(len2 > length, len2, 1.0), 1.0)
            hly = np.stack([mb[2][:, 1] for mb in members])
            hry = np.stack([mb[3][:, 1] for mb in members])
            y1, y4 = ky[:, bez_segs], ky[:, bez_segs + 1]
            y2 = y1 - fac1 * (y1 - hry[:, bez_segs])
            y3 = y4 - fac2 * (y4 - hly[:, bez_segs + 1])
            flat = ((np.abs(y1 - y4) < _FLT_EPSILON) & (np.abs(y2 - y3) < _FLT_EPSILON)
                    & (np.abs(y3 - y4) < _FLT_EPSILON))
            d1 = np.where(flat, 0.0, 3.0 * (y2 - y1))
            d2 = np.where(flat, 0.0, 3.0 * (y1 - 2.0 * y2 + y3))
            d3 = np.where(flat, 0.0, y4 - y1 + 3.0 * (y2 - y3))
            inner[:, bez] = y1[:, row] + t * (d1[:, row] + t * (d2[:, row] + t * d3[:, row]))
        values[:, inside] = inner
    out[:, columns] = values.T


def _timing(co, ipo, controls, frames, timings):
    """Where each frame falls (before/after/inside, segment, Bezier t), memoised
    on everything it depends on: key frames, corrected handle frames, interpolation."""
    kx = co[:, 0]
    v1, v2, v3, v4, bez_segs = controls
    key = b"".join(a.tobytes() for a in (kx, ipo, v2[:, 0], v3[:, 0]))
    if key in timings:
        return timings[key]
    n = len(co)
    before = frames <= kx[0]
    after = frames >= kx[-1]
    inside = np.flatnonzero(~(before | after))
    f = frames[inside]
    # Segment whose left key is the last key at or before the frame: at a key's
    # exact frame that key starts the segment, so t = 0 gives its value.
    seg = np.clip(np.searchsorted(kx, f, side="right") - 1, 0, max(n - 2, 0))
    seg_ipo = ipo[seg]
    bez = np.flatnonzero(seg_ipo == BEZIER)
    row = t = None
    if bez.size:
        # Row of each sample's segment among the Bezier segments.
        row_of_seg = np.cumsum(ipo[:-1] == BEZIER) - 1
        row = row_of_seg[seg[bez]]
        t = _solve_monotonic_cubic(v1[row, 0], v2[row, 0], v3[row, 0], v4[row, 0], f[bez])
    timings[key] = (before, after, inside, f, seg, seg_ipo, bez, row, t)
    return timings[key]


def _evaluate_one(co, hl, hr, ipo, extrapolation, frames, timings):
    kx = co[:, 0]
    ky = co[:, 1]
    n = len(co)
    out = np.empty_like(frames)
    bez_segs = np.flatnonzero(ipo[:-1] == BEZIER)
    controls = (*_bezier_controls(co, hl, hr, bez_segs), bez_segs)
    before, after, inside, f, seg, seg_ipo, bez, row, t = _timing(co, ipo, controls, frames, timings)

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

    if inside.size:
        values = np.empty_like(f)
        m = seg_ipo == CONSTANT
        if m.any():
            values[m] = ky[seg[m]]

        m = seg_ipo == LINEAR
        if m.any():
            s = seg[m]
            dx = kx[s + 1] - kx[s]
            fac = np.divide(f[m] - kx[s], dx, out=np.zeros_like(dx), where=dx != 0.0)
            values[m] = ky[s] + (ky[s + 1] - ky[s]) * fac

        if bez.size:
            v1, v2, v3, v4, _ = controls
            y1, y2, y3, y4 = v1[:, 1], v2[:, 1], v3[:, 1], v4[:, 1]
            # Blender returns the first key's value when all four control values
            # agree within FLT_EPSILON (T40372): a flat segment stays exactly
            # flat instead of wobbling by float rounding.
            flat = ((np.abs(y1 - y4) < _FLT_EPSILON) & (np.abs(y2 - y3) < _FLT_EPSILON)
                    & (np.abs(y3 - y4) < _FLT_EPSILON))
            # Power basis of y(t) per segment: y1 + t (d1 + t (d2 + t d3)).
            d1 = 3.0 * (y2 - y1)
            d2 = 3.0 * (y1 - 2.0 * y2 + y3)
            d3 = np.where(flat, 0.0, y4 - y1 + 3.0 * (y2 - y3))
            d1 = np.where(flat, 0.0, d1)
            d2 = np.where(flat, 0.0, d2)
            values[bez] = y1[row] + t * (d1[row] + t * (d2[row] + t * d3[row]))
        out[inside] = values
    return out
