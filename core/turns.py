# SPDX-License-Identifier: GPL-3.0-or-later
"""Keyed turns: how far Blender's own playback turns between two keys, and why.

A key interval's orientation change can be reached the short way (at most 180
degrees) or with whole turns added (a turntable keyed 0 -> 360 deg turns once;
the short arc between those two keys is no rotation at all). Orientations alone
cannot tell them apart; Blender's playback of the channels can. Everything here
is pure numpy on arrays the add-on reads from Blender:

* :func:`track` follows Blender's playback (orientations sampled densely inside
  each key interval) and returns, per interval, the KEYED turn as a rotation
  vector (axis times unwrapped angle, whole turns included), written as the
  short rotation plus a whole number of extra turns about one axis, so it ends
  exactly on the next key; and, per sample, how far along its interval
  Blender's playback is (for Timing: Keyed);
* :func:`classify` names each interval: "short" (keys and playback agree),
  "flip" (a quaternion key with its sign flipped: the long way round), "wrap"
  (an Euler or axis-angle channel jumping across +-180 deg between values
  inside +-180), "euler" (Euler channels that each move less than 180 deg but,
  interpolated one by one, turn the rotation the long way: near gimbal lock), "spin"
  (channel values that move on past +-180: a keyed turn) and "step" (CONSTANT keys: a
  hold, then a jump);
* :func:`choose` picks the turn each interval is baked with for the setting
  'SHORTEST', 'KEYED' or 'AUTO';
* :func:`describe` writes the sentences the bake and the report show.

The AUTO rule (docs/turns.md): an interval keeps its keyed turn only when an
Euler or axis-angle channel's KEY VALUES move by more than 180 deg and at
least one of the two values lies outside [-180, 180] deg (0 -> 360, 270 ->
540, 0 -> 3600: the animator typed a number past half a turn), and no other
channel of that interval jumps between values inside [-180, 180]. Everything
else that turns further than the short arc is a defect and gets the short arc:
a jump between values inside +-180 (170 -> -170, mocap's 179 -> -179: the
values were wrapped into +-180 by whoever wrote them, so the long way was never
meant) and any quaternion interval (four channels cannot spin: their long way
is always a key stored with its sign flipped).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import quat
from .frames import as_frames, span
from .rotation import EULER_ORDERS, nearest_turn, wrap_angle
from .words import Phrase

TURN_SETTINGS = ("AUTO", "SHORTEST", "KEYED")
TIMING_SETTINGS = ("EVEN", "KEYED")
KINDS = ("short", "flip", "wrap", "euler", "spin", "step")

# A keyed turn counts as different from the short arc when it turns this many
# degrees more (the contract's long-arc margin): a 180.3 deg interval keyed
# the "other" way round is float32 rounding, not intent.
TURN_MARGIN_DEG = 1.0

# Below this short-arc angle (radians) the short rotation's axis is rounding
# noise (a float32 Euler key of 360 deg is 1.7e-7 rad off a whole turn), so
# the extra turns are taken about the axis Blender's playback turned about.
# The path then misses the next key by at most this angle before it is
# reached exactly (see turn_interp).
SHORT_AXIS_EPS = 1e-6

# Rotation angles (radians) below this have no meaningful axis while tracking.
TRACK_AXIS_EPS = 1e-9

# A channel value counts as inside [-180, 180] deg up to this much beyond pi
# (float32 stores pi as 3.1415927, 8.7e-8 above it).
INSIDE_TOL = 1e-6

_TWO_PI = 2.0 * np.pi


@dataclass
class Tracking:
    """What Blender's playback does between the keys. Intervals are (k-1,)."""

    short: np.ndarray        # (k-1, 3) short rotation vector (rad), frame of key i
    axis: np.ndarray         # (k-1, 3) unit axis of the extra whole turns
    whole: np.ndarray        # (k-1,) int: extra whole turns of the KEYED turn about axis
    differs: np.ndarray      # (k-1,) bool: the keyed turn is longer than short + margin
    keyed_deg: np.ndarray    # (k-1,) angle of the keyed turn (deg, >= 0)
    short_deg: np.ndarray    # (k-1,) angle of the short arc (deg, [0, 180])
    sample_times: np.ndarray  # (s,) sorted frames the playback was tracked at
    progress: np.ndarray     # (s,) fraction along its interval's keyed turn (NaN: no turn)

    def keyed(self) -> np.ndarray:
        """(k-1, 3) keyed rotation vectors: short + 2 pi whole turns about axis."""
        return self.short + (_TWO_PI * self.whole)[:, None] * self.axis

    def progress_at(self, frames) -> np.ndarray:
        """Blender's fraction along its interval at ``frames`` (each a tracked sample)."""
        f = np.asarray(frames, dtype=np.float64).ravel()
        i = np.clip(np.searchsorted(self.sample_times, f), 0, self.sample_times.size - 1)
        off = np.abs(self.sample_times[i] - f) > 1e-9 * np.maximum(1.0, np.abs(f))
        if off.any():
            bad = float(f[int(np.argmax(off))])
            raise ValueError(f"progress_at: frame {bad:g} was not among the tracked samples.")
        return self.progress[i]


