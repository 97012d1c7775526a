# SPDX-License-Identifier: GPL-3.0-or-later
"""Few BEZIER keys, with their handles, that Blender plays within a tolerance of a bake.

A dense bake has the method's orientation on every sample (quarter frames or
finer, so motion blur's sub-frame samples are covered) and the channel values
written for it. This module chooses key frames shared by every channel of the
rotation (one pose is one key in the Dope Sheet) and, per channel, the key
values and both handles, such that Blender's own playback - each channel a
Bezier F-curve evaluated as :mod:`core.fcurve` does it, then the quaternion
normalised or the Euler angles composed - is within the tolerance of the
target orientation at EVERY sample. That is measured, not estimated: the keys
are rounded to float32 (what Blender stores) and played by :func:`bezier_play.play` at
every sample (core.fcurve's evaluation, every channel and track at once, each
sample's segment known; core.fcurve.evaluate_many itself where that does not
converge); the result is returned only when its worst sample is within
``tolerance - margin`` (:func:`margin_deg`).

The curve between two keys a < b (D frames apart), per channel:

- key values: the target's channel values there (a key is the exact pose);
- handle directions: the target's own slope (value per frame) at the key, from
  the dense values (a 5-sample polynomial, fourth order). At a key the
  animator did not set, both handles take the two-sided slope: collinear,
  ALIGNED, the curve is smooth there (drag one handle and the other follows).
  At a required key (the animator's own keys, a stepped interval's ends) each
  side takes its one-sided slope: FREE handles, because a slerp (like most
  re-bakes) turns a corner at every key it interpolates, which an aligned
  handle could only blur over several extra keys. The same at a corner (a key
  frame of the input that need not stay a key): where a key lands there, it
  takes the one-sided slopes; no slope's samples reach across one. A recording's
  key (a capture's frame) is a corner where the target's angular velocity jumps
  there by enough that an aligned handle could carry it unseen between two samples
  (``_Batch._recorded_corners``: a slerp of the frames turns a corner at each).
- handle lengths: each side and channel its own, a fraction of D in
  [LENGTH_MIN, LENGTH_MAX] (core.bezier_fit), fitted by least squares on
  FIT_SAMPLES samples of the span (Gauss-Newton through Blender's time solve
  x(t) = frame), started from the lengths that also match the target's second
  derivative at both keys. With the directions fixed this is geometric Hermite interpolation,
  sixth order in the span's length where 1/3 handles (a cubic Hermite curve)
  are fourth: on three-axis Euler tracks a third of the keys 1/3 handles need
  at 0.01 deg, half at 0.1 deg.
- every number is written explicitly: AUTO / AUTO_CLAMPED handles would be
  recomputed by Blender as soon as the curve is edited or updated, and would
  no longer be the fit. ALIGNED handles are given as Blender's own re-alignment
  leaves them (:func:`aligned_as_blender`, its float32 arithmetic), and are
  played and written so.
- a stepped interval (CONSTANT in the input) stays CONSTANT: its start key is
  written CONSTANT, its end key is required, nothing is fitted inside.

Choosing the keys (all spans of all tracks at once, whole-array numpy; no loop
per sample or per key): between consecutive required keys, a greedy farthest
reach - from the last key, the farthest whole frame whose span fits - all open
spans tried together each round, each next try from an error model
(``_Batch._next_try``: two to four tries a key). A try is checked on
CHECK_COARSE, then CHECK_SAMPLES samples of its span (the fit's error varies
smoothly across it) against SEARCH_SHARE of the tolerance; on CHECK_COARSE
alone where those are well within it and none of the input's keys lies inside
(the final check plays every span at every sample anyway). Then the whole
result, in float32, is played (:func:`play`) at every sample, and a recording's
tracks between their samples too (FINE_PARTS: sixteenths, against the slerp of
the two samples' targets); a span that fails there is split at the whole frame
nearest its worst sample (both halves fitted and played again) until none fails.
Where the method turns so fast that no keys on whole frames can follow it (Euler
angles passing close to gimbal lock), the split goes on the worst sample itself,
between frames (a span with no sample inside has nothing to miss, so this always
ends); ``subframes=False`` raises ToleranceUnreachable instead, as does a stepped
interval that the input does not hold.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np

from . import bezier_fit, fcurve, interp, keyreduce, quat, rotation
from .bezier_fit import CHECK_HALLEY
from .bezier_play import (
    PLAY_BLOCK,
    bezier_values,
    interpolated_times,
    play_segments,
    time_curve,
)

# Keys are stored as float32: the same margin as the LINEAR tolerance bake for
# the rounding of key values (measured here anyway: the keys are rounded before
# they are played), plus Blender's float32 arithmetic in its Bezier evaluation
# (a cubic evaluated in float32: a few roundings of the value's size per
# channel, up to four channels): ULPS float32 epsilons of the largest channel
# value (radians or quaternion units), in degrees.
FLOAT32_MARGIN_DEG = keyreduce.FLOAT32_MARGIN_DEG
FLOAT32_ARITHMETIC_ULPS = 16
_EPS32 = float(np.finfo(np.float32).eps)

# Samples per candidate span: the handle lengths are fitted on FIT_SAMPLES of
# them and the span is checked on CHECK_SAMPLES (evenly spread; all of them
# when the span has fewer), against SEARCH_SHARE of the tolerance so that the
# samples in between (checked at the end, all of them) stay within it.
FIT_SAMPLES = 8
CHECK_SAMPLES = 32
CHECK_COARSE = 8
SEARCH_SHARE = 0.95
# The final check plays every span at every sample anyway: where a try's coarse samples
# miss by at most this share of the search tolerance, and none of the input's keys lies
# inside it (_next_kink), they decide it alone. The in-between samples were a third of a
# quaternion bake's search and two thirds of an Euler bake's checks; on the timing
# benchmark's Euler tries they miss by at most 1.41 times the coarse ones in 99% of those
# that pass, so a try passed at half that fails between its samples is rare (the final
# check splits it). At the input's keys the target may turn between two coarse samples: a
# capture's every frame (across those, for every try, a CMU walk at 1 deg took 806 -> 823
# keys). First a stretch's last span only (at 0.7 a capture's bone took a key more), then
# every try: the timing benchmark's Euler bake 12,046 -> 12,042 keys, its search's checks
# 0.23 -> 0.15 s CPU; the CMU walk's keys as they were.
COARSE_DECIDES = 0.5
# The length model's exponent before two tries measure it (see _next_try):
# geometric Hermite interpolation's error grows with the span's sixth power.
SEARCH_POWER = 6.0

# A key's exact slope (_Batch.exact_slopes) from the target this share of the sample
# step away, and twice that: second order, off by about (share x step)^2 of the third
# derivative, 1e-8 of the slope on a capture's 103 deg/frame turn.
EXACT_STEP = 1e-4
# Points inside such a span (_Batch._exact_lengths) its handle lengths are fitted to: the
# sixteenths the final check plays there, and the 32nds between them.
EXACT_PARTS = 8

# Rounds of the final check before giving up (each splits every failing span).
MAX_FIX_ROUNDS = 50

# A sample time within this many frames of a whole frame is on it.
_WHOLE = 1e-6

# The final check plays a recording's tracks between their samples too, at this many
# parts of each sample step (quarter frames: sixteenths), against the slerp of the two
# samples' targets (a slerp of the recording's keys is exactly that). See accept.
FINE_PARTS = 4

# A recording's key is a corner where an ALIGNED handle there could stray this share of
# the tolerance between the samples beside it (see _Batch._recorded_corners).
RECORDED_CORNER_SHARE = 1.0 - SEARCH_SHARE

# A span of quaternion keys turns at most this far (deg): past 180 deg the Difference
# Report, and any reader of the keys, takes it for the long way round (four channels
# cannot spin on purpose: a sign flipped). A four-turn spin baked to Output: Quaternion
# at 1 deg kept a key per turn, which Blender played within the tolerance and the report
# after it called 180 deg off. Whatever the tolerance: the keys are the target's poses,
# and a playback that turned a whole turn otherwise than the target between them would
# be 180 deg from it somewhere (a loop of rotations that makes a whole turn leaves the
# ball of those under 180 deg). (A review: a cap lowered by twice the tolerance made a
# looser tolerance keep more keys, a key per frame for a short bone's tip tolerance.)
# Not less: a span of one slerp between two keys turns less than 180 deg and needs no
# key inside (170 deg gave the timing benchmark's quaternion bake 12% more keys).
MAX_SPAN_TURN_DEG = 179.0

INTERPOLATIONS = ("CONSTANT", "LINEAR", "BEZIER")   # index = core.fcurve's enum value

# A target quaternion whose squared norm is within this of 1 is unit already (a norm off
# by 2e-15 at most, what normalising leaves is 2e-16: a cosine of the error off by as
# much, 3e-9 deg at a 0.01 deg tolerance).
_UNIT_SQUARED = 4e-15


def _short(q: np.ndarray) -> np.ndarray:
    """Unit quaternions (k, 4) on the hemisphere w >= 0 (the same rotation, short arc)."""
    return np.where(q[:, :1] < 0.0, -q, q)


@dataclass(frozen=True)
class _Fine:
    """Points between samples that the final check plays (see _Batch.fine)."""

    left: np.ndarray
    frac: np.ndarray
    t: np.ndarray
    global_t: np.ndarray
    target: np.ndarray


class ToleranceUnreachable(ValueError):
    """No keys play within the tolerance: the method turns too far within one frame
    (with subframes=False), or a stepped interval is not held in the input."""


@dataclass(frozen=True)
class Track:
    """One dense bake of a rotation.

    times (m,) increasing frames, quarter frames or finer (keys go on samples
    at whole frames, or at a required frame); quats (m, 4) the target
    orientation (w, x, y, z) the written channels must play (with a delta
    rotation: the channels' own half, as in core.keyreduce's Blender check);
    values (m, c) the channel values the bake writes there in ``mode``
    ('QUATERNION' hemisphere-continuous, an Euler order continuous with no
    +-360 wraps, 'AXIS_ANGLE'); required: frames that must be keys (the
    animator's own keys: pass them all unless the user asks otherwise), each
    one a sample time; stepped (s, 2): (start, end) frames of CONSTANT
    intervals, both sample times (required keys; the start key is CONSTANT);
    corners: frames where the target may turn a corner but need not be keys (the
    animator's keys when the user lets them go), each one a sample time; recorded: the
    key frames of a recording (a key on every frame: mocap, a sampled import), which the
    fit thins, and keys as they are where thinning would keep more than them, each one a
    sample time; slerp_between: the target between two neighbouring samples is the slerp
    of theirs (a slerp of a recording's frames, evenly timed), so the final check plays
    the points between them too (FINE_PARTS). For another path (Squad, nlerp, a
    conversion's Blender playback) that slerp is not the target: a review measured it
    2.4 deg off a Squad path, and a check against it added a third more keys while
    missing the real gap.
    """

    times: np.ndarray
    quats: np.ndarray
    values: np.ndarray
    mode: str
    required: np.ndarray | None = None
    stepped: np.ndarray | None = None
    corners: np.ndarray | None = None
    recorded: np.ndarray | None = None
    slerp_between: bool = False


@dataclass(frozen=True)
class BezierKeys:
    """Keys for every channel of one rotation, all on the same frames.

    frames (k,); values (k, c); handle_left, handle_right (k, c, 2): (frame,
    value) per key and channel (Keyframe.handle_left / handle_right);
    interpolation (k,) 'BEZIER' or 'CONSTANT' (a stepped interval's start, and the
    last key after one);
    handle_type (k,) 'ALIGNED' or 'FREE' (Keyframe.handle_left_type and
    handle_right_type, both sides the same); required (k,) bool. Every number
    is a float32 value (what Blender stores) held as float64. max_error_deg:
    the worst sample of Blender's playback of these keys against the target (and,
    for a recording, of the points between samples the final check plays: FINE_PARTS),
    measured (to ~1e-6 deg: the angle is read from its half-angle's cosine), at
    most tolerance_deg - margin_deg (but at a point between two samples that are both
    keys: a span with no sample inside, which the check cannot split). played (m, c):
    that playback's channel values at the track's sample times (what a measurement after
    the write need not play again where Blender stores these very numbers), or None;
    closeness (m,): its |cos(error / 2)| at each sample (the error measured, sample by
    sample), or None.
    """

    mode: str
    frames: np.ndarray
    values: np.ndarray
    handle_left: np.ndarray
    handle_right: np.ndarray
    interpolation: np.ndarray
    handle_type: np.ndarray
    required: np.ndarray
    max_error_deg: float
    tolerance_deg: float
    margin_deg: float
    played: np.ndarray | None = None
    closeness: np.ndarray | None = None

    def fcurve_arrays(self, channel: int):
        """(co, handle_left, handle_right, interpolation) of one channel's F-curve:
        (k, 2), (k, 2), (k, 2), (k,) core.fcurve enum values, as core.fcurve.evaluate
        takes them (and foreach_set writes them)."""
        co = np.column_stack((self.frames, self.values[:, channel]))
        return (co, self.handle_left[:, channel].copy(), self.handle_right[:, channel].copy(),
                self.interpolation_enum.copy())

    @functools.cached_property
    def interpolation_enum(self) -> np.ndarray:
        """(k,) core.fcurve enum values of ``interpolation``: matched once, not per channel
        (a bake asks for each channel's arrays twice, the write and its measurement: the
        string matching was half of 16 ms for 100 quaternion rotations)."""
        match = np.asarray(self.interpolation)[:, None] == np.array(INTERPOLATIONS)
        if not match.any(axis=1).all():
            raise ValueError(f"BezierKeys: interpolation other than {', '.join(INTERPOLATIONS)}.")
        return np.argmax(match, axis=1).astype(np.int64)


def margin_deg(values) -> float:
    """How far under the tolerance a track's keys must play (degrees): see
    FLOAT32_MARGIN_DEG and FLOAT32_ARITHMETIC_ULPS."""
    peak = float(np.abs(np.asarray(values, dtype=np.float64)).max(initial=1.0))
    return FLOAT32_MARGIN_DEG + float(np.degrees(FLOAT32_ARITHMETIC_ULPS * _EPS32 * peak))


# The finest step bending_gaps samples a gap in (frames).
BEND_FINEST = 1.0 / 64.0
# A gap where the Euler channels change faster than this together (radians per frame): a
# fast turn (a capture's forearm turned 103 deg in a frame) or angles swinging near
# gimbal lock. The timing benchmark's Euler tracks (keys of +-3 rad every 50 frames)
# change 0.07 rad a frame at the median, 0.15 at the 90th percentile; 1.9% of their
# quarter frames pass this.
FAST_RATE = 0.4


# Radians of rotation per unit of a channel, near a sample: an Euler angle's own, and a
# unit quaternion's component moving by d turns it by up to 2 d (the half angle).
_ANGLE_PER_UNIT = {**{order: 1.0 for order in rotation.EULER_ORDERS}, 'QUATERNION': 2.0}


def bending_gaps(times, values, mode: str, tolerance_deg: float, kinks=None) -> np.ndarray:
    """Points between the samples ``times`` (m,) of an Euler track (channel ``values``
    (m, 3) in ``mode``) where the path must be sampled too, or none for other modes.

    Which gaps: those whose channels change fast (FAST_RATE) beside a sample where some
    channel bends by more than the tolerance within the gap (its second derivative
    times the gap squared, radians). How finely: each such gap split in equal parts, a
    power of two and at least two, enough to bring an eighth of that bend (how far a
    straight line between two samples misses such a bend) under the tolerance, down to
    steps of BEND_FINEST.

    Why: the fit is checked at the samples only, and Euler angles that turn fast or
    swing near gimbal lock (a capture's forearm 1 rad in half a frame) bend so much
    within a step that Bezier keys can stray far between two samples, where motion
    blur and subframes play them. At 0.01 deg, within the tolerance at every quarter
    frame: a Squad bake of a capture played 2.0 deg off at frame 58.09, an nlerp bake of
    keys through 89.9 deg of pitch 0.18 deg, a slerp bake of the timing benchmark's
    scene (30 objects x 600 frames) 0.24 deg, 7 objects of 30 past the tolerance. Not
    elsewhere: a slow bend is fitted between the samples as at them; sampling every
    bend past the tolerance took that benchmark's Euler bake 2.3 times as long, for 1%
    more keys. The derivative is a divided difference, so that the samples of a gap
    split already do not read as bends beside coarser ones. ``kinks``: the input's key
    frames, where the path may turn a corner (a slerp turns one at every key), which is
    no bend: the fit keys a corner and takes a slope on each side of it. Returns the new
    times, sorted (none: an empty array).
    """
    times = np.asarray(times, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if times.size < 3 or mode not in _ANGLE_PER_UNIT:
        return np.zeros(0)
    h = np.diff(times)
    slope = _ANGLE_PER_UNIT[mode] * np.diff(values, axis=0) / h[:, None]
    second = 2.0 * np.abs(np.diff(slope, axis=0)).max(axis=1) / (h[:-1] + h[1:])
    at = np.zeros(times.size)                            # at samples 1..m-2
    at[1:-1] = second
    if kinks is not None and np.size(kinks):
        near = np.clip(np.searchsorted(times, kinks), 1, times.size - 1)
        near -= (np.abs(times[near - 1] - kinks) < np.abs(times[near] - kinks))
        at[near[np.abs(times[near] - kinks) <= _WHOLE]] = 0.0
    over = np.maximum(at[:-1], at[1:]) * h * h / np.radians(tolerance_deg)   # per gap
    finest = np.floor(h / BEND_FINEST + 1e-9)
    gaps = np.flatnonzero((over > 1.0) & (finest >= 2.0)
                          & (np.abs(slope).sum(axis=1) > FAST_RATE))
    if not gaps.size:
        return np.zeros(0)
    # Powers of two, so that a quarter frame splits into 64ths at the finest (what a
    # test, or a render's motion blur, samples).
    wanted = np.sqrt(np.maximum(over[gaps] / 8.0, 4.0))
    parts = np.minimum(2.0 ** np.ceil(np.log2(wanted)),
                       2.0 ** np.floor(np.log2(finest[gaps]))).astype(np.int64)
    inside = parts - 1                                   # new points per gap
    gap = np.repeat(np.arange(gaps.size), inside)
    first = np.repeat(np.cumsum(inside) - inside, inside)   # each gap's first point
    part = np.arange(gap.size) - first + 1                  # 1 .. parts - 1
    return times[gaps][gap] + h[gaps][gap] * part / parts[gap]


def _as_track(track: Track) -> Track:
    if track.mode not in rotation.ROTATION_MODES:
        raise ValueError(f"Rotation mode {track.mode!r} is not one of Blender's modes "
                         f"{', '.join(rotation.ROTATION_MODES)}.")
    t = np.asarray(track.times, dtype=np.float64).reshape(-1)
    q = np.asarray(track.quats, dtype=np.float64)
    v = np.asarray(track.values, dtype=np.float64)
    c = 3 if track.mode in rotation.EULER_ORDERS else 4
    if q.shape != (t.size, 4) or v.shape != (t.size, c):
        raise ValueError(
            f"bezier_keys: {t.size} sample times need quats ({t.size}, 4) and {track.mode} "
            f"values ({t.size}, {c}); got {q.shape} and {v.shape}.")
    # A bake's quaternions are unit to float64's precision already (|q|^2 within 1.3e-15
    # of 1 on the timing benchmark): normalising them again, a copy and a pass over every
    # sample, was 17 ms of a 100-track fit for a change in the 16th digit. Any other (a
    # zero, NaN or merely scaled one) goes through quat.normalize, which names a broken one.
    squared = np.einsum("ij,ij->i", q, q)
    if not (np.abs(squared - 1.0) <= _UNIT_SQUARED).all():
        q = quat.normalize(q, "bezier_keys quats")
    if t.size < 1 or not np.isfinite(t).all() or (np.diff(t) <= 0.0).any():
        raise ValueError("bezier_keys: sample times must be finite and increasing, one or more.")
    if not np.isfinite(v).all():
        raise ValueError("bezier_keys: a channel value is NaN or infinite.")
    return Track(t, q, v, track.mode, track.required, track.stepped, track.corners,
                 track.recorded, track.slerp_between)


def _sample_index(t: np.ndarray, frames, what: str) -> np.ndarray:
    frames = np.asarray(frames, dtype=np.float64).reshape(-1)
    i = np.clip(np.searchsorted(t, frames), 0, t.size - 1)
    j = np.maximum(i - 1, 0)
    i = np.where(np.abs(t[j] - frames) < np.abs(t[i] - frames), j, i)
    off = np.abs(t[i] - frames) > _WHOLE
    if off.any():
        raise ValueError(f"bezier_keys: {what} frame {frames[off][0]:g} is not a sample time.")
    return i


def _spread(a, b, count):
    """(s, count) sample indices evenly spread strictly inside (a, b) (repeats when
    fewer), and (s,) whether the span has any sample inside."""
    inside = b - a - 1
    step = (np.arange(count) + 0.5) / count
    idx = a[:, None] + 1 + np.floor(step[None, :] * np.maximum(inside, 1)[:, None]).astype(np.int64)
    return np.minimum(idx, np.maximum(b - 1, a + 1)[:, None]), inside > 0


def _error_share(close, cos_s):
    """Spans' worst error as a share of the search tolerance, from their smallest
    |cos(e / 2)| / cos(s / 2) ``close`` and cos(s / 2) ``cos_s``, for the length model
    and the check: 1 - cos(x / 2) ~ x^2 / 8."""
    return np.sqrt(np.maximum(1.0 - close * cos_s, 0.0) / np.maximum(1.0 - cos_s, 1e-300))


def _beside(keys, k):
    """(lo, hi): for each of keys ``k`` (sample indices, among ``keys``), the key two before
    it and the key two after it (the ends where fewer): a key's new slopes change the
    spans on either side, and ALIGNED handles are re-aligned with their neighbours'."""
    at = np.searchsorted(keys, k)
    return keys[np.maximum(at - 2, 0)], keys[np.minimum(at + 2, keys.size - 1)]


def _f32(a) -> np.ndarray:
    """float32 values (what Blender stores) held as float64."""
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def aligned_as_blender(x, y, hlx, hly, hrx, hry, aligned):
    """The handles (hlx, hly, hrx, hry), each (k, c), of keys at frames x (k,) with
    values y (k, c) as Blender stores them once it has re-aligned the ALIGNED ones
    (``aligned`` (k,), both sides), in float32 as Blender computes it (the last step
    of BKE_nurb_handle_calc, for a selected key, as keyframe_points.add leaves them):
    each handle's length is measured from the key, the right handle is put opposite
    the left one at its own length, then the left one opposite that new right one.
    Other keys' handles are only rounded to float32. Returned as float64 holding
    float32 values.

    Why: a re-alignment moves a handle by a float32 step, and in a one-frame span near
    gimbal lock, where two Euler channels cancel, one step turned the rotation by
    0.008 deg. The fit plays these numbers and the bake writes them as they are
    (without fc.update(), which would re-align them again: the step is not idempotent),
    so what is measured is what Blender stores.
    """
    f = np.float32
    px = np.asarray(x, dtype=f)[:, None]
    py = np.asarray(y, dtype=f)
    h1x, h1y, h2x, h2y = (np.asarray(a, dtype=f) for a in (hlx, hly, hrx, hry))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        dx, dy = px - h1x, py - h1y
        len_a = np.sqrt(dx * dx + dy * dy)
        dx, dy = px - h2x, py - h2y
        len_b = np.sqrt(dx * dx + dy * dy)
        len_a = np.where(len_a == f(0.0), f(1.0), len_a)
        len_b = np.where(len_b == f(0.0), f(1.0), len_b)
        ratio = len_a / len_b
        eps = f(1e-5)
        on = np.asarray(aligned, dtype=bool)[:, None]
        move = on & (len_a > eps)
        inv = f(1.0) / ratio
        h2x = np.where(move, px + inv * (px - h1x), h2x)
        h2y = np.where(move, py + inv * (py - h1y), h2y)
        move = on & (len_b > eps)
        h1x = np.where(move, px + ratio * (px - h2x), h1x)
        h1y = np.where(move, py + ratio * (py - h2y), h1y)
    return (h1x.astype(np.float64), h1y.astype(np.float64), h2x.astype(np.float64),
            h2y.astype(np.float64))


class _Batch:
    """Tracks of one rotation mode, concatenated sample by sample.

    Every track's first and last samples are keys, so the samples strictly
    between two consecutive keys belong to one track.
    """

    def __init__(self, tracks: list[Track], mode: str, tolerance_deg: np.ndarray,
                 subframes: bool = True):
        # Euler tracks of several orders share one batch (one search, whose rounds cost
        # the same for many tracks as for few: a 31-bone capture converted to AUTO took
        # its six orders' searches one after the other, 7.9 s where one order took 2.3):
        # ``mode`` is then the first track's, and each sample knows its own order.
        self.mode = mode
        self.modes = [tr.mode for tr in tracks]
        self.orders = sorted(set(self.modes))
        self.subframes = subframes
        self.tracks = tracks
        self.t = np.concatenate([tr.times for tr in tracks])
        sizes = np.array([tr.times.size for tr in tracks])
        self.starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        self.ends = self.starts + sizes - 1
        # The channel values and the target, channels first (c, m) and (4, m): every
        # pass over the samples runs along a row. Written there track by track (a
        # concatenation and then its transpose were two more arrays of the samples'
        # size, each a first touch of every page).
        self.vT = np.empty((tracks[0].values.shape[1], self.t.size))
        self.qT = np.empty((4, self.t.size))
        for tr, start in zip(tracks, self.starts):
            self.vT[:, start:start + tr.times.size] = tr.values.T
            self.qT[:, start:start + tr.times.size] = tr.quats.T
        self.played = None                                 # (c, m), see play
        self.fine_close = None                             # (n,) at self.fine, see accept
        self.track = np.repeat(np.arange(len(tracks)), sizes)
        # Each sample's Euler order (an index into self.orders) where the batch has more
        # than one, else None.
        self.sample_order = None
        if len(self.orders) > 1:
            self.sample_order = np.repeat(
                np.array([self.orders.index(m) for m in self.modes], dtype=np.int8), sizes)
        # One increasing time over all tracks: each shifted by whole frames (exact
        # in float64, for float32 frames too) to start two frames after the last.
        self.shift = np.zeros(len(tracks))
        end = -np.inf
        for i, tr in enumerate(tracks):
            if i:
                self.shift[i] = np.ceil(end + 2.0 - tr.times[0])
            end = tr.times[-1] + self.shift[i]
        self.global_t = self.t + self.shift[self.track]
        n = self.t.size
        self.margins = np.array([margin_deg(tr.values) for tr in tracks])
        # One tolerance per track (a rig's bones at a tip distance each have their own).
        self.tolerances = np.broadcast_to(np.asarray(tolerance_deg, dtype=np.float64),
                                          (len(tracks),))
        tol = np.radians(self.tolerances - self.margins)
        if (tol <= 0.0).any():
            low = int(np.argmax(tol <= 0.0))
            # Four digits: at two, a margin of 0.00104 deg read "0.001", as the tolerance.
            raise ValueError(f"Key tolerance {float(self.tolerances[low]):.4g} deg is not above "
                             f"the float32 margin {self.margins[low]:.4g} deg of these channel "
                             "values.")
        self.cos_tol = np.cos(tol / 2.0)[self.track]   # |dot| of unit quaternions tol apart
        self.cos_search = np.cos(SEARCH_SHARE * tol / 2.0)   # per track (a span's own)
        self.candidate = np.abs(self.t - np.rint(self.t)) <= _WHOLE
        self.required = np.zeros(n, dtype=bool)
        self.step_start = np.zeros(n, dtype=bool)    # the segment from here is CONSTANT
        for tr, start, end in zip(tracks, self.starts, self.ends):
            self.required[[start, end]] = True
            if tr.required is not None and np.size(tr.required):
                self.required[start + _sample_index(tr.times, tr.required, "required key")] = True
            if tr.stepped is not None and np.size(tr.stepped):
                steps = np.asarray(tr.stepped, dtype=np.float64).reshape(-1, 2)
                a = start + _sample_index(tr.times, steps[:, 0], "stepped interval start")
                b = start + _sample_index(tr.times, steps[:, 1], "stepped interval end")
                if (b <= a).any():
                    raise ValueError("bezier_keys: a stepped interval ends before it starts.")
                self.required[a] = self.required[b] = True
                self.step_start[a] = True
        self.candidate |= self.required
        # Where slopes are one-sided and no stencil reaches across: required keys and
        # corners (candidates too, when on a whole frame or not).
        self.corner = self.required.copy()
        for tr, start in zip(tracks, self.starts):
            if tr.corners is not None and np.size(tr.corners):
                self.corner[start + _sample_index(tr.times, tr.corners, "corner")] = True
        self.corner |= self._recorded_corners()
        self.candidate |= self.corner
        self.cand = np.flatnonzero(self.candidate)
        self.travel = self._travel()
        # Slopes leaving a key (into the span on its right) and arriving at it:
        # one-sided at required keys and corners, two-sided elsewhere, never across
        # either (where the target may turn a corner). Computed where a span
        # first needs them (slope): a stretch that one span covers asks for its two
        # ends only, not for every whole frame inside.
        self.corners = np.flatnonzero(self.corner)
        # The input's keys, where the target may turn between two coarse samples of a try
        # (corners, and a recording's every frame): a try across one is checked in full.
        kink = self.corner.copy()
        for tr, start in zip(tracks, self.starts):
            if tr.recorded is not None and np.size(tr.recorded):
                kink[start + _sample_index(tr.times, tr.recorded, "recorded key")] = True
        self.kinks = np.flatnonzero(kink)
        # Each sample's row in the slope table (-1: none yet) and the table's rows: slope
        # out, slope in, bend out, bend in (second derivatives, the same way), each
        # (rows, c). Kept compact: four (samples, c) tables written at one sample in a
        # hundred touched every page of them, 22 ms of page faults for 100 quaternion
        # tracks x 8,000 samples, more than the derivatives themselves.
        self.slope_row = np.full(n, -1, dtype=np.int32)
        self.slope_rows = np.empty((4, max(64, self.cand.size // 8), self.vT.shape[0]))
        self.slope_count = 0
        self.exact = np.zeros(n, dtype=bool)          # slopes from exact_slopes
        self.tried = np.zeros(n, dtype=bool)          # exact slopes tried (kept or not)
        self.trial = None                              # see _try_exact
        self.exact_lengths = {}                        # see _exact_lengths

    def _recorded_corners(self) -> np.ndarray:
        """(m,) bool: a recording's keys where the target's angular velocity jumps far
        enough to be a corner (one-sided slopes, FREE handles) rather than smooth.

        Why: a recorded key takes the two-sided slope, ALIGNED handles; where the target
        turns a corner there (a slerp of a capture's frames: its speed changes at every
        frame, 82 deg/frame to a few on the CMU walk's frame 2), that slope is off the
        target's on one side by up to the jump |dw| (per frame, body frame: each side of
        the key is a geodesic of the slerp, whose body velocity is constant). A Bezier
        span whose end slope is off by e strays from the span with the right one by
        e D u (1 - u)^2, at most 4/27 e D (D its length), and the check sees the samples
        only: in the stretch of one sample spacing h beside the key nothing is checked,
        so up to 4/27 |dw| h strays unseen there (a fit's key between frames, a quarter
        frame from the recorded one, left 1.68 deg at 0.05 deg). Keys where that could
        pass RECORDED_CORNER_SHARE of the tolerance (what the search's SEARCH_SHARE
        leaves) are corners; elsewhere the smooth (ALIGNED) handle stays, which an
        animator drags as one. Measured on the CMU walk at 0.01 / 0.1 / 1 deg: 7,488 /
        2,937 / 755 keys (11,933 / 4,477 / 806 with no recorded corners); every key
        with any jump a corner, 7,479 / 2,898 / 701 (a one-sided slope fits a slerp's
        corner better even where an aligned one would do). The jump is taken less the
        velocity's change at the samples beside the key, so that a smooth method's
        acceleration makes no corner."""
        corner = np.zeros(self.t.size, dtype=bool)
        for k, (tr, start, end) in enumerate(zip(self.tracks, self.starts, self.ends)):
            if tr.recorded is None or not np.size(tr.recorded):
                continue
            r = start + _sample_index(tr.times, tr.recorded, "recorded key")
            r = r[(r > start) & (r < end)]
            if not r.size:
                continue
            q = self.qT.T

            def velocity(i):
                # Body angular velocity (rad per frame) of the step i -> i + 1: twice the
                # log of its relative rotation (short arc), over the step.
                i = np.clip(i, start, end - 1)
                turn = quat.log(_short(quat.multiply(quat.conjugate(q[i]), q[i + 1])))[:, 1:]
                return 2.0 * turn / (self.t[i + 1] - self.t[i])[:, None]

            w = [velocity(r + o) for o in (-2, -1, 0, 1)]
            # The jump at the key, less what the velocity changes by at the samples
            # beside it (a smooth method's acceleration, which is no corner: those
            # keep their ALIGNED handles; beside a slerp's key, inside a frame, nothing).
            # Where the track ends within two samples, the steps repeat and that part is 0.
            before = np.where((r - 2 >= start)[:, None], w[1] - w[0], 0.0)
            after = np.where((r + 2 <= end)[:, None], w[3] - w[2], 0.0)
            jump = np.linalg.norm((w[2] - w[1]) - 0.5 * (before + after), axis=1)
            tol = np.radians(self.tolerances[k] - self.margins[k])
            h = np.maximum(self.t[r] - self.t[r - 1], self.t[r + 1] - self.t[r])
            unseen = 4.0 / 27.0 * jump * h
            corner[r[unseen > RECORDED_CORNER_SHARE * tol]] = True
        return corner

    def _travel(self) -> np.ndarray:
        """(m,) degrees the target turns from the batch's first sample, for quaternion
        tracks (MAX_SPAN_TURN_DEG bounds a span's share of it); nondecreasing across
        tracks too (spans never cross one). Zero for Euler and axis-angle tracks: their
        angle channels keyed past 180 deg are a spin to any reader (0 -> 1440 deg stays
        one span, as the animator keyed it)."""
        if self.mode != "QUATERNION":
            return np.zeros(self.t.size)
        # Each step's angle from its half angle's cosine, |dot| of the unit quaternions,
        # along qT's rows: a third of quat.angle_between's cost (its cross-product form,
        # exact near 0, was 20 ms of a 100-track fit's 56 ms setup). arccos near 1 is off
        # by 2e-8 rad at most, 0.01 deg over 8,000 still samples: far inside the degree
        # MAX_SPAN_TURN_DEG leaves below 180.
        q = self.qT
        dot = q[0, :-1] * q[0, 1:]
        for c in range(1, 4):
            dot += q[c, :-1] * q[c, 1:]
        np.abs(dot, out=dot)
        np.minimum(dot, 1.0, out=dot)
        travel = np.zeros(self.t.size)
        np.cumsum(np.arccos(dot, out=dot), out=travel[1:])
        travel *= np.degrees(2.0)
        return travel

    def _turning_far(self, keys) -> np.ndarray:
        """(m,) bool: for each span between ``keys`` whose target turns past its limit
        (quaternion tracks; a span the search could not shorten, between two whole frames a
        fast turn crosses: a camera's 340 deg in one frame kept by a conversion, which the
        report then read as the long way round), the sample half-way along its turn,
        where the final check splits it. None for spans with no sample inside."""
        marked = np.zeros(self.t.size, dtype=bool)
        if self.mode != "QUATERNION" or keys.size < 2:
            return marked
        a, b = keys[:-1], keys[1:]
        fitted = (self.track[a] == self.track[b]) & ~self.step_start[a] & (b - a > 1)
        far = fitted & (self.travel[b] - self.travel[a] > MAX_SPAN_TURN_DEG)
        if far.any():
            a, b = a[far], b[far]
            middle = np.searchsorted(self.travel, 0.5 * (self.travel[a] + self.travel[b]))
            marked[np.clip(middle, a + 1, b - 1)] = True
        return marked

    def _reach(self, cur, end):
        """The farthest candidate ordinal a span from ordinal ``cur`` may end on: within
        MAX_SPAN_TURN_DEG of travel, one candidate at least, ``end`` at most. Only
        quaternion tracks travel (_travel): for the others that is ``end`` (at least
        cur + 1), without the gather of every candidate's travel and its search on each
        round of the search (7-11 ms of a 100-track Euler fit, CHANGELOG); for quaternion
        tracks the candidates' travel is gathered once."""
        if self.mode != "QUATERNION":
            return np.minimum(np.maximum(self.cand.size - 1, cur + 1), end)
        travel = self._cand_travel
        far = np.searchsorted(travel, travel[cur] + MAX_SPAN_TURN_DEG, side="right") - 1
        return np.minimum(np.maximum(far, cur + 1), end)

    @functools.cached_property
    def _cand_travel(self) -> np.ndarray:
        """The candidates' travel (see _reach)."""
        return self.travel[self.cand]

    # The slope table's rows: what slope() takes as ``kind``.
    SLOPE_OUT, SLOPE_IN, BEND_OUT, BEND_IN = range(4)

    def slope(self, kind, samples):
        """(k, c) slopes or bends (``kind``: SLOPE_OUT ... BEND_IN, or a slice of them:
        (kinds, k, c)) at sample indices ``samples`` (k,), computed (add_slopes) where
        they are first asked for."""
        samples = np.asarray(samples, dtype=np.int64).reshape(-1)
        rows = self.slope_row[samples]
        missing = rows < 0
        if missing.any():
            self.add_slopes(np.unique(samples[missing]))
            rows = self.slope_row[samples]
        return self.slope_rows[kind, rows]

    def add_slopes(self, c):
        """The target's slopes and bends (first and second derivatives) at samples
        ``c`` (unique, none of them in the table yet), leaving (out) and arriving
        (in); each sample's own numbers, whichever others come with it."""
        n = self.t.size
        req = self.corner[c]
        lo = self._prev_corner(np.where(req, np.maximum(c - 1, 0), c))
        hi = self._next_corner(np.where(req, np.minimum(c + 1, n - 1), c))
        lo = np.where(c == self.starts[self.track[c]], c, np.maximum(lo, 0))
        hi = np.where(c == self.ends[self.track[c]], c, np.minimum(hi, n - 1))
        first, count = self.slope_count, self.slope_count + c.size
        if count > self.slope_rows.shape[1]:
            grown = np.empty((4, max(count, 2 * self.slope_rows.shape[1]), self.vT.shape[0]))
            grown[:, :first] = self.slope_rows[:, :first]
            self.slope_rows = grown
        rows = self.slope_rows[:, first:count]
        both, both2 = bezier_fit.derivatives(self.t, self.vT, c[~req], lo[~req], hi[~req])
        out, into, bend_out, bend_in = self.SLOPE_OUT, self.SLOPE_IN, self.BEND_OUT, self.BEND_IN
        rows[out, ~req] = rows[into, ~req] = both
        rows[bend_out, ~req] = rows[bend_in, ~req] = both2
        r = c[req]
        rows[out, req], rows[bend_out, req] = bezier_fit.derivatives(
            self.t, self.vT, r, r, np.maximum(hi[req], r))
        rows[into, req], rows[bend_in, req] = bezier_fit.derivatives(
            self.t, self.vT, r, np.minimum(lo[req], r), r)
        self.slope_row[c] = np.arange(first, count, dtype=np.int32)
        self.slope_count = count

    def exact_slopes(self, k):
        """Slopes at samples ``k`` (unique) taken from the target itself, where it is the
        slerp of its samples (Track.slerp_between; see accept): each side's derivative of
        the channel values along that slerp, one-sided (second order, over EXACT_STEP of
        the step beside it). A corner keeps its two sides apart; elsewhere both get their
        mean (the same on the two sides of a sample inside one slerp, to rounding), so
        that its handles stay ALIGNED. A track's first or last sample takes its one side."""
        self.slope(self.SLOPE_OUT, k)                         # rows for them
        track = self.track[k]
        start, end = self.starts[track], self.ends[track]
        sides = []
        for step in (1, -1):
            nb = np.clip(k + step, start, end)
            frac = EXACT_STEP * np.arange(4.0)
            q = np.moveaxis(interp.slerp(self.qT[:, k].T, self.qT[:, nb].T, frac[:, None]),
                            -1, 0)                            # (4, 4, k)
            values = self._as_channels(q, k)
            delta = step * EXACT_STEP * np.abs(self.t[nb] - self.t[k])
            v0, v1, v2, v3 = (values[:, j] for j in range(4))
            with np.errstate(divide="ignore", invalid="ignore"):
                d = (-3.0 * v0 + 4.0 * v1 - v2) / (2.0 * delta)
                bend = (2.0 * v0 - 5.0 * v1 + 4.0 * v2 - v3) / (delta * delta)
            sides.append((d.T, bend.T, nb != k))
        (out, bend_out, has_out), (into, bend_in, has_in) = sides
        out = np.where(has_out[:, None], out, into)
        bend_out = np.where(has_out[:, None], bend_out, bend_in)
        into = np.where(has_in[:, None], into, out)
        bend_in = np.where(has_in[:, None], bend_in, bend_out)
        corner = self.corner[k][:, None]
        rows = self.slope_row[k]
        for kind, one, other in ((self.SLOPE_OUT, out, into), (self.SLOPE_IN, into, out),
                                 (self.BEND_OUT, bend_out, bend_in),
                                 (self.BEND_IN, bend_in, bend_out)):
            self.slope_rows[kind, rows] = np.where(corner, one, 0.5 * (one + other))

    def _as_channels(self, q, k):
        """(c, n, s) channel values of target quaternions q (4, n, s), in the mode of
        sample k's (s,) track, each run of n continuous from that sample's values."""
        values = np.empty((self.vT.shape[0],) + q.shape[1:])
        track = self.track[k]
        for mode in set(self.modes[i] for i in np.unique(track)):
            at = np.flatnonzero(np.array([self.modes[i] == mode for i in track]))
            values[:, :, at] = np.transpose(rotation.quat_to_mode_values_continuous_many(
                np.transpose(q[:, :, at], (2, 1, 0)), mode, self.vT[:, k[at]].T), (2, 1, 0))
        return values

    def _prev_corner(self, i):
        """The last corner at or before each sample index ``i`` (-1 where none)."""
        k = np.searchsorted(self.corners, i, side="right") - 1
        return np.where(k >= 0, self.corners[np.maximum(k, 0)], -1)

    def _next_kink(self, i):
        """The first of the input's keys (``kinks``) at or after each sample index ``i``
        (the sample count where none)."""
        k = np.searchsorted(self.kinks, i, side="left")
        return np.where(k < self.kinks.size, self.kinks[np.minimum(k, self.kinks.size - 1)],
                        self.t.size)

    def _next_corner(self, i):
        """The first corner at or after each sample index ``i`` (the sample count where
        none)."""
        k = np.searchsorted(self.corners, i, side="left")
        return np.where(k < self.corners.size,
                        self.corners[np.minimum(k, self.corners.size - 1)], self.t.size)

    # ------------------------------------------------------------------ one span

    # The span computations below hold their arrays channels first, (c, n, s): c
    # channels, n samples per span, s spans, so that every operation runs along the
    # spans (hundreds) rather than along the channels (three or four).

    def _span_data(self, a, b, idx):
        """For spans a -> b (s,) and their samples idx (s, n): u (1, n, s) the samples'
        fractions of the span; ya, yb, da, db (c, 1, s) the key values and slopes (in
        units of the span)."""
        d = self.t[b] - self.t[a]
        u = (self.t[idx.T] - self.t[a]) / d
        # np.take along the samples' axis: half the time of the same gather by [:, a].
        ya, yb = np.take(self.vT, a, axis=1), np.take(self.vT, b, axis=1)
        da = (self.slope(self.SLOPE_OUT, a) * d[:, None]).T
        db = (self.slope(self.SLOPE_IN, b) * d[:, None]).T
        return u[None], ya[:, None], yb[:, None], da[:, None], db[:, None]

    def fit(self, a, b):
        """Handle lengths (al, be), each (s, c) fractions of the span, for spans a -> b;
        and (c, FIT_SAMPLES, s) the time curve's t at the fit's samples for those
        lengths, as far as the fit solved it (a start for the check's own solve)."""
        idx, has = _spread(a, b, FIT_SAMPLES)
        u, ya, yb, da, db = self._span_data(a, b, idx)
        z = np.take(self.vT, idx.T, axis=1)                         # (c, n, s)
        d2 = (self.t[b] - self.t[a]) ** 2
        al, be = bezier_fit.curvature_lengths(ya[:, 0], yb[:, 0], da[:, 0], db[:, 0],
                                              self.slope(self.BEND_OUT, a).T * d2,
                                              self.slope(self.BEND_IN, b).T * d2)
        best_al, best_be, best_t = bezier_fit.fit_lengths(u, ya, yb, da, db, z, al[:, None],
                                                          be[:, None])
        third = 1.0 / 3.0
        best_be = np.where(has, bezier_fit.off_quadratic(best_al[:, 0], best_be[:, 0]), third)
        best_al = np.where(has, best_al[:, 0], third)
        return best_al.T, best_be.T, best_t

    def _closeness(self, rows, idx, target=None):
        """|cos(error / 2)| of channel values against the target at idx (...); rows
        (c, ...) channel first, each channel's values a row (contiguous or not), so
        that the quaternion is built and dotted one component at a time (no (..., 4)
        array interleaved, no gather of the target's four components together).
        target: (4, ...) the target there instead of the samples' (idx then gives each
        value's track: its Euler order)."""
        q = self.qT if target is None else target
        at = idx if target is None else slice(None)
        if self.mode == "QUATERNION":
            # The same products and sums, in two work arrays (a new one per product
            # before; rows are the caller's, read only).
            dot = rows[0] * q[0][at]
            norm = rows[0] * rows[0]
            part = np.empty_like(dot)
            for c in range(1, 4):
                dot += np.multiply(rows[c], q[c][at], out=part)
                norm += np.multiply(rows[c], rows[c], out=part)
            np.abs(dot, out=dot)
            return np.divide(dot, np.sqrt(norm, out=norm), out=dot)
        if self.sample_order is not None:
            parts = self._mixed_euler(rows, idx)
        elif self.mode in rotation.EULER_ORDERS:
            parts = rotation.euler_to_quat_parts(rows[0], rows[1], rows[2], self.mode)
        else:
            parts = np.moveaxis(rotation.mode_values_to_quat(np.stack(rows, axis=-1),
                                                             self.mode), -1, 0)
        # In the parts' own arrays (fresh ones, the conversion's): the same products and
        # sums, no new array of the samples' size for each.
        dot = np.multiply(parts[0], q[0][at], out=parts[0])
        for c in range(1, 4):
            dot += np.multiply(parts[c], q[c][at], out=parts[c])
        return np.abs(dot, out=dot)

    def _mixed_euler(self, rows, idx) -> np.ndarray:
        """(4, ...) quaternion parts of Euler angles ``rows`` (3, ...) at samples ``idx``,
        each in its own track's order."""
        which = self.sample_order[idx]
        parts = np.empty((4,) + np.shape(rows[0]))
        for k, order in enumerate(self.orders):
            at = which == k
            if at.any():
                parts[:, at] = rotation.euler_to_quat_parts(rows[0][at], rows[1][at],
                                                            rows[2][at], order)
        return parts

    def _span_closeness(self, a, b, al, be, count, start=None, known=None):
        """(s,) smallest |cos(error / 2)| / cos(search / 2) over ``count`` samples
        spread inside each span (1 or more passes), and (u, t) the samples' fractions
        of the span (1, count, s) and the time curve's t there (c, count, s). The time
        solve starts from ``start`` (c, count, s) (the fit's t on the same samples),
        else from ``known`` (u, t) of other samples of these spans, interpolated, else
        from u."""
        idx, _ = _spread(a, b, count)
        u, ya, yb, da, db = self._span_data(a, b, idx)
        al, be = al.T[:, None], be.T[:, None]
        if start is None and known is not None:
            start = interpolated_times(u, *known)
        # ``start`` (the fit's t, or the one interpolated here) is solved in place: no
        # caller reads it after.
        own = start is not None
        if start is None:
            start = np.broadcast_to(u, (al.shape[0],) + u.shape[1:])
        # The solve stops once every sample is within CHECK_WITHIN, wherever it starts:
        # from the fit's t (within that or close already) after no step or one, from
        # the interpolated t after two, from u after three or four.
        t = time_curve(u, al, be, start, CHECK_HALLEY, own=own)
        y = bezier_values(t, ya, ya + al * da, yb - be * db, yb)          # (c, n, s)
        idx = idx.T
        close = self._closeness(y, idx)
        # The smallest first, then divided: a correctly rounded division by a positive
        # number keeps the order, so this is the smallest quotient to the bit.
        return close.min(axis=0) / self.cos_search[self.track[a]], (u, t)

    def check(self, a, b, al, be, fit_t=None, plain=None):
        """(ok (s,), error (s,)): whether the spans a -> b with handle lengths al, be
        are within the search tolerance, and their worst error as a share of it
        (from the coarse samples alone where those already fail): CHECK_COARSE
        samples first, CHECK_SAMPLES more where those pass, but not for the spans
        ``plain`` (s,) bool marks (none of the input's keys inside) whose coarse error
        is at most COARSE_DECIDES. fit_t: the fit's time curve on its samples, the coarse ones
        (FIT_SAMPLES == CHECK_COARSE)."""
        same = fit_t is not None and FIT_SAMPLES == CHECK_COARSE
        close, (u, t) = self._span_closeness(a, b, al, be, CHECK_COARSE,
                                             fit_t if same else None)
        cos_s = self.cos_search[self.track[a]]
        more = close >= 1.0
        if plain is not None:
            more &= ~plain | (_error_share(close, cos_s) > COARSE_DECIDES)
        fine = np.flatnonzero(more)
        if fine.size:
            close[fine] = np.minimum(close[fine], self._span_closeness(
                a[fine], b[fine], al[fine], be[fine], CHECK_SAMPLES,
                known=(u[..., fine], t[..., fine]))[0])
        return close >= 1.0, _error_share(close, cos_s)

    # ------------------------------------------------------------------ key choice

    def search(self):
        """Greedy farthest reach between consecutive required keys, all stretches at
        once: from the last key, the farthest candidate whose span passes the check.
        The tries for one key follow an error model (_next_try), two to four tries
        a key on most motion. Returns the spans (a, b, al, be) found, in no
        particular order."""
        req = np.flatnonzero(self.required)
        ga, gb = req[:-1], req[1:]
        keep = (self.track[ga] == self.track[gb]) & ~self.step_start[ga]
        ga, gb = ga[keep], gb[keep]
        # Each stretch's ends among the candidates (required keys are candidates).
        cur = np.searchsorted(self.cand, ga)
        end = np.searchsorted(self.cand, gb)
        lo = cur.copy()                       # farthest ordinal known to pass from cur
        limit = self._reach(cur, end)         # the farthest a span may end
        hi = limit + 1                        # nearest ordinal known not to
        # The last two tries since the key at cur: ordinal and error (share of
        # the search tolerance); none yet: ordinal cur.
        last1, last2 = cur.copy(), cur.copy()
        err1, err2 = np.zeros(ga.size), np.zeros(ga.size)
        probe = limit.copy()                  # the first try: as far as may be
        channels = self.vT.shape[0]
        best_al = np.full((ga.size, channels), 1.0 / 3.0)
        best_be = best_al.copy()
        spans = []
        frame = self.global_t[self.cand]      # increasing over all tracks
        active = np.flatnonzero(cur < end)
        while active.size:
            c, pr = cur[active], probe[active]
            a, b = self.cand[c], self.cand[pr]
            al, be, fit_t = self.fit(a, b)
            # A try well within the tolerance on the coarse samples is decided on them
            # (COARSE_DECIDES): the final check plays all of it. Not across one of the
            # input's keys, where the target may turn between coarse samples (a review: a
            # recording's one-frame twitch, missed, took the final check two keys).
            plain = self._next_kink(a + 1) >= b
            ok, err = self.check(a, b, al, be, fit_t, plain=plain)
            lo[active] = np.where(ok, pr, lo[active])
            hi[active] = np.where(ok, hi[active], pr)
            last1[active], err1[active] = last2[active], err2[active]
            last2[active], err2[active] = pr, err
            # The span of the last try is kept when it passed, and when even a
            # one-candidate span does not (the final check splits it further).
            take = ok | (pr == c + 1)
            best_al[active] = np.where(take[:, None], al, best_al[active])
            best_be[active] = np.where(take[:, None], be, best_be[active])
            stuck = ~ok & (pr == c + 1)
            lo[active[stuck]] = c[stuck] + 1
            closed = hi[active] - lo[active] <= 1
            done, g = active[closed], active[~closed]
            if done.size:
                spans.append((self.cand[cur[done]], self.cand[lo[done]], best_al[done],
                              best_be[done]))
                reach = frame[lo[done]] - frame[cur[done]]
                cur[done] = lo[done]
                lo[done] = cur[done]
                limit = self._reach(cur[done], end[done])
                hi[done] = limit + 1
                last1[done] = last2[done] = cur[done]
                # Next: as far as the last span reached (all the rest when that
                # is nearly all of it).
                rest = frame[end[done]] - frame[cur[done]]
                far = np.where(rest <= 1.25 * reach, frame[end[done]], frame[cur[done]] + reach)
                probe[done] = np.clip(np.searchsorted(frame, far - 1e-9), cur[done] + 1,
                                      limit)
            if g.size:
                probe[g] = self._next_try(frame, cur[g], lo[g], hi[g], end[g], last1[g],
                                          err1[g], last2[g], err2[g])
            active = np.flatnonzero(cur < end)
        if not spans:
            empty = np.zeros((0, channels))
            return np.zeros(0, np.int64), np.zeros(0, np.int64), empty, empty
        return tuple(np.concatenate(parts) for parts in zip(*spans))

    @staticmethod
    def _next_try(frame, cur, lo, hi, end, last1, err1, last2, err2):
        """The next candidate ordinal to try, strictly between lo and hi.

        The error model: e ~ length^p, p from the last two tries (a secant in
        log-log; SEARCH_POWER after only one), solved for e = 1 (the search
        tolerance). The try is the candidate at or under that length when the
        last try failed, the one above it when it passed, kept an eighth of the
        bracket (one candidate at least) away from its known ends, so the
        bracket shrinks by an eighth at worst when the model is poor.
        """
        x0 = frame[cur]
        len1 = frame[last1] - x0
        len2 = frame[last2] - x0
        two = (last1 > cur) & (last1 != last2)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            g1 = np.log(np.maximum(err1, 1e-9))
            g2 = np.log(np.maximum(err2, 1e-9))
            p = (g2 - g1) / (np.log(len2) - np.log(len1))
            p = np.where(two & np.isfinite(p), np.clip(p, 1.0, 12.0), SEARCH_POWER)
            guess = len2 * np.exp(-g2 / p)
        guess = np.where(np.isfinite(guess), guess, frame[end] - x0)
        at_or_under = np.searchsorted(frame, x0 + guess + 1e-9, side="right") - 1
        failed = last2 == hi
        nxt = np.where(failed, at_or_under, at_or_under + 1)
        width = hi - lo
        known = hi <= end
        margin = np.where(known, np.maximum(1, width // 8), 1)
        nxt = np.clip(nxt, lo + margin, hi - margin)
        return np.clip(nxt, lo + 1, np.minimum(hi - 1, end))

    # ------------------------------------------------------------------ Blender's playback

    def curves(self, keys, al, be):
        """float32 key frames, values, handles (per channel), interpolation and FREE
        flags for sorted ``keys``, with (k - 1, c) handle lengths of each span
        (unused where the span is CONSTANT or between two tracks)."""
        k = keys.size
        x = self.t[keys]
        y = self.vT[:, keys].T
        fitted = np.zeros(k, dtype=bool)     # the span leaving key i is a fitted Bezier
        fitted[:-1] = (self.track[keys[:-1]] == self.track[keys[1:]]) & ~self.step_start[keys[:-1]]
        d = np.zeros(k)
        d[:-1] = x[1:] - x[:-1]
        so, si = self.slope(slice(self.SLOPE_OUT, self.SLOPE_IN + 1), keys)
        right_len = np.zeros_like(y)          # frames
        left_len = np.zeros_like(y)
        right_len[:-1] = al * d[:-1, None]
        left_len[1:] = be * d[:-1, None]
        left_fit = np.zeros(k, dtype=bool)
        left_fit[1:] = fitted[:-1]
        hrx, hry = x[:, None] + right_len, y + so * right_len
        hlx, hly = x[:, None] - left_len, y - si * left_len
        # A side with no fitted span mirrors the other one (ALIGNED); with none
        # at all, flat handles a third of a frame long.
        only_left = left_fit & ~fitted
        only_right = fitted & ~left_fit
        neither = ~fitted & ~left_fit
        hrx = np.where(only_left[:, None], 2.0 * x[:, None] - hlx, hrx)
        hry = np.where(only_left[:, None], 2.0 * y - hly, hry)
        hlx = np.where(only_right[:, None], 2.0 * x[:, None] - hrx, hlx)
        hly = np.where(only_right[:, None], 2.0 * y - hry, hly)
        hlx = np.where(neither[:, None], x[:, None] - 1.0 / 3.0, hlx)
        hrx = np.where(neither[:, None], x[:, None] + 1.0 / 3.0, hrx)
        hly = np.where(neither[:, None], y, hly)
        hry = np.where(neither[:, None], y, hry)

        # A track's last key after a stepped interval is CONSTANT too: a curve keyed
        # stepped stays stepped to its end (a walk: its last key came BEZIER, which plays
        # nothing after it but eases into any key added later).
        same = self.track[keys[:-1]] == self.track[keys[1:]]
        last = np.append(~same, True)
        after_step = np.append(False, self.step_start[keys[:-1]] & same)
        ipo = np.where(self.step_start[keys] | (last & after_step), fcurve.CONSTANT,
                       fcurve.BEZIER)
        free = fitted & left_fit & (so != si).any(axis=1)
        hlx, hly, hrx, hry = aligned_as_blender(x, y, hlx, hly, hrx, hry, ~free)
        return _f32(x), _f32(y), hlx, hly, hrx, hry, ipo, free

    def play(self, keys, arrays, samples=None):
        """Closeness |cos(error / 2)| at ``samples`` (default: every sample) of
        Blender's playback of the float32 keys (see _played); the channel values
        played are kept in ``self.played`` (c, m), channels first as they are played and
        measured."""
        if self.played is None:
            self.played = np.empty((self.vT.shape[0], self.t.size))
        count = self.t.size if samples is None else samples.size
        # Where each sample's track begins and ends among the keys, and the keys'
        # frames shifted as the tracks are (see __init__): once for every block.
        key_ends = (self.shift[self.track[keys]] + arrays[0], np.searchsorted(keys, self.starts),
                np.searchsorted(keys, self.ends))
        # In blocks whose temporaries stay in the processor's cache: a rig's samples
        # at once would be tens of MB per temporary, and slower in page faults than
        # in arithmetic. Every sample played: blocks as slices, so that storing them
        # and reading the target there copy rows rather than gather them.
        out = np.empty(count)
        for at in range(0, count, PLAY_BLOCK):
            part = (slice(at, min(at + PLAY_BLOCK, count)) if samples is None
                    else samples[at:at + PLAY_BLOCK])
            values = self._played(keys, arrays, part, key_ends)
            self.played[:, part] = values
            out[at:at + PLAY_BLOCK] = self._closeness(values, part)
        return out

    def _played(self, keys, arrays, samples, key_ends):
        """(c, n) channel values Blender plays at ``samples`` (indices or a slice)
        from the float32 keys (play_segments: all channels and tracks at once);
        ``key_ends``: the keys' shifted frames and each track's first and last key."""
        return self._played_at(keys, arrays, key_ends, self.t[samples], self.track[samples],
                               self.global_t[samples])

    def _played_at(self, keys, arrays, key_ends, t, track, global_t):
        """_played at frames ``t`` (n,) of tracks ``track`` (n,), ``global_t`` the same
        frames shifted as the tracks are (any times, not only samples)."""
        x, y, hlx, hly, hrx, hry, ipo, _ = arrays
        shifted, first_key, last_key = key_ends
        # The segment each sample falls in: the last key of its track at or before
        # its frame (compared by frame, as Blender does; frames shifted per track,
        # exact in float64, so one search for all).
        seg = np.searchsorted(shifted, global_t, side="right") - 1
        first, last = first_key[track], last_key[track]
        seg = np.clip(seg, first, last)
        out = play_segments(x, y, hlx, hly, hrx, hry, ipo, t, seg, last)
        return self._played_fcurve(keys, arrays, global_t).T if out is None else out

    def _played_fcurve(self, keys, arrays, global_t):
        """_played by core.fcurve.evaluate_many itself (where Halley's method has not
        converged): all tracks in one F-curve per channel, each track shifted by whole
        frames to frames of its own (a CONSTANT segment, with no sample in it, between
        two tracks)."""
        x, y, hlx, hly, hrx, hry, ipo, _ = arrays
        ks = self.shift[self.track[keys]]
        last = np.zeros(keys.size, dtype=bool)
        last[np.searchsorted(keys, self.ends)] = True
        ipo = np.where(last, fcurve.CONSTANT, ipo)
        curves = [(np.column_stack((x + ks, y[:, c])), np.column_stack((hlx[:, c] + ks, hly[:, c])),
                   np.column_stack((hrx[:, c] + ks, hry[:, c])), ipo, "CONSTANT")
                  for c in range(y.shape[1])]
        return fcurve.evaluate_many(curves, global_t)

    @functools.cached_property
    def fine(self):
        """The points between consecutive samples of the tracks whose target is the slerp
        of their samples there (Track.slerp_between) that the final check plays too
        (FINE_PARTS), or None: left (n,) the sample before each,
        frac (n,) its place between that one and the next, t and global_t (n,) its frame
        (local, shifted), target (4, n) the slerp of the two samples' targets there."""
        recording = np.array([tr.slerp_between for tr in self.tracks])
        left = np.flatnonzero(recording[self.track[:-1]] & (self.track[:-1] == self.track[1:]))
        if not left.size or FINE_PARTS < 2:
            return None
        parts = np.arange(1, FINE_PARTS) / FINE_PARTS
        i = np.repeat(left, parts.size)
        frac = np.tile(parts, left.size)
        step = self.t[i + 1] - self.t[i]
        q = interp.slerp(self.qT[:, i].T, self.qT[:, i + 1].T, frac).T
        t = self.t[i] + frac * step
        return _Fine(left=i, frac=frac, t=t, global_t=t + self.shift[self.track[i]], target=q)

    def _play_fine(self, keys, arrays, samples, fine_close):
        """|cos(error / 2)| at the fine points (see fine): all of them when ``samples`` is
        None, else those between the samples replayed (the rest kept from
        ``fine_close``); None for a batch without any."""
        fine = self.fine
        if fine is None:
            return None
        if samples is None or fine_close is None:
            fine_close = np.empty(fine.left.size)
            which = np.arange(fine.left.size)
        else:
            again = np.zeros(self.t.size, dtype=bool)
            again[samples] = True
            which = np.flatnonzero(again[fine.left])
        key_ends = (self.shift[self.track[keys]] + arrays[0], np.searchsorted(keys, self.starts),
                    np.searchsorted(keys, self.ends))
        for at in range(0, which.size, PLAY_BLOCK):
            part = which[at:at + PLAY_BLOCK]
            left = fine.left[part]
            values = self._played_at(keys, arrays, key_ends, fine.t[part], self.track[left],
                                     fine.global_t[part])
            fine_close[part] = self._closeness(values, left, fine.target[:, part])
        return fine_close

    def accept(self, a, b, al, be):
        """Keys and handles that Blender plays within the tolerance at every sample:
        the searched spans, split where the full check fails."""
        channels = self.vT.shape[0]
        close = np.empty(self.t.size)
        fine_close = None
        samples = None                      # every sample first, then the new spans'
        for _ in range(MAX_FIX_ROUNDS):
            is_key = self.required.copy()
            is_key[a] = is_key[b] = True
            keys = np.flatnonzero(is_key)
            span_al = np.full((keys.size - 1, channels), 1.0 / 3.0)
            span_be = span_al.copy()
            pos = np.searchsorted(keys, a)
            span_al[pos], span_be[pos] = al, be
            self._exact_lengths(keys, span_al, span_be)
            arrays = self.curves(keys, span_al, span_be)
            if samples is None:
                close = self.play(keys, arrays)
            else:
                close[samples] = self.play(keys, arrays, samples)
            # Between the samples of a recording (see FINE_PARTS): each failing point
            # counts as the sample beside it that is no key (nearer one first), and the
            # span is split as at a failing sample. Where both are keys (a span of one
            # sample step: nothing inside to key), its keys take the target's own slopes
            # once (exact_slopes: the stencil's, from samples a quarter frame apart,
            # left pybvh_test1.bvh's forearm, turning 103 deg a frame, 0.30 deg off at
            # 0.05 between two quarter-frame keys), kept where that is no worse there
            # (_judge_trial), then it is left as measured.
            fine_close = self._play_fine(keys, arrays, samples, fine_close)
            back = self._judge_trial(fine_close)
            if back.size:
                samples = self._around(*_beside(keys, back))
                continue
            judged = close
            resloped = np.zeros(0, dtype=np.int64)
            if fine_close is not None:
                fine = self.fine
                fail = fine_close < self.cos_tol[fine.left]
                if fail.any():
                    near = np.where(fine.frac <= 0.5, fine.left, fine.left + 1)
                    other = np.where(fine.frac <= 0.5, fine.left + 1, fine.left)
                    rep = np.where(is_key[near], other, near)
                    stuck = fail & is_key[rep]
                    ends = np.unique(np.concatenate((fine.left[stuck], fine.left[stuck] + 1)))
                    resloped = ends[~self.tried[ends]]
                    fail &= ~is_key[rep]
                    judged = close.copy()
                    np.minimum.at(judged, rep[fail], fine_close[fail])
            if resloped.size:
                self._try_exact(resloped, fine_close, stuck)
            bad = (judged < self.cos_tol) | self._turning_far(keys)
            if not bad.any() and not resloped.size:
                self.fine_close = fine_close
                return keys, arrays, close
            if not bad.any():
                # Only new slopes: the spans on either side of each such key played again.
                samples = self._around(*_beside(keys, resloped))
                continue
            # Failing spans (by their left key) and their worst sample.
            seg = np.searchsorted(keys, np.flatnonzero(bad), side="right") - 1
            worst_close = np.full(keys.size, np.inf)
            np.minimum.at(worst_close, seg, judged[bad])
            spans = np.unique(seg)
            worst = np.zeros(keys.size, dtype=np.int64)
            bad_idx = np.flatnonzero(bad)
            at_worst = judged[bad_idx] == worst_close[seg]
            worst[seg[at_worst]] = bad_idx[at_worst]
            fa, fb, fw = keys[spans], keys[np.minimum(spans + 1, keys.size - 1)], worst[spans]
            if (fa == fb).any() or bad[keys].any():
                i = keys[bad[keys]][0] if bad[keys].any() else fa[fa == fb][0]
                raise ToleranceUnreachable(
                    f"The key at frame {self.t[i]:g} misses the target beyond the tolerance "
                    "once stored as float32.")
            if self.step_start[fa].any():
                j = np.flatnonzero(self.step_start[fa])[0]
                raise ToleranceUnreachable(
                    f"The stepped interval from frame {self.t[fa[j]]:g} to {self.t[fb[j]]:g} "
                    "is not held in the input: the target moves inside it.")
            # The whole frame nearest the worst sample, strictly inside.
            ordinal = np.searchsorted(self.cand, fw)
            right = self.cand[np.minimum(ordinal, self.cand.size - 1)]
            left = self.cand[np.maximum(ordinal - 1, 0)]
            pick = np.where(np.abs(self.t[right] - self.t[fw]) <= np.abs(self.t[left] - self.t[fw]),
                            right, left)
            pick = np.where((pick > fa) & (pick < fb), pick, np.where(pick <= fa, right, left))
            inside = (pick > fa) & (pick < fb)
            if not inside.all():
                # No whole frame inside: a key on the worst sample itself (a span
                # with no sample inside has nothing to miss, so this ends).
                if not self.subframes:
                    j = np.flatnonzero(~inside)[0]
                    raise ToleranceUnreachable(
                        f"No Bezier keys on whole frames play within the tolerance from frame "
                        f"{self.t[fa[j]]:g} to {self.t[fb[j]]:g}: the method turns too far "
                        "within one frame.")
                pick = np.where(inside, pick, fw)
                self.slope(self.SLOPE_OUT, fw[~inside])     # computed there now
            # Replace each failing span by its two halves, fitted on their own.
            keep = ~np.isin(a, fa)
            na = np.concatenate((fa, pick))
            nb = np.concatenate((pick, fb))
            nal, nbe, _ = self.fit(na, nb)
            a = np.concatenate((a[keep], na))
            b = np.concatenate((b[keep], nb))
            al = np.concatenate((al[keep], nal))
            be = np.concatenate((be[keep], nbe))
            # A span depends on its own two keys only, but a key's ALIGNED handles are
            # re-aligned together (aligned_as_blender: one side from the other): a split
            # that changes fa's right handle changes its left one by a float32 step,
            # and fb's right one likewise. So the new spans are played again with the
            # span before fa and the span after fb.
            lo = keys[np.maximum(spans - 1, 0)]
            hi = keys[np.minimum(spans + 2, keys.size - 1)]
            if resloped.size:
                near_lo, near_hi = _beside(keys, resloped)
                lo, hi = np.concatenate((lo, near_lo)), np.concatenate((hi, near_hi))
            samples = self._around(lo, hi)
        raise ToleranceUnreachable("bezier_keys: the final check did not converge.")

    def _try_exact(self, k, fine_close, stuck):
        """Exact slopes at keys ``k`` (exact_slopes), on trial: the stencil's slopes are
        kept aside with the worst fine point of each stuck span (``stuck``: the failing
        fine points between two keys) beside them, for _judge_trial after the replay."""
        self.slope(self.SLOPE_OUT, k)
        saved = self.slope_rows[:, self.slope_row[k]].copy()
        self.exact_slopes(k)
        self.exact[k] = self.tried[k] = True
        lefts = np.unique(self.fine.left[stuck])
        lefts = lefts[self.exact[lefts] & self.exact[lefts + 1]]
        before = np.full(lefts.size, np.inf)
        on = np.isin(self.fine.left, lefts)
        np.minimum.at(before, np.searchsorted(lefts, self.fine.left[on]), fine_close[on])
        self.trial = (k, saved, lefts, before)

    def _judge_trial(self, fine_close) -> np.ndarray:
        """The keys whose exact slopes (the last _try_exact) are put back to the stencil's,
        as a run: each run of keys one sample apart where any stuck span plays worse
        between its samples than before (a review: near gimbal lock the Euler angles'
        derivative along the slerp is near infinite, and a span 0.01 deg off went 3 deg
        off). Empty when none is, or no trial waits."""
        trial, self.trial = self.trial, None
        if trial is None or fine_close is None:
            return np.zeros(0, dtype=np.int64)
        k, saved, lefts, before = trial
        after = np.full(lefts.size, np.inf)
        on = np.isin(self.fine.left, lefts)
        np.minimum.at(after, np.searchsorted(lefts, self.fine.left[on]), fine_close[on])
        worse = lefts[after < before]
        if not worse.size:
            return np.zeros(0, dtype=np.int64)
        # Runs of tried keys one sample apart in one track: a key's slopes shape both
        # spans beside it, so a run is kept or put back whole.
        run = np.cumsum(np.r_[True, (np.diff(k) != 1) | (self.track[k[1:]] != self.track[k[:-1]])])
        bad_runs = np.unique(run[np.isin(k, worse)])
        back = np.isin(run, bad_runs)
        self.slope_rows[:, self.slope_row[k[back]]] = saved[:, back]
        self.exact[k[back]] = False
        # Their spans' lengths were fitted to the slopes put back: fitted again.
        gone = set(k[back].tolist())
        for left in [i for i in self.exact_lengths if i in gone or i + 1 in gone]:
            del self.exact_lengths[left]
        return k[back]

    def _exact_lengths(self, keys, span_al, span_be):
        """Handle lengths, in place, of the spans between ``keys`` one sample step long
        whose two keys have exact slopes (exact_slopes), where a span with nothing inside
        to fit had a third of it: fitted (bezier_fit.fit_lengths) to the target inside the
        span, the slerp of its two samples at EXACT_PARTS points, from the lengths that
        match its curvature at both keys (bezier_fit.curvature_lengths). Each span once
        (_judge_trial forgets those whose slopes it puts back). Not along the stencil's
        slopes: fitted there, spans of a capture near gimbal lock played up to ten times
        further off than with a third (0.034 -> 0.34 deg)."""
        if not self.exact.any():
            return
        a, b = keys[:-1], keys[1:]
        at = np.flatnonzero((b == a + 1) & self.exact[a] & self.exact[b]
                            & (self.track[a] == self.track[b]) & ~self.step_start[a])
        new = at[[int(i) not in self.exact_lengths for i in a[at]]]
        if new.size:
            na, nb = a[new], b[new]
            d = (self.t[nb] - self.t[na])[None, :]
            ya, yb = self.vT[:, na], self.vT[:, nb]
            da = self.slope(self.SLOPE_OUT, na).T * d
            db = self.slope(self.SLOPE_IN, nb).T * d
            al, be = bezier_fit.curvature_lengths(ya, yb, da, db,
                                                  self.slope(self.BEND_OUT, na).T * d * d,
                                                  self.slope(self.BEND_IN, nb).T * d * d)
            u = np.arange(1, EXACT_PARTS) / EXACT_PARTS
            q = np.moveaxis(interp.slerp(self.qT[:, na].T, self.qT[:, nb].T, u[:, None]),
                            -1, 0)                            # (4, n, s)
            z = self._as_channels(q, na)
            u = np.broadcast_to(u[None, :, None], (1, u.size, na.size))
            al, be, _ = bezier_fit.fit_lengths(u, ya[:, None], yb[:, None], da[:, None],
                                               db[:, None], z, al[:, None], be[:, None])
            al, be = al[:, 0], bezier_fit.off_quadratic(al[:, 0], be[:, 0])
            for j, i in enumerate(na):
                self.exact_lengths[int(i)] = (al[:, j], be[:, j])
        for i in at:
            span_al[i], span_be[i] = self.exact_lengths[int(a[i])]

    def _around(self, lo, hi):
        """The sample indices from each ``lo`` to its ``hi`` (both included)."""
        redo = np.zeros(self.t.size + 1, dtype=np.int64)
        np.add.at(redo, lo, 1)
        np.add.at(redo, hi + 1, -1)
        return np.flatnonzero(np.cumsum(redo[:-1]) > 0)

    def results(self, keys, arrays, close):
        x, y, hlx, hly, hrx, hry, ipo, free = arrays
        # Each track's worst sample: the arccos of its smallest closeness (arccos falls
        # as the closeness rises), one per track rather than one per sample.
        least = np.minimum.reduceat(close, self.starts)
        fine_close = self.fine_close
        if fine_close is not None:
            np.minimum.at(least, self.track[self.fine.left], fine_close)
        worst = 2.0 * np.arccos(np.minimum(least, 1.0))
        first = np.searchsorted(keys, self.starts)
        after = np.searchsorted(keys, self.ends, side="right")
        names = np.array(INTERPOLATIONS)
        out = []
        for i, (start, end) in enumerate(zip(self.starts, self.ends)):
            m = slice(first[i], after[i])
            out.append(BezierKeys(
                mode=self.modes[i],
                frames=x[m].copy(),
                values=y[m].copy(),
                handle_left=np.stack((hlx[m], hly[m]), axis=-1),
                handle_right=np.stack((hrx[m], hry[m]), axis=-1),
                interpolation=names[ipo[m]],
                handle_type=np.where(free[m], "FREE", "ALIGNED"),
                required=self.required[keys[m]],
                max_error_deg=float(np.degrees(worst[i])),
                tolerance_deg=float(self.tolerances[i]),
                margin_deg=float(self.margins[i]),
                # A view of the batch's playback (the tracks' rows do not overlap): a
                # copy per track was a second pass over every sample. Each BezierKeys kept
                # holds the whole batch's array alive; a bake keeps all its plans (and so
                # all of it) until it has written them anyway.
                played=self.played[:, start:end + 1].T,
                closeness=close[start:end + 1],
            ))
        return out


def fit_many(tracks, tolerance_deg, subframes: bool = True) -> list[BezierKeys]:
    """BezierKeys for each Track (see the module docstring); the tracks of one
    rotation mode are fitted together. tolerance_deg: the largest angle (degrees)
    by which Blender's playback may miss the target at any sample, one for all
    tracks or one per track (a rig's bones at a distance at their tips: fitted
    together all the same). subframes: where no keys on whole frames can (the
    method turns too far within a frame), keys on the samples in between; False
    raises ToleranceUnreachable instead."""
    checked = [_as_track(tr) for tr in tracks]
    tolerances = np.asarray(tolerance_deg, dtype=np.float64)
    if tolerances.ndim not in (0, 1) or (tolerances.ndim == 1
                                         and tolerances.size != len(checked)):
        raise ValueError(f"{tolerances.size} key tolerances for {len(checked)} tracks: give "
                         "one, or one per track.")
    tolerances = np.broadcast_to(tolerances, (len(checked),))
    for tol in tolerances:
        if not tol > 0.0 or not np.isfinite(tol):
            raise ValueError(f"Key tolerance {float(tol)!r} deg must be a finite angle above 0.")
    # One sample is one pose (a conversion of a single-key transform): one key, nothing
    # to fit; the rest are fitted together.
    out: list = [None] * len(checked)
    moving = [i for i, tr in enumerate(checked) if tr.times.size > 1]
    for i, tr in enumerate(checked):
        if tr.times.size == 1:
            out[i] = _one_key(tr, float(tolerances[i]))
    for i, res in zip(moving, _fit_all([checked[i] for i in moving], tolerances[moving],
                                       subframes)):
        out[i] = res
    # A greedy reach that may pass a corner can end with more keys than one that keys
    # every corner (it passes one, then needs two to come back to the motion): tracks
    # with corners are fitted both ways, and keep the fewer keys (the corners kept on a
    # tie: they are the animator's poses).
    loose = [i for i, tr in enumerate(checked) if tr.corners is not None and np.size(tr.corners)]
    if loose:
        kept = [replace(checked[i], corners=None, required=np.union1d(
            np.zeros(0) if checked[i].required is None else checked[i].required,
            checked[i].corners)) for i in loose]
        for i, res in zip(loose, _fit_all(kept, tolerances[loose], subframes)):
            if res.frames.size <= out[i].frames.size:
                out[i] = res
    # A recording thinned to more keys than it had (a tight tolerance on a fast one: a walk
    # found 10 keys a frame apart fitted with 18, 8 of them between frames): its own keys,
    # each with a handle on either side of the method's turn there, kept where fewer.
    grown = [i for i, tr in enumerate(checked) if tr.recorded is not None
             and 0 < np.size(tr.recorded) < out[i].frames.size]
    if grown:
        kept = [replace(checked[i], recorded=None, required=np.union1d(
            np.zeros(0) if checked[i].required is None else checked[i].required,
            checked[i].recorded)) for i in grown]
        for i, res in zip(grown, _fit_all(kept, tolerances[grown], subframes)):
            if res.frames.size < out[i].frames.size:
                out[i] = res
    return out


def _one_key(track: Track, tolerance_deg: float) -> BezierKeys:
    """The key of a one-sample track: its values as float32, flat handles a frame to
    either side (Blender plays one key as its value whatever the handles, under Constant
    extrapolation; flat, an animator's next key starts from a held pose). Its error is
    measured like any fit's: the float32 values' orientation against the target."""
    values = _f32(track.values)
    error = quat.angle_between(rotation.mode_values_to_quat(values, track.mode), track.quats)
    close = np.cos(0.5 * error)
    margin = margin_deg(track.values)
    if tolerance_deg <= margin:   # as _Batch says it
        raise ValueError(f"Key tolerance {tolerance_deg:.4g} deg is not above the float32 "
                         f"margin {margin:.4g} deg of these channel values.")
    if np.degrees(error[0]) > tolerance_deg - margin:
        raise ToleranceUnreachable(
            f"bezier_keys: the pose at frame {track.times[0]:g} rounded to float32 is "
            f"{np.degrees(error[0]):.4g} deg off, beyond the tolerance of {tolerance_deg:.4g} "
            f"deg less the float32 margin {margin:.4g} deg.")
    frame = track.times[:1]
    side = np.stack((np.broadcast_to(frame[:, None], values.shape), values), axis=-1)
    return BezierKeys(
        mode=track.mode, frames=frame.copy(), values=values,
        handle_left=side - np.array([1.0, 0.0]), handle_right=side + np.array([1.0, 0.0]),
        interpolation=np.array(["BEZIER"]), handle_type=np.array(["ALIGNED"]),
        required=np.ones(1, dtype=bool), max_error_deg=float(np.degrees(error[0])),
        tolerance_deg=tolerance_deg, margin_deg=margin, played=values, closeness=close)


def _fit_all(tracks: list[Track], tolerances: np.ndarray, subframes: bool) -> list[BezierKeys]:
    """fit_many's fit: the tracks of each kind (quaternion, axis-angle, Euler of any order)
    in one _Batch."""
    out: list = [None] * len(tracks)
    modes: dict[str, list[int]] = {}
    for i, tr in enumerate(tracks):
        # Every Euler order in one batch (see _Batch.__init__): their channels are alike.
        kind = "EULER" if tr.mode in rotation.EULER_ORDERS else tr.mode
        modes.setdefault(kind, []).append(i)
    for members in modes.values():
        mode = tracks[members[0]].mode
        batch = _Batch([tracks[i] for i in members], mode, tolerances[members], subframes)
        keys, arrays, close = batch.accept(*batch.search())
        for i, res in zip(members, batch.results(keys, arrays, close)):
            out[i] = res
    return out


def fit(times, quats, values, mode: str, tolerance_deg: float, required=None,
        stepped=None, subframes: bool = True, corners=None) -> BezierKeys:
    """Few BEZIER keys for one dense bake (see Track for the arguments, fit_many
    for subframes and the module docstring for what is guaranteed)."""
    return fit_many([Track(times, quats, values, mode, required, stepped, corners)],
                    tolerance_deg, subframes)[0]
