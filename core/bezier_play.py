# SPDX-License-Identifier: GPL-3.0-or-later
"""Blender's playback of Bezier keys, all of a rotation's channels at once.

What :mod:`core.fcurve` evaluates (Blender's ``fcurve_eval_keyframes``: CONSTANT and
LINEAR segments, BEZIER with the handle-length correction, the flat-segment rule and
the time solve x(t) = frame), for channels keyed on the same frames, as a Bezier bake
writes them: one search for the segment of every sample, every channel in one pass,
and the time solve by Halley's method from a known start. ``core.bezier_keys`` plays
its candidate keys with it at every sample; ``tests/core/test_bezier_keys.py`` holds it
to a bisection player and to core.fcurve.evaluate_many.
"""
from __future__ import annotations

import numpy as np

from . import fcurve

_FLT_EPSILON = float(np.finfo(np.float32).eps)     # C's FLT_EPSILON: the flat-segment rule

# Halley steps at most in the playback (which stops once every sample is within
# PLAY_WITHIN).
_PLAY_HALLEY = 12
# How close the time solve comes (in units of the span): the playback to 1e-13, as
# core.fcurve; the fit's search (core.bezier_keys) to 1e-10, where a channel's value is
# off by its slope (radians per span, tens at most) times that, 1e-9 rad, against a
# search margin of (1 - SEARCH_SHARE) x the tolerance, 5e-4 deg at 0.01 deg. The final
# check plays to 1e-13 whatever the search chose.
PLAY_WITHIN = 1e-13
CHECK_WITHIN = 1e-10
# Samples played at once: temporaries that stay in the processor's cache (a
# (4, 16384) float64 array is 512 KB), in blocks few enough that each block's fixed
# cost (about fifty numpy calls) stays small. The final check of 100 quaternion
# tracks x 8,000 samples, best of 5: 235, 173, 147, 130, 107, 110, 116, 131 ms at
# 1,024 to 131,072 samples a block (doubling); Euler tracks alike.
PLAY_BLOCK = 16384
# A time solve goes on with its samples still outside the bound alone once they are at
# most one in FEW_LEFT_OF (gathering them costs a few passes, a step about twenty).
FEW_LEFT_OF = 8


def power_basis(y0, y1, y2, y3):
    """(e1, e2, e3) of a cubic Bezier with control values y0..y3 in the power basis:
    y(t) = y0 + e1 t + e2 t^2 + e3 t^3."""
    return 3.0 * (y1 - y0), 3.0 * (y0 - 2.0 * y1 + y2), y3 - y0 + 3.0 * (y1 - y2)


def bezier_values(t, y0, y1, y2, y3):
    """A cubic Bezier's values at parameters t, the control values y0..y3 broadcasting
    against t (a span's, per channel: small): Horner in the power basis, six passes
    over t's size where the Bernstein form takes seventeen."""
    return _cubic(y0, *power_basis(y0, y1, y2, y3), t)


def _cubic(c0, c1, c2, c3, t):
    """c0 + c1 t + c2 t^2 + c3 t^3 by Horner, in one new array of t's size."""
    y = c3 * t
    y += c2
    y *= t
    y += c1
    y *= t
    y += c0
    return y


