# SPDX-License-Identifier: GPL-3.0-or-later
"""Rotation interpolation along chosen turns: whole turns, steps and keyed timing.

``core.interp`` interpolates between unit quaternions, which cannot tell a
turntable keyed 0 -> 360 deg from no rotation. Here every key interval i
carries its turn explicitly, as the short rotation vector ``short_i`` (frame
of key i, at most pi) plus ``whole_i`` extra whole turns about a unit
``axis_i`` (see core.turns), and each method follows it:

* slerp: ``q_i * E(u short_i) * E(u 2 pi whole_i axis_i)`` with
  ``E(v) = exp(v / 2)``: constant angular speed about the interval's axis,
  whole turns included. Where the axis is the short rotation's (core.turns
  makes it so), both factors commute and are taken as one rotation about
  that axis, which lands on the next key to within rounding of its angle
  (1e-16 of a turn per turn); elsewhere (an axis of the caller's, a short
  arc too small to have an axis) the two factors are multiplied;
* Squad: a cumulative cubic Bezier in the sense of Kim, Kim & Shin (1995),
  ``q_i E(b1(u) w1) E(b2(u) w2) E(b3(u) w3)`` with the cumulative Bernstein
  bases b1 = 1 - (1 - u)^3, b2 = 3u^2 - 2u^3, b3 = u^3. Each factor is an
  exponential of an arbitrary rotation vector, so the middle one may carry any
  number of turns. w1 = h_i omega_i / 3 and w3 = h_i omega_{i+1} / 3 make the
  angular velocity at each key (body frame) equal omega at that key from both
  sides, omega_j = (rho_{j-1} + rho_j) / (h_{j-1} + h_j) (the centred
  difference interp's Squad uses; one-sided at the ends and next to a step):
  C1 at every key, turns included. w2 closes the interval on the next key with
  the whole number of turns nearest rho_i - w1 - w3. A uniform spin keyed at
  even spacing gives w1 = w2 = w3 = rho / 3 and b1 + b2 + b3 = 3u: exactly
  slerp, constant speed;
* nlerp and lerp cannot turn more than 180 deg between two quaternions (their
  chord passes through zero at 180 deg). An interval whose turn is longer is
  split into equal parts of at most 90 deg along its keyed turn (the slerp
  points at j/m of the way) and each part is nlerped (lerped) as usual: the
  turn is kept, with nlerp's slight speed-up in the middle of every part.

Timing: by default u is the sample's even fraction of its interval (constant
angular speed for slerp). With ``progress`` (Timing: Keyed) u is instead the
fraction of its keyed turn Blender's playback has swept at that sample
(core.turns.Tracking.progress), so the method's path is travelled with the
ease of the keys; for nlerp and lerp that angle fraction is turned into each
part's chord parameter (``sin(s W) / (sin(s W) + sin((1 - s) W))`` for a part
of 4D angle W), for Squad it is used as the curve parameter.

Output signs are not continuous across keys (a key and its negation are the
same rotation); apply quat.make_continuous before writing quaternion keys.
"""
from __future__ import annotations

import numpy as np

from . import interp, quat, turns
from .arcs import arcs
from .frames import as_frames

# An interval turning more than this (radians, plus rounding) is split for
# nlerp / lerp into parts of at most NLERP_PART.
NLERP_LIMIT = np.pi + 1e-9
NLERP_PART = np.pi / 2

# slerp: whole turns about an axis within this sine of the short arc's (rounding: the
# tracking's axis is the short arc normalised) are turned as one rotation with it; 50
# turns 1e-12 off the axis end 3e-13 rad (a 0.3 rad short arc) to 2e-12 rad (3 rad)
# from the product of the two.
PARALLEL_SIN = 1e-12


def _e(v: np.ndarray) -> np.ndarray:
    """exp(v / 2) for full-angle rotation vectors v (..., 3): unit quaternions."""
    return quat.exp(0.5 * v)


def _turn_vectors(short, axis, whole) -> np.ndarray:
    """short + 2 pi whole axis, per interval, for one transform or a group (``...``)."""
    return short + (2.0 * np.pi * np.asarray(whole, dtype=np.float64))[..., None] * axis


def _two_axes(short, axis, whole) -> np.ndarray:
    """Per interval, whether its turn is two rotations about different axes: whole turns
    kept about another axis than the short arc's (the caller's own, or the playback's where
    the short arc is too small to have one: under turns.SHORT_AXIS_EPS, but not zero)."""
    short_angle = quat.norm(short)
    off_axis = quat.norm(np.cross(short, axis)) > PARALLEL_SIN * short_angle
    return (whole != 0) & (short_angle > 0.0) & ((short_angle <= turns.SHORT_AXIS_EPS)
                                                 | off_axis)


