# SPDX-License-Identifier: GPL-3.0-or-later
"""One Bezier span's curve from its ends: the slopes of a dense track at a key, and the
handle lengths along them.

``core.bezier_keys`` chooses the keys; this module gives each span between two of them
its shape: a key's slope and bend (first and second derivative) from the polynomial
through the samples beside it (:func:`derivatives`), the lengths that match the target's
curvature at both keys (:func:`curvature_lengths`, geometric Hermite interpolation),
then least squares on the values inside the span through Blender's time solve
(:func:`fit_lengths`, Gauss-Newton), kept off lengths that make x(t) nearly quadratic
(:func:`off_quadratic`). ``core.bezier_play`` plays the result.
"""
from __future__ import annotations

import functools

import numpy as np

from .bezier_play import bezier_values, power_basis, time_curve

# Gauss-Newton steps for the handle lengths, and their bounds (fractions of the
# span): below 0.02 a handle has no direction left to speak of; above 0.95 the
# time solve x(t) = frame loses its slope in the middle (0 at 1 and 1).
FIT_ITERATIONS = 6
LENGTH_MIN = 0.02
LENGTH_MAX = 0.95
MAX_STEP = 0.25
# Blender solves a Bezier segment's x(t) = frame in closed form (Cardano), from
# coefficients rounded to float32. Where the two handles' lengths add up to 2/3 of the
# span x(t) is quadratic; a hair off that, the cubic coefficient is a rounding's
# remainder, the formula cancels huge terms, and near the segment's first key it finds
# no root in [0, 1] and plays the channel's default, 0. The test_mocapbank.bvh
# capture at 1 deg: lengths 1/12 and 7/12 (what the fit gives a span whose target bends
# evenly), 88 deg off at frame 1.016. Measured with Blender's own evaluation on 600
# random segments: it missed only where the quadratic coefficient was over 7,000,000
# times the cubic one, never under. A sum kept QUADRATIC_GAP away from 2/3 bounds that
# ratio by about 3 / QUADRATIC_GAP = 30,000 (7,600 at most on that capture after the
# change) and moves a handle by 1/30,000 of the span at most; the check then plays the
# lengths as moved.
QUADRATIC_GAP = 1e-4

# Samples of the polynomial whose derivatives are a key's slope and bend (fewer
# where the stretch to the next required key is shorter): fourth order in the
# slope.
DERIVATIVE_SAMPLES = 5

# Halley steps for the time curve in a span's check (from t = u: 1e-13 in four; how
# close it comes: bezier_play.CHECK_WITHIN).
CHECK_HALLEY = 4


def stencil_weights(kinds: np.ndarray) -> np.ndarray:
    """(s, n, 2): the weights that give the first and the second derivative at offset 0
    from the values at each stencil's n offsets ``kinds`` (s, n), in units of its spacing.
    Taylor: v(o) = sum_m d_m o^m / m!; weights w with sum_j w_j o_j^m / m! = [m = k]."""
    n = kinds.shape[1]
    powers = np.arange(n)
    factorial = np.cumprod(np.r_[1.0, np.arange(1.0, n)])
    taylor = kinds[:, :, None] ** powers / factorial               # (s, n, m)
    eye = np.zeros((kinds.shape[0], n, 2))
    eye[:, 1, 0] = 1.0
    if n > 2:
        eye[:, 2, 1] = 1.0
    return np.linalg.solve(np.swapaxes(taylor, 1, 2), eye)


@functools.lru_cache(maxsize=None)
def even_weights(n: int) -> np.ndarray:
    """stencil_weights of the n evenly spaced stencils of n samples (the point at each
    of their places), solved once per n and kept (read-only). Solved on every call, a
    fit of 100 Euler tracks made 34 LAPACK calls on (5, 5, 5) matrices, each waking
    OpenBLAS's second thread: 3.6 us each alone, up to 16 ms when the other core was
    busy (470 ms of a fit with a test run beside it); LAPACK solves each matrix on its
    own, so the weights are the same bits either way."""
    weights = stencil_weights(
        (np.arange(n)[None, :] - np.arange(n)[:, None]).astype(np.float64))
    weights.setflags(write=False)
    return weights