def _halley(c1, c2, c3, u, t, steps, within=PLAY_WITHIN, report=True, own=False):
    """(t, converged): t in [0, 1] with c1 t + c2 t^2 + c3 t^3 = u (a span's time
    curve in units of the span; broadcasting arrays), Halley's method from a copy of
    ``t`` (``own``: from ``t`` itself, which the caller hands over: a float64 array of
    the broadcast shape that nothing else reads; a copy was a pass over the samples on
    each of a fit's time solves), at most ``steps`` steps, fewer once every sample is
    within ``within``.
    ``report=False``: converged is None, and the residual after the last step is not
    computed. In place on a few work arrays (each step's temporaries would cost as
    much as its sums). Once a few samples are left outside ``within`` (a handle at
    its shortest or longest flattens the curve at an end, where Halley's method is
    slowest), only those take the further steps."""
    shape = np.broadcast_shapes(np.shape(t), np.shape(u), np.shape(c1))
    if not (own and isinstance(t, np.ndarray) and t.shape == shape and t.dtype == np.float64
            and t.flags.c_contiguous and t.flags.writeable):
        t = np.array(np.broadcast_to(t, shape), dtype=np.float64)
    c3x3, c2x2 = 3.0 * c3, 2.0 * c2
    x, dx, half_ddx = np.empty_like(t), np.empty_like(t), np.empty_like(t)
    for step in range(steps):
        np.multiply(c3, t, out=x)               # x = ((c3 t + c2) t + c1) t - u
        x += c2
        x *= t
        x += c1
        x *= t
        x -= u
        # |x| once, and one count of the samples within the bound: all of them is
        # max(x.max(), -x.min()) < within (x is finite: t in [0, 1], finite
        # coefficients), and the rest are the samples outside. Two passes fewer than the
        # bound and the count apart.
        np.abs(x, out=dx)
        inside = np.count_nonzero(dx < within)
        if inside == x.size:
            return t, True
        if x.size >= FEW_LEFT_OF:
            if (x.size - inside) * FEW_LEFT_OF <= x.size:
                outside = np.flatnonzero(dx >= within)
                at = np.unravel_index(outside, shape)
                picked = [_at_samples(a, at, shape) for a in (c1, c2, c3, u)]
                t[at], converged = _halley(*picked, t[at], steps - step, within, report,
                                           own=True)
                return t, converged
        np.multiply(c3x3, t, out=dx)            # dx = (3 c3 t + 2 c2) t + c1
        dx += c2x2
        np.subtract(dx, c2, out=half_ddx)       # ddx / 2 = 3 c3 t + c2
        half_ddx *= x
        dx *= t
        dx += c1
        # Halley: t -= 2 x dx / (2 dx^2 - x ddx), here with numerator and denominator
        # halved (the same quotient, two passes fewer), the denominator kept >= 5e-13.
        x *= dx
        dx *= dx
        dx -= half_ddx
        np.maximum(dx, 5e-13, out=dx)
        x /= dx
        t -= x
        # np.clip(t, 0, 1) to the bit (signed zeros and NaN alike), in two passes that
        # numpy 1.26 runs faster than its clip's one: 107 -> 53 us on a playback block.
        np.maximum(t, 0.0, out=t)
        np.minimum(t, 1.0, out=t)
    if not report:
        return t, None
    np.multiply(c3, t, out=x)
    x += c2
    x *= t
    x += c1
    x *= t
    x -= u
    return t, bool(x.size == 0 or max(x.max(), -x.min()) < within)


def interpolated_times(u, known_u, known_t):
    """A first guess (c, n, s) of the time curves' t at fractions u (1, n, s) of each
    span, from t known at other fractions of it (known_u (1, k, s) increasing,
    known_t (c, k, s)) and at its ends (t = u at 0 and 1): linear between the
    neighbours. t(u) is smooth, so at k = 8 the guess is off by a few 1e-3, from
    which Halley's method reaches 1e-10 in two steps (from u: three or four)."""
    c, k, s = known_t.shape
    # Each sample's node at or before it, within its own span: the count of known
    # fractions at or below it (node 0 is the span's start, t = u = 0; node k + 1 its
    # end), one known fraction at a time over (n, s). One search over every span's
    # nodes sorted into one row cost 30 ms at 128,000 samples in its index arithmetic
    # and gathers; a count over (n, k, s) booleans, a reduction along the middle axis,
    # twice as long as the k passes.
    below = np.zeros(u.shape[1:], dtype=np.intp)                          # (n, s)
    for j in range(k):
        below += known_u[0, j] <= u[0]
    nodes_u = np.empty((k + 2, s))
    nodes_u[0], nodes_u[-1] = 0.0, 1.0
    nodes_u[1:-1] = known_u[0]
    nodes_t = np.empty((c, k + 2, s))
    nodes_t[:, 0], nodes_t[:, -1] = 0.0, 1.0
    nodes_t[:, 1:-1] = known_t
    # The nodes by flat index (node, span): np.take, a quarter of the time of the
    # same gather by two index arrays.
    at = below * s + np.arange(s)
    u0, u1 = np.take(nodes_u, at), np.take(nodes_u, at + s)               # (n, s)
    nodes_t = nodes_t.reshape(c, -1)
    t0, t1 = np.take(nodes_t, at, axis=1), np.take(nodes_t, at + s, axis=1)   # (c, n, s)
    width = u1 - u0
    share = np.divide(u[0] - u0, width, out=np.zeros_like(width), where=width > 0.0)
    t1 -= t0
    t1 *= share
    t1 += t0
    return t1


