# SPDX-License-Identifier: GPL-3.0-or-later
"""Where Blender's playback must be sampled between whole frames: the key intervals
whose channels turn far or fast, or may stray from slerp (``subframes_to_sample``).

On its own, above ``read`` and ``turn_inputs``: in ``read`` it made the two import each
other. ``turn_inputs`` and ``core.stray`` are imported where first used, as they were
there, so loading ``animdata`` loads neither.
"""
from __future__ import annotations

from typing import Iterable, NamedTuple

import numpy as np

from ...core import pitfalls
from ...core import quat as core_quat
from .channels import (
    delta_rotation_defaults,
    delta_rotation_fcurves,
    has_keys,
    rotation_defaults,
    rotation_fcurves,
)
from .paths import DELTA_ROTATION_PATHS
from .read import as_played, evaluate_channels, played_quats

# In-between samples per key interval whose channels jump far (below): a full
# 360 deg turn is then seen in steps of 22.5 deg, each unambiguous (< 180 deg).
FAR_TURN_SUBSTEPS = 16

# A delta rotation keyed beside the rotation turning more than this (deg) between two
# keys: Blender interpolates each of the two per channel and composes them, so where
# the rotation's keys make up for the delta's turn at the keys (a bake's, on every
# frame), the two need not agree between them. Sampled in between like a far turn (a
# walk: a delta key stored with its sign flipped played 5.7 deg off between the frames
# of a dense bake, which the report called fine).
DELTA_TURN_DEG = 20.0
# Keys a frame apart or closer turning more than this: whole frames see nothing between
# them, where Blender interpolates each channel on its own and slerp does not (a walk:
# mocap turning 103 deg in a frame played 23 deg off slerp at frame 58.5, and the report
# said Blender stays within 0.1 deg of slerp). Sampled at quarter frames between them,
# where motion blur samples (a review: sixteenths made a capture turning fast on every
# frame twice as slow to report).
NEAR_TURN_DEG = 20.0
NEAR_TURN_SUBSTEPS = 4
# Keys a frame apart or closer whose playback may stray from slerp by more than this
# (core.stray's bound, from the keys and handles) are sampled in sixteenths of the
# interval: a Bezier bake's aligned handle carries a sharp turn's speed into the
# quarter-frame span after it (the CMU walk's right arm: 1.5 deg at frame 2.0625, the
# interval turning 0.1 deg, and the report said 0.05 deg), mocap's Euler Bezier
# channels bow between frames (a knee: 0.25 deg at frame 136.5, reported 0). Where the
# bound is under it, no sample could find more: the report's between-frame figure
# understates Blender's playback by at most this.
STRAY_CHECK_DEG = 0.01
STRAY_SUBSTEPS = 16


class Subframes(NamedTuple):
    """subframes_to_sample's answer: ``every`` subframe to sample, sorted, and those of
    the far and near turns alone (``turning``), a part of it: the stray bound's
    sixteenths only measure, where the others also follow a turn (every quarter frame is
    a sixteenth too)."""
    every: np.ndarray
    turning: np.ndarray


def far_turn_subframes(obj, keys, mode: str | None = None, fcurves: Iterable | None = None,
                       rotation_at_keys: np.ndarray | None = None,
                       known: dict | None = None) -> np.ndarray:
    """Every subframe inside the key intervals to sample (subframes_to_sample's
    ``every``), sorted."""
    return subframes_to_sample(obj, keys, mode, fcurves, rotation_at_keys, known).every