def _slerp_points(q, short, axis, whole, index, s) -> np.ndarray:
    """q_i E(s short_i) E(s 2 pi whole_i axis_i) for each sample (index, s).

    One transform: q (k, 4), short and axis (k-1, 3), whole (k-1,), s (m,); or a group
    keyed on the same frames, each with a leading (b,) axis (``slerp_many``).

    Where the whole turns are about the short arc's own axis (core.turns: wherever the
    short arc has one), the two exponentials are one, E(s rho_i) with rho_i = short_i +
    2 pi whole_i axis_i: a rotation about one axis, whose points are cos(s |rho_i|/2) q_i
    + sin(s |rho_i|/2) q_i (0, rho_i/|rho_i|). The tangent q_i (0, n_i) is made once per
    interval, so a sample costs a cosine, a sine and two scalings, not two exponentials
    and two products (a third of the time of the report's path on 100 objects x 2,000
    frames). An interval that keeps whole turns about another axis (the caller's own,
    or the playback's where the short arc is too small to have one: under
    turns.SHORT_AXIS_EPS, but not zero) is a product of two rotations about different
    axes: those samples are taken from the product itself."""
    rho = _turn_vectors(short, axis, whole)                   # (..., k-1, 3)
    turn = quat.norm(rho)
    tangent = np.zeros(rho.shape[:-1] + (4,))
    np.divide(rho, turn[..., None], out=tangent[..., 1:], where=(turn > 0.0)[..., None])
    tangent = quat.multiply(q[..., :-1, :], tangent)                # q_i (0, n_i)
    half = s * np.take(0.5 * turn, index, axis=-1)
    out = (np.cos(half)[..., None] * np.take(q, index, axis=-2)
           + np.sin(half)[..., None] * np.take(tangent, index, axis=-2))
    # Two axes where the short arc is too small to have one, or where the caller's axis
    # is not the short arc's (core.turns never gives such, interpolate_turns may be).
    two_axes = _two_axes(short, axis, whole)
    if np.any(two_axes):
        a = quat.multiply(np.take(q, index, axis=-2),
                          _e(s[..., None] * np.take(short, index, axis=-2)))
        b = _e((s * 2.0 * np.pi * np.take(whole, index, axis=-1))[..., None]
               * np.take(axis, index, axis=-2))
        out = np.where(np.take(two_axes, index, axis=-1)[..., None], quat.multiply(a, b), out)
    return out


def _key_velocities(times, rho, breaks) -> np.ndarray:
    """Angular velocity (rad/frame, body frame) at each key, (k, 3)."""
    h = np.diff(times)
    k = times.shape[0]
    live = ~breaks
    per = np.where(live[:, None], rho / h[:, None], 0.0)        # (k-1, 3) one-sided
    omega = np.zeros((k, 3))
    omega[0] = per[0]
    omega[-1] = per[-1]
    if k > 2:
        left, right = live[:-1], live[1:]
        both = left & right
        centred = (rho[:-1] + rho[1:]) / (h[:-1] + h[1:])[:, None]
        omega[1:-1] = np.where(both[:, None], centred,
                               np.where(left[:, None], per[:-1], per[1:]))
    return omega


def _squad_points(times, q, short, axis, whole, breaks, index, s) -> np.ndarray:
    rho = _turn_vectors(short, axis, whole)
    omega = _key_velocities(times, rho, breaks)
    h = np.diff(times)
    w1 = h[:, None] * omega[:-1] / 3.0
    w3 = h[:, None] * omega[1:] / 3.0
    rel = quat.multiply(quat.conjugate(q[:-1]), q[1:])
    m = quat.multiply(quat.multiply(_e(-w1), rel), _e(-w3))
    m = np.where(m[:, :1] < 0.0, -m, m)
    r2 = 2.0 * quat.log(m)[:, 1:]
    r2_len = quat.norm(r2)
    target = rho - w1 - w3
    t_len = quat.norm(target)
    axis2 = np.where((r2_len > turns.SHORT_AXIS_EPS)[:, None],
                     r2 / np.where(r2_len > 0.0, r2_len, 1.0)[:, None],
                     np.where((t_len > turns.SHORT_AXIS_EPS)[:, None],
                              target / np.where(t_len > 0.0, t_len, 1.0)[:, None],
                              np.array([0.0, 0.0, 1.0])))
    j2 = np.round((np.einsum("ij,ij->i", target, axis2) - r2_len) / (2.0 * np.pi))
    one = 1.0 - s
    b1 = 1.0 - one**3
    b2 = s * s * (3.0 - 2.0 * s)
    b3 = s**3
    out = quat.multiply(q[index], _e(b1[:, None] * w1[index]))
    out = quat.multiply(out, _e(b2[:, None] * r2[index]))
    out = quat.multiply(out, _e((b2 * 2.0 * np.pi * j2[index])[:, None] * axis2[index]))
    return quat.multiply(out, _e(b3[:, None] * w3[index]))