def _at_samples(a, at, shape):
    """The values at multi-indices ``at`` (a tuple of index arrays into ``shape``) of
    ``a``, an array that broadcasts to ``shape``, without broadcasting it."""
    a = np.asarray(a)
    lead = len(shape) - a.ndim
    return a[tuple(i if n > 1 else 0 for i, n in zip(at[lead:], a.shape))]


def time_curve(u, al, be, t, steps, own=False):
    """t with X(t) = u, X the time curve of handles at fractions al, be of the span
    (x controls 0, al, 1 - be, 1; monotonic for fractions in (0, 1)): Halley's
    method from ``t`` (``own``: in place, see _halley), at most ``steps`` steps (from
    t = u every sample is within 1e-13 in four), fewer once every sample is within
    CHECK_WITHIN."""
    c1 = 3.0 * al
    c2 = 3.0 * (1.0 - be - 2.0 * al)
    c3 = 3.0 * (al + be) - 2.0
    return _halley(c1, c2, c3, u, t, steps, CHECK_WITHIN, report=False, own=own)[0]


# A time curve is nearly straight where its slope at both ends is within this of 1
# (handles within a tenth of a third of the span: a quaternion bake's, where the four
# channels turn alike): there its inverse is close to the quintic of _start_coefficients.
NEARLY_STRAIGHT = 0.1


def _start_coefficients(c1, c2, c3, counts):
    """(4 c, segments) coefficients q0..q3 (rows by channel) of a start t(u) = u + u (1 - u)
    (q0 + q1 u + q2 u^2 + q3 u^3) for the time solve c1 t + c2 t^2 + c3 t^3 = u of each
    segment and channel (each (c, segments)), or None where it would not pay.

    The quintic matches the inverse's slope and bend at both ends (t' = 1 / x',
    t'' = -x'' / x'^3 at t = 0 and 1). Where the time curve is nearly straight
    (NEARLY_STRAIGHT) it is within about 1e-4 of the solution, from which one Halley
    step reaches 1e-13 at all but a few samples in a thousand; from u (off by up to
    0.015 there) two steps are needed, each as costly as the whole start. Elsewhere the
    coefficients are zero: the start is u. None where fewer than all but one sample in
    FEW_LEFT_OF are on nearly straight curves (an Euler bake's handles vary widely), as
    the solve then takes the steps from u anyway."""
    x1 = c1 + 2.0 * c2 + 3.0 * c3                     # x'(1); x'(0) = c1
    near = (np.abs(c1 - 1.0) <= NEARLY_STRAIGHT) & (np.abs(x1 - 1.0) <= NEARLY_STRAIGHT)
    if (near @ counts).sum() * FEW_LEFT_OF < (FEW_LEFT_OF - 1) * near.shape[0] * counts.sum():
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        d0, d1 = 1.0 / c1, 1.0 / x1                   # t'(0), t'(1)
        s0 = -2.0 * c2 * d0 ** 3                      # t''(0), t''(1)
        s1 = -(2.0 * c2 + 6.0 * c3) * d1 ** 3
    # t' = 1 + (1 - 2u) Q + u (1 - u) Q' and t'' = -2 Q + 2 (1 - 2u) Q' + u (1 - u) Q'',
    # so Q and Q' at the ends, and Q the cubic Hermite between them.
    q_0, q_1 = d0 - 1.0, 1.0 - d1
    dq_0, dq_1 = 0.5 * s0 + q_0, -0.5 * s1 - q_1
    q2 = 3.0 * (q_1 - q_0) - 2.0 * dq_0 - dq_1
    q3 = 2.0 * (q_0 - q_1) + dq_0 + dq_1
    return np.where(np.tile(near, (4, 1)), np.concatenate((q_0, dq_0, q2, q3)), 0.0)


