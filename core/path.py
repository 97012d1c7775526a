# SPDX-License-Identifier: GPL-3.0-or-later
"""Position paths through keys: linear, centripetal Catmull-Rom, constant speed.

Times are frames (floats), points are float64 arrays of shape (k, 3) in scene
units. Samples before the first key or after the last one hold that key.

Catmull-Rom here is the centripetal kind (alpha = 0.5; Yuksel, Schaefer and
Keyser 2011, "Parameterization and applications of Catmull-Rom curves"),
evaluated in the Barry-Goldman pyramidal form (Barry and Goldman 1988). Its
knots are u_{i+1} = u_i + |P_{i+1} - P_i|**0.5, which is what keeps the curve
free of cusps and self-intersections inside a segment, however unevenly the
keys are spaced. It passes through every key.

- End segments: a phantom point is reflected through each end key
  (P_-1 = 2 P_0 - P_1, P_k = 2 P_{k-1} - P_{k-2}), so the path leaves the first
  key and reaches the last one at speed, heading along the end chord (as a
  linear path would), and two keys give a straight line.
- Coincident consecutive keys (a hold): the knot interval is zero; the
  pyramid is written with chord vectors (P_{i+1} - P_i) / (u_{i+1} - u_i) =
  direction * sqrt(chord), whose limit for a zero chord is zero, so there is
  no division by zero: the object stands still on the hold and starts off
  again from rest.
- Timing: the curve is C1 in its knot parameter u. Frame time is mapped to u
  by a monotone C1 cubic (Fritsch-Carlson/PCHIP) through (key time, knot), so
  the path is C1 in frames too (no velocity jump at keys); when the key times
  are proportional to the knot intervals the map is exactly linear.

Constant speed (``constant_speed_times``) is a time map: it returns, for each
sample time, the frame at which to evaluate the curve so that arc length grows
linearly with sample time from the first key to the last (holds, where the keys
coincide, keep their frames). The re-bake
evaluates the rotation at those same retimed frames, so the object still has
each key's orientation where it stands at that key.
"""
from __future__ import annotations

import numpy as np

from .frames import as_frames, check_increasing

PATH_METHODS = ("linear", "catmull_rom")

# Keys closer than this are refused: the cubics divide by the key interval up
# to three times, so a gap of 1e-200 frames overflowed to a silent NaN
# (found by fuzzing). No animation keys anything this close (F-curve frames
# are float32, ~1e-7 apart at frame 1).
MIN_KEY_GAP = 1e-9

# Centripetal parameterisation exponent (0 = uniform, 1 = chordal).
ALPHA = 0.5

# Arc-length table for constant speed: each key interval is cut into this many
# steps (fewer, down to MIN_SUBSTEPS, when there are very many keys, so the
# table stays under MAX_TABLE points). A chord of a step with turning angle
# theta underestimates its arc by ~theta**2/24, so even a half-turn segment at
# 32 steps is measured to ~4e-4 relative, and at 128 steps to ~3e-5.
SUBSTEPS = 512
MIN_SUBSTEPS = 16
MAX_TABLE = 4_000_000

# Constant speed: a key interval shorter than this fraction of the whole path
# is a hold (rounding of coincident keys, not movement) and keeps its frames.
HOLD_FRACTION = 1e-9


# ------------------------------------------------------------------- validation


def _check_keys(key_times, key_points) -> tuple[np.ndarray, np.ndarray]:
    # Non-finite frames are named as entries, order problems as keys (the
    # wording this module has always used).
    times = as_frames(key_times, "key_times")
    check_increasing(times, "key_times", item="key")
    if times.size < 1:
        raise ValueError("key_times is empty: a path needs at least one key.")
    gaps = np.diff(times)
    if (gaps < MIN_KEY_GAP).any():
        i = int(np.argmax(gaps < MIN_KEY_GAP))
        raise ValueError(
            f"key_times: keys {i} and {i + 1} (frames {times[i]!r} and {times[i + 1]!r}) are "
            f"closer than {MIN_KEY_GAP:g} frames; merge them into one key."
        )
    points = np.array(key_points, dtype=np.float64, copy=True)
    if points.shape != (times.size, 3):
        raise ValueError(
            f"key_points must have shape ({times.size}, 3), one point per key time, got {points.shape}."
        )
    bad = ~np.isfinite(points).all(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"key_points: key {i} (frame {times[i]}) has a NaN or infinite coordinate {points[i].tolist()}.")
    return times, points


def _check_method(method: str) -> str:
    name = method.lower() if isinstance(method, str) else method
    if name not in PATH_METHODS:
        raise ValueError(f"Path method {method!r} is not one of {', '.join(PATH_METHODS)}.")
    return name