def _chord_points(q, short, axis, whole, index, s, normalise: bool, angle_fraction: bool):
    total = quat.norm(_turn_vectors(short, axis, whole))
    parts = np.where(total > NLERP_LIMIT, np.ceil(total / NLERP_PART), 1.0)
    p = parts[index]
    j = np.clip(np.floor(s * p), 0.0, p - 1.0)
    local = s * p - j
    a = _slerp_points(q, short, axis, whole, index, j / p)
    b = _slerp_points(q, short, axis, whole, index, (j + 1.0) / p)
    b = np.where(quat.dot(a, b)[:, None] < 0.0, -b, b)
    if angle_fraction:
        half = 0.5 * total[index] / p            # 4D angle of one part
        sa, sb = np.sin(local * half), np.sin((1.0 - local) * half)
        den = sa + sb
        local = np.where(half > 1e-9, sa / np.where(half > 1e-9, den, 1.0), local)
    out = (1.0 - local)[:, None] * a + local[:, None] * b
    return quat.normalize(out, "nlerp") if normalise else out


def interpolate_turns(key_times, key_quats, short, axis, whole, sample_times,
                      method: str = "slerp", progress=None, breaks=None) -> np.ndarray:
    """Orientation (m, 4) at ``sample_times`` following each interval's turn.

    key_times (k,), key_quats (k, 4) unit; short (k-1, 3), axis (k-1, 3) and
    whole (k-1,) describe each interval's turn (core.turns.Tracking, with whole
    set to 0 where the short arc is wanted); method one of interp.METHODS;
    progress (m,) optional fractions along each sample's interval (Timing:
    Keyed; NaN entries use the even fraction); breaks (k-1,) bool: intervals
    that are not part of the smooth curve (steps), for Squad's key velocities.
    Samples before the first key hold it, after the last hold the last.
    """
    if method not in interp.METHODS:
        raise ValueError(f"Unknown interpolation method {method!r}: use one of "
                         f"{', '.join(interp.METHODS)}.")
    times = as_frames(key_times, "key_times")
    q = quat.normalize(key_quats, "key_quats")
    samples = as_frames(np.atleast_1d(sample_times), "sample_times", copy=False)
    k = times.shape[0]
    if k == 1:
        return np.repeat(q, samples.shape[0], axis=0)
    short = np.asarray(short, dtype=np.float64).reshape(k - 1, 3)
    axis = np.asarray(axis, dtype=np.float64).reshape(k - 1, 3)
    whole = np.asarray(whole, dtype=np.float64).reshape(k - 1)
    brk = np.zeros(k - 1, dtype=bool) if breaks is None else np.asarray(breaks, dtype=bool)
    index, u = interp.segment_params(times, samples)
    keyed_timing = progress is not None
    if keyed_timing:
        prog = np.asarray(progress, dtype=np.float64).ravel()
        if prog.shape != u.shape:
            raise ValueError(f"progress has {prog.size} entries for {u.size} samples.")
        within = (samples > times[0]) & (samples < times[-1])
        s = np.where(within & np.isfinite(prog), prog, u)
    else:
        s = u
    if method == "slerp":
        return _slerp_points(q, short, axis, whole, index, s)
    if method == "squad":
        return _squad_points(times, q, short, axis, whole, brk, index, s)
    return _chord_points(q, short, axis, whole, index, s, normalise=(method == "nlerp"),
                         angle_fraction=keyed_timing)


def _kept_turns(tracking, kinds, setting: str) -> tuple[np.ndarray, np.ndarray]:
    """(whole turns kept per interval, stepped intervals) of a path built with ``setting``."""
    keep = turns.choose(setting, kinds)
    stepped = np.array([k == "step" for k in kinds], dtype=bool)
    if setting != "SHORTEST":
        # A "short" interval may still carry a whole turn: the tie at 180 deg,
        # where Blender's way round (e.g. Euler 0 -> 180, which float32 stores
        # as 180.0000025 deg) is as short as the other way, within the margin.
        # Follow Blender's direction there; Shortest keeps the old tie-break.
        keep = keep | np.array([k == "short" for k in kinds], dtype=bool)
    return np.where(keep, tracking.whole, 0), stepped