def subframes_to_sample(obj, keys, mode: str | None = None, fcurves: Iterable | None = None,
                        rotation_at_keys: np.ndarray | None = None,
                        known: dict | None = None) -> Subframes:
    """Subframes inside key intervals where Blender's channels may spin between two keys.

    An Euler (or axis-angle angle) channel changing by more than pi between
    neighbouring keys, or a quaternion key whose sign is flipped against the
    previous one, turns the object the long way round (an axis-angle axis reversed
    swings it back through no rotation); sampled only at whole
    frames, two keys one frame apart would hide that spin: FAR_TURN_SUBSTEPS - 1 evenly
    spaced subframes of each such interval. Keys a frame apart turning far (NEAR_TURN_DEG:
    the rotation's own keys or its delta's, a BVH import's objects) hide how far Blender's
    channels stray from slerp: NEAR_TURN_SUBSTEPS - 1 of each; keys a frame apart whose
    playback may stray from slerp by more than STRAY_CHECK_DEG (core.stray's bound from
    the keys and handles, however little they turn): STRAY_SUBSTEPS - 1 of each. Returns
    them all (``every``, sorted), and those of the far and near turns (``turning``).
    ``rotation_at_keys``: the rotation channels' values at ``keys`` when the caller has
    them already (evaluated with the frames around them), so they are not evaluated again.
    ``known``: keyframe arrays already read (evaluate_channels), so they are not read again.
    """
    mode = mode or obj.rotation_mode
    keys = np.asarray(keys, dtype=np.float64)
    if keys.size < 2:
        return Subframes(np.zeros(0), np.zeros(0))
    far = np.zeros(keys.size - 1, dtype=bool)
    fast = np.zeros(keys.size - 1, dtype=bool)
    adjacent = np.diff(keys) <= 1.0 + 1e-9
    sets = [(rotation_fcurves(obj, mode, fcurves), rotation_defaults(obj, mode), mode,
             rotation_at_keys)]
    if mode in DELTA_ROTATION_PATHS:
        sets.append((delta_rotation_fcurves(obj, mode, fcurves),
                     delta_rotation_defaults(obj, mode), mode, None))
    keyed = [has_keys(fcs) for fcs, *_rest in sets]
    both = len(sets) == 2 and all(keyed)
    at_keys = {}     # the values at the keys of each set keyed, for _stray_bound
    for i, (fcs, defaults, kind, given) in enumerate(sets):
        if not keyed[i]:
            continue
        raw = at_keys[i] = evaluate_channels(fcs, defaults, keys, known) \
            if given is None else given
        far |= pitfalls.far_intervals(kind, raw)
        if (both and i == 1) or adjacent.any():
            q = played_quats(raw, kind)
            turned = np.degrees(core_quat.angle_between(q[:-1], q[1:]))
            if both and i == 1:
                far |= turned > DELTA_TURN_DEG
            fast |= adjacent & (turned > NEAR_TURN_DEG)
    stray = np.zeros_like(far)
    if adjacent.any():
        from .turn_inputs import moving_of

        # The channels that move (turn_inputs.moving_channels), found above, and their
        # values at the keys, at hand. No bound (every close interval sampled) for
        # axis-angle, or where the rotation and its delta both move.
        which = None if mode == 'AXIS_ANGLE' else \
            moving_of(sets[0][0], sets[1][0] if len(sets) == 2 else [])
        stray = adjacent & ~far
        if which is not None:
            i = 0 if which == "regular" else 1
            bound = _stray_bound(mode, sets[i][0], sets[i][1], keys, at_keys.get(i), known)
            stray &= bound > np.radians(STRAY_CHECK_DEG)
    every = np.unique(np.concatenate([_inside(keys, far, FAR_TURN_SUBSTEPS),
                                      _inside(keys, fast & ~far & ~stray, NEAR_TURN_SUBSTEPS),
                                      _inside(keys, stray, STRAY_SUBSTEPS)]))
    return Subframes(every, np.unique(np.concatenate([
        _inside(keys, far, FAR_TURN_SUBSTEPS), _inside(keys, fast & ~far, NEAR_TURN_SUBSTEPS)])))


# Key rows compared in one piece by subframes_many: the stray bound of a baked rig's 60
# bones x 1,000 keys took 9.8 ms in one piece and 5.3 ms sixteen bones at a time, whose
# arrays stay in the cache (10 ms one bone at a time).
TOGETHER_ROWS = 16_384


