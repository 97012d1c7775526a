# SPDX-License-Identifier: GPL-3.0-or-later
"""Writing keys in bulk (``keyframe_points.add`` + ``foreach_set``, never
``keyframe_insert``), and the actions that hold them."""
from __future__ import annotations

from typing import Iterable

import bpy
import numpy as np

from .. import versions
from . import memo
from .actions import (
    action_fcurves,
    add_object_slot,
    assign_slot,
    enum_value,
    fcurve_collections,
    fcurve_maker,
    keep_only_slot,
    remove_fcurves,
)
from .channels import modifier_settings
from .checksum import curve_arrays
from .paths import TRANSFORM_GROUP, bone_name_from_path, channel_label
from .read import KEY_FIELDS, read_keyframe_arrays


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
        # QuatBake's own ID properties belong to the action they were written on (an
        # override's bake record, overrides.KEPT): a copy carrying one was taken for a
        # bake when the file was opened again (a review: a Revert then took keys away).
        for key in [k for k in action.keys() if k.startswith("quatbake")]:
            del action[key]
        drop = set(drop)
        keep_only_slot(action, slot_identifier)
        for fcurves in fcurve_collections(action, slot_identifier):
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


class Rewrite:
    """Writing over the channels ``replaced`` (data paths) of ``action``, a copy being
    composed (slot ``slot_identifier``), so that each channel keeps its place and its
    keys' selection.

    ``make`` (an fcurve_maker, for the bake's writers) hands over the copy's own curve of
    the channel, emptied, where it has one, and a new curve where it has none;
    ``restore`` likewise for copy_fcurves putting back the keys before a bake, in the
    group they were in. Then ``remove_unwritten`` removes the replaced curves nobody
    took, and ``select_as_before`` selects the written keys on the frames where the
    animator had keys selected, and no others (``keep_written_selection``: curves whose
    keys stay as written).

    Blender adds a curve at the end of its group and a group at the end of the action,
    and (4.4+) removes a group once it is empty. Removed and made again, a baked object's
    rotation came below its scale, and every baked bone's group went to the bottom of the
    Dope Sheet; and new keys come selected, so after a bake every baked key was (a walk:
    5 of a Rigify rig's 12 keyed controls baked, their groups listed last, each of their
    keys selected where the animator had selected one; a Revert of two bones moved their
    groups again). A channel made anew (a conversion's quaternion where the Euler angles
    were) still comes at the end of its group: moving the channels after it (copied out
    and back) cost a 100-object conversion a twentieth of its time."""

    def __init__(self, action, slot_identifier: str, replaced: set):
        self.action, self.slot = action, slot_identifier
        self._new = fcurve_maker(action, slot_identifier)
        self._old: dict = {}          # (data path, index): the copy's curves of it
        for fc in action_fcurves(action, slot_identifier):
            if fc.data_path in replaced:
                self._old.setdefault((fc.data_path, fc.array_index), []).append(fc)
        self._made: list = []         # curves a writer made anew
        self._rewritten: list = []    # (curve, frames of its keys selected before)
        self._as_written: set = set()
        # Per bone (None: the object): the frames selected on its curves removed unwritten.
        self._removed: dict = {}

    def make(self, data_path: str, index: int, group: str = TRANSFORM_GROUP):
        """The curve a writer fills: the channel's own, emptied, in its place and group
        (the animator's, also a group of their own); else a new one in ``group``."""
        fc = self._take(data_path, index, None)
        if fc is None:
            fc = self._new(data_path, index, group)
            self._made.append(fc)
        else:
            self._rewritten.append((fc, _selected_frames(fc)))
            _empty(fc)
        return fc

    def restore(self, data_path: str, index: int, group: str = TRANSFORM_GROUP):
        """The curve copy_fcurves puts the keys before a bake into: the channel's own,
        emptied, where it is in ``group``; else a new one in ``group`` (a review: a bone
        converted into a group of its name came back there, not in the animator's
        "Arm")."""
        fc = self._take(data_path, index, group)
        if fc is None:
            return self._new(data_path, index, group)
        _empty(fc)
        return fc

    def _take(self, data_path: str, index: int, group: str | None):
        """The copy's curve of the channel, now the caller's, or None (then there is none
        left of it): one holding samples (Keys to Samples), which emptying its keys would
        leave behind, or one outside ``group`` (None: any) is removed first, and so are
        duplicates of the channel (a rename onto an existing name leaves two)."""
        found = self._old.pop((data_path, index), [])
        keep = next((fc for fc in found if not len(fc.sampled_points)
                     and (group is None or _group_name(fc) == group)), None)
        self._remove([fc for fc in found if fc is not keep])
        return keep

    def keep_written_selection(self, fcurves) -> None:
        """Leave the keys of ``fcurves`` selected as written: a dense bake's (a key on
        every frame), as Blender's own bake leaves them. Deselecting a key is three flags
        set one by one through the API: a 100-object x 2,000-frame Re-bake took half as
        long again (321 -> 494 ms). The keys an animator goes on editing (a tolerance
        bake's, a conversion's) are few."""
        self._as_written.update(fc.as_pointer() for fc in fcurves)

    def remove_unwritten(self) -> None:
        """Remove the replaced curves nobody took (what they had selected is kept for
        the curves made anew, select_as_before)."""
        left = [fc for curves in self._old.values() for fc in curves]
        self._old.clear()
        self._remove(left)

    def _remove(self, fcurves: list) -> None:
        for fc in fcurves:
            self._removed.setdefault(bone_name_from_path(fc.data_path), []).append(
                _selected_frames(fc))
        remove_fcurves(self.action, self.slot, fcurves)

    def select_as_before(self) -> None:
        """Select each written curve's keys where the curve it replaces had keys
        selected; a curve made anew (a conversion's) where the transform's removed curves
        had them."""
        for fc, frames in self._rewritten:
            if fc.as_pointer() not in self._as_written:
                _select_on(fc, frames)
        for fc in self._made:
            bone = bone_name_from_path(fc.data_path)
            if bone in self._removed and fc.as_pointer() not in self._as_written:
                _select_on(fc, np.concatenate(self._removed[bone]))