def _gather_rows(sq: np.ndarray, q: np.ndarray, source: np.ndarray) -> np.ndarray:
    """(b, rows, 4): for each row, the sample ``sq[:, source]`` or, where ``source`` is
    ``sq.shape[1]`` or more, the key ``q[:, source - sq.shape[1]]``: the rows of
    ``concatenate((sq, q), axis=1)`` without copying every sample into it first (8.3 ->
    2.1 ms for 64 transforms x 10,000 samples)."""
    count = sq.shape[1]          # one or more: track_many has a sample between the keys
    keys = source >= count
    out = np.take(sq, np.where(keys, 0, source), axis=1)
    out[:, keys] = np.take(q, source[keys] - count, axis=1)
    return out


def _segment_restart(values: np.ndarray, seg_start: np.ndarray) -> np.ndarray:
    """Cumulative sums of ``values`` (b, rows) along the rows, restarted at every
    segment's first row (``seg_start``: that row, for each row)."""
    cs = np.cumsum(values, axis=1)
    before = np.concatenate((np.zeros((values.shape[0], 1)), cs[:, :-1]), axis=1)
    return cs - np.take(before, seg_start, axis=1)


def track(key_times, key_quats, sample_times, sample_quats) -> Tracking:
    """Follow Blender's playback between the keys: keyed turns and progress.

    key_times (k,), k >= 2, increasing frames; key_quats (k, 4): Blender's
    orientation at the keys; sample_times (s,) and sample_quats (s, 4): its
    orientation at other frames (any order; those outside the keyed range are
    ignored; keys are added). Consecutive tracked samples must be less than
    180 deg apart, so sample each interval densely (the add-on takes at least
    8 samples per interval, more where the channel values move far).

    Per interval the relative rotation from key i to every sample is followed
    as an axis-angle with a continuous axis and an angle unwrapped past whole
    turns (the sum of the frame-by-frame geodesic steps, each taken with the
    axis' sign kept). Its end value is the keyed turn; it is then rewritten as
    the exact short rotation between the keys plus an integer number of whole
    turns about the short rotation's axis (the playback's own axis when the
    short rotation is below SHORT_AXIS_EPS), so the turn ends on the key bit
    for bit instead of on the tracking's float sum.
    """
    q = np.asarray(key_quats, dtype=np.float64)
    sq = np.asarray(sample_quats, dtype=np.float64).reshape(-1, 4)
    return track_many(key_times, q[None], sample_times, sq[None])[0]


