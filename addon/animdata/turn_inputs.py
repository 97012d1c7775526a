# SPDX-License-Identifier: GPL-3.0-or-later
"""What core.turns needs from Blender: stepped intervals and the dense playback.

Shared by the bake (bake/) and the report (analyze/), so both
see the same keyed turns, kinds and steps. Reads F-curves through animdata
only (no frame_set); changes nothing.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...core import turns
from ...core.rotation import EULER_ORDERS as EULER_MODES
from .channels import (
    delta_rotation_defaults,
    delta_rotation_fcurves,
    has_keys,
    rotation_defaults,
    rotation_fcurves,
)
from .read import (
    KEY_FIELDS,
    evaluate_channels,
    evaluate_delta_rotation,
    evaluate_rotation_raw,
    is_identity_delta,
    played_quats,
    played_quats_of_many,
    read_keyframe_arrays,
)

# Samples per key interval when tracking Blender's playback: at least this
# many, and at least one per TRACK_STEP of the largest turn the channel values
# could make. Consecutive samples must stay under 180 deg apart; with the
# overshoot factor below a sample is at most 60 deg * 1.5 = 90 deg from the
# next. (Measured: 8 / pi/3 costs a third of 16 / pi/8 in a 100-object bake.)
TRACK_MIN_SAMPLES = 8
TRACK_STEP = np.pi / 3
# Bezier handles can overshoot the key values; the bound is scaled by this.
TRACK_OVERSHOOT = 1.5
# A single interval never gets more samples than this (a 1e6-turn typo).
TRACK_MAX_SAMPLES = 100_000

_CONSTANT = None


def _constant_value() -> int:
    global _CONSTANT
    if _CONSTANT is None:
        import bpy

        _CONSTANT = bpy.types.Keyframe.bl_rna.properties["interpolation"] \
            .enum_items['CONSTANT'].value
    return _CONSTANT


def stepped_intervals(fcurves: Sequence, key_frames, known: dict | None = None) -> np.ndarray:
    """(k-1,) bool: some channel holds CONSTANT over the interval and jumps at its end.

    ``fcurves``: the rotation channels (None where not animated); ``key_frames``
    (k,): the union of their key frames. A channel with CONSTANT interpolation
    that keeps its value (or whose next key comes later) is just a hold and
    does not make the interval a step. ``known``: keyframe arrays already read
    ({fc.as_pointer(): arrays with "co" and "interpolation"}).
    """
    keys = np.asarray(key_frames, dtype=np.float64)
    out = np.zeros(max(keys.size - 1, 0), dtype=bool)
    if keys.size < 2:
        return out
    constant = _constant_value()
    for fc in fcurves:
        if fc is None or not len(fc.keyframe_points):
            continue
        data = known.get(fc.as_pointer()) if known is not None else None
        if data is None:
            data = read_keyframe_arrays(fc, ("co", "interpolation"))
        co, ipo = data["co"], data["interpolation"]
        if co.shape[0] < 2 or not (ipo[:-1] == constant).any():
            continue   # no CONSTANT segment: no step (a rig's curves, mostly)
        idx = np.searchsorted(co[:, 0], keys[:-1], side="right") - 1
        valid = (idx >= 0) & (idx < co.shape[0] - 1)
        i = np.clip(idx, 0, co.shape[0] - 2)
        jumps = (ipo[i] == constant) & (co[i + 1, 0] == keys[1:]) & (co[i + 1, 1] != co[i, 1])
        out |= valid & jumps
    return out


def _turn_bound(mode: str, key_raw: np.ndarray) -> np.ndarray:
    """Per interval, an upper bound (radians) on how far the channel values can turn.
    ``key_raw``: (k, 3|4), or (b, k, 3|4) for b transforms keyed on the same frames.

    Euler: the sum of the channels' changes (a rotation about each axis in turn
    is at most that far from where it started). Quaternion: the rotation
    between the key values when their chord stays in one hemisphere, else a full
    turn (the long way round). Axis-angle: the angle's change plus half a turn
    for the axis.
    """
    raw = np.asarray(key_raw, dtype=np.float64)
    delta = np.abs(np.diff(raw, axis=-2))
    if mode == 'QUATERNION':
        from ...core import quat

        a, b = raw[..., :-1, :], raw[..., 1:, :]
        same_side = np.einsum("...ij,...ij->...i", a, b) >= 0.0
        return np.where(same_side, quat.angle_between(a, b), 2.0 * np.pi)
    if mode == 'AXIS_ANGLE':
        return delta[..., 0] + np.pi
    return delta.sum(axis=-1)


def _samples_per_interval(mode: str, key_raw: np.ndarray, safe=None,
                          hull_turn=None) -> np.ndarray:
    """Samples per interval from a bound on the turn the channel values can make.

    ``safe`` (same leading shape as the intervals, bool): intervals whose playback
    provably cannot turn the long way (``safe_intervals``) get their start alone, the
    key orientations telling everything there (only Timing: Keyed needs the frames in
    between). ``hull_turn``: a proven bound from the curves' control values (Euler),
    used when larger than the key values' estimate.
    """
    bound = TRACK_OVERSHOOT * _turn_bound(mode, key_raw)
    if hull_turn is not None:
        bound = np.maximum(bound, hull_turn)
    count = np.clip(np.ceil(bound / TRACK_STEP), TRACK_MIN_SAMPLES,
                    TRACK_MAX_SAMPLES).astype(np.int64)
    if safe is not None:
        count[np.asarray(safe, dtype=bool)] = 1
    return count


def channel_hulls(fcurves: Sequence, defaults, key_frames, known: dict | None = None):
    """(lo, hi), each (k-1, c): bounds on each channel's value inside each interval of
    ``key_frames`` (the union of the channels' keys), or None when no bound is known
    for some channel (see ``_hulls_many``)."""
    lo, hi, ok = _hulls_many(fcurves, defaults, key_frames, known)
    return (lo, hi) if ok.all() else None


def _hulls_many(fcurves: Sequence, defaults, key_frames, known: dict | None):
    """(lo, hi, ok): per interval of ``key_frames`` and channel, bounds on the value, and
    per channel whether they hold.

    A Bezier segment stays inside the hull of its four control values, and Blender's
    correction of a long handle only moves it towards its key, so the keys and handles
    bound the curve; CONSTANT and LINEAR segments stay between their keys. No bound
    (``ok`` False) for a channel with F-modifiers, an easing interpolation (BACK and
    ELASTIC overshoot) or LINEAR extrapolation into the range of another channel's
    keys. Channels keyed on exactly ``key_frames`` (a rig's, mostly) are bounded
    together, a few array operations for all of them.
    """
    from ...core import fcurve as core_fcurve

    keys = np.asarray(key_frames, dtype=np.float64)
    n, width = keys.size - 1, len(fcurves)
    lo, hi = np.empty((n, width)), np.empty((n, width))
    ok = np.ones(width, dtype=bool)
    together = []      # (column, co, hl, hr, ipo) of the curves keyed on exactly `keys`
    for c, fc in enumerate(fcurves):
        if fc is None or not len(fc.keyframe_points):
            lo[:, c] = hi[:, c] = float(defaults[c])
            continue
        if len(fc.modifiers):
            ok[c] = False
            continue
        data = known.get(fc.as_pointer()) if known is not None else None
        if data is None:
            data = read_keyframe_arrays(fc, KEY_FIELDS)
        co, hl, hr, ipo = (data["co"], data["handle_left"], data["handle_right"],
                           data["interpolation"])
        if ipo[:-1].size and ipo[:-1].max() > core_fcurve.BEZIER:
            ok[c] = False
            continue
        if co.shape[0] == keys.size and (co[:, 0] == keys).all():
            together.append((c, co, hl, hr, ipo))
            continue
        first, last = co[0, 0], co[-1, 0]
        if fc.extrapolation != 'CONSTANT' and (keys[0] < first or keys[-1] > last):
            ok[c] = False
            continue
        if co.shape[0] == 1:
            lo[:, c] = hi[:, c] = co[0, 1]
            continue
        seg = np.clip(np.searchsorted(co[:, 0], keys[:-1], side="right") - 1, 0,
                      co.shape[0] - 2)
        lo[:, c], hi[:, c] = _segment_hulls(co[seg, 1], co[seg + 1, 1], hr[seg, 1],
                                            hl[seg + 1, 1],
                                            ipo[seg] == core_fcurve.BEZIER)
        # Outside this channel's own keys (constant extrapolation): its end value.
        for outside, value in ((keys[1:] <= first, co[0, 1]), (keys[:-1] >= last, co[-1, 1])):
            lo[outside, c] = hi[outside, c] = value
    if together:
        columns = [t[0] for t in together]
        y = np.stack([t[1][:, 1] for t in together], axis=1)       # (k, m)
        right = np.stack([t[3][:-1, 1] for t in together], axis=1)  # (k-1, m)
        left = np.stack([t[2][1:, 1] for t in together], axis=1)
        bez = np.stack([t[4][:-1] == core_fcurve.BEZIER for t in together], axis=1)
        lo[:, columns], hi[:, columns] = _segment_hulls(y[:-1], y[1:], right, left, bez)
    return lo, hi, ok


def _segment_hulls(a, b, handle_right, handle_left, bezier):
    """(lo, hi) of segments from key value ``a`` to ``b``: with their handles' values
    where ``bezier``."""
    h1, h2 = np.where(bezier, handle_right, a), np.where(bezier, handle_left, b)
    return (np.minimum(np.minimum(a, b), np.minimum(h1, h2)),
            np.maximum(np.maximum(a, b), np.maximum(h1, h2)))


def chord_gaps(fcurves: Sequence, defaults, key_frames, known: dict | None = None) -> np.ndarray:
    """(k-1, c): per interval of ``key_frames`` and channel, the largest distance of the
    channel's value from the straight line between its values at the interval's two
    keys (np.inf where unknown), for core.stray's bound of how far the playback strays
    from slerp.

    A curve keyed on exactly ``key_frames``: a Bezier segment lies in the convex hull
    of its keys and handles, and a point's vertical distance from the chord is largest
    at a corner of that hull, so the handles' distances bound it (0 at the keys);
    LINEAR is on the chord; CONSTANT holds and jumps (the whole change). Any other
    curve: the interval is part of one of its segments, and both the curve and the
    chord stay inside that segment's hull (_hulls_many): its width. Unknown (np.inf)
    where _hulls_many has no bound (F-modifiers, easing interpolations).
    """
    from ...core import fcurve as core_fcurve

    keys = np.asarray(key_frames, dtype=np.float64)
    n = keys.size - 1
    gaps = np.zeros((n, len(fcurves)))
    others = []          # columns of the curves not keyed on exactly `keys`
    for c, fc in enumerate(fcurves):
        if fc is None or not len(fc.keyframe_points):
            continue     # its default value all along: on the chord
        data = known.get(fc.as_pointer()) if known is not None else None
        if data is None:
            data = read_keyframe_arrays(fc, KEY_FIELDS)
        co, hl, hr, ipo = (data["co"], data["handle_left"], data["handle_right"],
                           data["interpolation"])
        if len(fc.modifiers) or not (co.shape[0] == keys.size and (co[:, 0] == keys).all()):
            others.append(c)
            continue
        kind = ipo[:-1]
        if not kind.size:
            continue
        if kind.max() > core_fcurve.BEZIER:
            gaps[:, c] = np.inf        # BACK, ELASTIC, ...: no bound
            continue
        if kind.min() == core_fcurve.LINEAR == kind.max():
            continue     # on the chord all along (a dense bake's keys): 0
        x0, x1, y0, y1 = co[:-1, 0], co[1:, 0], co[:-1, 1], co[1:, 1]
        slope = (y1 - y0) / (x1 - x0)

        def off(handle):
            return np.abs(handle[:, 1] - (y0 + slope * (handle[:, 0] - x0)))

        bezier = np.maximum(off(hr[:-1]), off(hl[1:]))
        gaps[:, c] = np.where(kind == core_fcurve.BEZIER, bezier,
                              np.where(kind == core_fcurve.CONSTANT, np.abs(y1 - y0), 0.0))
    if others:
        lo, hi, ok = _hulls_many([fcurves[c] for c in others],
                                 [defaults[c] for c in others], keys, known)
        width = np.where(ok[None, :], hi - lo, np.inf)
        gaps[:, others] = width
    return gaps


def safe_intervals(mode: str, key_raw, hulls) -> np.ndarray:
    """(k-1,) bool (or (b, k-1) for b transforms' key_raw (b, k, c) and hulls): Blender's
    playback of the interval provably stays within half a
    turn of its start, so it cannot go the long way (the keys tell everything).

    Quaternion: every value the channels can take (the box of ``hulls``) has a
    positive dot product with the start key: the playback stays in its hemisphere
    (relative rotation under 180 deg, never through zero). Euler: the channels'
    ranges add up to less than half a turn (a rotation about each axis in turn is at
    most that far from where it started). Axis-angle: never (its axis is free).
    """
    raw = np.asarray(key_raw, dtype=np.float64)
    if hulls is None or mode == 'AXIS_ANGLE':
        return np.zeros(raw.shape[:-2] + (raw.shape[-2] - 1,), dtype=bool)
    lo, hi = hulls
    if mode == 'QUATERNION':
        start = raw[..., :-1, :]
        lowest = np.where(start >= 0.0, start * lo, start * hi).sum(axis=-1)
        return lowest > 0.0
    return (hi - lo).sum(axis=-1) < np.pi


def moving_channels(obj, mode: str, fcurves) -> tuple | None:
    """(curves, defaults) of the rotation channels that move: the regular ones, or the
    delta ones when only those are keyed; None when both move. The other half is a fixed
    rotation on one side, which leaves every relative rotation's angle as it is."""
    regular = rotation_fcurves(obj, mode, fcurves)
    delta = delta_rotation_fcurves(obj, mode, fcurves)
    which = moving_of(regular, delta)
    if which is None:
        return None
    if which == "regular":
        return regular, rotation_defaults(obj, mode)
    return delta, delta_rotation_defaults(obj, mode)


def moving_of(regular: list, delta: list) -> str | None:
    """moving_channels of the rotation curves ``regular`` and the delta ones ``delta``
    found already: "regular", "delta", or None when both move."""
    if has_keys(regular) and has_keys(delta):
        return None
    return "regular" if has_keys(regular) or not delta else "delta"


def _keyed_hulls(obj, mode: str, fcurves, key_frames, known: dict | None):
    """channel_hulls of the rotation channels that move (moving_channels); None when both
    the regular and the delta ones do."""
    moving = moving_channels(obj, mode, fcurves)
    return None if moving is None else channel_hulls(*moving, key_frames, known)


def _hull_turn(mode: str, hulls):
    """A proven bound on an Euler interval's turn from the hulls (None otherwise)."""
    if hulls is None or mode not in EULER_MODES:
        return None
    lo, hi = hulls
    return (hi - lo).sum(axis=-1)


def playback_times(mode: str, key_frames, key_raw, extra=None, safe=None,
                   hull_turn=None) -> np.ndarray:
    """Frames to sample Blender's playback at for tracking (sorted, keys included);
    ``safe``, ``hull_turn``: see _samples_per_interval."""
    keys = np.asarray(key_frames, dtype=np.float64)
    parts = [_times_from_counts(keys, _samples_per_interval(mode, key_raw, safe, hull_turn))]
    if extra is not None:
        e = np.asarray(extra, dtype=np.float64).ravel()
        parts.append(e[(e >= keys[0]) & (e <= keys[-1])])
    return np.unique(np.concatenate(parts))


def playback_counts(obj, mode: str, fcurves, key_frames, key_raw,
                    known: dict | None = None) -> np.ndarray | None:
    """Samples per key interval that following ``obj``'s keyed turns needs, as the bake's
    tracking takes them (:func:`track`): none inside the intervals that provably cannot
    turn the long way (safe_intervals; a baked rig's one-frame intervals), more where
    the curves' control values allow a larger Euler turn. None when the whole frames
    already suffice."""
    keys = np.asarray(key_frames, dtype=np.float64)
    if keys.size < 2:
        return None
    hulls = _keyed_hulls(obj, mode, fcurves, keys, known)
    counts = _samples_per_interval(mode, key_raw, safe_intervals(mode, key_raw, hulls),
                                   _hull_turn(mode, hulls))
    return None if (np.diff(keys) >= counts).all() else counts


def playback_counts_many(items: Sequence, key_frames, known: dict | None = None) -> list:
    """:func:`playback_counts` of several transforms keyed on ``key_frames``, each item
    (obj, mode, fcurves, key_raw): those of one rotation mode have their channels bounded
    in one ``_hulls_many`` call and their turns in one ``_turn_bound`` call (a rig's 60
    bones, one by one, took 6 ms of an Analyze click and 11 ms of the refresh after a
    Re-bake). The same counts as one by one (tests/blender/test_analyze_batch.py)."""
    keys = np.asarray(key_frames, dtype=np.float64)
    out: list = [None] * len(items)
    if keys.size < 2:
        return out
    by_mode: dict = {}
    for i, (_obj, mode, _fcurves, _raw) in enumerate(items):
        by_mode.setdefault(mode, []).append(i)
    spans = np.diff(keys)
    # Transforms at a time: their (intervals, channels) arrays stay near COUNT_BLOCK values,
    # in the cache. A baked rig's 60 bones x 1,000 one-frame intervals took 20 ms in one
    # piece, 11 ms one bone at a time, 9-10 ms sixteen at a time; its 60 bones keyed every
    # 100 frames, 6.4 ms one by one and 2.4 ms in one piece.
    size = max(1, COUNT_BLOCK // (4 * keys.size))
    for mode, members in by_mode.items():
        for start in range(0, len(members), size):
            _count_some(items, members[start:start + size], mode, keys, spans, known, out)
    return out


# Intervals x channels counted in one piece by playback_counts_many.
COUNT_BLOCK = 65_536


def _count_some(items, members: list, mode: str, keys, spans, known, out: list) -> None:
    """playback_counts_many's work for ``members`` (indices into ``items``) of one mode."""
    moving = [moving_channels(items[i][0], mode, items[i][2]) for i in members]
    curves = [fc for m in moving if m is not None for fc in m[0]]
    defaults = [d for m in moving if m is not None for d in m[1]]
    raw = np.stack([np.asarray(items[i][3], dtype=np.float64) for i in members])
    lo = np.zeros(raw.shape[:1] + (keys.size - 1,) + raw.shape[2:])
    hi = np.zeros_like(lo)
    bounded = np.zeros(len(members), dtype=bool)      # channel_hulls is not None
    if curves:
        all_lo, all_hi, ok = _hulls_many(curves, defaults, keys, known)
        column = 0
        for row, m in enumerate(moving):
            if m is None:
                continue
            width = len(m[0])
            if ok[column:column + width].all() and width == raw.shape[-1]:
                bounded[row] = True
                lo[row] = all_lo[:, column:column + width]
                hi[row] = all_hi[:, column:column + width]
            column += width
    safe = safe_intervals(mode, raw, (lo, hi)) & bounded[:, None]
    bound = TRACK_OVERSHOOT * _turn_bound(mode, raw)
    hull_turn = _hull_turn(mode, (lo, hi))
    if hull_turn is not None:
        bound = np.where(bounded[:, None], np.maximum(bound, hull_turn), bound)
    counts = np.clip(np.ceil(bound / TRACK_STEP), TRACK_MIN_SAMPLES,
                     TRACK_MAX_SAMPLES).astype(np.int64)
    counts[safe] = 1
    for row, i in enumerate(members):
        out[i] = None if (spans >= counts[row]).all() else counts[row]


def shared_playback_times(key_frames, counts: Sequence) -> np.ndarray:
    """Sample times for several transforms keyed on the same frames, each needing
    ``counts`` (:func:`playback_counts`): per interval the most any of them needs, so
    that all are tracked at the same times (in one core.turns.track_many call)."""
    keys = np.asarray(key_frames, dtype=np.float64)
    return _times_from_counts(keys, np.max(np.stack(counts), axis=0))


def _times_from_counts(keys: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``counts[i]`` evenly spaced frames in each key interval i (its start key first),
    plus the keys; sorted, built without a loop per interval."""
    seg = np.repeat(np.arange(keys.size - 1), counts)
    start = np.repeat(np.cumsum(counts) - counts, counts)
    frac = (np.arange(seg.size) - start) / counts[seg]
    times = keys[seg] + frac * (keys[seg + 1] - keys[seg])
    return np.unique(np.concatenate((times, keys)))


@dataclass
class TrackRequest:
    """One transform's keys, for :func:`track_many`."""

    obj: object                  # an object, or a transform (pose bone)
    mode: str                    # the rotation mode of the channels
    fcurves: object              # where its channels are looked up (None: its own)
    key_frames: np.ndarray       # (k,) union of the rotation key frames
    key_quats: np.ndarray        # (k, 4) Blender's orientation at the keys
    key_raw: np.ndarray          # (k, 3|4) the keyed channels' values at the keys
    extra: np.ndarray | None = None   # frames to sample as well (Timing: Keyed: the bake's)


def _plays_channels_alone(req: TrackRequest) -> bool:
    """True when Blender plays the rotation channels as they are (no delta rotation,
    keyed or static, composes with them): the transforms a rig batch is made of."""
    delta = delta_rotation_fcurves(req.obj, req.mode, req.fcurves)
    return not has_keys(delta) and is_identity_delta(
        delta_rotation_defaults(req.obj, req.mode), req.mode)


def track_many(requests: Sequence[TrackRequest], known: dict | None = None) -> list:
    """core.turns.track of each request's playback, in its order.

    Transforms with the same rotation mode and key frames whose channels play
    alone (a rig's bones, the common case) share one set of sample times (per
    interval the most samples any of them needs), one ``evaluate_channels``
    call and one ``core.turns.track_many``: a 60-bone rig costs about what one
    bone did. Anything else (delta rotations, Timing: Keyed's extra frames) is
    tracked on its own. ``known``: keyframe arrays already read (see
    ``evaluate_channels``).
    """
    out: list = [None] * len(requests)
    groups: dict = {}
    for i, req in enumerate(requests):
        if req.extra is None and _plays_channels_alone(req):
            key = (req.mode, np.asarray(req.key_frames, dtype=np.float64).tobytes())
            groups.setdefault(key, []).append(i)
        else:
            out[i] = track(req.obj, req.mode, req.fcurves, req.key_frames, req.key_quats,
                           req.key_raw, req.extra, known)
    for (mode, _frames), members in groups.items():
        first = requests[members[0]]
        keys = np.asarray(first.key_frames, dtype=np.float64)
        # Each member's own samples, and per interval the most of any: a member whose
        # interval provably cannot turn the long way (safe_intervals) gets the same
        # tracking from more samples, so its result does not depend on its neighbours.
        counts = _group_samples(mode, [requests[i] for i in members], keys, known)
        key_quats = np.stack([requests[i].key_quats for i in members])
        if (counts == 1).all():
            # No interval can turn the long way (the usual case): the keys say it all.
            found = turns.track_many(keys, key_quats, keys, key_quats)
        else:
            times = _times_from_counts(keys, counts)
            fcurves = [rotation_fcurves(requests[i].obj, mode, requests[i].fcurves)
                       for i in members]
            defaults = np.concatenate([rotation_defaults(requests[i].obj, mode)
                                       for i in members])
            raw = evaluate_channels([fc for fcs in fcurves for fc in fcs], defaults,
                                    times, known)
            quats = played_quats_of_many(raw, mode, len(members))
            found = turns.track_many(keys, key_quats, times, quats)
        for i, tracking in zip(members, found):
            out[i] = tracking
    return out


def _group_samples(mode: str, members: list, keys: np.ndarray, known: dict | None):
    """(k-1,) samples per interval for transforms keyed on the same ``keys`` whose
    channels play alone: each one's _samples_per_interval, the most of any; the
    channels of all of them bounded in one _hulls_many call."""
    fcurves = [fc for req in members for fc in rotation_fcurves(req.obj, mode, req.fcurves)]
    defaults = np.concatenate([rotation_defaults(req.obj, mode) for req in members])
    lo, hi, ok = _hulls_many(fcurves, defaults, keys, known)
    b, width = len(members), len(fcurves) // len(members)
    # (k-1, members x channels) -> (members, k-1, channels), as the key values are.
    lo = lo.reshape(keys.size - 1, b, width).transpose(1, 0, 2)
    hi = hi.reshape(keys.size - 1, b, width).transpose(1, 0, 2)
    bounded = ok.reshape(b, width).all(axis=1)                    # (members,)
    key_raw = np.stack([req.key_raw for req in members])
    safe = safe_intervals(mode, key_raw, (lo, hi)) & bounded[:, None]
    turn = _hull_turn(mode, (lo, hi))
    if turn is not None:
        turn = np.where(bounded[:, None], turn, 0.0)
    return _samples_per_interval(mode, key_raw, safe, turn).max(axis=0)


def track(obj, mode: str, fcurves, key_frames, key_quats, key_raw, extra=None,
          known: dict | None = None):
    """core.turns.track of ``obj``'s playback (rotation channels of ``mode`` in
    ``fcurves``, or the object's own when None), sampled at playback_times
    plus ``extra`` frames (e.g. the baked frames, for Timing: Keyed). Without
    ``extra`` the intervals that provably cannot turn the long way
    (safe_intervals) are not sampled inside (their progress is then unknown,
    which only Timing: Keyed asks)."""
    from ...core import quat

    hulls = _keyed_hulls(obj, mode, fcurves, key_frames, known)
    safe = safe_intervals(mode, key_raw, hulls) if extra is None else None
    times = playback_times(mode, key_frames, key_raw, extra, safe, _hull_turn(mode, hulls))
    if times.size == np.asarray(key_frames).size:
        # No interval can turn the long way (the usual case): the keys say it all.
        return turns.track(key_frames, key_quats, key_frames, key_quats)
    quats = played_quats(evaluate_rotation_raw(obj, times, mode, fcurves), mode)
    # Blender plays delta @ rotation (read.evaluate_orientation).
    if has_keys(delta_rotation_fcurves(obj, mode, fcurves)) or \
            not is_identity_delta(delta_rotation_defaults(obj, mode), mode):
        quats = quat.multiply(evaluate_delta_rotation(obj, times, mode, fcurves), quats)
    return turns.track(key_frames, key_quats, times, quats)
