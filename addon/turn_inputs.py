# SPDX-License-Identifier: GPL-3.0-or-later
"""What core.turns needs from Blender: stepped intervals and the dense playback.

Shared by the bake (addon/bake.py) and the report (addon/analyze.py), so both
see the same keyed turns, kinds and steps. Reads F-curves through animdata
only (no frame_set); changes nothing.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core import turns
from . import animdata

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
            data = animdata.read_keyframe_arrays(fc, ("co", "interpolation"))
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
        from ..core import quat

        a, b = raw[..., :-1, :], raw[..., 1:, :]
        same_side = np.einsum("...ij,...ij->...i", a, b) >= 0.0
        return np.where(same_side, quat.angle_between(a, b), 2.0 * np.pi)
    if mode == 'AXIS_ANGLE':
        return delta[..., 0] + np.pi
    return delta.sum(axis=-1)


def _samples_per_interval(mode: str, key_raw: np.ndarray, sparse: bool = False) -> np.ndarray:
    """Samples per interval from a bound on the turn the channel values can make.

    With ``sparse``, an interval whose bound (times the overshoot margin) stays
    under 180 deg gets its start alone: Blender's playback there cannot go the
    long way, so the key orientations tell everything (only Timing: Keyed needs
    the frames in between).
    """
    bound = _turn_bound(mode, key_raw)
    count = np.clip(np.ceil(TRACK_OVERSHOOT * bound / TRACK_STEP), TRACK_MIN_SAMPLES,
                    TRACK_MAX_SAMPLES).astype(np.int64)
    if sparse:
        count[TRACK_OVERSHOOT * bound < np.pi] = 1
    return count


def frames_suffice(mode: str, key_frames, key_raw) -> bool:
    """True when Blender's playback sampled on every whole frame already stays
    under TRACK_STEP (with the overshoot margin) from one frame to the next, so
    tracking needs no samples between the frames (the report's usual case)."""
    keys = np.asarray(key_frames, dtype=np.float64)
    if keys.size < 2:
        return True
    # Whole frames per interval against the samples playback_times would take.
    return bool((np.diff(keys) >= _samples_per_interval(mode, key_raw)).all())


def playback_times(mode: str, key_frames, key_raw, extra=None,
                   sparse: bool = False) -> np.ndarray:
    """Frames to sample Blender's playback at for tracking (sorted, keys included);
    ``sparse``: see _samples_per_interval."""
    keys = np.asarray(key_frames, dtype=np.float64)
    parts = [_times_from_counts(keys, _samples_per_interval(mode, key_raw, sparse))]
    if extra is not None:
        e = np.asarray(extra, dtype=np.float64).ravel()
        parts.append(e[(e >= keys[0]) & (e <= keys[-1])])
    return np.unique(np.concatenate(parts))


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
    delta = animdata.delta_rotation_fcurves(req.obj, req.mode, req.fcurves)
    return not animdata.has_keys(delta) and animdata.is_identity_delta(
        animdata.delta_rotation_defaults(req.obj, req.mode), req.mode)


def _playback_quats(raw: np.ndarray, mode: str) -> np.ndarray:
    from ..core import rotation

    return rotation.mode_values_to_quat(animdata.as_played(raw, mode), mode)


def track_many(requests: Sequence[TrackRequest], known: dict | None = None) -> list:
    """core.turns.track of each request's playback, in its order.

    Transforms with the same rotation mode and key frames whose channels play
    alone (a rig's bones, the common case) share one set of sample times (per
    interval the most samples any of them needs), one ``evaluate_channels``
    call and one ``core.turns.track_many``: a 60-bone rig costs about what one
    bone did. Anything else (delta rotations, Timing: Keyed's extra frames) is
    tracked on its own. ``known``: keyframe arrays already read (see
    ``animdata.evaluate_channels``).
    """
    out: list = [None] * len(requests)
    groups: dict = {}
    for i, req in enumerate(requests):
        if req.extra is None and _plays_channels_alone(req):
            key = (req.mode, np.asarray(req.key_frames, dtype=np.float64).tobytes())
            groups.setdefault(key, []).append(i)
        else:
            out[i] = track(req.obj, req.mode, req.fcurves, req.key_frames, req.key_quats,
                           req.key_raw, req.extra)
    for (mode, _frames), members in groups.items():
        first = requests[members[0]]
        keys = np.asarray(first.key_frames, dtype=np.float64)
        counts = _samples_per_interval(
            mode, np.stack([requests[i].key_raw for i in members]), sparse=True).max(axis=0)
        key_quats = np.stack([requests[i].key_quats for i in members])
        if (counts == 1).all():
            # No interval can turn the long way (the usual case): the keys say it all.
            found = turns.track_many(keys, key_quats, keys, key_quats)
        else:
            times = _times_from_counts(keys, counts)
            fcurves = [animdata.rotation_fcurves(requests[i].obj, mode, requests[i].fcurves)
                       for i in members]
            defaults = np.concatenate([animdata.rotation_defaults(requests[i].obj, mode)
                                       for i in members])
            raw = animdata.evaluate_channels([fc for fcs in fcurves for fc in fcs], defaults,
                                             times, known)
            # (times, members x channels) -> (members x times, channels): one conversion.
            width = raw.shape[1] // len(members)
            per_member = raw.reshape(times.size, len(members), width).transpose(1, 0, 2)
            quats = _playback_quats(per_member.reshape(-1, width), mode).reshape(
                len(members), times.size, 4)
            found = turns.track_many(keys, key_quats, times, quats)
        for i, tracking in zip(members, found):
            out[i] = tracking
    return out


def track(obj, mode: str, fcurves, key_frames, key_quats, key_raw, extra=None):
    """core.turns.track of ``obj``'s playback (rotation channels of ``mode`` in
    ``fcurves``, or the object's own when None), sampled at playback_times
    plus ``extra`` frames (e.g. the baked frames, for Timing: Keyed). Without
    ``extra`` the intervals that cannot turn the long way are not sampled
    inside (their progress is then unknown, which only Timing: Keyed asks)."""
    from ..core import quat

    times = playback_times(mode, key_frames, key_raw, extra, sparse=extra is None)
    if times.size == np.asarray(key_frames).size:
        # No interval can turn the long way (the usual case): the keys say it all.
        return turns.track(key_frames, key_quats, key_frames, key_quats)
    quats = _playback_quats(animdata.evaluate_rotation_raw(obj, times, mode, fcurves), mode)
    # Blender plays delta @ rotation (addon/animdata.py: evaluate_orientation).
    if animdata.has_keys(animdata.delta_rotation_fcurves(obj, mode, fcurves)) or \
            not animdata.is_identity_delta(animdata.delta_rotation_defaults(obj, mode), mode):
        quats = quat.multiply(animdata.evaluate_delta_rotation(obj, times, mode, fcurves), quats)
    return turns.track(key_frames, key_quats, times, quats)