def track_many(key_times, key_quats, sample_times, sample_quats, unit: bool = False) -> list:
    """:func:`track` of b rotations keyed on the same frames and sampled at the
    same times (a rig's bones): key_quats (b, k, 4), sample_quats (b, s, 4).

    Returns b Trackings. The rows (which sample belongs to which interval) are
    laid out once for all b; only the quaternion arithmetic is per rotation, in
    one numpy pass over the batch instead of b passes (a 60-bone rig: one
    call instead of 60). ``unit``: both quaternion arrays are already unit and finite
    (core.analysis normalises a group when it stacks it), so they are used as they are.
    """
    times = as_frames(key_times, "key_times")
    if times.size < 2 or np.any(np.diff(times) <= 0.0):
        raise ValueError("track: needs two or more strictly increasing key times.")
    q = np.asarray(key_quats, dtype=np.float64)
    if q.ndim != 3 or q.shape[1] != times.size:
        raise ValueError(f"track: key_quats must be (b, {times.size}, 4), got {q.shape}.")
    if not unit:
        q = quat.normalize(q, "key_quats")
    batch = q.shape[0]
    st = as_frames(np.atleast_1d(sample_times), "sample_times")
    sq = np.asarray(sample_quats, dtype=np.float64)
    if sq.ndim != 3 or sq.shape[0] != batch or sq.shape[1] != st.shape[0]:
        raise ValueError(f"track: {st.shape[0]} sample times for {batch} rotation(s), but "
                         f"sample quaternions of shape {sq.shape}.")
    if not unit:
        sq = quat.normalize(sq, "sample_quats")
    inside = (st >= times[0]) & (st <= times[-1])
    if np.isin(st[inside], times).all():
        return _keys_only(times, q)
    all_t = np.concatenate((st[inside], times))
    # Where each time's orientation is in (samples, then keys) along axis 1: the
    # orientations are gathered once, for the rows, not copied at every step here.
    source = np.concatenate((np.flatnonzero(inside), st.size + np.arange(times.size)))
    # Unique times; at a key time the key's own orientation wins (it comes last:
    # a stable sort keeps the samples before the keys).
    order = np.argsort(all_t, kind="stable")
    all_t, source = all_t[order], source[order]
    last = np.ones(all_t.size, dtype=bool)
    last[:-1] = all_t[1:] != all_t[:-1]
    u_t, u_source = all_t[last], source[last]
    n_int = times.size - 1
    key_pos = np.searchsorted(u_t, times)

    # Rows: every sample with the interval it starts or lies in, plus each
    # interior key again as the END of the interval before it.
    # The samples are sorted, so each interior key's END row goes right before
    # its own row (np.insert), and every interval's rows are contiguous.
    seg_of = np.clip(np.searchsorted(times, u_t, side="right") - 1, 0, n_int - 1)
    rows_j = np.insert(np.arange(u_t.size), key_pos[1:-1], key_pos[1:-1])
    rows_seg = np.insert(seg_of, key_pos[1:-1], np.arange(n_int - 1))
    n_rows = rows_j.size
    first_row = np.searchsorted(rows_seg, np.arange(n_int))
    last_row = np.append(first_row[1:], n_rows) - 1
    seg_start = first_row[rows_seg]
    row_index = np.arange(n_rows)

    # From here on arrays are (b, rows, ...): the batch, then the rows.
    rel = quat.multiply(np.take(quat.conjugate(q), rows_seg, axis=1),
                        _gather_rows(sq, q, u_source[rows_j]))
    np.negative(rel, out=rel, where=rel[..., :1] < 0.0)   # rotation level: w >= 0
    vn = quat.norm(rel[..., 1:])
    angle = 2.0 * np.arctan2(vn, rel[..., 0])         # [0, pi]
    defined = angle > TRACK_AXIS_EPS
    axis = np.zeros((batch, n_rows, 3))
    np.divide(rel[..., 1:], vn[..., None], out=axis, where=defined[..., None])
    # Undefined axes (at the identity) hold the latest defined one of their
    # interval, or its first defined one before any; none: +Z.
    latest = np.maximum.accumulate(np.where(defined, row_index, -1), axis=1)
    following = np.where(defined, row_index, n_rows)
    following = np.minimum.accumulate(following[:, ::-1], axis=1)[:, ::-1]
    first_of = following[:, first_row]                        # (b, n_int)
    first_defined = np.where(first_of <= last_row, first_of, -1)
    use = np.where(latest >= seg_start, latest, np.take(first_defined, rows_seg, axis=1))
    # Only the undefined rows change (a defined row's ``use`` is itself), and each takes
    # a defined row's axis: written in place, a few rows, not a gather of all of them.
    b_undef, r_undef = np.nonzero(~defined)
    source = use[b_undef, r_undef]
    has = source >= 0
    axis[b_undef[has], r_undef[has]] = axis[b_undef[has], source[has]]
    axis[b_undef[~has], r_undef[~has]] = (0.0, 0.0, 1.0)
    # Axis sign continuous within each interval (a cumulative parity of flips).
    flip = np.zeros((batch, n_rows), dtype=bool)
    flip[:, 1:] = np.einsum("bij,bij->bi", axis[:, 1:], axis[:, :-1]) < 0.0
    flip[:, first_row] = False
    # Whether the flips so far are odd (an exclusive-or running along the rows), against
    # the same at the interval's first row, which flips nothing: the parity that sums of
    # the flips restarted per interval gave, in 3 ms where those took 16 (64 x 12,000
    # rows).
    flips = np.logical_xor.accumulate(flip, axis=1)
    parity = flips != np.take(flips, seg_start, axis=1)
    sign = np.where(parity, -1.0, 1.0)
    axis = axis * sign[..., None]
    angle = angle * sign
    # Unwrap the angle: each step between samples taken in [-pi, pi).
    steps = np.zeros((batch, n_rows))
    steps[:, 1:] = wrap_angle(np.diff(angle, axis=1))
    steps[:, first_row] = 0.0
    approx = _segment_restart(steps, seg_start) + np.take(angle, seg_start, axis=1)
    unwrapped = nearest_turn(angle, approx)
    rotvec = unwrapped[..., None] * axis              # (b, rows, 3), frame of key i

    end_vec = rotvec[:, last_row]                     # (b, n_int, 3)
    rel_keys = quat.multiply(quat.conjugate(q[:, :-1]), q[:, 1:])
    short = quat.rotation_vector(rel_keys)
    short_angle = quat.norm(short)
    end_angle = quat.norm(end_vec)
    fallback = np.where((end_angle > SHORT_AXIS_EPS)[..., None],
                        end_vec / np.where(end_angle > 0.0, end_angle, 1.0)[..., None],
                        np.array([0.0, 0.0, 1.0]))
    use_short = short_angle > SHORT_AXIS_EPS
    axis_i = np.where(use_short[..., None],
                      short / np.where(use_short, short_angle, 1.0)[..., None], fallback)
    whole = np.round((np.einsum("bij,bij->bi", end_vec, axis_i) - short_angle) / _TWO_PI)
    whole = whole.astype(np.int64)
    keyed = short + (_TWO_PI * whole)[..., None] * axis_i
    keyed_angle = quat.norm(keyed)
    differs = keyed_angle - short_angle > np.radians(TURN_MARGIN_DEG)

    # Progress of each (non-duplicate) sample along its interval's keyed turn.
    row_prog = np.full((batch, n_rows), np.nan)
    moving = keyed_angle > TRACK_AXIS_EPS
    unit_keyed = np.zeros_like(keyed)
    np.divide(keyed, keyed_angle[..., None], out=unit_keyed, where=moving[..., None])
    # How far along: the twist of each sample about the keyed axis (the angle of
    # the closest point on that great circle, 2 atan2(v.a, w)), taken with the
    # whole turns of the unwrapped tracking. For slerp, whose path is that
    # circle, the method's point at this progress is the closest one, so the
    # report's path deviation there is the exact distance to the path.
    a_rows = np.take(unit_keyed, rows_seg, axis=1)
    twist = 2.0 * np.arctan2(np.einsum("bij,bij->bi", rel[..., 1:], a_rows), rel[..., 0])
    approx_along = np.einsum("bij,bij->bi", rotvec, a_rows)
    along = nearest_turn(twist, approx_along)
    np.divide(along, np.take(keyed_angle, rows_seg, axis=1), out=row_prog,
              where=np.take(moving, rows_seg, axis=1))
    progress = np.full((batch, u_t.size), np.nan)
    # Duplicate end rows belong to the interval before: keep each sample's own row.
    own = np.ones(n_rows, dtype=bool)
    own[last_row[:-1]] = False
    progress[:, rows_j[own]] = row_prog[:, own]
    progress[:, key_pos[-1]] = np.where(moving[:, -1], 1.0, np.nan)

    return [Tracking(short=short[i], axis=axis_i[i], whole=whole[i], differs=differs[i],
                     keyed_deg=np.degrees(keyed_angle[i]), short_deg=np.degrees(short_angle[i]),
                     sample_times=u_t, progress=progress[i]) for i in range(batch)]