def is_plain(tracking, kinds, setting: str, timing: str) -> bool:
    """Whether :func:`interpolate_keys` is plain ``interp.interpolate`` for these keys:
    no whole turn kept, no step, even timing (so a group of them can be interpolated
    together with ``interp.interpolate_many``)."""
    if timing != "EVEN":
        return False
    whole, stepped = _kept_turns(tracking, kinds, setting)
    return not (whole != 0).any() and not stepped.any()


def slerp_many(key_times, key_quats, trackings, kinds, setting: str, sample_times,
               timing: str = "EVEN") -> np.ndarray:
    """(b, m, 4): :func:`interpolate_keys` with slerp of b transforms keyed on the same
    frames, key_quats (b, k, 4), none with a stepped interval (see ``has_steps``): the
    report's Timing: Keyed path of a rig's bones in one pass, not a call per bone."""
    times = as_frames(key_times, "key_times")
    q = quat.normalize(key_quats, "key_quats")
    samples = as_frames(np.atleast_1d(sample_times), "sample_times", copy=False)
    if times.shape[0] == 1:
        return np.repeat(q, samples.shape[0], axis=1)
    whole = np.stack([_kept_turns(t, k, setting)[0] for t, k in zip(trackings, kinds)])
    short = np.stack([t.short for t in trackings])
    axis = np.stack([t.axis for t in trackings])
    index, u = interp.segment_params(times, samples)
    s = np.broadcast_to(u, (q.shape[0], u.size))
    if timing == "KEYED":
        inside = (samples > times[0]) & (samples < times[-1])
        progress = np.full(s.shape, np.nan)
        for row, tracking in zip(progress, trackings):
            row[inside] = tracking.progress_at(samples[inside])
        s = np.where(inside & np.isfinite(progress), progress, u)
    if whole.any():
        return _slerp_points(q, short, axis, whole.astype(np.float64), index, s)
    # Short arcs only (the report's usual case): the same great circles as
    # q_i E(s short_i), from each key towards the next on its near side, as
    # cos(s omega) q_i + sin(s omega) e_i with the arcs found once per interval:
    # no exponential and no quaternion product per sample.
    start, end = q[:, :-1], q[:, 1:]
    end = np.where(quat.dot(start, end)[..., None] < 0.0, -end, end)
    omega, tangent = arcs(start, end)
    angle = s * np.take(omega, index, axis=1)
    return (np.cos(angle)[..., None] * np.take(q, index, axis=1)
            + np.sin(angle)[..., None] * np.take(tangent, index, axis=1))


