# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading keys and what Blender plays from them, in bulk and without ``frame_set``.

``foreach_get`` into numpy, never changing the scene: ``fc.evaluate`` reads a
channel at any frame."""
from __future__ import annotations

from typing import Iterable, Sequence

import bpy
import numpy as np

from ...core import quat as core_quat
from ...core import rotation as core_rotation
from . import memo
from .actions import HANDLE_TYPE_ENUMS, KEYFRAME_ENUMS
from .channels import (
    delta_location_fcurves,
    delta_rotation_defaults,
    delta_rotation_fcurves,
    has_keys,
    is_read_only,
    location_defaults,
    location_fcurves,
    rotation_defaults,
    rotation_fcurves,
)
from .paths import (
    DELTA_ROTATION_PATHS,
    ROTATION_PATHS,
    ChannelError,
    channel_label,
    frame_label,
    subject,
)


def key_frames(fcurves: Iterable) -> np.ndarray:
    """Sorted union of the keyframe frames of ``fcurves`` (float64), ignoring None."""
    frames = [read_keyframe_arrays(fc, ("co",))["co"][:, 0] for fc in fcurves if fc is not None]
    if not frames:
        return np.zeros(0, dtype=np.float64)
    return np.unique(np.concatenate(frames))


def read_keyframe_arrays(fc, fields: Sequence[str] | None = None) -> dict:
    """Bulk read of ``fc``'s keyframes (once per block of read_once()).

    Returns float64 arrays "co", "handle_left", "handle_right" of shape (n, 2)
    (frame, value), "back", "amplitude", "period" (n,), and int arrays
    "interpolation", "easing", "type", "handle_left_type", "handle_right_type"
    (n,) holding the enum values. ``fields`` limits what is read; the handle
    types are read key by key (see HANDLE_TYPE_ENUMS), so leave them out of
    ``fields`` when speed matters.
    """
    held = memo.current
    if held is not None:
        if fields and set(fields) <= set(KEY_FIELDS):
            # One read of what an evaluation takes serves the key frames' and the steps'
            # readers too: each curve of a rig's refresh was read three times, with
            # ("co",), ("co", "interpolation") and KEY_FIELDS.
            fields = KEY_FIELDS
        key = (fc.as_pointer(), tuple(fields) if fields else ())
        found = held.get(key)
        if found is None:
            found = held[key] = _read_keyframe_arrays(fc, fields)
            for array in found.values():
                array.flags.writeable = False
        return found
    return _read_keyframe_arrays(fc, fields)


def _read_keyframe_arrays(fc, fields: Sequence[str] | None) -> dict:
    kps = fc.keyframe_points
    n = len(kps)
    out = {}
    # Blender 3.4's foreach_get returns garbage for every enum of keyframes in a
    # library-linked (or overridden) action, so those go key by key as well.
    per_key = HANDLE_TYPE_ENUMS + (KEYFRAME_ENUMS if is_read_only(fc.id_data) else ())
    for name in fields or ("co", "handle_left", "handle_right", "back", "amplitude", "period",
                           *KEYFRAME_ENUMS, *HANDLE_TYPE_ENUMS):
        if name in per_key:
            items = bpy.types.Keyframe.bl_rna.properties[name].enum_items
            out[name] = np.array([items[getattr(kp, name)].value for kp in kps], dtype=np.int32)
        elif name in ("co", "handle_left", "handle_right"):
            buf = np.empty(2 * n, dtype=np.float32)
            kps.foreach_get(name, buf)
            out[name] = buf.astype(np.float64).reshape(n, 2)
        elif name in KEYFRAME_ENUMS:
            buf = np.empty(n, dtype=np.int32)
            kps.foreach_get(name, buf)
            out[name] = buf
        else:
            buf = np.empty(n, dtype=np.float32)
            kps.foreach_get(name, buf)
            out[name] = buf.astype(np.float64)
    return out


# What evaluate_channels reads of each key.
KEY_FIELDS = ("co", "handle_left", "handle_right", "interpolation")


def evaluate_channels_exact(fcurves: Sequence, defaults: Sequence[float], frames) -> np.ndarray:
    """``evaluate_channels`` through Blender's own ``fc.evaluate`` for every channel.

    Bit-identical to what Blender evaluates (float32). About 0.5 us per sample
    and channel on bpy 5.0.1 / Blender 3.4.1, which measured 3-5x faster than
    the numpy path for curves with few keys over many frames (the bake's case).
    """
    frames = np.asarray(frames, dtype=np.float64).ravel()
    n = frames.shape[0]
    out = np.empty((n, len(fcurves)), dtype=np.float64)
    frame_list = frames.tolist()
    for i, fc in enumerate(fcurves):
        if not _plays(fc):
            out[:, i] = float(defaults[i])
        else:
            out[:, i] = np.fromiter(map(fc.evaluate, frame_list), dtype=np.float64, count=n)
    return out


def evaluate_channels(fcurves: Sequence, defaults: Sequence[float], frames,
                      known: dict | None = None) -> np.ndarray:
    """Blender's own evaluation of each channel at ``frames``.

    ``fcurves``: k F-curves or None; ``defaults``: k values used for a None
    F-curve (the property's current value); ``frames``: (n,) frames, subframes
    allowed. Returns (n, k) float64. Constant, linear and Bezier keys with
    constant or linear extrapolation are evaluated in numpy (core.fcurve, same
    as Blender to float32 precision, ~100x faster than a loop); anything else
    (easing, F-modifiers, cycles, sampled points) uses ``fc.evaluate`` (no
    drivers, no scene update either way). ``known``: {fc.as_pointer(): arrays of
    ``read_keyframe_arrays`` with co, handles and interpolation} already read.
    """
    from ...core import fcurve as core_fcurve

    frames = np.asarray(frames, dtype=np.float64).ravel()
    fcurves = [fc if _plays(fc) else None for fc in fcurves]
    ahead = _evaluated_ahead(fcurves, defaults, frames)
    if ahead is not None:
        return ahead
    n = frames.shape[0]
    out = np.empty((n, len(fcurves)), dtype=np.float64)
    candidates = []   # (column, curve arrays, the dict of read arrays they came from)
    slow_columns = []
    for i, fc in enumerate(fcurves):
        if fc is None:
            out[:, i] = float(defaults[i])
        elif len(fc.modifiers) == 0 and len(fc.keyframe_points) > 0:
            keys = known.get(fc.as_pointer()) if known is not None else None
            if keys is None:
                keys = read_keyframe_arrays(fc, KEY_FIELDS)
            candidates.append((i, (keys["co"], keys["handle_left"], keys["handle_right"],
                                   keys["interpolation"], fc.extrapolation), keys))
        else:
            slow_columns.append(i)
    # A bake evaluates each curve twice (turns, then the deviation): check it once,
    # and every unchecked curve in one core_fcurve.supported_many call.
    unchecked = [(curve, keys) for _i, curve, keys in candidates if "supported" not in keys]
    if unchecked:
        found = core_fcurve.supported_many([curve for curve, _keys in unchecked])
        for (_curve, keys), ok in zip(unchecked, found):
            keys["supported"] = bool(ok)
    fast_columns = [i for i, _curve, keys in candidates if keys["supported"]]
    fast_curves = [curve for _i, curve, keys in candidates if keys["supported"]]
    slow_columns += [i for i, _curve, keys in candidates if not keys["supported"]]
    if slow_columns:
        frame_list = frames.tolist()
        for i in slow_columns:
            out[:, i] = np.fromiter(map(fcurves[i].evaluate, frame_list), dtype=np.float64,
                                    count=n)
    if len(fast_curves) == len(fcurves):
        # Every channel in numpy (a rig's bones): no copy into ``out``.
        return core_fcurve.evaluate_many(fast_curves, frames, check=False)
    if fast_curves:
        # Channels keyed on the same frames share one Bezier x(t) solve.
        out[:, fast_columns] = core_fcurve.evaluate_many(fast_curves, frames, check=False)
    return out


def _plays(fc) -> bool:
    """Whether Blender plays ``fc`` at all: a muted curve, and one with no keys and no
    F-modifiers (BKE_fcurve_is_empty), are skipped by its animation system, so the
    channel keeps the property's value, as with no curve (``fc.evaluate`` would give the
    curve's). A convert walk: a muted Y channel was read as playing, and the conversion,
    which said 100% within 0.01 deg, played 65 deg off."""
    return fc is not None and not fc.mute and bool(len(fc.keyframe_points) or len(fc.modifiers))


def evaluate_ahead(fcurves: Sequence, frames) -> None:
    """Inside read_once(): evaluate ``fcurves`` (of any transforms) at ``frames`` now, in one
    ``evaluate_channels`` call, so that curves keyed on the same frames share one solve of
    their Bezier timing; each later evaluate_channels of some of them at the same frames
    takes its columns from here (once: they are let go as they are taken). Outside
    read_once() it does nothing."""
    if memo.current is None or not len(fcurves):
        return
    frames = np.asarray(frames, dtype=np.float64).ravel()
    unique = list({fc.as_pointer(): fc for fc in fcurves if _plays(fc)}.values())
    try:
        values = evaluate_channels(unique, [0.0] * len(unique), frames)
    except Exception:   # nothing ahead: each caller evaluates its own and meets its error
        return
    where = frames.tobytes()
    for column, fc in enumerate(unique):
        memo.current[("ahead", fc.as_pointer(), where)] = values[:, column]


def _evaluated_ahead(fcurves: Sequence, defaults: Sequence[float], frames: np.ndarray):
    """(n, k) as evaluate_channels gives it, when evaluate_ahead already evaluated every
    curve of ``fcurves`` that is not None at ``frames``; else None. Each column is handed
    out once, then let go (a 200-bone rig's would otherwise stay until the block ends)."""
    held = memo.current
    if not held:
        return None
    where = frames.tobytes()
    names = [("ahead", fc.as_pointer(), where) if fc is not None else None for fc in fcurves]
    if all(name is None for name in names) or any(
            name is not None and name not in held for name in names):
        return None
    out = np.empty((frames.shape[0], len(fcurves)), dtype=np.float64)
    for column, name in enumerate(names):
        out[:, column] = float(defaults[column]) if name is None else held.pop(name)
    return out


def rotation_values_to_quat(values: np.ndarray, mode: str, frames, object_name: str = "",
                            data_path: str = "", who: str = "") -> np.ndarray:
    """Raw channel values (n, 3|4) in ``mode`` -> (n, 4) unit quaternions.

    Raises ChannelError naming the object, channel and frame when a value is
    not a rotation (NaN, zero quaternion, zero axis).
    """
    values = np.asarray(values, dtype=np.float64)
    frames = np.asarray(frames, dtype=np.float64).ravel()
    who = who or f"Object \"{object_name}\""
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        raise ChannelError(
            f"{who}: channel {channel_label(data_path, col)} is not a number "
            f"at frame {frame_label(frames[row])}. Fix or delete that key.",
            object_name, channel_label(data_path, col), float(frames[row]))
    if mode == 'QUATERNION':
        lengths = np.sqrt(np.einsum("ij,ij->i", values, values))
        huge = lengths > HUGE_QUATERNION_NORM
        if huge.any():
            row = int(np.argmax(huge))
            raise ChannelError(
                f"{who}: the quaternion in {data_path}[0..3] at frame "
                f"{frame_label(frames[row])} has length {lengths[row]:.3g}, too large for "
                "Blender to normalise in float32 (it would show no rotation). Scale that key "
                "down to length 1.",
                object_name, channel_label(data_path, 0), float(frames[row]))
        zero = lengths < ZERO_QUATERNION_NORM
        if zero.any():
            row = int(np.argmax(zero))
            raise ChannelError(
                f"{who}: the quaternion in {data_path}[0..3] at frame "
                f"{frame_label(frames[row])} has length {lengths[row]:.3g}, too close to zero "
                "to be a rotation. Key a real rotation there (e.g. W = 1).",
                object_name, channel_label(data_path, 0), float(frames[row]))
    try:
        return core_rotation.mode_values_to_quat(values, mode)
    except ValueError as exc:
        row = _row_from_core_message(str(exc), len(frames))
        frame = float(frames[row]) if row is not None else None
        where = f" at frame {frame_label(frame)}" if frame is not None else ""
        raise ChannelError(
            f"{who}: {data_path}{where} is not a usable rotation ({exc}).",
            object_name, channel_label(data_path, 0), frame) from exc


# Below this length Blender's float32 normalisation (BKE_object_rot_to_mat3)
# has nothing to normalise: 1e-12 squared is still a normal float64, and
# core.quat refuses the same threshold.
ZERO_QUATERNION_NORM = 1e-12
# Blender normalises with sqrtf(dot) in float32: past ~1.8e19 the dot product
# overflows to inf and the rotation collapses; 1e18 leaves a margin of 300 in the square.
HUGE_QUATERNION_NORM = 1e18


def as_played(raw: np.ndarray, mode: str) -> np.ndarray:
    """Raw rotation channel values (..., 3|4) as Blender plays them.

    Between a quaternion key and its sign-flipped twin the four curves can pass
    through (0, 0, 0, 0); Blender's normalize_qt() then shows (0, 1, 0, 0), a
    half turn about X, and so does this (a copy). Other modes: ``raw`` itself.
    """
    if mode != 'QUATERNION':
        return raw
    raw = np.array(raw, dtype=np.float64, copy=True)
    lengths = np.sqrt(np.einsum("...i,...i->...", raw, raw))
    raw[lengths < ZERO_QUATERNION_NORM] = (0.0, 1.0, 0.0, 0.0)
    return raw


def played_between_keys(raw: np.ndarray, mode: str, frames, keys) -> np.ndarray:
    """``raw`` with its quaternions of no length at frames that are not ``keys`` as Blender
    plays them (``as_played``): between a key and its sign-flipped twin the channels pass
    through zero, the defect QuatBake reports and bakes away, not a broken key (a walk:
    keys q, -q, q refused the whole report, "key a real rotation at frame 2", where there
    was no key). A key of no length is left for rotation_values_to_quat to refuse."""
    if mode != 'QUATERNION':
        return raw
    zero = np.sqrt(np.einsum("ij,ij->i", raw, raw)) < ZERO_QUATERNION_NORM
    if not zero.any():
        return raw
    between = zero & ~np.isin(np.asarray(frames, dtype=np.float64), np.asarray(keys, float))
    out = np.array(raw, dtype=np.float64, copy=True)
    out[between] = as_played(out[between], mode)
    return out


def played_quats(raw: np.ndarray, mode: str) -> np.ndarray:
    """(n, 4) rotations Blender plays for raw channel values (n, 3|4) of ``mode``
    (``as_played``, then normalised or converted; ValueError on no rotation)."""
    return core_rotation.mode_values_to_quat(as_played(raw, mode), mode)


def played_quats_of_many(raw: np.ndarray, mode: str, count: int) -> np.ndarray:
    """(count, n, 4): ``played_quats`` of ``count`` transforms whose channels were
    evaluated side by side, ``raw`` (n, count x channels) as ``evaluate_channels``
    returns them (a rig's bones), in one conversion."""
    n, width = raw.shape[0], raw.shape[1] // count
    per_transform = raw.reshape(n, count, width).transpose(1, 0, 2).reshape(-1, width)
    return played_quats(per_transform, mode).reshape(count, n, 4)


def _row_from_core_message(message: str, n: int) -> int | None:
    import re

    match = re.search(r"key (\d+)", message)
    if match and int(match.group(1)) < n:
        return int(match.group(1))
    return None


def evaluate_rotation_raw(obj, frames, mode: str | None = None,
                          fcurves: Iterable | None = None, exact: bool = False) -> np.ndarray:
    """Raw rotation channel values (n, 3|4) of ``obj`` at ``frames``, before normalising.

    ``mode`` (default obj.rotation_mode) picks the data path; ``fcurves``
    overrides where the channels are looked up; ``exact`` uses
    ``evaluate_channels_exact`` (fc.evaluate) instead of ``evaluate_channels``.
    """
    mode = mode or obj.rotation_mode
    evaluate = evaluate_channels_exact if exact else evaluate_channels
    return evaluate(rotation_fcurves(obj, mode, fcurves), rotation_defaults(obj, mode),
                             frames)


def evaluate_rotation(obj, frames, mode: str | None = None,
                      fcurves: Iterable | None = None, exact: bool = False) -> np.ndarray:
    """(n, 4) unit quaternions: Blender's own interpolation of ``obj``'s rotation channels.

    Works for every rotation mode (the raw channels are evaluated independently,
    as Blender does, then turned into a rotation). Raises ChannelError for a
    value that is no rotation.
    """
    mode = mode or obj.rotation_mode
    raw = evaluate_rotation_raw(obj, frames, mode, fcurves, exact)
    if mode == 'QUATERNION':
        raw = played_between_keys(raw, mode, frames,
                                  key_frames(rotation_fcurves(obj, mode, fcurves)))
    try:
        return rotation_values_to_quat(raw, mode, frames, obj.name, ROTATION_PATHS[mode][0],
                                   subject(obj))
    except ChannelError as exc:
        raise key_error(obj, mode, fcurves, exc) from None


def key_error(obj, mode: str, fcurves: Iterable | None, exc: ChannelError) -> ChannelError:
    """The error to show for ``exc`` (raised while evaluating ``obj``'s rotation in
    ``mode``): the broken KEY rather than the first in-between frame it spoils.

    A NaN (or huge) key poisons the curve from the key before it, so the first
    bad sample is usually not where the user must look. Checks the keys'
    values and handles, then the rotation at the key frames; returns ``exc``
    itself when the keys are fine.
    """
    fcs = rotation_fcurves(obj, mode, fcurves)
    broken = _non_finite_key(obj, fcs + delta_rotation_fcurves(obj, mode, fcurves))
    if broken is not None:
        return broken
    frames = key_frames(fcs)
    if frames.size and exc.frame not in frames:
        raw = evaluate_channels(fcs, rotation_defaults(obj, mode), frames)
        try:
            rotation_values_to_quat(raw, mode, frames, obj.name, ROTATION_PATHS[mode][0],
                                    subject(obj))
        except ChannelError as at_key:
            return at_key
    return exc


def _non_finite_key(obj, fcs) -> ChannelError | None:
    """The error naming the first key of ``fcs`` whose value or handle is NaN or infinite."""
    for fc in fcs:
        if fc is None or not len(fc.keyframe_points):
            continue
        keys = read_keyframe_arrays(fc, ("co", "handle_left", "handle_right"))
        finite = np.isfinite(np.hstack([keys["co"], keys["handle_left"], keys["handle_right"]]))
        if finite.all():
            continue
        row = int(np.argmin(finite.all(axis=1)))
        frame = float(keys["co"][row, 0])
        label = channel_label(fc.data_path, fc.array_index)
        known = bool(np.isfinite(frame))
        where = f"at frame {frame_label(frame)}" if known else f"number {row + 1}"
        return ChannelError(
            f"{subject(obj)}: channel {label} has a key {where} whose value or handle "
            "is not a number. Fix or delete that key.",
            obj.name, label, frame if known else None)
    return None


def keys_on_one_frame(obj, fcs) -> ChannelError | None:
    """The error naming the first channel of ``fcs`` with two keys of different values on
    one frame (None: no such channel; two keys alike there play as one). Blender plays a
    jump there, from the one to the other (a cut keyed with
    Auto-Merge off, or by a script), which neither a comparison nor a bake through that
    frame can follow: a walk read it as "timing only", and the bake smoothed the cut over
    the keys before it (106.7 deg at frame 9 where Blender played 26.7)."""
    for fc in fcs:
        if fc is None or len(fc.keyframe_points) < 2:
            continue
        cut = cut_in_keys(obj, fc, read_keyframe_arrays(fc, ("co",))["co"])
        if cut is not None:
            return cut
    return None


def cut_in_keys(obj, fc, co: np.ndarray) -> ChannelError | None:
    """keys_on_one_frame for the one curve ``fc`` whose keys ``co`` (n, 2) are read already
    (the bake's checks of its keys hold them)."""
    same = np.flatnonzero((co[1:, 0] == co[:-1, 0]) & (co[1:, 1] != co[:-1, 1]))
    if not same.size:
        return None
    row = int(same[0])
    frame, label = float(co[row, 0]), channel_label(fc.data_path, fc.array_index)
    return ChannelError(
        f"{subject(obj)}: channel {label} has two keys on frame {frame_label(frame)} "
        f"({co[row, 1]:.4g} and {co[row + 1, 1]:.4g}), where Blender jumps from the one "
        "to the other. Delete one of them, or move one off that frame (a cut between "
        "two subframes is followed as keyed).", obj.name, label, frame)


def evaluate_location(obj, frames, fcurves: Iterable | None = None,
                      exact: bool = False) -> np.ndarray:
    """(n, 3) locations Blender evaluates from ``obj``'s location channels at ``frames``."""
    evaluate = evaluate_channels_exact if exact else evaluate_channels
    return evaluate(location_fcurves(obj, fcurves), location_defaults(obj), frames)


def evaluate_delta_rotation(obj, frames, mode: str | None = None,
                            fcurves: Iterable | None = None, exact: bool = False) -> np.ndarray:
    """(n, 4) unit quaternions of ``obj``'s delta rotation at ``frames`` (keys or static value)."""
    mode = mode or obj.rotation_mode
    frames = np.asarray(frames, dtype=np.float64).ravel()
    entry = DELTA_ROTATION_PATHS.get(mode)
    if entry is None:
        return np.tile([1.0, 0.0, 0.0, 0.0], (frames.shape[0], 1))
    evaluate = evaluate_channels_exact if exact else evaluate_channels
    fcs = delta_rotation_fcurves(obj, mode, fcurves)
    raw = evaluate(fcs, delta_rotation_defaults(obj, mode), frames)
    try:
        return rotation_values_to_quat(raw, mode, frames, obj.name, entry[0], subject(obj))
    except ChannelError as exc:
        # Name the broken key, not the first in-between frame its NaN spoils.
        raise (_non_finite_key(obj, fcs) or exc) from None


def evaluate_orientation(obj, frames, mode: str | None = None,
                         fcurves: Iterable | None = None, exact: bool = False) -> np.ndarray:
    """(n, 4): what Blender plays from the channels, delta @ rotation (see DELTA_ROTATION_PATHS).

    Equals ``evaluate_rotation`` when the delta rotation is the identity.
    """
    mode = mode or obj.rotation_mode
    rot = evaluate_rotation(obj, frames, mode, fcurves, exact)
    if not has_keys(delta_rotation_fcurves(obj, mode, fcurves)) and \
            is_identity_delta(delta_rotation_defaults(obj, mode), mode):
        return rot
    return core_quat.multiply(evaluate_delta_rotation(obj, frames, mode, fcurves, exact), rot)


def is_identity_delta(values: np.ndarray, mode: str) -> bool:
    """True when delta rotation values of ``mode`` are the identity (nothing to compose)."""
    if mode == 'QUATERNION':
        return bool(values[0] > 0.0 and not np.any(values[1:]))
    return not np.any(values[:3]) if mode != 'AXIS_ANGLE' else True


def extrapolated_slopes(fc) -> tuple[float, float]:
    """(before the first key, after the last) per frame at which Blender extrapolates the
    curve ``fc`` (0.0: it holds there, or is not keyed). Read from Blender's own evaluation
    one frame beyond each end, which follows each end key's interpolation (a Constant last
    key holds whatever the curve's extrapolation); a curve with modifiers is left to them
    (a kept Cycles modifier repeats the baked keys as it did the animator's)."""
    # One key extrapolates too: along its handles when Bezier (a conversion of a single
    # key held a pose Blender turned 94 deg away from, ten frames on).
    if fc is None or fc.extrapolation != 'LINEAR' or len(fc.modifiers) \
            or not len(fc.keyframe_points):
        return 0.0, 0.0
    first, last = fc.range()
    return (fc.evaluate(first) - fc.evaluate(first - 1.0),
            fc.evaluate(last + 1.0) - fc.evaluate(last))


def evaluate_full_location(obj, frames, fcurves: Iterable | None = None,
                           exact: bool = False) -> np.ndarray:
    """(n, 3) location + delta_location, as Blender composes them."""
    evaluate = evaluate_channels_exact if exact else evaluate_channels
    loc = evaluate(location_fcurves(obj, fcurves), location_defaults(obj), frames)
    return loc + evaluate(delta_location_fcurves(obj, fcurves),
                          np.array(obj.delta_location, dtype=np.float64), frames)


def orientation_key_frames(obj, mode: str | None = None,
                           fcurves: Iterable | None = None) -> np.ndarray:
    """Sorted union of the key frames of the rotation and delta rotation channels of ``mode``."""
    return key_frames(rotation_fcurves(obj, mode, fcurves)
                      + delta_rotation_fcurves(obj, mode, fcurves))