def _keys_only(times: np.ndarray, q: np.ndarray) -> list:
    """track_many() when no sample lies between the keys (a dense bake's frames), for
    the whole batch ``q`` (b, k, 4) in one pass: each interval is its short arc (nothing
    shows another way round), progress is known at the keys only."""
    short = quat.rotation_vector(quat.multiply(quat.conjugate(q[:, :-1]), q[:, 1:]))
    angle = quat.norm(short)                                  # (b, k-1)
    axis = np.zeros_like(short)
    axis[..., 2] = 1.0
    np.divide(short, angle[..., None], out=axis, where=(angle > SHORT_AXIS_EPS)[..., None])
    moving = np.concatenate((angle, angle[:, -1:]), axis=1) > TRACK_AXIS_EPS
    progress = np.where(moving, 0.0, np.nan)
    progress[:, -1] = np.where(moving[:, -1], 1.0, np.nan)
    degrees = np.degrees(angle)
    n = times.size - 1
    return [Tracking(short=short[i], axis=axis[i], whole=np.zeros(n, dtype=np.int64),
                     differs=np.zeros(n, dtype=bool), keyed_deg=degrees[i],
                     short_deg=degrees[i].copy(), sample_times=times.copy(),
                     progress=progress[i])
            for i in range(q.shape[0])]