def _group_name(fc) -> str:
    return fc.group.name if fc.group is not None else ""


def _empty(fc) -> None:
    """``fc`` as a new curve comes: no keys, no modifiers, playing and editable (its
    group, colour and visibility stay the animator's). Flags set only where needed:
    each set runs the curve's update."""
    fc.keyframe_points.clear()
    for modifier in list(fc.modifiers):
        fc.modifiers.remove(modifier)
    if fc.mute:
        fc.mute = False
    if fc.lock:
        fc.lock = False
    if not fc.is_valid:
        fc.is_valid = True      # a path that once failed: the writer's keys play


def _selected_frames(fc) -> np.ndarray:
    """The frames of ``fc``'s selected keys."""
    kps = fc.keyframe_points
    selected = np.zeros(len(kps), dtype=bool)
    kps.foreach_get("select_control_point", selected)
    if not selected.any():
        return np.zeros(0)
    # Read here, not through read_keyframe_arrays: inside read_once() that would keep the
    # keys this curve is about to lose for every later reader.
    co = np.empty(2 * len(kps), dtype=np.float32)
    kps.foreach_get("co", co)
    return co[0::2][selected]


def _select_on(fc, frames: np.ndarray) -> None:
    """Select ``fc``'s keys on ``frames`` (and their handles), and deselect every other."""
    kps = fc.keyframe_points
    n = len(kps)
    if frames.size:
        co = np.empty(2 * n, dtype=np.float32)
        kps.foreach_get("co", co)
        selected = _on_frames(co[0::2], frames)
    else:
        selected = np.zeros(n, dtype=bool)
    for name in ("select_control_point", "select_left_handle", "select_right_handle"):
        kps.foreach_set(name, selected)