# ------------------------------------------------------------------- evaluation


def _linear(times: np.ndarray, points: np.ndarray, t: np.ndarray) -> np.ndarray:
    # np.interp holds the end values outside [t0, tN].
    return np.stack([np.interp(t, times, points[:, a]) for a in range(3)], axis=-1)


def _knots(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Padded points (k+2, 3) with reflected phantoms, and their knots (k+2,)."""
    first = 2.0 * points[0] - points[1]
    last = 2.0 * points[-1] - points[-2]
    padded = np.concatenate((first[None], points, last[None]), axis=0)
    chords = np.linalg.norm(np.diff(padded, axis=0), axis=1)
    knots = np.concatenate(([0.0], np.cumsum(chords**ALPHA)))
    return padded, knots


def _pchip_slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Derivatives at the nodes of a monotone C1 cubic through non-decreasing y.

    Fritsch-Carlson with Brodlie's weighted harmonic mean at interior nodes
    (the form scipy's PchipInterpolator uses); zero where a neighbouring
    interval is flat, the interval's own slope at the two ends.
    """
    h = np.diff(x)
    delta = np.diff(y) / h
    m = np.empty_like(y)
    m[0] = delta[0]
    m[-1] = delta[-1]
    if y.size > 2:
        w1 = 2.0 * h[1:] + h[:-1]
        w2 = h[1:] + 2.0 * h[:-1]
        d0 = delta[:-1]
        d1 = delta[1:]
        positive = (d0 > 0.0) & (d1 > 0.0)
        safe0 = np.where(positive, d0, 1.0)
        safe1 = np.where(positive, d1, 1.0)
        m[1:-1] = np.where(positive, (w1 + w2) / (w1 / safe0 + w2 / safe1), 0.0)
    return m


def _segments(x: np.ndarray, xq: np.ndarray) -> np.ndarray:
    """Interval index i (x[i] <= xq < x[i+1]) per query, clipped to [0, len(x) - 2]."""
    return np.clip(np.searchsorted(x, xq, side="right") - 1, 0, x.size - 2)


def _pchip_polynomials(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per interval, (k-1, 4) coefficients a0..a3 of the monotone C1 cubic
    y = a0 + a1 d + a2 d^2 + a3 d^3 in d = xq - x[i] (Hermite form expanded once,
    so a sample costs one gather and a Horner step)."""
    m = _pchip_slopes(x, y)
    h = np.diff(x)
    delta = np.diff(y) / h
    return np.stack(
        (y[:-1], m[:-1], (3.0 * delta - 2.0 * m[:-1] - m[1:]) / h, (m[:-1] + m[1:] - 2.0 * delta) / (h * h)),
        axis=1,
    )


def _horner(poly: np.ndarray, seg: np.ndarray, d: np.ndarray) -> np.ndarray:
    """sum_j poly[seg, j] d^j for cubic coefficients poly (m, 4).

    Gathers one contiguous coefficient column at a time: Horner steps on
    whole 1-D arrays are several times faster than on strided (n, 4) rows.
    """
    cols = np.ascontiguousarray(poly.T)
    out = np.take(cols[3], seg)
    for j in (2, 1, 0):
        out *= d
        out += np.take(cols[j], seg)
    return out


def _pchip(x: np.ndarray, y: np.ndarray, xq: np.ndarray) -> np.ndarray:
    """Monotone C1 cubic through (x, y) at xq, held at the ends outside [x0, xN]."""
    xc = np.clip(xq, x[0], x[-1])
    seg = _segments(x, xc)
    out = _horner(_pchip_polynomials(x, y), seg, xc - x[seg])
    # The last node exactly (the expanded cubic may be an ulp off at d = h).
    out[xc == x[-1]] = y[-1]
    return out


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den per row, 0 where den == 0 (a zero knot interval)."""
    ok = den > 0.0
    return np.where(ok[:, None], num / np.where(ok, den, 1.0)[:, None], 0.0)


def _catmull_rom_coefficients(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per key interval, the cubic's coefficients (k-1, 4, 3) in x in [0, 1]
    (C = c0 + c1 x + c2 x^2 + c3 x^3, per axis), and the knots of the keys (k,).

    The Barry-Goldman pyramid is a cubic in u, so it equals the Hermite cubic
    with its end values and end derivatives; written per interval once, each
    sample then costs one gather and a Horner step.
    """
    padded, knots = _knots(points)
    p0, p1, p2, p3 = padded[:-3], padded[1:-2], padded[2:-1], padded[3:]
    t0, t1, t2, t3 = knots[:-3], knots[1:-2], knots[2:-1], knots[3:]
    # (b - a) / (tb - ta) = direction * |b - a|**(1 - alpha): tends to 0 with
    # the chord, so a zero interval (coincident keys) gives 0, not 0/0.
    v0 = _safe_div(p1 - p0, t1 - t0)
    v1 = _safe_div(p2 - p1, t2 - t1)
    v2 = _safe_div(p3 - p2, t3 - t2)
    h = (t2 - t1)[:, None]
    # Derivatives of the pyramid at both ends of the interval, scaled to x.
    m1 = h * (v0 - _safe_div(p2 - p0, t2 - t0) + v1)
    m2 = h * (v1 - _safe_div(p3 - p1, t3 - t1) + v2)
    coef = np.stack(
        (p1, m1, 3.0 * (p2 - p1) - 2.0 * m1 - m2, 2.0 * (p1 - p2) + m1 + m2),
        axis=1,
    )
    return coef, knots[1:-1]


def _catmull_rom(times: np.ndarray, points: np.ndarray, t: np.ndarray) -> np.ndarray:
    coef, knots = _catmull_rom_coefficients(points)
    # Time map frames -> x in [0, 1] within each interval: the PCHIP cubic for
    # the knot u, shifted by the interval's first knot and divided by its
    # width (a zero width, a hold, gives x = 0 and the coefficients hold the key).
    width = np.diff(knots)
    inv_width = np.where(width > 0.0, 1.0 / np.where(width > 0.0, width, 1.0), 0.0)
    to_x = _pchip_polynomials(times, knots) * inv_width[:, None]
    to_x[:, 0] = 0.0
    tc = np.clip(t, times[0], times[-1])
    seg = _segments(times, tc)
    x = _horner(to_x, seg, tc - times[seg])
    out = np.empty((t.size, 3), dtype=np.float64)
    for axis in range(3):
        out[:, axis] = _horner(coef[:, :, axis], seg, x)
    # At x = 0 the Horner sum is exactly the key; at the last key (x = 1) the
    # coefficients' sum may be an ulp off: keys are reproduced exactly.
    out[tc == times[-1]] = points[-1]
    return out


def _evaluate(times: np.ndarray, points: np.ndarray, t: np.ndarray, method: str) -> np.ndarray:
    if times.size == 1:
        return np.broadcast_to(points[0], (t.size, 3)).copy()
    if method == "linear":
        return _linear(times, points, t)
    return _catmull_rom(times, points, t)


def _retiming(times: np.ndarray, points: np.ndarray, name: str):
    """constant_speed_times' arc-length table and new key times (k >= 2 keys): (steps,
    table_t, arc, arc_at_keys, length, duration, hold, new_starts), None when the path
    does not move."""
    segments = times.size - 1
    steps = int(np.clip(MAX_TABLE // segments, MIN_SUBSTEPS, SUBSTEPS))
    frac = np.arange(steps) / steps
    table_t = (times[:-1, None] + np.diff(times)[:, None] * frac[None, :]).ravel()
    table_t = np.concatenate((table_t, times[-1:]))
    table_p = _evaluate(times, points, table_t, name)
    arc = np.concatenate(([0.0], np.cumsum(np.linalg.norm(np.diff(table_p, axis=0), axis=1))))
    total = arc[-1]
    if not total > 0.0:
        return None

    # New durations: holds keep theirs, moving intervals share the rest in
    # proportion to their length.
    arc_at_keys = arc[::steps]
    length = np.diff(arc_at_keys)
    duration = np.diff(times)
    hold = length <= HOLD_FRACTION * total
    moving_time = duration[~hold].sum()
    moving_length = length[~hold].sum()
    new_duration = np.where(hold, duration, length * moving_time / moving_length)
    new_starts = np.concatenate(([times[0]], times[0] + np.cumsum(new_duration)))
    new_starts[-1] = times[-1]  # exactly, whatever the rounding of the sum
    return steps, table_t, arc, arc_at_keys, length, duration, hold, new_starts


# ------------------------------------------------------------------- public API


def constant_speed_key_times(key_times, key_points, method: str = "linear") -> np.ndarray:
    """(k,) the frames at which :func:`constant_speed_times`' retimed path reaches each
    key: where a path timed by it turns its corners. The keys' own frames where the path
    does not move, or with a single key."""
    name = _check_method(method)
    times, points = _check_keys(key_times, key_points)
    found = _retiming(times, points, name) if times.size > 1 else None
    return times.copy() if found is None else found[-1]


def constant_speed_times(key_times, key_points, sample_times, method: str = "linear") -> np.ndarray:
    """Curve frames (n,) at which to evaluate so the path is travelled at one speed.

    For sample time t in [t0, tN] (first and last key) the result tau has
    arc_length(t0 -> tau) growing linearly with t: a path 1 m then 10 m long
    is travelled at one speed, not ten times faster on the second stretch.
    Samples outside hold t0 or tN.

    Holds: a key interval where the path does not move (its keys coincide:
    no length, at most ``HOLD_FRACTION`` of the whole) keeps its duration and
    runs at its own pace (tau = its original frames, shifted), and the moving
    intervals share the rest of the time at one speed. Spreading "no length"
    over no time instead would make whatever else happens there (a camera
    panning while it stands) happen in a single frame. With no movement at all,
    or a single key, the sample times (clipped to the keys) come back unchanged.

    The arc length comes from a dense table (``SUBSTEPS`` chords per key
    interval) inverted with a monotone cubic: arc length to about 1e-4
    relative or better for segments turning up to half a turn, and the speed
    of the retimed path constant to well under 1% per frame.
    """
    name = _check_method(method)
    times, points = _check_keys(key_times, key_points)
    t = as_frames(sample_times, "sample_times")
    tc = np.clip(t, times[0], times[-1])
    if times.size == 1:
        return tc
    found = _retiming(times, points, name)
    if found is None:
        return tc
    steps, table_t, arc, arc_at_keys, length, duration, hold, new_starts = found
    segments = times.size - 1
    seg = _segments(new_starts, tc)
    into = tc - new_starts[seg]
    span = new_starts[seg + 1] - new_starts[seg]
    fraction = np.where(span > 0.0, into / np.where(span > 0.0, span, 1.0), 0.0)
    target = arc_at_keys[seg] + np.clip(fraction, 0.0, 1.0) * length[seg]

    # Invert arc length on the moving intervals only, in "moving time" (frames
    # minus the hold durations before), where the table is strictly
    # increasing and a hold collapses to one point. A hold's first entry stays:
    # it is the end of the moving interval before it.
    entry_seg = np.minimum(np.arange(table_t.size) // steps, segments - 1)
    hold_before = np.concatenate(([0.0], np.cumsum(np.where(hold, duration, 0.0))))
    moving_t = table_t - hold_before[entry_seg]
    first_of_interval = np.arange(table_t.size) % steps == 0
    keep = ~hold[entry_seg] | first_of_interval
    table_arc, table_m = arc[keep], moving_t[keep]
    # A repeated arc value is a hold's first entry next to the same point (same
    # moving time) or a step where a curve is momentarily at rest: drop it.
    unique = np.concatenate(([True], np.diff(table_arc) > 0.0))
    table_arc, table_m = table_arc[unique], table_m[unique]
    if name == "linear":
        # Arc length is exactly piecewise linear in time between table points
        # (constant speed within a key interval): linear inversion is exact.
        tau = np.interp(target, table_arc, table_m)
    else:
        # On a curve a piecewise-linear inverse makes the speed each step's
        # average, off by the speed's change within the step (percents where
        # the timing turns sharply at a key); a monotone cubic's second-order
        # slopes make that error quadratic in the step.
        tau = _pchip(table_arc, table_m, target)
    tau = tau + hold_before[seg]
    # Each sample stays in its own key interval (against rounding at the
    # ends), and a hold plays at its original pace.
    tau = np.clip(tau, times[seg], times[seg + 1])
    # A hold's times[seg] + into can pass its end key by an ulp when the hold
    # moved in time (new_starts[seg] != times[seg]): keep every sample in its interval.
    return np.clip(np.where(hold[seg], times[seg] + into, tau), times[seg], times[seg + 1])


def interpolate_positions(
    key_times, key_points, sample_times, method: str = "linear", constant_speed: bool = False
) -> np.ndarray:
    """Positions (n, 3) at sample_times (n,) from keys (k,) and (k, 3).

    method: "linear" or "catmull_rom" (centripetal, see the module docstring).
    constant_speed: travel the whole path at one speed by arc length (see
    ``constant_speed_times``), instead of keeping each key at its frame.
    Samples before the first key / after the last hold that key. Raises
    ValueError for empty, non-increasing or non-finite times, a points shape
    that does not match, or an unknown method. Inputs are not modified.
    """
    name = _check_method(method)
    times, points = _check_keys(key_times, key_points)
    t = as_frames(sample_times, "sample_times")
    if constant_speed:
        t = constant_speed_times(times, points, t, name)
    return _evaluate(times, points, t, name)
