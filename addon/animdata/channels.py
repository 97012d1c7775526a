# SPDX-License-Identifier: GPL-3.0-or-later
"""A transform's F-curves, found by data path (an object's, or a pose bone's
behind its ``pose.bones["..."].`` prefix), and the values unkeyed channels hold."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from .actions import object_fcurves
from .paths import (
    DELTA_LOCATION_PATH,
    DELTA_ROTATION_PATHS,
    LOCATION_PATH,
    ROTATION_PATHS,
    bone_name_from_path,
    channel_label,
    path_prefix,
    subject,
)


def fcurves_by_bone(fcurves: Iterable) -> dict:
    """{bone name: its F-curves} for the ``pose.bones[...]`` channels among ``fcurves``
    (one pass, so a rig's bones are not each searched for in every F-curve)."""
    found: dict = {}
    for fc in fcurves:
        name = bone_name_from_path(fc.data_path)
        if name is not None:
            found.setdefault(name, []).append(fc)
    return found




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


def sampled_sentence(obj, fcurves: Iterable) -> str:
    """The sentence for the first of ``fcurves`` (None skipped) that holds samples rather
    than keys (the Graph Editor's Keys to Samples, Bake Curve in older releases), or "".
    QuatBake reads keys: such a channel read as unkeyed, and a bake turned its playback
    177 deg (a review)."""
    for fc in fcurves:
        if fc is not None and len(fc.sampled_points):
            return (f"{subject(obj)}: channel {channel_label(fc.data_path, fc.array_index)} "
                    f"holds {len(fc.sampled_points)} samples, not keys, which QuatBake does "
                    "not read. Turn them back into keys first (the Graph Editor's Samples "
                    "to Keys; Un-Bake Curve in older releases).")
    return ""


def location_fcurves(obj, fcurves: Iterable | None = None) -> list:
    """``find_fcurves`` for ``location`` (3 entries, None where not animated)."""
    return find_fcurves(obj, LOCATION_PATH[0], LOCATION_PATH[1], fcurves)


def rotation_defaults(obj, mode: str | None = None) -> np.ndarray:
    """Current values of the rotation property of ``mode``: what an unkeyed channel holds."""
    path, _count = ROTATION_PATHS[mode or obj.rotation_mode]
    return np.array(getattr(obj, path), dtype=np.float64)


def location_defaults(obj) -> np.ndarray:
    return np.array(obj.location, dtype=np.float64)


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



def driver_channels(obj, data_paths: Iterable[str]) -> list[str]:
    """Labels ``path[i]`` of the drivers on ``obj`` whose data path is in ``data_paths`` and
    that drive it: a muted driver, or one Blender found invalid, leaves the keys playing."""
    ad = obj.animation_data
    if ad is None:
        return []
    prefix = path_prefix(obj)
    wanted = {prefix + p for p in data_paths}
    return [channel_label(d.data_path, d.array_index) for d in ad.drivers
            if d.data_path in wanted and not d.mute and d.driver.is_valid]


def stepped_channels(fcurves: Iterable) -> tuple[list[str], float]:
    """(labels ``path[i]``, frame step) of the curves among ``fcurves`` (None skipped) that
    a Stepped F-modifier holds (not muted): Blender plays each such curve's value at the
    last step before the frame, holding the pose in between; ([], 0) when none does."""
    labels, steps = [], set()
    for fc in fcurves:
        held = [m for m in (fc.modifiers if fc is not None else ()) if m.type == 'STEPPED'
                and not m.mute]
        if held:
            labels.append(channel_label(fc.data_path, fc.array_index))
            steps.add(float(held[0].frame_step))
    return labels, (min(steps) if steps else 0.0)


# Read-only or structural: not a modifier's settings (its control points and a
# generator's coefficients go through their own collections or arrays).
_MODIFIER_SKIP = frozenset({"rna_type", "type", "is_valid", "show_expanded"})
# Settings that change nothing of what a modifier plays: its name, the panel's state.
_UNPLAYED = frozenset({"name", "active", "show_expanded"})


def modifier_settings(modifier) -> tuple:
    """Every writable setting of an F-curve modifier, (name, value) in RNA order."""
    return tuple((prop.identifier, getattr(modifier, prop.identifier))
                 for prop in modifier.bl_rna.properties
                 if not prop.is_readonly and prop.identifier not in _MODIFIER_SKIP)


# Why a bake cannot keep the Stepped modifier it drops (common_stepped's second value),
# said after "the Stepped modifier's held poses go with it, since ...".
HELD_UNALIKE = "the channels are not all held alike"
KEYS_OFF_STEPS = "some keys lie off its steps and play the value of the step before them"
RANGED = "it is limited to a frame range or an influence"


def common_stepped(fcurves: Iterable) -> tuple:
    """(modifier, why): the Stepped F-modifier that every curve of ``fcurves`` (None
    skipped) has, unmuted and set alike on each, under which every key plays its own
    value, with "" for why; or (None, why not: HELD_UNALIKE, KEYS_OFF_STEPS or RANGED;
    "" when no curve has one). A bake puts that modifier on the channels it writes, so the
    held look stays (a blocking pass animated on twos): the keys are the poses it passes
    through, and the steps hold its path as they held the keys' curves.

    Not when the curves are held differently or some not at all (no one step says what
    the written channels should hold), when a key lies off the steps (frame 11 held at
    frame 10's value: the bake reads the poses the modifier plays at the keys, and held
    again those would move), or when the modifier only acts on a frame range or with an
    influence (stepped_time follows the plain steps)."""
    curves = [fc for fc in fcurves if fc is not None]
    first, why = _shared_modifier(curves, 'STEPPED', HELD_UNALIKE)
    if first is None:
        return None, why
    for fc in curves:
        count = len(fc.keyframe_points)
        co = np.empty(2 * count, dtype=np.float32)
        fc.keyframe_points.foreach_get("co", co)
        # Blender's own evaluation, modifiers and all: a key on a step plays its value.
        if any(fc.evaluate(float(frame)) != value
               for frame, value in zip(co[0::2].tolist(), co[1::2].tolist())):
            return None, KEYS_OFF_STEPS
    return first, ""


# Cycles modes a bake keeps: the baked curve repeats (or mirrors) as the keys' did. With an
# offset, each cycle adds the last value less the first, which for the bake's channel
# values (quaternion signs and Euler branches chosen anew) need not be the keys' offset.
_CYCLES_KEPT = frozenset({'REPEAT', 'MIRROR', 'NONE'})
CYCLES_UNALIKE = "the channels do not all cycle alike"
CYCLES_OFFSET = "it repeats with an offset, which the baked values need not share"
CYCLES_SPANS = "the channels' keys start or end on different frames"


def common_cycles(fcurves: Iterable) -> tuple:
    """(modifier, why): the Cycles F-modifier that every curve of ``fcurves`` (None
    skipped) has, unmuted, set alike, on keys that all start and end on the same frames,
    repeating or mirroring without an offset, with "" for why; or (None, why not:
    CYCLES_UNALIKE, RANGED, CYCLES_OFFSET or CYCLES_SPANS; "" when no curve has one). A
    bake of exactly that span puts it on the channels it writes, so a walk cycle goes on
    cycling past its keys (a walk: the limbs froze 124 deg off after the last key, while
    the location, kept, cycled on)."""
    curves = [fc for fc in fcurves if fc is not None]
    first, why = _shared_modifier(curves, 'CYCLES', CYCLES_UNALIKE)
    if first is None:
        return None, why
    if {first.mode_before, first.mode_after} - _CYCLES_KEPT:
        return None, CYCLES_OFFSET
    ends = {(fc.keyframe_points[0].co[0], fc.keyframe_points[-1].co[0]) for fc in curves
            if len(fc.keyframe_points)}
    if len(ends) != 1:
        return None, CYCLES_SPANS
    return first, ""


def _shared_modifier(curves: list, kind: str, unalike: str) -> tuple:
    """(the first curve's modifier of type ``kind``, "") when every curve has exactly one,
    unmuted, set alike, on no frame range or influence; else (None, why: "" when no curve
    has one, ``unalike``, RANGED)."""
    found = [[m for m in fc.modifiers if m.type == kind and not m.mute] for fc in curves]
    if not any(found):
        return None, ""
    if any(len(mods) != 1 for mods in found):
        return None, unalike
    first = found[0][0]
    settings = _played_settings(first)
    if any(_played_settings(mods[0]) != settings for mods in found[1:]):
        return None, unalike
    if first.use_restricted_range or first.use_influence:
        return None, RANGED
    return first, ""


def _played_settings(modifier) -> list:
    """A modifier's settings that change what it plays (not its name or panel state)."""
    return [kv for kv in modifier_settings(modifier) if kv[0] not in _UNPLAYED]


def stepped_time(modifier, frames) -> np.ndarray:
    """The times a plain Stepped F-modifier (no frame range or influence: common_stepped)
    makes its curve play at ``frames``: Blender's fcm_stepped_time, the start of each
    step (the time less the offset, divided by the step, truncated towards zero), unless
    the frame is before its start or after its end where those are on."""
    # In float32, as Blender computes it: in float64, (21.3 - 1.3) / 5 of the float32 key
    # and offset is 3.99999986 and truncates to the step before (16.3), where Blender's
    # float32 quotient is 4.0 (a review: the last key of a pass held from 1.3 was taken
    # for no step start).
    frames = np.asarray(frames, dtype=np.float64)
    at = frames.astype(np.float32)
    step, offset = np.float32(modifier.frame_step), np.float32(modifier.frame_offset)
    out = (np.trunc((at - offset) / step) * step + offset).astype(np.float64)
    if modifier.use_frame_start:
        out = np.where(frames < modifier.frame_start, frames, out)
    if modifier.use_frame_end:
        out = np.where(frames > modifier.frame_end, frames, out)
    return out


def on_step_starts(modifier, frames) -> np.ndarray:
    """(n,) bool: which ``frames`` are times a plain Stepped modifier plays its curve at for
    some frame of ``frames`` (the starts of their steps; outside its start and end frames
    the frames themselves), within the float32 rounding of a frame (near_frames). Not
    "stepped_time(f) == f": in float32 the start of a step can fall in the step before
    (with an offset of 1.3 and a step of 5, 16.3 plays 11.3's value while 17 plays
    16.3's), and it is still the time the step's frames play."""
    frames = np.asarray(frames, dtype=np.float64)
    return near_frames(frames, np.unique(stepped_time(modifier, frames)))


def near_frames(values, frames) -> np.ndarray:
    """(n,) bool: which ``values`` lie within float32 rounding (frame_slack) of one of
    ``frames`` (sorted, float64): Blender stores frames in float32, so a frame computed in
    float64 (a key at 41.3 is 41.29999924) is the same frame a few steps away."""
    values = np.asarray(values, dtype=np.float64)
    frames = np.asarray(frames, dtype=np.float64)
    if not frames.size:
        return np.zeros(values.shape, dtype=bool)
    nearest = frames[nearest_frame(values, frames)]
    return np.abs(values - nearest) <= frame_slack(values)


def nearest_frame(values, frames) -> np.ndarray:
    """(n,) the index into ``frames`` (sorted, not empty) of the frame nearest each of
    ``values``."""
    values = np.asarray(values, dtype=np.float64)
    frames = np.asarray(frames, dtype=np.float64)
    at = np.clip(np.searchsorted(frames, values), 0, frames.size - 1)
    before = np.clip(at - 1, 0, frames.size - 1)
    return np.where(np.abs(frames[before] - values) < np.abs(frames[at] - values), before, at)


def frame_slack(values) -> np.ndarray:
    """(n,) how far a frame computed in float64 may lie from the same frame as Blender
    stores it, in float32: four float32 steps at each of ``values``."""
    values = np.asarray(values, dtype=np.float64)
    return 4.0 * np.spacing(np.abs(values).astype(np.float32)).astype(np.float64)


def is_read_only(id_block) -> bool:
    """True for library-linked or library-overridden data-blocks."""
    return id_block.library is not None or id_block.override_library is not None


def linked_sentence(obj) -> str:
    """Why the object (or bone) ``obj`` cannot be baked when it is linked from a library
    without an override, or "": its action cannot be assigned. An override (a show's
    linked character) can: its action is the shot's own (addon/overrides.py)."""
    owner = getattr(obj, "owner", obj)
    if owner.library is None:
        return ""
    return (f"{subject(obj)} is linked from the library \"{owner.library.filepath}\" without "
            "an override, so its animation cannot be changed here. Make a library override "
            "of it (Object > Library Override > Make), or make it local, then bake.")