def classify(mode: str, key_raw, differs, stepped=None) -> list:
    """Kind of each key interval: "short", "flip", "wrap", "euler", "spin" or "step".

    mode: Blender's rotation mode; key_raw (k, 3|4): the channel values at the
    keys (radians; axis-angle's index 0 is the angle); differs (k-1,) from
    :func:`track`; stepped (k-1,) bool: Blender holds then jumps (CONSTANT).
    The AUTO rule of the module docstring decides "spin" against "wrap".
    """
    differs = np.asarray(differs, dtype=bool)
    n = differs.shape[0]
    steps = np.zeros(n, dtype=bool) if stepped is None else np.asarray(stepped, dtype=bool)
    raw = None if key_raw is None else np.asarray(key_raw, dtype=np.float64)
    # Most intervals are short or steps (a baked rig: a thousand per bone); only those
    # whose keyed turn differs are looked at one by one.
    kinds = np.where(steps, "step", "short").tolist()
    for i in np.flatnonzero(differs & ~steps).tolist():
        kinds[i] = _differing_kind(mode, raw, i)
    return kinds


def _differing_kind(mode: str, raw, i: int) -> str:
    """classify's kind of interval ``i``, whose keyed turn differs from the short arc."""
    if mode == "QUATERNION" or raw is None:
        return "flip"
    channels = range(3) if mode in EULER_ORDERS else (0,)
    past = wrapped = False
    for c in channels:
        a, b = raw[i, c], raw[i + 1, c]
        if abs(b - a) <= np.pi + INSIDE_TOL:
            continue
        if abs(a) <= np.pi + INSIDE_TOL and abs(b) <= np.pi + INSIDE_TOL:
            wrapped = True
        else:
            past = True
    if past and not wrapped:
        return "spin"
    if mode in EULER_ORDERS:
        # No channel wraps: the channels together turn the long way (a report walk read
        # "Euler wrap" for (45, 88, 10) -> (-30, 0, 175), where none crosses 180).
        return "wrap" if wrapped else "euler"
    # Axis-angle turning the long way with no angle past 180: the axis reversed
    # between the keys (the axis-angle sign flip).
    return "wrap" if wrapped else "flip"