def play_segments(x, y, hlx, hly, hrx, hry, ipo, f, seg, last):
    """(c, m) channel values (channels first) of F-curves sharing key frames at frames
    ``f`` (m,), each in segment ``seg`` (m,): the key at or before it, never past
    ``last`` (m,), that sample's curve's last key. x (k,) key frames, y (k, c) values, hlx, hly, hrx, hry
    (k, c) handles, ipo (k,) core.fcurve enum values: what core.fcurve evaluates
    (Blender's fcurve_eval_keyframes), all channels at once - CONSTANT segments and
    ends, LINEAR, and BEZIER with the handle-length correction, the flat-segment rule
    and the power basis of y(t). The segment being known, the time solve x(t) = frame
    needs no search: Halley's method from the linear guess, in units of the span, to
    1e-13 (tests/core/test_bezier_keys.py holds it to a bisection player and to
    core.fcurve.evaluate_many).
    Returns None where it does not converge, or the samples are not sorted by frame
    (the caller asks core.fcurve)."""
    # Channels first, (c, m), as the caller measures them: every operation below runs
    # along the samples, and the Bezier samples (nearly all) are written in place rather
    # than gathered as the keys' values first and overwritten.
    out = np.empty((y.shape[1], f.size))
    inside = (seg < last) & (f > x[seg])
    curved = inside & (ipo[seg] == fcurve.BEZIER)
    bez = np.flatnonzero(curved)
    rest = np.flatnonzero(~curved)          # at or before a key, CONSTANT, LINEAR, the ends
    if rest.size:
        out[:, rest] = y[seg[rest]].T
        lin = rest[inside[rest] & (ipo[seg[rest]] == fcurve.LINEAR)]
        if lin.size:
            s = seg[lin]
            dx = (x[s + 1] - x[s])[:, None]
            fac = np.divide(f[lin, None] - x[s, None], dx, out=np.zeros_like(dx),
                            where=dx != 0.0)
            out[:, lin] = (y[s] + (y[s + 1] - y[s]) * fac).T
    if not bez.size:
        return out
    s = seg[bez]
    # Samples come sorted by frame, so each segment's are one run: its numbers are
    # repeated along the run (cheaper than gathering them sample by sample).
    runs = np.flatnonzero(np.diff(s)) + 1
    if (s[runs] < s[runs - 1]).any():
        return None                         # not sorted: the caller asks core.fcurve
    segs = s[np.r_[0, runs]]
    counts = np.diff(np.r_[0, runs, s.size])
    # Per segment (BKE_fcurve_correct_bezpart): a handle longer than the segment is
    # shortened along its own direction to the segment's length.
    x0, x3 = x[segs], x[segs + 1]
    y1, y4 = y[segs].T, y[segs + 1].T
    hrx_, hry_, hlx_, hly_ = hrx[segs].T, hry[segs].T, hlx[segs + 1].T, hly[segs + 1].T
    length = x3 - x0
    with np.errstate(divide="ignore", invalid="ignore"):
        len1, len2 = np.abs(x0 - hrx_), np.abs(x3 - hlx_)
        fac1 = np.where(len1 > length, length / len1, 1.0)
        fac2 = np.where(len2 > length, length / len2, 1.0)
    x1 = x0 - fac1 * (x0 - hrx_)
    x2 = x3 - fac2 * (x3 - hlx_)
    y2 = y1 - fac1 * (y1 - hry_)
    y3 = y4 - fac2 * (y4 - hly_)
    # Blender returns the first key's value when all four control values agree
    # within FLT_EPSILON (T40372).
    flat = ((np.abs(y1 - y4) < _FLT_EPSILON) & (np.abs(y2 - y3) < _FLT_EPSILON)
            & (np.abs(y3 - y4) < _FLT_EPSILON))
    c = y.shape[1]
    table = np.empty((2 + 7 * c, segs.size))
    table[0], table[1] = x0, length
    # x(t) in units of the span: c1 t + c2 t^2 + c3 t^3 = u; y(t) in the power basis.
    table[2:2 + c] = 3.0 * (x1 - x0) / length
    table[2 + c:2 + 2 * c] = 3.0 * (x0 - 2.0 * x1 + x2) / length
    table[2 + 2 * c:2 + 3 * c] = (x3 - x0 + 3.0 * (x1 - x2)) / length
    table[2 + 3 * c:2 + 4 * c] = y1
    table[2 + 4 * c:2 + 5 * c] = np.where(flat, 0.0, 3.0 * (y2 - y1))
    table[2 + 5 * c:2 + 6 * c] = np.where(flat, 0.0, 3.0 * (y1 - 2.0 * y2 + y3))
    table[2 + 6 * c:2 + 7 * c] = np.where(flat, 0.0, y4 - y1 + 3.0 * (y2 - y3))
    start = _start_coefficients(table[2:2 + c], table[2 + c:2 + 2 * c],
                                table[2 + 2 * c:2 + 3 * c], counts)
    if start is not None:
        table = np.concatenate((table, start))
    g = np.repeat(table, counts, axis=1)
    c1, c2, c3 = g[2:2 + c], g[2 + c:2 + 2 * c], g[2 + 2 * c:2 + 3 * c]
    u = (f[bez] - g[0]) / g[1]
    np.maximum(u, 0.0, out=u)               # np.clip(u, 0, 1) to the bit, as in _halley
    np.minimum(u, 1.0, out=u)
    u = u[None, :]
    t = u
    if start is not None:
        # t(u) = u + u (1 - u) Q(u), Q a cubic by Horner (see _start_coefficients). No
        # clip: |Q| < 0.3 on a nearly straight curve (its slopes within 0.1 of 1 bound
        # every coefficient), so u^2 <= t <= u (2 - u); and each Halley step clips.
        t = _cubic(*(g[2 + (7 + i) * c:2 + (8 + i) * c] for i in range(4)), u)
        t *= u * (1.0 - u)
        t += u
    t, converged = _halley(c1, c2, c3, u, t, _PLAY_HALLEY, own=start is not None)
    if not converged:
        return None
    y1, d1, d2, d3 = (g[2 + i * c:2 + (i + 1) * c] for i in range(3, 7))
    value = d3 * t                          # Horner, in place: y1 + t (d1 + t (d2 + t d3))
    value += d2
    value *= t
    value += d1
    value *= t
    value += y1
    for row, values in zip(out, value):     # a row at a time: 40% faster than [:, bez]
        row[bez] = values
    return out