def arc_distances(key_times, key_quats, trackings, kinds, setting: str,
                  sample_times, quats) -> np.ndarray:
    """(b, m) radians from each rotation ``quats`` (b, m, 4) to the slerp path its
    sample's key interval draws (b transforms keyed on the same frames, key_quats
    (b, k, 4), as :func:`slerp_many` builds it with ``setting``): the nearest point of
    the arc, wherever along it, not the path's point at some fraction. nlerp and lerp
    draw the same arcs (their chords are normalised onto them); Squad does not.

    A kept whole turn makes the arc the whole circle of its axis. NaN where the path
    is not one arc: a stepped interval, whole turns about another axis than the short
    arc's (core.turns.SHORT_AXIS_EPS), and samples outside the keyed range (the path
    there is the end key held)."""
    times = as_frames(key_times, "key_times")
    q = quat.normalize(key_quats, "key_quats")
    samples = as_frames(np.atleast_1d(sample_times), "sample_times", copy=False)
    r = np.asarray(quats, dtype=np.float64)
    out = np.full(r.shape[:2], np.nan)
    if times.size < 2:
        return out
    kept = [_kept_turns(t, k, setting) for t, k in zip(trackings, kinds)]
    whole = np.stack([w for w, _stepped in kept]).astype(np.float64)        # (b, k-1)
    stepped = np.stack([s for _whole, s in kept])
    short = np.stack([t.short for t in trackings])
    axis = np.stack([t.axis for t in trackings])
    one_arc = ~stepped & ~_two_axes(short, axis, whole)
    rho = _turn_vectors(short, axis, whole)
    turn = quat.norm(rho)
    unit = np.zeros_like(rho)
    np.divide(rho, turn[..., None], out=unit, where=(turn > 0.0)[..., None])
    # The arc of interval i is the unit quaternions cos(p) q_i + sin(p) t_i, p in
    # [0, |rho_i| / 2], t_i = q_i (0, n_i) (n_i its axis): a plane's great circle.
    tangent = quat.multiply(q[:, :-1], np.concatenate((np.zeros(unit.shape[:-1] + (1,)),
                                                       unit), axis=-1))
    index, _u = interp.segment_params(times, samples)
    start, along = np.take(q, index, axis=1), np.take(tangent, index, axis=1)
    a = np.einsum("...i,...i->...", r, start)
    b = np.einsum("...i,...i->...", r, along)
    # |a cos p + b sin p| peaks at p* = atan2(b, a) (mod pi). If the arc reaches p*, the
    # distance is the part of the sample off the arc's plane; else the nearer end's.
    # p* <= half, both in [0, pi), is sin(half - p*) >= 0: with (a, b) turned to b >= 0,
    # b cos(half) <= a sin(half). A whole turn kept reaches every p*.
    half = 0.5 * turn
    cos_h, sin_h = np.take(np.cos(half), index, axis=1), np.take(np.sin(half), index, axis=1)
    on_arc = (np.abs(b) * cos_h <= np.where(b < 0.0, -a, a) * sin_h) \
        | np.take(half >= np.pi, index, axis=1)
    # r is unit: the square of its part off the plane is 1 - a^2 - b^2 (rounding leaves it
    # at most 1e-6 deg off near zero, against the report's 0.01 deg).
    plane = a * a + b * b
    distance = 2.0 * np.arctan2(np.sqrt(np.maximum(1.0 - plane, 0.0)), np.sqrt(plane))
    ends = ~on_arc
    if ends.any():       # rare: Blender leaves the arc past its ends (the long way round)
        h = np.take(half, index, axis=1)[ends][..., None]
        end = np.cos(h) * start[ends] + np.sin(h) * along[ends]
        distance[ends] = np.minimum(quat.angle_between(r[ends], start[ends]),
                                    quat.angle_between(r[ends], end))
    inside = (samples >= times[0]) & (samples <= times[-1])
    usable = inside[None, :] & np.take(one_arc, index, axis=1)
    out[usable] = distance[usable]
    return out


def has_steps(kinds) -> bool:
    """Whether any interval of ``kinds`` (core.turns.classify) is stepped."""
    return "step" in kinds


def interpolate_keys(key_times, key_quats, tracking, kinds, setting: str, method: str,
                     sample_times, timing: str = "EVEN", blender=None) -> np.ndarray:
    """The orientation a bake (or the report's method) gives at ``sample_times``.

    tracking: core.turns.track of the same keys (its samples must include
    ``sample_times`` inside the keyed range when timing is 'KEYED'); kinds:
    core.turns.classify; setting: 'AUTO' | 'SHORTEST' | 'KEYED'; timing:
    'EVEN' | 'KEYED'; blender (m, 4): Blender's own orientation at the
    samples, which step intervals follow (a hold, then the jump on the key's
    frame; with mixed CONSTANT and moving channels, what Blender plays).
    Without steps, kept turns or keyed timing this is exactly
    ``interp.interpolate`` (bit for bit: the short-arc path of before).
    """
    if timing not in turns.TIMING_SETTINGS:
        raise ValueError(f"Unknown timing {timing!r}: use one of "
                         f"{', '.join(turns.TIMING_SETTINGS)}.")
    whole, stepped = _kept_turns(tracking, kinds, setting)
    samples = as_frames(np.atleast_1d(sample_times), "sample_times", copy=False)
    if not (whole != 0).any() and not stepped.any() and timing == "EVEN":
        return interp.interpolate(key_times, key_quats, samples, method)
    progress = None
    times = np.asarray(key_times, dtype=np.float64)
    if timing == "KEYED":
        inside = (samples > times[0]) & (samples < times[-1])
        progress = np.full(samples.shape[0], np.nan)
        progress[inside] = tracking.progress_at(samples[inside])
    out = interpolate_turns(times, key_quats, tracking.short, tracking.axis, whole, samples,
                            method, progress, stepped)
    if stepped.any():
        index = np.clip(np.searchsorted(times, samples, side="right") - 1, 0, times.size - 2)
        held = stepped[index] & (samples >= times[0]) & (samples < times[index + 1])
        if blender is None:
            out[held] = quat.normalize(key_quats, "key_quats")[index[held]]
        else:
            out[held] = quat.normalize(blender, "blender")[held]
    return out