def derivatives(t, vT, point, lo, hi):
    """(dv/dt, d2v/dt2), each (k, c), of the values vT (c, m) (channels first) at
    samples ``point`` (k,): the polynomial
    through the DERIVATIVE_SAMPLES samples nearest the point within [lo, hi]
    (fewer if the stretch is shorter; one-sided when lo or hi is the point),
    differentiated there. Evenly spaced stencils come in n shapes (where the
    point sits), whose weights are solved once; any other, on its own."""
    first = np.zeros((point.size, vT.shape[0]))
    second = np.zeros_like(first)
    size = np.minimum(DERIVATIVE_SAMPLES, hi - lo + 1)
    start = np.clip(point - size // 2, lo, hi - size + 1)
    for n in np.unique(size):
        rows = np.flatnonzero(size == n)
        if n < 2:
            continue
        nodes = start[rows, None] + np.arange(n)
        offsets = t[nodes] - t[point[rows]][:, None]              # (r, n)
        h = (offsets[:, -1] - offsets[:, 0]) / (n - 1)
        shape = offsets / h[:, None]
        # Evenly spaced stencils differ only in where the point sits: n shapes.
        even = (np.abs(shape - np.rint(shape)) < 1e-6).all(axis=1)
        pos = point[rows] - start[rows]
        which = np.where(even, pos, 0)
        which[~even] = n + np.arange(int((~even).sum()))
        weights = even_weights(int(n))
        if not even.all():
            weights = np.concatenate((weights, stencil_weights(shape[~even])))
        w = weights[which]                                             # (r, n, 2)
        vals = np.take(vT, nodes, axis=1)                              # (c, r, n)
        first[rows] = np.einsum("rn,crn->rc", w[..., 0], vals) / h[:, None]
        second[rows] = np.einsum("rn,crn->rc", w[..., 1], vals) / (h * h)[:, None]
    return first, second


def curvature_lengths(ya, yb, da, db, ka, kb):
    """Handle lengths (al, be) of the span whose curve also matches the target's
    second derivative at both keys (curvature: geometric Hermite interpolation):

        ka al^2 + W be = A,  kb be^2 + W al = B,

    A = 2/3 (D - da), B = 2/3 (db - D), W = 2/3 (db - da), D = yb - ya, slopes
    da, db and second derivatives ka, kb in units of the span. Newton's method
    from 1/3; where it does not land in (LENGTH_MIN, LENGTH_MAX), 1/3 (the fit
    starts from there)."""
    d = yb - ya
    a_ = 2.0 / 3.0 * (d - da)
    b_ = 2.0 / 3.0 * (db - d)
    w = 2.0 / 3.0 * (db - da)
    al = np.full(np.shape(d), 1.0 / 3.0)
    be = al.copy()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(8):
            f1 = ka * al * al + w * be - a_
            f2 = kb * be * be + w * al - b_
            j11, j22 = 2.0 * ka * al, 2.0 * kb * be
            det = j11 * j22 - w * w
            al = al - (j22 * f1 - w * f2) / det
            be = be - (j11 * f2 - w * f1) / det
        scale = np.abs(a_) + np.abs(b_) + np.abs(w)
        res = np.abs(ka * al * al + w * be - a_) + np.abs(kb * be * be + w * al - b_)
        good = ((al > LENGTH_MIN) & (al < LENGTH_MAX) & (be > LENGTH_MIN) & (be < LENGTH_MAX)
                & (res <= 1e-6 * scale))
    third = 1.0 / 3.0
    return np.where(good, al, third), np.where(good, be, third)


def off_quadratic(al, be):
    """``be``, moved where al + be is within QUADRATIC_GAP / 3 of 2/3 (x(t) nearly
    quadratic, which Blender's time solve can miss) to QUADRATIC_GAP / 3 from it, on the
    side it was (longer where exactly on it), or on the other where that side would take
    it out of [LENGTH_MIN, LENGTH_MAX] (a be at LENGTH_MIN beside an al of 0.6467 went
    to 0.01997). Both (c, s) fractions of the span."""
    gap = 3.0 * (al + be) - 2.0
    near = np.abs(gap) < QUADRATIC_GAP
    if not near.any():
        return be
    side = np.where(gap < 0.0, -1.0, 1.0)
    moved = be + (side * QUADRATIC_GAP - gap) / 3.0
    out = (moved < LENGTH_MIN) | (moved > LENGTH_MAX)
    if out.any():
        moved = np.where(out, be - (side * QUADRATIC_GAP + gap) / 3.0, moved)
    return np.where(near, moved, be)


def _sum(p, q):
    """Sum over the samples of p * q, each (c, n, s): (c, 1, s)."""
    return np.einsum("cns,cns->cs", p, q)[:, None]


def fit_lengths(u, ya, yb, da, db, z, al, be):
    """Gauss-Newton on the handle lengths (al, be) (c, 1, s), from where they are given, of
    spans whose curves should pass through values z (c, n, s) at fractions u (1, n, s)
    of the span, ends ya, yb and slopes da, db (c, 1, s) in units of the span: the best
    (al, be) found and the time curve's t at u for them (c, n, s)."""
    best_al, best_be = al.copy(), be.copy()
    best = np.full(al.shape, np.inf)
    t = time_curve(u, al, be, np.broadcast_to(u, z.shape).copy(), CHECK_HALLEY, own=True)
    best_t = t
    for it in range(FIT_ITERATIONS):
        if it:
            t = time_curve(u, al, be, t, 1, own=True)   # best_t is a copy (np.where)
        p1 = ya + al * da
        p2 = yb - be * db
        r = bezier_values(t, ya, p1, p2, yb)
        r -= z
        sse = _sum(r, r)
        better = sse < best
        best_al = np.where(better, al, best_al)
        best_be = np.where(better, be, best_be)
        best_t = np.where(better, t, best_t)
        best = np.where(better, sse, best)
        if it == FIT_ITERATIONS - 1:
            break
        # dy/dx along the curve, and the Bernstein weights of the inner control
        # points, 3 (1 - t)^2 t and 3 (1 - t) t^2: how y moves with each length.
        # (x(t) = c1 t + c2 t^2 + c3 t^3 as in time_curve, so dx = c1 + 2 c2 t + 3 c3 t^2.)
        e1, e2, e3 = power_basis(ya, p1, p2, yb)
        dy = (3.0 * e3) * t
        dy += 2.0 * e2
        dy *= t
        dy += e1
        dx = (3.0 * (3.0 * (al + be) - 2.0)) * t
        dx += 6.0 * (1.0 - be - 2.0 * al)
        dx *= t
        dx += 3.0 * al
        np.maximum(dx, 1e-6, out=dx)
        ratio = np.divide(dy, dx, out=dy)
        rest = 1.0 - t
        st3 = 3.0 * t
        st3 *= rest
        ja = np.multiply(st3, rest, out=rest)
        ja *= np.subtract(da, ratio, out=dx)
        jb = np.multiply(st3, t, out=st3)
        jb *= np.subtract(ratio, db, out=ratio)
        a11, a12, a22 = _sum(ja, ja), _sum(ja, jb), _sum(jb, jb)
        g1, g2 = _sum(ja, r), _sum(jb, r)
        # Levenberg-Marquardt's damping, a little; a channel the lengths do not
        # move (flat, or straight) keeps them.
        a11 = a11 * (1.0 + 1e-6)
        a22 = a22 * (1.0 + 1e-6)
        det = a11 * a22 - a12 * a12
        ok = det > 1e-300
        det = np.where(ok, det, 1.0)
        step_a = np.where(ok, np.clip(-(a22 * g1 - a12 * g2) / det, -MAX_STEP, MAX_STEP), 0.0)
        step_b = np.where(ok, np.clip(-(a11 * g2 - a12 * g1) / det, -MAX_STEP, MAX_STEP), 0.0)
        al = np.clip(al + step_a, LENGTH_MIN, LENGTH_MAX)
        be = np.clip(be + step_b, LENGTH_MIN, LENGTH_MAX)
    return best_al, best_be, best_t