def choose(setting: str, kinds) -> np.ndarray:
    """(k-1,) bool: bake the interval with its keyed turn (else the short arc)."""
    if setting not in TURN_SETTINGS:
        raise ValueError(f"Unknown turns setting {setting!r}: use one of "
                         f"{', '.join(TURN_SETTINGS)}.")
    kinds = list(kinds)
    # The interval-by-interval test only where it can be true somewhere: a dense bake
    # has an interval per frame, and most of a rig's bones have no spin or step at all.
    if setting == "SHORTEST" or (setting != "KEYED" and "spin" not in kinds):
        return np.zeros(len(kinds), dtype=bool)
    if setting == "KEYED":
        if "step" not in kinds:
            return np.ones(len(kinds), dtype=bool)
        return np.array([k != "step" for k in kinds], dtype=bool)
    return np.array([k == "spin" for k in kinds], dtype=bool)


CAUSES = {
    "flip": "a flipped quaternion sign",
    "wrap": "an Euler wrap",
    "euler": "Euler channels interpolated one by one",
    "spin": "a keyed spin",
}

# describe()'s sentences (str.format patterns, translated in the add-on): HEAD is what
# Blender plays (key span, its turn in degrees, the cause), the others what the bake did
# after it, by whether the keyed turn was kept and whether it was a spin.
HEAD = "keys {}: Blender turns {:.0f} deg ({})"
SENTENCES = {
    "kept": "{}; baked the long way, as keyed, because Turns is {} (Turns: Auto or Shortest "
            "would take the {:.0f} deg short way)",
    "kept spin": "{}; baked as keyed, because Turns is {} (Turns: Shortest would take the "
                 "{:.0f} deg short way)",
    "short": "{}; baked the {:.0f} deg short way instead (Turns: Keyed would keep Blender's "
             "{:.0f} deg turn)",
    "short spin": "{}; baked the {:.0f} deg short way instead (Turns: Auto or Keyed would "
                  "keep the spin)",
}


def describe(key_times, kinds, tracking: Tracking, keep, setting: str) -> list:
    """Sentences for every interval baked differently from what the keys play, and
    every kept spin. ``keep`` is :func:`choose`'s result for ``setting``. Each is a
    :class:`~.words.Phrase` (the English sentence, and its pattern for the add-on to
    translate): SENTENCES and CAUSES are its patterns."""
    out = []
    keep = np.asarray(keep, dtype=bool)
    for i, kind in enumerate(kinds):
        if kind not in CAUSES:
            continue
        turn = tracking.keyed_deg[i]
        short = tracking.short_deg[i]
        head = Phrase(HEAD, span(key_times[i], key_times[i + 1]), turn, Phrase(CAUSES[kind]))
        # Plain words (issue 24: "baked as the 20 deg short arc; Turns: Keyed keeps it" left
        # the reader to guess what "it" was): what the bake did, then the setting that
        # would do the other thing.
        if keep[i]:
            out.append(Phrase(SENTENCES["kept spin" if kind == "spin" else "kept"], head,
                              Phrase(setting.title()), short))
        elif kind == "spin":
            out.append(Phrase(SENTENCES["short spin"], head, short))
        else:
            out.append(Phrase(SENTENCES["short"], head, short, turn))
    return out