def subframes_many(items: list, keys) -> list:
    """``subframes_to_sample`` of each ``(obj, mode, fcurves, rotation_at_keys)`` in
    ``items``, all keyed on ``keys`` (a rig's bones, the bones of a bake), the same
    answers: per item its Subframes, or the exception subframes_to_sample raises for it.

    The transforms it can take together (the rotation keyed, its delta not, any mode
    but axis-angle: a rig's bones, a bake's) are looked up one by one, then compared
    per mode in one pass over all their intervals (TOGETHER_ROWS keys at a time): one
    bone at a time, the numpy calls on 1,000 keys each cost more in calling than in
    arithmetic. The others, and any whose values are no rotation, are
    taken alone as subframes_to_sample takes them."""
    keys = np.asarray(keys, dtype=np.float64)
    out: list = [None] * len(items)
    together: dict = {}          # mode -> [(index, curves, values at the keys)]
    for i, (obj, mode, fcurves, at_keys) in enumerate(items):
        try:
            mode = mode or obj.rotation_mode
            curves = rotation_fcurves(obj, mode, fcurves)
            alone = (keys.size < 2 or mode == 'AXIS_ANGLE' or at_keys is None
                     or not has_keys(curves)
                     or (mode in DELTA_ROTATION_PATHS
                         and has_keys(delta_rotation_fcurves(obj, mode, fcurves)))
                     # normalize measures a stack holding one such key scaled, all of it:
                     # the others' last bits would then depend on it.
                     or (mode == 'QUATERNION' and not _normalized_alike(at_keys)))
            if alone:
                out[i] = subframes_to_sample(obj, keys, mode, fcurves, at_keys)
            else:
                together.setdefault(mode, []).append((i, obj, curves, at_keys))
        except Exception as exc:   # its own error, as subframes_to_sample raises it
            out[i] = exc
    size = max(1, TOGETHER_ROWS // max(1, keys.size))
    blocks = [(mode, members[start:start + size]) for mode, members in together.items()
              for start in range(0, len(members), size)]
    for mode, members in blocks:
        try:
            found = _subframes_together(mode, members, keys)
        except Exception:
            # One transform's values that are no rotation: each alone, for its own error.
            found = []
            for i, obj, _curves, at_keys in members:
                try:
                    found.append(subframes_to_sample(obj, keys, mode, items[i][2], at_keys))
                except Exception as exc:
                    found.append(exc)
        for (i, *_rest), answer in zip(members, found):
            out[i] = answer
    return out


def _normalized_alike(at_keys) -> bool:
    """core.quat.normalized_alike of quaternion keys as played; False where they cannot
    be told (taken alone, they meet their own error there)."""
    try:
        return core_quat.normalized_alike(as_played(at_keys, 'QUATERNION'))
    except Exception:
        return False


def _subframes_together(mode: str, members: list, keys: np.ndarray) -> list:
    """subframes_many's pass over the ``members`` of one mode (each ``(index, obj,
    rotation curves, values at the keys)``, the rotation keyed, the delta not): the
    rows of all of them stacked, each interval-wise computation made once over the
    stack, the intervals across two members' rows dropped (``_per_interval``)."""
    from ...core import stray
    from . import turn_inputs

    count = len(members)
    raw = np.stack([np.asarray(at_keys, dtype=np.float64) for *_rest, at_keys in members])
    rows = raw.reshape(count * keys.size, -1)
    far = _per_interval(pitfalls.far_intervals(mode, rows), count)
    adjacent = np.diff(keys) <= 1.0 + 1e-9
    fast = np.zeros_like(far)
    stray_at = np.zeros_like(far)
    if adjacent.any():
        q = played_quats(rows, mode)
        turned = _per_interval(np.degrees(core_quat.angle_between(q[:-1], q[1:])), count)
        fast = adjacent & (turned > NEAR_TURN_DEG)
        gaps = np.zeros((count, keys.size, raw.shape[2]))
        for row, (_i, obj, curves, _at_keys) in enumerate(members):
            gaps[row, :-1] = turn_inputs.chord_gaps(curves, rotation_defaults(obj, mode), keys)
        gaps = gaps.reshape(count * keys.size, -1)[:-1]
        bound = stray.quaternion_bound(rows, gaps) if mode == 'QUATERNION' else \
            stray.euler_bound(rows, gaps)
        stray_at = adjacent & ~far & (_per_interval(bound, count) > np.radians(STRAY_CHECK_DEG))
    out = []
    for row in range(count):
        far_here, fast_here, stray_here = far[row], fast[row], stray_at[row]
        turn_far = _inside(keys, far_here, FAR_TURN_SUBSTEPS)
        every = np.unique(np.concatenate([
            turn_far, _inside(keys, fast_here & ~far_here & ~stray_here, NEAR_TURN_SUBSTEPS),
            _inside(keys, stray_here, STRAY_SUBSTEPS)]))
        out.append(Subframes(every, np.unique(np.concatenate([
            turn_far, _inside(keys, fast_here & ~far_here, NEAR_TURN_SUBSTEPS)]))))
    return out


def _per_interval(values: np.ndarray, count: int) -> np.ndarray:
    """(count, k-1): a per-interval result over ``count`` members' stacked rows (count x
    k rows, so count x k - 1 intervals), without the count - 1 intervals that join one
    member's last key to the next one's first."""
    padded = np.append(values, values[:1])      # a k-th "interval" for the last member
    return padded.reshape(count, -1)[:, :-1]


def _stray_bound(mode: str, curves: list, defaults, keys: np.ndarray,
                 at_keys: np.ndarray | None, known: dict | None = None) -> np.ndarray:
    """Per key interval, core.stray's bound (radians) of how far Blender's playback can
    stray from slerp between the keys, from the rotation channels that move (``curves``,
    ``defaults``: turn_inputs.moving_channels'); np.inf where there is none (curves it
    cannot bound). ``at_keys``: their values at ``keys`` when the caller has them (None:
    evaluated here); ``known``: keyframe arrays already read."""
    from ...core import stray
    from . import turn_inputs

    raw = evaluate_channels(curves, defaults, keys, known) if at_keys is None else at_keys
    gaps = turn_inputs.chord_gaps(curves, defaults, keys, known)
    if mode == 'QUATERNION':
        return stray.quaternion_bound(raw, gaps)
    return stray.euler_bound(raw, gaps)


def _inside(keys: np.ndarray, which: np.ndarray, steps: int) -> np.ndarray:
    """``steps`` - 1 evenly spaced subframes inside each key interval ``which`` picks."""
    idx = np.flatnonzero(which)
    if not idx.size:
        return np.zeros(0)
    u = np.arange(1, steps) / steps
    return (keys[idx, None] + (keys[idx + 1] - keys[idx])[:, None] * u[None, :]).ravel()