def _on_frames(keys: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """np.isin(keys, frames) for key frames (no NaN): one sorted search. np.isin's sort of
    both together took 85 us a curve, a Bezier bake's 400 curves 30 ms."""
    frames = np.sort(np.asarray(frames).reshape(-1))
    at = np.minimum(np.searchsorted(frames, keys), frames.size - 1)
    return frames[at] == keys


def copy_fcurves(action, slot_identifier: str, fcurves: Iterable, group: str | None = None,
                 make=None) -> None:
    """Copy ``fcurves`` into ``action``: their keys (frames, values, interpolation, easing
    and its back, amplitude and period, handles and handle types, as they are, and their
    selection), their auto smoothing, extrapolation, modifiers, mute and lock; in
    ``group``, or (None) each in its own curve's group; each into the curve ``make``
    gives (default: a new one at its group's end; Rewrite.restore: the channel's own, in
    its place). Carries the channels one action keeps into another: an earlier bake of
    some bones into a new copy of the action, the keys before a bake back into the action
    a Re-bake or a Revert composes.

    Every key's handles and easing settings are copied, Bezier or not: they wait for the
    animator's switch to Bezier or Back, and a curve's auto smoothing shapes its handles at
    the next edit (a walk: a Revert's copy lost them, and the next key nudge moved the curve
    1.69 deg otherwise than on the animator's own action)."""
    make = make or fcurve_maker(action, slot_identifier)
    items = bpy.types.Keyframe.bl_rna.properties["handle_left_type"].enum_items
    names = {item.value: item.identifier for item in items}
    for fc in fcurves:
        # A copy: inside read_once() the dict is the one every reader of this curve shares.
        keys = dict(read_keyframe_arrays(fc, ("co", "interpolation", "handle_left",
                                              "handle_right", "handle_left_type",
                                              "handle_right_type")))
        own = fc.group.name if fc.group is not None else ""
        new = make(fc.data_path, fc.array_index, own if group is None else group)
        if new.auto_smoothing != fc.auto_smoothing:
            new.auto_smoothing = fc.auto_smoothing
        # Copied as they are: Blender has aligned these handles already, and aligning
        # again (fc.update) would move ALIGNED ones by a float32 step.
        write_bezier_keys(new, keys["co"], keys["handle_left"], keys["handle_right"],
                          keys["interpolation"],
                          [names[int(v)] for v in keys["handle_left_type"]], update=False,
                          handle_right_type=[names[int(v)] for v in keys["handle_right_type"]])
        # The key's type too: a Breakdown or an Extreme stays one (a review); and which keys
        # and handles the animator had selected (an undo walk: every key came back
        # selected, as Blender makes new keys).
        for name, dtype in (("easing", _IPO_DTYPE), ("back", np.float32),
                            ("amplitude", np.float32), ("period", np.float32),
                            ("type", _IPO_DTYPE), ("select_control_point", bool),
                            ("select_left_handle", bool), ("select_right_handle", bool)):
            values = np.empty(len(fc.keyframe_points), dtype=dtype)
            fc.keyframe_points.foreach_get(name, values)
            new.keyframe_points.foreach_set(name, values)
        if new.extrapolation != fc.extrapolation:
            new.extrapolation = fc.extrapolation
        for modifier in fc.modifiers:
            _copy_modifier(modifier, new.modifiers.new(modifier.type))
        new.mute, new.lock = fc.mute, fc.lock
        # Its colour in the Graph Editor too (a convert walk: a reverted bone's curves came
        # back Auto Rainbow where they were XYZ to RGB).
        if new.color_mode != fc.color_mode:
            new.color_mode = fc.color_mode
        if fc.color_mode == 'CUSTOM':
            new.color = fc.color
        new.hide, new.select = fc.hide, fc.select


def add_modifier_copy(fc, modifier) -> None:
    """A copy of F-curve modifier ``modifier`` (of another curve) added to ``fc``."""
    _copy_modifier(modifier, fc.modifiers.new(modifier.type))


def _copy_modifier(source, target) -> None:
    """Every writable setting of F-curve modifier ``source`` onto ``target``, of its type
    (a modifier's control points and its generator's coefficients go through their own
    collections or arrays)."""
    for name, value in modifier_settings(source):
        setattr(target, name, value)
    if source.type == 'ENVELOPE':
        for point in source.control_points:
            added = target.control_points.add(point.frame)
            added.min, added.max = point.min, point.max


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
    return action, add_object_slot(action, obj.name)


def new_fcurve(action, slot_identifier: str, data_path: str, index: int,
               group: str = TRANSFORM_GROUP):
    """A new empty F-curve ``data_path[index]`` in ``action`` (the slot's channelbag on 4.4+)."""
    return fcurve_maker(action, slot_identifier)(data_path, index, group)


_LINEAR = None
# Buffer type for foreach_set("interpolation"): versions.KEYFRAME_ENUM_DTYPE.
_IPO_DTYPE = np.dtype(versions.KEYFRAME_ENUM_DTYPE)


def write_keys(fc, frames, values, constant=None, extrapolation: str = 'CONSTANT') -> tuple:
    """Write keys (frames[i], values[i]) with LINEAR interpolation into an empty ``fc``;
    returns the arrays stored that animdata.checksum takes (checksum.curve_arrays: as a
    read of ``fc`` gives them).

    One ``keyframe_points.add`` and one ``foreach_set`` per field: no per-key
    Python work. Values are stored as float32 (Blender's F-curve type).
    ``constant`` (n,) bool, optional: keys written CONSTANT instead (a hold
    until the next key: stepped keys stay stepped). ``extrapolation``: the curve's.
    """
    global _LINEAR
    if _LINEAR is None:
        _LINEAR = enum_value("interpolation", 'LINEAR')
    frames = np.asarray(frames, dtype=np.float64).ravel()
    values = np.asarray(values, dtype=np.float64).ravel()
    n = frames.shape[0]
    kps = fc.keyframe_points
    if len(kps):
        raise ValueError(f"F-curve {channel_label(fc.data_path, fc.array_index)} is not empty.")
    if fc.extrapolation != extrapolation:
        # Set before the keys exist: this property's RNA update re-sorts the keys
        # and recalculates every handle, which would double the cost of update().
        fc.extrapolation = extrapolation
    kps.add(n)
    co = np.empty(2 * n, dtype=np.float32)
    co[0::2] = frames
    co[1::2] = values
    # Each handle on its key. LINEAR and CONSTANT segments never play them, but
    # keyframe_points.add leaves them at (0, 0), and the Graph Editor's View All (Home) and
    # View Selected frame every handle: a shot baked at frames 1001-1100 was framed from
    # frame 0, its curves squeezed to the right (nla.bake's keys do the same). ``co_ui``
    # moves a key and its handles by the same step, as a Graph Editor move does: from
    # (0, 0), all three land on the key, exactly, in the one foreach_set that ``co`` took
    # (setting both handles as well made a 100 x 2,000 frame bake a fifth slower). Set to
    # Bezier, the keys get Blender's own AUTO_CLAMPED handles (graph.interpolation_type
    # places them): tests/blender/test_ops_bake.py.
    kps.foreach_set("co_ui", co)
    ipo = np.full(n, _LINEAR, dtype=_IPO_DTYPE)
    if constant is not None:
        ipo[np.asarray(constant, dtype=bool)] = enum_value("interpolation", 'CONSTANT')
    kps.foreach_set("interpolation", ipo)
    # No fc.update(): the keys are new, sorted, unique and LINEAR, so there is
    # nothing to sort, merge or re-handle; Blender's own baker skips it for the
    # same reason (bpy_extras.anim_utils, insert_keyframes_into_new_action).
    # It would cost ~40% of the whole write.
    _remember(fc, co, co, co, ipo)
    return curve_arrays(co, ipo, co, co)


def _remember(fc, co, handle_left, handle_right, ipo) -> None:
    """Inside memo.recording_writes(): keep the arrays ``fc`` was just filled from (float32
    keys and handles, interleaved or (n, 2); the interpolation's enum values). Kept as they
    are, new arrays this module made
    for the write: widened only if a refresh reads them (memo.Written.arrays)."""
    held = memo.written
    if held is not None:
        held.keep((fc.as_pointer(), KEY_FIELDS), (co, handle_left, handle_right, ipo),
                  co.size // 2)


def write_bezier_keys(fc, co, handle_left, handle_right, interpolation, handle_type,
                      update: bool = True, handle_right_type=None,
                      extrapolation: str = 'CONSTANT') -> tuple | None:
    """Write Bezier keys with the handles given into an empty ``fc`` (issue 22).

    co, handle_left, handle_right: (n, 2) (frame, value); interpolation (n,): enum
    values (core.fcurve's CONSTANT 0 / LINEAR 1 / BEZIER 2, which are Blender's) or
    identifiers; handle_type (n,): 'FREE', 'ALIGNED' ... both sides of each key.
    Every number is written as it is (float32): no AUTO handle is left for Blender to
    recompute. Extrapolation ``extrapolation``. Then ``fc.update()``, which sorts nothing (the
    keys are sorted) and re-aligns ALIGNED handles, moving them by float32 steps (every
    time it runs: the step is not idempotent). ``update=False``: numbers already as
    Blender's re-alignment leaves them (a Bezier bake's,
    core.bezier_keys.aligned_as_blender, or keys copied from a curve Blender has
    updated), stored exactly as given; ``handle_right_type``: the right sides' types
    when they differ from the left's. Returns the arrays stored that animdata.checksum
    takes (see write_keys), or None after ``fc.update()``, which may move the handles.
    """
    co = np.asarray(co, dtype=np.float64).reshape(-1, 2)
    n = co.shape[0]
    kps = fc.keyframe_points
    if len(kps):
        raise ValueError(f"F-curve {channel_label(fc.data_path, fc.array_index)} is not empty.")
    if fc.extrapolation != extrapolation:
        fc.extrapolation = extrapolation   # before the keys exist (see write_keys)
    kps.add(n)
    left = [str(t) for t in handle_type]
    right = left if handle_right_type is None else [str(t) for t in handle_right_type]
    versions.set_handle_types(kps, left, right)
    # Copies (np.array): inside a recording_writes() block _remember keeps them.
    stored = [np.array(arr, dtype=np.float32).reshape(-1)
              for arr in (co, handle_left, handle_right)]
    for name, arr in zip(("co", "handle_left", "handle_right"), stored):
        kps.foreach_set(name, arr)
    ipo = np.asarray(interpolation)
    if ipo.dtype.kind in "US":
        names = {v: enum_value("interpolation", str(v)) for v in set(ipo.tolist())}
        ipo = np.array([names[v] for v in ipo.tolist()])
    ipo = ipo.astype(_IPO_DTYPE)
    kps.foreach_set("interpolation", ipo)
    if update:
        fc.update()    # it may move the handles: read them back, not what was given
        memo.forget_written((fc.as_pointer(), KEY_FIELDS))
        return None
    _remember(fc, *stored, ipo)
    return curve_arrays(stored[0], ipo, stored[1], stored[2])


def assign_action(obj, action, slot_identifier: str = "") -> None:
    """Make ``action`` (and its slot on 4.4+) animate ``obj``; None removes the action."""
    ad = obj.animation_data
    if ad is None:
        if action is None:
            return
        ad = obj.animation_data_create()
    ad.action = action
    assign_slot(ad, action, slot_identifier)


def remove_action(action) -> None:
    """Delete ``action`` from the file."""
    bpy.data.actions.remove(action)