def play(frames, values, handle_left, handle_right, interpolation, times) -> np.ndarray:
    """Blender's playback (m, c) at ``times`` (m,) of F-curves keyed on the same frames
    with CONSTANT extrapolation (one rotation's channels, as a Bezier bake writes them):
    frames (k,) increasing, values (k, c), handle_left / handle_right (k, c, 2) (frame,
    value), interpolation (k,) core.fcurve enum values (CONSTANT, LINEAR or BEZIER),
    handles on their own side of their key. The numbers core.fcurve.evaluate_many
    gives, to ~1e-12, at a fraction of its cost (the channels share one search).
    Raises ValueError for curves outside that shape."""
    x = np.asarray(frames, dtype=np.float64).reshape(-1)
    y = np.asarray(values, dtype=np.float64).reshape(x.size, -1)
    hl = np.asarray(handle_left, dtype=np.float64).reshape(x.size, -1, 2)
    hr = np.asarray(handle_right, dtype=np.float64).reshape(x.size, -1, 2)
    ipo = np.asarray(interpolation, dtype=np.int64).reshape(-1)
    if x.size == 0 or ipo.size != x.size or hl.shape != hr.shape or hl.shape[1] != y.shape[1]:
        raise ValueError("bezier_play.play: key arrays disagree in shape.")
    if (np.diff(x) <= 0.0).any() or not np.isfinite(x.sum() + y.sum() + hl.sum() + hr.sum()):
        raise ValueError("bezier_play.play: key frames must be finite and increasing.")
    bez = ipo[:-1] == fcurve.BEZIER
    if (((hr[:-1, :, 0] < x[:-1, None]) | (hl[1:, :, 0] > x[1:, None])) & bez[:, None]).any():
        raise ValueError("bezier_keys.play: a Bezier handle points backwards in time.")
    if ((ipo[:-1] < fcurve.CONSTANT) | (ipo[:-1] > fcurve.BEZIER)).any():
        raise ValueError("bezier_keys.play: a key uses an easing interpolation.")
    times = np.asarray(times, dtype=np.float64).reshape(-1)
    if (np.diff(times) < 0.0).any():
        order = np.argsort(times, kind="stable")
        out = np.empty((times.size, y.shape[1]))
        out[order] = play(x, y, hl, hr, ipo, times[order])
        return out
    out = np.empty((times.size, y.shape[1]))
    last = np.full(min(times.size, PLAY_BLOCK), x.size - 1)
    for at in range(0, times.size, PLAY_BLOCK):
        f = times[at:at + PLAY_BLOCK]
        seg = np.clip(np.searchsorted(x, f, side="right") - 1, 0, x.size - 1)
        part = play_segments(x, y, hl[..., 0], hl[..., 1], hr[..., 0], hr[..., 1], ipo, f,
                              seg, last[:f.size])
        if part is None:
            curves = [(np.column_stack((x, y[:, c])), hl[:, c], hr[:, c], ipo, "CONSTANT")
                      for c in range(y.shape[1])]
            part = fcurve.evaluate_many(curves, f).T
        out[at:at + PLAY_BLOCK] = part.T
    return out
