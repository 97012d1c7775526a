# SPDX-License-Identifier: GPL-3.0-or-later
"""Animation data I/O: the only module that knows how Blender versions store keys.

Blender 3.4 - 4.3 keep an object's F-curves in ``action.fcurves``. Blender 4.4+
use slotted actions: ``action.slots`` name the animated IDs and each slot's
F-curves live in a channelbag, ``action.layers[*].strips[*].channelbag(slot)``;
``obj.animation_data.action_slot`` says which slot animates the object. 5.0
removed ``action.fcurves``. Every difference is detected with ``hasattr`` on
the action (never with a version number alone), so everything else in the
add-on asks this module and stays version-blind.

Reading is bulk (``foreach_get`` into numpy) and never changes the scene:
``fc.evaluate`` reads a channel at any frame without ``frame_set``. Writing is
bulk too (``keyframe_points.add`` + ``foreach_set``), never ``keyframe_insert``.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import bpy
import numpy as np

from ..core import quat as core_quat
from ..core import rotation as core_rotation

# rotation_mode -> (data path, channel count). Index 0 of quaternion is W and of
# axis-angle is the angle, as in Blender.
ROTATION_PATHS: dict[str, tuple[str, int]] = {
    'QUATERNION': ("rotation_quaternion", 4),
    'AXIS_ANGLE': ("rotation_axis_angle", 4),
    'XYZ': ("rotation_euler", 3),
    'XZY': ("rotation_euler", 3),
    'YXZ': ("rotation_euler", 3),
    'YZX': ("rotation_euler", 3),
    'ZXY': ("rotation_euler", 3),
    'ZYX': ("rotation_euler", 3),
}
ROTATION_DATA_PATHS = frozenset(path for path, _ in ROTATION_PATHS.values())
LOCATION_PATH: tuple[str, int] = ("location", 3)

# Blender's group for transform channels (what keyframe_insert would use).
TRANSFORM_GROUP = "Object Transforms"

_KEYFRAME_ENUMS = ("interpolation", "easing", "type")
# Blender 3.4's foreach_get/foreach_set on these two enums read and write the
# wrong bytes (garbage out, silently ignored in), so they go key by key through RNA.
_HANDLE_TYPE_ENUMS = ("handle_left_type", "handle_right_type")


def _enum_value(prop: str, identifier: str) -> int:
    return bpy.types.Keyframe.bl_rna.properties[prop].enum_items[identifier].value


class ChannelError(ValueError):
    """A channel cannot be read as a rotation. The message names object, channel, frame."""

    def __init__(self, message: str, object_name: str = "", channel: str = "",
                 frame: float | None = None):
        super().__init__(message)
        self.object_name = object_name
        self.channel = channel
        self.frame = frame


def channel_label(data_path: str, index: int) -> str:
    """``rotation_quaternion[2]``: how messages name a channel."""
    return f"{data_path}[{index}]"


def frame_label(frame: float) -> str:
    """``12`` for whole frames, ``12.5`` otherwise."""
    f = float(frame)
    return str(int(f)) if f.is_integer() else f"{f:g}"


# --------------------------------------------------------------------------
# Version differences
# --------------------------------------------------------------------------

def is_slotted(action) -> bool:
    """True when ``action`` stores keys in slots/channelbags (Blender 4.4+)."""
    return hasattr(action, "slots") and hasattr(action, "layers")


def get_action(obj) -> "bpy.types.Action | None":
    """The action assigned to ``obj`` (None without animation data or action)."""
    ad = obj.animation_data
    return ad.action if ad is not None else None


def get_slot_identifier(obj) -> str:
    """Identifier of the slot that animates ``obj`` ("" before 4.4 or without a slot)."""
    ad = obj.animation_data
    if ad is None or ad.action is None or not hasattr(ad, "action_slot"):
        return ""
    slot = ad.action_slot
    return slot.identifier if slot is not None else ""


def _find_slot(action, slot_identifier: str):
    for slot in action.slots:
        if slot.identifier == slot_identifier:
            return slot
    return None


def _channelbags(action, slot_identifier: str) -> list:
    """Every channelbag of ``action`` holding keys for the slot (usually one)."""
    slot = _find_slot(action, slot_identifier) if slot_identifier else None
    if slot is None:
        return []
    bags = []
    for layer in action.layers:
        for strip in layer.strips:
            if not hasattr(strip, "channelbag"):
                continue
            bag = strip.channelbag(slot)
            if bag is not None:
                bags.append(bag)
    return bags


def action_fcurves(action, slot_identifier: str = "") -> list:
    """The F-curves of ``action`` that animate the slot ``slot_identifier``.

    Before 4.4 an action has one set of F-curves for every user, so the slot is
    ignored. On 4.4+ an empty identifier means no slot: nothing is animated.
    """
    if action is None:
        return []
    if is_slotted(action):
        return [fc for bag in _channelbags(action, slot_identifier) for fc in bag.fcurves]
    return list(action.fcurves)


def object_fcurves(obj) -> list:
    """The F-curves that animate ``obj`` (its slot's channelbag on 4.4+); for a pose bone's
    transform only those under its data-path prefix."""
    fcurves = action_fcurves(get_action(obj), get_slot_identifier(obj))
    prefix = path_prefix(obj)
    return [fc for fc in fcurves if fc.data_path.startswith(prefix)] if prefix else fcurves


BONE_PATH_START = 'pose.bones["'


def bone_name_from_path(data_path: str) -> str | None:
    """The bone a ``pose.bones["..."]...`` data path animates (unescaped), else None."""
    if not data_path.startswith(BONE_PATH_START):
        return None
    i = len(BONE_PATH_START)
    end = data_path.find('"', i)
    if end >= 0 and "\\" not in data_path[i:end]:
        return data_path[i:end]       # the usual name: nothing escaped
    chars = []
    while i < len(data_path):
        c = data_path[i]
        if c == "\\" and i + 1 < len(data_path):
            chars.append(data_path[i + 1])
            i += 2
            continue
        if c == '"':
            return "".join(chars)
        chars.append(c)
        i += 1
    return None


def fcurves_by_bone(fcurves: Iterable) -> dict:
    """{bone name: its F-curves} for the ``pose.bones[...]`` channels among ``fcurves``
    (one pass, so a rig's bones are not each searched for in every F-curve)."""
    found: dict = {}
    for fc in fcurves:
        name = bone_name_from_path(fc.data_path)
        if name is not None:
            found.setdefault(name, []).append(fc)
    return found


def slot_missing(action, slot_identifier: str) -> bool:
    """True when ``action`` keeps keys per slot (4.4+) and no slot is ``slot_identifier``."""
    return is_slotted(action) and _find_slot(action, slot_identifier) is None


def action_slot_count(action) -> int:
    """Number of slots of ``action`` (1 before 4.4: one set of curves for all users)."""
    return len(action.slots) if is_slotted(action) else 1


def path_prefix(obj) -> str:
    """The data-path prefix of ``obj``'s channels: "" for an object, ``pose.bones["b"].``
    for a pose bone's ``transform.AnimatedTransform``."""
    return getattr(obj, "path_prefix", "")


def subject(obj) -> str:
    """How sentences name ``obj``: ``Object "Cube"`` or ``Armature "Rig", bone "spine"``."""
    return getattr(obj, "label", None) or f"Object \"{obj.name}\""


def _pick(fcurves: Iterable, data_path: str, count: int) -> list:
    found = [None] * count
    for fc in fcurves:
        index = fc.array_index
        if fc.data_path == data_path and 0 <= index < count and found[index] is None:
            found[index] = fc
    return found


def find_fcurves(obj, data_path: str, count: int, fcurves: Iterable | None = None) -> list:
    """Per array index 0..count-1: the F-curve animating ``obj.<data_path>[i]`` or None.

    ``fcurves`` overrides where to look (e.g. the original action of a baked object).
    """
    return _pick(object_fcurves(obj) if fcurves is None else fcurves,
                 path_prefix(obj) + data_path, count)


def rotation_fcurves(obj, mode: str | None = None, fcurves: Iterable | None = None) -> list:
    """``find_fcurves`` for the data path of ``mode`` (default: obj.rotation_mode)."""
    path, count = ROTATION_PATHS[mode or obj.rotation_mode]
    return find_fcurves(obj, path, count, fcurves)


def location_fcurves(obj, fcurves: Iterable | None = None) -> list:
    """``find_fcurves`` for ``location`` (3 entries, None where not animated)."""
    return find_fcurves(obj, LOCATION_PATH[0], LOCATION_PATH[1], fcurves)


def rotation_defaults(obj, mode: str | None = None) -> np.ndarray:
    """Current values of the rotation property of ``mode``: what an unkeyed channel holds."""
    path, _count = ROTATION_PATHS[mode or obj.rotation_mode]
    return np.array(getattr(obj, path), dtype=np.float64)


def location_defaults(obj) -> np.ndarray:
    return np.array(obj.location, dtype=np.float64)


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------

def keyframe_count(fc) -> int:
    return len(fc.keyframe_points)


def key_frames(fcurves: Iterable) -> np.ndarray:
    """Sorted union of the keyframe frames of ``fcurves`` (float64), ignoring None."""
    frames = [read_keyframe_arrays(fc, ("co",))["co"][:, 0] for fc in fcurves if fc is not None]
    if not frames:
        return np.zeros(0, dtype=np.float64)
    return np.unique(np.concatenate(frames))


def read_keyframe_arrays(fc, fields: Sequence[str] | None = None) -> dict:
    """Bulk read of ``fc``'s keyframes.

    Returns float64 arrays "co", "handle_left", "handle_right" of shape (n, 2)
    (frame, value), "back", "amplitude", "period" (n,), and int arrays
    "interpolation", "easing", "type", "handle_left_type", "handle_right_type"
    (n,) holding the enum values. ``fields`` limits what is read; the handle
    types are read key by key (see _HANDLE_TYPE_ENUMS), so leave them out of
    ``fields`` when speed matters.
    """
    kps = fc.keyframe_points
    n = len(kps)
    out = {}
    # Blender 3.4's foreach_get returns garbage for every enum of keyframes in a
    # library-linked (or overridden) action, so those go key by key as well.
    per_key = _HANDLE_TYPE_ENUMS + (_KEYFRAME_ENUMS if is_read_only(fc.id_data) else ())
    for name in fields or ("co", "handle_left", "handle_right", "back", "amplitude", "period",
                           *_KEYFRAME_ENUMS, *_HANDLE_TYPE_ENUMS):
        if name in per_key:
            items = bpy.types.Keyframe.bl_rna.properties[name].enum_items
            out[name] = np.array([items[getattr(kp, name)].value for kp in kps], dtype=np.int32)
        elif name in ("co", "handle_left", "handle_right"):
            buf = np.empty(2 * n, dtype=np.float32)
            kps.foreach_get(name, buf)
            out[name] = buf.astype(np.float64).reshape(n, 2)
        elif name in _KEYFRAME_ENUMS:
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
        if fc is None:
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
    from ..core import fcurve as core_fcurve

    frames = np.asarray(frames, dtype=np.float64).ravel()
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


def evaluate_location(obj, frames, fcurves: Iterable | None = None,
                      exact: bool = False) -> np.ndarray:
    """(n, 3) locations Blender evaluates from ``obj``'s location channels at ``frames``."""
    evaluate = evaluate_channels_exact if exact else evaluate_channels
    return evaluate(location_fcurves(obj, fcurves), location_defaults(obj), frames)


# --------------------------------------------------------------------------
# Facts used by validation (same API on every version, kept here anyway so
# callers never touch animation_data directly)
# --------------------------------------------------------------------------

def driver_channels(obj, data_paths: Iterable[str]) -> list[str]:
    """Labels ``path[i]`` of drivers on ``obj`` whose data path is in ``data_paths``."""
    ad = obj.animation_data
    if ad is None:
        return []
    prefix = path_prefix(obj)
    wanted = {prefix + p for p in data_paths}
    return [channel_label(d.data_path, d.array_index) for d in ad.drivers if d.data_path in wanted]


def nla_state(obj) -> tuple[bool, int]:
    """(in NLA tweak mode, number of NLA strips) for ``obj``."""
    ad = obj.animation_data
    if ad is None:
        return False, 0
    strips = sum(len(track.strips) for track in ad.nla_tracks)
    return bool(ad.use_tweak_mode), strips


def is_read_only(id_block) -> bool:
    """True for library-linked or library-overridden data-blocks."""
    return id_block.library is not None or id_block.override_library is not None


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------

def copy_action_for(obj, source, slot_identifier: str, name: str, drop: Iterable[str],
                    sample_frames=None, sample_paths: Iterable[str] | None = None) -> tuple:
    """A new action holding ``obj``'s channels of ``source``, minus data paths in ``drop``.

    ``source`` is left untouched. On 4.4+ only the slot ``slot_identifier`` is
    kept (an action shared through other slots keeps those slots to itself).
    F-curve modifiers, groups, colours and keyframes are copied as they are.

    ``sample_frames`` (whole frames, ascending) asks for Blender's own
    evaluation of the dropped channels there (only those in ``sample_paths``
    if given), read in bulk before they go:
    the copies are turned into samples by Blender's C code
    (``FCurve.convert_to_samples``), the same numbers as ``fc.evaluate``
    (modifiers included) at a fraction of a per-frame Python loop.

    Returns (action, {(data_path, index): (n,) float64 values}).
    """
    action = source.copy()
    samples = {}
    try:
        action.name = name
        action.use_fake_user = False
        drop = set(drop)
        if is_slotted(action):
            for slot in [s for s in action.slots if s.identifier != slot_identifier]:
                action.slots.remove(slot)
            owners = [bag.fcurves for bag in _channelbags(action, slot_identifier)]
        else:
            owners = [action.fcurves]
        for fcurves in owners:
            doomed = [fc for fc in fcurves if fc.data_path in drop]
            if sample_frames is not None:
                for fc in doomed:
                    if sample_paths is not None and fc.data_path not in sample_paths:
                        continue
                    samples[(fc.data_path, fc.array_index)] = _sample(fc, sample_frames)
            for fc in doomed:
                fcurves.remove(fc)
    except Exception:
        bpy.data.actions.remove(action)
        raise
    return action, samples


def copy_linear_fcurves(action, slot_identifier: str, fcurves: Iterable, group: str) -> None:
    """Copy ``fcurves`` (QuatBake's own baked channels: LINEAR keys, constant extrapolation)
    into ``action``: carries an earlier bake of some bones into a new copy of the action."""
    make = fcurve_maker(action, slot_identifier)
    for fc in fcurves:
        keys = read_keyframe_arrays(fc, ("co",))["co"]
        write_keys(make(fc.data_path, fc.array_index, group), keys[:, 0], keys[:, 1])


def _sample(fc, frames) -> np.ndarray:
    """Blender's evaluation of ``fc`` at ``frames`` (n,), DESTROYING its keyframes.

    Whole frames come from ``convert_to_samples``; subframes (a bake passing
    through subframe keys) from ``fc.evaluate`` before the keys go.
    """
    frames = np.asarray(frames, dtype=np.float64)
    if len(fc.keyframe_points) == 0:
        return np.fromiter(map(fc.evaluate, frames.tolist()), dtype=np.float64,
                           count=frames.shape[0])
    whole = frames == np.round(frames)
    values = np.empty(frames.shape[0], dtype=np.float64)
    if not whole.all():
        values[~whole] = np.fromiter(map(fc.evaluate, frames[~whole].tolist()),
                                     dtype=np.float64, count=int((~whole).sum()))
    if whole.any():
        at = frames[whole]
        start, end = int(at[0]), int(at[-1])
        fc.convert_to_samples(start, end + 1)   # end is exclusive
        points = fc.sampled_points
        co = np.empty(2 * len(points), dtype=np.float32)
        points.foreach_get("co", co)
        values[whole] = co[1::2].astype(np.float64)[(at - start).astype(np.int64)]
    return values


def new_action_for(obj, name: str) -> tuple:
    """An empty action ready to animate ``obj``: (action, slot identifier or "")."""
    action = bpy.data.actions.new(name)
    if is_slotted(action):
        slot = action.slots.new(id_type='OBJECT', name=obj.name)
        return action, slot.identifier
    action.id_root = 'OBJECT'
    return action, ""


def new_fcurve(action, slot_identifier: str, data_path: str, index: int,
               group: str = TRANSFORM_GROUP):
    """A new empty F-curve ``data_path[index]`` in ``action`` (the slot's channelbag on 4.4+)."""
    return fcurve_maker(action, slot_identifier)(data_path, index, group)


def fcurve_maker(action, slot_identifier: str):
    """``make(data_path, index, group)`` -> a new empty F-curve in ``action``: the
    channelbag is found once, for writers that add hundreds of F-curves (a rig's bones)."""
    if is_slotted(action):
        slot = _find_slot(action, slot_identifier)
        if slot is None:
            raise ValueError(f"Action \"{action.name}\" has no slot \"{slot_identifier}\".")
        bags = _channelbags(action, slot_identifier)
        if bags:
            bag = bags[0]
        else:
            if len(action.layers) == 0:
                action.layers.new("Layer")
            layer = action.layers[0]
            if len(layer.strips) == 0:
                layer.strips.new(type='KEYFRAME')
            bag = layer.strips[0].channelbag(slot, ensure=True)
        fcurves = bag.fcurves
        if "group_name" in fcurves.bl_rna.functions["new"].parameters:
            return lambda data_path, index, group=TRANSFORM_GROUP: fcurves.new(
                data_path, index=index, group_name=group)

        def make(data_path, index, group=TRANSFORM_GROUP):
            # 4.4 / 4.5: no group_name argument yet; put the F-curve in the group afterwards.
            fc = fcurves.new(data_path, index=index)
            if group:
                fc.group = bag.groups.get(group) or bag.groups.new(group)
            return fc
        return make
    fcurves = action.fcurves
    return lambda data_path, index, group=TRANSFORM_GROUP: fcurves.new(
        data_path, index=index, action_group=group)


_LINEAR = None
# Buffer type for foreach_set("interpolation"): any integer type stores the
# right values, but only the one matching DNA's BezTriple.ipo (signed char up
# to 3.x, uint8_t in 4.x+) takes the bulk path; others go item by item (~4x slower).
_IPO_DTYPE = np.uint8 if bpy.app.version >= (4, 0, 0) else np.int8


def write_keys(fc, frames, values, constant=None) -> None:
    """Write keys (frames[i], values[i]) with LINEAR interpolation into an empty ``fc``.

    One ``keyframe_points.add`` and one ``foreach_set`` per field: no per-key
    Python work. Values are stored as float32 (Blender's F-curve type).
    ``constant`` (n,) bool, optional: keys written CONSTANT instead (a hold
    until the next key: stepped keys stay stepped).
    """
    global _LINEAR
    if _LINEAR is None:
        _LINEAR = _enum_value("interpolation", 'LINEAR')
    frames = np.asarray(frames, dtype=np.float64).ravel()
    values = np.asarray(values, dtype=np.float64).ravel()
    n = frames.shape[0]
    kps = fc.keyframe_points
    if len(kps):
        raise ValueError(f"F-curve {channel_label(fc.data_path, fc.array_index)} is not empty.")
    if fc.extrapolation != 'CONSTANT':
        # Set before the keys exist: this property's RNA update re-sorts the keys
        # and recalculates every handle, which would double the cost of update().
        fc.extrapolation = 'CONSTANT'
    kps.add(n)
    co = np.empty(2 * n, dtype=np.float32)
    co[0::2] = frames
    co[1::2] = values
    kps.foreach_set("co", co)
    # Handles are unused by LINEAR segments; update() below places them.
    ipo = np.full(n, _LINEAR, dtype=_IPO_DTYPE)
    if constant is not None:
        ipo[np.asarray(constant, dtype=bool)] = _enum_value("interpolation", 'CONSTANT')
    kps.foreach_set("interpolation", ipo)
    # No fc.update(): the keys are new, sorted, unique and LINEAR, so there is
    # nothing to sort, merge or re-handle; Blender's own baker skips it for the
    # same reason (bpy_extras.anim_utils, insert_keyframes_into_new_action).
    # It would cost ~40% of the whole write.


def assign_action(obj, action, slot_identifier: str = "") -> None:
    """Make ``action`` (and its slot on 4.4+) animate ``obj``; None removes the action."""
    ad = obj.animation_data
    if ad is None:
        if action is None:
            return
        ad = obj.animation_data_create()
    ad.action = action
    if action is not None and hasattr(ad, "action_slot") and is_slotted(action):
        ad.action_slot = _find_slot(action, slot_identifier) if slot_identifier else None


def remove_action(action) -> None:
    """Delete ``action`` from the file."""
    bpy.data.actions.remove(action)


# --------------------------------------------------------------------------
# Delta transforms
# --------------------------------------------------------------------------
# Blender composes an object's rotation matrix as delta @ rotation
# (BKE_object_rot_to_mat3: mul_m3_m3m3(mat, dmat, rmat)), the delta in the
# object's own rotation mode (the same Euler order; delta_rotation_quaternion,
# normalised, in QUATERNION mode). Axis-angle objects use drotAxis/drotAngle,
# which RNA does not expose, so they have no delta channel here. Location is
# location + delta_location (BKE_object_to_mat4).
DELTA_ROTATION_PATHS: dict[str, tuple[str, int]] = {
    mode: ("delta_rotation_quaternion", 4) if mode == 'QUATERNION'
    else ("delta_rotation_euler", 3)
    for mode in ROTATION_PATHS if mode != 'AXIS_ANGLE'
}
DELTA_ROTATION_DATA_PATHS = frozenset(path for path, _ in DELTA_ROTATION_PATHS.values())
DELTA_LOCATION_PATH: tuple[str, int] = ("delta_location", 3)
# Every channel QuatBake reads of a transform (an armature's own, beside its bones').
TRANSFORM_DATA_PATHS = (ROTATION_DATA_PATHS | DELTA_ROTATION_DATA_PATHS
                        | {LOCATION_PATH[0], DELTA_LOCATION_PATH[0]})


def delta_rotation_fcurves(obj, mode: str | None = None, fcurves: Iterable | None = None) -> list:
    """``find_fcurves`` for the delta rotation of ``mode`` ([] for AXIS_ANGLE: none in RNA)."""
    entry = DELTA_ROTATION_PATHS.get(mode or obj.rotation_mode)
    if entry is None:
        return []
    return find_fcurves(obj, entry[0], entry[1], fcurves)


def delta_location_fcurves(obj, fcurves: Iterable | None = None) -> list:
    return find_fcurves(obj, DELTA_LOCATION_PATH[0], DELTA_LOCATION_PATH[1], fcurves)


def delta_rotation_defaults(obj, mode: str | None = None) -> np.ndarray:
    """Current values of the delta rotation property of ``mode`` (identity for AXIS_ANGLE)."""
    entry = DELTA_ROTATION_PATHS.get(mode or obj.rotation_mode)
    if entry is None:
        return np.array([1.0, 0.0, 0.0, 0.0])
    return np.array(getattr(obj, entry[0]), dtype=np.float64)


def has_keys(fcurves: Iterable) -> bool:
    """True when one of ``fcurves`` (None allowed) holds a key."""
    return any(fc is not None and len(fc.keyframe_points) for fc in fcurves)


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


# --------------------------------------------------------------------------
# NLA: clips (the actions an object's strips and stashes hold) and blending
# --------------------------------------------------------------------------

class Clip:
    """One action that can animate an object: its active action or one in its NLA.

    ``name`` is the action's name (what the report calls the clip); ``slot``
    the slot identifier that animates the object (4.4+, "" before); ``track``
    and ``strip`` name where it was found ("" for the active action alone).
    """

    def __init__(self, action, slot: str, active: bool, track: str = "", strip: str = ""):
        self.action = action
        self.name = action.name
        self.slot = slot
        self.active = active
        self.track = track
        self.strip = strip

    def fcurves(self) -> list:
        return action_fcurves(self.action, self.slot)


def strip_slot_identifier(strip) -> str:
    """Identifier of the slot an NLA strip plays (4.4+; "" before or without one)."""
    slot = getattr(strip, "action_slot", None)
    return slot.identifier if slot is not None else ""


def _action_strips(strips):
    for strip in strips:
        if strip.type == 'META':
            yield from _action_strips(strip.strips)
        elif strip.action is not None:
            yield strip


def nla_strips(obj) -> list:
    """(track, strip) for every action strip of ``obj``'s NLA, meta strips opened."""
    ad = obj.animation_data
    if ad is None:
        return []
    return [(track, strip) for track in ad.nla_tracks for strip in _action_strips(track.strips)]


def object_clips(obj) -> list[Clip]:
    """The active action first (if any), then each other action in the NLA, once each."""
    ad = obj.animation_data
    clips, seen = [], set()
    if ad is not None and ad.action is not None:
        clips.append(Clip(ad.action, get_slot_identifier(obj), True))
        seen.add((ad.action.as_pointer(), clips[0].slot))
    for track, strip in nla_strips(obj):
        slot = strip_slot_identifier(strip) if is_slotted(strip.action) else ""
        key = (strip.action.as_pointer(), slot)
        if key in seen:
            continue
        seen.add(key)
        clips.append(Clip(strip.action, slot, False, track.name, strip.name))
    return clips


def tweaked_strip(obj) -> tuple[str, str]:
    """(track, strip) being edited in NLA tweak mode, ("", "") if none is found.

    Blender flags the strip (``active``) when tweak mode is entered from the NLA
    editor; from a script only the track is flagged, and the strip is the one
    playing the action being tweaked (which tweak mode assigns as the action).
    """
    ad = obj.animation_data
    if ad is None:
        return "", ""
    for track in ad.nla_tracks:
        for strip in track.strips:
            if strip.active:
                return track.name, strip.name
    for track in ad.nla_tracks:
        if track.active:
            for strip in track.strips:
                if strip.action is not None and strip.action == ad.action:
                    return track.name, strip.name
            return track.name, ""
    return "", ""


def _playing_tracks(ad) -> list:
    solo = [t for t in ad.nla_tracks if t.is_solo]
    return solo if solo else [t for t in ad.nla_tracks if not t.mute]


def blending_strips(obj, data_paths: Iterable[str]) -> list[tuple[str, str, str, list[str]]]:
    """NLA strips that play together with the active action on ``data_paths``.

    (track, strip, action, [data paths]) for each unmuted strip on a playing
    track (solo respected) whose action animates one of ``data_paths``. A strip
    of the active action itself is left out when the action replaces it fully
    (blend REPLACE, influence 1, HOLD extrapolation): the importer's stash, or
    an action pushed down and assigned again, plays nothing the action does not.
    """
    ad = obj.animation_data
    if ad is None or not len(ad.nla_tracks) or ad.use_nla is False:
        return []
    wanted = {path_prefix(obj) + p for p in data_paths}
    full_replace = (ad.action is not None and ad.action_blend_type == 'REPLACE'
                    and ad.action_influence >= 1.0 and ad.action_extrapolation == 'HOLD')
    found = []
    for track in _playing_tracks(ad):
        for strip in _action_strips(track.strips):
            if strip.mute:
                continue
            if full_replace and strip.action == ad.action:
                continue
            slot = strip_slot_identifier(strip) if is_slotted(strip.action) else ""
            paths = sorted({fc.data_path for fc in action_fcurves(strip.action, slot)
                            if fc.data_path in wanted and len(fc.keyframe_points)})
            if paths:
                found.append((track.name, strip.name, strip.action.name, paths))
    return found


def bone_key_count(obj) -> int:
    """How many pose bones ``obj``'s action keys (0 for non-armatures)."""
    if obj.type != 'ARMATURE':
        return 0
    bones = set()
    for clip in object_clips(obj):
        for fc in clip.fcurves():
            if fc.data_path.startswith("pose.bones[") and len(fc.keyframe_points):
                bones.add(fc.data_path.split("]")[0])
    return len(bones)


def select_bone(rig, bone_name: str, selected: bool) -> None:
    """Select or deselect a bone for Pose Mode: ``PoseBone.select`` on Blender 5.0+,
    ``Bone.select`` (with its head and tail) before."""
    pbone = rig.pose.bones[bone_name]
    if hasattr(pbone, "select"):
        pbone.select = selected
        return
    bone = rig.data.bones[bone_name]
    bone.select = bone.select_head = bone.select_tail = selected


def bone_selected(rig, bone_name: str) -> bool:
    pbone = rig.pose.bones[bone_name]
    return bool(pbone.select if hasattr(pbone, "select") else rig.data.bones[bone_name].select)


# In-between samples per key interval whose channels jump far (below): a full
# 360 deg turn is then seen in steps of 22.5 deg, each unambiguous (< 180 deg).
FAR_TURN_SUBSTEPS = 16


def far_turn_subframes(obj, keys, mode: str | None = None,
                       fcurves: Iterable | None = None) -> np.ndarray:
    """Subframes inside key intervals where Blender's channels may spin between two keys.

    An Euler (or axis-angle angle) channel changing by more than pi between
    neighbouring keys, or a quaternion key whose sign is flipped against the
    previous one, turns the object the long way round; sampled only at whole
    frames, two keys one frame apart would hide that spin. Returns the
    FAR_TURN_SUBSTEPS - 1 evenly spaced subframes of each such interval (sorted).
    """
    mode = mode or obj.rotation_mode
    keys = np.asarray(keys, dtype=np.float64)
    if keys.size < 2:
        return np.zeros(0)
    far = np.zeros(keys.size - 1, dtype=bool)
    sets = [(rotation_fcurves(obj, mode, fcurves), rotation_defaults(obj, mode), mode)]
    if mode in DELTA_ROTATION_PATHS:
        sets.append((delta_rotation_fcurves(obj, mode, fcurves),
                     delta_rotation_defaults(obj, mode), mode))
    for fcs, defaults, kind in sets:
        if not has_keys(fcs):
            continue
        raw = evaluate_channels(fcs, defaults, keys)
        if kind == 'QUATERNION':
            far |= np.einsum("ij,ij->i", raw[:-1], raw[1:]) < 0.0
        elif kind == 'AXIS_ANGLE':
            far |= np.abs(np.diff(raw[:, 0])) > np.pi
        else:
            far |= (np.abs(np.diff(raw, axis=0)) > np.pi).any(axis=1)
    idx = np.flatnonzero(far)
    if idx.size == 0:
        return np.zeros(0)
    u = np.arange(1, FAR_TURN_SUBSTEPS) / FAR_TURN_SUBSTEPS
    sub = keys[idx, None] + (keys[idx + 1] - keys[idx])[:, None] * u[None, :]
    return np.unique(sub.ravel())
